//! Errors of the simulation crate.

use std::fmt;
use std::path::PathBuf;

/// What went wrong in `edgelearn-sim`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A simulator or synthesis tool is not installed.
    ToolMissing {
        /// The executable.
        tool: String,
    },
    /// A tool ran and failed.
    ToolFailed {
        /// The command line.
        command: String,
        /// Exit status, if it exited.
        status: Option<i32>,
        /// The tail of its standard error and output.
        output: String,
    },
    /// A tool did not finish within its time limit and was stopped.
    Timeout {
        /// The executable's name.
        tool: String,
        /// The command line.
        command: String,
        /// Its work directory.
        dir: PathBuf,
        /// The limit, in seconds.
        seconds: f64,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A simulator's output file could not be read as a trace.
    TraceParse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// A stimulus that does not fit the block (unknown port, value too wide).
    Stimulus {
        /// The block.
        block: String,
        /// What was wrong.
        message: String,
    },
    /// The block itself failed (structural check, unknown port, no convergence).
    Hdl(edgelearn_hdl::error::Error),
    /// A stream broke the AXI-Stream rules (a verification failure).
    Protocol {
        /// The design.
        block: String,
        /// The stream.
        stream: String,
        /// The port at fault.
        port: String,
        /// The rising edge where it was seen.
        cycle: u64,
        /// The rule and what happened.
        rule: String,
    },
    /// A transaction differed from the expected one (a verification failure).
    Mismatch {
        /// The design.
        block: String,
        /// The stream.
        stream: String,
        /// Transaction index (from 0).
        index: usize,
        /// The field (data port) that differs.
        field: String,
        /// Expected value.
        expected: String,
        /// Received value.
        got: String,
    },
    /// A design given as Verilog only was asked to run on rust-hdl's simulator.
    VerilogOnly {
        /// The design.
        block: String,
    },
    /// A testbench used a port or memory wrongly (unknown name, wrong direction, value too
    /// wide); the message lists what exists.
    Dut {
        /// The design.
        block: String,
        /// What was wrong.
        message: String,
    },
    /// The in-process Verilator model could not be built or loaded.
    ModelBuild {
        /// The design.
        block: String,
        /// What failed, with the compiler's last lines.
        message: String,
    },
    /// A file exists that edgelearn did not write; it is left alone unless forced.
    WouldOverwrite {
        /// The file.
        path: PathBuf,
    },
}

/// Error of the simulation crate.
#[derive(Debug)]
pub struct Error {
    /// What happened (boxed: the error stays one pointer wide on the hot paths).
    pub kind: Box<ErrorKind>,
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error {
            kind: Box::new(kind),
        }
    }
}

impl From<edgelearn_hdl::error::Error> for Error {
    fn from(e: edgelearn_hdl::error::Error) -> Self {
        ErrorKind::Hdl(e).into()
    }
}

impl Error {
    /// Whether this is a verification failure (a protocol violation or a wrong value; exit
    /// status 1) rather than an error (exit status 2).
    pub fn is_failure(&self) -> bool {
        matches!(
            *self.kind,
            ErrorKind::Protocol { .. } | ErrorKind::Mismatch { .. }
        )
    }

    /// An IO error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ErrorKind::Io {
            path: path.into(),
            source,
        }
        .into()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.kind {
            ErrorKind::ToolMissing { tool } => write!(
                f,
                "`{tool}` is not installed or not on PATH (`make tools` installs iverilog, yosys and verilator)"
            ),
            ErrorKind::ToolFailed { command, status, output } => {
                write!(f, "`{command}` failed")?;
                if let Some(s) = status {
                    write!(f, " with exit status {s}")?;
                }
                if !output.is_empty() {
                    write!(f, ":\n{output}")?;
                }
                Ok(())
            }
            ErrorKind::Timeout { tool, command, dir, seconds } => write!(
                f,
                "`{tool}` did not finish within {seconds} s and was stopped (work directory {}; \
                 command `{command}`); raise the limit with --tool-timeout SECONDS or \
                 EDGELEARN_TOOL_TIMEOUT",
                dir.display()
            ),
            ErrorKind::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ErrorKind::TraceParse { path, line, message } => {
                write!(f, "{}:{line}: {message}", path.display())
            }
            ErrorKind::Stimulus { block, message } => write!(f, "stimulus for `{block}`: {message}"),
            ErrorKind::Hdl(e) => write!(f, "{e}"),
            ErrorKind::Protocol { block, stream, port, cycle, rule } => write!(
                f,
                "{block}: stream `{stream}`, port `{port}`, cycle {cycle}: {rule}"
            ),
            ErrorKind::Mismatch { block, stream, index, field, expected, got } => write!(
                f,
                "{block}: stream `{stream}`, transaction {index}, field `{field}`: expected \
                 {expected}, got {got}"
            ),
            ErrorKind::VerilogOnly { block } => write!(
                f,
                "`{block}` is given as Verilog only; rust-hdl's simulator (backend native) needs \
                 a rust-hdl block: use icarus or verilator"
            ),
            ErrorKind::Dut { block, message } => write!(f, "{block}: {message}"),
            ErrorKind::ModelBuild { block, message } => {
                write!(f, "cannot build the Verilator model of `{block}`: {message}")
            }
            ErrorKind::WouldOverwrite { path } => write!(
                f,
                "{} exists and was not written by edgelearn; not overwriting it (use --force)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // The IO and HDL causes are part of the message already.
        None
    }
}

/// Result of the simulation crate.
pub type Result<T> = std::result::Result<T, Error>;
