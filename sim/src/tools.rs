//! Finding and running external tools.

use crate::error::{ErrorKind, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Full path of `tool` on PATH.
pub fn find(tool: &str) -> Result<PathBuf> {
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

fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Run a command in `dir`; error with its output when it fails.
pub fn run(cmd: &mut Command, dir: &Path) -> Result<std::process::Output> {
    let program = cmd.get_program().to_string_lossy().to_string();
    let line = std::iter::once(program.clone())
        .chain(cmd.get_args().map(|a| a.to_string_lossy().to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let out = cmd.current_dir(dir).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            crate::Error::from(ErrorKind::ToolMissing {
                tool: program.clone(),
            })
        } else {
            crate::Error::io(dir, e)
        }
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

/// First line of `tool --version` (or `-V`), for cache keys and reports.
pub fn version(tool: &str) -> Result<String> {
    let exe = find(tool)?;
    let flag = if tool == "iverilog" {
        "-V"
    } else {
        "--version"
    };
    let out = Command::new(&exe)
        .arg(flag)
        .output()
        .map_err(|e| crate::Error::io(&exe, e))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}
