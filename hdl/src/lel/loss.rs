//! Loss: the loss-derivative submodule (thesis §4.1.5, eq 4.1, T:987-1020; spec
//! lel-platform.md §2.4 "Loss", §7-8): hard sigmoid + MSE + error scale fused, in integers:
//! `c = clamp(s, -8192, 8192)`, `d = 16384 [o == label] - c - 8192`,
//! `data_out[o] = sat_sym(floor(d * 2^alpha_e / 2^7), 8)`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the pipeline and `data_out` |
//! | `true_label` | in | 4 | class label 0..9 (others match no output) |
//! | `data_in` | in | N x 23 (10 x 23) | signed LC outputs, Q12 (thesis `input`) |
//! | `alpha_e` | in | 3 | error scale field (default 0 gives eq 4.1 exactly) |
//! | `instr` | in | 1 | compute: the inputs of each `instr` cycle are taken |
//! | `data_out` | out | N x 8 (10 x 8) | signed errors `y* - HS(s)` in Q7 (thesis `output`) |
//!
//! Four registers: capture and clamp, `d`, shift and saturate, output. The inputs of a
//! cycle with `instr` high reach `data_out` four edges later and then hold until the next
//! `instr` result, so with `instr` high for two cycles the outputs are valid 3 cycles after
//! `instr` falls (T:1013-1014) and stay valid. `floor(d * 2^a / 2^7)` is computed as
//! `floor(d / 2^(7 - a))`, which is the same number.
//! Golden: `edgelearn_verif::golden::loss`. Tests: `tests/loss.rs`.

use crate::arith::asr::AsrFloor;
use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use crate::arith::sat::Saturate;
use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// The thesis loss: 10 classes.
pub type LelLoss = Loss<10, 230, 80>;

/// N-class loss derivative; `ST = N*23`, `OT = N*8`.
#[derive(Clone, Debug, LogicBlock)]
pub struct Loss<const N: usize, const ST: usize, const OT: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Class label.
    pub true_label: Signal<In, Bits<4>>,
    /// Packed signed LC outputs (Q12).
    pub data_in: Signal<In, Bits<ST>>,
    /// Error scale field.
    pub alpha_e: Signal<In, Bits<3>>,
    /// Compute strobe.
    pub instr: Signal<In, Bit>,
    /// Packed signed errors (Q7).
    pub data_out: Signal<Out, Bits<OT>>,
    s_split: LaneSplit<23, N, ST>,
    clamp: [Saturate<23, 15>; N],
    c_s1: [DFF<Bits<15>>; N],
    label_s1: DFF<Bits<4>>,
    alpha_s1: DFF<Bits<3>>,
    tag_s1: DFF<Bit>,
    c_ext: [SignExtend<15, 16>; N],
    base: [Signal<Local, Bits<16>>; N],
    d_s2: [DFF<Bits<16>>; N],
    alpha_s2: DFF<Bits<3>>,
    tag_s2: DFF<Bit>,
    asr: [AsrFloor<16, 3>; N],
    sat: [Saturate<16, 8>; N],
    e_s3: [DFF<Bits<8>>; N],
    tag_s3: DFF<Bit>,
    e_join: LaneJoin<8, N, OT>,
    out_q: DFF<Bits<OT>>,
    class_id: [Constant<Bits<4>>; N],
    target: Constant<Bits<16>>,
    half: Constant<Bits<16>>,
    seven: Constant<Bits<3>>,
}

impl<const N: usize, const ST: usize, const OT: usize> Default for Loss<N, ST, OT> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&N) && ST == 23 * N && OT == 8 * N,
            "Loss<{N}, {ST}, {OT}>: need 1 <= N <= 16, ST = 23N, OT = 8N"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            true_label: Default::default(),
            data_in: Default::default(),
            alpha_e: Default::default(),
            instr: Default::default(),
            data_out: Default::default(),
            s_split: Default::default(),
            clamp: array_init::array_init(|_| Saturate::with_bounds(-8192, 8192)),
            c_s1: array_init::array_init(|_| Default::default()),
            label_s1: Default::default(),
            alpha_s1: Default::default(),
            tag_s1: Default::default(),
            c_ext: array_init::array_init(|_| Default::default()),
            base: array_init::array_init(|_| Default::default()),
            d_s2: array_init::array_init(|_| Default::default()),
            alpha_s2: Default::default(),
            tag_s2: Default::default(),
            asr: array_init::array_init(|_| Default::default()),
            sat: array_init::array_init(|_| Saturate::symmetric()),
            e_s3: array_init::array_init(|_| Default::default()),
            tag_s3: Default::default(),
            e_join: Default::default(),
            out_q: Default::default(),
            class_id: array_init::array_init(|i| Constant::new(Bits::<4>::from(i as u64))),
            target: Constant::new(Bits::<16>::from(16384u64)),
            half: Constant::new(Bits::<16>::from(8192u64)),
            seven: Constant::new(Bits::<3>::from(7u64)),
        }
    }
}

impl<const N: usize, const ST: usize, const OT: usize> Logic for Loss<N, ST, OT> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, label_s1, alpha_s1, tag_s1, alpha_s2, tag_s2, tag_s3, out_q);
        // Stage 1: capture, clamp to [-8192, 8192].
        self.s_split.word.next = self.data_in.val();
        self.label_s1.d.next = self.true_label.val();
        self.alpha_s1.d.next = self.alpha_e.val();
        self.tag_s1.d.next = self.instr.val();
        for i in 0..N {
            self.clamp[i].data_in.next = self.s_split.lanes[i].val();
            self.c_s1[i].clock.next = self.clock.val();
            self.c_s1[i].d.next = self.clamp[i].data_out.val();
        }
        // Stage 2: d = 16384 [o == label] - c - 8192, in 16 bits.
        self.alpha_s2.d.next = self.alpha_s1.q.val();
        self.tag_s2.d.next = self.tag_s1.q.val();
        for i in 0..N {
            self.c_ext[i].data_in.next = self.c_s1[i].q.val();
            self.base[i].next = 0.into();
            if self.label_s1.q.val() == self.class_id[i].val() {
                self.base[i].next = self.target.val();
            }
            self.d_s2[i].clock.next = self.clock.val();
            self.d_s2[i].d.next =
                self.base[i].val() - self.c_ext[i].data_out.val() - self.half.val();
        }
        // Stage 3: floor(d / 2^(7 - alpha)), saturate to [-127, 127].
        self.tag_s3.d.next = self.tag_s2.q.val();
        for i in 0..N {
            self.asr[i].data_in.next = self.d_s2[i].q.val();
            self.asr[i].shift.next = self.seven.val() - self.alpha_s2.q.val();
            self.sat[i].data_in.next = self.asr[i].data_out.val();
            self.e_s3[i].clock.next = self.clock.val();
            self.e_s3[i].d.next = self.sat[i].data_out.val();
            self.e_join.lanes[i].next = self.e_s3[i].q.val();
        }
        // Stage 4: results of instr cycles only; hold otherwise.
        if self.tag_s3.q.val() {
            self.out_q.d.next = self.e_join.word.val();
        }
        if self.reset.val() {
            self.tag_s1.d.next = false;
            self.tag_s2.d.next = false;
            self.tag_s3.d.next = false;
            self.out_q.d.next = 0.into();
        }
        self.data_out.next = self.out_q.q.val();
    }
}

crate::dut_io! {
    impl[const N: usize, const ST: usize, const OT: usize] Loss<N, ST, OT> {
        clock: yes,
        inputs: [reset, true_label, data_in, alpha_e, instr],
        outputs: [data_out],
        notes: [data_in: (true, N), data_out: (true, N)],
    }
}
