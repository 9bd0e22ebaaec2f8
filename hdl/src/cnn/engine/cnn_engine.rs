//! CnnEngine: the MAX78000-style CNN engine (spec max78000-cnn-engine.md §1.17, §2, §8;
//! docs/cnn-engine-rtl.md; docs/decisions.md D-CNN-RTL, D-CNN-RTL-HDL): P processors in
//! P / 4 quads, a layer sequencer running up to 32 layers from their registers, the gather
//! and the MAC overlapping on two windows per processor, the accumulators and the output
//! stage, and a host port.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high (taken one edge later, as every input: the port stage) |
//! | `host_we`, `host_re` | in | 1 | host write / read strobe |
//! | `host_addr` | in | 24 | word address (map: docs/cnn-engine-registers.md) |
//! | `host_wdata` | in | 32 | write data |
//! | `host_rdata` | out | 32 | read data, two cycles after `host_re` |
//! | `busy` | out | 1 | a run is in progress |
//! | `done` | out | 1 | set at the end of a run, cleared by the next start |
//! | `layer_done` | out | 1 | one cycle after each layer's last write |
//! | `layer` | out | 5 | the running layer |
//! | `fifo_tdata`, `fifo_tvalid`, `fifo_tready` | in, in, out | 32, 1, 1 | the input FIFOs' stream (AXI-Stream; a streaming network's input in izer's `--fifo` order) |
//!
//! Blocks: [`HostPort`], [`LayerSeq`] (the FSM), the layer registers (16 RAMs of 32 words,
//! one per word index, read together at LOAD) and their decode ([`LayerDecode`], generated
//! from `hdl/regs/cnn_engine.toml`), [`AddrGen`] (the gather), [`WindowCtl`], [`MacCtl`] and
//! [`MacPipe`] (the MAC side), the [`Quad`]s (four [`Processor`](super::processor::Processor)s
//! and their data memory each, behind a simulation gate), [`GroupSum`], [`AccMem`] and
//! [`OutStage`], and for streaming networks the schedule (three RAMs of 2048 words, one per
//! entry word), the input stream's port stage ([`StreamSlice`]) and [`FifoIn`], which writes
//! the line buffers of quads 0, 4, 8 and 12. A quad the running layer does not use gets constant inputs (operand
//! isolation), so its gate stops its clock in the in-process Verilator model; its sums are
//! masked out. Cycles of a layer: `edgelearn_verif::cnn::engine::layer_cycles`.
//! Parameters: P processors = 4 Q, G groups of QPG quads (16 processors a group, all of
//! them below 16): [`CnnEngine4`] .. [`CnnEngine64`]; kernel words per processor 1..=1024.
//! Golden: `edgelearn_verif::cnn` (every layer's data-memory words). Tests:
//! `tests/cnn_rtl.rs` (the vendored ai8x networks and layer tests), `tests/cnn_engine_blocks.rs`.

use super::acc_mem::AccMem;
use super::addr_gen::AddrGen;
use super::fifo_in::{FifoIn, LINE_WORDS};
use super::group_sum::GroupSum;
use super::host_port::HostPort;
use super::layer_decode::LayerDecode;
use super::layer_seq::LayerSeq;
use super::mac_ctl::MacCtl;
use super::mac_pipe::MacPipe;
use super::out_stage::OutStage;
use super::quad::Quad;
use super::regs::{DECODED_WORDS, LAYER_WORDS};
use super::window_ctl::WindowCtl;
use crate::lel::stream_slice::StreamSlice;
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// Address bits of the streaming schedule (entries).
pub const SCHED_BITS: usize = 11;

/// 4 processors (one quad).
pub type CnnEngine4 = CnnEngine<4, 1, 1, 1>;
/// 8 processors.
pub type CnnEngine8 = CnnEngine<8, 2, 1, 2>;
/// 16 processors (one group).
pub type CnnEngine16 = CnnEngine<16, 4, 1, 4>;
/// 32 processors.
pub type CnnEngine32 = CnnEngine<32, 8, 2, 4>;
/// 48 processors.
pub type CnnEngine48 = CnnEngine<48, 12, 3, 4>;
/// 64 processors (the MAX78000).
pub type CnnEngine64 = CnnEngine<64, 16, 4, 4>;

/// The engine: P processors, Q = P / 4 quads, G groups of QPG quads.
#[derive(Clone, Debug, LogicBlock)]
pub struct CnnEngine<const P: usize, const Q: usize, const G: usize, const QPG: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Host write strobe.
    pub host_we: Signal<In, Bit>,
    /// Host read strobe.
    pub host_re: Signal<In, Bit>,
    /// Host word address.
    pub host_addr: Signal<In, Bits<24>>,
    /// Host write data.
    pub host_wdata: Signal<In, Bits<32>>,
    /// Host read data.
    pub host_rdata: Signal<Out, Bits<32>>,
    /// A run is in progress.
    pub busy: Signal<Out, Bit>,
    /// The run has finished.
    pub done: Signal<Out, Bit>,
    /// A layer has finished.
    pub layer_done: Signal<Out, Bit>,
    /// The running layer.
    pub layer: Signal<Out, Bits<5>>,
    /// Input stream data.
    pub fifo_tdata: Signal<In, Bits<32>>,
    /// Input stream valid.
    pub fifo_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub fifo_tready: Signal<Out, Bit>,
    host: HostPort,
    fifo_port: StreamSlice<32, 1>,
    fifo: FifoIn,
    sched: [SdpRam<SCHED_BITS, 32>; 3],
    row_last: Signal<Local, Bits<10>>,
    fifo_of_quad: [Constant<Bits<3>>; Q],
    no_user: Constant<Bits<1>>,
    no_last: Constant<Bit>,
    seq: LayerSeq,
    lregs: [SdpRam<5, 32>; LAYER_WORDS],
    cfg: [DFF<Bits<32>>; DECODED_WORDS],
    decode: LayerDecode,
    kstart_now: LayerDecode,
    addr: AddrGen,
    wctl: WindowCtl,
    mac: MacCtl,
    pipe: MacPipe,
    /// Q quads (on the heap: a quad's rust-hdl model is 160 KB).
    quads: Vec<Quad>,
    sums: GroupSum<Q, G, QPG>,
    acc: AccMem,
    out: OutStage,
    active: DFF<Bits<16>>,
    active_new: Signal<Local, Bits<16>>,
    inner_op: Signal<Local, Bits<3>>,
    outer_op: Signal<Local, Bits<3>>,
    g_item: Signal<Local, Bits<15>>,
    dm_rd: Signal<Local, Bits<14>>,
    m_item: Signal<Local, Bits<8>>,
    k_rd: Signal<Local, Bits<13>>,
    working: Signal<Local, Bit>,
    lreg_addr: Signal<Local, Bits<5>>,
    dm_sel: Signal<Local, Bits<32>>,
    k_sel: Signal<Local, Bits<72>>,
    quad_index: [Constant<Bits<5>>; Q],
    quad_of_proc: [Constant<Bits<4>>; Q],
    quad_bit: [Constant<Bits<16>>; Q],
    word_index: [Constant<Bits<4>>; LAYER_WORDS],
    all_lanes: Constant<Bits<4>>,
    lane_bit: Constant<Bits<4>>,
}

impl<const P: usize, const Q: usize, const G: usize, const QPG: usize> CnnEngine<P, Q, G, QPG> {
    /// An engine whose processors hold `kernel_words` 72-bit kernel words each.
    pub fn new(kernel_words: usize) -> Self {
        assert!(
            P == 4 * Q && Q == G * QPG && (P < 16 || QPG == 4) && matches!(P, 4 | 8 | 16 | 32 | 48 | 64),
            "CnnEngine<{P}, {Q}, {G}, {QPG}>: P (4, 8, 16, 32, 48 or 64) = 4 Q, Q = G QPG, 16 processors a group"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            host_we: Default::default(),
            host_re: Default::default(),
            host_addr: Default::default(),
            host_wdata: Default::default(),
            host_rdata: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            layer_done: Default::default(),
            layer: Default::default(),
            fifo_tdata: Default::default(),
            fifo_tvalid: Default::default(),
            fifo_tready: Default::default(),
            host: HostPort::new(P, kernel_words),
            fifo_port: Default::default(),
            fifo: Default::default(),
            sched: array_init::array_init(|_| SdpRam::new(1 << SCHED_BITS)),
            row_last: Default::default(),
            no_user: Constant::new(0u64.into()),
            no_last: Constant::new(false),
            fifo_of_quad: array_init::array_init(|q| {
                Constant::new((if q % 4 == 0 { (q / 4) as u64 } else { 7 }).into())
            }),
            seq: Default::default(),
            lregs: array_init::array_init(|_| SdpRam::new(32)),
            cfg: Default::default(),
            decode: Default::default(),
            kstart_now: Default::default(),
            addr: Default::default(),
            wctl: Default::default(),
            mac: Default::default(),
            pipe: Default::default(),
            quads: (0..Q)
                .map(|q| Quad::new(kernel_words, if q % 4 == 0 { LINE_WORDS } else { 0 }))
                .collect(),
            sums: Default::default(),
            acc: AccMem::new(32 * P),
            out: Default::default(),
            active: Default::default(),
            active_new: Default::default(),
            inner_op: Default::default(),
            outer_op: Default::default(),
            g_item: Default::default(),
            dm_rd: Default::default(),
            m_item: Default::default(),
            k_rd: Default::default(),
            working: Default::default(),
            lreg_addr: Default::default(),
            dm_sel: Default::default(),
            k_sel: Default::default(),
            quad_index: array_init::array_init(|q| Constant::new((q as u64).into())),
            quad_of_proc: array_init::array_init(|q| Constant::new((q as u64).into())),
            quad_bit: array_init::array_init(|q| Constant::new((1u64 << q).into())),
            word_index: array_init::array_init(|k| Constant::new((k as u64).into())),
            all_lanes: Constant::new(0xfu64.into()),
            lane_bit: Constant::new(1u64.into()),
        }
    }
}

impl<const P: usize, const Q: usize, const G: usize, const QPG: usize> Logic
    for CnnEngine<P, Q, G, QPG>
{
    crate::wired_update! {
        // Every plain connection, once (D-HDLGEN); `update` has what is more than a wire.
        wires {
            // Host port and sequencer.
            host.clock <= clock;
            host.reset <= reset;
            host.host_we <= host_we;
            host.host_re <= host_re;
            host.host_addr <= host_addr;
            host.host_wdata <= host_wdata;
            host.busy <= seq.busy;
            host.done <= seq.done;
            host.layer <= seq.layer;
            host.cycles <= seq.cycles;
            host.lc_rdata <= seq.lc_rdata;
            host.bias_rdata <= acc.bias_rdata;
            seq.clock <= clock;
            seq.reset <= host.reset_q;
            seq.start <= host.start;
            seq.nlayers <= host.nlayers;
            seq.layer_end <= mac.layer_end;
            seq.fifo_rows <= fifo.rows;
            seq.sched_w0 <= sched[0].read_data;
            seq.sched_w1 <= sched[1].read_data;
            seq.sched_w2 <= sched[2].read_data;
            // The input FIFOs: the port stage, the writer.
            fifo_port.clock <= clock;
            fifo_port.reset <= host.reset_q;
            fifo_port.s_tdata <= fifo_tdata;
            fifo_port.s_tvalid <= fifo_tvalid;
            fifo_tready <= fifo_port.s_tready;
            fifo.clock <= clock;
            fifo.reset <= host.reset_q;
            fifo.start <= host.start;
            fifo.allow <= seq.allow;
            fifo.stream <= host.stream;
            fifo_port.s_tuser <= no_user;
            fifo_port.s_tlast <= no_last;
            fifo.s_tdata <= fifo_port.m_tdata;
            fifo.s_tvalid <= fifo_port.m_tvalid;
            fifo_port.m_tready <= fifo.s_tready;
            // Gather.
            addr.clock <= clock;
            addr.reset <= host.reset_q;
            addr.load <= seq.load;
            addr.run <= seq.run;
            addr.full <= wctl.full;
            addr.pend <= wctl.pend;
            addr.mode <= decode.mode;
            addr.chw <= decode.chw;
            addr.pool_first <= decode.pool_first;
            addr.in_w <= decode.in_w;
            addr.in_passes <= decode.in_passes;
            addr.operands <= decode.operands;
            addr.in_base <= decode.in_base;
            addr.pool_h <= decode.pool_h;
            addr.pool_w <= decode.pool_w;
            addr.stride_y <= decode.stride_y;
            addr.stride_x <= decode.stride_x;
            addr.pooled_h <= decode.pooled_h;
            addr.pooled_w <= decode.pooled_w;
            addr.kw <= decode.kw;
            addr.dil <= decode.dil;
            addr.pad_y <= decode.pad_y;
            addr.pad_x <= decode.pad_x;
            addr.in_roll <= decode.in_roll;
            addr.row_first <= seq.row_first;
            addr.out_w <= decode.out_w;
            addr.chunks <= decode.chunks;
            addr.taps <= decode.taps;
            wctl.clock <= clock;
            wctl.reset <= host.reset_q;
            wctl.load <= seq.load;
            wctl.run <= seq.run;
            wctl.gather_buf <= addr.fill_buf;
            wctl.mac_end <= mac.mac_end;
            wctl.mac_buf <= mac.read_buf;
            // MAC side.
            mac.clock <= clock;
            mac.reset <= host.reset_q;
            mac.load <= seq.load;
            mac.load_kstart <= kstart_now.kstart;
            mac.run <= seq.run;
            mac.full <= wctl.full;
            mac.out_ch <= decode.out_ch;
            mac.kstart <= decode.kstart;
            mac.kpw <= decode.per_word;
            mac.kslot <= decode.slot;
            mac.out_thresh <= decode.out_thresh;
            mac.out_map <= decode.out_map;
            mac.in_passes <= decode.in_passes;
            mac.chunks <= decode.chunks;
            mac.out_w <= decode.out_w;
            mac.row_first <= seq.row_first;
            mac.pix_first <= seq.pix_first;
            pipe.clock <= clock;
            pipe.reset <= host.reset_q;
            pipe.issue <= mac.issue;
            pipe.first <= mac.first;
            pipe.last <= mac.last;
            pipe.oc <= mac.oc;
            pipe.oproc <= mac.oproc;
            pipe.oe <= mac.oe;
            pipe.opix <= mac.opix;
            active.clock <= clock;
            // Sum over the processors, accumulators, output stage.
            sums.clock <= clock;
            sums.active <= active.q;
            acc.clock <= clock;
            acc.m2_oc <= pipe.m2_oc;
            acc.bias_start <= decode.bias_start;
            acc.bias_en <= decode.bias;
            acc.busy <= seq.busy;
            acc.host_we <= host.bias_we;
            acc.m3_valid <= pipe.m3_valid;
            acc.m3_first <= pipe.m3_first;
            acc.m3_oc <= pipe.m3_oc;
            acc.total <= sums.total;
            out.valid <= pipe.m4_valid;
            out.acc <= acc.m4_acc;
            out.oproc <= pipe.m4_proc;
            out.oe <= pipe.m4_oe;
            out.opix <= pipe.m4_pix;
            out.wide <= decode.wide;
            out.act <= decode.act;
            out.rshift <= decode.rshift;
            out.lshift <= decode.lshift;
            out.out_passes <= decode.out_passes;
            out.gap <= decode.gap;
            out.out_base <= decode.out_base;
            out.out_roll <= decode.out_roll;
            // Ports.
            host_rdata <= host.host_rdata;
            busy <= seq.busy;
            done <= seq.done;
            layer_done <= seq.layer_done;
            layer <= seq.layer;
        }
        // Layer registers (one RAM per word index) and the running layer's configuration.
        wires for k in (0..LAYER_WORDS) {
            lregs[k].clock <= clock;
            lregs[k].write_data <= host.wdata;
            host.lreg_rdata[k] <= lregs[k].read_data;
        }
        wires for k in (0..3) {
            sched[k].clock <= clock;
            sched[k].write_data <= host.wdata;
            host.sched_rdata[k] <= sched[k].read_data;
        }
        wires for k in (0..DECODED_WORDS) {
            cfg[k].clock <= clock;
            decode.words[k] <= cfg[k].q;
            kstart_now.words[k] <= lregs[k].read_data;
        }
        // What every quad gets as it is: the layer's configuration, the host's kernel words;
        // what it gives: its sum.
        wires for q in (0..Q) {
            quads[q].clock <= clock;
            quads[q].cfg_load <= seq.cfg_load;
            quads[q].cfg_chw <= decode.chw;
            quads[q].cfg_avg_round <= decode.avg_round;
            quads[q].cfg_avg_d <= decode.avg_d;
            quads[q].cfg_avg_m <= decode.avg_m;
            quads[q].cfg_avg_sh <= decode.avg_sh;
            quads[q].cfg_pool_first <= decode.pool_first;
            quads[q].cfg_wbits <= decode.bits;
            quads[q].cfg_taps <= decode.taps;
            quads[q].k_wdata <= host.k_wdata;
            quads[q].cfg_lb <= decode.linebuf;
            quads[q].lb_waddr <= fifo.waddr;
            quads[q].lb_wdata <= fifo.wdata;
            sums.qsum[q] <= quads[q].qsum;
        }
        #[hdl_gen]
        fn update(&mut self) {
            // Host port and sequencer.
            self.seq.lc_raddr.next = self.host.addr.val().get_bits::<5>(0);
            self.seq.stream_layers.next = self.host.stream.val().get_bits::<4>(0);
            // The streaming schedule: one RAM per entry word, read at the sequencer's entry
            // (the host's while idle).
            for k in 0..3 {
                self.sched[k].write_enable.next = self.host.sched_we.val()
                    & (self.host.addr.val().get_bits::<2>(0) == self.word_index[k].val().get_bits::<2>(0));
                self.sched[k].write_address.next = self.host.addr.val().get_bits::<SCHED_BITS>(2);
                self.sched[k].read_address.next = self.seq.sched_addr.val();
                if !self.seq.busy.val() {
                    self.sched[k].read_address.next =
                        self.host.addr.val().get_bits::<SCHED_BITS>(2);
                }
            }
            // The rows a layer runs: a schedule entry's, or all of them.
            self.row_last.next = self.decode.out_h.val() - 1;
            if self.seq.slice.val() {
                self.row_last.next = self.seq.row_last.val();
            }
            self.addr.row_last.next = self.row_last.val();
            self.mac.row_last.next = self.row_last.val();
            self.working.next = self.seq.run.val() | (self.seq.state.val() == 3);
            // Layer registers: one RAM per word index, all read at the layer the next LOAD
            // takes (the host's while idle: CTRL, the start, is layer 0).
            self.lreg_addr.next = self.seq.next_layer.val();
            if !self.seq.busy.val() {
                self.lreg_addr.next = self.host.addr.val().get_bits::<5>(4);
            }
            for k in 0..LAYER_WORDS {
                self.lregs[k].write_enable.next = self.host.lreg_we.val()
                    & (self.host.addr.val().get_bits::<4>(0) == self.word_index[k].val());
                self.lregs[k].write_address.next = self.host.addr.val().get_bits::<5>(4);
                self.lregs[k].read_address.next = self.lreg_addr.val();
            }
            // The running layer's configuration: loaded at LOAD, decoded into its fields.
            for k in 0..DECODED_WORDS {
                self.cfg[k].d.next = self.cfg[k].q.val();
                if self.seq.load.val() {
                    self.cfg[k].d.next = self.lregs[k].read_data.val();
                }
            }
            // Gather.
            self.wctl.gather_end.next = self.addr.issue.val() & self.addr.iter_end.val();
            // Quads: the layer's quads get the item, the MAC issue and the reads; the others
            // constants while the engine works, so their gates stop them.
            self.dm_sel.next = 0.into();
            self.k_sel.next = 0.into();
            // The quads the layer uses, registered with its configuration (decoded from the words
            // LOAD takes, so it is computed only then).
            self.active.d.next = self.active.q.val();
            self.active_new.next = 0.into();
            if self.seq.load.val() {
                for q in 0..Q {
                    if self.kstart_now.in_map.val().get_bits::<4>(4 * q).any() {
                        self.active_new.next = self.active_new.val() | self.quad_bit[q].val();
                    }
                }
                self.active.d.next = self.active_new.val();
            }
            // What every used quad gets: the gather's item and read, the MAC's issue and read;
            // while idle, the host's reads.
            self.inner_op.next = self.decode.elt.val();
            self.outer_op.next = bit_cast::<3, 1>(self.decode.pool_avg.val().into());
            if self.decode.pool_first.val() {
                self.inner_op.next = bit_cast::<3, 1>(self.decode.pool_avg.val().into());
                self.outer_op.next = self.decode.elt.val();
            }
            if self.seq.busy.val() {
                self.g_item.next = self.addr.item.val();
                self.dm_rd.next = bit_cast::<14, 13>(self.addr.word.val())
                    | (bit_cast::<14, 1>(self.addr.issue.val().into()) << 13);
                self.m_item.next = bit_cast::<8, 7>(self.mac.kshift.val())
                    | (bit_cast::<8, 1>(self.mac.read_buf.val().into()) << 7);
                self.k_rd.next = bit_cast::<13, 10>(self.mac.kaddr.val())
                    | (bit_cast::<13, 1>(self.mac.issue.val().into()) << 12);
            } else {
                self.g_item.next = self.addr.item.val();
                self.dm_rd.next = bit_cast::<14, 13>(self.host.addr.val().get_bits::<13>(0))
                    | (bit_cast::<14, 1>(self.host.re.val().into()) << 13);
                self.m_item.next = 0.into();
                self.k_rd.next = bit_cast::<13, 12>(self.host.addr.val().get_bits::<12>(2))
                    | (bit_cast::<13, 1>(self.host.re.val().into()) << 12);
            }
            for q in 0..Q {
                self.quads[q].busy.next =
                    (self.working.val() & self.active.q.val().get_bit(q)) | self.seq.cfg_load.val();
                self.quads[q].cfg_en.next = self.decode.in_map.val().get_bits::<4>(4 * q);
                self.quads[q].cfg_inner_op.next = self.inner_op.val();
                self.quads[q].cfg_outer_op.next = self.outer_op.val();
                // A quad the running layer does not use sees constants (its gate stops it).
                if self.seq.busy.val() & !self.active.q.val().get_bit(q) {
                    self.quads[q].g_item.next = 0.into();
                    self.quads[q].dm_rd.next = 0.into();
                    self.quads[q].m_item.next = 0.into();
                    self.quads[q].k_rd.next = 0.into();
                } else {
                    self.quads[q].g_item.next = self.g_item.val();
                    self.quads[q].dm_rd.next = self.dm_rd.val();
                    self.quads[q].m_item.next = self.m_item.val();
                    self.quads[q].k_rd.next = self.k_rd.val();
                }
                // Data-memory writes: the host's (idle), or the output stage's.
                self.quads[q].dm_we.next = 0.into();
                self.quads[q].dm_waddr.next = self.out.gword.val().get_bits::<13>(0);
                self.quads[q].dm_wdata.next = self.out.data.val();
                if self.out.we.val()
                    & (self.out.gword.val().get_bits::<5>(13) == self.quad_index[q].val())
                {
                    self.quads[q].dm_we.next = self.out.be.val();
                }
                if self.host.dm_we.val()
                    & (self.host.addr.val().get_bits::<5>(13) == self.quad_index[q].val())
                {
                    self.quads[q].dm_we.next = self.all_lanes.val();
                    self.quads[q].dm_waddr.next = self.host.addr.val().get_bits::<13>(0);
                    self.quads[q].dm_wdata.next = self.host.wdata.val();
                }
                // Line-buffer writes (the input FIFO's of the quad).
                self.quads[q].lb_we.next = self.fifo.we.val()
                    & (bit_cast::<3, 2>(self.fifo.wf.val()) == self.fifo_of_quad[q].val());
                // Kernel-memory writes (the host's).
                self.quads[q].k_we.next = 0.into();
                if self.host.k_we.val()
                    & (self.host.addr.val().get_bits::<4>(14) == self.quad_of_proc[q].val())
                {
                    self.quads[q].k_we.next =
                        self.lane_bit.val() << self.host.addr.val().get_bits::<2>(12);
                }
                self.quads[q].k_waddr.next = self.host.addr.val().get_bits::<10>(2);
                // Host reads: the quad the read named.
                if self.host.hr_addr.val().get_bits::<5>(13) == self.quad_index[q].val() {
                    self.dm_sel.next = self.quads[q].dm_rdata.val();
                }
                if self.host.hr_addr.val().get_bits::<4>(14) == self.quad_of_proc[q].val() {
                    self.k_sel.next = self.quads[q].k_rdata.val();
                }
            }
            self.host.dm_rdata.next = self.dm_sel.val();
            self.host.k_rdata.next = self.k_sel.val();
            // Sum over the processors, accumulators, output stage.
            self.acc.host_addr.next = self.host.addr.val().get_bits::<11>(0);
            self.acc.host_wdata.next = self.host.wdata.val().get_bits::<8>(0);
            // Ports.
        }
    }
}

crate::dut_io! {
    impl[const P: usize, const Q: usize, const G: usize, const QPG: usize] CnnEngine<P, Q, G, QPG> {
        clock: yes,
        inputs: [reset, host_we, host_re, host_addr, host_wdata, fifo_tdata, fifo_tvalid],
        outputs: [host_rdata, busy, done, layer_done, layer, fifo_tready],
        notes: [],
        memories: [lregs, acc, quads, seq, sched],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cnn_engine_is_synthesizable() {
        crate::synth_check::assert_elaborates("cnn_engine", CnnEngine4::new(16));
    }
}
