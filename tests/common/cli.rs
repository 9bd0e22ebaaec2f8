//! Helpers of the command-line tests: run the `edgelearn` binary from the repository root
//! with its work files under this test target's tmp dir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty directory `PREFIX-NAME-PID` under the tmp dir.
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{name}-{}", std::process::id()));
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

/// `edgelearn ARGS`, run from the repository root.
pub fn edgelearn(args: &[&str]) -> Output {
    Command::new(exe())
        .current_dir(root())
        .env(
            "EDGELEARN_WORK_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("edgelearn"),
        )
        .args(args)
        .output()
        .expect("run edgelearn")
}
