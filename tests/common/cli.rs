//! Helpers of the command-line tests: run the `edgelearn` binary from the repository root
//! with its work files under this test target's tmp dir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under the repository's `data/`.
pub fn data(rel: &str) -> PathBuf {
    root().join("data").join(rel)
}

/// The work directory of the `edgelearn` runs of the tests (Verilator models, netlists):
/// the same for the binary and for in-process benches ([`super::simulator`]), so a model is
/// built once per test target directory.
pub fn work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("edgelearn")
}

/// A fresh, empty directory `TEST-NAME-PID` under the tmp dir, `TEST` the running test
/// (`matmul::thesis_vectors` as `matmul-thesis_vectors`: the test harness names each test's
/// thread after it), so tests of different files may use the same `NAME`.
pub fn tmp(name: &str) -> PathBuf {
    let test = std::thread::current()
        .name()
        .unwrap_or("main")
        .replace("::", "-");
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{test}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as a `&str` argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The `edgelearn` binary: where cargo built it, or where nextest extracted it from an
/// archive (`NEXTEST_BIN_EXE_edgelearn`, docs/regress.md).
pub fn exe() -> PathBuf {
    std::env::var_os("NEXTEST_BIN_EXE_edgelearn")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_edgelearn").into())
}

/// `edgelearn ARGS`, run from the repository root with its work files in [`work_dir`].
pub fn edgelearn(args: &[&str]) -> Output {
    Command::new(exe())
        .current_dir(root())
        .env("EDGELEARN_WORK_DIR", work_dir())
        .args(args)
        .output()
        .expect("run edgelearn")
}

/// The standard output of a run that must succeed (else a panic with its exit status and
/// both streams).
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The arguments of the command line `line` (split at whitespace, so for arguments without
/// spaces), followed by `more` as they are (paths, say):
/// `argv("core run fc1 --report", &[s(&report)])`.
pub fn argv<'a>(line: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let mut args: Vec<&str> = line.split_whitespace().collect();
    args.extend_from_slice(more);
    args
}

/// The standard output and standard error of a finished run.
pub fn streams(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The standard output and standard error of a run `what` that must have ended with exit
/// code `code` (else a panic naming `what`, the exit status and both streams).
pub fn exited(out: &Output, code: i32, what: &str) -> (String, String) {
    let (stdout, stderr) = streams(out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit {:?}\nstdout: {stdout}\nstderr: {stderr}",
        out.status.code()
    );
    (stdout, stderr)
}

/// `edgelearn ARGS`, which must end with exit code `code`: its standard output and standard
/// error (else a panic naming the arguments, the exit status and both streams).
pub fn run_exit(args: &[&str], code: i32) -> (String, String) {
    exited(&edgelearn(args), code, &format!("edgelearn {args:?}"))
}

/// `edgelearn ARGS`, which must succeed: its standard output and standard error (else a
/// panic naming the arguments, the exit status and both streams).
pub fn run_ok(args: &[&str]) -> (String, String) {
    run_exit(args, 0)
}

/// A JSON file (a report), parsed.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `weights_sha256 HEX` line of a training command's standard output.
pub fn weights_sha(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("weights_sha256 "))
        .unwrap_or_else(|| panic!("no weights_sha256 in:\n{stdout}"))
        .to_string()
}
