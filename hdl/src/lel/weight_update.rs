//! WeightUpdate: the stochastic weight-update submodule (thesis §4.1.6, eq 3.14, T:1022-1054;
//! spec lel-platform.md §2.4, §2.5, §7-11, §7-12). Per lane:
//! `g = data_in * err`, `p = |g| >> lr_shift`, update when `rnd < p`:
//! `weight_out = sat_sym(weight_in + sign(g), 6)`, else `weight_out = weight_in`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the pipeline |
//! | `weight_in` | in | LANES x 6 (4 x 6) | signed weights, lane l at bits [6(l+1)-1 : 6l] |
//! | `data_in` | in | 8 | signed activation X shared by the lanes (thesis `input`) |
//! | `err` | in | LANES x 8 (4 x 8) | signed errors E of the lanes' output neurons |
//! | `lr_shift` | in | 3 | right shift of the probability (learning rate 2^-lr_shift) |
//! | `rnd` | in | LANES x 14 (4 x 14) | unsigned random numbers 0..16383 |
//! | `instr` | in | 1 | enable: rows without `instr` pass through unchanged |
//! | `weight_out` | out | LANES x 6 (4 x 6) | updated weights |
//!
//! Two registers (products, then the new weights): the row presented right after edge c is
//! on `weight_out` right after edge c+2; one row per cycle (T:1049-1050). P(update) =
//! p / 16384 = |g_real| * lr (eq 3.14). The sign is + because the error carries eq 4.1's
//! "target - output" sign (§7-9); sign(0) = 0 never updates (p = 0). Saturation at +-31.
//!
//! The compare is rearranged for timing (docs/decisions.md D-WU-COMPARE): `rnd < |g| >> lr`
//! holds exactly when `t = (rnd + 1) << lr <= |g|`, and `t` needs only `rnd` and `lr`, so
//! stage 1 computes it beside the multiplier and stage 2 is one compare of the signed
//! product with `t` (or with `2^16 - t` when the product is negative): no absolute value and
//! no shifter after the product register.
//! Golden: `edgelearn_verif::golden::weight_update`. Tests: `tests/weight_update.rs`.

use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use crate::arith::mul::MulSigned;
use crate::arith::sat::Saturate;
use crate::arith::sext::SignExtend;
use crate::arith::zext::ZeroExtend;
use rust_hdl::prelude::*;

/// The thesis weight update: 4 lanes.
pub type LelWeightUpdate = WeightUpdate<4, 24, 32, 56>;

/// LANES-lane stochastic weight update; `WT = 6 LANES`, `ET = 8 LANES`, `RT = 14 LANES`.
#[derive(Clone, Debug, LogicBlock)]
pub struct WeightUpdate<const LANES: usize, const WT: usize, const ET: usize, const RT: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed weights.
    pub weight_in: Signal<In, Bits<WT>>,
    /// Signed activation.
    pub data_in: Signal<In, Bits<8>>,
    /// Packed signed errors.
    pub err: Signal<In, Bits<ET>>,
    /// Learning-rate shift.
    pub lr_shift: Signal<In, Bits<3>>,
    /// Packed unsigned random numbers.
    pub rnd: Signal<In, Bits<RT>>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Packed updated weights.
    pub weight_out: Signal<Out, Bits<WT>>,
    err_split: LaneSplit<8, LANES, ET>,
    w_split: LaneSplit<6, LANES, WT>,
    rnd_split: LaneSplit<14, LANES, RT>,
    mul: [MulSigned<8, 8, 16>; LANES],
    g_s1: [DFF<Bits<16>>; LANES],
    w_s1: [DFF<Bits<6>>; LANES],
    rnd_ext: [ZeroExtend<14, 24>; LANES],
    /// `(rnd + 1) << lr`, at most 2^21.
    thr: [Signal<Local, Bits<24>>; LANES],
    thr_lo: [Signal<Local, Bits<16>>; LANES],
    /// The threshold's low 16 bits, and `2^16 -` them, for a negative product.
    thr_s1: [DFF<Bits<16>>; LANES],
    nthr_s1: [DFF<Bits<16>>; LANES],
    /// The threshold is 2^15 or more: no product reaches it (|g| <= 2^14).
    big_s1: [DFF<Bit>; LANES],
    instr_s1: DFF<Bit>,
    hit: [Signal<Local, Bit>; LANES],
    w_ext: [SignExtend<6, 7>; LANES],
    stepped: [Signal<Local, Bits<7>>; LANES],
    sat: [Saturate<7, 6>; LANES],
    w_new: [Signal<Local, Bits<6>>; LANES],
    w_join: LaneJoin<6, LANES, WT>,
    out_q: DFF<Bits<WT>>,
    one7: Constant<Bits<7>>,
    one24: Constant<Bits<24>>,
    zero16: Constant<Bits<16>>,
}

impl<const LANES: usize, const WT: usize, const ET: usize, const RT: usize> Default
    for WeightUpdate<LANES, WT, ET, RT>
{
    fn default() -> Self {
        assert!(
            (1..=16).contains(&LANES) && WT == 6 * LANES && ET == 8 * LANES && RT == 14 * LANES,
            "WeightUpdate<{LANES}, {WT}, {ET}, {RT}>: need WT = 6 LANES, ET = 8 LANES, RT = 14 LANES"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            weight_in: Default::default(),
            data_in: Default::default(),
            err: Default::default(),
            lr_shift: Default::default(),
            rnd: Default::default(),
            instr: Default::default(),
            weight_out: Default::default(),
            err_split: Default::default(),
            w_split: Default::default(),
            rnd_split: Default::default(),
            mul: array_init::array_init(|_| Default::default()),
            g_s1: array_init::array_init(|_| Default::default()),
            w_s1: array_init::array_init(|_| Default::default()),
            rnd_ext: array_init::array_init(|_| Default::default()),
            thr: array_init::array_init(|_| Default::default()),
            thr_lo: array_init::array_init(|_| Default::default()),
            thr_s1: array_init::array_init(|_| Default::default()),
            nthr_s1: array_init::array_init(|_| Default::default()),
            big_s1: array_init::array_init(|_| Default::default()),
            instr_s1: Default::default(),
            hit: array_init::array_init(|_| Default::default()),
            w_ext: array_init::array_init(|_| Default::default()),
            stepped: array_init::array_init(|_| Default::default()),
            sat: array_init::array_init(|_| Saturate::symmetric()),
            w_new: array_init::array_init(|_| Default::default()),
            w_join: Default::default(),
            out_q: Default::default(),
            one7: Constant::new(Bits::<7>::from(1u64)),
            one24: Constant::new(Bits::<24>::from(1u64)),
            zero16: Constant::new(Bits::<16>::from(0u64)),
        }
    }
}

impl<const LANES: usize, const WT: usize, const ET: usize, const RT: usize> Logic
    for WeightUpdate<LANES, WT, ET, RT>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, instr_s1, out_q);
        // Stage 1: gradients g = X * E, and the thresholds t = (rnd + 1) << lr.
        self.err_split.word.next = self.err.val();
        self.w_split.word.next = self.weight_in.val();
        self.rnd_split.word.next = self.rnd.val();
        self.instr_s1.d.next = self.instr.val();
        for i in 0..LANES {
            self.mul[i].a.next = self.data_in.val();
            self.mul[i].b.next = self.err_split.lanes[i].val();
            self.g_s1[i].clock.next = self.clock.val();
            self.g_s1[i].d.next = self.mul[i].p.val();
            self.w_s1[i].clock.next = self.clock.val();
            self.w_s1[i].d.next = self.w_split.lanes[i].val();
            self.rnd_ext[i].data_in.next = self.rnd_split.lanes[i].val();
            self.thr[i].next =
                (self.rnd_ext[i].data_out.val() + self.one24.val()) << self.lr_shift.val();
            self.thr_lo[i].next = self.thr[i].val().get_bits::<16>(0);
            self.thr_s1[i].clock.next = self.clock.val();
            self.thr_s1[i].d.next = self.thr_lo[i].val();
            self.nthr_s1[i].clock.next = self.clock.val();
            self.nthr_s1[i].d.next = self.zero16.val() - self.thr_lo[i].val();
            self.big_s1[i].clock.next = self.clock.val();
            self.big_s1[i].d.next = self.thr[i].val().get_bits::<9>(15).any();
        }
        // Stage 2: update when |g| >= t, w <- sat6(w + sign(g)). A negative g (16-bit two's
        // complement u = 2^16 - |g|) reaches t when u <= 2^16 - t. The sign is read from the
        // register directly: a local copy read by two `if`s makes Verilator 5.006 see a loop
        // through the saturation (UNOPTFLAT).
        for i in 0..LANES {
            self.hit[i].next = self.g_s1[i].q.val() >= self.thr_s1[i].q.val();
            if self.g_s1[i].q.val().get_bit(15) {
                self.hit[i].next = self.nthr_s1[i].q.val() >= self.g_s1[i].q.val();
            }
            self.w_ext[i].data_in.next = self.w_s1[i].q.val();
            self.stepped[i].next = self.w_ext[i].data_out.val() + self.one7.val();
            if self.g_s1[i].q.val().get_bit(15) {
                self.stepped[i].next = self.w_ext[i].data_out.val() - self.one7.val();
            }
            self.sat[i].data_in.next = self.stepped[i].val();
            self.w_new[i].next = self.w_s1[i].q.val();
            if self.instr_s1.q.val() & self.hit[i].val() & !self.big_s1[i].q.val() {
                self.w_new[i].next = self.sat[i].data_out.val();
            }
            self.w_join.lanes[i].next = self.w_new[i].val();
        }
        self.out_q.d.next = self.w_join.word.val();
        if self.reset.val() {
            self.instr_s1.d.next = false;
            self.out_q.d.next = 0.into();
        }
        self.weight_out.next = self.out_q.q.val();
    }
}

crate::dut_io! {
    impl[const LANES: usize, const WT: usize, const ET: usize, const RT: usize] WeightUpdate<LANES, WT, ET, RT> {
        clock: yes,
        inputs: [reset, weight_in, data_in, err, lr_shift, rnd, instr],
        outputs: [weight_out],
        notes: [
            weight_in: (true, LANES), data_in: (true, 1), err: (true, LANES),
            rnd: (false, LANES), weight_out: (true, LANES),
        ],
    }
}
