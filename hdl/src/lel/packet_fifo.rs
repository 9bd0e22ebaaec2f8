//! PacketFifo: a block-RAM AXI-Stream FIFO between the platform's cores (spec lel-platform.md
//! §7-21: a buffer between Conv and FC0, and between FC0 and FC1, so that FC0 is the only
//! bottleneck) and in front of the conv core (the DMA side). It counts beats and complete
//! packets (beats with TLAST), so a consumer can start an image only when all of it is
//! buffered and then take it at one beat per cycle.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: empty (the RAM keeps its words) |
//! | `s_tdata` | in | 32 | input beat |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | not full: the beat is taken when `s_tvalid & s_tready` |
//! | `s_tuser` | in | 4 | TUSER (the label) |
//! | `s_tlast` | in | 1 | TLAST (the packet's last beat) |
//! | `m_tdata` | out | 32 | head beat |
//! | `m_tvalid` | out | 1 | a beat is readable (never waits for `m_tready`) |
//! | `m_tready` | in | 1 | the head beat moves when `m_tvalid & m_tready` |
//! | `m_tuser` | out | 4 | head beat's TUSER |
//! | `m_tlast` | out | 1 | head beat's TLAST |
//! | `count` | out | 16 | beats held (taken and not yet moved out) |
//! | `packets` | out | 16 | TLAST beats held |
//!
//! Timing: the words live in one `SdpRam` of `depth` x 37 bits (data, TUSER, TLAST), read
//! with its registered output as the head (no extra register: `m_tdata` is the RAM's
//! `read_data`). The read address is the next head's, so a full-rate stream moves one beat
//! per cycle. A beat taken at edge t is readable from cycle t + 2 (the RAM write, then the
//! read of that word); `count` and `packets` include it from cycle t + 1. `s_tready` is
//! `count < depth` (a beat leaving at the same edge does not make room). The head holds
//! while stalled: no write ever lands on an occupied word.
//! Golden: `edgelearn_verif::golden::packet_fifo`. Tests: `tests/core_blocks.rs`.

use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// Largest depth (beats).
pub const PACKET_FIFO_MAX_DEPTH: usize = 1 << 15;

/// Block-RAM FIFO of 32-bit beats with TUSER (4 bits) and TLAST, `depth` beats.
#[derive(Clone, Debug, LogicBlock)]
pub struct PacketFifo {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input beat.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Input valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input ready.
    pub s_tready: Signal<Out, Bit>,
    /// Input TUSER.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Input TLAST.
    pub s_tlast: Signal<In, Bit>,
    /// Head beat.
    pub m_tdata: Signal<Out, Bits<32>>,
    /// Head valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Consumer ready.
    pub m_tready: Signal<In, Bit>,
    /// Head TUSER.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Head TLAST.
    pub m_tlast: Signal<Out, Bit>,
    /// Beats held.
    pub count: Signal<Out, Bits<16>>,
    /// TLAST beats held.
    pub packets: Signal<Out, Bits<16>>,
    ram: SdpRam<16, 37>,
    wptr: DFF<Bits<16>>,
    rptr: DFF<Bits<16>>,
    fill: DFF<Bits<16>>,
    vis: DFF<Bits<16>>,
    pkts: DFF<Bits<16>>,
    put_q: DFF<Bit>,
    put: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    rnext: Signal<Local, Bits<16>>,
    word: Signal<Local, Bits<37>>,
    top: Constant<Bits<16>>,
    last_bit: Constant<Bits<37>>,
    depth: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
}

impl PacketFifo {
    /// An empty FIFO of `depth` beats (1..=32,768).
    pub fn new(depth: usize) -> Self {
        assert!(
            (1..=PACKET_FIFO_MAX_DEPTH).contains(&depth),
            "PacketFifo: depth {depth} must be in 1..={PACKET_FIFO_MAX_DEPTH}"
        );
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
            count: Default::default(),
            packets: Default::default(),
            ram: SdpRam::new(depth),
            wptr: Default::default(),
            rptr: Default::default(),
            fill: Default::default(),
            vis: Default::default(),
            pkts: Default::default(),
            put_q: Default::default(),
            put: Default::default(),
            pop: Default::default(),
            rnext: Default::default(),
            word: Default::default(),
            top: c16(depth - 1),
            last_bit: Constant::new(Bits::<37>::from(1u64 << 36)),
            depth: c16(depth),
            one16: c16(1),
        }
    }

    /// Beats it holds.
    pub fn depth(&self) -> usize {
        self.ram.depth()
    }
}

impl Logic for PacketFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wptr, rptr, fill, vis, pkts, put_q);
        self.ram.clock.next = self.clock.val();
        self.put.next = self.s_tvalid.val() & (self.fill.q.val() != self.depth.val());
        self.pop.next = self.vis.q.val().any() & self.m_tready.val();
        self.word.next =
            bit_cast::<37, 32>(self.s_tdata.val()) | (bit_cast::<37, 4>(self.s_tuser.val()) << 32);
        if self.s_tlast.val() {
            self.word.next = self.word.val() | self.last_bit.val();
        }
        // The head's successor, wrapped.
        self.rnext.next = self.rptr.q.val();
        if self.pop.val() {
            self.rnext.next = self.rptr.q.val() + self.one16.val();
            if self.rptr.q.val() == self.top.val() {
                self.rnext.next = 0.into();
            }
        }
        self.rptr.d.next = self.rnext.val();
        if self.put.val() {
            self.wptr.d.next = self.wptr.q.val() + self.one16.val();
            if self.wptr.q.val() == self.top.val() {
                self.wptr.d.next = 0.into();
            }
        }
        self.put_q.d.next = self.put.val();
        if self.put.val() & !self.pop.val() {
            self.fill.d.next = self.fill.q.val() + self.one16.val();
        }
        if self.pop.val() & !self.put.val() {
            self.fill.d.next = self.fill.q.val() - self.one16.val();
        }
        // A word becomes readable one edge after its write (the RAM reads it then).
        if self.put_q.q.val() & !self.pop.val() {
            self.vis.d.next = self.vis.q.val() + self.one16.val();
        }
        if self.pop.val() & !self.put_q.q.val() {
            self.vis.d.next = self.vis.q.val() - self.one16.val();
        }
        if (self.put.val() & self.s_tlast.val())
            & !(self.pop.val() & self.ram.read_data.val().get_bit(36))
        {
            self.pkts.d.next = self.pkts.q.val() + self.one16.val();
        }
        if (self.pop.val() & self.ram.read_data.val().get_bit(36))
            & !(self.put.val() & self.s_tlast.val())
        {
            self.pkts.d.next = self.pkts.q.val() - self.one16.val();
        }
        if self.reset.val() {
            self.wptr.d.next = 0.into();
            self.rptr.d.next = 0.into();
            self.fill.d.next = 0.into();
            self.vis.d.next = 0.into();
            self.pkts.d.next = 0.into();
            self.put_q.d.next = false;
        }
        // Every sub-block input and output is assigned once (docs/decisions.md D-HDLGEN).
        self.ram.write_enable.next = self.put.val() & !self.reset.val();
        self.ram.write_address.next = self.wptr.q.val();
        self.ram.write_data.next = self.word.val();
        self.ram.read_address.next = self.rnext.val();
        self.s_tready.next = self.fill.q.val() != self.depth.val();
        self.m_tvalid.next = self.vis.q.val().any();
        self.m_tdata.next = self.ram.read_data.val().get_bits::<32>(0);
        self.m_tuser.next = self.ram.read_data.val().get_bits::<4>(32);
        self.m_tlast.next = self.ram.read_data.val().get_bit(36);
        self.count.next = self.fill.q.val();
        self.packets.next = self.pkts.q.val();
    }
}

impl crate::design::HasMemories for PacketFifo {
    /// The words are `PATH.ram.mem` (37 bits: data, TUSER at 32, TLAST at 36).
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        self.ram
            .visit_memories(&crate::design::join_path(path, "ram"), f);
    }
}

crate::dut_io! {
    impl[] PacketFifo {
        clock: yes,
        inputs: [reset, s_tdata, s_tvalid, s_tuser, s_tlast, m_tready],
        outputs: [s_tready, m_tdata, m_tvalid, m_tuser, m_tlast, count, packets],
        notes: [],
        memories: [ram],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_fifo_is_synthesizable() {
        crate::synth_check::assert_synthesizable("packet_fifo", PacketFifo::new(64));
    }
}
