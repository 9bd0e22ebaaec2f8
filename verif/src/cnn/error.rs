//! The error type of the CNN engine model: where (file, layer, key, line) and what.

use std::fmt;

/// A problem with a network description, its weights, its input, or a run.
///
/// Every message names what a user can act on: the file, the layer index (as ai8x counts it,
/// from 0) and the YAML key where there is one, and the line of the YAML file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CnnError {
    /// The file the problem is in, when there is one.
    pub file: Option<String>,
    /// The layer index (0-based, in sequence order).
    pub layer: Option<usize>,
    /// The YAML key (or checkpoint entry) at fault.
    pub key: Option<String>,
    /// The 1-based line in the YAML file.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The kind of problem, for callers that can act on it.
    pub kind: ErrorKind,
}

/// Kinds of [`CnnError`] a caller may want to tell apart.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Anything else.
    #[default]
    Other,
    /// A layer's `processors` map has fewer processors (`have`) than one pass of its channels
    /// needs; the channels would fit a device with only `have` processors per pass.
    ProcessorShortfall {
        /// Processors in the map.
        have: usize,
    },
}

impl CnnError {
    /// An error with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        CnnError {
            file: None,
            layer: None,
            key: None,
            line: None,
            message: message.into(),
            kind: ErrorKind::Other,
        }
    }

    /// An error about layer `layer`.
    pub fn layer(layer: usize, message: impl Into<String>) -> Self {
        CnnError {
            layer: Some(layer),
            ..CnnError::new(message)
        }
    }

    /// An error about key `key` of layer `layer`.
    pub fn layer_key(layer: usize, key: &str, message: impl Into<String>) -> Self {
        CnnError {
            layer: Some(layer),
            key: Some(key.to_string()),
            ..CnnError::new(message)
        }
    }

    /// Sets the file (if not yet set).
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// Sets the line (if not yet set).
    pub fn at_line(mut self, line: usize) -> Self {
        if self.line.is_none() && line > 0 {
            self.line = Some(line);
        }
        self
    }

    /// Sets the key (if not yet set).
    pub fn with_key(mut self, key: &str) -> Self {
        if self.key.is_none() {
            self.key = Some(key.to_string());
        }
        self
    }
}

impl fmt::Display for CnnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut wrote = false;
        if let Some(file) = &self.file {
            write!(f, "{file}")?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
            }
            wrote = true;
        } else if let Some(line) = self.line {
            write!(f, "line {line}")?;
            wrote = true;
        }
        if let Some(layer) = self.layer {
            write!(f, "{}layer {layer}", if wrote { ": " } else { "" })?;
            wrote = true;
        }
        if let Some(key) = &self.key {
            write!(f, "{}key `{key}`", if wrote { ", " } else { "" })?;
            wrote = true;
        }
        if wrote {
            write!(f, ": ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for CnnError {}

impl From<crate::formats::error::FormatError> for CnnError {
    fn from(e: crate::formats::error::FormatError) -> Self {
        CnnError {
            file: Some(e.path),
            ..CnnError::new(e.message)
        }
    }
}

/// Shorthand for results of this module.
pub type Result<T> = std::result::Result<T, CnnError>;
