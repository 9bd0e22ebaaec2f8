//! LelPlatform: the multi-core LEL platform (thesis §4.3, T:1314-1365; spec lel-platform.md
//! §4.4-§4.6, §7-18, §7-21..§7-24, §7-30, §7-35, §7-36): the conv core, FC core 0 and FC
//! core 1 in a pipeline with block-RAM FIFOs between them, the label carried with the data
//! (TUSER), one classification result and one correct-counter per FC core
//! ([`ResultTally`]), the `PL_*` FSM that sequences the cores' instructions over N images
//! ([`PlFsm`]), each core's last visit ([`VisitCycles`]), and a register file.
//!
//! ```text
//!  s_* --> [slice] --> [in FIFO] --+--> conv core --> [mid FIFO] --> FC core 0 --> [out FIFO] --> FC core 1
//!                                  |  (PL_INIT: FC0's, then FC1's weight words)  |  (PL_READ) | (PL_READ)
//!                                  +---------------------------------------------+-> [slice] -> m_*
//! ```
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high, registered: PL_IDLE, FIFOs and registers 0 at the next edge, the cores reset one edge later (each core registers its reset on its own clock, D-SIM-GATE) |
//! | `s_tdata` | in | 32 | input stream: INIT weight words (FC0's, then FC1's) or images (4 int8 pixels per beat, CHW) |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | the input slice has room (a register) |
//! | `s_tuser` | in | 4 | the image's label (every beat of an image) |
//! | `s_tlast` | in | 1 | stored, not used (images are counted in beats) |
//! | `m_tdata` | out | 32 | output stream: the weight words in PL_READ (INIT's format) |
//! | `m_tvalid` | out | 1 | output beat valid |
//! | `m_tready` | in | 1 | output beat taken |
//! | `m_tuser` | out | 4 | the FC core the word comes from (0, 1) |
//! | `m_tlast` | out | 1 | the core's last word |
//! | `reg_addr` | in | 8 | register word address ([`regs`]; byte address / 4) |
//! | `reg_wdata` | in | 32 | write data |
//! | `reg_we` | in | 1 | write `reg_wdata` to `reg_addr`: taken at this edge, done at the next |
//! | `reg_rdata` | out | 32 | the register at `reg_addr` (combinational; reads have no side effects) |
//!
//! Port stage (docs/decisions.md D-PLATFORM-PORTS): [`LelPlatform`] is a hand-written shell
//! around [`PlatformCore`] in which no logic depends combinationally on an input: `reset` and
//! the register write port pass through flip-flops, each stream through a [`StreamSlice`]
//! (one cycle of latency, full rate), and only `reg_rdata` is combinational, from `reg_addr`
//! through [`RegRead`]. A register write therefore takes effect one edge after the port
//! takes it, which the CTRL-driven counters do not see (they count from the FSM's start).
//!
//! Sequencing (docs/decisions.md D-PLATFORM): a CTRL write of I_INIT, I_TRAIN, I_INF or
//! I_READ starts PL_INIT, PL_TRAIN, PL_INF or PL_READ from PL_IDLE; I_STOP stops any state.
//! PL_INIT gives FC0, then FC1, I_INIT and routes the input stream to it; PL_READ does the
//! same with I_READ and routes the core's output to `m_*`. PL_TRAIN / PL_INF run N_TRAIN /
//! N_TEST images: the conv core starts an image when the input FIFO holds all of it and the
//! mid FIFO has room for its output; FC0 starts when the mid FIFO holds a whole image, FC1
//! when the out FIFO does. Each core gets I_TRAIN (I_INF) from IDLE until its FIN and I_IDLE
//! for the FIN cycle (§7-18), so an image follows the last after one IDLE cycle. The run
//! ends when every core has taken N images, both FC cores have classified N and all are idle.
//! The sub-blocks named here are triads of their own (a golden twin, a bench).
//!
//! Lanes (docs/decisions.md D-LANES): the FC cores have L = 4 (the thesis, [`LelPlatform`])
//! or 8 lanes ([`LelPlatformL8`]), each held as a [`PlatformFc`] between width adapters, so
//! the streams, FIFOs, conv core and registers above are the same at every L. A core's
//! PL_READ words still in its downsizer when its READ ends keep `m_*` (`rd_tail0/1`).
//! Golden: `edgelearn_verif::lel::network`. Tests: `tests/platform.rs`.

use super::conv_core::{ConvCore, ConvCoreShape, CONV_FIFO_DEPTH};
use super::fc_core::{FcCore, FcCoreShape};
use super::packet_fifo::PacketFifo;
use super::pl_fsm::PlFsm;
use super::pl_regs::PlRegs;
use super::platform_fc::PlatformFc;
use super::result_tally::ResultTally;
use super::stream_slice::StreamSlice;
use super::visit_cycles::VisitCycles;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// A core's [`SimGate`] watches data and model_cfg in its first word ...
const WATCH: usize = 64;
/// ... and in the second the conv core's label 4, instr 3, valid, output ready and reset ...
const CONV_WATCH_HI: usize = 10;
/// ... or an FC core's seeds 34, label 4, instr 3, valid, output ready, reset and its
/// adapters' reset.
const FC_WATCH_HI: usize = 45;

/// The register file: word addresses (byte address / 4) and fields, generated from
/// `hdl/regs/lel_platform.toml` by `edgelearn regs` (docs/registers.md is the map).
pub use super::platform_regs as regs;

pub use super::pl_fsm::PlState;

/// What the platform is built from.
#[derive(Clone, Debug, PartialEq)]
pub struct PlatformShape {
    /// The conv core.
    pub conv: ConvCoreShape,
    /// Its kernels (`[c][dy][dx]`).
    pub kernels: Vec<i32>,
    /// FC core 0.
    pub fc0: FcCoreShape,
    /// FC core 1.
    pub fc1: FcCoreShape,
    /// The FC cores' lanes (4, the thesis, or 8; docs/decisions.md D-LANES).
    pub lanes: usize,
}

/// Bytes per beat of the platform's streams and FIFOs, whatever the FC cores' lanes.
const LANES: usize = 4;

/// The FC cores' lane counts a platform is built with.
pub const PLATFORM_LANES: [usize; 2] = [4, 8];

impl PlatformShape {
    /// Beats of one input image.
    pub fn image_beats(&self) -> usize {
        self.conv.in_channels * self.conv.height * self.conv.width / LANES
    }

    /// Beats of one conv output (FC0's input).
    pub fn conv_beats(&self) -> usize {
        let (oh, ow) = (self.conv.height - 2, self.conv.width - 2);
        self.conv.out_channels * (oh / self.conv.pool) * (ow / self.conv.pool) / LANES
    }

    /// 32-bit weight words of FC core `x` (four weights each, whatever its lanes).
    pub fn fc_words(&self, x: usize) -> usize {
        let s = if x == 0 { self.fc0 } else { self.fc1 };
        s.inputs * s.outputs / s.pieces / LANES
    }

    /// Depths of the input, mid and out FIFOs: the input FIFO holds an image, the mid FIFO
    /// an image plus the conv core's output FIFO, the out FIFO two of FC0's outputs.
    pub fn fifo_depths(&self) -> [usize; 3] {
        [
            self.image_beats().next_power_of_two(),
            (self.conv_beats() + CONV_FIFO_DEPTH).next_power_of_two(),
            (2 * self.fc0.outputs / LANES).next_power_of_two(),
        ]
    }

    /// The register map's parameters (`platform_regs::PARAMETERS`, docs/registers.md) for
    /// this shape: the numbers its registers' reset values name.
    pub fn register_parameters(&self) -> Vec<(&'static str, u32)> {
        let [d_in, d_mid, d_out] = self.fifo_depths();
        vec![
            ("IMAGE_BEATS", self.image_beats() as u32),
            ("IN_DEPTH", d_in as u32),
            ("MID_DEPTH", d_mid as u32),
            ("OUT_DEPTH", d_out as u32),
            ("FC0_WORDS", self.fc_words(0) as u32),
            ("FC1_WORDS", self.fc_words(1) as u32),
        ]
    }

    /// Why the cores do not chain, if they do not: `(config key, message)`.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        self.conv.check()?;
        if !PLATFORM_LANES.contains(&self.lanes) {
            return Err((
                "widths.lanes",
                format!(
                    "{}: the platform is built with {PLATFORM_LANES:?} lanes",
                    self.lanes
                ),
            ));
        }
        self.fc0.check(self.lanes).map_err(|m| ("fc[0]", m))?;
        self.fc1.check(self.lanes).map_err(|m| ("fc[1]", m))?;
        let conv_out = self.conv_beats() * LANES;
        if self.fc0.inputs != conv_out {
            return Err((
                "fc[0]",
                format!(
                    "FC core 0 has {} inputs, the conv core gives {conv_out}",
                    self.fc0.inputs
                ),
            ));
        }
        if self.fc1.inputs != self.fc0.outputs {
            return Err((
                "fc[1]",
                format!(
                    "FC core 1 has {} inputs, FC core 0 gives {}",
                    self.fc1.inputs, self.fc0.outputs
                ),
            ));
        }
        if self
            .fifo_depths()
            .iter()
            .any(|&d| d > super::packet_fifo::PACKET_FIFO_MAX_DEPTH)
        {
            return Err((
                "input",
                format!(
                    "an image of {} beats needs FIFOs deeper than {}",
                    self.image_beats(),
                    super::packet_fifo::PACKET_FIFO_MAX_DEPTH
                ),
            ));
        }
        Ok(())
    }
}

/// The platform's logic behind its port stage ([`Platform`]): the cores, the FIFOs, the
/// FSM and the registers. Its ports are the platform's, registered by the shell, plus the
/// register values (`rv_*`) and the streams' reset. The FC cores have L lanes (`SW = 8L`,
/// `WW = 6L`, `RW = 14L`, `AW = 24L`), each between width adapters of `K = L/4` 32-bit beats
/// and the 32-bit FIFOs (wires at 4 lanes).
#[derive(Clone, Debug, LogicBlock)]
pub struct PlatformCore<
    const L: usize,
    const SW: usize,
    const WW: usize,
    const RW: usize,
    const AW: usize,
    const K: usize,
    const CG: usize,
    const CP: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input stream data.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Input stream valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub s_tready: Signal<Out, Bit>,
    /// Input stream label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Input stream last beat.
    pub s_tlast: Signal<In, Bit>,
    /// Output stream data.
    pub m_tdata: Signal<Out, Bits<32>>,
    /// Output stream valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Output stream ready.
    pub m_tready: Signal<In, Bit>,
    /// Output stream core index.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output stream last word.
    pub m_tlast: Signal<Out, Bit>,
    /// Register address (words).
    pub reg_addr: Signal<In, Bits<8>>,
    /// Register write data.
    pub reg_wdata: Signal<In, Bits<32>>,
    /// Register write strobe.
    pub reg_we: Signal<In, Bit>,
    /// Reset of the shell's stream slices: `reset`, or I_STOP's flush.
    pub streams_reset: Signal<Out, Bit>,
    /// Registers 0x00..0x1f as read (to [`RegRead`]).
    pub rv_base: [Signal<Out, Bits<32>>; 32],
    /// LR_TABLE entries.
    pub rv_lr: [Signal<Out, Bits<6>>; 16],
    /// FC0's LC outputs (23-bit, signed).
    pub rv_lc0: [Signal<Out, Bits<23>>; 10],
    /// FC1's LC outputs.
    pub rv_lc1: [Signal<Out, Bits<23>>; 10],
    // Cores and FIFOs; each core's clock passes a simulation gate (D-SIM-GATE).
    conv: ConvCore<CG, CP>,
    // Each FC core behind its width adapters (wires at 4 lanes).
    fc0: PlatformFc<L, SW, WW, RW, AW, K>,
    fc1: PlatformFc<L, SW, WW, RW, AW, K>,
    // A core's downsizer still sending PL_READ's words after its READ ended (L > 4: the
    // core's last word is taken whole and leaves in K beats); its output stays on m_*.
    rd_tail0: DFF<Bit>,
    rd_tail1: DFF<Bit>,
    route0: Signal<Local, Bit>,
    route1: Signal<Local, Bit>,
    gate_conv: SimGate<WATCH, CONV_WATCH_HI, 1, 1>,
    gate_fc0: SimGate<WATCH, FC_WATCH_HI, 1, 1>,
    gate_fc1: SimGate<WATCH, FC_WATCH_HI, 1, 1>,
    // Each core's reset, registered on the core's clock (a reset tree stage; in a gated
    // simulation it keeps the cores' logic clear of the platform's registers, D-SIM-GATE).
    rst_conv: DFF<Bit>,
    rst_fc0: DFF<Bit>,
    rst_fc1: DFF<Bit>,
    in_fifo: PacketFifo,
    mid_fifo: PacketFifo,
    out_fifo: PacketFifo,
    fsm: PlFsm,
    regs: PlRegs,
    // Counters.
    tally0: ResultTally,
    tally1: ResultTally,
    visit_conv: VisitCycles,
    visit_fc0: VisitCycles,
    visit_fc1: VisitCycles,
    // Combinational values, settled before their one assignment (D-HDLGEN).
    fifo_rst: Signal<Local, Bit>,
    status: Signal<Local, Bits<32>>,
    // Constants.
    c_mid_depth: Constant<Bits<16>>,
    c_depths: [Constant<Bits<32>>; 3],
    c_fc0_words: Constant<Bits<32>>,
    c_fc1_words: Constant<Bits<32>>,
    c_id: Constant<Bits<32>>,
    c_img_beats: Constant<Bits<16>>,
    s_idle: Constant<Bits<4>>,
    _shape: PlatformShape,
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > PlatformCore<L, SW, WW, RW, AW, K, CG, CP>
{
    /// The platform of `shape`; panics (naming the key) on a shape the RTL cannot build.
    pub fn new(shape: PlatformShape) -> Self {
        if let Err((key, m)) = shape.check() {
            panic!("PlatformCore: {key}: {m}");
        }
        assert!(
            shape.lanes == L && SW == 8 * L && K * 4 == L,
            "PlatformCore<{L}, {SW}, {WW}, {RW}, {AW}, {K}>: built for {} lanes",
            shape.lanes
        );
        let [d_in, d_mid, d_out] = shape.fifo_depths();
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_tuser: Default::default(),
            s_tlast: Default::default(),
            m_tdata: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_tuser: Default::default(),
            m_tlast: Default::default(),
            reg_addr: Default::default(),
            reg_wdata: Default::default(),
            reg_we: Default::default(),
            streams_reset: Default::default(),
            rv_base: Default::default(),
            rv_lr: Default::default(),
            rv_lc0: Default::default(),
            rv_lc1: Default::default(),
            conv: ConvCore::new(shape.conv, &shape.kernels),
            fc0: PlatformFc::new(FcCore::new(shape.fc0)),
            fc1: PlatformFc::new(FcCore::new(shape.fc1)),
            rd_tail0: Default::default(),
            rd_tail1: Default::default(),
            route0: Default::default(),
            route1: Default::default(),
            gate_conv: SimGate::new(&["conv", "rst_conv"]),
            gate_fc0: SimGate::new(&["fc0", "rst_fc0"]),
            gate_fc1: SimGate::new(&["fc1", "rst_fc1"]),
            rst_conv: Default::default(),
            rst_fc0: Default::default(),
            rst_fc1: Default::default(),
            in_fifo: PacketFifo::new(d_in),
            mid_fifo: PacketFifo::new(d_mid),
            out_fifo: PacketFifo::new(d_out),
            fsm: PlFsm::new(
                shape.image_beats() as u16,
                (d_mid - shape.conv_beats() - CONV_FIFO_DEPTH) as u16,
                regs::FLUSH_CYCLES as u8,
            ),
            regs: Default::default(),
            tally0: Default::default(),
            tally1: Default::default(),
            visit_conv: Default::default(),
            visit_fc0: Default::default(),
            visit_fc1: Default::default(),
            fifo_rst: Default::default(),
            status: Default::default(),
            c_mid_depth: c16(d_mid),
            c_depths: [c32(d_in as u64), c32(d_mid as u64), c32(d_out as u64)],
            c_fc0_words: c32(shape.fc_words(0) as u64),
            c_fc1_words: c32(shape.fc_words(1) as u64),
            c_id: c32(regs::ID_VALUE as u64),
            c_img_beats: c16(shape.image_beats()),
            s_idle: Constant::new(Bits::<4>::from(0u64)),
            _shape: shape,
        }
    }

    /// The shape this platform was built for.
    pub fn shape(&self) -> &PlatformShape {
        &self._shape
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > Logic for PlatformCore<L, SW, WW, RW, AW, K, CG, CP>
{
    crate::wired_update! {
        // Every plain connection, once; `update` has what is more than a wire.
        wires {
            // Clocks and resets. In the emitted Verilog each core's clock is its gate's
            // (sim_gate::patch_gate_clocks), and each core's reset is registered on it.
            gate_conv.clock <= clock;
            gate_fc0.clock <= clock;
            gate_fc1.clock <= clock;
            conv.clock <= clock;
            fc0.clock <= clock;
            fc1.clock <= clock;
            rd_tail0.clock <= clock;
            rd_tail1.clock <= clock;
            in_fifo.clock <= clock;
            mid_fifo.clock <= clock;
            out_fifo.clock <= clock;
            rst_conv.clock <= clock;
            rst_fc0.clock <= clock;
            rst_fc1.clock <= clock;
            rst_conv.d <= reset;
            rst_fc0.d <= reset;
            rst_fc1.d <= reset;
            conv.reset <= rst_conv.q;
            fc0.reset <= rst_fc0.q;
            fc1.reset <= rst_fc1.q;
            // The registers (`PlRegs`): writes, the LR table and the configuration the cores
            // see (CFG_ACTIVE).
            regs.reset <= reset;
            regs.we <= reg_we;
            regs.addr <= reg_addr;
            regs.wdata <= reg_wdata;
            // The PL FSM: CTRL's instructions to the cores, the stream routes, the run counts.
            fsm.reset <= reset;
            fsm.ctrl <= regs.ctrl;
            fsm.n_train <= regs.n_train;
            fsm.n_test <= regs.n_test;
            fsm.conv_state <= conv.conv_state;
            fsm.fc0_state <= fc0.layer_state;
            fsm.fc1_state <= fc1.layer_state;
            fsm.in_count <= in_fifo.count;
            fsm.mid_count <= mid_fifo.count;
            fsm.mid_packets <= mid_fifo.packets;
            fsm.out_packets <= out_fifo.packets;
            fsm.results0 <= tally0.results;
            fsm.results1 <= tally1.results;
            // Results (one tally per FC core) and each core's last visit.
            tally0.reset <= reset;
            tally0.clear <= fsm.run_start;
            tally0.start <= fsm.start_fc0;
            tally0.label <= mid_fifo.m_tuser;
            tally0.lc_valid <= fc0.lc_valid;
            tally0.done <= fc0.classify_done;
            tally0.class_num <= fc0.class_num;
            tally1.reset <= reset;
            tally1.clear <= fsm.run_start;
            tally1.start <= fsm.start_fc1;
            tally1.label <= out_fifo.m_tuser;
            tally1.lc_valid <= fc1.lc_valid;
            tally1.done <= fc1.classify_done;
            tally1.class_num <= fc1.class_num;
            visit_conv.reset <= reset;
            visit_fc0.reset <= reset;
            visit_fc1.reset <= reset;
            // Register values read as they are (the shell's `RegRead` picks one by
            // `reg_addr`; the others are in `update`).
            rv_base[2] <= regs.model_cfg;
            rv_base[7] <= regs.n_train;
            rv_base[8] <= regs.n_test;
            rv_base[9] <= regs.epoch;
            rv_base[11] <= regs.cfg_active;
            rv_base[12] <= fsm.run_cycles;
            rv_base[13] <= fsm.conv_n;
            rv_base[14] <= fsm.fc0_n;
            rv_base[15] <= fsm.fc1_n;
            rv_base[16] <= tally0.results;
            rv_base[17] <= tally1.results;
            rv_base[18] <= tally0.correct;
            rv_base[19] <= tally1.correct;
            rv_base[22] <= visit_conv.last;
            rv_base[23] <= visit_fc0.last;
            rv_base[24] <= visit_fc1.last;
            rv_base[29] <= c_fc0_words;
            rv_base[30] <= c_fc1_words;
            rv_base[31] <= c_id;
            // The streams: s_* into the input FIFO, the conv core into the mid FIFO, FC0
            // into the out FIFO (the routes that depend on the FSM are in `update`).
            s_tready <= in_fifo.s_tready;
            in_fifo.s_tdata <= s_tdata;
            in_fifo.s_tvalid <= s_tvalid;
            in_fifo.s_tuser <= s_tuser;
            in_fifo.s_tlast <= s_tlast;
            conv.s_tdata <= in_fifo.m_tdata;
            conv.s_tuser <= in_fifo.m_tuser;
            conv.model_cfg <= regs.cfg_active;
            conv.instr <= fsm.ins_conv;
            conv.m_tready <= mid_fifo.s_tready;
            mid_fifo.s_tdata <= conv.m_tdata;
            mid_fifo.s_tvalid <= conv.m_tvalid;
            mid_fifo.s_tuser <= conv.m_tuser;
            mid_fifo.s_tlast <= conv.m_tlast;
            fc0.model_cfg <= regs.cfg_active;
            fc0.instr <= fsm.ins_fc0;
            out_fifo.s_tdata <= fc0.m_tdata;
            out_fifo.s_tuser <= fc0.m_tuser;
            out_fifo.s_tlast <= fc0.m_tlast;
            fc1.instr <= fsm.ins_fc1;
        }
        #[hdl_gen]
        fn update(&mut self) {
            clock!(self, clock, regs, fsm, tally0, tally1, visit_conv, visit_fc0, visit_fc1);
            self.fsm.instr.next = self.reg_wdata.val().get_bits::<3>(0);
            self.tally0.beat.next = self.mid_fifo.m_tvalid.val() & self.fc0.s_tready.val();
            self.tally1.beat.next = self.out_fifo.m_tvalid.val() & self.fc1.s_tready.val();
            self.visit_conv.busy.next = self.conv.conv_state.val() != self.s_idle.val();
            self.visit_fc0.busy.next = self.fc0.layer_state.val() != self.s_idle.val();
            self.visit_fc1.busy.next = self.fc1.layer_state.val() != self.s_idle.val();

            // ---- After I_STOP the FIFOs are held empty while the cores' output FIFOs drain.
            self.fifo_rst.next = self.reset.val() | self.fsm.flushing.val();
            self.streams_reset.next = self.fifo_rst.val();
            self.in_fifo.reset.next = self.fifo_rst.val();
            self.fc0.adapt_reset.next = self.fifo_rst.val();
            self.fc1.adapt_reset.next = self.fifo_rst.val();
            self.mid_fifo.reset.next = self.fifo_rst.val();
            self.out_fifo.reset.next = self.fifo_rst.val();

            // ---- Register values that are formatted: STATUS, the seeds, the counts with
            // their FIFO's depth, the LC outputs (23 bits each, in a wide word).
            self.status.next = bit_cast::<32, 4>(self.fsm.code.val())
                | (bit_cast::<32, 4>(self.conv.conv_state.val()) << 4)
                | (bit_cast::<32, 4>(self.fc0.layer_state.val()) << 8)
                | (bit_cast::<32, 4>(self.fc1.layer_state.val()) << 12)
                | (bit_cast::<32, 1>(self.fsm.flushing.val().into()) << 16);
            self.rv_base[0].next = 0.into();
            self.rv_base[1].next = self.status.val();
            self.rv_base[3].next = bit_cast::<32, 17>(self.regs.seed_lc0.val());
            self.rv_base[4].next = bit_cast::<32, 17>(self.regs.seed_wu0.val());
            self.rv_base[5].next = bit_cast::<32, 17>(self.regs.seed_lc1.val());
            self.rv_base[6].next = bit_cast::<32, 17>(self.regs.seed_wu1.val());
            self.rv_base[10].next = bit_cast::<32, 5>(self.regs.lr_len.val());
            self.rv_base[20].next = bit_cast::<32, 8>(self.tally0.last.val());
            self.rv_base[21].next = bit_cast::<32, 8>(self.tally1.last.val());
            self.rv_base[25].next =
                bit_cast::<32, 16>(self.in_fifo.count.val()) | (self.c_depths[0].val() << 16);
            self.rv_base[26].next =
                bit_cast::<32, 16>(self.mid_fifo.count.val()) | (self.c_depths[1].val() << 16);
            self.rv_base[27].next =
                bit_cast::<32, 16>(self.out_fifo.count.val()) | (self.c_depths[2].val() << 16);
            self.rv_base[28].next = bit_cast::<32, 16>(self.c_img_beats.val());
            for j in 0..16 {
                self.rv_lr[j].next = self.regs.lr.val().get_bits::<6>(6 * j);
            }
            for j in 0..10 {
                self.rv_lc0[j].next = self.fc0.lc_data_out.val().get_bits::<23>(23 * j);
                self.rv_lc1[j].next = self.fc1.lc_data_out.val().get_bits::<23>(23 * j);
            }

            // ---- Stream routing. The input FIFO feeds the conv core while running, FC0 then
            // FC1 in PL_INIT; FC0's output goes to the out FIFO (or to m_* in PL_READ), FC1's
            // is dropped (no successor, §7-35) unless read.
            self.in_fifo.m_tready.next = (self.fsm.to_conv.val() & self.conv.s_tready.val())
                | (self.fsm.to_fc0.val() & self.fc0.s_tready.val())
                | (self.fsm.to_fc1.val() & self.fc1.s_tready.val());
            self.conv.s_tvalid.next = self.in_fifo.m_tvalid.val() & self.fsm.to_conv.val();
            self.mid_fifo.m_tready.next = self.fc0.s_tready.val() & !self.fsm.to_fc0.val();
            self.fc0.s_tdata.next = self.mid_fifo.m_tdata.val();
            self.fc0.s_tvalid.next = self.mid_fifo.m_tvalid.val();
            self.fc0.s_tuser.next = self.mid_fifo.m_tuser.val();
            if self.fsm.to_fc0.val() {
                self.fc0.s_tdata.next = self.in_fifo.m_tdata.val();
                self.fc0.s_tvalid.next = self.in_fifo.m_tvalid.val();
                self.fc0.s_tuser.next = self.in_fifo.m_tuser.val();
            }
            self.fc0.seeds.next = bit_cast::<34, 17>(self.regs.seed_lc0.val())
                | (bit_cast::<34, 17>(self.regs.seed_wu0.val()) << 17);
            self.route0.next = self.fsm.rd_fc0.val() | self.rd_tail0.q.val();
            self.rd_tail0.d.next = self.route0.val() & self.fc0.m_tvalid.val();
            // To the out FIFO, or to m_* in PL_READ; drained while flushing.
            self.fc0.m_tready.next = (self.out_fifo.s_tready.val() & !self.route0.val())
                | (self.m_tready.val() & self.route0.val())
                | self.fsm.flushing.val();
            self.out_fifo.s_tvalid.next = self.fc0.m_tvalid.val() & !self.route0.val();
            self.out_fifo.m_tready.next = self.fc1.s_tready.val() & !self.fsm.to_fc1.val();
            self.fc1.s_tdata.next = self.out_fifo.m_tdata.val();
            self.fc1.s_tvalid.next = self.out_fifo.m_tvalid.val();
            self.fc1.s_tuser.next = self.out_fifo.m_tuser.val();
            if self.fsm.to_fc1.val() {
                self.fc1.s_tdata.next = self.in_fifo.m_tdata.val();
                self.fc1.s_tvalid.next = self.in_fifo.m_tvalid.val();
                self.fc1.s_tuser.next = self.in_fifo.m_tuser.val();
            }
            self.fc1.model_cfg.next = self.regs.cfg_active.val() >> 12;
            self.fc1.seeds.next = bit_cast::<34, 17>(self.regs.seed_lc1.val())
                | (bit_cast::<34, 17>(self.regs.seed_wu1.val()) << 17);
            // FC1's words wait while FC0's last ones leave.
            self.route1.next =
                (self.fsm.rd_fc1.val() | self.rd_tail1.q.val()) & !self.rd_tail0.q.val();
            self.rd_tail1.d.next = self.route1.val() & self.fc1.m_tvalid.val();
            // Dropped, or to m_* in PL_READ (held while FC0's last words leave).
            self.fc1.m_tready.next = !(self.fsm.rd_fc1.val() | self.rd_tail1.q.val())
                | (self.m_tready.val() & self.route1.val());

            // ---- Simulation gates: a core is left unclocked by the gated Verilator model
            // only while idle with its inputs held (D-SIM-GATE); in hardware these are wires.
            self.gate_conv.busy.next =
                (self.conv.conv_state.val() != self.s_idle.val()) | self.conv.m_tvalid.val();
            self.gate_conv.w0.next = bit_cast::<WATCH, 32>(self.conv.s_tdata.val())
                | (bit_cast::<WATCH, 32>(self.conv.model_cfg.val()) << 32);
            self.gate_conv.w1.next = bit_cast::<CONV_WATCH_HI, 4>(self.conv.s_tuser.val())
                | (bit_cast::<CONV_WATCH_HI, 3>(self.conv.instr.val()) << 4)
                | (bit_cast::<CONV_WATCH_HI, 1>(self.conv.s_tvalid.val().into()) << 7)
                | (bit_cast::<CONV_WATCH_HI, 1>(self.conv.m_tready.val().into()) << 8)
                | (bit_cast::<CONV_WATCH_HI, 1>(self.reset.val().into()) << 9);
            self.gate_fc0.busy.next =
                (self.fc0.layer_state.val() != self.s_idle.val()) | self.fc0.m_tvalid.val();
            self.gate_fc0.w0.next = bit_cast::<WATCH, 32>(self.fc0.s_tdata.val())
                | (bit_cast::<WATCH, 32>(self.fc0.model_cfg.val()) << 32);
            self.gate_fc0.w1.next = bit_cast::<FC_WATCH_HI, 34>(self.fc0.seeds.val())
                | (bit_cast::<FC_WATCH_HI, 4>(self.fc0.s_tuser.val()) << 34)
                | (bit_cast::<FC_WATCH_HI, 3>(self.fc0.instr.val()) << 38)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc0.s_tvalid.val().into()) << 41)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc0.m_tready.val().into()) << 42)
                | (bit_cast::<FC_WATCH_HI, 1>(self.reset.val().into()) << 43)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc0.adapt_reset.val().into()) << 44);
            self.gate_fc1.busy.next =
                (self.fc1.layer_state.val() != self.s_idle.val()) | self.fc1.m_tvalid.val();
            self.gate_fc1.w0.next = bit_cast::<WATCH, 32>(self.fc1.s_tdata.val())
                | (bit_cast::<WATCH, 32>(self.fc1.model_cfg.val()) << 32);
            self.gate_fc1.w1.next = bit_cast::<FC_WATCH_HI, 34>(self.fc1.seeds.val())
                | (bit_cast::<FC_WATCH_HI, 4>(self.fc1.s_tuser.val()) << 34)
                | (bit_cast::<FC_WATCH_HI, 3>(self.fc1.instr.val()) << 38)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc1.s_tvalid.val().into()) << 41)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc1.m_tready.val().into()) << 42)
                | (bit_cast::<FC_WATCH_HI, 1>(self.reset.val().into()) << 43)
                | (bit_cast::<FC_WATCH_HI, 1>(self.fc1.adapt_reset.val().into()) << 44);
            self.gate_conv.w2.next = false.into();
            self.gate_conv.w3.next = false.into();
            self.gate_fc0.w2.next = false.into();
            self.gate_fc0.w3.next = false.into();
            self.gate_fc1.w2.next = false.into();
            self.gate_fc1.w3.next = false.into();

            // ---- The output stream: the core PL_READ reads, else nothing.
            self.m_tdata.next = 0.into();
            self.m_tvalid.next = false;
            self.m_tuser.next = bit_cast::<4, 1>(self.route1.val().into());
            self.m_tlast.next = false;
            if self.route0.val() {
                self.m_tdata.next = self.fc0.m_tdata.val();
                self.m_tvalid.next = self.fc0.m_tvalid.val();
                self.m_tlast.next = self.fc0.m_tlast.val();
            }
            if self.route1.val() {
                self.m_tdata.next = self.fc1.m_tdata.val();
                self.m_tvalid.next = self.fc1.m_tvalid.val();
                self.m_tlast.next = self.fc1.m_tlast.val();
            }
        }
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > crate::design::HasMemories for PlatformCore<L, SW, WW, RW, AW, K, CG, CP>
{
    /// The cores' and FIFOs' memories, `PATH.conv...`, `PATH.fc0...`, `PATH.in_fifo.ram.mem`, ...
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        use crate::design::join_path;
        self.conv.visit_memories(&join_path(path, "conv"), f);
        self.fc0.visit_memories(&join_path(path, "fc0"), f);
        self.fc1.visit_memories(&join_path(path, "fc1"), f);
        self.in_fifo.visit_memories(&join_path(path, "in_fifo"), f);
        self.mid_fifo
            .visit_memories(&join_path(path, "mid_fifo"), f);
        self.out_fifo
            .visit_memories(&join_path(path, "out_fifo"), f);
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > crate::design::HasMemories for Platform<L, SW, WW, RW, AW, K, CG, CP>
{
    /// The core's memories, `PATH.core.fc0...`.
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        self.core
            .visit_memories(&crate::design::join_path(path, "core"), f);
    }
}

// The core lives on the heap: it is over half a megabyte of signals, and building the shell
// around it by value overflowed a test thread's 2 MB stack. `Box` is fundamental, so the
// shell's derive can see a boxed core as a block.
impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > Logic for Box<PlatformCore<L, SW, WW, RW, AW, K, CG, CP>>
{
    fn update(&mut self) {
        (**self).update()
    }
    fn connect(&mut self) {
        (**self).connect()
    }
    fn hdl(&self) -> Verilog {
        (**self).hdl()
    }
    fn timing(&self) -> Vec<TimingInfo> {
        (**self).timing()
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > Block for Box<PlatformCore<L, SW, WW, RW, AW, K, CG, CP>>
{
    fn connect_all(&mut self) {
        (**self).connect_all()
    }
    fn update_all(&mut self) {
        (**self).update_all()
    }
    fn has_changed(&self) -> bool {
        (**self).has_changed()
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        (**self).accept(name, probe)
    }
}

/// The thesis's platform: FC cores of 4 lanes, the conv core one channel at a time.
pub type LelPlatform = LelPlatformCp<24, 1>;

/// The platform with FC cores of 8 lanes (docs/decisions.md D-LANES).
pub type LelPlatformL8 = LelPlatformL8Cp<24, 1>;

/// The platform with FC cores of 4 lanes and a conv core of `CG` groups of `CP` channels
/// at a time (docs/decisions.md D-CONV-PARALLEL).
pub type LelPlatformCp<const CG: usize, const CP: usize> = Platform<4, 32, 24, 56, 96, 1, CG, CP>;

/// The platform with FC cores of 8 lanes and a conv core of `CG` groups of `CP`.
pub type LelPlatformL8Cp<const CG: usize, const CP: usize> =
    Platform<8, 64, 48, 112, 192, 2, CG, CP>;

/// The LEL platform: [`PlatformCore`] behind a port stage (docs/decisions.md
/// D-PLATFORM-PORTS). `reset`, `reg_we`, `reg_addr` and `reg_wdata` are registered (a write
/// lands one edge after the port takes it); the streams pass through [`StreamSlice`]s; only
/// `reg_rdata` is combinational, from `reg_addr` through [`RegRead`]. So no statement of the
/// platform's logic depends combinationally on an input, and Verilator evaluates that logic
/// once per cycle. The shell's Verilog (one assignment per connection), `update()` and
/// `connect()` are made from one connection table ([`crate::wiring!`]).
#[derive(Clone, Debug, LogicBlock)]
pub struct Platform<
    const L: usize,
    const SW: usize,
    const WW: usize,
    const RW: usize,
    const AW: usize,
    const K: usize,
    const CG: usize,
    const CP: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset (registered: the platform resets at the next edge).
    pub reset: Signal<In, Bit>,
    /// Input stream data.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Input stream valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub s_tready: Signal<Out, Bit>,
    /// Input stream TUSER (label).
    pub s_tuser: Signal<In, Bits<4>>,
    /// Input stream TLAST.
    pub s_tlast: Signal<In, Bit>,
    /// Output stream data.
    pub m_tdata: Signal<Out, Bits<32>>,
    /// Output stream valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Output stream ready.
    pub m_tready: Signal<In, Bit>,
    /// Output stream TUSER (source core).
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output stream TLAST.
    pub m_tlast: Signal<Out, Bit>,
    /// Register word address.
    pub reg_addr: Signal<In, Bits<8>>,
    /// Register write data.
    pub reg_wdata: Signal<In, Bits<32>>,
    /// Register write strobe.
    pub reg_we: Signal<In, Bit>,
    /// Register read data (combinational from `reg_addr`).
    pub reg_rdata: Signal<Out, Bits<32>>,
    core: Box<PlatformCore<L, SW, WW, RW, AW, K, CG, CP>>,
    in_slice: StreamSlice<32, 4>,
    out_slice: StreamSlice<32, 4>,
    rread: RegRead,
    rst_q: DFF<Bit>,
    we_q: DFF<Bit>,
    waddr_q: DFF<Bits<8>>,
    wdata_q: DFF<Bits<32>>,
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > Platform<L, SW, WW, RW, AW, K, CG, CP>
{
    /// The platform of `shape`; panics (naming the key) on a shape the RTL cannot build.
    pub fn new(shape: PlatformShape) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_tuser: Default::default(),
            s_tlast: Default::default(),
            m_tdata: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_tuser: Default::default(),
            m_tlast: Default::default(),
            reg_addr: Default::default(),
            reg_wdata: Default::default(),
            reg_we: Default::default(),
            reg_rdata: Default::default(),
            core: Box::new(PlatformCore::new(shape)),
            in_slice: Default::default(),
            out_slice: Default::default(),
            rread: Default::default(),
            rst_q: Default::default(),
            we_q: Default::default(),
            waddr_q: Default::default(),
            wdata_q: Default::default(),
        }
    }

    /// The shape this platform was built for.
    pub fn shape(&self) -> &PlatformShape {
        self.core.shape()
    }
}

// The shell's connections, once: its Verilog (one assignment per connection), `update()`
// and `connect()` are made from this table (`crate::wiring!`).
crate::wiring! {
    impl[const L: usize, const SW: usize, const WW: usize, const RW: usize, const AW: usize, const K: usize, const CG: usize, const CP: usize] Platform<L, SW, WW, RW, AW, K, CG, CP> {
        core.clock <= clock;
        in_slice.clock <= clock;
        out_slice.clock <= clock;
        rst_q.clock <= clock;
        we_q.clock <= clock;
        waddr_q.clock <= clock;
        wdata_q.clock <= clock;
        // The port stage: every input but the streams registered once.
        rst_q.d <= reset;
        we_q.d <= reg_we;
        waddr_q.d <= reg_addr;
        wdata_q.d <= reg_wdata;
        core.reset <= rst_q.q;
        core.reg_we <= we_q.q;
        core.reg_addr <= waddr_q.q;
        core.reg_wdata <= wdata_q.q;
        // Input: s_* -> in_slice -> core.s_*.
        in_slice.reset <= core.streams_reset;
        in_slice.s_tdata <= s_tdata;
        core.s_tdata <= in_slice.m_tdata;
        in_slice.s_tuser <= s_tuser;
        core.s_tuser <= in_slice.m_tuser;
        in_slice.s_tlast <= s_tlast;
        core.s_tlast <= in_slice.m_tlast;
        in_slice.s_tvalid <= s_tvalid;
        core.s_tvalid <= in_slice.m_tvalid;
        in_slice.m_tready <= core.s_tready;
        s_tready <= in_slice.s_tready;
        // Output: core.m_* -> out_slice -> m_*.
        out_slice.reset <= core.streams_reset;
        out_slice.s_tdata <= core.m_tdata;
        m_tdata <= out_slice.m_tdata;
        out_slice.s_tuser <= core.m_tuser;
        m_tuser <= out_slice.m_tuser;
        out_slice.s_tlast <= core.m_tlast;
        m_tlast <= out_slice.m_tlast;
        out_slice.s_tvalid <= core.m_tvalid;
        m_tvalid <= out_slice.m_tvalid;
        out_slice.m_tready <= m_tready;
        core.m_tready <= out_slice.s_tready;
        // Register reads: combinational from `reg_addr`.
        rread.addr <= reg_addr;
        for j in (0..32) {
            rread.base[j] <= core.rv_base[j];
        }
        for j in (0..16) {
            rread.lr[j] <= core.rv_lr[j];
        }
        for j in (0..10) {
            rread.lc0[j] <= core.rv_lc0[j];
            rread.lc1[j] <= core.rv_lc1[j];
        }
        reg_rdata <= rread.data;
    }
}

impl<
        const L: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const K: usize,
        const CG: usize,
        const CP: usize,
    > Logic for Platform<L, SW, WW, RW, AW, K, CG, CP>
{
    fn update(&mut self) {
        self.update_wires();
    }

    fn connect(&mut self) {
        self.connect_wires();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("// One assignment per connection (D-PLATFORM-PORTS).\n");
        for (d, s) in Self::wires() {
            v += &format!("always @(*) {d} = {s};\n");
        }
        Verilog::Custom(v)
    }
}

/// The register-read multiplexer: `data` is the register at `addr`, combinationally (0 for
/// CTRL and unmapped addresses; the LC outputs sign-extended, the learning-rate entries
/// zero-extended). A block of its own, written by hand as one `case`, so that `reg_addr`
/// reaches nothing else (D-PLATFORM-PORTS).
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct RegRead {
    /// Register word address.
    pub addr: Signal<In, Bits<8>>,
    /// Registers 0x00..0x1f.
    pub base: [Signal<In, Bits<32>>; 32],
    /// LR_TABLE entries.
    pub lr: [Signal<In, Bits<6>>; 16],
    /// FC0's LC outputs (23-bit, signed).
    pub lc0: [Signal<In, Bits<23>>; 10],
    /// FC1's LC outputs.
    pub lc1: [Signal<In, Bits<23>>; 10],
    /// The register.
    pub data: Signal<Out, Bits<32>>,
}

impl Logic for RegRead {
    fn update(&mut self) {
        let a = self.addr.val().index();
        let sext = |v: Bits<23>| -> Bits<32> {
            let x = v.index() as u64;
            Bits::<32>::from(if x >> 22 & 1 == 1 { x | 0xff80_0000 } else { x })
        };
        let (lr, lc0, lc1) = (
            regs::LR_TABLE as usize,
            regs::FC0_LC as usize,
            regs::FC1_LC as usize,
        );
        self.data.next = match a {
            _ if a < 32 => self.base[a].val(),
            _ if (lr..lr + 16).contains(&a) => bit_cast::<32, 6>(self.lr[a - lr].val()),
            _ if (lc0..lc0 + 10).contains(&a) => sext(self.lc0[a - lc0].val()),
            _ if (lc1..lc1 + 10).contains(&a) => sext(self.lc1[a - lc1].val()),
            _ => Bits::<32>::default(),
        };
    }

    fn connect(&mut self) {
        self.data.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut arms = String::new();
        for j in 0..32 {
            arms += &format!("      8'd{j}: data = base${j};\n");
        }
        for j in 0..16 {
            arms += &format!(
                "      8'd{}: data = {{26'd0, lr${j}}};\n",
                regs::LR_TABLE as usize + j
            );
        }
        for (name, base) in [("lc0", regs::FC0_LC), ("lc1", regs::FC1_LC)] {
            for j in 0..10 {
                arms += &format!(
                    "      8'd{}: data = {{{{9{{{name}${j}[22]}}}}, {name}${j}}};\n",
                    base as usize + j
                );
            }
        }
        Verilog::Custom(format!(
            "always @(*) begin\n   case (addr)\n{arms}      default: data = 32'd0;\n   endcase\nend\n"
        ))
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize, const WW: usize, const RW: usize, const AW: usize, const K: usize, const CG: usize, const CP: usize] Platform<L, SW, WW, RW, AW, K, CG, CP> {
        clock: yes,
        inputs: [reset, s_tdata, s_tvalid, s_tuser, s_tlast, m_tready, reg_addr, reg_wdata, reg_we],
        outputs: [s_tready, m_tdata, m_tvalid, m_tuser, m_tlast, reg_rdata],
        notes: [s_tdata: (true, 4)],
        memories: [core],
    }
}

/// A small platform (1 x 9 x 12 image, 24 channels, FC0 144 -> 16 in 4 pieces, FC1 16 -> 16
/// in 2 pieces) for fast tests; the shipped instances are built from configurations.
pub fn small_shape() -> PlatformShape {
    PlatformShape {
        conv: ConvCoreShape {
            in_channels: 1,
            height: 9,
            width: 12,
            out_channels: 24,
            kernel: 3,
            pool: 3,
            parallel: 1,
        },
        kernels: (0..24 * 9).map(|i: i32| (i * 7) % 63 - 31).collect(),
        fc0: FcCoreShape {
            inputs: 144,
            outputs: 16,
            pieces: 4,
            registered_reads: false,
        },
        fc1: FcCoreShape {
            inputs: 16,
            outputs: 16,
            pieces: 2,
            registered_reads: false,
        },
        lanes: 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_elaborates_and_lints() {
        crate::synth_check::assert_elaborates("lel_platform", LelPlatform::new(small_shape()));
    }

    #[test]
    fn shapes_that_do_not_chain_are_named() {
        let mut s = small_shape();
        assert!(s.check().is_ok());
        assert_eq!(s.fifo_depths(), [32, 64, 8]);
        s.fc1.inputs = 32;
        assert_eq!(s.check().unwrap_err().0, "fc[1]");
        let mut s = small_shape();
        s.fc0.inputs = 160;
        assert_eq!(s.check().unwrap_err().0, "fc[0]");
    }

    /// The shape gives every parameter the register map names, and no other.
    #[test]
    fn register_parameters_are_the_maps() {
        let p = small_shape().register_parameters();
        let names: Vec<&str> = p.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, regs::PARAMETERS);
        let get = |n: &str| p.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        assert_eq!(regs::IN_LEVEL_RESET.resolve(get), Ok(32 << 16));
        assert_eq!(regs::IMAGE_BEATS_RESET.resolve(get), Ok(27));
    }
}
