//! StreamUpsizer and StreamDownsizer: AXI-Stream width adapters (as verilog-axis's
//! `axis_adapter`) between the platform's 32-bit FIFOs and an FC core of more lanes
//! (docs/decisions.md D-LANES). K narrow beats make one wide beat, the first in the low bits;
//! with K = 1 both are wires, so a 4-lane platform is the thesis's, cycle for cycle.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: nothing held, outputs 0 |
//! | `s_tdata` | in | IW | input beat |
//! | `s_tuser` | in | 4 | input TUSER |
//! | `s_tlast` | in | 1 | input TLAST |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | the input beat is taken when `s_tvalid & s_tready` |
//! | `m_tdata` | out | OW | output beat |
//! | `m_tuser` | out | 4 | output TUSER |
//! | `m_tlast` | out | 1 | output TLAST |
//! | `m_tvalid` | out | 1 | output beat valid (never waits for `m_tready`) |
//! | `m_tready` | in | 1 | the output beat moves when `m_tvalid & m_tready` |
//!
//! Upsizer (OW = K IW): narrow beats fill lanes 0, 1, ... of a word; the K-th, or one with
//! TLAST, completes it (lanes not filled are 0; its TUSER and TLAST are the completing
//! beat's). The lanes before the last are registers; the last goes through: `m_tvalid` is
//! `s_tvalid` on the completing beat, and `s_tready` is `m_tready`, so a narrow beat is
//! taken only when the consumer would take a word. The adapter therefore never takes a beat
//! the consumer does not want (the platform's INIT hands FC0 exactly its words, then FC1
//! its own, from one FIFO); at full rate a wide beat moves every K cycles.
//!
//! Downsizer (IW = K OW): a wide beat is held and sent lane by lane, lane 0 first, TUSER on
//! each, TLAST on the last lane of a TLAST beat. `s_tready` is `!held | (m_tready & last
//! lane)`: the next wide beat is taken at the edge that sends the held one's last lane.
//!
//! Both write their Verilog by hand (one `always @(posedge clock)`, and a combinational block
//! per output so that no simulator sees a path through the adapter as a loop), and K = 1 as
//! plain assignments.
//! Golden: `edgelearn_verif::golden::stream_resize`. Tests: `tests/stream_resize.rs`.

use rust_hdl::prelude::*;

/// K narrow beats of IW bits to one of OW = K IW bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct StreamUpsizer<const IW: usize, const OW: usize, const K: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input beat.
    pub s_tdata: Signal<In, Bits<IW>>,
    /// Input TUSER.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Input TLAST.
    pub s_tlast: Signal<In, Bit>,
    /// Input valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input ready.
    pub s_tready: Signal<Out, Bit>,
    /// Output beat.
    pub m_tdata: Signal<Out, Bits<OW>>,
    /// Output TUSER.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output TLAST.
    pub m_tlast: Signal<Out, Bit>,
    /// Output valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Consumer ready.
    pub m_tready: Signal<In, Bit>,
    _word: Bits<OW>,
    _n: usize,
}

/// One beat of IW bits to K of OW = IW / K bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct StreamDownsizer<const IW: usize, const OW: usize, const K: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input beat.
    pub s_tdata: Signal<In, Bits<IW>>,
    /// Input TUSER.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Input TLAST.
    pub s_tlast: Signal<In, Bit>,
    /// Input valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input ready.
    pub s_tready: Signal<Out, Bit>,
    /// Output beat.
    pub m_tdata: Signal<Out, Bits<OW>>,
    /// Output TUSER.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output TLAST.
    pub m_tlast: Signal<Out, Bit>,
    /// Output valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Consumer ready.
    pub m_tready: Signal<In, Bit>,
    _held: (Bits<IW>, Bits<4>, bool),
    _valid: bool,
    _lane: usize,
}

macro_rules! resize_default {
    ($name:ident, $check:expr, $($field:ident: $init:expr),*) => {
        impl<const IW: usize, const OW: usize, const K: usize> Default for $name<IW, OW, K> {
            fn default() -> Self {
                assert!($check, "{}<{IW}, {OW}, {K}>: widths do not match K", stringify!($name));
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
                    $($field: $init),*
                }
            }
        }
    };
}

resize_default!(StreamUpsizer, K >= 1 && OW == K * IW, _word: Bits::default(), _n: 0);
resize_default!(
    StreamDownsizer,
    K >= 1 && IW == K * OW,
    _held: (Bits::default(), Bits::default(), false),
    _valid: false,
    _lane: 0
);

/// K = 1: the adapter is wires (one block each, so that no simulator sees the valid and
/// ready paths as one loop).
const PASS_THROUGH: &str = "\
always @(*) m_tdata = s_tdata;
always @(*) m_tuser = s_tuser;
always @(*) m_tlast = s_tlast;
always @(*) m_tvalid = s_tvalid;
always @(*) s_tready = m_tready;
";

impl<const IW: usize, const OW: usize, const K: usize> StreamUpsizer<IW, OW, K> {
    fn pass_through(&mut self) {
        self.m_tdata.next = bit_cast::<OW, IW>(self.s_tdata.val());
        self.m_tuser.next = self.s_tuser.val();
        self.m_tlast.next = self.s_tlast.val();
        self.m_tvalid.next = self.s_tvalid.val();
        self.s_tready.next = self.m_tready.val();
    }
}

impl<const IW: usize, const OW: usize, const K: usize> Logic for StreamUpsizer<IW, OW, K> {
    fn update(&mut self) {
        if K == 1 {
            return self.pass_through();
        }
        let completes = self._n + 1 == K || self.s_tlast.val();
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._word = Bits::default();
                self._n = 0;
            } else if self.s_tvalid.val() && self.m_tready.val() {
                if completes {
                    self._word = Bits::default();
                    self._n = 0;
                } else {
                    self._word.set_bits::<IW>(self._n * IW, self.s_tdata.val());
                    self._n += 1;
                }
            }
        }
        let completes = self._n + 1 == K || self.s_tlast.val();
        let mut word = self._word;
        word.set_bits::<IW>(self._n * IW, self.s_tdata.val());
        self.m_tdata.next = word;
        self.m_tuser.next = self.s_tuser.val();
        self.m_tlast.next = self.s_tlast.val();
        self.m_tvalid.next = self.s_tvalid.val() && completes;
        self.s_tready.next = self.m_tready.val();
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tuser.connect();
        self.m_tlast.connect();
        self.m_tvalid.connect();
    }

    fn hdl(&self) -> Verilog {
        if K == 1 {
            return Verilog::Custom(PASS_THROUGH.to_string());
        }
        // The held lanes with the arriving beat in lane n.
        let lanes: String = (0..K)
            .map(|i| {
                format!(
                    "      {i}: m_tdata[{hi}:{lo}] = s_tdata;\n",
                    hi = (i + 1) * IW - 1,
                    lo = i * IW
                )
            })
            .collect();
        Verilog::Custom(format!(
            "\
reg [{owm}:0] held;
reg [7:0] n;

always @(*) begin
   m_tdata = held;
   case (n)
{lanes}      default: ;
   endcase
end

always @(*) m_tuser = s_tuser;
always @(*) m_tlast = s_tlast;
always @(*) m_tvalid = s_tvalid && (n == 8'd{km} || s_tlast);
always @(*) s_tready = m_tready;

always @(posedge clock) begin
   if (reset) begin
      held <= {OW}'d0;
      n <= 8'd0;
   end else if (s_tvalid && m_tready) begin
      if (n == 8'd{km} || s_tlast) begin
         held <= {OW}'d0;
         n <= 8'd0;
      end else begin
         held <= m_tdata;
         n <= n + 8'd1;
      end
   end
end
",
            owm = OW - 1,
            km = K - 1,
        ))
    }
}

impl<const IW: usize, const OW: usize, const K: usize> StreamDownsizer<IW, OW, K> {
    /// The outputs from the held beat and the lane being sent.
    fn outputs(&mut self) {
        let (data, user, last) = self._held;
        self.m_tdata.next = data.get_bits::<OW>(self._lane * OW);
        self.m_tuser.next = user;
        self.m_tlast.next = last && self._lane + 1 == K;
        self.m_tvalid.next = self._valid;
        self.s_tready.next = !self._valid || (self.m_tready.val() && self._lane + 1 == K);
    }
}

impl<const IW: usize, const OW: usize, const K: usize> Logic for StreamDownsizer<IW, OW, K> {
    fn update(&mut self) {
        if K == 1 {
            self.m_tdata.next = bit_cast::<OW, IW>(self.s_tdata.val());
            self.m_tuser.next = self.s_tuser.val();
            self.m_tlast.next = self.s_tlast.val();
            self.m_tvalid.next = self.s_tvalid.val();
            self.s_tready.next = self.m_tready.val();
            return;
        }
        if self.clock.pos_edge() {
            let take = self.s_tvalid.val()
                && (!self._valid || (self.m_tready.val() && self._lane + 1 == K));
            if self.reset.val() {
                self._held = (Bits::default(), Bits::default(), false);
                self._valid = false;
                self._lane = 0;
            } else {
                if self._valid && self.m_tready.val() {
                    if self._lane + 1 == K {
                        self._valid = false;
                        self._lane = 0;
                    } else {
                        self._lane += 1;
                    }
                }
                if take {
                    self._held = (self.s_tdata.val(), self.s_tuser.val(), self.s_tlast.val());
                    self._valid = true;
                    self._lane = 0;
                }
            }
        }
        self.outputs();
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tuser.connect();
        self.m_tlast.connect();
        self.m_tvalid.connect();
    }

    fn hdl(&self) -> Verilog {
        if K == 1 {
            return Verilog::Custom(PASS_THROUGH.to_string());
        }
        let lanes: String = (0..K)
            .map(|i| {
                format!(
                    "      {i}: m_tdata = held[{hi}:{lo}];\n",
                    hi = (i + 1) * OW - 1,
                    lo = i * OW
                )
            })
            .collect();
        Verilog::Custom(format!(
            "\
reg [{iwm}:0] held;
reg [3:0] held_user;
reg held_last;
reg held_valid;
reg [7:0] lane;

// The lane being sent of the held beat.
always @(*) begin
   m_tdata = {OW}'d0;
   case (lane)
{lanes}      default: ;
   endcase
end

always @(*) m_tuser = held_user;
always @(*) m_tlast = held_last && lane == 8'd{km};
always @(*) m_tvalid = held_valid;
always @(*) s_tready = !held_valid || (m_tready && lane == 8'd{km});

always @(posedge clock) begin
   if (reset) begin
      held <= {IW}'d0;
      held_user <= 4'd0;
      held_last <= 1'b0;
      held_valid <= 1'b0;
      lane <= 8'd0;
   end else begin
      if (held_valid && m_tready) begin
         if (lane == 8'd{km}) begin
            held_valid <= 1'b0;
            lane <= 8'd0;
         end else
            lane <= lane + 8'd1;
      end
      if (s_tvalid && (!held_valid || (m_tready && lane == 8'd{km}))) begin
         held <= s_tdata;
         held_user <= s_tuser;
         held_last <= s_tlast;
         held_valid <= 1'b1;
         lane <= 8'd0;
      end
   end
end
",
            iwm = IW - 1,
            km = K - 1,
        ))
    }
}

crate::dut_io! {
    impl[const IW: usize, const OW: usize, const K: usize] StreamUpsizer<IW, OW, K> {
        clock: yes,
        inputs: [reset, s_tdata, s_tuser, s_tlast, s_tvalid, m_tready],
        outputs: [s_tready, m_tdata, m_tuser, m_tlast, m_tvalid],
        notes: [],
    }
}

crate::dut_io! {
    impl[const IW: usize, const OW: usize, const K: usize] StreamDownsizer<IW, OW, K> {
        clock: yes,
        inputs: [reset, s_tdata, s_tuser, s_tlast, s_tvalid, m_tready],
        outputs: [s_tready, m_tdata, m_tuser, m_tlast, m_tvalid],
        notes: [],
    }
}
