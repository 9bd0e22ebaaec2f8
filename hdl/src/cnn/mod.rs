//! The MAX78000-style CNN engine in RTL (issues 15, 27; spec max78000-cnn-engine.md §1, §2).
//!
//! The engine is described in rust-hdl ([`engine`](mod@engine): [`engine::CnnEngine`] and its
//! sub-blocks, docs/decisions.md D-CNN-RTL-HDL), the processor count a const generic.
//! [`EngineShape`] names a shape, [`engine()`] builds it as a design, [`host`] is its
//! host-port address map (generated from `hdl/regs/cnn_engine.toml`) and [`memories`] the
//! backdoor names of its memories: the one place the loader and the benches take them from.
//! The micro-architecture is in docs/cnn-engine-rtl.md.

pub mod engine;
pub mod fc_update;

use crate::design::{Design, Instance};

/// Words of configuration per layer.
pub const LAYER_WORDS: usize = engine::regs::LAYER_WORDS;
/// Layers the sequencer runs.
pub const MAX_LAYERS: usize = 32;
/// Words per data-memory instance.
pub const DATA_WORDS: usize = engine::quad::DATA_WORDS;
/// Output channels the accumulator memory holds.
pub const MAX_OUT_CHANNELS: usize = engine::acc_mem::ACC_WORDS;

/// The shape of one engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
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
}

/// The host port's word addresses (`host_addr`, 24 bits; region in bits 23:20), generated
/// from `hdl/regs/cnn_engine.toml` ([`engine::regs`]), and the address helpers.
pub mod host {
    pub use super::engine::regs::{
        BIAS, CTRL, CYCLES, DATA, KERNEL, KERNEL_WORDS, LAYER, LAYER_CYCLES, LAYER_REGS, NLAYERS,
        PROCESSORS, SCHEDULE, STREAM,
    };

    /// Address of data-memory word `word` of instance `instance`.
    pub fn data(instance: usize, word: usize) -> u32 {
        DATA + (instance * super::DATA_WORDS + word) as u32
    }

    /// Address of part `part` of kernel word `word` of processor `processor`.
    pub fn kernel(processor: usize, word: usize, part: usize) -> u32 {
        KERNEL + (processor * 4096 + word * 4 + part) as u32
    }
}

/// Names of the engine's memories for the backdoor (instance paths below the top).
pub mod memories {
    /// Data-memory instance `i` (8192 x 32): the data memory of quad `i`.
    pub fn data(i: usize) -> String {
        format!("quads${i}.gather.dmem.mem")
    }
    /// Kernel memory of processor `p` (depth x 72).
    pub fn kernel(p: usize) -> String {
        format!("quads${}.mac.units${}.kmem.mem", p / 4, p % 4)
    }
    /// Layer-register word `k` of every layer (32 x 32: entry `l` is layer `l`'s word `k`).
    pub fn layer_word(k: usize) -> String {
        format!("lregs${k}.mem")
    }
    /// Bias memory (bytes).
    pub const BIAS: &str = "acc.bias.mem";
}

/// The engine of `shape` as a design called `name` (ports, Verilog, memories):
/// [`engine::CnnEngine`] at the shape's processor count (the registry,
/// `edgelearn_verif::rtl::designs`, names it by its shape). Panics on a shape that
/// [`EngineShape::check`] refuses.
pub fn engine(name: &str, shape: &EngineShape) -> Box<dyn Design> {
    if let Err(e) = shape.check() {
        panic!("cnn engine: {e}");
    }
    let k = shape.kernel_words;
    let inner: Box<dyn Design> = match shape.processors {
        4 => Box::new(Instance::new(name, engine::CnnEngine4::new(k))),
        8 => Box::new(Instance::new(name, engine::CnnEngine8::new(k))),
        16 => Box::new(Instance::new(name, engine::CnnEngine16::new(k))),
        32 => Box::new(Instance::new(name, engine::CnnEngine32::new(k))),
        48 => Box::new(Instance::new(name, engine::CnnEngine48::new(k))),
        _ => Box::new(Instance::new(name, engine::CnnEngine64::new(k))),
    };
    Box::new(EngineDesign {
        inner,
        shape: *shape,
    })
}

/// An engine design whose Verilog is made once per shape and process: rust-hdl takes about
/// three seconds to write the 64-processor engine (it compiles a regular expression for
/// every array-indexed name of every instance), and a bench builds a fresh design per run.
struct EngineDesign {
    inner: Box<dyn Design>,
    shape: EngineShape,
}

impl Design for EngineDesign {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn ports(&self) -> &[crate::design::PortSpec] {
        self.inner.ports()
    }
    fn verilog(&self) -> Result<String, crate::error::Error> {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static MADE: OnceLock<Mutex<HashMap<EngineShape, String>>> = OnceLock::new();
        let made = MADE.get_or_init(Default::default);
        if let Some(v) = made.lock().ok().and_then(|m| m.get(&self.shape).cloned()) {
            return Ok(v);
        }
        let v = self.inner.verilog()?;
        if let Ok(mut m) = made.lock() {
            m.insert(self.shape, v.clone());
        }
        Ok(v)
    }
    fn memories(&mut self) -> Vec<crate::design::MemorySpec> {
        self.inner.memories()
    }
    fn native(&mut self) -> Option<&mut dyn crate::design::NativeDesign> {
        self.inner.native()
    }
    fn sim_gates(&self) -> Vec<crate::sim_gate::GateSite> {
        self.inner.sim_gates()
    }
    fn fsms(&self) -> Vec<crate::fsm::FsmSite> {
        self.inner.fsms()
    }
    fn covers(&self) -> Vec<crate::cover::CoverSite> {
        self.inner.covers()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_names() {
        assert!(EngineShape::with_processors(12).check().is_err());
        assert!(EngineShape::with_processors(64).check().is_ok());
        let mut d = engine("cnn_engine_p16", &EngineShape::with_processors(16));
        // 16 layer-register words, the bias, 4 data memories, 4 line buffers (one word deep
        // in quads without a FIFO), 16 kernel memories, the accumulators, the layers' cycle
        // counts, the schedule's 3 words.
        let mems = d.memories();
        assert_eq!(mems.len(), 16 + 1 + 4 + 4 + 16 + 1 + 1 + 3);
        for (name, width, depth) in [
            (memories::data(3), 32, DATA_WORDS),
            (memories::kernel(13), 72, 768),
            (memories::layer_word(15), 32, MAX_LAYERS),
            (memories::BIAS.to_string(), 8, 512),
        ] {
            let m = mems
                .iter()
                .find(|m| m.name == name)
                .unwrap_or_else(|| panic!("{name}"));
            assert_eq!((m.width, m.depth), (width, depth), "{name}");
        }
        let v = d.verilog().unwrap();
        assert!(v.contains("module cnn_engine_p16("));
    }
}
