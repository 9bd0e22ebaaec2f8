//! The LEL cores as hardware, checked like a user checks them: through their documented
//! ports, with results read back and compared with the golden model.
//!
//! - [`designs`]: every emittable design, the blocks of `edgelearn_hdl::registry` and the
//!   cores configured from the shipped platform configurations (`lel_fc_core0`, ...), one
//!   registry.
//! - [`fc`]: a reactive bench for an FC core (INIT, TRAIN, INF, READ, STOP through the
//!   streams and `instr`), its per-state cycle counts, and [`fc::run_fc_core`], which trains
//!   a core image by image beside [`crate::lel::fc_core::FcCore`] and stops at the first
//!   divergence.
//! - [`conv`]: the same for the conv core.
//! - [`inputs`]: what the cores before a core feed it, from the golden network.

pub mod conv;
pub mod designs;
pub mod fc;
pub mod inputs;

use std::fmt;

/// Why a core run stopped.
#[derive(Debug)]
pub enum RtlError {
    /// The configuration asks for something the RTL does not build (the key is named).
    Config {
        /// Dotted configuration key, e.g. `fc[0].pieces`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The simulator failed, or a stream broke the protocol.
    Sim(edgelearn_sim::Error),
    /// The RTL and the golden model disagree.
    Divergence(Box<Divergence>),
    /// The design did not reach a state in time.
    Stuck {
        /// The design.
        block: String,
        /// What the bench waited for.
        waiting_for: String,
        /// The state it stayed in.
        state: String,
        /// Cycles waited.
        cycles: u64,
    },
    /// Anything else (an input that does not fit, a file).
    Other(String),
}

/// The first difference between the RTL and the golden model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The design.
    pub block: String,
    /// Image (0-based, in the order they were fed).
    pub image: usize,
    /// The state whose result differs (e.g. `LS_INF`, `LS_WU`).
    pub state: String,
    /// What differs (e.g. `mm_data_out`, `lc_data_out`, `class_num`, `weight`).
    pub what: String,
    /// Index within it.
    pub index: usize,
    /// The golden model's value.
    pub expected: String,
    /// The RTL's value.
    pub got: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: image {}, {}: {}[{}] expected {}, got {}",
            self.block, self.image, self.state, self.what, self.index, self.expected, self.got
        )
    }
}

impl fmt::Display for RtlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RtlError::Config { key, message } => write!(f, "{key}: {message}"),
            RtlError::Sim(e) => write!(f, "{e}"),
            RtlError::Divergence(d) => write!(f, "divergence: {d}"),
            RtlError::Stuck {
                block,
                waiting_for,
                state,
                cycles,
            } => write!(
                f,
                "{block}: waited {cycles} cycles for {waiting_for}; the design stayed in {state}"
            ),
            RtlError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RtlError {}

impl From<edgelearn_sim::Error> for RtlError {
    fn from(e: edgelearn_sim::Error) -> Self {
        RtlError::Sim(e)
    }
}

impl From<crate::lel::codec::CodecError> for RtlError {
    fn from(e: crate::lel::codec::CodecError) -> Self {
        RtlError::Other(e.0)
    }
}

impl RtlError {
    /// A verification failure (exit status 1): a divergence, a protocol violation, a design
    /// that hangs. Anything else is an error (exit status 2).
    pub fn is_failure(&self) -> bool {
        match self {
            RtlError::Divergence(_) | RtlError::Stuck { .. } => true,
            RtlError::Sim(e) => e.is_failure(),
            _ => false,
        }
    }
}

/// Result of the rtl module.
pub type Result<T, E = RtlError> = std::result::Result<T, E>;
