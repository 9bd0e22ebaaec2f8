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
//! (1..=32) entries of D + 5 bits. The Verilog is written by hand: three arrays written at the
//! write pointer and read (combinationally) at the read pointer, so a simulator evaluates one
//! write and one read per cycle instead of a multiplexer over every entry (distributed RAM on
//! an FPGA). Every entry starts at 0, as rust-hdl's registers do.
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
    /// Entries held when full (N; coverage finds a FIFO by it, `edgelearn_hdl::cover`).
    depth: Constant<Bits<6>>,
    _mem: Vec<(Bits<D>, Bits<4>, bool)>,
    _wptr: usize,
    _rptr: usize,
    _fill: usize,
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
            depth: Constant::new(Bits::<6>::from(N as u64)),
            _mem: vec![(Bits::default(), Bits::default(), false); N],
            _wptr: 0,
            _rptr: 0,
            _fill: 0,
        }
    }
}

impl<const D: usize, const N: usize> Logic for StreamFifo<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let pop = self._fill > 0 && self.out_ready.val();
            let put = self.push.val() && (self._fill != N || pop);
            if put {
                self._mem[self._wptr] =
                    (self.in_data.val(), self.in_user.val(), self.in_last.val());
            }
            if self.reset.val() {
                self._wptr = 0;
                self._rptr = 0;
                self._fill = 0;
            } else {
                if put {
                    self._wptr = (self._wptr + 1) % N;
                }
                if pop {
                    self._rptr = (self._rptr + 1) % N;
                }
                if put && !pop {
                    self._fill += 1;
                } else if pop && !put {
                    self._fill -= 1;
                }
            }
        }
        let (d, u, l) = self._mem[self._rptr];
        self.out_valid.next = self._fill > 0;
        self.count.next = Bits::<6>::from(self._fill as u64);
        self.out_data.next = d;
        self.out_user.next = u;
        self.out_last.next = l;
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.out_data.connect();
        self.out_user.connect();
        self.out_last.connect();
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{dm}:0] mem_data [0:{nm}];
reg [3:0] mem_user [0:{nm}];
reg mem_last [0:{nm}];
reg [4:0] wptr;
reg [4:0] rptr;
reg [5:0] fill;
integer i;
initial begin
   for (i = 0; i < {N}; i = i + 1) begin
      mem_data[i] = {D}'d0;
      mem_user[i] = 4'd0;
      mem_last[i] = 1'b0;
   end
   wptr = 5'd0;
   rptr = 5'd0;
   fill = 6'd0;
end
wire pop = (fill != 6'd0) && out_ready;
wire put = push && ((fill != depth) || pop);
always @(posedge clock) begin
   if (put) begin
      mem_data[wptr] <= in_data;
      mem_user[wptr] <= in_user;
      mem_last[wptr] <= in_last;
   end
   if (reset) begin
      wptr <= 5'd0;
      rptr <= 5'd0;
      fill <= 6'd0;
   end else begin
      if (put) wptr <= (wptr == 5'd{nm}) ? 5'd0 : wptr + 5'd1;
      if (pop) rptr <= (rptr == 5'd{nm}) ? 5'd0 : rptr + 5'd1;
      if (put && !pop) fill <= fill + 6'd1;
      else if (pop && !put) fill <= fill - 6'd1;
   end
end
always @(*) begin
   out_valid = fill != 6'd0;
   count = fill;
   out_data = mem_data[rptr];
   out_user = mem_user[rptr];
   out_last = mem_last[rptr];
end
",
            dm = D - 1,
            nm = N - 1,
        ))
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
