//! The registry: every design `edgelearn` can emit, simulate and synthesize, one entry each,
//! and the one place that lists design names (`tests/invariants.rs` holds every other
//! file to that). An entry has the design's name, what it is, how to build it, and what the
//! rest of the kit needs to know about it:
//!
//! - a unit block (`blocks.rs`, names in [`name`]): its golden trace of any stimulus and its
//!   named stimuli;
//! - a configured core or platform: the shipped configuration it is built from, the spec
//!   names of its FSM states and instructions (from the hdl enums), its register map, and
//!   the sub-cores `synth` counts on their own ([`DesignEntry::sub_cores`]);
//! - the CNN engine: its shape, sequencer states and register map.
//!
//! The command line (`emit`, `sim`, `bench`, `demo`, `core`, `platform`, `synth`,
//! `fusesoc`, `vivado`, `regress`) and the tests read designs from here; a design made from
//! a user's configuration is named by [`configured_name`], the one naming rule.

use super::{Result, RtlError};
use crate::blocks::BlockModel;
use crate::lel::config::PlatformConfig;
use crate::lel::network::conv_kernels;
use edgelearn_hdl::cnn;
use edgelearn_hdl::cnn::EngineShape;
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::conv_core::ConvState;
use edgelearn_hdl::lel::conv_core::{ConvCore, ConvCoreShape, LEL_CONV_CHANNELS};
use edgelearn_hdl::lel::fc_core::FcState;
use edgelearn_hdl::lel::fc_core::{fc_core_design, FcCoreShape, FC_LANES};
use edgelearn_hdl::lel::platform::PlState;
use edgelearn_hdl::lel::platform::{LelPlatformCp, LelPlatformL8Cp, PlatformShape, PLATFORM_LANES};
use edgelearn_hdl::lel::platform_axi::{LelPlatformAxiCp, LelPlatformAxiL8Cp};

mod blocks;

pub use blocks::name;

/// The FPGA top `vivado` packages unless told otherwise.
pub const FPGA_TOP: &str = "lel_platform_axi";

/// The thesis network (spec §1.2).
pub const THESIS_CONFIG: &str = include_str!("../../../../configs/thesis-cifar10.toml");
/// The MNIST configuration.
pub const MNIST_CONFIG: &str = include_str!("../../../../configs/mnist.toml");

/// What a design is, and what it is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A unit block (or a verification top) with a golden trace of its ports.
    Block,
    /// FC core `0` or `1` of a configuration.
    FcCore(usize),
    /// The conv core of a configuration.
    ConvCore,
    /// The platform of a configuration (conv core -> FC0 -> FC1).
    Platform,
    /// The platform behind AXI4-Lite and AXI4-Stream ports (the FPGA top).
    PlatformAxi,
    /// The MAX78000-style CNN engine of a shape.
    CnnEngine(EngineShape),
}

impl Kind {
    /// A core, a platform or the engine: about fifty times a unit block's logic (the
    /// regression's cost model, `synth`'s "takes minutes").
    pub fn is_large(self) -> bool {
        self != Kind::Block
    }

    /// The kind's name in reports (`blocks --json`): `block`, `fc_core`, `conv_core`,
    /// `platform`, `platform_axi`, `cnn_engine`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Block => "block",
            Kind::FcCore(_) => "fc_core",
            Kind::ConvCore => "conv_core",
            Kind::Platform => "platform",
            Kind::PlatformAxi => "platform_axi",
            Kind::CnnEngine(_) => "cnn_engine",
        }
    }
}

/// A sub-core of a design that `synth` counts on its own: kept as a hierarchy level in the
/// XC7Z020 run, and synthesized alone with `--per-core`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubCore {
    /// What the report calls it (`conv core`, as thesis Table 4.6 does).
    pub label: &'static str,
    /// Its Verilog module under the top (`lel_platform$core$conv`).
    pub module: String,
    /// The registered design that is this core alone.
    pub alone: String,
}

/// One design of the registry.
pub struct DesignEntry {
    /// Emitted name: Verilog top module, file stem, manifest key, model cache name.
    pub name: String,
    /// One line: what it is and where the spec is.
    pub summary: String,
    /// What it is.
    pub kind: Kind,
    /// The shipped configuration (`configs/STEM.toml`) a core or platform is built from.
    pub config: Option<&'static str>,
    /// A unit block's golden trace and named stimuli.
    pub model: Option<BlockModel>,
    /// Seconds Yosys takes to read the design beyond the usual (the regression's cost
    /// model): large memory initialisations.
    pub netlist_seconds: f64,
    build: Builder,
}

/// How an entry builds its design, given its name.
type Builder = Box<dyn Fn(&str) -> Result<Box<dyn Design>>>;

impl DesignEntry {
    /// A fresh instance.
    pub fn build(&self) -> Result<Box<dyn Design>> {
        (self.build)(&self.name)
    }

    /// The spec names of the design's FSM states, by encoding (the hdl `fsm_states!` enums):
    /// what the benches, the reports and the divergence messages print for a state code.
    pub fn states(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::Block => &[],
            Kind::FcCore(_) => FcState::NAMES,
            Kind::ConvCore => ConvState::NAMES,
            Kind::Platform | Kind::PlatformAxi => PlState::NAMES,
            Kind::CnnEngine(_) => edgelearn_hdl::cnn::engine::layer_seq::SeqState::NAMES,
        }
    }

    /// The instructions the design decodes (name, code), from the register map.
    pub fn instructions(&self) -> &'static [(&'static str, u64)] {
        match self.kind {
            Kind::FcCore(_) | Kind::ConvCore | Kind::Platform | Kind::PlatformAxi => {
                edgelearn_hdl::lel::instr::ALL
            }
            Kind::Block | Kind::CnnEngine(_) => &[],
        }
    }

    /// The register map the design's host port decodes (`edgelearn regs` generates the RTL
    /// decode, the Rust constants and the docs page from it), relative to the repository.
    pub fn register_map(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Platform | Kind::PlatformAxi => Some("hdl/regs/lel_platform.toml"),
            Kind::CnnEngine(_) => Some("hdl/regs/cnn_engine.toml"),
            _ => None,
        }
    }

    /// The configuration a core or platform is built from.
    pub fn platform_config(&self) -> Option<PlatformConfig> {
        self.config.map(shipped_config)
    }

    /// The sub-cores `synth` counts on their own: the platform's conv, FC0 and FC1 cores
    /// (the AXI top holds the platform as `platform`), each with the registered design that
    /// is the core alone (the one of the same shape: MNIST's FC1 is the thesis's).
    pub fn sub_cores(&self) -> Result<Vec<SubCore>> {
        let path = match self.kind {
            Kind::Platform => format!("{}$core", self.name),
            Kind::PlatformAxi => format!("{}$platform$core", self.name),
            _ => return Ok(Vec::new()),
        };
        let cfg = self
            .platform_config()
            .expect("a platform has a configuration");
        let parts: [(&str, &str, Kind); 3] = [
            ("conv core", "conv", Kind::ConvCore),
            ("FC core 0", "fc0", Kind::FcCore(0)),
            ("FC core 1", "fc1", Kind::FcCore(1)),
        ];
        parts
            .into_iter()
            .map(|(label, field, kind)| {
                Ok(SubCore {
                    label,
                    module: format!("{path}${field}"),
                    alone: alone_name(kind, &cfg)?,
                })
            })
            .collect()
    }
}

/// The registered design of `kind` with the shape `cfg` gives it, else its configured name.
fn alone_name(kind: Kind, cfg: &PlatformConfig) -> Result<String> {
    let shape_of = |kind: Kind, cfg: &PlatformConfig| -> Result<String> {
        Ok(match kind {
            Kind::FcCore(x) => format!("{:?}", fc_shape(cfg, x)?),
            Kind::ConvCore => format!("{:?} {:?}", conv_shape(cfg)?, conv_kernels(cfg).ok()),
            _ => unreachable!("a platform's sub-cores are FC and conv cores"),
        })
    };
    let want = shape_of(kind, cfg)?;
    for e in entries().into_iter().filter(|e| e.kind == kind) {
        if let Some(c) = e.platform_config() {
            if shape_of(kind, &c)? == want {
                return Ok(e.name);
            }
        }
    }
    Ok(configured_name(kind, cfg))
}

/// The name of the design of `kind` built from `cfg`: `lel_fc_core0`, `lel_conv_core`,
/// `lel_platform`, `lel_platform_axi` for the thesis network; with `_NAME` appended (the
/// configuration's name, non-alphanumerics as `_`) for any other, `_lL` for L lanes other
/// than the thesis's 4, `_rr` for the FC cores' registered reads (`rtl.registered_reads`)
/// and `_cpP` for a conv core of P channels at a time (`rtl.conv_parallel`).
pub fn configured_name(kind: Kind, cfg: &PlatformConfig) -> String {
    let stem = match kind {
        Kind::FcCore(x) => format!("lel_fc_core{x}"),
        Kind::ConvCore => "lel_conv_core".to_string(),
        Kind::Platform => "lel_platform".to_string(),
        Kind::PlatformAxi => "lel_platform_axi".to_string(),
        Kind::Block | Kind::CnnEngine(_) => {
            unreachable!("only the LEL cores and platforms are built from a configuration")
        }
    };
    let mut lanes = match cfg.widths.lanes {
        4 => String::new(),
        l => format!("_l{l}"),
    };
    if cfg.rtl.registered_reads
        && matches!(kind, Kind::FcCore(_) | Kind::Platform | Kind::PlatformAxi)
    {
        lanes += "_rr";
    }
    if cfg.rtl.conv_parallel != 1
        && matches!(kind, Kind::ConvCore | Kind::Platform | Kind::PlatformAxi)
    {
        lanes += &format!("_cp{}", cfg.rtl.conv_parallel);
    }
    if cfg.name == "thesis-cifar10" {
        return format!("{stem}{lanes}");
    }
    let tail: String = cfg
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{stem}_{tail}{lanes}")
}

fn config_error(key: &str, message: impl Into<String>) -> RtlError {
    RtlError::Config {
        key: key.to_string(),
        message: message.into(),
    }
}

/// A shipped configuration by its file stem (`thesis-cifar10`, `mnist`).
pub fn shipped_config(stem: &str) -> PlatformConfig {
    let text = match stem {
        "thesis-cifar10" => THESIS_CONFIG,
        "mnist" => MNIST_CONFIG,
        _ => panic!("no shipped configuration `{stem}`"),
    };
    PlatformConfig::from_toml(text).expect("shipped configurations are valid")
}

/// The widths the RTL cores are built with (10 classes, int6 weights, 24-bit matmul and
/// 23-bit LC accumulators; lanes as [`check_rtl_lanes`] says); anything else is an error
/// naming the key.
pub fn check_rtl_widths(cfg: &PlatformConfig, kind: Kind) -> Result<()> {
    let w = &cfg.widths;
    let fixed = [
        ("widths.classes", w.classes, 10),
        ("widths.weight", w.weight as usize, 6),
        ("widths.acc", w.acc as usize, 24),
        ("widths.lc_acc", w.lc_acc as usize, 23),
    ];
    for (key, got, want) in fixed {
        if got != want {
            return Err(config_error(
                key,
                format!("{got}: the RTL cores are built for {want}"),
            ));
        }
    }
    check_rtl_lanes(cfg, kind)
}

/// The lanes a design of `kind` is built with: an FC core 2, 4 or 8, the platform 4 or 8
/// (its FC cores' lanes; its streams carry four bytes a beat whatever they are), its AXI top
/// and the conv core alone 4 (the conv core has no lanes of its own: its beats hold four
/// values).
pub fn check_rtl_lanes(cfg: &PlatformConfig, kind: Kind) -> Result<()> {
    let allowed: &[usize] = match kind {
        Kind::FcCore(_) => &FC_LANES,
        Kind::Platform | Kind::PlatformAxi => &PLATFORM_LANES,
        _ => &[4],
    };
    let what = match kind {
        Kind::FcCore(_) => "an FC core",
        Kind::Platform => "the platform",
        Kind::PlatformAxi => "the AXI platform",
        _ => "the conv core",
    };
    let l = cfg.widths.lanes;
    if allowed.contains(&l) {
        return Ok(());
    }
    Err(config_error(
        "widths.lanes",
        format!("{l}: {what} is built with {allowed:?} lanes (FC cores alone with {FC_LANES:?}, the platform with {PLATFORM_LANES:?})"),
    ))
}

/// The shape of FC core `x` of `cfg`, if the RTL builds it.
pub fn fc_shape(cfg: &PlatformConfig, x: usize) -> Result<FcCoreShape> {
    let shapes = cfg
        .validate()
        .map_err(|e| config_error(&e.field, e.message))?;
    check_rtl_widths(cfg, Kind::FcCore(x))?;
    let f = cfg
        .fc
        .get(x)
        .ok_or_else(|| config_error("fc", format!("there is no FC core {x}")))?;
    let shape = FcCoreShape {
        inputs: shapes.fc_inputs[x],
        outputs: f.outputs,
        pieces: f.pieces,
        registered_reads: cfg.rtl.registered_reads,
    };
    shape
        .check(cfg.widths.lanes)
        .map_err(|m| config_error(&format!("fc[{x}]"), m))?;
    Ok(shape)
}

/// The shape of the conv core of `cfg`, if the RTL builds it.
pub fn conv_shape(cfg: &PlatformConfig) -> Result<ConvCoreShape> {
    let shapes = cfg
        .validate()
        .map_err(|e| config_error(&e.field, e.message))?;
    check_rtl_widths(cfg, Kind::Platform)?;
    let shape = ConvCoreShape {
        in_channels: cfg.input.channels,
        height: shapes.padded.0,
        width: shapes.padded.1,
        out_channels: cfg.conv.out_channels,
        kernel: cfg.conv.kernel,
        pool: cfg.conv.pool,
        parallel: cfg.rtl.conv_parallel,
    };
    shape.check().map_err(|(key, m)| config_error(key, m))?;
    if shape.out_channels != LEL_CONV_CHANNELS {
        return Err(config_error(
            "conv.out_channels",
            format!(
                "{}: the RTL conv core is built with {LEL_CONV_CHANNELS} output channels",
                shape.out_channels
            ),
        ));
    }
    Ok(shape)
}

/// FC core `x` of `cfg` under `name`.
pub fn fc_design(name: &str, cfg: &PlatformConfig, x: usize) -> Result<Box<dyn Design>> {
    let shape = fc_shape(cfg, x)?;
    fc_core_design(name, cfg.widths.lanes, shape).map_err(|m| config_error(&format!("fc[{x}]"), m))
}

/// The conv core of `cfg` under `name`, its kernels baked in.
pub fn conv_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    check_rtl_lanes(cfg, Kind::ConvCore)?;
    let shape = conv_shape(cfg)?;
    let kernels = conv_kernels(cfg).map_err(|e| config_error("conv.kernels", e.0))?;
    Ok(match shape.parallel {
        1 => Box::new(Instance::new(name, ConvCore::<24, 1>::new(shape, &kernels))),
        2 => Box::new(Instance::new(name, ConvCore::<12, 2>::new(shape, &kernels))),
        _ => Box::new(Instance::new(name, ConvCore::<6, 4>::new(shape, &kernels))),
    })
}

/// A platform type (`LelPlatformCp`, ...) instantiated for the shape's lanes and conv
/// parallelism (`PLATFORM_LANES` x `CONV_PARALLEL`), boxed as a design under `name`.
macro_rules! platform_instance {
    ($name:expr, $shape:expr, $l4:ident, $l8:ident) => {{
        let (name, shape) = ($name, $shape);
        let d: Box<dyn Design> = match (shape.lanes, shape.conv.parallel) {
            (4, 1) => Box::new(Instance::new(name, $l4::<24, 1>::new(shape))),
            (4, 2) => Box::new(Instance::new(name, $l4::<12, 2>::new(shape))),
            (4, _) => Box::new(Instance::new(name, $l4::<6, 4>::new(shape))),
            (_, 1) => Box::new(Instance::new(name, $l8::<24, 1>::new(shape))),
            (_, 2) => Box::new(Instance::new(name, $l8::<12, 2>::new(shape))),
            (_, _) => Box::new(Instance::new(name, $l8::<6, 4>::new(shape))),
        };
        d
    }};
}

/// The platform shape of `cfg` (two FC cores), if the RTL builds it.
pub fn platform_shape(cfg: &PlatformConfig) -> Result<PlatformShape> {
    if cfg.fc.len() != 2 {
        return Err(config_error(
            "fc",
            format!(
                "{} FC cores: the platform chains two (its 32-bit model_cfg holds two, spec §4.5)",
                cfg.fc.len()
            ),
        ));
    }
    check_rtl_widths(cfg, Kind::Platform)?;
    let shape = PlatformShape {
        conv: conv_shape(cfg)?,
        kernels: conv_kernels(cfg).map_err(|e| config_error("conv.kernels", e.0))?,
        fc0: fc_shape(cfg, 0)?,
        fc1: fc_shape(cfg, 1)?,
        lanes: cfg.widths.lanes,
    };
    shape.check().map_err(|(key, m)| config_error(key, m))?;
    Ok(shape)
}

/// The platform of `cfg` under `name`.
pub fn platform_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    let shape = platform_shape(cfg)?;
    Ok(platform_instance!(
        name,
        shape,
        LelPlatformCp,
        LelPlatformL8Cp
    ))
}

/// The platform of `cfg` behind AXI4-Lite and AXI4-Stream ports under `name`.
pub fn platform_axi_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    check_rtl_lanes(cfg, Kind::PlatformAxi)?;
    let shape = platform_shape(cfg)?;
    Ok(platform_instance!(
        name,
        shape,
        LelPlatformAxiCp,
        LelPlatformAxiL8Cp
    ))
}

/// The design of `kind` built from `cfg` under `name`.
pub fn configured_design(name: &str, kind: Kind, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    match kind {
        Kind::FcCore(x) => fc_design(name, cfg, x),
        Kind::ConvCore => conv_design(name, cfg),
        Kind::Platform => platform_design(name, cfg),
        Kind::PlatformAxi => platform_axi_design(name, cfg),
        Kind::Block | Kind::CnnEngine(_) => {
            unreachable!("only the LEL cores and platforms are built from a configuration")
        }
    }
}

/// A design of a shipped configuration, named by [`configured_name`].
fn configured(kind: Kind, stem: &'static str, summary: &str) -> DesignEntry {
    DesignEntry {
        name: configured_name(kind, &shipped_config(stem)),
        summary: summary.to_string(),
        kind,
        config: Some(stem),
        model: None,
        netlist_seconds: 0.0,
        build: Box::new(move |name| configured_design(name, kind, &shipped_config(stem))),
    }
}

/// The name of the CNN engine of `shape`: `cnn_engine` for the MAX78000's, else
/// `cnn_engine_pP` (`_kK` appended for another kernel-memory depth).
pub fn engine_name(shape: &EngineShape) -> String {
    if *shape == EngineShape::MAX78000 {
        "cnn_engine".to_string()
    } else if shape.kernel_words == EngineShape::MAX78000.kernel_words {
        format!("cnn_engine_p{}", shape.processors)
    } else {
        format!("cnn_engine_p{}_k{}", shape.processors, shape.kernel_words)
    }
}

/// The CNN engine of `shape` under its name ([`engine_name`]). Panics on a shape that
/// `EngineShape::check` refuses.
pub fn engine_design(shape: &EngineShape) -> Box<dyn Design> {
    cnn::engine(&engine_name(shape), shape)
}

/// The registered CNN engine of `shape`.
fn engine(shape: EngineShape, summary: &str) -> DesignEntry {
    DesignEntry {
        name: engine_name(&shape),
        summary: summary.to_string(),
        kind: Kind::CnnEngine(shape),
        config: None,
        model: None,
        netlist_seconds: 0.0,
        build: Box::new(move |name| Ok(cnn::engine(name, &shape))),
    }
}

/// The configured cores, platforms and engines, in emission order.
fn core_entries() -> Vec<DesignEntry> {
    const THESIS: &str = "thesis-cifar10";
    const MNIST: &str = "mnist";
    vec![
        configured(
            Kind::FcCore(0),
            THESIS,
            "FC core 0 of the thesis network: N 2400, 4 x (600 -> 120), LC 480 -> 10 (thesis §4.2.1, Table 4.1)",
        ),
        configured(
            Kind::FcCore(1),
            THESIS,
            "FC core 1 of the thesis and MNIST networks: N 480, 4 x (120 -> 120), LC 480 -> 10 (thesis §4.2.1)",
        ),
        configured(
            Kind::FcCore(0),
            MNIST,
            "FC core 0 of the MNIST configuration: N 1536, 4 x (384 -> 120), LC 480 -> 10",
        ),
        configured(
            Kind::ConvCore,
            THESIS,
            "conv core of the thesis network: 3 x 32 x 32, depthwise 3x3 to 24 channels, ReLU, 3x3/3 max pool (thesis §4.2.2, Table 4.2)",
        ),
        configured(
            Kind::ConvCore,
            MNIST,
            "conv core of the MNIST configuration: 1 x 28 x 28, depthwise 3x3 to 24 channels, ReLU, 3x3/3 max pool",
        ),
        configured(
            Kind::Platform,
            THESIS,
            "the thesis platform: conv core -> FC core 0 -> FC core 1 with FIFOs, PL_* FSM, register file (thesis §4.3, Table 4.3)",
        ),
        configured(
            Kind::Platform,
            MNIST,
            "the MNIST configuration's platform: 1 x 28 x 28 conv core -> FC0 (1536) -> FC1 (480)",
        ),
        configured(
            Kind::PlatformAxi,
            THESIS,
            "the thesis platform behind AXI4-Lite (registers, docs/registers.md) and AXI4-Stream (DMA MM2S in, S2MM out) ports: the FPGA top",
        ),
        configured(
            Kind::PlatformAxi,
            MNIST,
            "the MNIST configuration's platform behind AXI4-Lite and AXI4-Stream ports",
        ),
        engine(
            EngineShape::MAX78000,
            "the MAX78000-style CNN engine: 64 processors (4 groups of 16), 768 x 72-bit kernel words each, 16 x 8192 x 32 data memories, 32-layer sequencer (docs/cnn-engine-rtl.md)",
        ),
        engine(
            EngineShape::with_processors(16),
            "the CNN engine with 16 processors (one group) for quick tests",
        ),
    ]
}

/// Every design, blocks first, then the cores.
pub fn entries() -> Vec<DesignEntry> {
    let mut out = blocks::entries();
    out.extend(core_entries());
    out
}

/// Every name.
pub fn names() -> Vec<String> {
    entries().into_iter().map(|e| e.name).collect()
}

/// The entry of the design called `name`; an unknown name lists the known ones.
pub fn entry(name: &str) -> Result<DesignEntry> {
    entries()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| unknown(name))
}

/// The entry of the design called `name`, with `lanes` matmul lanes when given (`emit` and
/// `synth --lanes`): a core or platform of a shipped configuration, rebuilt with the lanes
/// and named by [`configured_name`]; any other design is an error.
pub fn entry_with_lanes(name: &str, lanes: Option<usize>) -> Result<DesignEntry> {
    let e = entry(name)?;
    let Some(l) = lanes else {
        return Ok(e);
    };
    let Some(stem) = e.config else {
        return Err(config_error(
            "--lanes",
            format!("{name} has no lanes to set: give a core or a platform"),
        ));
    };
    let cfg = shipped_config(stem)
        .with_lanes(l)
        .map_err(|e| config_error(&e.field, e.message))?;
    let kind = e.kind;
    Ok(DesignEntry {
        name: configured_name(kind, &cfg),
        summary: format!("{} ({l} lanes)", e.summary),
        kind,
        config: Some(stem),
        model: None,
        netlist_seconds: e.netlist_seconds,
        build: Box::new(move |name| configured_design(name, kind, &cfg)),
    })
}

/// Build the design called `name`; an unknown name lists the known ones.
pub fn build(name: &str) -> Result<Box<dyn Design>> {
    entry(name)?.build()
}

fn unknown(name: &str) -> RtlError {
    RtlError::Sim(
        edgelearn_sim::ErrorKind::Hdl(
            edgelearn_hdl::error::ErrorKind::UnknownBlock {
                name: name.to_string(),
                valid: names(),
            }
            .into(),
        )
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_shapes_are_the_thesis_ones() {
        let t = shipped_config("thesis-cifar10");
        let m = shipped_config("mnist");
        let s = |inputs, outputs| FcCoreShape {
            inputs,
            outputs,
            pieces: 4,
            registered_reads: false,
        };
        assert_eq!(fc_shape(&t, 0).unwrap(), s(2400, 480));
        assert_eq!(fc_shape(&t, 1).unwrap(), s(480, 480));
        assert_eq!(fc_shape(&m, 0).unwrap(), s(1536, 480));
        assert_eq!(fc_shape(&m, 1).unwrap(), fc_shape(&t, 1).unwrap());
        // FC cores alone take 2, 4 or 8 lanes, the platform and its AXI top 4 or 8, the
        // conv core alone 4.
        let eight = t.clone().with_lanes(8).unwrap();
        assert_eq!(fc_shape(&eight, 0).unwrap(), s(2400, 480));
        assert_eq!(configured_name(Kind::FcCore(0), &eight), "lel_fc_core0_l8");
        assert_eq!(configured_name(Kind::Platform, &eight), "lel_platform_l8");
        let key = |r: Result<()>| match r {
            Err(RtlError::Config { key, .. }) => key,
            other => panic!("{other:?}"),
        };
        assert!(check_rtl_widths(&eight, Kind::Platform).is_ok());
        assert_eq!(platform_shape(&eight).unwrap().lanes, 8);
        assert!(check_rtl_widths(&eight, Kind::PlatformAxi).is_ok());
        assert_eq!(
            key(check_rtl_widths(&eight, Kind::ConvCore)),
            "widths.lanes"
        );
        let seven = t.clone().with_lanes(7);
        assert_eq!(seven.unwrap_err().field, "fc[0].outputs");
        let mut bad = t.clone();
        bad.widths.lanes = 1;
        assert_eq!(key(fc_shape(&bad, 0).map(|_| ())), "widths.lanes");
        assert!(matches!(fc_shape(&t, 2), Err(RtlError::Config { .. })));
    }

    #[test]
    fn names_are_unique_and_follow_the_naming_rules() {
        let all = entries();
        let mut names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a name registered twice");
        for e in &all {
            match (e.kind, e.config) {
                (Kind::Block, None) => assert!(e.model.is_some(), "{}: no model", e.name),
                (Kind::CnnEngine(shape), None) => assert_eq!(e.name, engine_name(&shape)),
                (kind, Some(stem)) => {
                    assert_eq!(e.name, configured_name(kind, &shipped_config(stem)));
                    assert!(e.model.is_none());
                }
                (kind, None) => panic!("{}: {kind:?} without a configuration", e.name),
            }
            assert_eq!(e.kind == Kind::Block, e.states().is_empty(), "{}", e.name);
        }
    }

    #[test]
    fn the_platform_cores_are_named_with_their_designs_alone() {
        let c = entry("lel_platform_mnist").unwrap().sub_cores().unwrap();
        assert_eq!(c[0].module, "lel_platform_mnist$core$conv");
        assert_eq!(c[0].alone, "lel_conv_core_mnist");
        assert_eq!(c[1].alone, "lel_fc_core0_mnist");
        // MNIST's FC core 1 has the thesis's shape: the registered one.
        assert_eq!(c[2].alone, "lel_fc_core1");
        let a = entry("lel_platform_axi").unwrap().sub_cores().unwrap();
        assert_eq!(a[1].module, "lel_platform_axi$platform$core$fc0");
        assert_eq!(a[1].label, "FC core 0");
        assert!(entry("lel_matmul").unwrap().sub_cores().unwrap().is_empty());
        assert!(entry("cnn_engine").unwrap().sub_cores().unwrap().is_empty());
    }

    #[test]
    fn register_maps_exist_and_unknown_names_list_the_known_ones() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for e in entries() {
            if let Some(map) = e.register_map() {
                assert!(root.join(map).is_file(), "{}: {map}", e.name);
            }
        }
        assert_eq!(
            entry("lel_platform_axi").unwrap().register_map(),
            Some("hdl/regs/lel_platform.toml")
        );
        let err = match build("no_such_design") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("an unknown name built"),
        };
        assert!(
            err.contains("no_such_design") && err.contains("lel_matmul"),
            "{err}"
        );
    }
}
