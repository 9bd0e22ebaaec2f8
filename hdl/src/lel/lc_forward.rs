//! LcForward: the local classifier's forward path (thesis §4.1.2, T:931-937; spec
//! lel-platform.md §3.2): N multiply-accumulate units over a streamed input vector,
//! `data_out[o] = Σ_n data_in[n] * weight[n][o]`, N signed ACC-bit sums.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears accumulators, pipeline and outputs |
//! | `data_in` | in | 8 | the LC input (post-ReLU activation), read as two's complement |
//! | `weight` | in | N x 6 (10 x 6) | the fixed LC weights of this input, lane o at bits [6(o+1)-1 : 6o] |
//! | `instr` | in | 1 | enable: a row is taken when `instr & valid_in` |
//! | `valid_in` | in | 1 | row valid |
//! | `data_out` | out | N x ACC (10 x 23) | signed sums, Q12 (lane o = output neuron o) |
//! | `valid_out` | out | 1 | one-cycle pulse: `data_out` holds the finished vector |
//!
//! Handshake (docs/decisions.md D-LCFWD): instead of the thesis's `cur_state`/`nxt_state`
//! FSM ports, the burst handshake of [`MatMul`](super::matmul::MatMul): a burst is a run of
//! rows with `instr & valid_in`; `valid_out` pulses two cycles after the burst's last row,
//! so 480 rows give valid_in rise to valid_out rise = 482 cycles. `data_out` holds until the
//! next result. Sums wrap at ACC = 23 bits, enough for 480 x (-128) x (-32) (T:1005).
//! Golden: `edgelearn_verif::golden::lc_forward`. Tests: `tests/lc_forward.rs`.

use super::burst_ctl::BurstCtl;
use super::mac_lane::MacLane;
use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use rust_hdl::prelude::*;

/// The thesis LC forward path: 10 outputs, 6-bit weights, 23-bit sums.
pub type LelLcForward = LcForward<10, 23, 60, 230>;

/// N-output LC forward path; `WT = N*6`, `AT = N*ACC`.
#[derive(Clone, Debug, LogicBlock)]
pub struct LcForward<const N: usize, const ACC: usize, const WT: usize, const AT: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// LC input.
    pub data_in: Signal<In, Bits<8>>,
    /// Packed signed weights.
    pub weight: Signal<In, Bits<WT>>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Row valid.
    pub valid_in: Signal<In, Bit>,
    /// Packed signed sums.
    pub data_out: Signal<Out, Bits<AT>>,
    /// One-cycle result strobe.
    pub valid_out: Signal<Out, Bit>,
    x_s1: DFF<Bits<8>>,
    w_s1: DFF<Bits<WT>>,
    burst: BurstCtl,
    w_split: LaneSplit<6, N, WT>,
    lanes: [MacLane<8, 6, ACC>; N],
    acc_join: LaneJoin<ACC, N, AT>,
    out_q: DFF<Bits<AT>>,
    valid_q: DFF<Bit>,
}

impl<const N: usize, const ACC: usize, const WT: usize, const AT: usize> Default
    for LcForward<N, ACC, WT, AT>
{
    fn default() -> Self {
        assert!(
            (1..=16).contains(&N) && WT == 6 * N && AT == ACC * N,
            "LcForward<{N}, {ACC}, {WT}, {AT}>: need 1 <= N <= 16, WT = 6N, AT = ACC*N"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data_in: Default::default(),
            weight: Default::default(),
            instr: Default::default(),
            valid_in: Default::default(),
            data_out: Default::default(),
            valid_out: Default::default(),
            x_s1: Default::default(),
            w_s1: Default::default(),
            burst: Default::default(),
            w_split: Default::default(),
            lanes: array_init::array_init(|_| Default::default()),
            acc_join: Default::default(),
            out_q: Default::default(),
            valid_q: Default::default(),
        }
    }
}

impl<const N: usize, const ACC: usize, const WT: usize, const AT: usize> Logic
    for LcForward<N, ACC, WT, AT>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, x_s1, w_s1, out_q, valid_q);
        self.x_s1.d.next = self.data_in.val();
        self.w_s1.d.next = self.weight.val();
        self.burst.clock.next = self.clock.val();
        self.burst.reset.next = self.reset.val();
        self.burst.take.next = self.instr.val() & self.valid_in.val();
        self.w_split.word.next = self.w_s1.q.val();
        for i in 0..N {
            self.lanes[i].clock.next = self.clock.val();
            self.lanes[i].data.next = self.x_s1.q.val();
            self.lanes[i].weight.next = self.w_split.lanes[i].val();
            self.lanes[i].en.next = self.burst.accumulate.val();
            self.lanes[i].clear.next = self.burst.done.val() | self.reset.val();
            self.acc_join.lanes[i].next = self.lanes[i].acc.val();
        }
        self.valid_q.d.next = self.burst.done.val();
        if self.burst.done.val() {
            self.out_q.d.next = self.acc_join.word.val();
        }
        if self.reset.val() {
            self.valid_q.d.next = false;
            self.out_q.d.next = 0.into();
        }
        self.data_out.next = self.out_q.q.val();
        self.valid_out.next = self.valid_q.q.val();
    }
}

crate::dut_io! {
    impl[const N: usize, const ACC: usize, const WT: usize, const AT: usize] LcForward<N, ACC, WT, AT> {
        clock: yes,
        inputs: [reset, data_in, weight, instr, valid_in],
        outputs: [data_out, valid_out],
        notes: [data_in: (true, 1), weight: (true, N), data_out: (true, N)],
    }
}
