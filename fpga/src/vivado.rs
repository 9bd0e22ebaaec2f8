//! Vivado project generation for an emitted top on a Zynq board (the PYNQ-Z1 of the thesis,
//! spec §4.4, §5.4).
//!
//! [`Project::files`] turns a top's port list into three text files, written next to the
//! emitted Verilog in `src/` by `edgelearn vivado`:
//!
//! - `create_project.tcl`: a project on the board's part, the emitted sources added as they
//!   are, the board constraints, and a block design: the Zynq PS (`processing_system7`, the
//!   board's DDR, UART0 and SD0, `FCLK_CLK0` for the fabric, one `M_AXI_GP0`, one
//!   `S_AXI_HP0`), an AXI DMA in simple mode (MM2S to the top's `s_axis`, the top's `m_axis`
//!   to S2MM, 32-bit streams), an AXI interconnect from `M_AXI_GP0` to the DMA's registers
//!   and the top's `s_axi`, a SmartConnect from the DMA's masters to `S_AXI_HP0`, the top as
//!   an RTL module reference; then addresses, validation, the HDL wrapper, synthesis and
//!   implementation to the bitstream, and the `.xsa` for Vitis (docs/decisions.md D-VIVADO).
//! - `package_ip.tcl`: the same sources packaged as a Vivado IP (`edgelearn:lel:TOP:0.1`)
//!   with its bus interfaces, clock and reset associations and a 4 KB register map.
//! - `constraints/<board>.xdc`: a copy of the repository's board constraints.
//!
//! The AXI interfaces are inferred from the port names (`s_axi_*`, `s_axis_*`, `m_axis_*`,
//! as Vivado infers them); a top without them still gets a project, its other ports left
//! unconnected and listed ([`Interfaces::unconnected`]). Nothing here does IO.

use edgelearn_hdl::design::{Direction, PortSpec};
use std::fmt::{self, Write as _};

/// A board the Vivado flow knows.
#[derive(Debug)]
pub struct Board {
    /// Name on the command line (`--board`).
    pub name: &'static str,
    /// The FPGA part.
    pub part: &'static str,
    /// Vivado board part (used only when its board files are installed).
    pub board_part: &'static str,
    /// Constraints file name under the repository's `constraints/`.
    pub constraints: &'static str,
    /// That file's text (built into the binary).
    pub xdc: &'static str,
    /// `processing_system7` settings of the board (DDR, MIO peripherals), without the
    /// fabric clock and AXI ports, which the flow sets.
    pub ps7: &'static [(&'static str, &'static str)],
}

/// PYNQ-Z1 (Digilent): XC7Z020-1CLG400C, 512 MB DDR3 (one 16-bit MT41J256M16 at 525 MHz),
/// UART0 on MIO 14/15, SD0 on MIO 40..45 with card detect on MIO 47, 50 MHz PS clock.
pub const PYNQ_Z1: Board = Board {
    name: "pynq-z1",
    part: "xc7z020clg400-1",
    board_part: "www.digilentinc.com:pynq-z1:part0:1.0",
    constraints: "pynq-z1.xdc",
    xdc: include_str!("../../constraints/pynq-z1.xdc"),
    ps7: &[
        ("PCW_PRESET_BANK0_VOLTAGE", "LVCMOS 3.3V"),
        ("PCW_PRESET_BANK1_VOLTAGE", "LVCMOS 1.8V"),
        ("PCW_CRYSTAL_PERIPHERAL_FREQMHZ", "50"),
        ("PCW_APU_PERIPHERAL_FREQMHZ", "650"),
        ("PCW_UIPARAM_DDR_PARTNO", "MT41J256M16 RE-125"),
        ("PCW_UIPARAM_DDR_BUS_WIDTH", "16 Bit"),
        ("PCW_UIPARAM_DDR_FREQ_MHZ", "525"),
        ("PCW_UIPARAM_DDR_BOARD_DELAY0", "0.223"),
        ("PCW_UIPARAM_DDR_BOARD_DELAY1", "0.212"),
        ("PCW_UIPARAM_DDR_BOARD_DELAY2", "0.085"),
        ("PCW_UIPARAM_DDR_BOARD_DELAY3", "0.092"),
        ("PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_0", "0.040"),
        ("PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_1", "0.058"),
        ("PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_2", "-0.009"),
        ("PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_3", "-0.033"),
        ("PCW_UIPARAM_DDR_TRAIN_WRITE_LEVEL", "1"),
        ("PCW_UIPARAM_DDR_TRAIN_READ_GATE", "1"),
        ("PCW_UIPARAM_DDR_TRAIN_DATA_EYE", "1"),
        ("PCW_UIPARAM_DDR_USE_INTERNAL_VREF", "0"),
        ("PCW_UART0_PERIPHERAL_ENABLE", "1"),
        ("PCW_UART0_UART0_IO", "MIO 14 .. 15"),
        ("PCW_UART0_BAUD_RATE", "115200"),
        ("PCW_UART_PERIPHERAL_FREQMHZ", "100"),
        ("PCW_SD0_PERIPHERAL_ENABLE", "1"),
        ("PCW_SD0_SD0_IO", "MIO 40 .. 45"),
        ("PCW_SD0_GRP_CD_ENABLE", "1"),
        ("PCW_SD0_GRP_CD_IO", "MIO 47"),
        ("PCW_SDIO_PERIPHERAL_FREQMHZ", "50"),
    ],
};

/// Every board of the flow.
pub const BOARDS: &[&Board] = &[&PYNQ_Z1];

/// The fabric clock of the thesis (spec §5.4: 75 MHz, WNS 1.328 ns).
pub const THESIS_FCLK_MHZ: f64 = 75.0;

/// The register window of the top's `s_axi` (12-bit byte address).
pub const S_AXI_RANGE: u32 = 4096;

/// Base address of the top's registers on `M_AXI_GP0`.
pub const S_AXI_BASE: u32 = 0x43C0_0000;

/// Base address of the AXI DMA's registers on `M_AXI_GP0`.
pub const DMA_BASE: u32 = 0x4040_0000;

/// What can be wrong with a Vivado project request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum VivadoError {
    /// `--board` names no known board.
    UnknownBoard {
        /// The name asked for.
        name: String,
    },
    /// The fabric clock is outside what the PS can make.
    BadClock {
        /// The frequency asked for, MHz.
        mhz: f64,
    },
    /// The top has no clock input.
    NoClock {
        /// The top.
        top: String,
    },
    /// An interface has some of its ports but not all it needs.
    Incomplete {
        /// The top.
        top: String,
        /// The interface (`s_axi`, `s_axis`, `m_axis`).
        interface: String,
        /// The ports it lacks (or has in the wrong direction).
        missing: Vec<String>,
    },
    /// No sources were given.
    NoSources,
}

impl fmt::Display for VivadoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VivadoError::UnknownBoard { name } => write!(
                f,
                "unknown board `{name}`; known boards: {}",
                BOARDS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
            ),
            VivadoError::BadClock { mhz } => write!(
                f,
                "a fabric clock of {mhz} MHz is outside 10..=250 MHz (the thesis ran at \
                 {THESIS_FCLK_MHZ} MHz)"
            ),
            VivadoError::NoClock { top } => {
                write!(
                    f,
                    "`{top}` has no clock input: the PS's FCLK_CLK0 has nowhere to go"
                )
            }
            VivadoError::Incomplete {
                top,
                interface,
                missing,
            } => write!(
                f,
                "`{top}` has `{interface}_*` ports but lacks {}: its {interface} interface \
                 cannot be connected",
                missing.join(", ")
            ),
            VivadoError::NoSources => write!(f, "no Verilog sources to put in the project"),
        }
    }
}

impl std::error::Error for VivadoError {}

/// The board called `name`.
pub fn board(name: &str) -> Result<&'static Board, VivadoError> {
    BOARDS
        .iter()
        .copied()
        .find(|b| b.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| VivadoError::UnknownBoard {
            name: name.to_string(),
        })
}

/// The reset input of a top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reset {
    /// Port name.
    pub name: String,
    /// True for `aresetn`-style resets (low resets).
    pub active_low: bool,
}

/// The interfaces of a top, inferred from its port names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interfaces {
    /// The clock input.
    pub clock: String,
    /// The reset input, if any.
    pub reset: Option<Reset>,
    /// Width of `s_axi_awaddr` when the top has an AXI4-Lite slave `s_axi`.
    pub s_axi: Option<usize>,
    /// Whether the top has an AXI4-Stream slave `s_axis`.
    pub s_axis: bool,
    /// Whether that slave has a TUSER (`s_axis_tuser`: the image's label).
    pub s_axis_tuser: bool,
    /// Whether the top has an AXI4-Stream master `m_axis`.
    pub m_axis: bool,
    /// Ports outside every interface, left unconnected in the block design.
    pub unconnected: Vec<String>,
}

/// Ports an AXI4-Lite slave needs (after `s_axi_`), with their direction on the slave.
const AXI_LITE: &[(&str, Direction)] = &[
    ("awaddr", Direction::Input),
    ("awvalid", Direction::Input),
    ("awready", Direction::Output),
    ("wdata", Direction::Input),
    ("wstrb", Direction::Input),
    ("wvalid", Direction::Input),
    ("wready", Direction::Output),
    ("bresp", Direction::Output),
    ("bvalid", Direction::Output),
    ("bready", Direction::Input),
    ("araddr", Direction::Input),
    ("arvalid", Direction::Input),
    ("arready", Direction::Output),
    ("rdata", Direction::Output),
    ("rresp", Direction::Output),
    ("rvalid", Direction::Output),
    ("rready", Direction::Input),
];

/// Ports an AXI4-Stream slave needs (after `s_axis_`); a master's are the reverse.
const AXIS: &[(&str, Direction)] = &[
    ("tdata", Direction::Input),
    ("tvalid", Direction::Input),
    ("tready", Direction::Output),
];

fn is_reset(name: &str) -> Option<bool> {
    match name {
        "aresetn" | "resetn" | "rst_n" | "reset_n" => Some(true),
        "reset" | "rst" => Some(false),
        _ => None,
    }
}

fn flip(d: Direction) -> Direction {
    match d {
        Direction::Input => Direction::Output,
        Direction::Output => Direction::Input,
    }
}

/// Whether `ports` hold the `prefix` interface: `Ok(false)` if no port has the prefix, an
/// error naming the missing ones if only some are there.
fn has_interface(
    top: &str,
    ports: &[PortSpec],
    prefix: &str,
    needed: &[(&str, Direction)],
    master: bool,
) -> Result<bool, VivadoError> {
    let with = format!("{prefix}_");
    if !ports.iter().any(|p| p.name.starts_with(&with)) {
        return Ok(false);
    }
    let missing: Vec<String> = needed
        .iter()
        .map(|(s, d)| (format!("{prefix}_{s}"), if master { flip(*d) } else { *d }))
        .filter(|(n, d)| !ports.iter().any(|p| &p.name == n && p.direction == *d))
        .map(|(n, d)| format!("{n} ({})", if d == Direction::Input { "in" } else { "out" }))
        .collect();
    if missing.is_empty() {
        Ok(true)
    } else {
        Err(VivadoError::Incomplete {
            top: top.to_string(),
            interface: prefix.to_string(),
            missing,
        })
    }
}

impl Interfaces {
    /// Infers the interfaces of `top` from its ports (as listed in `manifest.json`).
    pub fn infer(top: &str, ports: &[PortSpec]) -> Result<Interfaces, VivadoError> {
        let clock = ports
            .iter()
            .find(|p| p.clock || (p.name == "clock" && p.direction == Direction::Input))
            .map(|p| p.name.clone())
            .ok_or_else(|| VivadoError::NoClock {
                top: top.to_string(),
            })?;
        let reset = ports
            .iter()
            .filter(|p| p.direction == Direction::Input && p.width == 1)
            .find_map(|p| {
                is_reset(&p.name).map(|active_low| Reset {
                    name: p.name.clone(),
                    active_low,
                })
            });
        let s_axi = has_interface(top, ports, "s_axi", AXI_LITE, false)?;
        let s_axis = has_interface(top, ports, "s_axis", AXIS, false)?;
        let m_axis = has_interface(top, ports, "m_axis", AXIS, true)?;
        let s_axi_width = ports
            .iter()
            .find(|p| s_axi && p.name == "s_axi_awaddr")
            .map(|p| p.width);
        let in_interface = |n: &str| {
            n == clock
                || reset.as_ref().is_some_and(|r| r.name == n)
                || (s_axi && n.starts_with("s_axi_"))
                || (s_axis && n.starts_with("s_axis_"))
                || (m_axis && n.starts_with("m_axis_"))
        };
        let unconnected = ports
            .iter()
            .filter(|p| !in_interface(&p.name))
            .map(|p| p.name.clone())
            .collect();
        Ok(Interfaces {
            clock,
            reset,
            s_axi: s_axi_width,
            s_axis,
            s_axis_tuser: s_axis && ports.iter().any(|p| p.name == "s_axis_tuser"),
            m_axis,
            unconnected,
        })
    }

    /// The bus interfaces the clock drives, as Vivado's `ASSOCIATED_BUSIF` (`a:b:c`).
    pub fn associated_busif(&self) -> String {
        [
            (self.s_axi.is_some(), "s_axi"),
            (self.s_axis, "s_axis"),
            (self.m_axis, "m_axis"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect::<Vec<_>>()
        .join(":")
    }
}

/// The PS7 clock source that makes `mhz` exactly, if one does: the IO PLL (1000 MHz) or the
/// DDR PLL (1050 MHz at the board's 525 MHz DDR), each divided by two 6-bit dividers.
pub fn fclk_source(mhz: f64) -> &'static str {
    let exact = |pll: f64| {
        let ratio = pll / mhz;
        let n = ratio.round();
        n >= 1.0
            && (ratio - n).abs() < 1e-9
            && (1..=63u32).any(|d0| (n as u32).is_multiple_of(d0) && n as u32 / d0 <= 63)
    };
    if !exact(1000.0) && exact(1050.0) {
        "DDR PLL"
    } else {
        "IO PLL"
    }
}

/// A Vivado project for one top on one board.
#[derive(Debug)]
pub struct Project<'a> {
    /// The board.
    pub board: &'static Board,
    /// The top module (the emitted design's name).
    pub top: &'a str,
    /// The emitted Verilog files, names inside `src/`.
    pub sources: Vec<String>,
    /// The top's interfaces.
    pub interfaces: Interfaces,
    /// The fabric clock `FCLK_CLK0`, MHz.
    pub fclk_mhz: f64,
}

/// The first line of every file this module writes (a TCL / XDC comment).
fn header(what: &str) -> String {
    format!(
        "# Generated by edgelearn {}: {what}. Do not edit; rerun `edgelearn vivado`.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `{k v ...}` lines of a `set_property -dict [list ...]`, each `CONFIG.k {v}`.
fn config_dict(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("    CONFIG.{k} {{{v}}} \\\n"))
        .collect()
}

impl<'a> Project<'a> {
    /// A project for `top` (its ports from `manifest.json`, its files in `src/`).
    pub fn new(
        board: &'static Board,
        top: &'a str,
        ports: &[PortSpec],
        sources: Vec<String>,
        fclk_mhz: f64,
    ) -> Result<Project<'a>, VivadoError> {
        if !(10.0..=250.0).contains(&fclk_mhz) {
            return Err(VivadoError::BadClock { mhz: fclk_mhz });
        }
        if sources.is_empty() {
            return Err(VivadoError::NoSources);
        }
        Ok(Project {
            board,
            top,
            sources,
            interfaces: Interfaces::infer(top, ports)?,
            fclk_mhz,
        })
    }

    /// The files to write into the output directory: `(relative path, text)`.
    pub fn files(&self) -> Vec<(String, String)> {
        vec![
            ("create_project.tcl".to_string(), self.create_project_tcl()),
            ("package_ip.tcl".to_string(), self.package_ip_tcl()),
            (
                format!("constraints/{}", self.board.constraints),
                format!(
                    "{}{}",
                    header(&format!("copy of constraints/{}", self.board.constraints)),
                    self.board.xdc
                ),
            ),
        ]
    }

    /// The `set sources [list ...]` of both scripts.
    fn sources_tcl(&self) -> String {
        let mut s = String::from("set sources [list \\\n");
        for f in &self.sources {
            let _ = writeln!(s, "    [file join $here src {f}] \\");
        }
        s.push_str("]\n");
        s
    }

    /// The common opening: where we are, the part, the sources.
    fn preamble(&self, what: &str) -> String {
        format!(
            "{}# Run from anywhere: vivado -mode batch -source {what}\n\
             set here [file dirname [file normalize [info script]]]\n\
             set top {}\n\
             set part {}\n\
             set board_part {}\n\
             {}",
            header(&format!(
                "{what} for `{}` on the {}",
                self.top, self.board.name
            )),
            self.top,
            self.board.part,
            self.board.board_part,
            self.sources_tcl()
        )
    }

    /// `create_project.tcl`.
    pub fn create_project_tcl(&self) -> String {
        [
            self.preamble("create_project.tcl"),
            self.project_tcl(),
            self.ps7_tcl(),
            self.dma_tcl(),
            self.platform_tcl(),
            self.address_tcl(),
            self.runs_tcl(),
        ]
        .concat()
    }

    fn project_tcl(&self) -> String {
        format!(
            "\n# The project: the part, the board files if installed, the emitted sources, the XDC.\n\
             create_project -force edgelearn [file join $here vivado] -part $part\n\
             if {{[llength [get_board_parts -quiet $board_part]] > 0}} {{\n\
             \x20   set_property board_part $board_part [current_project]\n\
             }} else {{\n\
             \x20   puts \"edgelearn: no board files for $board_part; the part and the settings below suffice\"\n\
             }}\n\
             set_property target_language Verilog [current_project]\n\
             add_files -norecurse $sources\n\
             add_files -fileset constrs_1 -norecurse [file join $here constraints {xdc}]\n\
             update_compile_order -fileset sources_1\n",
            xdc = self.board.constraints
        )
    }

    fn ps7_tcl(&self) -> String {
        let mut pairs: Vec<(&str, String)> = self
            .board
            .ps7
            .iter()
            .map(|(k, v)| (*k, v.to_string()))
            .collect();
        pairs.extend([
            ("PCW_EN_CLK0_PORT", "1".to_string()),
            ("PCW_FPGA_FCLK0_ENABLE", "1".to_string()),
            (
                "PCW_FCLK0_PERIPHERAL_CLKSRC",
                fclk_source(self.fclk_mhz).into(),
            ),
            ("PCW_FPGA0_PERIPHERAL_FREQMHZ", format!("{}", self.fclk_mhz)),
            ("PCW_EN_RST0_PORT", "1".to_string()),
            ("PCW_USE_M_AXI_GP0", "1".to_string()),
            ("PCW_USE_S_AXI_HP0", "1".to_string()),
            ("PCW_S_AXI_HP0_DATA_WIDTH", "64".to_string()),
        ]);
        format!(
            "\n# The block design: the Zynq PS with the board's DDR, UART0 and SD0, FCLK_CLK0 at \
             {mhz} MHz\n# (Vivado reports the frequency it reaches as PCW_ACT_FPGA0_PERIPHERAL_FREQMHZ).\n\
             create_bd_design system\n\
             set ps7 [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5 ps7]\n\
             set_property -dict [list \\\n{dict}] $ps7\n\
             apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 -config \
             {{make_external \"FIXED_IO, DDR\" apply_board_preset \"0\" Master \"Disable\" Slave \"Disable\"}} $ps7\n\
             set rst [create_bd_cell -type ip -vlnv xilinx.com:ip:proc_sys_reset:5.0 rst_fclk0]\n\
             connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_pins rst_fclk0/slowest_sync_clk]\n\
             connect_bd_net [get_bd_pins ps7/FCLK_RESET0_N] [get_bd_pins rst_fclk0/ext_reset_in]\n",
            mhz = self.fclk_mhz,
            dict = config_dict(&pairs)
        )
    }

    /// MM2S data width: 64 bits when the label split feeds the top's TUSER (D-VIVADO-LABELS).
    fn mm2s_width(&self) -> &'static str {
        if self.label_split() {
            "64"
        } else {
            "32"
        }
    }

    /// Whether the top's `s_axis` has a 4-bit TUSER, which the DMA cannot drive: then each
    /// 64-bit MM2S beat carries the 32-bit word in [31:0] and TUSER in [35:32], and an
    /// AXI4-Stream subset converter splits them (docs/decisions.md D-VIVADO-LABELS).
    fn label_split(&self) -> bool {
        self.interfaces.s_axis && self.interfaces.s_axis_tuser
    }

    fn dma_tcl(&self) -> String {
        let dma: Vec<(&str, String)> = [
            ("c_include_sg", "0"),
            ("c_sg_include_stscntrl_strm", "0"),
            ("c_include_mm2s", "1"),
            ("c_include_s2mm", "1"),
            ("c_m_axi_mm2s_data_width", self.mm2s_width()),
            ("c_m_axis_mm2s_tdata_width", self.mm2s_width()),
            ("c_m_axi_s2mm_data_width", "32"),
            ("c_s_axis_s2mm_tdata_width", "32"),
            ("c_mm2s_burst_size", "16"),
            ("c_s2mm_burst_size", "16"),
            ("c_sg_length_width", "26"),
        ]
        .iter()
        .map(|(k, v)| (*k, v.to_string()))
        .collect();
        let control_ports = 1 + usize::from(self.interfaces.s_axi.is_some());
        format!(
            "\n# The AXI DMA in simple mode (no scatter-gather): MM2S streams images and INIT weights \
             in,\n# S2MM takes weights and results back; its masters reach DDR through S_AXI_HP0.\n\
             set dma [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_dma:7.1 dma]\n\
             set_property -dict [list \\\n{dict}] $dma\n\
             set ctrl [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_interconnect:2.1 ctrl_ic]\n\
             set_property -dict [list CONFIG.NUM_SI {{1}} CONFIG.NUM_MI {{{control_ports}}}] $ctrl\n\
             set mem [create_bd_cell -type ip -vlnv xilinx.com:ip:smartconnect:1.0 mem_sc]\n\
             set_property -dict [list CONFIG.NUM_SI {{2}} CONFIG.NUM_MI {{1}}] $mem\n\
             connect_bd_intf_net [get_bd_intf_pins ps7/M_AXI_GP0] [get_bd_intf_pins ctrl_ic/S00_AXI]\n\
             connect_bd_intf_net [get_bd_intf_pins ctrl_ic/M00_AXI] [get_bd_intf_pins dma/S_AXI_LITE]\n\
             connect_bd_intf_net [get_bd_intf_pins dma/M_AXI_MM2S] [get_bd_intf_pins mem_sc/S00_AXI]\n\
             connect_bd_intf_net [get_bd_intf_pins dma/M_AXI_S2MM] [get_bd_intf_pins mem_sc/S01_AXI]\n\
             connect_bd_intf_net [get_bd_intf_pins mem_sc/M00_AXI] [get_bd_intf_pins ps7/S_AXI_HP0]\n",
            dict = config_dict(&dma)
        )
    }

    /// Clock pins of everything but the top, all on FCLK_CLK0.
    fn fabric_clock_pins(&self) -> Vec<String> {
        let mut pins: Vec<String> = [
            "ps7/M_AXI_GP0_ACLK",
            "ps7/S_AXI_HP0_ACLK",
            "dma/s_axi_lite_aclk",
            "dma/m_axi_mm2s_aclk",
            "dma/m_axi_s2mm_aclk",
            "ctrl_ic/ACLK",
            "ctrl_ic/S00_ACLK",
            "ctrl_ic/M00_ACLK",
            "mem_sc/aclk",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if self.interfaces.s_axi.is_some() {
            pins.push("ctrl_ic/M01_ACLK".into());
        }
        pins
    }

    fn platform_tcl(&self) -> String {
        let i = &self.interfaces;
        let mut s = format!(
            "\n# The top as an RTL module reference of the emitted Verilog (docs/decisions.md D-VIVADO).\n\
             set platform [create_bd_cell -type module -reference $top platform]\n\
             connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_pins platform/{clk}]{pins}\n\
             connect_bd_net [get_bd_pins rst_fclk0/interconnect_aresetn] [get_bd_pins ctrl_ic/ARESETN]\n",
            clk = i.clock,
            pins = self
                .fabric_clock_pins()
                .iter()
                .map(|p| format!(" [get_bd_pins {p}]"))
                .collect::<String>()
        );
        let mut resetn = vec![
            "dma/axi_resetn",
            "ctrl_ic/S00_ARESETN",
            "ctrl_ic/M00_ARESETN",
            "mem_sc/aresetn",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        if i.s_axi.is_some() {
            resetn.push("ctrl_ic/M01_ARESETN".into());
        }
        match &i.reset {
            Some(r) if r.active_low => resetn.push(format!("platform/{}", r.name)),
            Some(r) => {
                let _ = writeln!(
                    s,
                    "connect_bd_net [get_bd_pins rst_fclk0/peripheral_reset] [get_bd_pins platform/{}]",
                    r.name
                );
            }
            None => {}
        }
        let _ = writeln!(
            s,
            "connect_bd_net [get_bd_pins rst_fclk0/peripheral_aresetn]{}",
            resetn
                .iter()
                .map(|p| format!(" [get_bd_pins {p}]"))
                .collect::<String>()
        );
        s.push_str(&self.stream_tcl());
        s
    }

    fn stream_tcl(&self) -> String {
        let i = &self.interfaces;
        let mut s = String::new();
        if i.s_axi.is_some() {
            s.push_str(
                "connect_bd_intf_net [get_bd_intf_pins ctrl_ic/M01_AXI] [get_bd_intf_pins platform/s_axi]\n",
            );
        }
        if i.s_axis && self.label_split() {
            s.push_str(
                "# The image's label rides in each 64-bit MM2S beat's [35:32]; it becomes s_axis_tuser.\n\
                 set split [create_bd_cell -type ip -vlnv xilinx.com:ip:axis_subset_converter:1.1 label_split]\n\
                 set_property -dict [list CONFIG.S_TDATA_NUM_BYTES {8} CONFIG.M_TDATA_NUM_BYTES {4} \\\n\
                 \x20   CONFIG.M_TUSER_WIDTH {4} CONFIG.S_HAS_TLAST {1} CONFIG.M_HAS_TLAST {1} \\\n\
                 \x20   CONFIG.TDATA_REMAP {tdata[31:0]} CONFIG.TUSER_REMAP {tdata[35:32]} \\\n\
                 \x20   CONFIG.TLAST_REMAP {tlast[0]}] $split\n\
                 connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_pins label_split/aclk]\n\
                 connect_bd_net [get_bd_pins rst_fclk0/peripheral_aresetn] [get_bd_pins label_split/aresetn]\n\
                 connect_bd_intf_net [get_bd_intf_pins dma/M_AXIS_MM2S] [get_bd_intf_pins label_split/S_AXIS]\n\
                 connect_bd_intf_net [get_bd_intf_pins label_split/M_AXIS] [get_bd_intf_pins platform/s_axis]\n",
            );
        } else if i.s_axis {
            s.push_str(
                "connect_bd_intf_net [get_bd_intf_pins dma/M_AXIS_MM2S] [get_bd_intf_pins platform/s_axis]\n",
            );
        }
        if i.m_axis {
            s.push_str(
                "connect_bd_intf_net [get_bd_intf_pins platform/m_axis] [get_bd_intf_pins dma/S_AXIS_S2MM]\n",
            );
        }
        if !i.unconnected.is_empty() {
            let _ = writeln!(
                s,
                "puts \"edgelearn: ports of $top outside s_axi/s_axis/m_axis stay unconnected: {}\"",
                i.unconnected.join(" ")
            );
        }
        s
    }

    fn address_tcl(&self) -> String {
        let mut s = format!(
            "\n# Addresses: the DMA's registers, the top's 4 KB register window, DDR for the DMA.\n\
             assign_bd_address -offset 0x{DMA_BASE:08X} -range 64K -target_address_space \
             [get_bd_addr_spaces ps7/Data] [get_bd_addr_segs dma/S_AXI_LITE/Reg]\n"
        );
        if self.interfaces.s_axi.is_some() {
            let _ = writeln!(
                s,
                "assign_bd_address -offset 0x{S_AXI_BASE:08X} -range 4K -target_address_space \
                 [get_bd_addr_spaces ps7/Data] [get_bd_addr_segs platform/s_axi/reg0]"
            );
        }
        s.push_str(
            "assign_bd_address\n\
             validate_bd_design\n\
             save_bd_design\n\
             set bd [get_files system.bd]\n\
             generate_target all $bd\n\
             make_wrapper -files $bd -top -import\n\
             set_property top system_wrapper [current_fileset]\n\
             update_compile_order -fileset sources_1\n",
        );
        s
    }

    fn runs_tcl(&self) -> String {
        "\n# Synthesis, implementation, bitstream; the .xsa (bitstream + hardware handoff) for Vitis.\n\
         set jobs [expr {[info exists ::env(EDGELEARN_VIVADO_JOBS)] ? $::env(EDGELEARN_VIVADO_JOBS) : 2}]\n\
         launch_runs synth_1 -jobs $jobs\n\
         wait_on_run synth_1\n\
         if {[get_property PROGRESS [get_runs synth_1]] ne \"100%\"} { error \"edgelearn: synth_1 failed\" }\n\
         launch_runs impl_1 -to_step write_bitstream -jobs $jobs\n\
         wait_on_run impl_1\n\
         if {[get_property PROGRESS [get_runs impl_1]] ne \"100%\"} { error \"edgelearn: impl_1 failed\" }\n\
         write_hw_platform -fixed -include_bit -force [file join $here edgelearn.xsa]\n\
         puts \"edgelearn: bitstream in [get_property DIRECTORY [get_runs impl_1]], platform in [file join $here edgelearn.xsa]\"\n"
            .to_string()
    }

    /// `package_ip.tcl`.
    pub fn package_ip_tcl(&self) -> String {
        let i = &self.interfaces;
        let mut s = self.preamble("package_ip.tcl");
        s.push_str(
            "\n# A scratch project holding the emitted sources, packaged as IP into ip/.\n\
             create_project -force edgelearn_ip [file join $here ip_project] -part $part\n\
             add_files -norecurse $sources\n\
             set_property top $top [current_fileset]\n\
             update_compile_order -fileset sources_1\n\
             ipx::package_project -root_dir [file join $here ip] -vendor edgelearn -library lel \
             -taxonomy /UserIP -import_files\n\
             set core [ipx::current_core]\n\
             proc busparam {busif name value} {\n\
             \x20   set p [ipx::get_bus_parameters $name -of_objects $busif]\n\
             \x20   if {$p eq \"\"} { set p [ipx::add_bus_parameter $name $busif] }\n\
             \x20   set_property value $value $p\n\
             }\n\
             set_property -dict [list name $top version 0.1 display_name \"edgelearn $top\" \
             description \"edgelearn LEL design $top (emitted by edgelearn)\" vendor_display_name edgelearn] $core\n",
        );
        s.push_str(&self.busif_tcl());
        let _ = write!(
            s,
            "\n# The clock drives every interface; the reset is {}.\n\
             set clk [ipx::get_bus_interfaces {clk} -of_objects $core]\n\
             if {{$clk eq \"\"}} {{ set clk [ipx::infer_bus_interface {clk} xilinx.com:signal:clock_rtl:1.0 $core] }}\n",
            match &i.reset {
                Some(r) if r.active_low => format!("`{}`, active low", r.name),
                Some(r) => format!("`{}`, active high", r.name),
                None => "absent".into(),
            },
            clk = i.clock,
        );
        let busif = i.associated_busif();
        if !busif.is_empty() {
            let _ = writeln!(s, "busparam $clk ASSOCIATED_BUSIF {{{busif}}}");
        }
        if let Some(r) = &i.reset {
            let _ = write!(
                s,
                "busparam $clk ASSOCIATED_RESET {rst}\n\
                 set rst [ipx::get_bus_interfaces {rst} -of_objects $core]\n\
                 if {{$rst eq \"\"}} {{ set rst [ipx::infer_bus_interface {rst} xilinx.com:signal:reset_rtl:1.0 $core] }}\n\
                 busparam $rst POLARITY {pol}\n",
                rst = r.name,
                pol = if r.active_low { "ACTIVE_LOW" } else { "ACTIVE_HIGH" }
            );
        }
        s.push_str(&self.memory_map_tcl());
        s.push_str(
            "\nipx::create_xgui_files $core\n\
             ipx::update_checksums $core\n\
             ipx::check_integrity $core\n\
             ipx::save_core $core\n\
             close_project\n\
             puts \"edgelearn: IP edgelearn:lel:$top:0.1 in [file join $here ip]\"\n",
        );
        s
    }

    /// Bus interfaces by name: inferred by `ipx::package_project` from the prefixes, inferred
    /// explicitly when it did not.
    fn busif_tcl(&self) -> String {
        let i = &self.interfaces;
        let mut s = String::from("\n# Bus interfaces from the port prefixes.\n");
        for (on, name, vlnv) in [
            (
                i.s_axi.is_some(),
                "s_axi",
                "xilinx.com:interface:aximm_rtl:1.0",
            ),
            (i.s_axis, "s_axis", "xilinx.com:interface:axis_rtl:1.0"),
            (i.m_axis, "m_axis", "xilinx.com:interface:axis_rtl:1.0"),
        ] {
            if on {
                let _ = writeln!(
                    s,
                    "if {{[ipx::get_bus_interfaces {name} -of_objects $core] eq \"\"}} {{ \
                     ipx::infer_bus_interfaces {vlnv} $core }}"
                );
            }
        }
        s
    }

    fn memory_map_tcl(&self) -> String {
        if self.interfaces.s_axi.is_none() {
            return String::new();
        }
        format!(
            "\n# The register window of s_axi: {S_AXI_RANGE} bytes of 32-bit registers.\n\
             set mmap [ipx::get_memory_maps s_axi -of_objects $core]\n\
             if {{$mmap eq \"\"}} {{ set mmap [ipx::add_memory_map s_axi $core] }}\n\
             set_property slave_memory_map_ref s_axi [ipx::get_bus_interfaces s_axi -of_objects $core]\n\
             set block [ipx::get_address_blocks reg0 -of_objects $mmap]\n\
             if {{$block eq \"\"}} {{ set block [ipx::add_address_block reg0 $mmap] }}\n\
             set_property -dict [list range {S_AXI_RANGE} width 32 usage register] $block\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, dir: Direction, width: usize) -> PortSpec {
        PortSpec {
            name: name.into(),
            direction: dir,
            width,
            signed: false,
            lanes: 1,
            lane_width: width,
            clock: name == "clock",
        }
    }

    /// The ports of `lel_platform_axi` as the brief gives them.
    fn axi_top() -> Vec<PortSpec> {
        use Direction::*;
        let mut p = vec![port("clock", Input, 1), port("aresetn", Input, 1)];
        for (n, d) in AXI_LITE {
            let w = match *n {
                "awaddr" | "araddr" => 12,
                "wdata" | "rdata" => 32,
                "wstrb" => 4,
                "bresp" | "rresp" => 2,
                _ => 1,
            };
            p.push(port(&format!("s_axi_{n}"), *d, w));
        }
        for (pre, master) in [("s_axis", false), ("m_axis", true)] {
            for (n, d, w) in [
                ("tdata", Input, 32),
                ("tvalid", Input, 1),
                ("tready", Output, 1),
                ("tuser", Input, 4),
                ("tlast", Input, 1),
            ] {
                p.push(port(
                    &format!("{pre}_{n}"),
                    if master { flip(d) } else { d },
                    w,
                ));
            }
        }
        p
    }

    #[test]
    fn the_axi_top_has_every_interface_and_nothing_left_over() {
        let i = Interfaces::infer("lel_platform_axi", &axi_top()).unwrap();
        assert_eq!(i.clock, "clock");
        assert_eq!(
            i.reset,
            Some(Reset {
                name: "aresetn".into(),
                active_low: true
            })
        );
        assert_eq!(i.s_axi, Some(12));
        assert!(i.s_axis && i.m_axis);
        assert!(i.unconnected.is_empty(), "{:?}", i.unconnected);
        assert_eq!(i.associated_busif(), "s_axi:s_axis:m_axis");
    }

    #[test]
    fn a_top_without_axi_keeps_its_other_ports_listed() {
        use Direction::*;
        let ports = vec![
            port("clock", Input, 1),
            port("reset", Input, 1),
            port("reg_addr", Input, 8),
            port("m_tdata", Output, 32),
        ];
        let i = Interfaces::infer("lel_platform", &ports).unwrap();
        assert_eq!(i.reset.as_ref().map(|r| r.active_low), Some(false));
        assert_eq!(i.s_axi, None);
        assert!(!i.s_axis && !i.m_axis);
        assert_eq!(i.unconnected, vec!["reg_addr", "m_tdata"]);
    }

    #[test]
    fn an_incomplete_interface_or_a_missing_clock_is_named() {
        let mut ports = axi_top();
        ports.retain(|p| p.name != "s_axi_rready" && p.name != "m_axis_tvalid");
        let e = Interfaces::infer("t", &ports).unwrap_err();
        assert!(e.to_string().contains("s_axi_rready (in)"), "{e}");
        let mut ports = axi_top();
        ports.retain(|p| p.name != "m_axis_tvalid");
        let e = Interfaces::infer("t", &ports).unwrap_err().to_string();
        assert!(e.contains("m_axis_tvalid (out)"), "{e}");
        let e = Interfaces::infer("t", &axi_top()[1..]).unwrap_err();
        assert_eq!(e, VivadoError::NoClock { top: "t".into() });
    }

    #[test]
    fn boards_and_clocks_are_checked() {
        assert_eq!(board("PYNQ-Z1").unwrap().part, "xc7z020clg400-1");
        let e = board("zedboard").unwrap_err().to_string();
        assert!(
            e.contains("unknown board `zedboard`") && e.contains("pynq-z1"),
            "{e}"
        );
        let e = Project::new(&PYNQ_Z1, "t", &axi_top(), vec!["t.v".into()], 400.0).unwrap_err();
        assert!(matches!(e, VivadoError::BadClock { .. }));
        assert_eq!(fclk_source(100.0), "IO PLL");
        assert_eq!(fclk_source(75.0), "DDR PLL");
        assert_eq!(fclk_source(50.0), "IO PLL");
    }

    #[test]
    fn the_scripts_name_the_part_sources_interfaces_and_runs() {
        let p = Project::new(&PYNQ_Z1, "top", &axi_top(), vec!["top.v".into()], 75.0).unwrap();
        let files = p.files();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "create_project.tcl",
                "package_ip.tcl",
                "constraints/pynq-z1.xdc"
            ]
        );
        let cp = &files[0].1;
        for want in [
            "set part xc7z020clg400-1",
            "[file join $here src top.v]",
            "CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ {75}",
            "CONFIG.PCW_FCLK0_PERIPHERAL_CLKSRC {DDR PLL}",
            "create_bd_cell -type module -reference $top platform",
            "[get_bd_pins rst_fclk0/peripheral_aresetn]",
            "[get_bd_pins platform/aresetn]",
            "[get_bd_intf_pins dma/M_AXIS_MM2S] [get_bd_intf_pins label_split/S_AXIS]",
            "[get_bd_intf_pins label_split/M_AXIS] [get_bd_intf_pins platform/s_axis]",
            "CONFIG.TUSER_REMAP {tdata[35:32]}",
            "CONFIG.c_m_axis_mm2s_tdata_width {64}",
            "[get_bd_intf_pins platform/m_axis] [get_bd_intf_pins dma/S_AXIS_S2MM]",
            "CONFIG.NUM_MI {2}",
            "launch_runs impl_1 -to_step write_bitstream",
        ] {
            assert!(cp.contains(want), "create_project.tcl lacks `{want}`");
        }
        let ip = &files[1].1;
        for want in [
            "-vendor edgelearn -library lel",
            "{s_axi:s_axis:m_axis}",
            "ACTIVE_LOW",
            "range 4096",
            "ipx::save_core $core",
        ] {
            assert!(ip.contains(want), "package_ip.tcl lacks `{want}`");
        }
        assert!(files[2].1.starts_with("# Generated by edgelearn"));
        assert!(files[2].1.ends_with(PYNQ_Z1.xdc));
    }
}
