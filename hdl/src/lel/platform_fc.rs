//! PlatformFc: an FC core of L lanes as the platform holds it (docs/decisions.md D-LANES):
//! between a [`StreamUpsizer`] (K = L/4 of the platform's 32-bit beats to one of L bytes)
//! and a [`StreamDownsizer`] (back), so that its streams are the platform's, whatever L.
//! At 4 lanes both adapters are wires and this is the thesis's FC core.
//!
//! Its ports are [`FcCore`]'s with 32-bit `s_tdata` and `m_tdata`, and `adapt_reset`, which
//! empties the adapters (the platform's reset and I_STOP's flush, with its FIFOs). The
//! connections are a table ([`crate::wiring!`]): its Verilog is one assignment per
//! connection, so no simulator sees the valid and ready paths through the adapters as a
//! loop. Golden: the FC core's (`edgelearn_verif::lel::fc_core`) and the adapters'
//! (`edgelearn_verif::golden::stream_resize`). Tests: `tests/platform.rs` (8 lanes), every
//! platform test (4 lanes).

use super::fc_core::FcCore;
use super::stream_resize::{StreamDownsizer, StreamUpsizer};
use rust_hdl::prelude::*;

/// An FC core of L lanes behind 32-bit streams (`SW = 8L`, `WW = 6L`, `RW = 14L`,
/// `AW = 24L`, `K = L/4`; 10 classes).
#[derive(Clone, Debug, LogicBlock)]
pub struct PlatformFc<
    const L: usize,
    const SW: usize,
    const WW: usize,
    const RW: usize,
    const AW: usize,
    const K: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The core's synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Empty the adapters.
    pub adapt_reset: Signal<In, Bit>,
    /// Input stream data (four bytes).
    pub s_tdata: Signal<In, Bits<32>>,
    /// Input stream valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub s_tready: Signal<Out, Bit>,
    /// Input stream label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Output stream data (four bytes).
    pub m_tdata: Signal<Out, Bits<32>>,
    /// Output stream valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Output stream ready.
    pub m_tready: Signal<In, Bit>,
    /// Output stream label.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output stream last beat.
    pub m_tlast: Signal<Out, Bit>,
    /// Configuration (FC-core view of §4.5).
    pub model_cfg: Signal<In, Bits<32>>,
    /// LFSR seeds: [16:0] LC weights, [33:17] weight update.
    pub seeds: Signal<In, Bits<34>>,
    /// Instruction.
    pub instr: Signal<In, Bits<3>>,
    /// FSM state.
    pub layer_state: Signal<Out, Bits<4>>,
    /// LC outputs.
    pub lc_data_out: Signal<Out, Bits<230>>,
    /// New LC outputs.
    pub lc_valid: Signal<Out, Bit>,
    /// Class.
    pub class_num: Signal<Out, Bits<4>>,
    /// Class valid.
    pub classify_done: Signal<Out, Bit>,
    fc: FcCore<L, 10, SW, WW, RW, AW, 230, 60, 80>,
    up: StreamUpsizer<32, SW, K>,
    down: StreamDownsizer<SW, 32, K>,
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
    > PlatformFc<L, SW, WW, RW, AW, K>
{
    /// The core `fc` behind its adapters.
    pub fn new(fc: FcCore<L, 10, SW, WW, RW, AW, 230, 60, 80>) -> Self {
        assert!(K * 4 == L, "PlatformFc<{L}, .., {K}>: K = L/4");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            adapt_reset: Default::default(),
            s_tdata: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_tuser: Default::default(),
            m_tdata: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_tuser: Default::default(),
            m_tlast: Default::default(),
            model_cfg: Default::default(),
            seeds: Default::default(),
            instr: Default::default(),
            layer_state: Default::default(),
            lc_data_out: Default::default(),
            lc_valid: Default::default(),
            class_num: Default::default(),
            classify_done: Default::default(),
            fc,
            up: Default::default(),
            down: Default::default(),
        }
    }
}

crate::wiring! {
    impl[const L: usize, const SW: usize, const WW: usize, const RW: usize, const AW: usize, const K: usize]
        PlatformFc<L, SW, WW, RW, AW, K>
    {
        fc.clock <= clock;
        up.clock <= clock;
        down.clock <= clock;
        fc.reset <= reset;
        up.reset <= adapt_reset;
        down.reset <= adapt_reset;
        // In: s_* -> up -> fc.s_* (no TLAST: a word is K beats).
        up.s_tdata <= s_tdata;
        up.s_tvalid <= s_tvalid;
        up.s_tuser <= s_tuser;
        s_tready <= up.s_tready;
        fc.s_tdata <= up.m_tdata;
        fc.s_tvalid <= up.m_tvalid;
        fc.s_tuser <= up.m_tuser;
        up.m_tready <= fc.s_tready;
        // Out: fc.m_* -> down -> m_*.
        down.s_tdata <= fc.m_tdata;
        down.s_tvalid <= fc.m_tvalid;
        down.s_tuser <= fc.m_tuser;
        down.s_tlast <= fc.m_tlast;
        fc.m_tready <= down.s_tready;
        m_tdata <= down.m_tdata;
        m_tvalid <= down.m_tvalid;
        m_tuser <= down.m_tuser;
        m_tlast <= down.m_tlast;
        down.m_tready <= m_tready;
        // The rest is the core's.
        fc.model_cfg <= model_cfg;
        fc.seeds <= seeds;
        fc.instr <= instr;
        layer_state <= fc.layer_state;
        lc_data_out <= fc.lc_data_out;
        lc_valid <= fc.lc_valid;
        class_num <= fc.class_num;
        classify_done <= fc.classify_done;
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
    > Logic for PlatformFc<L, SW, WW, RW, AW, K>
{
    fn update(&mut self) {
        self.up.s_tlast.next = false;
        self.update_wires();
    }

    fn connect(&mut self) {
        self.up.s_tlast.connect();
        self.connect_wires();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("// One assignment per connection (D-LANES).\n");
        for (d, s) in Self::wires() {
            v += &match d.as_str() {
                // The constant rides with a connection (an always block reading nothing
                // never runs).
                "up$s_tvalid" => format!("always @(*) begin {d} = {s}; up$s_tlast = 1'b0; end\n"),
                _ => format!("always @(*) {d} = {s};\n"),
            };
        }
        Verilog::Custom(v)
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
    > crate::design::HasMemories for PlatformFc<L, SW, WW, RW, AW, K>
{
    /// The core's memories, `PATH.fc...`.
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        self.fc
            .visit_memories(&crate::design::join_path(path, "fc"), f);
    }
}
