//! TreeComparator: pipelined N-input signed maximum (thesis §4.1.10, T:1146-1169; spec
//! lel-platform.md §3.10). Used by the conv core for 3x3 max pooling.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the pipeline |
//! | `data_in` | in | N x W (9 x 8) | signed values, lane i at bits [W(i+1)-1 : W i] (thesis `input`) |
//! | `instr` | in | 1 | enable: a row is taken when `instr & valid_in` |
//! | `valid_in` | in | 1 | row valid |
//! | `data_out` | out | W (8) | signed maximum of the row (thesis `output`) |
//! | `valid_out` | out | 1 | `data_out` holds a row's maximum |
//!
//! Pipeline of 5 registers: input row, then a 16 -> 8 -> 4 -> 2 -> 1 tree of [`MaxSigned`]
//! (lanes N..16 are padded with the most negative value, so any N in 2..=16 has the same
//! depth as the thesis's 9 -> 5 -> 3 -> 2 -> 1). Throughput one row per cycle. The row
//! driven right after clock edge k is on `data_out` right after edge k+5, so 100 rows give
//! valid_in rise to valid_out fall = 105 cycles (T:1169). The pipeline always advances;
//! `instr` only qualifies `valid_in`. `data_out` is defined while `valid_out` is high.
//! Golden: `edgelearn_verif::golden::tree_comparator`. Tests: `tests/tree_comparator.rs`.

use crate::arith::max::MaxSigned;
use rust_hdl::prelude::*;

/// The thesis tree comparator: 9 lanes of 8 bits.
pub type LelTreeComparator = TreeComparator<9, 8, 72>;

/// N-input pipelined signed maximum; `T = N*W` (checked in `default`).
#[derive(Clone, Debug, LogicBlock)]
pub struct TreeComparator<const N: usize, const W: usize, const T: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Packed signed inputs.
    pub data_in: Signal<In, Bits<T>>,
    /// Module enable.
    pub instr: Signal<In, Bit>,
    /// Row valid.
    pub valid_in: Signal<In, Bit>,
    /// Signed maximum.
    pub data_out: Signal<Out, Bits<W>>,
    /// Output valid.
    pub valid_out: Signal<Out, Bit>,
    row_s1: [DFF<Bits<W>>; 16],
    max_l1: [MaxSigned<W>; 8],
    row_s2: [DFF<Bits<W>>; 8],
    max_l2: [MaxSigned<W>; 4],
    row_s3: [DFF<Bits<W>>; 4],
    max_l3: [MaxSigned<W>; 2],
    row_s4: [DFF<Bits<W>>; 2],
    max_l4: MaxSigned<W>,
    max_s5: DFF<Bits<W>>,
    valid_s: [DFF<Bit>; 5],
    most_negative: Constant<Bits<W>>,
}

impl<const N: usize, const W: usize, const T: usize> Default for TreeComparator<N, W, T> {
    fn default() -> Self {
        assert!(
            (2..=16).contains(&N) && (2..=32).contains(&W) && T == N * W,
            "TreeComparator<{N}, {W}, {T}>: need 2 <= N <= 16, 2 <= W <= 32, T = N*W"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            data_in: Default::default(),
            instr: Default::default(),
            valid_in: Default::default(),
            data_out: Default::default(),
            valid_out: Default::default(),
            row_s1: array_init::array_init(|_| Default::default()),
            max_l1: array_init::array_init(|_| Default::default()),
            row_s2: array_init::array_init(|_| Default::default()),
            max_l2: array_init::array_init(|_| Default::default()),
            row_s3: array_init::array_init(|_| Default::default()),
            max_l3: array_init::array_init(|_| Default::default()),
            row_s4: array_init::array_init(|_| Default::default()),
            max_l4: Default::default(),
            max_s5: Default::default(),
            valid_s: array_init::array_init(|_| Default::default()),
            most_negative: Constant::new(Bits::<W>::from(1u64 << (W - 1))),
        }
    }
}

impl<const N: usize, const W: usize, const T: usize> Logic for TreeComparator<N, W, T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, max_s5);
        for i in 0..16 {
            self.row_s1[i].clock.next = self.clock.val();
            self.row_s1[i].d.next = self.most_negative.val();
        }
        for w in W..(W + 1) {
            for i in 0..N {
                self.row_s1[i].d.next = self.data_in.val().get_bits::<W>(w * i);
            }
        }
        for i in 0..8 {
            self.max_l1[i].a.next = self.row_s1[2 * i].q.val();
            self.max_l1[i].b.next = self.row_s1[2 * i + 1].q.val();
            self.row_s2[i].clock.next = self.clock.val();
            self.row_s2[i].d.next = self.max_l1[i].data_out.val();
        }
        for i in 0..4 {
            self.max_l2[i].a.next = self.row_s2[2 * i].q.val();
            self.max_l2[i].b.next = self.row_s2[2 * i + 1].q.val();
            self.row_s3[i].clock.next = self.clock.val();
            self.row_s3[i].d.next = self.max_l2[i].data_out.val();
        }
        for i in 0..2 {
            self.max_l3[i].a.next = self.row_s3[2 * i].q.val();
            self.max_l3[i].b.next = self.row_s3[2 * i + 1].q.val();
            self.row_s4[i].clock.next = self.clock.val();
            self.row_s4[i].d.next = self.max_l3[i].data_out.val();
        }
        self.max_l4.a.next = self.row_s4[0].q.val();
        self.max_l4.b.next = self.row_s4[1].q.val();
        self.max_s5.d.next = self.max_l4.data_out.val();
        for i in 0..5 {
            self.valid_s[i].clock.next = self.clock.val();
        }
        self.valid_s[0].d.next = self.instr.val() & self.valid_in.val();
        for i in 1..5 {
            self.valid_s[i].d.next = self.valid_s[i - 1].q.val();
        }
        if self.reset.val() {
            for i in 0..5 {
                self.valid_s[i].d.next = false;
            }
            self.max_s5.d.next = 0.into();
        }
        self.data_out.next = self.max_s5.q.val();
        self.valid_out.next = self.valid_s[4].q.val();
    }
}

crate::dut_io! {
    impl[const N: usize, const W: usize, const T: usize] TreeComparator<N, W, T> {
        clock: yes,
        inputs: [reset, data_in, instr, valid_in],
        outputs: [data_out, valid_out],
        notes: [data_in: (true, N), data_out: (true, 1)],
    }
}
