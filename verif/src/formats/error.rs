//! The single error type shared by every reader in this crate.

use std::fmt;

/// A failure to read a file: which file, and what went wrong, in words a person understands.
///
/// Every reader in this crate reports missing files, truncated or corrupt data, unsupported
/// features and inconsistent metadata through this type; none of them panics on bad input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// The file (or, for data held in memory, the name given by the caller) that failed.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl FormatError {
    /// Creates an error for `path` with the given message.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FormatError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for FormatError {}
