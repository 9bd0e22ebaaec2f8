//! Every design `edgelearn` can emit and simulate, by name: the blocks of
//! [`edgelearn_hdl::registry`] and the LEL cores configured from the shipped platform
//! configurations (`configs/*.toml`). The cores need a configuration (an FC core's shape, a
//! conv core's kernel set baked in at emission), which `hdl` does not read, so they are
//! registered here; this is the one registry the command line and the tests use.

use super::{Result, RtlError};
use crate::lel::config::PlatformConfig;
use crate::lel::network::conv_kernels;
use edgelearn_hdl::cnn;
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::conv_core::{ConvCoreShape, LelConvCore};
use edgelearn_hdl::lel::fc_core::{FcCoreShape, LelFcCore};
use edgelearn_hdl::lel::platform::{LelPlatform, PlatformShape};
use edgelearn_hdl::lel::platform_axi::LelPlatformAxi;
use edgelearn_hdl::registry;

/// The thesis network (spec §1.2).
pub const THESIS_CONFIG: &str = include_str!("../../../configs/thesis-cifar10.toml");
/// The MNIST configuration.
pub const MNIST_CONFIG: &str = include_str!("../../../configs/mnist.toml");

/// One emittable design.
pub struct DesignEntry {
    /// Emitted name.
    pub name: &'static str,
    /// One line: what it is.
    pub summary: String,
    build: Box<dyn Fn() -> Result<Box<dyn Design>>>,
}

impl DesignEntry {
    /// A fresh instance.
    pub fn build(&self) -> Result<Box<dyn Design>> {
        (self.build)()
    }
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

/// The widths the RTL cores are built with (4 lanes, 10 classes, int6 weights, 24-bit
/// matmul and 23-bit LC accumulators); anything else is an error naming the key.
pub fn check_rtl_widths(cfg: &PlatformConfig) -> Result<()> {
    let w = &cfg.widths;
    let fixed = [
        ("widths.lanes", w.lanes, 4),
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
    Ok(())
}

/// The shape of FC core `x` of `cfg`, if the RTL builds it.
pub fn fc_shape(cfg: &PlatformConfig, x: usize) -> Result<FcCoreShape> {
    let shapes = cfg
        .validate()
        .map_err(|e| config_error(&e.field, e.message))?;
    check_rtl_widths(cfg)?;
    let f = cfg
        .fc
        .get(x)
        .ok_or_else(|| config_error("fc", format!("there is no FC core {x}")))?;
    let shape = FcCoreShape {
        inputs: shapes.fc_inputs[x],
        outputs: f.outputs,
        pieces: f.pieces,
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
    check_rtl_widths(cfg)?;
    let shape = ConvCoreShape {
        in_channels: cfg.input.channels,
        height: shapes.padded.0,
        width: shapes.padded.1,
        out_channels: cfg.conv.out_channels,
        kernel: cfg.conv.kernel,
        pool: cfg.conv.pool,
    };
    shape.check().map_err(|(key, m)| config_error(key, m))?;
    Ok(shape)
}

/// FC core `x` of `cfg` under `name`.
pub fn fc_design(name: &str, cfg: &PlatformConfig, x: usize) -> Result<Box<dyn Design>> {
    let shape = fc_shape(cfg, x)?;
    Ok(Box::new(Instance::new(name, LelFcCore::new(shape))))
}

/// The conv core of `cfg` under `name`, its kernels baked in.
pub fn conv_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    let shape = conv_shape(cfg)?;
    let kernels = conv_kernels(cfg).map_err(|e| config_error("conv.kernels", e.0))?;
    Ok(Box::new(Instance::new(
        name,
        LelConvCore::new(shape, &kernels),
    )))
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
    let shape = PlatformShape {
        conv: conv_shape(cfg)?,
        kernels: conv_kernels(cfg).map_err(|e| config_error("conv.kernels", e.0))?,
        fc0: fc_shape(cfg, 0)?,
        fc1: fc_shape(cfg, 1)?,
    };
    shape.check().map_err(|(key, m)| config_error(key, m))?;
    Ok(shape)
}

/// The platform of `cfg` under `name`.
pub fn platform_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    let shape = platform_shape(cfg)?;
    Ok(Box::new(Instance::new(name, LelPlatform::new(shape))))
}

/// The platform of `cfg` behind AXI4-Lite and AXI4-Stream ports under `name`.
pub fn platform_axi_design(name: &str, cfg: &PlatformConfig) -> Result<Box<dyn Design>> {
    let shape = platform_shape(cfg)?;
    Ok(Box::new(Instance::new(name, LelPlatformAxi::new(shape))))
}

fn core(
    name: &'static str,
    summary: &str,
    f: impl Fn() -> Result<Box<dyn Design>> + 'static,
) -> DesignEntry {
    DesignEntry {
        name,
        summary: summary.to_string(),
        build: Box::new(f),
    }
}

/// The configured cores, in emission order.
pub fn core_entries() -> Vec<DesignEntry> {
    vec![
        core(
            "lel_fc_core0",
            "FC core 0 of the thesis network: N 2400, 4 x (600 -> 120), LC 480 -> 10 (thesis §4.2.1, Table 4.1)",
            || fc_design("lel_fc_core0", &shipped_config("thesis-cifar10"), 0),
        ),
        core(
            "lel_fc_core1",
            "FC core 1 of the thesis and MNIST networks: N 480, 4 x (120 -> 120), LC 480 -> 10 (thesis §4.2.1)",
            || fc_design("lel_fc_core1", &shipped_config("thesis-cifar10"), 1),
        ),
        core(
            "lel_fc_core0_mnist",
            "FC core 0 of the MNIST configuration: N 1536, 4 x (384 -> 120), LC 480 -> 10",
            || fc_design("lel_fc_core0_mnist", &shipped_config("mnist"), 0),
        ),
        core(
            "lel_conv_core",
            "conv core of the thesis network: 3 x 32 x 32, depthwise 3x3 to 24 channels, ReLU, 3x3/3 max pool (thesis §4.2.2, Table 4.2)",
            || conv_design("lel_conv_core", &shipped_config("thesis-cifar10")),
        ),
        core(
            "lel_conv_core_mnist",
            "conv core of the MNIST configuration: 1 x 28 x 28, depthwise 3x3 to 24 channels, ReLU, 3x3/3 max pool",
            || conv_design("lel_conv_core_mnist", &shipped_config("mnist")),
        ),
        core(
            "lel_platform",
            "the thesis platform: conv core -> FC core 0 -> FC core 1 with FIFOs, PL_* FSM, register file (thesis §4.3, Table 4.3)",
            || platform_design("lel_platform", &shipped_config("thesis-cifar10")),
        ),
        core(
            "lel_platform_mnist",
            "the MNIST configuration's platform: 1 x 28 x 28 conv core -> FC0 (1536) -> FC1 (480)",
            || platform_design("lel_platform_mnist", &shipped_config("mnist")),
        ),
        core(
            "lel_platform_axi",
            "the thesis platform behind AXI4-Lite (registers, docs/registers.md) and AXI4-Stream (DMA MM2S in, S2MM out) ports: the FPGA top",
            || platform_axi_design("lel_platform_axi", &shipped_config("thesis-cifar10")),
        ),
        core(
            "lel_platform_axi_mnist",
            "the MNIST configuration's platform behind AXI4-Lite and AXI4-Stream ports",
            || platform_axi_design("lel_platform_axi_mnist", &shipped_config("mnist")),
        ),
        core(
            "cnn_engine",
            "the MAX78000-style CNN engine: 64 processors (4 groups of 16), 768 x 72-bit kernel words each, 16 x 8192 x 32 data memories, 32-layer sequencer (docs/cnn-engine-rtl.md)",
            || Ok(cnn::engine(&cnn::EngineShape::MAX78000)),
        ),
        core(
            "cnn_engine_p16",
            "the CNN engine with 16 processors (one group) for quick tests",
            || Ok(cnn::engine(&cnn::EngineShape::with_processors(16))),
        ),
    ]
}

/// Every design, blocks first, then the cores.
pub fn entries() -> Vec<DesignEntry> {
    let mut out: Vec<DesignEntry> = registry::blocks()
        .into_iter()
        .map(|b| {
            let build = b.build;
            DesignEntry {
                name: b.name,
                summary: b.summary.to_string(),
                build: Box::new(move || Ok(build())),
            }
        })
        .collect();
    out.extend(core_entries());
    out
}

/// Every name.
pub fn names() -> Vec<&'static str> {
    entries().iter().map(|e| e.name).collect()
}

/// Build the design called `name`; an unknown name lists the known ones.
pub fn build(name: &str) -> Result<Box<dyn Design>> {
    match entries().into_iter().find(|e| e.name == name) {
        Some(e) => e.build(),
        None => Err(RtlError::Sim(
            edgelearn_sim::ErrorKind::Hdl(
                edgelearn_hdl::error::ErrorKind::UnknownBlock {
                    name: name.to_string(),
                    valid: names().iter().map(|s| s.to_string()).collect(),
                }
                .into(),
            )
            .into(),
        )),
    }
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
        };
        assert_eq!(fc_shape(&t, 0).unwrap(), s(2400, 480));
        assert_eq!(fc_shape(&t, 1).unwrap(), s(480, 480));
        assert_eq!(fc_shape(&m, 0).unwrap(), s(1536, 480));
        assert_eq!(fc_shape(&m, 1).unwrap(), fc_shape(&t, 1).unwrap());
        let mut bad = t.clone();
        bad.widths.lanes = 2;
        bad.fc[0].outputs = 480;
        match fc_shape(&bad, 0) {
            Err(RtlError::Config { key, .. }) => assert_eq!(key, "widths.lanes"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(fc_shape(&t, 2), Err(RtlError::Config { .. })));
    }
}
