//! LelPlatformAxi: the LEL platform behind the bus interfaces of the thesis's PYNQ-Z1 system
//! (spec lel-platform.md §4.4, §5.4): an AXI4-Lite slave for the register file, an
//! AXI4-Stream slave for the DMA's MM2S stream (INIT weight words, images) and an
//! AXI4-Stream master for the DMA's S2MM stream (weight read-back). The register map is
//! generated from `hdl/regs/lel_platform.toml` (docs/registers.md).
//!
//! ```text
//!  s_axi_* --> [AxiLiteRegs] --reg_*--> +--------------+
//!  s_axis_* ----------------------------> | LelPlatform | --> m_axis_*
//!  aresetn --(inverted)-----------------> +--------------+
//! ```
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock of every interface |
//! | `aresetn` | in | 1 | synchronous, active low (AXI): the AXI slave idles; the platform resets at the next edge |
//! | `s_axi_awaddr` / `s_axi_araddr` | in | 12 | byte address (the low two bits are ignored) |
//! | `s_axi_awvalid`, `s_axi_awready`, `s_axi_wvalid`, `s_axi_wready` | | 1 | write address and data handshakes (taken together) |
//! | `s_axi_wdata`, `s_axi_wstrb` | in | 32, 4 | write data and byte strobes |
//! | `s_axi_bresp`, `s_axi_bvalid`, `s_axi_bready` | | 2, 1, 1 | write response: OKAY 0, SLVERR 2 |
//! | `s_axi_arvalid`, `s_axi_arready` | | 1 | read address handshake |
//! | `s_axi_rdata`, `s_axi_rresp`, `s_axi_rvalid`, `s_axi_rready` | | 32, 2, 1, 1 | read data and response |
//! | `s_axis_tdata`, `s_axis_tuser`, `s_axis_tlast`, `s_axis_tvalid`, `s_axis_tready` | | 32, 4, 1, 1, 1 | the platform's input stream (`s_t*` of [`LelPlatform`]) |
//! | `m_axis_tdata`, `m_axis_tuser`, `m_axis_tlast`, `m_axis_tvalid`, `m_axis_tready` | | 32, 4, 1, 1, 1 | the platform's output stream (`m_t*`) |
//!
//! Results (classes, correct counts, LC outputs) are registers, polled by the host as the
//! thesis's PS program does; the output stream carries the weights of PL_READ.
//! Tests: `tests/platform_axi.rs`.

use super::platform::{Platform, PlatformShape};
use super::platform_regs as regs;
use rust_hdl::prelude::*;

/// AXI response codes.
pub mod resp {
    /// The access was done.
    pub const OKAY: u64 = 0;
    /// Reserved address, or a write to a read-only register: nothing changed.
    pub const SLVERR: u64 = 2;
}

/// The address decode generated from the register description: `rd_ok` / `wr_ok` for the
/// byte address `addr`. The Verilog is the body of `platform_regs.v` as `edgelearn regs`
/// wrote it; the simulation model reads the generated Rust module, so both come from the
/// description.
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct RegDecode {
    /// Byte address.
    pub addr: Signal<In, Bits<12>>,
    /// A read answers OKAY.
    pub rd_ok: Signal<Out, Bit>,
    /// A write answers OKAY and is done.
    pub wr_ok: Signal<Out, Bit>,
}

impl Logic for RegDecode {
    fn update(&mut self) {
        let access = regs::at_byte(self.addr.val().index() as u32).map(|(r, _)| r.access);
        self.rd_ok.next = access.is_some();
        self.wr_ok.next = matches!(access, Some(regs::Access::Rw) | Some(regs::Access::Wo));
    }

    fn connect(&mut self) {
        self.rd_ok.connect();
        self.wr_ok.connect();
    }

    fn hdl(&self) -> Verilog {
        // The body of the generated module (its `always` block): rust-hdl names the module
        // after the instance, so emitted designs never define the same module twice.
        let v = include_str!("platform_regs.v");
        let body = v
            .split_once(");\n")
            .and_then(|(_, b)| b.rsplit_once("endmodule"))
            .map(|(b, _)| b)
            .expect("platform_regs.v is one module (edgelearn regs writes it)");
        Verilog::Custom(body.to_string())
    }
}

/// States of the AXI4-Lite slave. The declaration order is the encoding.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum AxiState {
    /// 0: waiting for a write (AW and W together) or a read (AR).
    Idle,
    /// 1: the write's register is on the register port: merge the strobed bytes, write.
    Merge,
    /// 2: the write response is offered.
    WResp,
    /// 3: the read's register is on the register port: capture it.
    Fetch,
    /// 4: the read data is offered.
    RResp,
}

/// AXI4-Lite slave onto the platform's register port. One access at a time: a write is
/// taken when AW and W are both valid (the master may not wait for a ready before raising
/// a valid, so this cannot deadlock), a read when AR is; when both wait, they alternate.
/// A write reads the register first and replaces only the strobed bytes; a write without
/// strobes changes nothing (OKAY). Reserved addresses and writes to read-only registers
/// answer SLVERR and change nothing; reads of reserved addresses return 0. Every output
/// but the three `*ready` is a flip-flop or a function of flip-flops and `reg_rdata`.
#[derive(Clone, Debug, LogicBlock)]
pub struct AxiLiteRegs {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Write address.
    pub awaddr: Signal<In, Bits<12>>,
    /// Write address valid.
    pub awvalid: Signal<In, Bit>,
    /// Write address ready.
    pub awready: Signal<Out, Bit>,
    /// Write data.
    pub wdata: Signal<In, Bits<32>>,
    /// Write byte strobes.
    pub wstrb: Signal<In, Bits<4>>,
    /// Write data valid.
    pub wvalid: Signal<In, Bit>,
    /// Write data ready.
    pub wready: Signal<Out, Bit>,
    /// Write response.
    pub bresp: Signal<Out, Bits<2>>,
    /// Write response valid.
    pub bvalid: Signal<Out, Bit>,
    /// Write response ready.
    pub bready: Signal<In, Bit>,
    /// Read address.
    pub araddr: Signal<In, Bits<12>>,
    /// Read address valid.
    pub arvalid: Signal<In, Bit>,
    /// Read address ready.
    pub arready: Signal<Out, Bit>,
    /// Read data.
    pub rdata: Signal<Out, Bits<32>>,
    /// Read response.
    pub rresp: Signal<Out, Bits<2>>,
    /// Read data valid.
    pub rvalid: Signal<Out, Bit>,
    /// Read data ready.
    pub rready: Signal<In, Bit>,
    /// Register port: word address.
    pub reg_addr: Signal<Out, Bits<8>>,
    /// Register port: write data.
    pub reg_wdata: Signal<Out, Bits<32>>,
    /// Register port: write strobe.
    pub reg_we: Signal<Out, Bit>,
    /// Register port: the register at `reg_addr`.
    pub reg_rdata: Signal<In, Bits<32>>,
    state: DFF<AxiState>,
    addr: DFF<Bits<12>>,
    data: DFF<Bits<32>>,
    strb: DFF<Bits<4>>,
    resp: DFF<Bits<2>>,
    rdata_q: DFF<Bits<32>>,
    last_write: DFF<Bit>,
    decode: RegDecode,
    m0: Signal<Local, Bits<32>>,
    m1: Signal<Local, Bits<32>>,
    m2: Signal<Local, Bits<32>>,
    m3: Signal<Local, Bits<32>>,
    mask: Signal<Local, Bits<32>>,
    c_zero: Constant<Bits<32>>,
    c_byte: [Constant<Bits<32>>; 4],
    c_okay: Constant<Bits<2>>,
    c_slverr: Constant<Bits<2>>,
}

impl Default for AxiLiteRegs {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            awaddr: Default::default(),
            awvalid: Default::default(),
            awready: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            wvalid: Default::default(),
            wready: Default::default(),
            bresp: Default::default(),
            bvalid: Default::default(),
            bready: Default::default(),
            araddr: Default::default(),
            arvalid: Default::default(),
            arready: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            rvalid: Default::default(),
            rready: Default::default(),
            reg_addr: Default::default(),
            reg_wdata: Default::default(),
            reg_we: Default::default(),
            reg_rdata: Default::default(),
            state: Default::default(),
            addr: Default::default(),
            data: Default::default(),
            strb: Default::default(),
            resp: Default::default(),
            rdata_q: Default::default(),
            last_write: Default::default(),
            decode: Default::default(),
            m0: Default::default(),
            m1: Default::default(),
            m2: Default::default(),
            m3: Default::default(),
            mask: Default::default(),
            c_zero: Constant::new(Bits::<32>::from(0u64)),
            c_byte: array_init::array_init(|k| Constant::new(Bits::<32>::from(0xffu64 << (8 * k)))),
            c_okay: Constant::new(Bits::<2>::from(resp::OKAY)),
            c_slverr: Constant::new(Bits::<2>::from(resp::SLVERR)),
        }
    }
}

impl Logic for AxiLiteRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, addr, data, strb, resp, rdata_q, last_write);
        self.decode.addr.next = self.addr.q.val();
        self.reg_addr.next = self.addr.q.val().get_bits::<8>(2);
        // The strobed bytes (one local per byte: no signal reads itself).
        self.m0.next = self.c_zero.val();
        if self.strb.q.val().get_bit(0) {
            self.m0.next = self.c_byte[0].val();
        }
        self.m1.next = self.c_zero.val();
        if self.strb.q.val().get_bit(1) {
            self.m1.next = self.c_byte[1].val();
        }
        self.m2.next = self.c_zero.val();
        if self.strb.q.val().get_bit(2) {
            self.m2.next = self.c_byte[2].val();
        }
        self.m3.next = self.c_zero.val();
        if self.strb.q.val().get_bit(3) {
            self.m3.next = self.c_byte[3].val();
        }
        self.mask.next = self.m0.val() | self.m1.val() | self.m2.val() | self.m3.val();
        self.reg_wdata.next =
            (self.reg_rdata.val() & !self.mask.val()) | (self.data.q.val() & self.mask.val());
        self.reg_we.next = false;
        self.awready.next = false;
        self.wready.next = false;
        self.arready.next = false;
        self.bvalid.next = false;
        self.rvalid.next = false;
        self.bresp.next = self.resp.q.val();
        self.rresp.next = self.resp.q.val();
        self.rdata.next = self.rdata_q.q.val();
        match self.state.q.val() {
            AxiState::Idle => {
                if self.awvalid.val()
                    & self.wvalid.val()
                    & (!self.arvalid.val() | !self.last_write.q.val())
                {
                    self.awready.next = true;
                    self.wready.next = true;
                    self.addr.d.next = self.awaddr.val();
                    self.data.d.next = self.wdata.val();
                    self.strb.d.next = self.wstrb.val();
                    self.last_write.d.next = true;
                    self.state.d.next = AxiState::Merge;
                } else if self.arvalid.val() {
                    self.arready.next = true;
                    self.addr.d.next = self.araddr.val();
                    self.last_write.d.next = false;
                    self.state.d.next = AxiState::Fetch;
                }
            }
            AxiState::Merge => {
                if self.decode.wr_ok.val() {
                    self.reg_we.next = self.strb.q.val().any();
                    self.resp.d.next = self.c_okay.val();
                } else {
                    self.resp.d.next = self.c_slverr.val();
                }
                self.state.d.next = AxiState::WResp;
            }
            AxiState::WResp => {
                self.bvalid.next = true;
                if self.bready.val() {
                    self.state.d.next = AxiState::Idle;
                }
            }
            AxiState::Fetch => {
                if self.decode.rd_ok.val() {
                    self.rdata_q.d.next = self.reg_rdata.val();
                    self.resp.d.next = self.c_okay.val();
                } else {
                    self.rdata_q.d.next = self.c_zero.val();
                    self.resp.d.next = self.c_slverr.val();
                }
                self.state.d.next = AxiState::RResp;
            }
            AxiState::RResp => {
                self.rvalid.next = true;
                if self.rready.val() {
                    self.state.d.next = AxiState::Idle;
                }
            }
            _ => {
                self.state.d.next = AxiState::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = AxiState::Idle;
            self.last_write.d.next = false;
        }
    }
}

/// The thesis's platform (4 lanes) behind AXI.
pub type LelPlatformAxi = LelPlatformAxiCp<24, 1>;

/// The platform with FC cores of 8 lanes behind AXI (the same ports and registers).
pub type LelPlatformAxiL8 = LelPlatformAxiL8Cp<24, 1>;

/// The 4-lane platform behind AXI with a conv core of `CG` groups of `CP` channels at a time.
pub type LelPlatformAxiCp<const CG: usize, const CP: usize> =
    PlatformAxi<4, 32, 24, 56, 96, 1, CG, CP>;

/// The 8-lane platform behind AXI with a conv core of `CG` groups of `CP` channels at a time.
pub type LelPlatformAxiL8Cp<const CG: usize, const CP: usize> =
    PlatformAxi<8, 64, 48, 112, 192, 2, CG, CP>;

/// The platform with AXI4-Lite control and AXI4-Stream data ports (module docs); its
/// parameters are [`Platform`]'s.
#[derive(Clone, Debug, LogicBlock)]
pub struct PlatformAxi<
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
    /// Synchronous active-low reset.
    pub aresetn: Signal<In, Bit>,
    /// AXI4-Lite write address.
    pub s_axi_awaddr: Signal<In, Bits<12>>,
    /// AXI4-Lite write address valid.
    pub s_axi_awvalid: Signal<In, Bit>,
    /// AXI4-Lite write address ready.
    pub s_axi_awready: Signal<Out, Bit>,
    /// AXI4-Lite write data.
    pub s_axi_wdata: Signal<In, Bits<32>>,
    /// AXI4-Lite write strobes.
    pub s_axi_wstrb: Signal<In, Bits<4>>,
    /// AXI4-Lite write data valid.
    pub s_axi_wvalid: Signal<In, Bit>,
    /// AXI4-Lite write data ready.
    pub s_axi_wready: Signal<Out, Bit>,
    /// AXI4-Lite write response.
    pub s_axi_bresp: Signal<Out, Bits<2>>,
    /// AXI4-Lite write response valid.
    pub s_axi_bvalid: Signal<Out, Bit>,
    /// AXI4-Lite write response ready.
    pub s_axi_bready: Signal<In, Bit>,
    /// AXI4-Lite read address.
    pub s_axi_araddr: Signal<In, Bits<12>>,
    /// AXI4-Lite read address valid.
    pub s_axi_arvalid: Signal<In, Bit>,
    /// AXI4-Lite read address ready.
    pub s_axi_arready: Signal<Out, Bit>,
    /// AXI4-Lite read data.
    pub s_axi_rdata: Signal<Out, Bits<32>>,
    /// AXI4-Lite read response.
    pub s_axi_rresp: Signal<Out, Bits<2>>,
    /// AXI4-Lite read data valid.
    pub s_axi_rvalid: Signal<Out, Bit>,
    /// AXI4-Lite read data ready.
    pub s_axi_rready: Signal<In, Bit>,
    /// Input stream data.
    pub s_axis_tdata: Signal<In, Bits<32>>,
    /// Input stream valid.
    pub s_axis_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub s_axis_tready: Signal<Out, Bit>,
    /// Input stream TUSER (label).
    pub s_axis_tuser: Signal<In, Bits<4>>,
    /// Input stream TLAST.
    pub s_axis_tlast: Signal<In, Bit>,
    /// Output stream data.
    pub m_axis_tdata: Signal<Out, Bits<32>>,
    /// Output stream valid.
    pub m_axis_tvalid: Signal<Out, Bit>,
    /// Output stream ready.
    pub m_axis_tready: Signal<In, Bit>,
    /// Output stream TUSER (source core).
    pub m_axis_tuser: Signal<Out, Bits<4>>,
    /// Output stream TLAST.
    pub m_axis_tlast: Signal<Out, Bit>,
    platform: Platform<L, SW, WW, RW, AW, K, CG, CP>,
    axi: AxiLiteRegs,
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
    > PlatformAxi<L, SW, WW, RW, AW, K, CG, CP>
{
    /// The platform of `shape` behind AXI; panics (naming the key) on a shape the RTL
    /// cannot build.
    pub fn new(shape: PlatformShape) -> Self {
        Self {
            clock: Default::default(),
            aresetn: Default::default(),
            s_axi_awaddr: Default::default(),
            s_axi_awvalid: Default::default(),
            s_axi_awready: Default::default(),
            s_axi_wdata: Default::default(),
            s_axi_wstrb: Default::default(),
            s_axi_wvalid: Default::default(),
            s_axi_wready: Default::default(),
            s_axi_bresp: Default::default(),
            s_axi_bvalid: Default::default(),
            s_axi_bready: Default::default(),
            s_axi_araddr: Default::default(),
            s_axi_arvalid: Default::default(),
            s_axi_arready: Default::default(),
            s_axi_rdata: Default::default(),
            s_axi_rresp: Default::default(),
            s_axi_rvalid: Default::default(),
            s_axi_rready: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tuser: Default::default(),
            s_axis_tlast: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tuser: Default::default(),
            m_axis_tlast: Default::default(),
            platform: Platform::new(shape),
            axi: Default::default(),
        }
    }

    /// The shape this platform was built for.
    pub fn shape(&self) -> &PlatformShape {
        self.platform.shape()
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
    > Logic for PlatformAxi<L, SW, WW, RW, AW, K, CG, CP>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.platform.clock.next = self.clock.val();
        self.axi.clock.next = self.clock.val();
        self.platform.reset.next = !self.aresetn.val();
        self.axi.reset.next = !self.aresetn.val();
        // AXI4-Lite.
        self.axi.awaddr.next = self.s_axi_awaddr.val();
        self.axi.awvalid.next = self.s_axi_awvalid.val();
        self.s_axi_awready.next = self.axi.awready.val();
        self.axi.wdata.next = self.s_axi_wdata.val();
        self.axi.wstrb.next = self.s_axi_wstrb.val();
        self.axi.wvalid.next = self.s_axi_wvalid.val();
        self.s_axi_wready.next = self.axi.wready.val();
        self.s_axi_bresp.next = self.axi.bresp.val();
        self.s_axi_bvalid.next = self.axi.bvalid.val();
        self.axi.bready.next = self.s_axi_bready.val();
        self.axi.araddr.next = self.s_axi_araddr.val();
        self.axi.arvalid.next = self.s_axi_arvalid.val();
        self.s_axi_arready.next = self.axi.arready.val();
        self.s_axi_rdata.next = self.axi.rdata.val();
        self.s_axi_rresp.next = self.axi.rresp.val();
        self.s_axi_rvalid.next = self.axi.rvalid.val();
        self.axi.rready.next = self.s_axi_rready.val();
        // Register port.
        self.platform.reg_addr.next = self.axi.reg_addr.val();
        self.platform.reg_wdata.next = self.axi.reg_wdata.val();
        self.platform.reg_we.next = self.axi.reg_we.val();
        self.axi.reg_rdata.next = self.platform.reg_rdata.val();
        // Streams.
        self.platform.s_tdata.next = self.s_axis_tdata.val();
        self.platform.s_tvalid.next = self.s_axis_tvalid.val();
        self.s_axis_tready.next = self.platform.s_tready.val();
        self.platform.s_tuser.next = self.s_axis_tuser.val();
        self.platform.s_tlast.next = self.s_axis_tlast.val();
        self.m_axis_tdata.next = self.platform.m_tdata.val();
        self.m_axis_tvalid.next = self.platform.m_tvalid.val();
        self.platform.m_tready.next = self.m_axis_tready.val();
        self.m_axis_tuser.next = self.platform.m_tuser.val();
        self.m_axis_tlast.next = self.platform.m_tlast.val();
    }
}

crate::dut_io! {
    impl[] AxiLiteRegs {
        clock: yes,
        inputs: [reset, awaddr, awvalid, wdata, wstrb, wvalid, bready, araddr, arvalid, rready,
            reg_rdata],
        outputs: [awready, wready, bresp, bvalid, arready, rdata, rresp, rvalid,
            reg_addr, reg_wdata, reg_we],
        notes: [],
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize, const WW: usize, const RW: usize, const AW: usize, const K: usize, const CG: usize, const CP: usize] PlatformAxi<L, SW, WW, RW, AW, K, CG, CP> {
        clock: yes,
        inputs: [aresetn, s_axi_awaddr, s_axi_awvalid, s_axi_wdata, s_axi_wstrb, s_axi_wvalid,
            s_axi_bready, s_axi_araddr, s_axi_arvalid, s_axi_rready,
            s_axis_tdata, s_axis_tvalid, s_axis_tuser, s_axis_tlast, m_axis_tready],
        outputs: [s_axi_awready, s_axi_wready, s_axi_bresp, s_axi_bvalid, s_axi_arready,
            s_axi_rdata, s_axi_rresp, s_axi_rvalid,
            s_axis_tready, m_axis_tdata, m_axis_tvalid, m_axis_tuser, m_axis_tlast],
        notes: [s_axis_tdata: (true, 4)],
        memories: [platform],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lel::platform::small_shape;

    #[test]
    fn platform_axi_elaborates_and_lints() {
        crate::synth_check::assert_elaborates(
            "lel_platform_axi",
            LelPlatformAxi::new(small_shape()),
        );
    }
}
