//! Platform configuration (TOML): the network shape, bit widths, scale fields, learning-rate
//! schedule and seeds of an LEL platform, validated so that every error names its field.

use crate::golden::lfsr::LFSR_PERIOD;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A configuration error naming the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the field, e.g. `fc[1].outputs`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        field: field.into(),
        message: message.into(),
    })
}

/// How 8-bit pixels become signed activations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PixelMap {
    /// `p >> 1`: 0..255 to 0..127 (the MNIST calibration).
    Half,
    /// `clamp(p - 128, -127, 127)`: spec §7-24 (normalize(0.5, 0.5) + Q7 with floor).
    Center,
}

/// The input image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputConfig {
    /// Channels of the image fed to the conv block (a grey image is replicated).
    pub channels: usize,
    /// Rows of the stored image.
    pub height: usize,
    /// Columns of the stored image.
    pub width: usize,
    /// Zero pixels added on every side before the conv (e.g. 2 turns 28x28 into 32x32).
    #[serde(default)]
    pub pad: usize,
    /// Pixel mapping.
    pub pixel_map: PixelMap,
}

/// The conv block (not trained on chip).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConvConfig {
    /// Output channels; a multiple of the input channels (depthwise: channel c reads input
    /// channel `c / (out_channels / in_channels)`).
    pub out_channels: usize,
    /// Square kernel size (the tree adder has ten lanes: 1..=3).
    pub kernel: usize,
    /// Scale field: the conv output is `floor(acc / 2^(w-1 + alpha))`.
    pub alpha: u32,
    /// Max-pool window and stride.
    pub pool: usize,
    /// `"random"` (seeded, eq 3.2: +-round(sqrt(6/9) * 2^(w-1))) or a file of
    /// `out_channels * kernel * kernel` integers.
    #[serde(default = "default_kernels")]
    pub kernels: String,
}

fn default_kernels() -> String {
    "random".into()
}

/// One FC core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FcConfig {
    /// Outputs of the core (the hidden size).
    pub outputs: usize,
    /// Parallel sub-layers: input and output are split into this many pieces.
    pub pieces: usize,
    /// Scale field of the output to the next core (A(x+1)_ALPHA).
    pub alpha_next: u32,
    /// Scale field of the local classifier's input (LCx_ALPHA).
    pub alpha_lc: u32,
    /// Error scale field (E_ALPHA).
    #[serde(default)]
    pub alpha_e: u32,
    /// Learning-rate shift per epoch; the last value repeats.
    pub lr_shift: Vec<u32>,
    /// Seed of the local-classifier weight LFSR (17 bits, non-zero); derived if absent.
    #[serde(default)]
    pub seed_lc: Option<u32>,
    /// Seed of the weight-update LFSR (17 bits, non-zero); derived if absent.
    #[serde(default)]
    pub seed_wu: Option<u32>,
}

/// Bit widths.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Widths {
    /// Activations and errors (8).
    pub act: u32,
    /// Weights (6).
    pub weight: u32,
    /// FC accumulators (24).
    pub acc: u32,
    /// Local-classifier outputs (23).
    pub lc_acc: u32,
    /// Weight-update random numbers (14).
    pub rnd: u32,
    /// Matmul lanes (4, the thesis; 1..=64).
    pub lanes: usize,
    /// Classes (10).
    pub classes: usize,
}

impl Default for Widths {
    fn default() -> Self {
        Widths {
            act: 8,
            weight: 6,
            acc: 24,
            lc_acc: 23,
            rnd: 14,
            lanes: 4,
            classes: 10,
        }
    }
}

/// Training options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Shuffle the training images every epoch (seeded).
    pub shuffle: bool,
    /// Learning rate of the float reference per epoch (last repeats); by default the rate
    /// whose expected step equals the stochastic update's: `2^-lr_shift / 2^(w-1)`.
    pub float_lr: Option<Vec<f32>>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            shuffle: true,
            float_lr: None,
        }
    }
}

/// A whole platform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformConfig {
    /// Name for reports.
    pub name: String,
    /// Master seed: conv kernels, FC weights, LFSR seeds (unless given) and the shuffle.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The input image.
    pub input: InputConfig,
    /// The conv block.
    pub conv: ConvConfig,
    /// The FC cores, in pipeline order.
    pub fc: Vec<FcConfig>,
    /// Bit widths.
    #[serde(default)]
    pub widths: Widths,
    /// Training options.
    #[serde(default)]
    pub train: TrainConfig,
    /// Options of the RTL that change its timing, not its arithmetic (the golden model
    /// ignores them).
    #[serde(default, skip_serializing_if = "RtlConfig::is_default")]
    pub rtl: RtlConfig,
}

/// Options of the RTL that change cycles, not results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RtlConfig {
    /// The FC cores' weight-cache read registered once more (one more cycle of latency:
    /// docs/decisions.md D-REGISTERED-READS).
    pub registered_reads: bool,
    /// Output channels the conv core computes at once (1, the thesis; 2 or 4: one pass of
    /// the image per group, docs/decisions.md D-CONV-PARALLEL).
    pub conv_parallel: usize,
}

impl Default for RtlConfig {
    fn default() -> Self {
        RtlConfig {
            registered_reads: false,
            conv_parallel: 1,
        }
    }
}

impl RtlConfig {
    /// No option set (not written into reports and checkpoint keys).
    pub fn is_default(&self) -> bool {
        *self == RtlConfig::default()
    }
}

fn default_seed() -> u64 {
    1
}

/// Largest image side (rows or columns, before padding) a configuration may give.
pub const MAX_IMAGE_SIDE: usize = 1024;
/// Most zero pixels added on a side.
pub const MAX_PAD: usize = 64;
/// Most conv output channels.
pub const MAX_CONV_CHANNELS: usize = 1024;
/// Most FC cores in a pipeline.
pub const MAX_FC_CORES: usize = 16;
/// The most matmul lanes: a weight-update step draws lanes x `rnd` bits of the unfolded
/// LFSR (docs/decisions.md D-LFSR-USE), 896 at 64 lanes.
pub const MAX_LANES: usize = 64;
/// Most outputs of one FC core.
pub const MAX_FC_OUTPUTS: usize = 1 << 16;
/// Most weights of one FC core (64 MB as 32-bit integers in the golden model).
pub const MAX_FC_WEIGHTS: usize = 1 << 24;
/// Most values in a per-epoch schedule (`lr_shift`, `train.float_lr`).
pub const MAX_SCHEDULE: usize = 100_000;
/// Largest configuration file.
pub const MAX_CONFIG_BYTES: usize = 1 << 20;

/// Shapes derived from a valid configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shapes {
    /// Rows and columns after padding.
    pub padded: (usize, usize),
    /// Conv output rows and columns.
    pub conv_out: (usize, usize),
    /// Pooled rows and columns.
    pub pooled: (usize, usize),
    /// Inputs of each FC core.
    pub fc_inputs: Vec<usize>,
}

impl PlatformConfig {
    /// Parse TOML text and validate it.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        if text.len() > MAX_CONFIG_BYTES {
            return err(
                "(toml)",
                format!(
                    "the file has {} bytes, more than the limit of {MAX_CONFIG_BYTES}",
                    text.len()
                ),
            );
        }
        let cfg: PlatformConfig = toml::from_str(text).map_err(|e| {
            let span = e
                .span()
                .map(|s| format!(" (at byte {})", s.start))
                .unwrap_or_default();
            ConfigError {
                field: "(toml)".into(),
                message: format!("{}{span}", e.message()),
            }
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The configuration with `lanes` matmul lanes (`--lanes`), validated again.
    pub fn with_lanes(mut self, lanes: usize) -> Result<Self, ConfigError> {
        self.widths.lanes = lanes;
        self.validate()?;
        Ok(self)
    }

    /// Check every constraint the golden model and the RTL rely on; the error names the field.
    ///
    /// A configuration that validates builds, trains and infers without a panic (property
    /// tested in `tests/lel_model.rs`).
    pub fn validate(&self) -> Result<Shapes, ConfigError> {
        validate_widths(&self.widths)?;
        validate_input(&self.input)?;
        let mut shapes = validate_conv(&self.input, &self.conv)?;
        let (qh, qw) = shapes.pooled;
        shapes.fc_inputs = validate_fc(&self.fc, &self.widths, self.conv.out_channels * qh * qw)?;
        validate_train(&self.train)?;
        Ok(shapes)
    }

    /// The validated shapes (panics on an invalid configuration: validate first).
    pub fn shapes(&self) -> Shapes {
        self.validate().expect("validated configuration")
    }
}

/// The `[widths]` section: every bit width and lane count the datapath supports.
fn validate_widths(w: &Widths) -> Result<(), ConfigError> {
    if w.act != 8 {
        return err("widths.act", format!("{} is not supported: the LEL quantizer, loss and random compare are built for 8-bit activations", w.act));
    }
    if !(2..=8).contains(&w.weight) {
        return err(
            "widths.weight",
            format!("{} is out of range 2..=8", w.weight),
        );
    }
    if !(w.act + w.weight..=32).contains(&w.acc) {
        return err(
            "widths.acc",
            format!(
                "{} is out of range {}..=32 (must hold one product)",
                w.acc,
                w.act + w.weight
            ),
        );
    }
    if !(w.act + w.weight..=32).contains(&w.lc_acc) {
        return err(
            "widths.lc_acc",
            format!("{} is out of range {}..=32", w.lc_acc, w.act + w.weight),
        );
    }
    if w.rnd != 2 * (w.act - 1) {
        return err(
            "widths.rnd",
            format!(
                "{} must be {} (the width of |activation x error|)",
                w.rnd,
                2 * (w.act - 1)
            ),
        );
    }
    if !(1..=MAX_LANES).contains(&w.lanes) {
        return err(
            "widths.lanes",
            format!("{} is out of range 1..={MAX_LANES}", w.lanes),
        );
    }
    if !(2..=16).contains(&w.classes) || w.classes as u32 * w.weight > 64 {
        return err(
            "widths.classes",
            format!(
                "{} is out of range 2..=16 (4-bit labels; classes x weight bits <= 64)",
                w.classes
            ),
        );
    }
    Ok(())
}

/// The `[input]` section on its own: image size, padding and channels.
fn validate_input(i: &InputConfig) -> Result<(), ConfigError> {
    for (name, v) in [("input.height", i.height), ("input.width", i.width)] {
        if !(1..=MAX_IMAGE_SIDE).contains(&v) {
            return err(name, format!("{v} is out of range 1..={MAX_IMAGE_SIDE}"));
        }
    }
    if i.pad > MAX_PAD {
        return err(
            "input.pad",
            format!("{} is out of range 0..={MAX_PAD}", i.pad),
        );
    }
    if !(1..=16).contains(&i.channels) {
        return err(
            "input.channels",
            format!("{} is out of range 1..=16", i.channels),
        );
    }
    Ok(())
}

/// The `[conv]` section against the (valid) input: kernel, channels, scale and pool; gives
/// the padded, conv-output and pooled shapes (`fc_inputs` left empty).
fn validate_conv(i: &InputConfig, c: &ConvConfig) -> Result<Shapes, ConfigError> {
    if !(1..=3).contains(&c.kernel) {
        return err(
            "conv.kernel",
            format!(
                "{} is out of range 1..=3 (the conv tree adder has ten lanes)",
                c.kernel
            ),
        );
    }
    let (ph, pw) = (i.height + 2 * i.pad, i.width + 2 * i.pad);
    if ph < c.kernel || pw < c.kernel {
        return err(
            "input.height",
            format!(
                "a {}x{} image (padded {}x{}) is smaller than the {} kernel",
                i.height, i.width, ph, pw, c.kernel
            ),
        );
    }
    if c.out_channels == 0 || !c.out_channels.is_multiple_of(i.channels) {
        return err(
            "conv.out_channels",
            format!(
                "{} is not a positive multiple of input.channels = {} (depthwise conv)",
                c.out_channels, i.channels
            ),
        );
    }
    if c.out_channels > MAX_CONV_CHANNELS {
        return err(
            "conv.out_channels",
            format!("{} is out of range 1..={MAX_CONV_CHANNELS}", c.out_channels),
        );
    }
    if c.alpha > 7 {
        return err(
            "conv.alpha",
            format!("{} is out of range 0..=7 (3-bit field)", c.alpha),
        );
    }
    let (ch, cw) = (ph - c.kernel + 1, pw - c.kernel + 1);
    if c.pool == 0 || c.pool > ch || c.pool > cw {
        return err(
            "conv.pool",
            format!("{} is out of range 1..={}", c.pool, ch.min(cw)),
        );
    }
    Ok(Shapes {
        padded: (ph, pw),
        conv_out: (ch, cw),
        pooled: (ch / c.pool, cw / c.pool),
        fc_inputs: vec![],
    })
}

/// The `[[fc]]` cores in pipeline order, the first reading `inputs` values; gives the
/// inputs of every core.
fn validate_fc(fc: &[FcConfig], w: &Widths, mut inputs: usize) -> Result<Vec<usize>, ConfigError> {
    if fc.is_empty() {
        return err("fc", "at least one FC core is needed");
    }
    if fc.len() > MAX_FC_CORES {
        return err(
            "fc",
            format!(
                "{} FC cores; at most {MAX_FC_CORES} are supported",
                fc.len()
            ),
        );
    }
    let mut fc_inputs = vec![];
    for (x, f) in fc.iter().enumerate() {
        validate_fc_shape(x, f, w, inputs)?;
        validate_fc_learning(x, f)?;
        fc_inputs.push(inputs);
        inputs = f.outputs;
    }
    Ok(fc_inputs)
}

/// The dotted name of field `n` of FC core `x`.
fn fc_field(x: usize, n: &str) -> String {
    format!("fc[{x}].{n}")
}

/// FC core `x`'s shape: pieces and outputs against its `inputs` and the lanes, the random
/// bits of one weight-update pass, and the weight count.
fn validate_fc_shape(x: usize, f: &FcConfig, w: &Widths, inputs: usize) -> Result<(), ConfigError> {
    let field = |n: &str| fc_field(x, n);
    if f.pieces == 0 || !inputs.is_multiple_of(f.pieces) {
        return err(
            field("pieces"),
            format!(
                "the core's {inputs} inputs are not divisible by pieces = {}",
                f.pieces
            ),
        );
    }
    if f.outputs > MAX_FC_OUTPUTS {
        return err(
            field("outputs"),
            format!("{} is out of range 1..={MAX_FC_OUTPUTS}", f.outputs),
        );
    }
    if f.outputs == 0 || !f.outputs.is_multiple_of(f.pieces * w.lanes) {
        return err(
            field("outputs"),
            format!(
                "{} is not divisible by pieces x lanes = {} x {}",
                f.outputs, f.pieces, w.lanes
            ),
        );
    }
    let per_piece = inputs / f.pieces;
    // A weight-update pass reads one LFSR step (lanes x rnd bits) per input word; the
    // random numbers of one pass must not repeat (verif::lel::fc_core::update).
    let pass_bits = (per_piece * w.lanes) as u64 * w.rnd as u64;
    if pass_bits > LFSR_PERIOD {
        return err(
            field("pieces"),
            format!(
                "each of the {} sub-layers has {per_piece} inputs, so a weight-update \
                 pass draws {per_piece} x {} lanes x {} bits = {pass_bits} random bits, \
                 more than one LFSR period ({LFSR_PERIOD}): use more pieces, or fewer \
                 inputs (conv.pool, conv.out_channels{})",
                f.pieces,
                w.lanes,
                w.rnd,
                if x > 0 {
                    format!(", fc[{}].outputs", x - 1)
                } else {
                    String::new()
                }
            ),
        );
    }
    let weights = per_piece * f.outputs;
    if weights > MAX_FC_WEIGHTS {
        return err(
            field("outputs"),
            format!(
                "{inputs} inputs x {} outputs / {} pieces = {weights} weights, more \
                 than the limit of {MAX_FC_WEIGHTS}",
                f.outputs, f.pieces
            ),
        );
    }
    Ok(())
}

/// FC core `x`'s learning and update parameters: scale fields, learning-rate schedule and
/// LFSR seeds.
fn validate_fc_learning(x: usize, f: &FcConfig) -> Result<(), ConfigError> {
    let field = |n: &str| fc_field(x, n);
    for (name, v) in [
        ("alpha_next", f.alpha_next),
        ("alpha_lc", f.alpha_lc),
        ("alpha_e", f.alpha_e),
    ] {
        if v > 7 {
            return err(
                field(name),
                format!("{v} is out of range 0..=7 (3-bit field)"),
            );
        }
    }
    if f.lr_shift.is_empty() {
        return err(
            field("lr_shift"),
            "give at least one value (one per epoch, the last repeats)",
        );
    }
    if f.lr_shift.len() > MAX_SCHEDULE {
        return err(
            field("lr_shift"),
            format!("{} values; at most {MAX_SCHEDULE}", f.lr_shift.len()),
        );
    }
    if let Some(v) = f.lr_shift.iter().find(|&&v| v > 7) {
        return err(
            field("lr_shift"),
            format!("{v} is out of range 0..=7 (3-bit field)"),
        );
    }
    for (name, s) in [("seed_lc", f.seed_lc), ("seed_wu", f.seed_wu)] {
        if let Some(s) = s {
            if s == 0 || s >= 1 << 17 {
                return err(field(name), format!("{s:#x} is not a non-zero 17-bit seed"));
            }
        }
    }
    Ok(())
}

/// The `[train]` section: the float reference's learning-rate schedule.
fn validate_train(t: &TrainConfig) -> Result<(), ConfigError> {
    if let Some(lr) = &t.float_lr {
        if lr.is_empty() || lr.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return err("train.float_lr", "give positive learning rates");
        }
        if lr.len() > MAX_SCHEDULE {
            return err(
                "train.float_lr",
                format!("{} values; at most {MAX_SCHEDULE}", lr.len()),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const THESIS: &str = include_str!("../../../configs/thesis-cifar10.toml");
    const MNIST: &str = include_str!("../../../configs/mnist.toml");

    #[test]
    fn shipped_configs_are_valid_and_have_the_thesis_shapes() {
        let t = PlatformConfig::from_toml(THESIS).unwrap();
        let s = t.shapes();
        assert_eq!(s.conv_out, (30, 30));
        assert_eq!(s.pooled, (10, 10));
        assert_eq!(s.fc_inputs, vec![2400, 480]);
        let m = PlatformConfig::from_toml(MNIST).unwrap();
        assert_eq!(m.shapes().fc_inputs, vec![1536, 480]);
    }

    #[test]
    fn errors_name_the_field() {
        let bad = THESIS.replace("pieces = 4", "pieces = 7");
        let e = PlatformConfig::from_toml(&bad).unwrap_err();
        assert_eq!(e.field, "fc[0].pieces", "{e}");
        let bad = THESIS.replace("weight = 6", "weight = 12");
        assert_eq!(
            PlatformConfig::from_toml(&bad).unwrap_err().field,
            "widths.weight"
        );
        let bad = THESIS.replace("alpha = 1", "alpha = 9");
        assert_eq!(
            PlatformConfig::from_toml(&bad).unwrap_err().field,
            "conv.alpha"
        );
        let e = PlatformConfig::from_toml("name = 3").unwrap_err();
        assert_eq!(e.field, "(toml)");
        // See: issue 10. 16,224 FC0 inputs: a pass would draw more than one LFSR period.
        let bad = MNIST.replace("pool = 3", "pool = 1");
        let e = PlatformConfig::from_toml(&bad).unwrap_err();
        assert_eq!(e.field, "fc[0].pieces", "{e}");
        assert!(e.message.contains("227136 random bits"), "{e}");
        let bad = THESIS.replace("outputs = 480", "outputs = 100");
        assert_eq!(
            PlatformConfig::from_toml(&bad).unwrap_err().field,
            "fc[0].outputs"
        );
    }
}
