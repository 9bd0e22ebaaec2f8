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
//!
//! Blocks: [`HostPort`], [`LayerSeq`] (the FSM), the layer registers (16 RAMs of 32 words,
//! one per word index, read together at LOAD) and their decode ([`LayerDecode`], generated
//! from `hdl/regs/cnn_engine.toml`), [`AddrGen`] (the gather), [`WindowCtl`], [`MacCtl`] and
//! [`MacPipe`] (the MAC side), the [`Quad`]s (four [`Processor`](super::processor::Processor)s
//! and their data memory each, behind a simulation gate), [`GroupSum`], [`AccMem`] and
//! [`OutStage`]. A quad the running layer does not use gets constant inputs (operand
//! isolation), so its gate stops its clock in the in-process Verilator model; its sums are
//! masked out. Cycles of a layer: `edgelearn_verif::cnn::engine::layer_cycles`.
//! Parameters: P processors = 4 Q, G groups of QPG quads (16 processors a group, all of
//! them below 16): [`CnnEngine4`] .. [`CnnEngine64`]; kernel words per processor 1..=1024.
//! Golden: `edgelearn_verif::cnn` (every layer's data-memory words). Tests:
//! `tests/cnn_rtl.rs` (the vendored ai8x networks and layer tests), `tests/cnn_engine_blocks.rs`.

use super::acc_mem::AccMem;
use super::addr_gen::AddrGen;
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
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

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
    host: HostPort,
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
    g_item: Signal<Local, Bits<13>>,
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
            host: HostPort::new(P, kernel_words),
            seq: Default::default(),
            lregs: array_init::array_init(|_| SdpRam::new(32)),
            cfg: Default::default(),
            decode: Default::default(),
            kstart_now: Default::default(),
            addr: Default::default(),
            wctl: Default::default(),
            mac: Default::default(),
            pipe: Default::default(),
            quads: (0..Q).map(|_| Quad::new(kernel_words)).collect(),
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
    #[hdl_gen]
    fn update(&mut self) {
        // Host port and sequencer.
        self.host.clock.next = self.clock.val();
        self.host.reset.next = self.reset.val();
        self.host.host_we.next = self.host_we.val();
        self.host.host_re.next = self.host_re.val();
        self.host.host_addr.next = self.host_addr.val();
        self.host.host_wdata.next = self.host_wdata.val();
        self.host.busy.next = self.seq.busy.val();
        self.host.done.next = self.seq.done.val();
        self.host.layer.next = self.seq.layer.val();
        self.host.cycles.next = self.seq.cycles.val();
        self.host.lc_rdata.next = self.seq.lc_rdata.val();
        self.host.bias_rdata.next = self.acc.bias_rdata.val();
        self.seq.clock.next = self.clock.val();
        self.seq.reset.next = self.host.reset_q.val();
        self.seq.start.next = self.host.start.val();
        self.seq.nlayers.next = self.host.nlayers.val();
        self.seq.layer_end.next = self.mac.layer_end.val();
        self.seq.lc_raddr.next = self.host.addr.val().get_bits::<5>(0);
        self.working.next = self.seq.run.val() | (self.seq.state.val() == 3);
        // Layer registers: one RAM per word index, all read at the layer the next LOAD
        // takes (the host's while idle: CTRL, the start, is layer 0).
        self.lreg_addr.next = self.seq.next_layer.val();
        if !self.seq.busy.val() {
            self.lreg_addr.next = self.host.addr.val().get_bits::<5>(4);
        }
        for k in 0..LAYER_WORDS {
            self.lregs[k].clock.next = self.clock.val();
            self.lregs[k].write_enable.next = self.host.lreg_we.val()
                & (self.host.addr.val().get_bits::<4>(0) == self.word_index[k].val());
            self.lregs[k].write_address.next = self.host.addr.val().get_bits::<5>(4);
            self.lregs[k].write_data.next = self.host.wdata.val();
            self.lregs[k].read_address.next = self.lreg_addr.val();
            self.host.lreg_rdata[k].next = self.lregs[k].read_data.val();
        }
        // The running layer's configuration: loaded at LOAD, decoded into its fields.
        for k in 0..DECODED_WORDS {
            self.cfg[k].clock.next = self.clock.val();
            self.cfg[k].d.next = self.cfg[k].q.val();
            if self.seq.load.val() {
                self.cfg[k].d.next = self.lregs[k].read_data.val();
            }
            self.decode.words[k].next = self.cfg[k].q.val();
            self.kstart_now.words[k].next = self.lregs[k].read_data.val();
        }
        // Gather.
        self.addr.clock.next = self.clock.val();
        self.addr.reset.next = self.host.reset_q.val();
        self.addr.load.next = self.seq.load.val();
        self.addr.run.next = self.seq.run.val();
        self.addr.full.next = self.wctl.full.val();
        self.addr.pend.next = self.wctl.pend.val();
        self.addr.mode.next = self.decode.mode.val();
        self.addr.chw.next = self.decode.chw.val();
        self.addr.pool_first.next = self.decode.pool_first.val();
        self.addr.in_w.next = self.decode.in_w.val();
        self.addr.in_passes.next = self.decode.in_passes.val();
        self.addr.operands.next = self.decode.operands.val();
        self.addr.in_base.next = self.decode.in_base.val();
        self.addr.pool_h.next = self.decode.pool_h.val();
        self.addr.pool_w.next = self.decode.pool_w.val();
        self.addr.stride_y.next = self.decode.stride_y.val();
        self.addr.stride_x.next = self.decode.stride_x.val();
        self.addr.pooled_h.next = self.decode.pooled_h.val();
        self.addr.pooled_w.next = self.decode.pooled_w.val();
        self.addr.kw.next = self.decode.kw.val();
        self.addr.dil.next = self.decode.dil.val();
        self.addr.pad_y.next = self.decode.pad_y.val();
        self.addr.pad_x.next = self.decode.pad_x.val();
        self.addr.out_h.next = self.decode.out_h.val();
        self.addr.out_w.next = self.decode.out_w.val();
        self.addr.chunks.next = self.decode.chunks.val();
        self.addr.taps.next = self.decode.taps.val();
        self.wctl.clock.next = self.clock.val();
        self.wctl.reset.next = self.host.reset_q.val();
        self.wctl.load.next = self.seq.load.val();
        self.wctl.run.next = self.seq.run.val();
        self.wctl.gather_end.next = self.addr.issue.val() & self.addr.iter_end.val();
        self.wctl.gather_buf.next = self.addr.fill_buf.val();
        self.wctl.mac_end.next = self.mac.mac_end.val();
        self.wctl.mac_buf.next = self.mac.read_buf.val();
        // MAC side.
        self.mac.clock.next = self.clock.val();
        self.mac.reset.next = self.host.reset_q.val();
        self.mac.load.next = self.seq.load.val();
        self.mac.load_kstart.next = self.kstart_now.kstart.val();
        self.mac.run.next = self.seq.run.val();
        self.mac.full.next = self.wctl.full.val();
        self.mac.out_ch.next = self.decode.out_ch.val();
        self.mac.kstart.next = self.decode.kstart.val();
        self.mac.kpw.next = self.decode.per_word.val();
        self.mac.kslot.next = self.decode.slot.val();
        self.mac.out_thresh.next = self.decode.out_thresh.val();
        self.mac.out_map.next = self.decode.out_map.val();
        self.mac.in_passes.next = self.decode.in_passes.val();
        self.mac.chunks.next = self.decode.chunks.val();
        self.mac.out_w.next = self.decode.out_w.val();
        self.mac.out_h.next = self.decode.out_h.val();
        self.pipe.clock.next = self.clock.val();
        self.pipe.reset.next = self.host.reset_q.val();
        self.pipe.issue.next = self.mac.issue.val();
        self.pipe.first.next = self.mac.first.val();
        self.pipe.last.next = self.mac.last.val();
        self.pipe.oc.next = self.mac.oc.val();
        self.pipe.oproc.next = self.mac.oproc.val();
        self.pipe.oe.next = self.mac.oe.val();
        self.pipe.opix.next = self.mac.opix.val();
        // Quads: the layer's quads get the item, the MAC issue and the reads; the others
        // constants while the engine works, so their gates stop them.
        self.dm_sel.next = 0.into();
        self.k_sel.next = 0.into();
        // The quads the layer uses, registered with its configuration (decoded from the words
        // LOAD takes, so it is computed only then).
        self.active.clock.next = self.clock.val();
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
            self.quads[q].clock.next = self.clock.val();
            self.quads[q].busy.next =
                (self.working.val() & self.active.q.val().get_bit(q)) | self.seq.cfg_load.val();
            self.quads[q].cfg_load.next = self.seq.cfg_load.val();
            self.quads[q].cfg_chw.next = self.decode.chw.val();
            self.quads[q].cfg_en.next = self.decode.in_map.val().get_bits::<4>(4 * q);
            self.quads[q].cfg_inner_op.next = self.inner_op.val();
            self.quads[q].cfg_outer_op.next = self.outer_op.val();
            self.quads[q].cfg_avg_round.next = self.decode.avg_round.val();
            self.quads[q].cfg_avg_d.next = self.decode.avg_d.val();
            self.quads[q].cfg_avg_m.next = self.decode.avg_m.val();
            self.quads[q].cfg_avg_sh.next = self.decode.avg_sh.val();
            self.quads[q].cfg_pool_first.next = self.decode.pool_first.val();
            self.quads[q].cfg_wbits.next = self.decode.bits.val();
            self.quads[q].cfg_taps.next = self.decode.taps.val();
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
            // Kernel-memory writes (the host's).
            self.quads[q].k_we.next = 0.into();
            if self.host.k_we.val()
                & (self.host.addr.val().get_bits::<4>(14) == self.quad_of_proc[q].val())
            {
                self.quads[q].k_we.next =
                    self.lane_bit.val() << self.host.addr.val().get_bits::<2>(12);
            }
            self.quads[q].k_waddr.next = self.host.addr.val().get_bits::<10>(2);
            self.quads[q].k_wdata.next = self.host.k_wdata.val();
            // Host reads: the quad the read named.
            if self.host.hr_addr.val().get_bits::<5>(13) == self.quad_index[q].val() {
                self.dm_sel.next = self.quads[q].dm_rdata.val();
            }
            if self.host.hr_addr.val().get_bits::<4>(14) == self.quad_of_proc[q].val() {
                self.k_sel.next = self.quads[q].k_rdata.val();
            }
            self.sums.qsum[q].next = self.quads[q].qsum.val();
        }
        self.host.dm_rdata.next = self.dm_sel.val();
        self.host.k_rdata.next = self.k_sel.val();
        // Sum over the processors, accumulators, output stage.
        self.sums.clock.next = self.clock.val();
        self.sums.active.next = self.active.q.val();
        self.acc.clock.next = self.clock.val();
        self.acc.m2_oc.next = self.pipe.m2_oc.val();
        self.acc.bias_start.next = self.decode.bias_start.val();
        self.acc.bias_en.next = self.decode.bias.val();
        self.acc.busy.next = self.seq.busy.val();
        self.acc.host_we.next = self.host.bias_we.val();
        self.acc.host_addr.next = self.host.addr.val().get_bits::<11>(0);
        self.acc.host_wdata.next = self.host.wdata.val().get_bits::<8>(0);
        self.acc.m3_valid.next = self.pipe.m3_valid.val();
        self.acc.m3_first.next = self.pipe.m3_first.val();
        self.acc.m3_oc.next = self.pipe.m3_oc.val();
        self.acc.total.next = self.sums.total.val();
        self.out.valid.next = self.pipe.m4_valid.val();
        self.out.acc.next = self.acc.m4_acc.val();
        self.out.oproc.next = self.pipe.m4_proc.val();
        self.out.oe.next = self.pipe.m4_oe.val();
        self.out.opix.next = self.pipe.m4_pix.val();
        self.out.wide.next = self.decode.wide.val();
        self.out.act.next = self.decode.act.val();
        self.out.rshift.next = self.decode.rshift.val();
        self.out.lshift.next = self.decode.lshift.val();
        self.out.out_passes.next = self.decode.out_passes.val();
        self.out.gap.next = self.decode.gap.val();
        self.out.out_base.next = self.decode.out_base.val();
        // Ports.
        self.host_rdata.next = self.host.host_rdata.val();
        self.busy.next = self.seq.busy.val();
        self.done.next = self.seq.done.val();
        self.layer_done.next = self.seq.layer_done.val();
        self.layer.next = self.seq.layer.val();
    }
}

crate::dut_io! {
    impl[const P: usize, const Q: usize, const G: usize, const QPG: usize] CnnEngine<P, Q, G, QPG> {
        clock: yes,
        inputs: [reset, host_we, host_re, host_addr, host_wdata],
        outputs: [host_rdata, busy, done, layer_done, layer],
        notes: [],
        memories: [lregs, acc, quads, seq],
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
