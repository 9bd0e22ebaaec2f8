//! Errors of the hardware crate.

use std::fmt;

/// What went wrong in `edgelearn-hdl`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No block of this name is registered; `valid` lists the names that are.
    UnknownBlock {
        /// The name asked for.
        name: String,
        /// Every registered name.
        valid: Vec<String>,
    },
    /// rust-hdl's structural check (open signals, logic loops, writes to inputs) failed.
    Check {
        /// The block being checked.
        block: String,
        /// rust-hdl's description of the problem.
        detail: String,
    },
    /// A port name that the block does not have, or a port used in the wrong direction.
    UnknownPort {
        /// The block.
        block: String,
        /// The port asked for.
        port: String,
    },
    /// The combinational logic did not settle (a loop or oscillation).
    NoConvergence {
        /// The block.
        block: String,
    },
}

/// Error of the hardware crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What happened.
    pub kind: ErrorKind,
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error { kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnknownBlock { name, valid } => {
                write!(
                    f,
                    "unknown block `{name}`; valid blocks: {}",
                    valid.join(", ")
                )
            }
            ErrorKind::Check { block, detail } => {
                write!(
                    f,
                    "block `{block}` fails rust-hdl's structural check: {detail}"
                )
            }
            ErrorKind::UnknownPort { block, port } => {
                write!(f, "block `{block}` has no port `{port}` in that direction")
            }
            ErrorKind::NoConvergence { block } => {
                write!(f, "block `{block}`: combinational logic did not settle")
            }
        }
    }
}

impl std::error::Error for Error {}
