//! The LEL cores as hardware, checked like a user checks them: through their documented
//! ports, with results read back and compared with the golden model.
//!
//! - [`designs`]: the registry, one entry per design: the unit blocks with their golden
//!   models, the cores and platforms configured from the shipped configurations, the CNN
//!   engines; the one place that names designs.
//! - [`fc`]: a reactive bench for an FC core (INIT, TRAIN, INF, READ, STOP through the
//!   streams and `instr`), its per-state cycle counts, and [`fc::run_fc_core`], which trains
//!   a core image by image beside [`crate::lel::fc_core::FcCore`] and stops at the first
//!   divergence.
//! - [`conv`]: the same for the conv core.
//! - [`fc_update`]: `cnn_fc_update` driven through its ports, a whole-layer update at a time,
//!   beside `crate::cnn::fc_update::update_layer`.
//! - [`inputs`]: what the cores before a core feed it, from the golden network.

pub mod cnn;
pub mod conv;
pub mod designs;
pub mod fc;
pub mod fc_update;
pub mod finetune;
pub mod inputs;
pub mod platform;
pub mod platform_session;

use edgelearn_hdl::lel::fc_core::FcCoreShape;
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
            "{}: image {}, {}: {} index {}: expected {}, got {}",
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

/// The cycles of every `LS_*` state of an FC core of `shape` (N inputs, O outputs, P
/// pieces) and L `lanes` with a beat every cycle and the output always ready
/// (docs/decisions.md D-FCCORE); W = N O / (L P) weight words. For the thesis's FC core 0
/// this is Table 4.1. Registered reads (D-REGISTERED-READS) add a cycle to INF and one per
/// piece to WU's drains.
pub fn fc_cycle_table(shape: &FcCoreShape, lanes: usize) -> Vec<(&'static str, u64)> {
    let (n, o, p, l) = (
        shape.inputs as u64,
        shape.outputs as u64,
        shape.pieces as u64,
        lanes as u64,
    );
    let r = shape.registered_reads as u64;
    let w = n * o / (l * p);
    vec![
        ("LS_INIT", w + 3),
        ("LS_LOAD", n / l + 2),
        ("LS_INF", w + o / l + o + 8 + r),
        ("LS_LOSS", 1),
        ("LS_BK", o + 9),
        ("LS_WU", w + (4 + r) * p + 1),
        ("LS_FIN", 1),
    ]
}

/// The cycles of an image (LS_LOAD .. LS_FIN) of an FC core of `lanes` lanes on the platform:
/// [`fc_cycle_table`], but LS_LOAD takes the 32-bit stream's rate, N / min(L, 4) + 2 cycles
/// (the platform's FIFOs carry four bytes a beat; docs/decisions.md D-LANES).
pub fn platform_fc_cycles(shape: &FcCoreShape, lanes: usize) -> u64 {
    fc_cycle_table(shape, lanes)[1..]
        .iter()
        .map(|&(state, c)| match state {
            "LS_LOAD" => (shape.inputs / lanes.min(4) + 2) as u64,
            _ => c,
        })
        .sum()
}

/// The cycles of every `CS_*` state of a conv core on a `channels x height x width` image
/// with `out_channels` (CONV and POOL per output channel; docs/decisions.md D-CONVCORE).
/// For the thesis's conv core this is Table 4.2.
pub fn conv_cycle_table(channels: usize, height: usize, width: usize) -> Vec<(&'static str, u64)> {
    let (c, h, w) = (channels as u64, height as u64, width as u64);
    let ph = (h - 2) / 3;
    let pw = (w - 2) / 3;
    vec![
        ("CS_LOAD", c * h * w / 4 + 2),
        ("CS_CONV", 5 + (h - 2) * (w + 1)),
        ("CS_POOL", 5 + ph * pw + 6 * (ph - 1)),
        ("CS_FIN", 1),
    ]
}

/// Cycles of one image through a conv core of `shape` (LOAD to FIN, the output always
/// ready): LOAD once, CONV once per group of `shape.parallel` output channels, POOL once per
/// channel, FIN once (docs/decisions.md D-CONV-PARALLEL).
pub fn conv_image_cycles(shape: &edgelearn_hdl::lel::conv_core::ConvCoreShape) -> u64 {
    let t = conv_cycle_table(shape.in_channels, shape.height, shape.width);
    let co = shape.out_channels as u64;
    t[0].1 + co / shape.parallel as u64 * t[1].1 + co * t[2].1 + t[3].1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycle_tables_are_the_thesis_tables() {
        let shape = |inputs, registered_reads| FcCoreShape {
            inputs,
            outputs: 480,
            pieces: 4,
            registered_reads,
        };
        let t = fc_cycle_table(&shape(2400, false), 4);
        assert_eq!(
            t.iter().map(|e| e.1).collect::<Vec<_>>(),
            [72_003, 602, 72_608, 1, 489, 72_017, 1]
        );
        let t1: Vec<u64> = fc_cycle_table(&shape(480, false), 4)
            .iter()
            .map(|e| e.1)
            .collect();
        assert_eq!(t1, [14_403, 122, 15_008, 1, 489, 14_417, 1]);
        assert_eq!(
            t[1..].iter().map(|e| e.1).sum::<u64>(),
            145_718,
            "Table 4.3 FC core 0"
        );
        assert_eq!(t1[1..].iter().sum::<u64>(), 30_038, "Table 4.3 FC core 1");
        let c: Vec<u64> = conv_cycle_table(3, 32, 32).iter().map(|e| e.1).collect();
        assert_eq!(c, [770, 995, 159, 1]);
        assert_eq!(c[0] + 24 * (c[1] + c[2]) + c[3], 28_467);
        // The image's cycles with P channels at a time: CONV once per group (D-CONV-PARALLEL).
        let conv = |in_channels, side, parallel| {
            conv_image_cycles(&edgelearn_hdl::lel::conv_core::ConvCoreShape {
                in_channels,
                height: side,
                width: side,
                out_channels: 24,
                kernel: 3,
                pool: 3,
                parallel,
            })
        };
        assert_eq!(conv(3, 32, 1), 28_467);
        assert_eq!(conv(1, 28, 1), 21_079);
        assert_eq!(conv(1, 28, 2), 11_971);
        assert_eq!(conv(1, 28, 4), 7_417);
        // Registered reads: one more cycle in INF, one more drain cycle per piece in WU.
        let r: Vec<u64> = fc_cycle_table(&shape(2400, true), 4)
            .iter()
            .map(|e| e.1)
            .collect();
        assert_eq!(r, [72_003, 602, 72_609, 1, 489, 72_021, 1]);
    }
}
