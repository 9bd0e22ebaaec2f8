//! StreamFifo: a small first-word-fall-through FIFO that drives an AXI-Stream master port
//! (spec lel-platform.md §4.1): the cores push results into it and it keeps the stream rules
//! whatever the consumer does. `out_valid` depends only on the FIFO's own state (never on
//! `out_ready`), and the head beat stays put until it moves.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: empty |
//! | `push` | in | 1 | write `in_data`/`in_user`/`in_last` (ignored when full) |
//! | `in_data` | in | D | data |
//! | `in_user` | in | 4 | TUSER sideband (the label) |
//! | `in_last` | in | 1 | TLAST sideband |
//! | `out_ready` | in | 1 | the consumer takes the head beat when `out_valid` is high |
//! | `out_valid` | out | 1 | the FIFO is not empty |
//! | `out_data` | out | D | head beat |
//! | `out_user` | out | 4 | head beat's TUSER |
//! | `out_last` | out | 1 | head beat's TLAST |
//! | `count` | out | 6 | beats held (for the producer's credit check) |
//!
//! Timing: a beat pushed at edge c is on the outputs from cycle c+1; a push into a full FIFO
//! is dropped unless a beat leaves at the same edge (producers check `count` first). Depth N
//! (1..=32) registers of D + 5 bits; reads and writes go through a loop over the entries, so
//! the emitted Verilog is a plain register file.
//! Golden: `edgelearn_verif::golden::stream_fifo`. Tests: `tests/stream_fifo.rs`.

use rust_hdl::prelude::*;

/// Four 8-bit lanes per beat, 8 beats: the FC and conv cores' output FIFO.
pub type CoreFifo = StreamFifo<32, 8>;

/// N-deep FWFT FIFO of D-bit beats with TUSER (4 bits) and TLAST.
#[derive(Clone, Debug, LogicBlock)]
pub struct StreamFifo<const D: usize, const N: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Write a beat.
    pub push: Signal<In, Bit>,
    /// Beat data.
    pub in_data: Signal<In, Bits<D>>,
    /// Beat TUSER.
    pub in_user: Signal<In, Bits<4>>,
    /// Beat TLAST.
    pub in_last: Signal<In, Bit>,
    /// Consumer ready.
    pub out_ready: Signal<In, Bit>,
    /// Head beat valid.
    pub out_valid: Signal<Out, Bit>,
    /// Head beat data.
    pub out_data: Signal<Out, Bits<D>>,
    /// Head beat TUSER.
    pub out_user: Signal<Out, Bits<4>>,
    /// Head beat TLAST.
    pub out_last: Signal<Out, Bit>,
    /// Beats held.
    pub count: Signal<Out, Bits<6>>,
    data: [DFF<Bits<D>>; N],
    user: [DFF<Bits<4>>; N],
    last: [DFF<Bit>; N],
    wptr: DFF<Bits<5>>,
    rptr: DFF<Bits<5>>,
    fill: DFF<Bits<6>>,
    head_data: Signal<Local, Bits<D>>,
    head_user: Signal<Local, Bits<4>>,
    head_last: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    put: Signal<Local, Bit>,
    id: [Constant<Bits<5>>; N],
    top: Constant<Bits<5>>,
    depth: Constant<Bits<6>>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
}

impl<const D: usize, const N: usize> Default for StreamFifo<D, N> {
    fn default() -> Self {
        assert!(
            (1..=32).contains(&N) && D >= 1,
            "StreamFifo<{D}, {N}>: need 1 <= N <= 32"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            in_data: Default::default(),
            in_user: Default::default(),
            in_last: Default::default(),
            out_ready: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_user: Default::default(),
            out_last: Default::default(),
            count: Default::default(),
            data: array_init::array_init(|_| Default::default()),
            user: array_init::array_init(|_| Default::default()),
            last: array_init::array_init(|_| Default::default()),
            wptr: Default::default(),
            rptr: Default::default(),
            fill: Default::default(),
            head_data: Default::default(),
            head_user: Default::default(),
            head_last: Default::default(),
            pop: Default::default(),
            put: Default::default(),
            id: array_init::array_init(|j| Constant::new(Bits::<5>::from(j as u64))),
            top: Constant::new(Bits::<5>::from((N - 1) as u64)),
            depth: Constant::new(Bits::<6>::from(N as u64)),
            one5: Constant::new(Bits::<5>::from(1u64)),
            one6: Constant::new(Bits::<6>::from(1u64)),
        }
    }
}

impl<const D: usize, const N: usize> Logic for StreamFifo<D, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wptr, rptr, fill);
        self.pop.next = self.fill.q.val().any() & self.out_ready.val();
        self.put.next =
            self.push.val() & ((self.fill.q.val() != self.depth.val()) | self.pop.val());
        self.head_data.next = 0.into();
        self.head_user.next = 0.into();
        self.head_last.next = false;
        for j in 0..N {
            self.data[j].clock.next = self.clock.val();
            self.user[j].clock.next = self.clock.val();
            self.last[j].clock.next = self.clock.val();
            self.data[j].d.next = self.data[j].q.val();
            self.user[j].d.next = self.user[j].q.val();
            self.last[j].d.next = self.last[j].q.val();
            if self.put.val() & (self.wptr.q.val() == self.id[j].val()) {
                self.data[j].d.next = self.in_data.val();
                self.user[j].d.next = self.in_user.val();
                self.last[j].d.next = self.in_last.val();
            }
            if self.rptr.q.val() == self.id[j].val() {
                self.head_data.next = self.data[j].q.val();
                self.head_user.next = self.user[j].q.val();
                self.head_last.next = self.last[j].q.val();
            }
        }
        if self.put.val() {
            self.wptr.d.next = self.wptr.q.val() + self.one5.val();
            if self.wptr.q.val() == self.top.val() {
                self.wptr.d.next = 0.into();
            }
        }
        if self.pop.val() {
            self.rptr.d.next = self.rptr.q.val() + self.one5.val();
            if self.rptr.q.val() == self.top.val() {
                self.rptr.d.next = 0.into();
            }
        }
        if self.put.val() & !self.pop.val() {
            self.fill.d.next = self.fill.q.val() + self.one6.val();
        }
        if self.pop.val() & !self.put.val() {
            self.fill.d.next = self.fill.q.val() - self.one6.val();
        }
        if self.reset.val() {
            self.wptr.d.next = 0.into();
            self.rptr.d.next = 0.into();
            self.fill.d.next = 0.into();
        }
        self.out_valid.next = self.fill.q.val().any();
        self.count.next = self.fill.q.val();
        // Outputs are assigned once per evaluation (docs/decisions.md D-HDLGEN).
        self.out_data.next = self.head_data.val();
        self.out_user.next = self.head_user.val();
        self.out_last.next = self.head_last.val();
    }
}

crate::dut_io! {
    impl[const D: usize, const N: usize] StreamFifo<D, N> {
        clock: yes,
        inputs: [reset, push, in_data, in_user, in_last, out_ready],
        outputs: [out_valid, out_data, out_user, out_last, count],
        notes: [],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_fifo_is_synthesizable() {
        crate::synth_check::assert_synthesizable("stream_fifo", CoreFifo::default());
    }
}
