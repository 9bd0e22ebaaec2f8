//! Quad: four processors and their data memory (docs/cnn-engine-rtl.md "Organisation":
//! processor p reads byte lane p % 4 of data memory p / 4), in two halves behind two
//! simulation gates (docs/decisions.md D-SIM-GATE, D-CNN-RTL-HDL): the unit the engine
//! repeats P / 4 times.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the engine's clock |
//! | `busy` | in | 1 | the quad is used by the running layer, or `cfg_load` (the MAC side's gate) |
//! | `cfg_load` | in | 1 | latch the `cfg_*` inputs at this edge (the cycle after the sequencer's LOAD) |
//! | `cfg_chw` | in | 1 | CHW input: every processor takes the item's byte lane (else its own) |
//! | `cfg_en` | in | 4 | processors the layer uses |
//! | `cfg_inner_op`, `cfg_outer_op`, `cfg_avg_round`, `cfg_avg_d`, `cfg_avg_m`, `cfg_avg_sh`, `cfg_pool_first`, `cfg_wbits`, `cfg_taps` | in | | the processors' configuration ([`super::processor::Processor`]) |
//! | `g_item` | in | 15 | a gather item at G0 ([`item`]: valid, pad, inner/outer first/last, lane, tap, window, slide and its source) |
//! | `dm_rd` | in | 14 | data-memory read at G0 (or the host's): bits 12:0 word, bit 13 enable |
//! | `dm_we` | in | 4 | data-memory byte-lane write strobes (the output stage or the host; ungated) |
//! | `dm_waddr`, `dm_wdata` | in | 13, 32 | data-memory write address and data |
//! | `cfg_lb` | in | 1 | the layer reads the quad's line buffer instead of its data memory (a streaming first layer) |
//! | `lb_we`, `lb_waddr`, `lb_wdata` | in | 1, 11, 32 | line-buffer write (the input FIFO's; ungated) |
//! | `m_item` | in | 8 | the MAC issue at M0: bits 6:0 the kernel's offset in its word, bit 7 the window |
//! | `k_rd` | in | 13 | kernel-memory read at M0 (or the host's): bits 9:0 word, 11:10 processor (host reads), bit 12 enable |
//! | `k_we` | in | 4 | kernel-memory write strobe per processor (the host's, while the engine is idle) |
//! | `k_waddr`, `k_wdata` | in | 10, 72 | kernel-memory write address and data |
//! | `dm_rdata` | out | 32 | the data-memory word read (registered) |
//! | `k_rdata` | out | 72 | the kernel word read by the processor the last read named |
//! | `qsum` | out | 22 | the four processors' `psum`s summed (two's complement; M2) |
//!
//! A quad with a line buffer (`Quad::new(_, line_words > 0)`: quads 0, 4, 8 and 12, the
//! processors an input FIFO feeds) reads it at the data memory's read address and with its
//! timing when `cfg_lb`.
//! The halves: [`QuadGather`] (the data memory, the item registered at G1, the gather's
//! configuration and the processors' [`GatherUnit`]s with their windows) and [`QuadMac`]
//! (the MAC issue registered at M1, the MAC's configuration, the processors' [`MacUnit`]s
//! with their kernel memories, and `qsum`). The MAC side reads the windows, the gather side
//! the MAC's window select; nothing else crosses. Each half registers its inputs once more
//! (G1, M1, the configuration when `cfg_load`), so nothing behind a gate reads a signal of
//! the engine's clock domain but the data memory's write port, which is clocked by the
//! engine's clock itself (`wclock`: the output stage writes a quad the layer may not use).
//! The MAC gate clocks the MAC side while `busy`, or for 64 edges after `m_item`, `k_rd` or
//! `k_we` changed. The gather gate clocks the gather side at `cfg_load`, while an item is at
//! G0, and for [`GATHER_HOLD`] edges after `g_item` or `dm_rd` changed: in a layer whose MAC
//! takes many cycles per window (one per output channel) the gather side sleeps between its
//! bursts. An unused quad is given constant inputs by the engine, so both stop. The data
//! memory's read register loads only on a read, so it holds while the output stage writes.
//! Golden: the engine's bench (`verif::rtl::cnn`). Tests: `tests/cnn_rtl.rs`, and
//! `tests/sim_gate.rs` (the gated engine against the ungated one, cycle for cycle).

use super::fifo_in::LINE_BITS;
use super::gather_unit::GatherUnit;
use super::mac_unit::MacUnit;
use super::processor::KERNEL_ADDR_BITS;
use crate::arith::sext::SignExtend;
use crate::design::{join_path, HasMemories, MemoryAccess};
use crate::mem::two_clock_ram::TwoClockRam;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// Words per data memory.
pub const DATA_WORDS: usize = 8192;
/// Data-memory address bits.
pub const DATA_ADDR_BITS: usize = 13;
/// Processors per quad.
pub const PROCS: usize = 4;
/// Edges the gather gate keeps the gather side clocked after its item or read last changed:
/// the last item's drain takes two more after the edge of the change (G1 takes the item at
/// that edge, then the inner unit, the outer unit and the window write), so two is the least
/// that works (`tests/sim_gate.rs` fails at one, on an element-wise layer with pooling) and
/// four leaves two spare.
pub const GATHER_HOLD: usize = 4;

/// Bits of the gather item bus `g_item`.
pub mod item {
    /// An item.
    pub const VALID: usize = 0;
    /// A tap in the padding.
    pub const PAD: usize = 1;
    /// Starts an inner sequence.
    pub const IFIRST: usize = 2;
    /// Ends an inner sequence.
    pub const ILAST: usize = 3;
    /// Starts an outer sequence.
    pub const OFIRST: usize = 4;
    /// Ends an outer sequence.
    pub const OLAST: usize = 5;
    /// Byte lane (2 bits, CHW).
    pub const LANE: usize = 6;
    /// Window tap (4 bits).
    pub const TAP: usize = 8;
    /// Window.
    pub const BUF: usize = 12;
    /// The first item of a sliding iteration (D-CNN-SLIDE).
    pub const SLIDE: usize = 13;
    /// The slide's source is the window it fills (a layer of two passes), else the other.
    pub const SLIDE_SAME: usize = 14;
    /// Width of the bus.
    pub const WIDTH: usize = 15;
}

/// The gather side of a quad, behind the gather gate: its data memory, the configuration
/// the gather uses, the item registered at G1 and the four processors' [`GatherUnit`]s.
#[derive(Clone, Debug, LogicBlock)]
pub struct QuadGather {
    /// Clock of the registers and read ports (the gather gate's).
    pub clock: Signal<In, Clock>,
    /// The engine's clock (the data memory's write port).
    pub wclock: Signal<In, Clock>,
    /// Latch the configuration.
    pub cfg_load: Signal<In, Bit>,
    /// CHW input.
    pub cfg_chw: Signal<In, Bit>,
    /// Processors used.
    pub cfg_en: Signal<In, Bits<4>>,
    /// Inner unit's operation.
    pub cfg_inner_op: Signal<In, Bits<3>>,
    /// Outer unit's operation.
    pub cfg_outer_op: Signal<In, Bits<3>>,
    /// Average: rounding.
    pub cfg_avg_round: Signal<In, Bit>,
    /// Average: divisor.
    pub cfg_avg_d: Signal<In, Bits<9>>,
    /// Average: magic multiplier.
    pub cfg_avg_m: Signal<In, Bits<18>>,
    /// Average: shift.
    pub cfg_avg_sh: Signal<In, Bits<5>>,
    /// The inner unit pools.
    pub cfg_pool_first: Signal<In, Bit>,
    /// Gather item at G0.
    pub g_item: Signal<In, Bits<15>>,
    /// Data-memory read.
    pub dm_rd: Signal<In, Bits<14>>,
    /// Data-memory lane write strobes.
    pub dm_we: Signal<In, Bits<4>>,
    /// Data-memory write address.
    pub dm_waddr: Signal<In, Bits<DATA_ADDR_BITS>>,
    /// Data-memory write data.
    pub dm_wdata: Signal<In, Bits<32>>,
    /// The window the MAC side reads (its M1 register).
    pub m_buf: Signal<In, Bit>,
    /// Read the line buffer.
    pub cfg_lb: Signal<In, Bit>,
    /// Line-buffer write strobe.
    pub lb_we: Signal<In, Bit>,
    /// Line-buffer write address.
    pub lb_waddr: Signal<In, Bits<LINE_BITS>>,
    /// Line-buffer write data.
    pub lb_wdata: Signal<In, Bits<32>>,
    /// Data-memory word read.
    pub dm_rdata: Signal<Out, Bits<32>>,
    /// Each processor's window `m_buf`.
    pub window: [Signal<Out, Bits<72>>; PROCS],
    dmem: TwoClockRam<DATA_ADDR_BITS, 32, 4>,
    lbuf: TwoClockRam<LINE_BITS, 32, 1>,
    lb: DFF<Bit>,
    rdata: Signal<Local, Bits<32>>,
    units: [GatherUnit; PROCS],
    chw: DFF<Bit>,
    en: DFF<Bits<4>>,
    inner_op: DFF<Bits<3>>,
    outer_op: DFF<Bits<3>>,
    avg_round: DFF<Bit>,
    avg_d: DFF<Bits<9>>,
    avg_m: DFF<Bits<18>>,
    avg_sh: DFF<Bits<5>>,
    pool_first: DFF<Bit>,
    g1: DFF<Bits<15>>,
    lane: Signal<Local, Bits<2>>,
    lane_byte: Signal<Local, Bits<8>>,
    proc_index: [Constant<Bits<2>>; PROCS],
}

impl QuadGather {
    /// The gather side, with a line buffer of `line_words` words (0: none).
    pub fn new(line_words: usize) -> Self {
        Self {
            clock: Default::default(),
            wclock: Default::default(),
            cfg_load: Default::default(),
            cfg_chw: Default::default(),
            cfg_en: Default::default(),
            cfg_inner_op: Default::default(),
            cfg_outer_op: Default::default(),
            cfg_avg_round: Default::default(),
            cfg_avg_d: Default::default(),
            cfg_avg_m: Default::default(),
            cfg_avg_sh: Default::default(),
            cfg_pool_first: Default::default(),
            g_item: Default::default(),
            dm_rd: Default::default(),
            dm_we: Default::default(),
            dm_waddr: Default::default(),
            dm_wdata: Default::default(),
            m_buf: Default::default(),
            cfg_lb: Default::default(),
            lb_we: Default::default(),
            lb_waddr: Default::default(),
            lb_wdata: Default::default(),
            dm_rdata: Default::default(),
            window: Default::default(),
            dmem: TwoClockRam::new(DATA_WORDS),
            lbuf: TwoClockRam::new(line_words.max(1)),
            lb: Default::default(),
            rdata: Default::default(),
            units: Default::default(),
            chw: Default::default(),
            en: Default::default(),
            inner_op: Default::default(),
            outer_op: Default::default(),
            avg_round: Default::default(),
            avg_d: Default::default(),
            avg_m: Default::default(),
            avg_sh: Default::default(),
            pool_first: Default::default(),
            g1: Default::default(),
            lane: Default::default(),
            lane_byte: Default::default(),
            proc_index: array_init::array_init(|p| Constant::new((p as u64).into())),
        }
    }
}

impl Logic for QuadGather {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, chw, en, inner_op, outer_op, avg_round, avg_d, avg_m, avg_sh, pool_first,
            g1, lb
        );
        if self.cfg_load.val() {
            self.lb.d.next = self.cfg_lb.val();
            self.chw.d.next = self.cfg_chw.val();
            self.en.d.next = self.cfg_en.val();
            self.inner_op.d.next = self.cfg_inner_op.val();
            self.outer_op.d.next = self.cfg_outer_op.val();
            self.avg_round.d.next = self.cfg_avg_round.val();
            self.avg_d.d.next = self.cfg_avg_d.val();
            self.avg_m.d.next = self.cfg_avg_m.val();
            self.avg_sh.d.next = self.cfg_avg_sh.val();
            self.pool_first.d.next = self.cfg_pool_first.val();
        }
        // G1: the item, registered for the processors.
        self.g1.d.next = self.g_item.val();
        // Data memory: written on the engine's clock, read on ours.
        self.dmem.write_clock.next = self.wclock.val();
        self.dmem.read_clock.next = self.clock.val();
        self.dmem.write_enable.next = self.dm_we.val();
        self.dmem.write_address.next = self.dm_waddr.val();
        self.dmem.write_data.next = self.dm_wdata.val();
        self.dmem.read_enable.next = self.dm_rd.val().get_bit(13);
        self.dmem.read_address.next = self.dm_rd.val().get_bits::<DATA_ADDR_BITS>(0);
        self.dm_rdata.next = self.dmem.read_data.val();
        // The line buffer: written on the engine's clock, read as the data memory is.
        self.lbuf.write_clock.next = self.wclock.val();
        self.lbuf.read_clock.next = self.clock.val();
        self.lbuf.write_enable.next = bit_cast::<1, 1>(self.lb_we.val().into());
        self.lbuf.write_address.next = self.lb_waddr.val();
        self.lbuf.write_data.next = self.lb_wdata.val();
        self.lbuf.read_enable.next = self.dm_rd.val().get_bit(13);
        self.lbuf.read_address.next = self.dm_rd.val().get_bits::<LINE_BITS>(0);
        self.rdata.next = self.dmem.read_data.val();
        if self.lb.q.val() {
            self.rdata.next = self.lbuf.read_data.val();
        }
        // CHW: every processor takes the pixel's lane. (Bit positions in this kernel are the
        // literals of [`item`]: rust-hdl emits a constant's path as a bare identifier.)
        self.lane.next = self.g1.q.val().get_bits::<2>(6);
        self.lane_byte.next = self.rdata.val().get_bits::<8>(0);
        for p in 0..PROCS {
            if self.lane.val() == self.proc_index[p].val() {
                self.lane_byte.next = self.rdata.val().get_bits::<8>(8 * p);
            }
        }
        for p in 0..PROCS {
            self.units[p].clock.next = self.clock.val();
            self.units[p].en.next = self.en.q.val().get_bit(p);
            if self.chw.q.val() {
                self.units[p].data.next = self.lane_byte.val();
            } else {
                self.units[p].data.next = self.rdata.val().get_bits::<8>(8 * p);
            }
            self.units[p].inner_op.next = self.inner_op.q.val();
            self.units[p].outer_op.next = self.outer_op.q.val();
            self.units[p].avg_round.next = self.avg_round.q.val();
            self.units[p].avg_d.next = self.avg_d.q.val();
            self.units[p].avg_m.next = self.avg_m.q.val();
            self.units[p].avg_sh.next = self.avg_sh.q.val();
            self.units[p].pool_first.next = self.pool_first.q.val();
            self.units[p].g_valid.next = self.g1.q.val().get_bit(0);
            self.units[p].g_pad.next = self.g1.q.val().get_bit(1);
            self.units[p].g_ifirst.next = self.g1.q.val().get_bit(2);
            self.units[p].g_ilast.next = self.g1.q.val().get_bit(3);
            self.units[p].g_ofirst.next = self.g1.q.val().get_bit(4);
            self.units[p].g_olast.next = self.g1.q.val().get_bit(5);
            self.units[p].g_tap.next = self.g1.q.val().get_bits::<4>(8);
            self.units[p].g_buf.next = self.g1.q.val().get_bit(12);
            self.units[p].g_slide.next = self.g1.q.val().get_bit(13);
            self.units[p].g_slide_same.next = self.g1.q.val().get_bit(14);
            self.units[p].m_buf.next = self.m_buf.val();
            self.window[p].next = self.units[p].window.val();
        }
    }
}

impl HasMemories for QuadGather {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.dmem.visit_memories(&join_path(path, "dmem"), f);
        self.lbuf.visit_memories(&join_path(path, "lbuf"), f);
    }
}

/// The MAC side of a quad, behind the MAC gate: the configuration the MAC uses, the issue
/// registered at M1, the four processors' [`MacUnit`]s and the sum over them.
#[derive(Clone, Debug, LogicBlock)]
pub struct QuadMac {
    /// Clock of the registers, the kernel memories and their read ports (the MAC gate's).
    pub clock: Signal<In, Clock>,
    /// Latch the configuration.
    pub cfg_load: Signal<In, Bit>,
    /// Weight bits.
    pub cfg_wbits: Signal<In, Bits<4>>,
    /// Taps.
    pub cfg_taps: Signal<In, Bits<4>>,
    /// MAC issue at M0.
    pub m_item: Signal<In, Bits<8>>,
    /// Kernel-memory read.
    pub k_rd: Signal<In, Bits<13>>,
    /// Kernel-memory write strobes.
    pub k_we: Signal<In, Bits<4>>,
    /// Kernel-memory write address.
    pub k_waddr: Signal<In, Bits<KERNEL_ADDR_BITS>>,
    /// Kernel-memory write data.
    pub k_wdata: Signal<In, Bits<72>>,
    /// Each processor's window (the gather side's `window`).
    pub window: [Signal<In, Bits<72>>; PROCS],
    /// The window the MAC reads (M1).
    pub m_buf: Signal<Out, Bit>,
    /// Kernel word read.
    pub k_rdata: Signal<Out, Bits<72>>,
    /// Sum of the processors' sums.
    pub qsum: Signal<Out, Bits<22>>,
    units: [MacUnit; PROCS],
    psum: [SignExtend<20, 22>; PROCS],
    wbits: DFF<Bits<4>>,
    taps: DFF<Bits<4>>,
    m1: DFF<Bits<8>>,
    ksel: DFF<Bits<2>>,
    sum: Signal<Local, Bits<22>>,
    proc_index: [Constant<Bits<2>>; PROCS],
}

impl QuadMac {
    /// The MAC side of a quad whose processors have `kernel_words` kernel words each.
    pub fn new(kernel_words: usize) -> Self {
        Self {
            clock: Default::default(),
            cfg_load: Default::default(),
            cfg_wbits: Default::default(),
            cfg_taps: Default::default(),
            m_item: Default::default(),
            k_rd: Default::default(),
            k_we: Default::default(),
            k_waddr: Default::default(),
            k_wdata: Default::default(),
            window: Default::default(),
            m_buf: Default::default(),
            k_rdata: Default::default(),
            qsum: Default::default(),
            units: array_init::array_init(|_| MacUnit::new(kernel_words)),
            psum: Default::default(),
            wbits: Default::default(),
            taps: Default::default(),
            m1: Default::default(),
            ksel: Default::default(),
            sum: Default::default(),
            proc_index: array_init::array_init(|p| Constant::new((p as u64).into())),
        }
    }
}

impl Logic for QuadMac {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wbits, taps, m1, ksel);
        if self.cfg_load.val() {
            self.wbits.d.next = self.cfg_wbits.val();
            self.taps.d.next = self.cfg_taps.val();
        }
        // M1: the MAC issue, registered for the processors.
        self.m1.d.next = self.m_item.val();
        self.m_buf.next = self.m1.q.val().get_bit(7);
        if self.k_rd.val().get_bit(12) {
            self.ksel.d.next = self.k_rd.val().get_bits::<2>(10);
        }
        self.sum.next = 0.into();
        self.k_rdata.next = self.units[0].k_rdata.val();
        for p in 0..PROCS {
            self.units[p].clock.next = self.clock.val();
            self.units[p].window.next = self.window[p].val();
            self.units[p].wbits.next = self.wbits.q.val();
            self.units[p].taps.next = self.taps.q.val();
            self.units[p].kshift.next = self.m1.q.val().get_bits::<7>(0);
            self.units[p].k_re.next = self.k_rd.val().get_bit(12);
            self.units[p].k_raddr.next = self.k_rd.val().get_bits::<KERNEL_ADDR_BITS>(0);
            self.units[p].k_we.next = self.k_we.val().get_bit(p);
            self.units[p].k_waddr.next = self.k_waddr.val();
            self.units[p].k_wdata.next = self.k_wdata.val();
            if self.ksel.q.val() == self.proc_index[p].val() {
                self.k_rdata.next = self.units[p].k_rdata.val();
            }
            self.psum[p].data_in.next = self.units[p].psum.val();
            self.sum.next = self.sum.val() + self.psum[p].data_out.val();
        }
        self.qsum.next = self.sum.val();
    }
}

impl HasMemories for QuadMac {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.units.visit_memories(&join_path(path, "units"), f);
    }
}

/// A quad and its simulation gate.
#[derive(Clone, Debug, LogicBlock)]
pub struct Quad {
    /// The engine's clock.
    pub clock: Signal<In, Clock>,
    /// The quad works this cycle.
    pub busy: Signal<In, Bit>,
    /// Latch the configuration.
    pub cfg_load: Signal<In, Bit>,
    /// CHW input.
    pub cfg_chw: Signal<In, Bit>,
    /// Processors used.
    pub cfg_en: Signal<In, Bits<4>>,
    /// Inner unit's operation.
    pub cfg_inner_op: Signal<In, Bits<3>>,
    /// Outer unit's operation.
    pub cfg_outer_op: Signal<In, Bits<3>>,
    /// Average: rounding.
    pub cfg_avg_round: Signal<In, Bit>,
    /// Average: divisor.
    pub cfg_avg_d: Signal<In, Bits<9>>,
    /// Average: magic multiplier.
    pub cfg_avg_m: Signal<In, Bits<18>>,
    /// Average: shift.
    pub cfg_avg_sh: Signal<In, Bits<5>>,
    /// The inner unit pools.
    pub cfg_pool_first: Signal<In, Bit>,
    /// Weight bits.
    pub cfg_wbits: Signal<In, Bits<4>>,
    /// Taps.
    pub cfg_taps: Signal<In, Bits<4>>,
    /// Gather item at G0.
    pub g_item: Signal<In, Bits<15>>,
    /// Data-memory read.
    pub dm_rd: Signal<In, Bits<14>>,
    /// Data-memory lane write strobes.
    pub dm_we: Signal<In, Bits<4>>,
    /// Data-memory write address.
    pub dm_waddr: Signal<In, Bits<DATA_ADDR_BITS>>,
    /// Data-memory write data.
    pub dm_wdata: Signal<In, Bits<32>>,
    /// Read the line buffer.
    pub cfg_lb: Signal<In, Bit>,
    /// Line-buffer write strobe.
    pub lb_we: Signal<In, Bit>,
    /// Line-buffer write address.
    pub lb_waddr: Signal<In, Bits<LINE_BITS>>,
    /// Line-buffer write data.
    pub lb_wdata: Signal<In, Bits<32>>,
    /// MAC issue at M0.
    pub m_item: Signal<In, Bits<8>>,
    /// Kernel-memory read.
    pub k_rd: Signal<In, Bits<13>>,
    /// Kernel-memory write strobes.
    pub k_we: Signal<In, Bits<4>>,
    /// Kernel-memory write address.
    pub k_waddr: Signal<In, Bits<KERNEL_ADDR_BITS>>,
    /// Kernel-memory write data.
    pub k_wdata: Signal<In, Bits<72>>,
    /// Data-memory word read.
    pub dm_rdata: Signal<Out, Bits<32>>,
    /// Kernel word read.
    pub k_rdata: Signal<Out, Bits<72>>,
    /// Sum of the processors' sums.
    pub qsum: Signal<Out, Bits<22>>,
    gather_gate: SimGate<15, 14, 1, 1>,
    mac_gate: SimGate<12, 13, 1, 1>,
    gather: QuadGather,
    mac: QuadMac,
}

impl Quad {
    /// A quad whose processors have `kernel_words` kernel words each, with a line buffer of
    /// `line_words` words (0: none).
    pub fn new(kernel_words: usize, line_words: usize) -> Self {
        Self {
            clock: Default::default(),
            busy: Default::default(),
            cfg_load: Default::default(),
            cfg_chw: Default::default(),
            cfg_en: Default::default(),
            cfg_inner_op: Default::default(),
            cfg_outer_op: Default::default(),
            cfg_avg_round: Default::default(),
            cfg_avg_d: Default::default(),
            cfg_avg_m: Default::default(),
            cfg_avg_sh: Default::default(),
            cfg_pool_first: Default::default(),
            cfg_wbits: Default::default(),
            cfg_taps: Default::default(),
            g_item: Default::default(),
            dm_rd: Default::default(),
            dm_we: Default::default(),
            dm_waddr: Default::default(),
            dm_wdata: Default::default(),
            cfg_lb: Default::default(),
            lb_we: Default::default(),
            lb_waddr: Default::default(),
            lb_wdata: Default::default(),
            m_item: Default::default(),
            k_rd: Default::default(),
            k_we: Default::default(),
            k_waddr: Default::default(),
            k_wdata: Default::default(),
            dm_rdata: Default::default(),
            k_rdata: Default::default(),
            qsum: Default::default(),
            gather_gate: SimGate::new(&["gather"]).hold(GATHER_HOLD).unwatched(&[
                (
                    "gather$cfg_*",
                    "the layer registers change only at LOAD, and `busy` includes `cfg_load`",
                ),
                (
                    "gather$dm_w*",
                    "data-memory writes take `wclock`, which no gate stops",
                ),
                (
                    "gather$lb_w*",
                    "line-buffer writes take `wclock`, which no gate stops",
                ),
                (
                    "gather$m_buf",
                    "it selects the window the combinational read shows, no state behind it",
                ),
            ]),
            mac_gate: SimGate::new(&["mac"]).unwatched(&[
                (
                    "mac$cfg_*",
                    "the layer registers change only at LOAD, and `busy` includes `cfg_load`",
                ),
                (
                    "mac$k_waddr",
                    "with no strobe (`k_we`, watched) the kernel write port does nothing",
                ),
                ("mac$k_wdata", "the same"),
                (
                    "mac$window*",
                    "the gather side writes windows only while the layer runs, when `busy` \
                     clocks the MAC side",
                ),
            ]),
            gather: QuadGather::new(line_words),
            mac: QuadMac::new(kernel_words),
        }
    }
}

impl Logic for Quad {
    crate::wired_update! {
        wires {
            gather_gate.clock <= clock;
            mac_gate.clock <= clock;
            mac_gate.busy <= busy;
            gather.clock <= clock;
            gather.wclock <= clock;
            gather.cfg_load <= cfg_load;
            gather.cfg_chw <= cfg_chw;
            gather.cfg_en <= cfg_en;
            gather.cfg_inner_op <= cfg_inner_op;
            gather.cfg_outer_op <= cfg_outer_op;
            gather.cfg_avg_round <= cfg_avg_round;
            gather.cfg_avg_d <= cfg_avg_d;
            gather.cfg_avg_m <= cfg_avg_m;
            gather.cfg_avg_sh <= cfg_avg_sh;
            gather.cfg_pool_first <= cfg_pool_first;
            gather.g_item <= g_item;
            gather.dm_rd <= dm_rd;
            gather.dm_we <= dm_we;
            gather.dm_waddr <= dm_waddr;
            gather.dm_wdata <= dm_wdata;
            gather.cfg_lb <= cfg_lb;
            gather.lb_we <= lb_we;
            gather.lb_waddr <= lb_waddr;
            gather.lb_wdata <= lb_wdata;
            gather.m_buf <= mac.m_buf;
            mac.clock <= clock;
            mac.cfg_load <= cfg_load;
            mac.cfg_wbits <= cfg_wbits;
            mac.cfg_taps <= cfg_taps;
            mac.m_item <= m_item;
            mac.k_rd <= k_rd;
            mac.k_we <= k_we;
            mac.k_waddr <= k_waddr;
            mac.k_wdata <= k_wdata;
            dm_rdata <= gather.dm_rdata;
            k_rdata <= mac.k_rdata;
            qsum <= mac.qsum;
        }
        wires for p in (0..PROCS) {
            mac.window[p] <= gather.window[p];
        }
        #[hdl_gen]
        fn update(&mut self) {
            // The gather side: awake at LOAD, while an item is at G0, and for a few edges after
            // its item or read changed (its pipeline drains within [`GATHER_HOLD`] edges).
            self.gather_gate.busy.next = self.cfg_load.val() | self.g_item.val().get_bit(0);
            self.gather_gate.w0.next = self.g_item.val();
            self.gather_gate.w1.next = self.dm_rd.val();
            self.gather_gate.w2.next = false.into();
            self.gather_gate.w3.next = false.into();
            // The MAC side: awake while the layer uses the quad, and after its issue, read or
            // kernel write changed. A kernel write's address and data need no watch: with no
            // strobe the write port does nothing.
            self.mac_gate.w0.next =
                bit_cast::<12, 8>(self.m_item.val()) | (bit_cast::<12, 4>(self.k_we.val()) << 8);
            self.mac_gate.w1.next = self.k_rd.val();
            self.mac_gate.w2.next = false.into();
            self.mac_gate.w3.next = false.into();
        }
    }
}

impl HasMemories for Quad {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.gather.visit_memories(&join_path(path, "gather"), f);
        self.mac.visit_memories(&join_path(path, "mac"), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_is_synthesizable() {
        crate::synth_check::assert_elaborates("quad", Quad::new(16, 16));
    }
}
