//! ReadPipe: the FC core's read pipeline of LS_INF, LS_WU and LS_READ (lel-platform.md
//! §4.2, §2.4): the word the sequencer issues carried stage by stage (stage s = s cycles
//! after its address) while the caches answer, and the activation it needs, lane `index
//! mod L` of activation word `index / L`, picked out when the activation cache answers
//! (stage 2). The weight update writes back at stage 4.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: no word in flight |
//! | `issue` | in | 1 | the sequencer's word is read this cycle |
//! | `index` | in | 16 | its index in the pass (input i) |
//! | `first` | in | 1 | it is its pass's first |
//! | `last` | in | 1 | it is the sequence's last |
//! | `addr` | in | 16 | its weight-cache address |
//! | `act_data` | in | 8L | the activation cache's read port (the word at `act_addr` two cycles ago) |
//! | `act_addr` | out | 12 | activation word `index / L` |
//! | `v1`, `v2`, `v4` | out | 1 | a word is at stage 1, 2, 4 |
//! | `start1` | out | 1 | the word at stage 1 is its pass's first |
//! | `last2` | out | 1 | the word at stage 2 is the sequence's last |
//! | `addr4` | out | 16 | the address of the word at stage 4 |
//! | `act_lane` | out | 8 | the activation of the word at stage 2 (int8) |
//!
//! Golden: `edgelearn_verif::golden::read_pipe`. Tests: `tests/read_pipe.rs`.

use crate::arith::lane_split::LaneSplit;
use rust_hdl::prelude::*;

/// The read pipeline of a core with L lanes (`SW = 8L`).
#[derive(Clone, Debug, LogicBlock)]
pub struct ReadPipe<const L: usize, const SW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A word is read.
    pub issue: Signal<In, Bit>,
    /// Its index in the pass.
    pub index: Signal<In, Bits<16>>,
    /// Its pass's first.
    pub first: Signal<In, Bit>,
    /// The sequence's last.
    pub last: Signal<In, Bit>,
    /// Its weight-cache address.
    pub addr: Signal<In, Bits<16>>,
    /// The activation cache's read port.
    pub act_data: Signal<In, Bits<SW>>,
    /// The activation word to read.
    pub act_addr: Signal<Out, Bits<12>>,
    /// A word at stage 1.
    pub v1: Signal<Out, Bit>,
    /// A word at stage 2.
    pub v2: Signal<Out, Bit>,
    /// A word at stage 4.
    pub v4: Signal<Out, Bit>,
    /// Stage 1 holds a pass's first word.
    pub start1: Signal<Out, Bit>,
    /// Stage 2 holds the sequence's last word.
    pub last2: Signal<Out, Bit>,
    /// The address at stage 4.
    pub addr4: Signal<Out, Bits<16>>,
    /// The activation at stage 2.
    pub act_lane: Signal<Out, Bits<8>>,
    split: LaneSplit<8, L, SW>,
    v_s1: DFF<Bit>,
    v_s2: DFF<Bit>,
    v_s3: DFF<Bit>,
    v_s4: DFF<Bit>,
    lane_s1: DFF<Bits<4>>,
    lane_s2: DFF<Bits<4>>,
    first_s1: DFF<Bit>,
    last_s1: DFF<Bit>,
    last_s2: DFF<Bit>,
    addr_s1: DFF<Bits<16>>,
    addr_s2: DFF<Bits<16>>,
    addr_s3: DFF<Bits<16>>,
    addr_s4: DFF<Bits<16>>,
    word: Signal<Local, Bits<16>>,
    c_lane_bits: Constant<Bits<16>>,
    c_lane_mask: Constant<Bits<16>>,
    c_lane_id: [Constant<Bits<4>>; L],
}

impl<const L: usize, const SW: usize> Default for ReadPipe<L, SW> {
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && SW == 8 * L,
            "ReadPipe<{L}, {SW}>: L a power of two <= 16, SW = 8L"
        );
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            issue: Default::default(),
            index: Default::default(),
            first: Default::default(),
            last: Default::default(),
            addr: Default::default(),
            act_data: Default::default(),
            act_addr: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            v4: Default::default(),
            start1: Default::default(),
            last2: Default::default(),
            addr4: Default::default(),
            act_lane: Default::default(),
            split: Default::default(),
            v_s1: Default::default(),
            v_s2: Default::default(),
            v_s3: Default::default(),
            v_s4: Default::default(),
            lane_s1: Default::default(),
            lane_s2: Default::default(),
            first_s1: Default::default(),
            last_s1: Default::default(),
            last_s2: Default::default(),
            addr_s1: Default::default(),
            addr_s2: Default::default(),
            addr_s3: Default::default(),
            addr_s4: Default::default(),
            word: Default::default(),
            c_lane_bits: c16(L.trailing_zeros() as usize),
            c_lane_mask: c16(L - 1),
            c_lane_id: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
        }
    }
}

impl<const L: usize, const SW: usize> Logic for ReadPipe<L, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v_s1, v_s2, v_s3, v_s4, lane_s1, lane_s2, first_s1, last_s1, last_s2,
            addr_s1, addr_s2, addr_s3, addr_s4
        );
        self.word.next = self.index.val() >> self.c_lane_bits.val();
        self.act_addr.next = bit_cast::<12, 16>(self.word.val());
        self.v_s1.d.next = self.issue.val();
        self.v_s2.d.next = self.v_s1.q.val();
        self.v_s3.d.next = self.v_s2.q.val();
        self.v_s4.d.next = self.v_s3.q.val();
        self.lane_s1.d.next = bit_cast::<4, 16>(self.index.val() & self.c_lane_mask.val());
        self.lane_s2.d.next = self.lane_s1.q.val();
        self.first_s1.d.next = self.first.val();
        self.last_s1.d.next = self.last.val();
        self.last_s2.d.next = self.last_s1.q.val();
        self.addr_s1.d.next = self.addr.val();
        self.addr_s2.d.next = self.addr_s1.q.val();
        self.addr_s3.d.next = self.addr_s2.q.val();
        self.addr_s4.d.next = self.addr_s3.q.val();
        if self.reset.val() {
            self.v_s1.d.next = false;
            self.v_s2.d.next = false;
            self.v_s3.d.next = false;
            self.v_s4.d.next = false;
        }
        self.split.word.next = self.act_data.val();
        self.act_lane.next = self.split.lanes[0].val();
        for j in 0..L {
            if self.lane_s2.q.val() == self.c_lane_id[j].val() {
                self.act_lane.next = self.split.lanes[j].val();
            }
        }
        self.v1.next = self.v_s1.q.val();
        self.v2.next = self.v_s2.q.val();
        self.v4.next = self.v_s4.q.val();
        self.start1.next = self.v_s1.q.val() & self.first_s1.q.val();
        self.last2.next = self.last_s2.q.val();
        self.addr4.next = self.addr_s4.q.val();
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize] ReadPipe<L, SW> {
        clock: yes,
        inputs: [reset, issue, index, first, last, addr, act_data],
        outputs: [act_addr, v1, v2, v4, start1, last2, addr4, act_lane],
        notes: [act_data: (true, L), act_lane: (true, 1)],
    }
}
