//! PoolPacker: the conv core's output stage (thesis §4.2.2; lel-platform.md §3.2): the pooled
//! values, four int8 to a 32-bit beat in arrival order (the first in the low byte), the
//! image's last beat marked.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: no value held, the count at 0 |
//! | `clear` | in | 1 | a new image starts at this edge: the beat and the count start over (a `valid` value with it is the image's first) |
//! | `valid` | in | 1 | `value` is a pooled value |
//! | `value` | in | 8 | the pooled value |
//! | `total` | in | 16 | pooled values per image |
//! | `push` | out | 1 | a beat is complete: `valid` with the fourth value of a beat (combinational) |
//! | `data` | out | 32 | the beat: the three held values and `value` in the high byte |
//! | `last` | out | 1 | the beat ends the image (`value` is the image's `total`-th) |
//!
//! Mealy: the fourth value of a beat goes out with the three held ones in its own cycle, so
//! the core pushes the beat into its output FIFO without a cycle of delay.
//! Golden: `edgelearn_verif::golden::pool_packer`. Tests: `tests/pool_packer.rs`.

use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

/// Four pooled values to a beat.
#[derive(Clone, Debug, LogicBlock)]
pub struct PoolPacker {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A new image starts.
    pub clear: Signal<In, Bit>,
    /// A pooled value.
    pub valid: Signal<In, Bit>,
    /// Its value.
    pub value: Signal<In, Bits<8>>,
    /// Pooled values per image.
    pub total: Signal<In, Bits<16>>,
    /// A beat is complete.
    pub push: Signal<Out, Bit>,
    /// The beat.
    pub data: Signal<Out, Bits<32>>,
    /// The beat ends the image.
    pub last: Signal<Out, Bit>,
    held: [DFF<Bits<8>>; 3],
    n: DFF<Bits<2>>,
    count: DFF<Bits<16>>,
    n_now: Signal<Local, Bits<2>>,
    count_now: Signal<Local, Bits<16>>,
    beat: LaneJoin<8, 4, 32>,
    slot: [Constant<Bits<2>>; 3],
    fourth: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    one16: Constant<Bits<16>>,
}

impl Default for PoolPacker {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            valid: Default::default(),
            value: Default::default(),
            total: Default::default(),
            push: Default::default(),
            data: Default::default(),
            last: Default::default(),
            held: array_init::array_init(|_| Default::default()),
            n: Default::default(),
            count: Default::default(),
            n_now: Default::default(),
            count_now: Default::default(),
            beat: Default::default(),
            slot: array_init::array_init(|r| Constant::new(Bits::<2>::from(r as u64))),
            fourth: Constant::new(Bits::<2>::from(3u64)),
            one2: Constant::new(Bits::<2>::from(1u64)),
            one16: Constant::new(Bits::<16>::from(1u64)),
        }
    }
}

impl Logic for PoolPacker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, n, count);
        for r in 0..3 {
            self.held[r].clock.next = self.clock.val();
            self.held[r].d.next = self.held[r].q.val();
            self.beat.lanes[r].next = self.held[r].q.val();
        }
        self.beat.lanes[3].next = self.value.val();
        self.data.next = self.beat.word.val();
        // Where this cycle's value goes: a cleared image starts at the first byte.
        self.n_now.next = self.n.q.val();
        self.count_now.next = self.count.q.val();
        if self.clear.val() {
            self.n_now.next = 0.into();
            self.count_now.next = 0.into();
        }
        self.n.d.next = self.n_now.val();
        self.count.d.next = self.count_now.val();
        self.last.next = (self.count_now.val() + self.one16.val()) == self.total.val();
        self.push.next = false;
        if self.valid.val() {
            self.n.d.next = self.n_now.val() + self.one2.val();
            self.count.d.next = self.count_now.val() + self.one16.val();
            for r in 0..3 {
                if self.n_now.val() == self.slot[r].val() {
                    self.held[r].d.next = self.value.val();
                }
            }
            if self.n_now.val() == self.fourth.val() {
                self.push.next = true;
            }
        }
        if self.reset.val() {
            self.n.d.next = 0.into();
            self.count.d.next = 0.into();
        }
    }
}

crate::dut_io! {
    impl[] PoolPacker {
        clock: yes,
        inputs: [reset, clear, valid, value, total],
        outputs: [push, data, last],
        notes: [],
    }
}
