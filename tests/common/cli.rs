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

/// A fresh, empty directory `TEST-NAME-PID` under the tmp dir (`TEST` the test target).
pub fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
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
