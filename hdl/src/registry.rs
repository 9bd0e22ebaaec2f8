//! Every block that `edgelearn emit` knows, by emitted name.

use crate::arith::check::ArithCheck;
use crate::arith::check_wide::ArithCheckWide;
use crate::cnn::engine::acc_mem::AccMem;
use crate::cnn::engine::addr_gen::AddrGen;
use crate::cnn::engine::check::CnnEngineCheck;
use crate::cnn::engine::group_sum::GroupSumBench;
use crate::cnn::engine::host_port::HostPortBench;
use crate::cnn::engine::layer_seq::LayerSeq;
use crate::cnn::engine::mac_ctl::MacCtl;
use crate::cnn::engine::mac_pipe::MacPipe;
use crate::cnn::engine::processor::Processor;
use crate::cnn::engine::reduce::Reduce;
use crate::cnn::engine::window_buf::WindowBuf;
use crate::cnn::engine::window_ctl::WindowCtl;
use crate::cnn::fc_update::CnnFcUpdate10;
use crate::design::{Design, Instance};
use crate::error::{Error, ErrorKind};
use crate::lel::cache_x4::{LelCacheX4Act, LelCacheX4Grad, LelCacheX4Weight};
use crate::lel::classification::LelClassification;
use crate::lel::lc_forward::LelLcForward;
use crate::lel::lfsr::Lfsr;
use crate::lel::loss::LelLoss;
use crate::lel::matmul::LelMatmul;
use crate::lel::tree_adder::LelTreeAdder;
use crate::lel::tree_adder_conv::LelTreeAdderConv;
use crate::lel::tree_comparator::LelTreeComparator;
use crate::lel::triout_cache::LelTrioutCache;
use crate::lel::weight_update::LelWeightUpdate;

/// Depths of the three cache X4 scenarios (docs/decisions.md D-CACHE).
pub const CACHE_ACT_DEPTH: usize = 150;
/// FC0 weight words per sub-layer: 120 outputs x 600 inputs / 4 lanes.
pub const CACHE_WEIGHT_DEPTH: usize = 18_000;
/// Gradient entries per sub-layer.
pub const CACHE_GRAD_DEPTH: usize = 120;

/// A registered block.
pub struct BlockEntry {
    /// Emitted name: Verilog top module, file stem, manifest key.
    pub name: &'static str,
    /// One line: what it is and where the spec is.
    pub summary: &'static str,
    /// Build a fresh instance.
    pub build: fn() -> Box<dyn Design>,
}

fn boxed<T: crate::design::DutIo + 'static>(name: &str, block: T) -> Box<dyn Design> {
    Box::new(Instance::new(name, block))
}

/// All blocks, in emission order.
pub fn blocks() -> Vec<BlockEntry> {
    vec![
        BlockEntry {
            name: "arith_check",
            summary: "every signed-arithmetic primitive behind shared operands (verification top)",
            build: || boxed("arith_check", ArithCheck::default()),
        },
        BlockEntry {
            name: "arith_check_wide",
            summary: "the unsigned multiplies wider than 16 x 16 and the nine-pair signed dot product (verification top)",
            build: || boxed("arith_check_wide", ArithCheckWide::default()),
        },
        BlockEntry {
            name: "lel_lfsr56",
            summary: "unfolded x^17+x^3+1 LFSR, 56 bits per step: weight-update randoms (thesis §4.1.7)",
            build: || boxed("lel_lfsr56", Lfsr::<56>::default()),
        },
        BlockEntry {
            name: "lel_lfsr60",
            summary: "unfolded x^17+x^3+1 LFSR, 60 bits per step: local-classifier weights (thesis §4.1.7)",
            build: || boxed("lel_lfsr60", Lfsr::<60>::default()),
        },
        BlockEntry {
            name: "lel_tree_comparator",
            summary: "pipelined 9-input signed max, 5 cycles (thesis §4.1.10)",
            build: || boxed("lel_tree_comparator", LelTreeComparator::default()),
        },
        BlockEntry {
            name: "lel_matmul",
            summary: "4-lane signed MAC matmul with alpha_fc/alpha_lc quantizers and ReLU mask (thesis §4.1.1)",
            build: || boxed("lel_matmul", LelMatmul::default()),
        },
        BlockEntry {
            name: "lel_lc_forward",
            summary: "local classifier forward: 10 MAC units, 480 inputs -> 10 x 23-bit sums (thesis §4.1.2)",
            build: || boxed("lel_lc_forward", LelLcForward::default()),
        },
        BlockEntry {
            name: "lel_tree_adder",
            summary: "LC backward: pipelined 10-way multiply + tree sum, masked, sat8(floor(t/32)), 6 cycles (thesis §4.1.3)",
            build: || boxed("lel_tree_adder", LelTreeAdder::default()),
        },
        BlockEntry {
            name: "lel_tree_adder_conv",
            summary: "tree adder in the conv role: 3x3 window, alpha_conv, quantized ReLU, 6 cycles (thesis §4.1.4)",
            build: || boxed("lel_tree_adder_conv", LelTreeAdderConv::default()),
        },
        BlockEntry {
            name: "lel_loss",
            summary: "loss derivative, eq 4.1 in integers: hard sigmoid + MSE, Q12 in, Q7 out (thesis §4.1.5)",
            build: || boxed("lel_loss", LelLoss::default()),
        },
        BlockEntry {
            name: "lel_weight_update",
            summary: "4-lane stochastic weight update, p = |x e| >> lr_shift vs 14-bit random, 2 cycles (thesis §4.1.6)",
            build: || boxed("lel_weight_update", LelWeightUpdate::default()),
        },
        BlockEntry {
            name: "lel_cache_x4_act",
            summary: "cache X4, activation scenario: 4 x 150 x 32-bit (4 int8 per word), read latency 2 (thesis §4.1.8)",
            build: || boxed("lel_cache_x4_act", LelCacheX4Act::new(CACHE_ACT_DEPTH)),
        },
        BlockEntry {
            name: "lel_cache_x4_weight",
            summary: "cache X4, FC0 weight scenario: 4 x 18000 x 24-bit (4 int6 per word), block RAM (thesis §4.1.8)",
            build: || boxed("lel_cache_x4_weight", LelCacheX4Weight::new(CACHE_WEIGHT_DEPTH)),
        },
        BlockEntry {
            name: "lel_cache_x4_grad",
            summary: "cache X4, gradient scenario: 4 x 120 x 8-bit, read latency 2 (thesis §4.1.8)",
            build: || boxed("lel_cache_x4_grad", LelCacheX4Grad::new(CACHE_GRAD_DEPTH)),
        },
        BlockEntry {
            name: "lel_triout_cache",
            summary: "triout cache, image variant: 3 x 32 x 32 int8, three row outputs, clr_opt/pop_en (thesis §4.1.9)",
            build: || boxed("lel_triout_cache", LelTrioutCache::new(3, 32)),
        },
        BlockEntry {
            name: "lel_classification",
            summary: "sequential argmax of 10 x 23-bit LC outputs, first max wins, 9 cycles (thesis §4.1.11)",
            build: || boxed("lel_classification", LelClassification::default()),
        },
        BlockEntry {
            name: "cnn_engine_check",
            summary: "the CNN engine's combinational sub-blocks (average division, nine-tap MAC, output stage, priority encoder) behind their own ports (verification top)",
            build: || boxed("cnn_engine_check", CnnEngineCheck::default()),
        },
        BlockEntry {
            name: "cnn_addr_gen",
            summary: "the CNN engine's gather address generator: per output pixel, pass and chunk, per tap, a padding item or the pooling window of every operand, one data-memory word per cycle",
            build: || boxed("cnn_addr_gen", AddrGen::default()),
        },
        BlockEntry {
            name: "cnn_reduce",
            summary: "a CNN-engine processor's pooling / element-wise unit: max, average, add, sub, or, xor over a sequence, saturated to 8 bits, latency 1",
            build: || boxed("cnn_reduce", Reduce::default()),
        },
        BlockEntry {
            name: "cnn_window_buf",
            summary: "a CNN-engine processor's two windows of nine values: one written a tap per cycle, the other read whole",
            build: || boxed("cnn_window_buf", WindowBuf::default()),
        },
        BlockEntry {
            name: "cnn_window_ctl",
            summary: "the CNN engine's two-window handshake: pend from the gather's last item of an iteration, full three edges later until the MAC's last channel of it",
            build: || boxed("cnn_window_ctl", WindowCtl::default()),
        },
        BlockEntry {
            name: "cnn_mac_pipe",
            summary: "what travels with an issued output channel through the CNN engine's MAC pipeline: channel at M2, accumulator update at M3, the write at M4",
            build: || boxed("cnn_mac_pipe", MacPipe::default()),
        },
        BlockEntry {
            name: "cnn_group_sum",
            summary: "the 64-processor CNN engine's adders over its 16 quads: four group sums registered, their total, unused quads counting 0",
            build: || boxed("cnn_group_sum", GroupSumBench::default()),
        },
        BlockEntry {
            name: "cnn_acc_mem",
            summary: "the CNN engine's 1024 x 48-bit accumulators and bias memory (512 bytes): first iteration from the bias << 7, then accumulate, read at M2, written at M3",
            build: || boxed("cnn_acc_mem", AccMem::new(512)),
        },
        BlockEntry {
            name: "cnn_layer_seq",
            summary: "the CNN engine's layer sequencer: per layer LOAD, RUN to its last issue, nine cycles of DRAIN; the run's and each layer's cycles, done",
            build: || boxed("cnn_layer_seq", LayerSeq::default()),
        },
        BlockEntry {
            name: "cnn_mac_ctl",
            summary: "the CNN engine's MAC-side sequencer: one output channel per cycle once its window is full, with kernel word and slot, output processor and pass; the iteration loop",
            build: || boxed("cnn_mac_ctl", MacCtl::default()),
        },
        BlockEntry {
            name: "cnn_host_port",
            summary: "the 64-processor CNN engine's host port: the port stage, the register map's writes (while idle) and reads, kernel words in three parts",
            build: || boxed("cnn_host_port", HostPortBench::default()),
        },
        BlockEntry {
            name: "cnn_processor",
            summary: "one CNN-engine processor (768 kernel words): an item's value through the pooling and element-wise units into one of two windows, the nine-tap MAC over the other",
            build: || boxed("cnn_processor", Processor::new(768)),
        },
        BlockEntry {
            name: "cnn_fc_update",
            summary: "softmax cross-entropy error (10 logits, Q1.12, 37 cycles) and 8-bit weight update of an FC last layer, half-up or LFSR stochastic rounding, 2 cycles per row (issue 16)",
            build: || boxed("cnn_fc_update", CnnFcUpdate10::default()),
        },
    ]
}

/// Every registered name.
pub fn names() -> Vec<&'static str> {
    blocks().iter().map(|b| b.name).collect()
}

/// Build the block called `name`.
pub fn build(name: &str) -> Result<Box<dyn Design>, Error> {
    blocks()
        .into_iter()
        .find(|b| b.name == name)
        .map(|b| (b.build)())
        .ok_or_else(|| {
            ErrorKind::UnknownBlock {
                name: name.to_string(),
                valid: names().iter().map(|s| s.to_string()).collect(),
            }
            .into()
        })
}
