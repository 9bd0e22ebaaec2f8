//! The unit blocks of the registry (and the verification tops): each with its build, its
//! golden trace of any stimulus and its named stimuli (`edgelearn_verif::blocks`).

use super::{DesignEntry, Kind};
use crate::blocks::{
    arith_check, arith_check_wide, bk_group, cache_x4, classification, cnn_engine, cnn_fc_update,
    conv_channels, conv_load, conv_scan, err_fetch, fc_fsm, fc_out, lc_forward, lc_group, lc_rows,
    lfsr, loss, matmul, mm_group, pl_fsm, pl_regs, pool_packer, pool_scan, read_pipe, result_tally,
    stream_fifo, stream_resize, tree_adder, tree_comparator, triout_cache, visit_cycles,
    weight_update, wu_group, BlockModel, StimulusRequest,
};
use crate::golden::tree_adder::TreeAdderRole;
use edgelearn_hdl::arith::check::ArithCheck;
use edgelearn_hdl::arith::check_wide::ArithCheckWide;
use edgelearn_hdl::cnn::engine::acc_mem::AccMem;
use edgelearn_hdl::cnn::engine::addr_gen::AddrGen;
use edgelearn_hdl::cnn::engine::check::CnnEngineCheck;
use edgelearn_hdl::cnn::engine::elem_walk::ElemWalk;
use edgelearn_hdl::cnn::engine::fifo_in::FifoIn;
use edgelearn_hdl::cnn::engine::group_sum::GroupSumBench;
use edgelearn_hdl::cnn::engine::host_port::HostPortBench;
use edgelearn_hdl::cnn::engine::iter_walk::IterWalk;
use edgelearn_hdl::cnn::engine::layer_seq::LayerSeq;
use edgelearn_hdl::cnn::engine::mac_ctl::MacCtl;
use edgelearn_hdl::cnn::engine::mac_pipe::MacPipe;
use edgelearn_hdl::cnn::engine::processor::Processor;
use edgelearn_hdl::cnn::engine::reduce::Reduce;
use edgelearn_hdl::cnn::engine::tap_pos::TapPos;
use edgelearn_hdl::cnn::engine::window_buf::WindowBuf;
use edgelearn_hdl::cnn::engine::window_ctl::WindowCtl;
use edgelearn_hdl::cnn::engine::word_addr::WordAddr;
use edgelearn_hdl::cnn::fc_update::CnnFcUpdate10;
use edgelearn_hdl::design::{Design, DutIo, Instance};
use edgelearn_hdl::lel::bk_group::LelBkGroup;
use edgelearn_hdl::lel::cache_x4::{
    LelCacheX4Act, LelCacheX4Grad, LelCacheX4Weight, CACHE_ACT_DEPTH, CACHE_GRAD_DEPTH,
    CACHE_WEIGHT_DEPTH,
};
use edgelearn_hdl::lel::classification::LelClassification;
use edgelearn_hdl::lel::conv_channels::ConvChannels;
use edgelearn_hdl::lel::conv_load::ConvLoad;
use edgelearn_hdl::lel::conv_scan::ConvScan;
use edgelearn_hdl::lel::err_fetch::ErrFetch;
use edgelearn_hdl::lel::fc_fsm::FcFsm;
use edgelearn_hdl::lel::fc_out::FcOut;
use edgelearn_hdl::lel::lc_forward::LelLcForward;
use edgelearn_hdl::lel::lc_group::LelLcGroup;
use edgelearn_hdl::lel::lc_rows::LcRows;
use edgelearn_hdl::lel::lfsr::Lfsr;
use edgelearn_hdl::lel::loss::LelLoss;
use edgelearn_hdl::lel::matmul::LelMatmul;
use edgelearn_hdl::lel::mm_group::LelMmGroup;
use edgelearn_hdl::lel::pl_fsm::PlFsm;
use edgelearn_hdl::lel::pl_regs::PlRegs;
use edgelearn_hdl::lel::pool_packer::PoolPacker;
use edgelearn_hdl::lel::pool_scan::PoolScan;
use edgelearn_hdl::lel::read_pipe::ReadPipe;
use edgelearn_hdl::lel::result_tally::ResultTally;
use edgelearn_hdl::lel::stream_fifo::CoreFifo;
use edgelearn_hdl::lel::stream_resize::{StreamDownsizer, StreamUpsizer};
use edgelearn_hdl::lel::tree_adder::LelTreeAdder;
use edgelearn_hdl::lel::tree_adder_conv::LelTreeAdderConv;
use edgelearn_hdl::lel::tree_comparator::LelTreeComparator;
use edgelearn_hdl::lel::triout_cache::LelTrioutCache;
use edgelearn_hdl::lel::visit_cycles::VisitCycles;
use edgelearn_hdl::lel::weight_update::LelWeightUpdate;
use edgelearn_hdl::lel::wu_group::LelWuGroup;

/// The unit blocks' names, for the code that works on one of them (its golden model and
/// stimuli, a command that runs it).
pub mod name {
    /// `arith_check`.
    pub const ARITH_CHECK: &str = "arith_check";
    /// `arith_check_wide`.
    pub const ARITH_CHECK_WIDE: &str = "arith_check_wide";
    /// `lel_lfsr56`.
    pub const LEL_LFSR56: &str = "lel_lfsr56";
    /// `lel_lfsr60`.
    pub const LEL_LFSR60: &str = "lel_lfsr60";
    /// `lel_lfsr112`.
    pub const LEL_LFSR112: &str = "lel_lfsr112";
    /// `lel_tree_comparator`.
    pub const LEL_TREE_COMPARATOR: &str = "lel_tree_comparator";
    /// `lel_matmul`.
    pub const LEL_MATMUL: &str = "lel_matmul";
    /// `lel_lc_forward`.
    pub const LEL_LC_FORWARD: &str = "lel_lc_forward";
    /// `lel_tree_adder`.
    pub const LEL_TREE_ADDER: &str = "lel_tree_adder";
    /// `lel_tree_adder_conv`.
    pub const LEL_TREE_ADDER_CONV: &str = "lel_tree_adder_conv";
    /// `lel_loss`.
    pub const LEL_LOSS: &str = "lel_loss";
    /// `lel_weight_update`.
    pub const LEL_WEIGHT_UPDATE: &str = "lel_weight_update";
    /// `lel_cache_x4_act`.
    pub const LEL_CACHE_X4_ACT: &str = "lel_cache_x4_act";
    /// `lel_cache_x4_weight`.
    pub const LEL_CACHE_X4_WEIGHT: &str = "lel_cache_x4_weight";
    /// `lel_cache_x4_grad`.
    pub const LEL_CACHE_X4_GRAD: &str = "lel_cache_x4_grad";
    /// `lel_triout_cache`.
    pub const LEL_TRIOUT_CACHE: &str = "lel_triout_cache";
    /// `lel_classification`.
    pub const LEL_CLASSIFICATION: &str = "lel_classification";
    /// `lel_pool_packer`.
    pub const LEL_POOL_PACKER: &str = "lel_pool_packer";
    /// `lel_conv_channels`.
    pub const LEL_CONV_CHANNELS: &str = "lel_conv_channels";
    /// `lel_conv_load`.
    pub const LEL_CONV_LOAD: &str = "lel_conv_load";
    /// `lel_conv_scan`.
    pub const LEL_CONV_SCAN: &str = "lel_conv_scan";
    /// `lel_pool_scan`.
    pub const LEL_POOL_SCAN: &str = "lel_pool_scan";
    /// `lel_pl_fsm`.
    pub const LEL_PL_FSM: &str = "lel_pl_fsm";
    /// `lel_pl_regs`.
    pub const LEL_PL_REGS: &str = "lel_pl_regs";
    /// `lel_fc_fsm`.
    pub const LEL_FC_FSM: &str = "lel_fc_fsm";
    /// `lel_err_fetch`.
    pub const LEL_ERR_FETCH: &str = "lel_err_fetch";
    /// `lel_read_pipe`.
    pub const LEL_READ_PIPE: &str = "lel_read_pipe";
    /// `lel_fc_out`.
    pub const LEL_FC_OUT: &str = "lel_fc_out";
    /// `lel_lc_rows`.
    pub const LEL_LC_ROWS: &str = "lel_lc_rows";
    /// `lel_lc_group`.
    pub const LEL_LC_GROUP: &str = "lel_lc_group";
    /// `lel_bk_group`.
    pub const LEL_BK_GROUP: &str = "lel_bk_group";
    /// `lel_mm_group`.
    pub const LEL_MM_GROUP: &str = "lel_mm_group";
    /// `lel_wu_group`.
    pub const LEL_WU_GROUP: &str = "lel_wu_group";
    /// `lel_stream_fifo`.
    pub const LEL_STREAM_FIFO: &str = "lel_stream_fifo";
    /// `lel_stream_up2`.
    pub const LEL_STREAM_UP2: &str = "lel_stream_up2";
    /// `lel_stream_down2`.
    pub const LEL_STREAM_DOWN2: &str = "lel_stream_down2";
    /// `lel_result_tally`.
    pub const LEL_RESULT_TALLY: &str = "lel_result_tally";
    /// `lel_visit_cycles`.
    pub const LEL_VISIT_CYCLES: &str = "lel_visit_cycles";
    /// `cnn_engine_check`.
    pub const CNN_ENGINE_CHECK: &str = "cnn_engine_check";
    /// `cnn_addr_gen`.
    pub const CNN_ADDR_GEN: &str = "cnn_addr_gen";
    /// `cnn_tap_pos`.
    pub const CNN_TAP_POS: &str = "cnn_tap_pos";
    /// `cnn_elem_walk`.
    pub const CNN_ELEM_WALK: &str = "cnn_elem_walk";
    /// `cnn_word_addr`.
    pub const CNN_WORD_ADDR: &str = "cnn_word_addr";
    /// `cnn_iter_walk`.
    pub const CNN_ITER_WALK: &str = "cnn_iter_walk";
    /// `cnn_reduce`.
    pub const CNN_REDUCE: &str = "cnn_reduce";
    /// `cnn_window_buf`.
    pub const CNN_WINDOW_BUF: &str = "cnn_window_buf";
    /// `cnn_window_ctl`.
    pub const CNN_WINDOW_CTL: &str = "cnn_window_ctl";
    /// `cnn_mac_pipe`.
    pub const CNN_MAC_PIPE: &str = "cnn_mac_pipe";
    /// `cnn_group_sum`.
    pub const CNN_GROUP_SUM: &str = "cnn_group_sum";
    /// `cnn_acc_mem`.
    pub const CNN_ACC_MEM: &str = "cnn_acc_mem";
    /// `cnn_layer_seq`.
    pub const CNN_LAYER_SEQ: &str = "cnn_layer_seq";
    /// `cnn_fifo_in`.
    pub const CNN_FIFO_IN: &str = "cnn_fifo_in";
    /// `cnn_mac_ctl`.
    pub const CNN_MAC_CTL: &str = "cnn_mac_ctl";
    /// `cnn_host_port`.
    pub const CNN_HOST_PORT: &str = "cnn_host_port";
    /// `cnn_processor`.
    pub const CNN_PROCESSOR: &str = "cnn_processor";
    /// `cnn_fc_update`.
    pub const CNN_FC_UPDATE: &str = "cnn_fc_update";
}

fn boxed<T: DutIo + 'static>(name: &str, block: T) -> Box<dyn Design> {
    Box::new(Instance::new(name, block))
}

fn block(
    name: &str,
    summary: &str,
    build: fn(&str) -> Box<dyn Design>,
    model: BlockModel,
) -> DesignEntry {
    DesignEntry {
        name: name.to_string(),
        summary: summary.to_string(),
        kind: Kind::Block,
        config: None,
        model: Some(model),
        netlist_seconds: 0.0,
        build: Box::new(move |n| Ok(build(n))),
    }
}

impl DesignEntry {
    /// The same entry, Yosys taking `seconds` longer than usual to read it.
    fn slow_netlist(mut self, seconds: f64) -> Self {
        self.netlist_seconds = seconds;
        self
    }
}

fn lfsr_stimulus(r: &StimulusRequest) -> edgelearn_sim::Result<edgelearn_sim::Stimulus> {
    match r.thesis {
        true => lfsr::random_stimulus(r.block, r.ports, r.seed, 10, 20),
        false => lfsr::random_stimulus(r.block, r.ports, r.seed, r.cycles / 100 + 1, 100),
    }
}

fn cache_stimulus(r: &StimulusRequest) -> edgelearn_sim::Result<edgelearn_sim::Stimulus> {
    match r.thesis {
        true => cache_x4::thesis_stimulus(r.block, r.ports, r.seed).map(|x| x.0),
        false => cache_x4::random_stimulus(r.block, r.ports, r.seed, r.cycles),
    }
}

/// Every unit block, in emission order.
pub(super) fn entries() -> Vec<DesignEntry> {
    vec![
        block(
            name::ARITH_CHECK,
            "every signed-arithmetic primitive behind shared operands (verification top)",
            |n| boxed(n, ArithCheck::default()),
            BlockModel {
            golden: arith_check::expected,
            stimulus: |r| arith_check::exhaustive_stimulus(r.ports, r.seed, r.len(0)),
            },
        ),
        block(
            name::ARITH_CHECK_WIDE,
            "the unsigned multiplies wider than 16 x 16 and the nine-pair signed dot product (verification top)",
            |n| boxed(n, ArithCheckWide::default()),
            BlockModel {
            golden: arith_check_wide::expected,
            stimulus: |r| match r.thesis {
                true => arith_check_wide::small_stimulus(r.ports, r.seed, 4, 0),
                false => arith_check_wide::exhaustive_stimulus(r.ports, r.seed, 64, r.cycles),
            },
            },
        ),
        block(
            name::LEL_LFSR56,
            "unfolded x^17+x^3+1 LFSR, 56 bits per step: weight-update randoms (thesis §4.1.7)",
            |n| boxed(n, Lfsr::<56>::default()),
            BlockModel {
            golden: |p, s| lfsr::expected(p, s, 56),
            stimulus: lfsr_stimulus,
            },
        ),
        block(
            name::LEL_LFSR60,
            "unfolded x^17+x^3+1 LFSR, 60 bits per step: local-classifier weights (thesis §4.1.7)",
            |n| boxed(n, Lfsr::<60>::default()),
            BlockModel {
            golden: |p, s| lfsr::expected(p, s, 60),
            stimulus: lfsr_stimulus,
            },
        ),
        block(
            name::LEL_LFSR112,
            "unfolded x^17+x^3+1 LFSR, 112 bits per step: weight-update randoms of 8 lanes",
            |n| boxed(n, Lfsr::<112>::default()),
            BlockModel {
            golden: |p, s| lfsr::expected(p, s, 112),
            stimulus: lfsr_stimulus,
            },
        ),
        block(
            name::LEL_TREE_COMPARATOR,
            "pipelined 9-input signed max, 5 cycles (thesis §4.1.10)",
            |n| boxed(n, LelTreeComparator::default()),
            BlockModel {
            golden: tree_comparator::expected,
            stimulus: |r| match r.thesis {
                true => tree_comparator::thesis_stimulus(r.ports, r.seed, 100, 12),
                false => tree_comparator::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_MATMUL,
            "4-lane signed MAC matmul with alpha_fc/alpha_lc quantizers and ReLU mask (thesis §4.1.1)",
            |n| boxed(n, LelMatmul::default()),
            BlockModel {
            golden: matmul::expected,
            stimulus: |r| match r.thesis {
                true => matmul::thesis_stimulus(r.ports, r.seed, 4, 4).map(|x| x.0),
                false => matmul::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_LC_FORWARD,
            "local classifier forward: 10 MAC units, 480 inputs -> 10 x 23-bit sums (thesis §4.1.2)",
            |n| boxed(n, LelLcForward::default()),
            BlockModel {
            golden: lc_forward::expected,
            stimulus: |r| match r.thesis {
                true => lc_forward::burst_stimulus(r.ports, r.seed, 2, 480).map(|x| x.0),
                false => lc_forward::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_TREE_ADDER,
            "LC backward: pipelined 10-way multiply + tree sum, masked, sat8(floor(t/32)), 6 cycles (thesis §4.1.3)",
            |n| boxed(n, LelTreeAdder::default()),
            BlockModel {
            golden: |p, s| tree_adder::expected(p, s, TreeAdderRole::LcBackward),
            stimulus: |r| match r.thesis {
                true => tree_adder::thesis_stimulus(r.ports, r.seed, 480, false),
                false => tree_adder::random_stimulus(r.block, r.ports, r.seed, r.cycles, false),
            },
            },
        ),
        block(
            name::LEL_TREE_ADDER_CONV,
            "tree adder in the conv role: 3x3 window, alpha_conv, quantized ReLU, 6 cycles (thesis §4.1.4)",
            |n| boxed(n, LelTreeAdderConv::default()),
            BlockModel {
            golden: |p, s| tree_adder::expected(p, s, TreeAdderRole::Conv),
            stimulus: |r| match r.thesis {
                true => tree_adder::conv_stimulus(r.ports, r.seed, 100),
                false => tree_adder::random_stimulus(r.block, r.ports, r.seed, r.cycles, false),
            },
            },
        ),
        block(
            name::LEL_LOSS,
            "loss derivative, eq 4.1 in integers: hard sigmoid + MSE, Q12 in, Q7 out (thesis §4.1.5)",
            |n| boxed(n, LelLoss::default()),
            BlockModel {
            golden: loss::expected,
            stimulus: |r| match r.thesis {
                true => loss::thesis_stimulus(r.ports, r.seed, 1, &[0]).map(|x| x.0),
                false => loss::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_WEIGHT_UPDATE,
            "4-lane stochastic weight update, p = |x e| >> lr_shift vs 14-bit random, 2 cycles (thesis §4.1.6)",
            |n| boxed(n, LelWeightUpdate::default()),
            BlockModel {
            golden: weight_update::expected,
            stimulus: |r| match r.thesis {
                true => weight_update::thesis_stimulus(r.ports, r.seed, 600).map(|x| x.0),
                false => weight_update::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_CACHE_X4_ACT,
            "cache X4, activation scenario: 4 x 150 x 32-bit (4 int8 per word), read latency 2 (thesis §4.1.8)",
            |n| boxed(n, LelCacheX4Act::new(CACHE_ACT_DEPTH)),
            BlockModel {
            golden: cache_x4::expected,
            stimulus: cache_stimulus,
            },
        ),
        block(
            name::LEL_CACHE_X4_WEIGHT,
            "cache X4, FC0 weight scenario: 4 x 18000 x 24-bit (4 int6 per word), block RAM (thesis §4.1.8)",
            |n| boxed(n, LelCacheX4Weight::new(CACHE_WEIGHT_DEPTH)),
            BlockModel {
            golden: cache_x4::expected,
            stimulus: cache_stimulus,
            },
        )
        // Yosys spends about ten minutes on the 72,000-word memory's initialisation loop
        // (tests/cache_x4.rs).
        .slow_netlist(600.0),
        block(
            name::LEL_CACHE_X4_GRAD,
            "cache X4, gradient scenario: 4 x 120 x 8-bit, read latency 2 (thesis §4.1.8)",
            |n| boxed(n, LelCacheX4Grad::new(CACHE_GRAD_DEPTH)),
            BlockModel {
            golden: cache_x4::expected,
            stimulus: cache_stimulus,
            },
        ),
        block(
            name::LEL_TRIOUT_CACHE,
            "triout cache, image variant: 3 x 32 x 32 int8, three row outputs, clr_opt/pop_en (thesis §4.1.9)",
            |n| boxed(n, LelTrioutCache::new(3, 32)),
            BlockModel {
            golden: triout_cache::expected,
            stimulus: |r| match r.thesis {
                true => triout_cache::thesis_stimulus(r.ports, r.seed).map(|x| x.0),
                false => triout_cache::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_CLASSIFICATION,
            "sequential argmax of 10 x 23-bit LC outputs, first max wins, 9 cycles (thesis §4.1.11)",
            |n| boxed(n, LelClassification::default()),
            BlockModel {
            golden: classification::expected,
            stimulus: |r| match r.thesis {
                true => classification::thesis_stimulus(r.ports, r.seed, 10).map(|x| x.0),
                false => classification::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
        block(
            name::LEL_POOL_PACKER,
            "the conv core's output stage: pooled values four to a 32-bit beat, the image's last beat marked, Mealy (thesis §4.2.2)",
            |n| boxed(n, PoolPacker::default()),
            BlockModel {
                golden: pool_packer::expected,
                stimulus: |r| match r.thesis {
                    true => pool_packer::thesis_stimulus(r.ports, r.seed),
                    false => pool_packer::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_CONV_CHANNELS,
            "the conv core's output-channel walk: channel c reads input channel c / (CO / CI) with its own fixed int6 3x3 kernel, registered (thesis §4.2.2)",
            |n| {
                boxed(
                    n,
                    ConvChannels::<{ conv_channels::OUT_CHANNELS }>::new(
                        conv_channels::IN_CHANNELS,
                        &conv_channels::kernels(),
                    ),
                )
            },
            BlockModel {
                golden: conv_channels::expected,
                stimulus: |r| match r.thesis {
                    true => conv_channels::thesis_stimulus(r.ports, r.seed),
                    false => conv_channels::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_CONV_LOAD,
            "the conv core's LOAD phase: the image stream, four int8 a beat, CHW, into the image cache at {channel, row, word}, the label from the first beat (thesis §4.2.2)",
            |n| boxed(n, ConvLoad::default()),
            BlockModel {
                golden: conv_load::expected,
                stimulus: |r| match r.thesis {
                    true => conv_load::thesis_stimulus(r.ports, r.seed),
                    false => conv_load::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_CONV_SCAN,
            "the conv core's CONV phase: a channel's 3x3 windows, one a cycle, from the image cache's three rows; the inter-FM address of each result (thesis §4.2.2)",
            |n| boxed(n, ConvScan::default()),
            BlockModel {
                golden: conv_scan::expected,
                stimulus: |r| match r.thesis {
                    true => conv_scan::thesis_stimulus(r.ports, r.seed),
                    false => conv_scan::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_POOL_SCAN,
            "the conv core's POOL phase: a channel's 3x3 stride-3 pooling windows, one a cycle, from the inter-FM cache's three rows, a row of windows while the output has room (thesis §4.2.2)",
            |n| boxed(n, PoolScan::default()),
            BlockModel {
                golden: pool_scan::expected,
                stimulus: |r| match r.thesis {
                    true => pool_scan::thesis_stimulus(r.ports, r.seed),
                    false => pool_scan::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_FC_FSM,
            "the FC core's LS_* FSM: INIT, LOAD, INF, LOSS, BK, WU, FIN, READ and I_STOP; the seeds, configuration and label it samples; the word sequencer's and LFSRs' control (spec §4.2, §4.6)",
            |n| boxed(n, FcFsm::default()),
            BlockModel {
                golden: fc_fsm::expected,
                stimulus: |r| match r.thesis {
                    true => fc_fsm::thesis_stimulus(r.ports, r.seed),
                    false => fc_fsm::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_LC_ROWS,
            "the FC core's walk over the local classifier's rows: one a cycle, lane by lane through the LC-input and mask words, forward in LS_INF and backward in LS_BK after its wait (spec §4.2)",
            |n| boxed(n, LcRows::<{ lc_rows::LANES }, { 8 * lc_rows::LANES }>::default()),
            BlockModel {
                golden: lc_rows::expected,
                stimulus: |r| match r.thesis {
                    true => lc_rows::thesis_stimulus(r.ports, r.seed),
                    false => lc_rows::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_ERR_FETCH,
            "the FC core's errors: LS_BK's into the gradient cache piece by piece, LS_WU's read a pass ahead of the weight update and switched at each pass's start (spec §4.2)",
            |n| boxed(n, ErrFetch::<{ err_fetch::LANES }, { 8 * err_fetch::LANES }>::default()),
            BlockModel {
                golden: err_fetch::expected,
                stimulus: |r| match r.thesis {
                    true => err_fetch::thesis_stimulus(r.ports, r.seed),
                    false => err_fetch::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_MM_GROUP,
            "the FC core's forward matmul, fed only in LS_INF, behind its simulation gate (spec §4.2, thesis §4.1.1)",
            |n| boxed(n, LelMmGroup::default()),
            BlockModel {
                golden: mm_group::expected,
                stimulus: |r| match r.thesis {
                    true => mm_group::thesis_stimulus(r.ports, r.seed),
                    false => mm_group::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_LC_GROUP,
            "the FC core's local classifier, forward: LC weights generated a row at a time, the LC forward's sums in LS_INF and the result kept for the loss, behind one simulation gate (spec §4.2, §7-14)",
            |n| boxed(n, LelLcGroup::default()),
            BlockModel {
                golden: lc_group::expected,
                stimulus: |r| match r.thesis {
                    true => lc_group::thesis_stimulus(r.ports, r.seed),
                    false => lc_group::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_BK_GROUP,
            "the FC core's loss, LC backward pass (tree adder) and classification, behind one simulation gate (spec §4.2, thesis §4.1.3, §4.1.5, §4.1.11)",
            |n| boxed(n, LelBkGroup::default()),
            BlockModel {
                golden: bk_group::expected,
                stimulus: |r| match r.thesis {
                    true => bk_group::thesis_stimulus(r.ports, r.seed),
                    false => bk_group::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_WU_GROUP,
            "the FC core's weight update with the LFSR that feeds it, isolated outside LS_WU, behind one simulation gate (spec §4.2, thesis §4.1.6-4.1.7)",
            |n| boxed(n, LelWuGroup::default()),
            BlockModel {
                golden: wu_group::expected,
                stimulus: |r| match r.thesis {
                    true => wu_group::thesis_stimulus(r.ports, r.seed),
                    false => wu_group::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_READ_PIPE,
            "the FC core's read pipeline of LS_INF, LS_WU and LS_READ: a read word's stages while the caches answer, its activation picked out of the activation word at stage 2 (spec §4.2)",
            |n| boxed(n, ReadPipe::<{ read_pipe::LANES }, { 8 * read_pipe::LANES }>::default()),
            BlockModel {
                golden: read_pipe::expected,
                stimulus: |r| match r.thesis {
                    true => read_pipe::thesis_stimulus(r.ports, r.seed),
                    false => read_pipe::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_FC_OUT,
            "the FC core's output feed: LS_INF's pass results with the label and their LC-memory writes, LS_READ's weight words sign-extended as INIT takes them, and the credit that starts a pass only with room in the output FIFO (spec §4.2)",
            |n| {
                const L: usize = fc_out::LANES;
                boxed(n, FcOut::<L, { 8 * L }, { 6 * L }>::default())
            },
            BlockModel {
                golden: fc_out::expected,
                stimulus: |r| match r.thesis {
                    true => fc_out::thesis_stimulus(r.ports, r.seed),
                    false => fc_out::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_PL_FSM,
            "the platform's PL_* FSM: CTRL's instructions to the cores (INIT and READ of FC0 then FC1, runs of N_TRAIN / N_TEST images, I_STOP and its flush), the stream routes and the run counts (spec §4.6)",
            |n| {
                let (beats, room, flush) = pl_fsm::SHAPE;
                boxed(n, PlFsm::new(beats, room, flush))
            },
            BlockModel {
                golden: pl_fsm::expected,
                stimulus: |r| match r.thesis {
                    true => pl_fsm::thesis_stimulus(r.ports, r.seed),
                    false => pl_fsm::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_PL_REGS,
            "the platform's writable registers: MODEL_CFG, the LFSR seeds, N_TRAIN, N_TEST, EPOCH, LR_LEN and the learning-rate table, and CFG_ACTIVE, the configuration the cores get (docs/registers.md; spec §4.5, §7-23)",
            |n| boxed(n, PlRegs::default()),
            BlockModel {
                golden: pl_regs::expected,
                stimulus: |r| match r.thesis {
                    true => pl_regs::thesis_stimulus(r.ports, r.seed),
                    false => pl_regs::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_STREAM_FIFO,
            "the FC and conv cores' output FIFO: 8 beats of 32 bits with TUSER and TLAST, first word falling through, `count` beats held",
            |n| boxed(n, CoreFifo::default()),
            BlockModel {
                golden: |p, s| stream_fifo::expected(p, s, 8),
                stimulus: |r| stream_fifo::random_stimulus(r.block, r.ports, r.seed, r.len(3000)),
            },
        ),
        block(
            name::LEL_STREAM_UP2,
            "AXI-Stream upsizer, two 32-bit beats to one of 64: the platform's FIFOs into an 8-lane FC core",
            |n| boxed(n, StreamUpsizer::<32, 64, 2>::default()),
            BlockModel {
                golden: |p, s| stream_resize::expected_up(p, s, 32, 2),
                stimulus: |r| stream_resize::random_stimulus(r.block, r.ports, r.seed, r.len(2000), 32),
            },
        ),
        block(
            name::LEL_STREAM_DOWN2,
            "AXI-Stream downsizer, one 64-bit beat to two of 32: an 8-lane FC core's output into the platform's FIFOs",
            |n| boxed(n, StreamDownsizer::<64, 32, 2>::default()),
            BlockModel {
                golden: |p, s| stream_resize::expected_down(p, s, 32, 2),
                stimulus: |r| stream_resize::random_stimulus(r.block, r.ports, r.seed, r.len(2000), 64),
            },
        ),
        block(
            name::LEL_RESULT_TALLY,
            "the platform's count of one FC core's classifications: the image's label carried to its result, results, correct ones, the last {label, class} (spec §4.6)",
            |n| boxed(n, ResultTally::default()),
            BlockModel {
                golden: result_tally::expected,
                stimulus: |r| match r.thesis {
                    true => result_tally::thesis_stimulus(r.ports, r.seed),
                    false => result_tally::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::LEL_VISIT_CYCLES,
            "the platform's measure of a core's last visit outside IDLE, in cycles (the *_CYCLES registers)",
            |n| boxed(n, VisitCycles::default()),
            BlockModel {
                golden: visit_cycles::expected,
                stimulus: |r| match r.thesis {
                    true => visit_cycles::thesis_stimulus(r.ports, r.seed),
                    false => visit_cycles::random_stimulus(r.ports, r.seed, r.cycles),
                },
            },
        ),
        block(
            name::CNN_ENGINE_CHECK,
            "the CNN engine's combinational sub-blocks (average division, nine-tap MAC, output stage, priority encoder) behind their own ports (verification top)",
            |n| boxed(n, CnnEngineCheck::default()),
            BlockModel {
            golden: cnn_engine::check_expected,
            stimulus: |r| cnn_engine::check_stimulus(r.ports, r.seed, r.len(1024)),
            },
        ),
        block(
            name::CNN_ADDR_GEN,
            "the CNN engine's gather address generator: per output pixel, pass and chunk, per tap, a padding item or the pooling window of every operand, one data-memory word per cycle",
            |n| boxed(n, AddrGen::default()),
            BlockModel {
            golden: cnn_engine::addr_gen_expected,
            stimulus: |r| cnn_engine::addr_gen_stimulus(r.ports, r.seed),
            },
        ),
        block(
            name::CNN_TAP_POS,
            "the gather's tap position: where kernel tap (ty, tx) of output pixel (oy, ox) reads the pooled, padded input in window, flatten and transposed mode, and whether it is inside (combinational)",
            |n| boxed(n, TapPos::default()),
            BlockModel {
                golden: cnn_engine::tap_pos_expected,
                stimulus: |r| cnn_engine::tap_pos_stimulus(r.ports, r.seed, r.len(2048)),
            },
        ),
        block(
            name::CNN_ELEM_WALK,
            "the gather's items of one tap: the pooling window's elements times the element-wise operands in either order, with the inner and outer units' first/last flags",
            |n| boxed(n, ElemWalk::default()),
            BlockModel {
                golden: cnn_engine::elem_walk_expected,
                stimulus: |r| cnn_engine::elem_walk_stimulus(r.ports, r.seed, r.len(3000)),
            },
        ),
        block(
            name::CNN_WORD_ADDR,
            "the gather's item word: the raw input pixel of a pooling element and its data-memory word (HWC passes and operands, CHW lanes, rolling buffers), modulo 2^16 (combinational)",
            |n| boxed(n, WordAddr::default()),
            BlockModel {
                golden: cnn_engine::word_addr_expected,
                stimulus: |r| cnn_engine::word_addr_stimulus(r.ports, r.seed, r.len(2048)),
            },
        ),
        block(
            name::CNN_ITER_WALK,
            "the gather's iterations: output row, column, input pass and chunk of a layer or a streaming slice, which of them slide (by columns or rows) and from which tap",
            |n| boxed(n, IterWalk::default()),
            BlockModel {
                golden: cnn_engine::iter_walk_expected,
                stimulus: |r| cnn_engine::iter_walk_stimulus(r.ports, r.seed, r.len(4000)),
            },
        ),
        block(
            name::CNN_REDUCE,
            "a CNN-engine processor's pooling / element-wise unit: max, average, add, sub, or, xor over a sequence, saturated to 8 bits, latency 1",
            |n| boxed(n, Reduce::default()),
            BlockModel {
            golden: cnn_engine::reduce_expected,
            stimulus: |r| cnn_engine::reduce_stimulus(r.ports, r.seed, r.len(500)),
            },
        ),
        block(
            name::CNN_WINDOW_BUF,
            "a CNN-engine processor's two windows of nine values: one written a tap per cycle, the other read whole",
            |n| boxed(n, WindowBuf::default()),
            BlockModel {
            golden: cnn_engine::window_expected,
            stimulus: |r| cnn_engine::window_stimulus(r.ports, r.seed, r.len(200)),
            },
        ),
        block(
            name::CNN_WINDOW_CTL,
            "the CNN engine's two-window handshake: pend from the gather's last item of an iteration, full three edges later until the MAC's last channel of it",
            |n| boxed(n, WindowCtl::default()),
            BlockModel {
            golden: cnn_engine::window_ctl_expected,
            stimulus: |r| cnn_engine::window_ctl_stimulus(r.ports, r.seed, r.len(400)),
            },
        ),
        block(
            name::CNN_MAC_PIPE,
            "what travels with an issued output channel through the CNN engine's MAC pipeline: channel at M2, accumulator update at M3, the write at M4",
            |n| boxed(n, MacPipe::default()),
            BlockModel {
            golden: cnn_engine::mac_pipe_expected,
            stimulus: |r| cnn_engine::mac_pipe_stimulus(r.ports, r.seed, r.len(400)),
            },
        ),
        block(
            name::CNN_GROUP_SUM,
            "the 64-processor CNN engine's adders over its 16 quads: four group sums registered, their total, unused quads counting 0",
            |n| boxed(n, GroupSumBench::default()),
            BlockModel {
            golden: cnn_engine::group_sum_expected,
            stimulus: |r| cnn_engine::group_sum_stimulus(r.ports, r.seed, r.len(400)),
            },
        ),
        block(
            name::CNN_ACC_MEM,
            "the CNN engine's 1024 x 48-bit accumulators and bias memory (512 bytes): first iteration from the bias << 7, then accumulate, read at M2, written at M3",
            |n| boxed(n, AccMem::new(512)),
            BlockModel {
            golden: cnn_engine::acc_mem_expected,
            stimulus: |r| cnn_engine::acc_mem_stimulus(r.ports, r.seed, r.len(400)),
            },
        ),
        block(
            name::CNN_LAYER_SEQ,
            "the CNN engine's layer sequencer: per layer LOAD, RUN to its last issue, nine cycles of DRAIN; the run's and each layer's cycles, done",
            |n| boxed(n, LayerSeq::default()),
            BlockModel {
            golden: cnn_engine::layer_seq_expected,
            stimulus: |r| cnn_engine::layer_seq_stimulus(r.ports, r.seed, r.len(600)),
            },
        ),
        block(
            name::CNN_FIFO_IN,
            "the CNN engine's input FIFOs' writer: izer's --fifo order (HWC and CHW) into the line buffers, rows counted, beats held while the rows they touch are not allowed",
            |n| boxed(n, FifoIn::default()),
            BlockModel {
            golden: cnn_engine::fifo_in_expected,
            stimulus: |r| cnn_engine::fifo_in_stimulus(r.ports, r.seed, r.len(600)),
            },
        ),
        block(
            name::CNN_MAC_CTL,
            "the CNN engine's MAC-side sequencer: one output channel per cycle once its window is full, with kernel word and slot, output processor and pass; the iteration loop",
            |n| boxed(n, MacCtl::default()),
            BlockModel {
            golden: cnn_engine::mac_ctl_expected,
            stimulus: |r| cnn_engine::mac_ctl_stimulus(r.ports, r.seed, r.len(600)),
            },
        ),
        block(
            name::CNN_HOST_PORT,
            "the 64-processor CNN engine's host port: the port stage, the register map's writes (while idle) and reads, kernel words in three parts",
            |n| boxed(n, HostPortBench::default()),
            BlockModel {
            golden: cnn_engine::host_port_expected,
            stimulus: |r| cnn_engine::host_port_stimulus(r.ports, r.seed, r.len(600)),
            },
        ),
        block(
            name::CNN_PROCESSOR,
            "one CNN-engine processor (768 kernel words): an item's value through the pooling and element-wise units into one of two windows, the nine-tap MAC over the other",
            |n| boxed(n, Processor::new(768)),
            BlockModel {
            golden: cnn_engine::processor_expected,
            stimulus: |r| cnn_engine::processor_stimulus(r.ports, r.seed, r.len(800)),
            },
        ),
        block(
            name::CNN_FC_UPDATE,
            "softmax cross-entropy error (10 logits, Q1.12, 37 cycles) and 8-bit weight update of an FC last layer, half-up or LFSR stochastic rounding, 2 cycles per row (issue 16)",
            |n| boxed(n, CnnFcUpdate10::default()),
            BlockModel {
            golden: cnn_fc_update::expected,
            stimulus: |r| match r.thesis {
                true => {
                    let cases = cnn_fc_update::layer_cases(r.seed, cnn_fc_update::INPUTS);
                    cnn_fc_update::layer_stimulus(r.ports, &cases[..1], r.seed as u32).map(|x| x.0)
                }
                false => cnn_fc_update::random_stimulus(r.ports, r.seed, r.cycles),
            },
            },
        ),
    ]
}
