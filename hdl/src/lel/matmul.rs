//! MatMul: the LEL matmul submodule (thesis §4.1.1, T:894-929; spec lel-platform.md §3.1).
//! LANES signed multiply-accumulate lanes share one activation per cycle; when a burst ends
//! each lane's accumulator is quantized twice (for the next FC core and for the local
//! classifier) and its ReLU mask is taken.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears accumulators, pipeline and outputs |
//! | `data_in` | in | DW (8) | signed activation, shared by all lanes (thesis `input`) |
//! | `weight` | in | LANES x WW (4 x 6) | signed weights, lane i at bits [WW(i+1)-1 : WW i] |
//! | `instr` | in | 1 | enable: a row is taken when `instr & valid_in` |
//! | `alpha_fc` | in | 3 | scale for the next FC core (thesis α_FC) |
//! | `alpha_lc` | in | 3 | scale for the local classifier (thesis α_LC) |
//! | `valid_in` | in | 1 | row valid |
//! | `output_to_fc` | out | LANES x OW (4 x 8) | `max(0, sat_sym(floor(acc / 2^(5 + alpha_fc)), 8))` |
//! | `output_to_lc` | out | LANES x OW (4 x 8) | the same with `alpha_lc` |
//! | `relu_mask` | out | LANES | `acc > 0` per lane (thesis `ReLUmask`) |
//! | `valid_out` | out | 1 | one-cycle pulse: the outputs above hold the finished burst |
//! | `debug_acc` | out | LANES x ACC (4 x 24) | raw accumulators of the finished burst |
//!
//! A burst is a run of consecutive cycles with `instr & valid_in` high; it ends at the first
//! cycle where that is low. Pipeline: the row is registered (edge k), accumulated (edge k+1),
//! and one cycle after the burst's last accumulate the results are registered and `valid_out`
//! pulses. Latency: with the first row driven right after clock edge 0, a 600-row burst gives
//! `valid_out` high right after edge 602 (thesis T:929: 602 cycles valid_in rise to valid_out
//! rise). The accumulators are cleared as the results are taken, so one idle cycle between
//! bursts suffices. `alpha_fc`/`alpha_lc` are sampled with each row; the values that came
//! with a burst's last row are used. Outputs hold until the next burst's results.
//! Accumulators wrap at ACC bits (24 covers 600 rows of -128 x -32).
//! Golden: `edgelearn_verif::golden::matmul`. Tests: `tests/matmul.rs`.

use super::burst_ctl::BurstCtl;
use super::mac_lane::MacLane;
use super::quant_relu::QuantRelu;
use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use rust_hdl::prelude::*;

/// The thesis matmul: 4 lanes, 8-bit activations, 6-bit weights, 8-bit outputs, 24-bit accumulators.
pub type LelMatmul = MatMul<4, 8, 6, 8, 24, 24, 32, 96>;

/// LANES-lane matmul. `WT = LANES*WW`, `OT = LANES*OW`, `AT = LANES*ACC` (checked in `new`).
#[derive(Clone, Debug, LogicBlock)]
pub struct MatMul<
    const LANES: usize,
    const DW: usize,
    const WW: usize,
    const OW: usize,
    const ACC: usize,
    const WT: usize,
    const OT: usize,
    const AT: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Signed activation shared by all lanes.
    pub data_in: Signal<In, Bits<DW>>,
    /// Packed signed lane weights.
    pub weight: Signal<In, Bits<WT>>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Scale field for `output_to_fc`.
    pub alpha_fc: Signal<In, Bits<3>>,
    /// Scale field for `output_to_lc`.
    pub alpha_lc: Signal<In, Bits<3>>,
    /// Row valid.
    pub valid_in: Signal<In, Bit>,
    /// Packed quantized outputs for the next FC core.
    pub output_to_fc: Signal<Out, Bits<OT>>,
    /// Packed quantized outputs for the local classifier.
    pub output_to_lc: Signal<Out, Bits<OT>>,
    /// Per-lane `acc > 0`.
    pub relu_mask: Signal<Out, Bits<LANES>>,
    /// One-cycle result strobe.
    pub valid_out: Signal<Out, Bit>,
    /// Packed raw accumulators of the finished burst.
    pub debug_acc: Signal<Out, Bits<AT>>,
    x_s1: DFF<Bits<DW>>,
    w_s1: DFF<Bits<WT>>,
    burst: BurstCtl,
    alpha_fc_s1: DFF<Bits<3>>,
    alpha_lc_s1: DFF<Bits<3>>,
    lanes: [MacLane<DW, WW, ACC>; LANES],
    q_fc: [QuantRelu<ACC, OW>; LANES],
    q_lc: [QuantRelu<ACC, OW>; LANES],
    w_split: LaneSplit<WW, LANES, WT>,
    fc_join: LaneJoin<OW, LANES, OT>,
    lc_join: LaneJoin<OW, LANES, OT>,
    acc_join: LaneJoin<ACC, LANES, AT>,
    mask_join: LaneJoin<1, LANES, LANES>,
    done: Signal<Local, Bit>,
    fc_q: DFF<Bits<OT>>,
    lc_q: DFF<Bits<OT>>,
    mask_q: DFF<Bits<LANES>>,
    acc_q: DFF<Bits<AT>>,
    valid_q: DFF<Bit>,
}

impl<
        const LANES: usize,
        const DW: usize,
        const WW: usize,
        const OW: usize,
        const ACC: usize,
        const WT: usize,
        const OT: usize,
        const AT: usize,
    > Default for MatMul<LANES, DW, WW, OW, ACC, WT, OT, AT>
{
    fn default() -> Self {
        assert!(
            (1..=16).contains(&LANES) && WT == LANES * WW && OT == LANES * OW && AT == LANES * ACC,
            "MatMul<{LANES}, {DW}, {WW}, {OW}, {ACC}, {WT}, {OT}, {AT}>: need 1 <= LANES <= 16, \
             WT = LANES*WW, OT = LANES*OW, AT = LANES*ACC"
        );
        assert!(
            WW >= 2 && WW - 1 <= 8,
            "MatMul: weight width {WW} gives {} fraction bits; at most 8",
            WW - 1
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data_in: Default::default(),
            weight: Default::default(),
            instr: Default::default(),
            alpha_fc: Default::default(),
            alpha_lc: Default::default(),
            valid_in: Default::default(),
            output_to_fc: Default::default(),
            output_to_lc: Default::default(),
            relu_mask: Default::default(),
            valid_out: Default::default(),
            debug_acc: Default::default(),
            x_s1: Default::default(),
            w_s1: Default::default(),
            burst: Default::default(),
            alpha_fc_s1: Default::default(),
            alpha_lc_s1: Default::default(),
            lanes: array_init::array_init(|_| Default::default()),
            // Weights are Q(WW-1): the fraction bits set the base shift (5 for 6-bit weights).
            q_fc: array_init::array_init(|_| QuantRelu::new((WW - 1) as u8)),
            q_lc: array_init::array_init(|_| QuantRelu::new((WW - 1) as u8)),
            w_split: Default::default(),
            fc_join: Default::default(),
            lc_join: Default::default(),
            acc_join: Default::default(),
            mask_join: Default::default(),
            done: Default::default(),
            fc_q: Default::default(),
            lc_q: Default::default(),
            mask_q: Default::default(),
            acc_q: Default::default(),
            valid_q: Default::default(),
        }
    }
}

impl<
        const LANES: usize,
        const DW: usize,
        const WW: usize,
        const OW: usize,
        const ACC: usize,
        const WT: usize,
        const OT: usize,
        const AT: usize,
    > Logic for MatMul<LANES, DW, WW, OW, ACC, WT, OT, AT>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            x_s1,
            w_s1,
            alpha_fc_s1,
            alpha_lc_s1,
            fc_q,
            lc_q,
            mask_q,
            acc_q,
            valid_q
        );
        // Stage 1: register the row.
        self.x_s1.d.next = self.data_in.val();
        self.w_s1.d.next = self.weight.val();
        self.burst.clock.next = self.clock.val();
        self.burst.reset.next = self.reset.val();
        self.burst.take.next = self.instr.val() & self.valid_in.val();
        if self.instr.val() & self.valid_in.val() {
            self.alpha_fc_s1.d.next = self.alpha_fc.val();
            self.alpha_lc_s1.d.next = self.alpha_lc.val();
        }
        // The burst ended one cycle ago: its last product is in the accumulators now.
        self.done.next = self.burst.done.val();
        // Stage 2: accumulate.
        self.w_split.word.next = self.w_s1.q.val();
        for i in 0..LANES {
            self.lanes[i].clock.next = self.clock.val();
            self.lanes[i].data.next = self.x_s1.q.val();
            self.lanes[i].weight.next = self.w_split.lanes[i].val();
            self.lanes[i].en.next = self.burst.accumulate.val();
            self.lanes[i].clear.next = self.done.val() | self.reset.val();
            self.q_fc[i].acc.next = self.lanes[i].acc.val();
            self.q_fc[i].alpha.next = self.alpha_fc_s1.q.val();
            self.q_lc[i].acc.next = self.lanes[i].acc.val();
            self.q_lc[i].alpha.next = self.alpha_lc_s1.q.val();
            self.fc_join.lanes[i].next = self.q_fc[i].data_out.val();
            self.lc_join.lanes[i].next = self.q_lc[i].data_out.val();
            self.acc_join.lanes[i].next = self.lanes[i].acc.val();
            self.mask_join.lanes[i].next = self.q_fc[i].positive.val().into();
        }
        // Stage 3: results.
        self.valid_q.d.next = self.done.val();
        if self.done.val() {
            self.fc_q.d.next = self.fc_join.word.val();
            self.lc_q.d.next = self.lc_join.word.val();
            self.mask_q.d.next = self.mask_join.word.val();
            self.acc_q.d.next = self.acc_join.word.val();
        }
        if self.reset.val() {
            self.alpha_fc_s1.d.next = 0.into();
            self.alpha_lc_s1.d.next = 0.into();
            self.valid_q.d.next = false;
            self.fc_q.d.next = 0.into();
            self.lc_q.d.next = 0.into();
            self.mask_q.d.next = 0.into();
            self.acc_q.d.next = 0.into();
        }
        self.output_to_fc.next = self.fc_q.q.val();
        self.output_to_lc.next = self.lc_q.q.val();
        self.relu_mask.next = self.mask_q.q.val();
        self.debug_acc.next = self.acc_q.q.val();
        self.valid_out.next = self.valid_q.q.val();
    }
}

crate::dut_io! {
    impl[
        const LANES: usize,
        const DW: usize,
        const WW: usize,
        const OW: usize,
        const ACC: usize,
        const WT: usize,
        const OT: usize,
        const AT: usize
    ] MatMul<LANES, DW, WW, OW, ACC, WT, OT, AT> {
        clock: yes,
        inputs: [reset, data_in, weight, instr, alpha_fc, alpha_lc, valid_in],
        outputs: [output_to_fc, output_to_lc, relu_mask, valid_out, debug_acc],
        notes: [
            data_in: (true, 1), weight: (true, LANES), output_to_fc: (true, LANES),
            output_to_lc: (true, LANES), relu_mask: (false, LANES), debug_acc: (true, LANES),
        ],
    }
}
