//! StreamSlice: an AXI-Stream register slice (a two-entry skid buffer, as verilog-axis's
//! `axis_register` with REG_TYPE 2) for the platform's top-level streams. Every output is a
//! flip-flop: nothing inside the platform depends combinationally on the bench's `s_*` or
//! `m_tready`, so the simulators evaluate the platform's logic once per cycle instead of
//! twice (docs/decisions.md D-PLATFORM-PORTS).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: empty, outputs 0 |
//! | `s_tdata` | in | D | input beat |
//! | `s_tuser` | in | U | input TUSER |
//! | `s_tlast` | in | 1 | input TLAST |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | the skid entry is empty (a register: never depends on `s_tvalid`) |
//! | `m_tdata` | out | D | output beat (the output register) |
//! | `m_tuser` | out | U | output TUSER |
//! | `m_tlast` | out | 1 | output TLAST |
//! | `m_tvalid` | out | 1 | the output register holds a beat |
//! | `m_tready` | in | 1 | the output beat moves when `m_tvalid & m_tready` |
//!
//! Timing: a beat taken at edge t is on `m_*` from cycle t + 1. With `m_tready` high the
//! slice moves one beat per cycle. When the output stalls, the next beat taken goes to the
//! skid entry and `s_tready` falls; when the output moves again the skid beat becomes the
//! output and `s_tready` rises at the next edge. The output register holds while stalled.
//! The Verilog is written by hand (one `always @(posedge clock)`, one assignment for
//! `s_tready`) so that no combinational statement reads an input.
//! Golden: `edgelearn_verif::golden::stream_slice`. Tests: `tests/core_blocks.rs`.

use rust_hdl::prelude::*;

/// Register slice of D-bit beats with a U-bit TUSER and TLAST.
#[derive(Clone, Debug, LogicBlock)]
pub struct StreamSlice<const D: usize, const U: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input beat.
    pub s_tdata: Signal<In, Bits<D>>,
    /// Input TUSER.
    pub s_tuser: Signal<In, Bits<U>>,
    /// Input TLAST.
    pub s_tlast: Signal<In, Bit>,
    /// Input valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input ready (registered).
    pub s_tready: Signal<Out, Bit>,
    /// Output beat.
    pub m_tdata: Signal<Out, Bits<D>>,
    /// Output TUSER.
    pub m_tuser: Signal<Out, Bits<U>>,
    /// Output TLAST.
    pub m_tlast: Signal<Out, Bit>,
    /// Output valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Consumer ready.
    pub m_tready: Signal<In, Bit>,
    _skid: (Bits<D>, Bits<U>, bool),
    _skid_valid: bool,
}

impl<const D: usize, const U: usize> Default for StreamSlice<D, U> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tuser: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tuser: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            _skid: (Bits::default(), Bits::default(), false),
            _skid_valid: false,
        }
    }
}

impl<const D: usize, const U: usize> Logic for StreamSlice<D, U> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.m_tvalid.next = false;
                self.m_tdata.next = Bits::default();
                self.m_tuser.next = Bits::default();
                self.m_tlast.next = false;
                self._skid = (Bits::default(), Bits::default(), false);
                self._skid_valid = false;
            } else if !self.m_tvalid.val() || self.m_tready.val() {
                // The output register is free at this edge.
                if self._skid_valid {
                    let (d, u, l) = self._skid;
                    self.m_tdata.next = d;
                    self.m_tuser.next = u;
                    self.m_tlast.next = l;
                    self.m_tvalid.next = true;
                    self._skid_valid = false;
                } else {
                    self.m_tvalid.next = self.s_tvalid.val();
                    if self.s_tvalid.val() {
                        self.m_tdata.next = self.s_tdata.val();
                        self.m_tuser.next = self.s_tuser.val();
                        self.m_tlast.next = self.s_tlast.val();
                    }
                }
            } else if self.s_tvalid.val() && !self._skid_valid {
                self._skid = (self.s_tdata.val(), self.s_tuser.val(), self.s_tlast.val());
                self._skid_valid = true;
            }
        }
        self.s_tready.next = !self._skid_valid;
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tuser.connect();
        self.m_tlast.connect();
        self.m_tvalid.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{dm}:0] skid_data;
reg [{um}:0] skid_user;
reg skid_last;
reg skid_valid;

always @(*) s_tready = !skid_valid;

always @(posedge clock) begin
   if (reset) begin
      m_tvalid <= 1'b0;
      m_tdata <= {D}'d0;
      m_tuser <= {U}'d0;
      m_tlast <= 1'b0;
      skid_data <= {D}'d0;
      skid_user <= {U}'d0;
      skid_last <= 1'b0;
      skid_valid <= 1'b0;
   end else if (!m_tvalid || m_tready) begin
      if (skid_valid) begin
         m_tdata <= skid_data;
         m_tuser <= skid_user;
         m_tlast <= skid_last;
         m_tvalid <= 1'b1;
         skid_valid <= 1'b0;
      end else begin
         m_tvalid <= s_tvalid;
         if (s_tvalid) begin
            m_tdata <= s_tdata;
            m_tuser <= s_tuser;
            m_tlast <= s_tlast;
         end
      end
   end else if (s_tvalid && !skid_valid) begin
      skid_data <= s_tdata;
      skid_user <= s_tuser;
      skid_last <= s_tlast;
      skid_valid <= 1'b1;
   end
end
",
            dm = D - 1,
            um = U - 1,
        ))
    }
}

crate::dut_io! {
    impl[const D: usize, const U: usize] StreamSlice<D, U> {
        clock: yes,
        inputs: [reset, s_tdata, s_tuser, s_tlast, s_tvalid, m_tready],
        outputs: [s_tready, m_tdata, m_tuser, m_tlast, m_tvalid],
        notes: [],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_slice_is_synthesizable() {
        crate::synth_check::assert_synthesizable("stream_slice", StreamSlice::<32, 4>::default());
    }
}
