//! The MAX78000-style CNN engine in RTL (issue 15; spec max78000-cnn-engine.md §1, §2).
//!
//! The engine is written as Verilog (`cnn_engine.v`, a [`VerilogDesign`]): it is generic over
//! the processor count through a Verilog parameter, its memories are arrays the
//! backdoor reaches by name, and it is far too large for rust-hdl's simulator to be of use
//! (docs/decisions.md D-CNN-RTL). [`engine`] fills in the processor count and the module
//! names; [`host`] is its host-port address map, the one place the loader and the benches
//! take addresses from. The micro-architecture is in docs/cnn-engine-rtl.md.

pub mod fc_update;

use crate::design::{Direction, PortSpec, VerilogDesign};

/// Words of configuration per layer.
pub const LAYER_WORDS: usize = 16;
/// Layers the sequencer runs.
pub const MAX_LAYERS: usize = 32;
/// Words per data-memory instance.
pub const DATA_WORDS: usize = 8192;
/// Output channels the accumulator memory holds.
pub const MAX_OUT_CHANNELS: usize = 1024;

/// The shape of one engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EngineShape {
    /// Processors (4, 8, 16, 32, 48 or 64).
    pub processors: usize,
    /// 72-bit kernel words per processor (at most 1024).
    pub kernel_words: usize,
}

impl EngineShape {
    /// The MAX78000's organisation: 64 processors, 768 kernel words each.
    pub const MAX78000: EngineShape = EngineShape {
        processors: 64,
        kernel_words: 768,
    };

    /// `processors` processors with the MAX78000's kernel memory.
    pub fn with_processors(processors: usize) -> EngineShape {
        EngineShape {
            processors,
            ..EngineShape::MAX78000
        }
    }

    /// Data-memory instances (one per four processors).
    pub fn instances(&self) -> usize {
        self.processors / 4
    }

    /// Bias bytes (512 per group of 16 processors).
    pub fn bias_bytes(&self) -> usize {
        32 * self.processors
    }

    /// Why the shape cannot be built, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let p = self.processors;
        if !(matches!(p, 4 | 8) || (p.is_multiple_of(16) && (16..=64).contains(&p))) {
            return Err(format!(
                "processors: {p}; the engine is built with 4, 8, 16, 32, 48 or 64"
            ));
        }
        if self.kernel_words == 0 || self.kernel_words > 1024 {
            return Err(format!(
                "kernel words: {}; the engine supports 1 to 1024 per processor",
                self.kernel_words
            ));
        }
        Ok(())
    }

    /// The design's name: `cnn_engine` for the MAX78000 shape, `cnn_engine_p{P}` otherwise.
    pub fn design_name(&self) -> String {
        if *self == EngineShape::MAX78000 {
            "cnn_engine".to_string()
        } else if self.kernel_words == 768 {
            format!("cnn_engine_p{}", self.processors)
        } else {
            format!("cnn_engine_p{}_k{}", self.processors, self.kernel_words)
        }
    }
}

/// The host port's word addresses (`host_addr`, 24 bits; region in bits 23:20).
pub mod host {
    /// CTRL: write bit 0 to start; reads `{done, busy}`.
    pub const CTRL: u32 = 0x00_0000;
    /// Number of layers to run (1..32).
    pub const NLAYERS: u32 = 0x00_0001;
    /// Cycles of the last run.
    pub const CYCLES: u32 = 0x00_0002;
    /// The running (or last) layer.
    pub const LAYER: u32 = 0x00_0003;
    /// Processors (read only).
    pub const PROCESSORS: u32 = 0x00_0004;
    /// Kernel words per processor (read only).
    pub const KERNEL_WORDS: u32 = 0x00_0005;
    /// Cycles of layer `l` in the last run: `LAYER_CYCLES + l`.
    pub const LAYER_CYCLES: u32 = 0x00_0020;
    /// Layer registers: `LAYER_REGS + 16 * layer + word`.
    pub const LAYER_REGS: u32 = 0x10_0000;
    /// Bias bytes: `BIAS + index`.
    pub const BIAS: u32 = 0x20_0000;
    /// Data memory: `DATA + 8192 * instance + word`.
    pub const DATA: u32 = 0x30_0000;
    /// Kernel memory: `KERNEL + 4096 * processor + 4 * word + part`; parts 0 and 1 (bits
    /// 31:0 and 63:32) are staged, writing part 2 (bits 71:64) writes the word.
    pub const KERNEL: u32 = 0x40_0000;

    /// Address of data-memory word `word` of instance `instance`.
    pub fn data(instance: usize, word: usize) -> u32 {
        DATA + (instance * super::DATA_WORDS + word) as u32
    }

    /// Address of part `part` of kernel word `word` of processor `processor`.
    pub fn kernel(processor: usize, word: usize, part: usize) -> u32 {
        KERNEL + (processor * 4096 + word * 4 + part) as u32
    }
}

/// Names of the engine's memories for the backdoor (Verilog paths below the top).
pub mod memories {
    /// Data-memory instance `i` (8192 x 32).
    pub fn data(i: usize) -> String {
        format!("g_dm[{i}].u_dmem.mem")
    }
    /// Kernel memory of processor `p` (depth x 72).
    pub fn kernel(p: usize) -> String {
        format!("g_proc[{p}].u_proc.u_kmem.mem")
    }
    /// Layer registers (512 x 32).
    pub const LAYERS: &str = "lreg";
    /// Bias memory (32 P x 8).
    pub const BIAS: &str = "bmem";
}

const SOURCE: &str = include_str!("cnn_engine.v");

/// The engine's Verilog for `shape`: the top module is [`EngineShape::design_name`], its
/// inner modules `NAME$dmem`, `NAME$kmem`, `NAME$reduce`, `NAME$proc` (the emitted-file convention).
pub fn verilog(shape: &EngineShape) -> String {
    let name = shape.design_name();
    SOURCE
        .replace("@TOP@", &name)
        .replace("@P@", &shape.processors.to_string())
        .replace("@KDEPTH@", &shape.kernel_words.to_string())
}

/// The engine as a design (ports, Verilog, memories). Panics on a shape that
/// [`EngineShape::check`] refuses.
pub fn engine(shape: &EngineShape) -> VerilogDesign {
    if let Err(e) = shape.check() {
        panic!("cnn engine: {e}");
    }
    let ports = vec![
        PortSpec::clock(),
        PortSpec::new("reset", Direction::Input, 1),
        PortSpec::new("host_we", Direction::Input, 1),
        PortSpec::new("host_re", Direction::Input, 1),
        PortSpec::new("host_addr", Direction::Input, 24),
        PortSpec::new("host_wdata", Direction::Input, 32),
        PortSpec::new("host_rdata", Direction::Output, 32),
        PortSpec::new("busy", Direction::Output, 1),
        PortSpec::new("done", Direction::Output, 1),
        PortSpec::new("layer_done", Direction::Output, 1),
        PortSpec::new("layer", Direction::Output, 5),
    ];
    let mut d = VerilogDesign::new(&shape.design_name(), ports, verilog(shape))
        .with_memory(memories::LAYERS, 32, MAX_LAYERS * LAYER_WORDS)
        .with_memory(memories::BIAS, 8, shape.bias_bytes());
    for i in 0..shape.instances() {
        d = d.with_memory(&memories::data(i), 32, DATA_WORDS);
    }
    for p in 0..shape.processors {
        d = d.with_memory(&memories::kernel(p), 72, shape.kernel_words);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Design;

    #[test]
    fn shapes_and_names() {
        assert_eq!(EngineShape::MAX78000.design_name(), "cnn_engine");
        assert_eq!(
            EngineShape::with_processors(16).design_name(),
            "cnn_engine_p16"
        );
        assert!(EngineShape::with_processors(12).check().is_err());
        assert!(EngineShape::with_processors(64).check().is_ok());
        let mut d = engine(&EngineShape::with_processors(16));
        assert_eq!(d.memories().len(), 2 + 4 + 16);
        let v = d.verilog().unwrap();
        assert!(v.contains("module cnn_engine_p16 (") && v.contains("localparam P = 16;"));
        assert!(!v.contains("@TOP@") && !v.contains("@P@") && !v.contains("@KDEPTH@"));
    }
}
