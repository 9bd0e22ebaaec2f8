//! Classification: the index and value of the largest of N local-classifier outputs
//! (thesis §4.1.11, T:1171-1192; spec lel-platform.md §3.11, §7-30). Sequential, one
//! compare per cycle with a counter, the first maximum winning ties (as `np.argmax`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: idle, `classify_done` low |
//! | `lc_out` | in | N x W (10 x 23) | signed LC outputs, lane o at bits [W(o+1)-1 : W o] |
//! | `en` | in | 1 | start: `lc_out` is taken at this edge (again at every edge it is high) |
//! | `max_lc_out` | out | W (23) | the largest value |
//! | `class_num` | out | 4 | its index (the lowest on ties) |
//! | `classify_done` | out | 1 | results valid; high until the next `en` or reset |
//!
//! With `en` high for one cycle, `classify_done` rises 9 cycles after `en` falls (T:1192):
//! the edge that takes `lc_out` starts with lane 0, the next N-1 edges compare lanes 1..N-1.
//! Golden: `edgelearn_verif::golden::classification`. Tests: `tests/classification.rs`.

use crate::arith::cmp::CmpGt;
use rust_hdl::prelude::*;

/// The thesis classification: 10 classes of 23-bit outputs.
pub type LelClassification = Classification<10, 23, 230>;

/// N-way sequential argmax; `T = N*W`.
#[derive(Clone, Debug, LogicBlock)]
pub struct Classification<const N: usize, const W: usize, const T: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed LC outputs.
    pub lc_out: Signal<In, Bits<T>>,
    /// Start.
    pub en: Signal<In, Bit>,
    /// Largest value.
    pub max_lc_out: Signal<Out, Bits<W>>,
    /// Index of the largest value.
    pub class_num: Signal<Out, Bits<4>>,
    /// Results valid.
    pub classify_done: Signal<Out, Bit>,
    rest: DFF<Bits<T>>,
    best: DFF<Bits<W>>,
    best_idx: DFF<Bits<4>>,
    count: DFF<Bits<4>>,
    busy: DFF<Bit>,
    done: DFF<Bit>,
    cmp: CmpGt<W>,
    last: Constant<Bits<4>>,
    one: Constant<Bits<4>>,
}

impl<const N: usize, const W: usize, const T: usize> Default for Classification<N, W, T> {
    fn default() -> Self {
        assert!(
            (2..=16).contains(&N) && (2..=32).contains(&W) && T == N * W,
            "Classification<{N}, {W}, {T}>: need 2 <= N <= 16, 2 <= W <= 32, T = N*W"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            lc_out: Default::default(),
            en: Default::default(),
            max_lc_out: Default::default(),
            class_num: Default::default(),
            classify_done: Default::default(),
            rest: Default::default(),
            best: Default::default(),
            best_idx: Default::default(),
            count: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            cmp: Default::default(),
            last: Constant::new(Bits::<4>::from((N - 1) as u64)),
            one: Constant::new(Bits::<4>::from(1u64)),
        }
    }
}

impl<const N: usize, const W: usize, const T: usize> Logic for Classification<N, W, T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rest, best, best_idx, count, busy, done);
        self.cmp.a.next = self.rest.q.val().get_bits::<W>(0);
        self.cmp.b.next = self.best.q.val();
        for w in (W as u64)..(W as u64 + 1) {
            if self.en.val() {
                self.rest.d.next = self.lc_out.val() >> w;
                self.best.d.next = self.lc_out.val().get_bits::<W>(0);
                self.best_idx.d.next = 0.into();
                self.count.d.next = self.one.val();
                self.busy.d.next = true;
                self.done.d.next = false;
            } else if self.busy.q.val() {
                if self.cmp.gt.val() {
                    self.best.d.next = self.rest.q.val().get_bits::<W>(0);
                    self.best_idx.d.next = self.count.q.val();
                }
                self.rest.d.next = self.rest.q.val() >> w;
                self.count.d.next = self.count.q.val() + self.one.val();
                if self.count.q.val() == self.last.val() {
                    self.busy.d.next = false;
                    self.done.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.busy.d.next = false;
            self.done.d.next = false;
            self.best.d.next = 0.into();
            self.best_idx.d.next = 0.into();
        }
        self.max_lc_out.next = self.best.q.val();
        self.class_num.next = self.best_idx.q.val();
        self.classify_done.next = self.done.q.val();
    }
}

crate::dut_io! {
    impl[const N: usize, const W: usize, const T: usize] Classification<N, W, T> {
        clock: yes,
        inputs: [reset, lc_out, en],
        outputs: [max_lc_out, class_num, classify_done],
        notes: [lc_out: (true, N), max_lc_out: (true, 1)],
    }
}
