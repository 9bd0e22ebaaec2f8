//! HostPort: the CNN engine's host port (docs/cnn-engine-rtl.md "Host port"; the map is
//! generated from `hdl/regs/cnn_engine.toml`, [`super::regs`]): word addresses, the region
//! in `host_addr[23:20]`. Every input passes a flip-flop first (the port stage): a write
//! (or the reset) takes effect one edge after the port takes it, while the engine is idle,
//! and a read is answered on `host_rdata` two cycles after `host_re`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: NLAYERS 1, nothing read |
//! | `host_we`, `host_re` | in | 1 | write / read strobe |
//! | `host_addr` | in | 24 | word address |
//! | `host_wdata` | in | 32 | write data |
//! | `busy`, `done`, `layer`, `cycles` | in | 1, 1, 5, 32 | the sequencer's status |
//! | `lc_rdata`, `lreg_rdata`, `bias_rdata`, `dm_rdata`, `k_rdata`, `sched_rdata` | in | 32, 16 x 32, 8, 32, 72, 3 x 32 | the memories' read data (each read one edge after its address, the host's while idle) |
//! | `host_rdata` | out | 32 | the word read by the `host_re` two edges before |
//! | `hr_addr` | out | 24 | the address of that read (selects the data memory and processor) |
//! | `start` | out | 1 | CTRL written with bit 0 set |
//! | `nlayers` | out | 6 | layers to run |
//! | `lreg_we`, `bias_we`, `dm_we`, `k_we`, `sched_we` | out | 1 | a write to that region while idle |
//! | `stream` | out | 18 | the STREAM register |
//! | `k_wdata` | out | 72 | the kernel word: `host_wdata[7:0]` above the two staged parts |
//! | `reset_q`, `re`, `addr`, `wdata` | out | 1, 1, 24, 32 | the registered `reset`, `host_re`, `host_addr`, `host_wdata` (what the engine uses) |
//!
//! Kernel words are written in three parts: parts 0 and 1 (bits 31:0, 63:32) are staged,
//! part 2 (bits 71:64) writes the word. Reads of the memories while the engine runs return
//! what the engine reads (the layer registers of the running layer, the bias of its channel,
//! the gather's data word); CTRL, CYCLES, LAYER and the layer cycle counts are always live.
//! Golden: `edgelearn_verif::golden::cnn_engine::HostRegs` (the register map, `regs`) and
//! the engine's bench (`verif::rtl::cnn`, front-door load and read-back). Tests:
//! `tests/cnn_engine_blocks.rs` ([`HostPortBench`], registered as `cnn_host_port`),
//! `tests/cnn_rtl.rs`.

use super::regs;
use rust_hdl::prelude::*;

/// The host port.
#[derive(Clone, Debug, LogicBlock)]
pub struct HostPort {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Write strobe.
    pub host_we: Signal<In, Bit>,
    /// Read strobe.
    pub host_re: Signal<In, Bit>,
    /// Word address.
    pub host_addr: Signal<In, Bits<24>>,
    /// Write data.
    pub host_wdata: Signal<In, Bits<32>>,
    /// The engine runs.
    pub busy: Signal<In, Bit>,
    /// The run has finished.
    pub done: Signal<In, Bit>,
    /// The running layer.
    pub layer: Signal<In, Bits<5>>,
    /// Cycles of the run.
    pub cycles: Signal<In, Bits<32>>,
    /// A layer's cycle count.
    pub lc_rdata: Signal<In, Bits<32>>,
    /// The layer-register words.
    pub lreg_rdata: [Signal<In, Bits<32>>; regs::LAYER_WORDS],
    /// A bias byte.
    pub bias_rdata: Signal<In, Bits<8>>,
    /// A data-memory word.
    pub dm_rdata: Signal<In, Bits<32>>,
    /// A kernel word.
    pub k_rdata: Signal<In, Bits<72>>,
    /// The schedule entry's words.
    pub sched_rdata: [Signal<In, Bits<32>>; 3],
    /// Read data.
    pub host_rdata: Signal<Out, Bits<32>>,
    /// Address of the last read.
    pub hr_addr: Signal<Out, Bits<24>>,
    /// Start a run.
    pub start: Signal<Out, Bit>,
    /// Layers to run.
    pub nlayers: Signal<Out, Bits<6>>,
    /// The STREAM register.
    pub stream: Signal<Out, Bits<18>>,
    /// Schedule write.
    pub sched_we: Signal<Out, Bit>,
    /// Layer-register write.
    pub lreg_we: Signal<Out, Bit>,
    /// Bias write.
    pub bias_we: Signal<Out, Bit>,
    /// Data-memory write.
    pub dm_we: Signal<Out, Bit>,
    /// Kernel-memory write.
    pub k_we: Signal<Out, Bit>,
    /// Kernel word to write.
    pub k_wdata: Signal<Out, Bits<72>>,
    /// The registered reset (the engine's).
    pub reset_q: Signal<Out, Bit>,
    /// The registered read strobe.
    pub re: Signal<Out, Bit>,
    /// The registered address.
    pub addr: Signal<Out, Bits<24>>,
    /// The registered write data.
    pub wdata: Signal<Out, Bits<32>>,
    in_reset: DFF<Bit>,
    in_we: DFF<Bit>,
    in_re: DFF<Bit>,
    in_addr: DFF<Bits<24>>,
    in_wdata: DFF<Bits<32>>,
    nlayers_q: DFF<Bits<6>>,
    stream_q: DFF<Bits<18>>,
    kstage: DFF<Bits<64>>,
    hr_addr_q: DFF<Bits<24>>,
    hr_reg: DFF<Bits<32>>,
    region: Signal<Local, Bits<4>>,
    write: Signal<Local, Bit>,
    read_region: Signal<Local, Bits<4>>,
    hi32: Constant<Bits<64>>,
    reg_ctrl: Constant<Bits<24>>,
    reg_nlayers: Constant<Bits<24>>,
    reg_cycles: Constant<Bits<24>>,
    reg_layer: Constant<Bits<24>>,
    reg_processors: Constant<Bits<24>>,
    reg_kernel_words: Constant<Bits<24>>,
    reg_stream: Constant<Bits<24>>,
    region_sched: Constant<Bits<4>>,
    lc_page: Constant<Bits<3>>,
    region_lregs: Constant<Bits<4>>,
    region_bias: Constant<Bits<4>>,
    region_data: Constant<Bits<4>>,
    region_kernel: Constant<Bits<4>>,
    part_hi: Constant<Bits<2>>,
    part_top: Constant<Bits<2>>,
    processors: Constant<Bits<32>>,
    kernel_words: Constant<Bits<32>>,
    word_index: [Constant<Bits<4>>; regs::LAYER_WORDS],
}

impl HostPort {
    /// The host port of an engine of `processors` processors of `kernel_words` kernel
    /// words (what PROCESSORS and KERNEL_WORDS read).
    pub fn new(processors: usize, kernel_words: usize) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            host_we: Default::default(),
            host_re: Default::default(),
            host_addr: Default::default(),
            host_wdata: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            layer: Default::default(),
            cycles: Default::default(),
            lc_rdata: Default::default(),
            lreg_rdata: Default::default(),
            bias_rdata: Default::default(),
            dm_rdata: Default::default(),
            k_rdata: Default::default(),
            sched_rdata: Default::default(),
            host_rdata: Default::default(),
            hr_addr: Default::default(),
            start: Default::default(),
            nlayers: Default::default(),
            stream: Default::default(),
            sched_we: Default::default(),
            lreg_we: Default::default(),
            bias_we: Default::default(),
            dm_we: Default::default(),
            k_we: Default::default(),
            k_wdata: Default::default(),
            reset_q: Default::default(),
            re: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            in_reset: Default::default(),
            in_we: Default::default(),
            in_re: Default::default(),
            in_addr: Default::default(),
            in_wdata: Default::default(),
            nlayers_q: Default::default(),
            stream_q: Default::default(),
            kstage: Default::default(),
            hr_addr_q: Default::default(),
            hr_reg: Default::default(),
            region: Default::default(),
            write: Default::default(),
            read_region: Default::default(),
            hi32: Constant::new((0xffff_ffffu64 << 32).into()),
            reg_ctrl: Constant::new((regs::CTRL as u64).into()),
            reg_nlayers: Constant::new((regs::NLAYERS as u64).into()),
            reg_cycles: Constant::new((regs::CYCLES as u64).into()),
            reg_layer: Constant::new((regs::LAYER as u64).into()),
            reg_processors: Constant::new((regs::PROCESSORS as u64).into()),
            reg_kernel_words: Constant::new((regs::KERNEL_WORDS as u64).into()),
            reg_stream: Constant::new((regs::STREAM as u64).into()),
            region_sched: Constant::new(((regs::SCHEDULE >> 20) as u64).into()),
            lc_page: Constant::new(((regs::LAYER_CYCLES >> 5) as u64).into()),
            region_lregs: Constant::new(((regs::LAYER_REGS >> 20) as u64).into()),
            region_bias: Constant::new(((regs::BIAS >> 20) as u64).into()),
            region_data: Constant::new(((regs::DATA >> 20) as u64).into()),
            region_kernel: Constant::new(((regs::KERNEL >> 20) as u64).into()),
            part_hi: Constant::new(1u64.into()),
            part_top: Constant::new(2u64.into()),
            processors: Constant::new((processors as u64).into()),
            kernel_words: Constant::new((kernel_words as u64).into()),
            word_index: array_init::array_init(|k| Constant::new((k as u64).into())),
        }
    }
}

impl Logic for HostPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_reset, in_we, in_re, in_addr, in_wdata, nlayers_q, stream_q, kstage,
            hr_addr_q, hr_reg
        );
        // The port stage: every input passes a flip-flop first, so no logic of the engine
        // depends combinationally on a port (D-CNN-RTL-HDL).
        self.in_reset.d.next = self.reset.val();
        self.in_we.d.next = self.host_we.val();
        self.in_re.d.next = self.host_re.val();
        self.in_addr.d.next = self.host_addr.val();
        self.in_wdata.d.next = self.host_wdata.val();
        self.region.next = self.in_addr.q.val().get_bits::<4>(20);
        self.write.next = self.in_we.q.val() & !self.busy.val();
        // Writes.
        self.start.next = self.in_we.q.val()
            & (self.in_addr.q.val() == self.reg_ctrl.val())
            & self.in_wdata.q.val().get_bit(0);
        if self.write.val() & (self.in_addr.q.val() == self.reg_nlayers.val()) {
            self.nlayers_q.d.next = self.in_wdata.q.val().get_bits::<6>(0);
        }
        if self.write.val() & (self.in_addr.q.val() == self.reg_stream.val()) {
            self.stream_q.d.next = self.in_wdata.q.val().get_bits::<18>(0);
        }
        self.sched_we.next = self.write.val() & (self.region.val() == self.region_sched.val());
        self.lreg_we.next = self.write.val() & (self.region.val() == self.region_lregs.val());
        self.bias_we.next = self.write.val() & (self.region.val() == self.region_bias.val());
        self.dm_we.next = self.write.val() & (self.region.val() == self.region_data.val());
        self.k_we.next = self.write.val()
            & (self.region.val() == self.region_kernel.val())
            & (self.in_addr.q.val().get_bits::<2>(0) == self.part_top.val());
        if self.write.val() & (self.region.val() == self.region_kernel.val()) {
            if self.in_addr.q.val().get_bits::<2>(0) == 0 {
                self.kstage.d.next = (self.kstage.q.val() & self.hi32.val())
                    | bit_cast::<64, 32>(self.in_wdata.q.val());
            }
            if self.in_addr.q.val().get_bits::<2>(0) == self.part_hi.val() {
                self.kstage.d.next = bit_cast::<64, 32>(self.kstage.q.val().get_bits::<32>(0))
                    | (bit_cast::<64, 32>(self.in_wdata.q.val()) << 32);
            }
        }
        self.k_wdata.next = bit_cast::<72, 64>(self.kstage.q.val())
            | (bit_cast::<72, 8>(self.in_wdata.q.val().get_bits::<8>(0)) << 64);
        // Reads: the registers now, the memories through their read data one edge later.
        if self.in_re.q.val() {
            self.hr_addr_q.d.next = self.in_addr.q.val();
            self.hr_reg.d.next = 0.into();
            if self.in_addr.q.val() == self.reg_ctrl.val() {
                self.hr_reg.d.next = bit_cast::<32, 1>(self.busy.val().into())
                    | (bit_cast::<32, 1>(self.done.val().into()) << 1);
            } else if self.in_addr.q.val() == self.reg_nlayers.val() {
                self.hr_reg.d.next = bit_cast::<32, 6>(self.nlayers_q.q.val());
            } else if self.in_addr.q.val() == self.reg_cycles.val() {
                self.hr_reg.d.next = self.cycles.val();
            } else if self.in_addr.q.val() == self.reg_layer.val() {
                self.hr_reg.d.next = bit_cast::<32, 5>(self.layer.val());
            } else if self.in_addr.q.val() == self.reg_processors.val() {
                self.hr_reg.d.next = self.processors.val();
            } else if self.in_addr.q.val() == self.reg_kernel_words.val() {
                self.hr_reg.d.next = self.kernel_words.val();
            } else if self.in_addr.q.val() == self.reg_stream.val() {
                self.hr_reg.d.next = bit_cast::<32, 18>(self.stream_q.q.val());
            }
        }
        self.read_region.next = self.hr_addr_q.q.val().get_bits::<4>(20);
        self.host_rdata.next = self.hr_reg.q.val();
        if self.read_region.val() == 0 {
            if (self.hr_addr_q.q.val().get_bits::<3>(5) == self.lc_page.val())
                & (self.hr_addr_q.q.val().get_bits::<12>(8) == 0)
            {
                self.host_rdata.next = self.lc_rdata.val();
            }
        } else if self.read_region.val() == self.region_lregs.val() {
            self.host_rdata.next = self.lreg_rdata[0].val();
            for k in 0..regs::LAYER_WORDS {
                if self.hr_addr_q.q.val().get_bits::<4>(0) == self.word_index[k].val() {
                    self.host_rdata.next = self.lreg_rdata[k].val();
                }
            }
        } else if self.read_region.val() == self.region_bias.val() {
            self.host_rdata.next = bit_cast::<32, 8>(self.bias_rdata.val());
        } else if self.read_region.val() == self.region_data.val() {
            self.host_rdata.next = self.dm_rdata.val();
        } else if self.read_region.val() == self.region_sched.val() {
            self.host_rdata.next = self.sched_rdata[0].val();
            for k in 0..3 {
                if self.hr_addr_q.q.val().get_bits::<2>(0)
                    == self.word_index[k].val().get_bits::<2>(0)
                {
                    self.host_rdata.next = self.sched_rdata[k].val();
                }
            }
        } else if self.read_region.val() == self.region_kernel.val() {
            self.host_rdata.next = bit_cast::<32, 8>(self.k_rdata.val().get_bits::<8>(64));
            if self.hr_addr_q.q.val().get_bits::<2>(0) == 0 {
                self.host_rdata.next = self.k_rdata.val().get_bits::<32>(0);
            } else if self.hr_addr_q.q.val().get_bits::<2>(0) == self.part_hi.val() {
                self.host_rdata.next = self.k_rdata.val().get_bits::<32>(32);
            }
        }
        if self.in_reset.q.val() {
            self.nlayers_q.d.next = 1.into();
            self.stream_q.d.next = 0.into();
            self.hr_addr_q.d.next = 0.into();
            self.hr_reg.d.next = 0.into();
        }
        self.hr_addr.next = self.hr_addr_q.q.val();
        self.nlayers.next = self.nlayers_q.q.val();
        self.stream.next = self.stream_q.q.val();
        self.reset_q.next = self.in_reset.q.val();
        self.re.next = self.in_re.q.val();
        self.addr.next = self.in_addr.q.val();
        self.wdata.next = self.in_wdata.q.val();
    }
}

/// Processors of the host port on the bench (the 64-processor engine's).
pub const BENCH_PROCESSORS: usize = 64;
/// Kernel words per processor there.
pub const BENCH_KERNEL_WORDS: usize = 768;

/// The 64-processor engine's host port with the layer-register words on one port, for the
/// block bench (a port list holds no arrays): `lreg_rdata` is 16 x 32 bits, word k in bits
/// `32k + 31 : 32k`; every other port is [`HostPort`]'s.
#[derive(Clone, Debug, LogicBlock)]
pub struct HostPortBench {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Write strobe.
    pub host_we: Signal<In, Bit>,
    /// Read strobe.
    pub host_re: Signal<In, Bit>,
    /// Word address.
    pub host_addr: Signal<In, Bits<24>>,
    /// Write data.
    pub host_wdata: Signal<In, Bits<32>>,
    /// The engine runs.
    pub busy: Signal<In, Bit>,
    /// The run has finished.
    pub done: Signal<In, Bit>,
    /// The running layer.
    pub layer: Signal<In, Bits<5>>,
    /// Cycles of the run.
    pub cycles: Signal<In, Bits<32>>,
    /// A layer's cycle count.
    pub lc_rdata: Signal<In, Bits<32>>,
    /// The layer-register words, packed.
    pub lreg_rdata: Signal<In, Bits<512>>,
    /// A bias byte.
    pub bias_rdata: Signal<In, Bits<8>>,
    /// A data-memory word.
    pub dm_rdata: Signal<In, Bits<32>>,
    /// A kernel word.
    pub k_rdata: Signal<In, Bits<72>>,
    /// The schedule entry's words, packed (word k in bits 32k + 31 : 32k).
    pub sched_rdata: Signal<In, Bits<96>>,
    /// Read data.
    pub host_rdata: Signal<Out, Bits<32>>,
    /// Address of the last read.
    pub hr_addr: Signal<Out, Bits<24>>,
    /// Start a run.
    pub start: Signal<Out, Bit>,
    /// Layers to run.
    pub nlayers: Signal<Out, Bits<6>>,
    /// The STREAM register.
    pub stream: Signal<Out, Bits<18>>,
    /// Schedule write.
    pub sched_we: Signal<Out, Bit>,
    /// Layer-register write.
    pub lreg_we: Signal<Out, Bit>,
    /// Bias write.
    pub bias_we: Signal<Out, Bit>,
    /// Data-memory write.
    pub dm_we: Signal<Out, Bit>,
    /// Kernel-memory write.
    pub k_we: Signal<Out, Bit>,
    /// Kernel word to write.
    pub k_wdata: Signal<Out, Bits<72>>,
    /// The registered reset.
    pub reset_q: Signal<Out, Bit>,
    /// The registered read strobe.
    pub re: Signal<Out, Bit>,
    /// The registered address.
    pub addr: Signal<Out, Bits<24>>,
    /// The registered write data.
    pub wdata: Signal<Out, Bits<32>>,
    port: HostPort,
}

impl Default for HostPortBench {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            host_we: Default::default(),
            host_re: Default::default(),
            host_addr: Default::default(),
            host_wdata: Default::default(),
            busy: Default::default(),
            done: Default::default(),
            layer: Default::default(),
            cycles: Default::default(),
            lc_rdata: Default::default(),
            lreg_rdata: Default::default(),
            bias_rdata: Default::default(),
            dm_rdata: Default::default(),
            k_rdata: Default::default(),
            sched_rdata: Default::default(),
            host_rdata: Default::default(),
            hr_addr: Default::default(),
            start: Default::default(),
            nlayers: Default::default(),
            stream: Default::default(),
            sched_we: Default::default(),
            lreg_we: Default::default(),
            bias_we: Default::default(),
            dm_we: Default::default(),
            k_we: Default::default(),
            k_wdata: Default::default(),
            reset_q: Default::default(),
            re: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            port: HostPort::new(BENCH_PROCESSORS, BENCH_KERNEL_WORDS),
        }
    }
}

impl Logic for HostPortBench {
    #[hdl_gen]
    fn update(&mut self) {
        self.port.clock.next = self.clock.val();
        self.port.reset.next = self.reset.val();
        self.port.host_we.next = self.host_we.val();
        self.port.host_re.next = self.host_re.val();
        self.port.host_addr.next = self.host_addr.val();
        self.port.host_wdata.next = self.host_wdata.val();
        self.port.busy.next = self.busy.val();
        self.port.done.next = self.done.val();
        self.port.layer.next = self.layer.val();
        self.port.cycles.next = self.cycles.val();
        self.port.lc_rdata.next = self.lc_rdata.val();
        for k in 0..regs::LAYER_WORDS {
            self.port.lreg_rdata[k].next = self.lreg_rdata.val().get_bits::<32>(32 * k);
        }
        self.port.bias_rdata.next = self.bias_rdata.val();
        self.port.dm_rdata.next = self.dm_rdata.val();
        self.port.k_rdata.next = self.k_rdata.val();
        for k in 0..3 {
            self.port.sched_rdata[k].next = self.sched_rdata.val().get_bits::<32>(32 * k);
        }
        self.host_rdata.next = self.port.host_rdata.val();
        self.hr_addr.next = self.port.hr_addr.val();
        self.start.next = self.port.start.val();
        self.nlayers.next = self.port.nlayers.val();
        self.stream.next = self.port.stream.val();
        self.sched_we.next = self.port.sched_we.val();
        self.lreg_we.next = self.port.lreg_we.val();
        self.bias_we.next = self.port.bias_we.val();
        self.dm_we.next = self.port.dm_we.val();
        self.k_we.next = self.port.k_we.val();
        self.k_wdata.next = self.port.k_wdata.val();
        self.reset_q.next = self.port.reset_q.val();
        self.re.next = self.port.re.val();
        self.addr.next = self.port.addr.val();
        self.wdata.next = self.port.wdata.val();
    }
}

crate::dut_io! {
    impl[] HostPortBench {
        clock: yes,
        inputs: [
            reset, host_we, host_re, host_addr, host_wdata, busy, done, layer, cycles, lc_rdata,
            lreg_rdata, bias_rdata, dm_rdata, k_rdata, sched_rdata
        ],
        outputs: [
            host_rdata, hr_addr, start, nlayers, stream, sched_we, lreg_we, bias_we, dm_we, k_we,
            k_wdata, reset_q, re, addr, wdata
        ],
        notes: [lreg_rdata: (false, 16), sched_rdata: (false, 3)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_is_synthesizable() {
        crate::synth_check::assert_synthesizable("host_port", HostPort::new(16, 768));
    }
}
