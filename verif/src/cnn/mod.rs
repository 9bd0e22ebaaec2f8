//! Bit-exact golden model of a MAX78000-style CNN engine (spec max78000-cnn-engine.md).
//!
//! The flow is: network description ([`desc`], ai8x YAML) + weights ([`weights`], an ai8x
//! quantized checkpoint or sample-weight arrays) + a sample input → [`plan`] (layer order,
//! channels, shapes, passes, processor maps, every hardware limit) → [`run`] (the layer
//! arithmetic of [`ops`]) → the output tensor, and, through [`memory`], the tensors as
//! data-memory words in the form of ai8x's known-answer files.
//!
//! Where the documents and the silicon differ, the silicon is the default
//! ([`run::Semantics`]); see docs/decisions.md (D-CNN-*).

pub mod desc;
pub mod device;
pub mod engine;
pub mod error;
pub mod fc_update;
pub mod finetune;
pub mod latency;
pub mod memory;
pub mod ops;
pub mod plan;
pub mod random;
pub mod run;
pub mod stream;
pub mod weights;
pub mod yamltree;

pub use desc::NetworkDesc;
pub use device::Device;
pub use error::{CnnError, ErrorKind, Result};
pub use ops::Tensor;
pub use plan::Plan;
pub use run::{RunOptions, RunResult, Semantics};
pub use weights::NetworkWeights;

use std::path::{Path, PathBuf};

/// A network description with its weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// The description.
    pub desc: NetworkDesc,
    /// The weights.
    pub weights: NetworkWeights,
    /// The device.
    pub device: Device,
    /// Whether a processor map with fewer processors than its channels need may be read as
    /// a device with that many processors per pass (ai8x `--max-proc`), with a note, instead
    /// of being an error. Set when the user did not choose the device.
    pub infer_max_proc: bool,
}

/// A finished inference: the plan it followed and every layer's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// The resolved network.
    pub plan: Plan,
    /// The outputs.
    pub result: RunResult,
}

impl Inference {
    /// The final output.
    pub fn output(&self) -> &Tensor {
        self.result.output()
    }

    /// The shape reported to users: `[C, H, W]`, or `[C, L]` for 1-D (Conv1d) output.
    pub fn output_shape(&self) -> Vec<usize> {
        let p = self.plan.layer(self.plan.final_layer);
        let t = self.output();
        if p.one_d {
            vec![t.c, t.h]
        } else {
            vec![t.c, t.h, t.w]
        }
    }
}

impl Network {
    /// Reads a network description and its weights. `bias` is a sample-bias file for test
    /// networks; when it is `None` and the description names one (`bias: NAME`), it is looked
    /// for next to the weights and the description (see [`find_sample_bias`]).
    pub fn load(
        yaml: &Path,
        weights: &Path,
        bias: Option<&Path>,
        device: Device,
    ) -> Result<Network> {
        let desc = NetworkDesc::load(yaml, &device)?;
        let found;
        let bias = match bias {
            Some(b) => Some(b),
            None => {
                found = find_sample_bias(&desc, yaml, weights);
                found.as_deref()
            }
        };
        if desc.bias.is_some() && bias.is_none() && is_sample_weights(weights) {
            return Err(CnnError::new(format!(
                "the network uses sample bias `{}`, but no bias file was given (--bias) or found as bias_{}.npy or bias_source.npy next to the weights",
                desc.bias.as_deref().unwrap_or(""),
                desc.bias.as_deref().unwrap_or("")
            ))
            .in_file(&desc.file)
            .with_key("bias"));
        }
        let w = weights::load(&desc, weights, bias)?;
        Ok(Network {
            desc,
            weights: w,
            device,
            infer_max_proc: false,
        })
    }

    /// Resolves the network for an input of `[C, H, W]`.
    pub fn plan(&self, input: [usize; 3], stop_after: Option<usize>) -> Result<Plan> {
        let mut dev = self.device.clone();
        let mut notes = Vec::new();
        loop {
            match plan::resolve(&self.desc, &self.weights, input, &dev, stop_after) {
                Ok(mut p) => {
                    p.notes = notes;
                    return Ok(p);
                }
                Err(CnnError {
                    kind: error::ErrorKind::ProcessorShortfall { have },
                    layer,
                    ..
                }) if self.infer_max_proc && have < dev.max_proc => {
                    notes.push(format!(
                        "layer {}: its processor map has {have} processors, fewer than its channels need on this device; assuming {have} processors per pass (--max-proc {have}), as ai8x's layer tests made this way do",
                        layer.unwrap_or(0)
                    ));
                    dev = Device {
                        overlap_data: dev.overlap_data,
                        ..Device::with_max_proc(have)
                    };
                }
                Err(e) => return Err(e.in_file(&self.desc.file)),
            }
        }
    }

    /// Runs the network on `input`.
    pub fn infer(
        &self,
        input: &Tensor,
        opts: &RunOptions,
        stop_after: Option<usize>,
    ) -> Result<Inference> {
        let plan = self.plan([input.c, input.h, input.w], stop_after)?;
        let result = run::run(&self.desc, &self.weights, &plan, input, opts)
            .map_err(|e| e.in_file(&self.desc.file))?;
        Ok(Inference { plan, result })
    }

    /// The known-answer pair of an inference: input loader words and expected output words.
    pub fn kat(&self, input: &Tensor, inf: &Inference) -> Result<Kat> {
        let first = inf.plan.order[0];
        let l = &self.desc.layers[first];
        let inputs = if l.streaming {
            memory::fifo_blocks(l, inf.plan.layer(first), input)
        } else {
            memory::input_blocks(l, inf.plan.layer(first), input, &inf.plan.device)
        }
        .map_err(|e| e.in_file(&self.desc.file))?;
        let mut checks = Vec::new();
        let mut layers = Vec::new();
        for &ll in &inf.plan.order {
            let p = inf.plan.layer(ll);
            if !p.checked {
                continue;
            }
            let out = inf.result.outputs[ll].as_ref().expect("layer ran");
            checks.extend(memory::output_checks(
                &self.desc.layers[ll],
                p,
                out,
                &inf.plan.device,
            ));
            layers.push(ll);
        }
        Ok(Kat {
            inputs,
            checks,
            layers,
        })
    }
}

/// Whether a weight file holds sample weights (`.npy`/`.npz`) rather than a checkpoint.
pub fn is_sample_weights(path: &Path) -> bool {
    let n = path.to_string_lossy().to_lowercase();
    n.ends_with(".npy") || n.ends_with(".npz")
}

/// The sample-bias file of a test network (`bias: NAME` in the YAML): `bias_NAME.npy`, then
/// `bias_source.npy`, next to the weights, then next to the description.
pub fn find_sample_bias(desc: &NetworkDesc, yaml: &Path, weights: &Path) -> Option<PathBuf> {
    let name = desc.bias.as_ref()?;
    if !is_sample_weights(weights) {
        return None;
    }
    let dirs = [weights.parent(), yaml.parent()];
    for dir in dirs.into_iter().flatten() {
        for file in [format!("bias_{name}.npy"), "bias_source.npy".to_string()] {
            let p = dir.join(file);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A known-answer test: what the input loader writes and what `check_output()` compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kat {
    /// Input loader blocks, in loader order.
    pub inputs: Vec<memory::InputBlock>,
    /// Expected output words of every checked layer.
    pub checks: Vec<memory::Check>,
    /// The checked layers.
    pub layers: Vec<usize>,
}

const GENERATED: &str = "// This file was @generated automatically\n\n";

impl Kat {
    /// `sampledata.h`: one `SAMPLE_INPUT_{p}` per loader block.
    pub fn sampledata_h(&self) -> String {
        let mut s = GENERATED.to_string();
        for b in &self.inputs {
            s.push_str(&memory::c_define(
                &format!("SAMPLE_INPUT_{}", b.processor),
                &b.words,
            ));
        }
        s
    }

    /// `sampleoutput.h`: the `SAMPLE_OUTPUT` list.
    pub fn sampleoutput_h(&self) -> String {
        let mut s = GENERATED.to_string();
        s.push_str(&memory::c_define(
            "SAMPLE_OUTPUT",
            &memory::sample_output(&self.checks),
        ));
        s
    }

    /// C code of `load_input()` and `check_output()` using the two headers, as in ai8x's
    /// generated `main.c`.
    pub fn kat_c(&self, test_name: &str) -> String {
        let mut s = String::from(
            "// This file was @generated automatically\n// Known-answer test: load_input() and check_output() for ",
        );
        s.push_str(test_name);
        s.push_str("\n\n#include <stdint.h>\n#include <stdio.h>\n#include \"sampledata.h\"\n#include \"sampleoutput.h\"\n\n#ifndef CNN_OK\n#define CNN_OK 1\n#define CNN_FAIL 0\n#endif\n\n");
        s.push_str("#ifndef memcpy32\nstatic void memcpy32(uint32_t *dst, const uint32_t *src, int n)\n{\n  while (n-- > 0)\n    *dst++ = *src++;\n}\n#endif\n\n");
        for b in &self.inputs {
            s.push_str(&format!(
                "static const uint32_t input_{p}[] = SAMPLE_INPUT_{p};\n",
                p = b.processor
            ));
        }
        s.push_str("\nvoid load_input(void)\n{\n");
        if self.inputs.iter().any(|b| b.fifo) {
            s.push_str("  int i;\n\n");
        }
        for b in &self.inputs {
            if b.fifo {
                s.push_str(&format!(
                    "  for (i = 0; i < {n}; i++) {{\n    while (((*((volatile uint32_t *) 0x{st:08x}) & {bit})) != 0) ; // FIFO {f} full\n    *((volatile uint32_t *) 0x{a:08x}) = input_{f}[i];\n  }}\n",
                    n = b.words.len(),
                    st = memory::FIFO_STATUS,
                    bit = 1u32 << b.processor,
                    f = b.processor,
                    a = b.address
                ));
            } else {
                s.push_str(&format!(
                    "  memcpy32((uint32_t *) 0x{:08x}, input_{}, {});\n",
                    b.address,
                    b.processor,
                    b.words.len()
                ));
            }
        }
        s.push_str("}\n\n");
        s.push_str(
            "static const uint32_t sample_output[] = SAMPLE_OUTPUT;\n\nint check_output(void)\n{\n  int i;\n  uint32_t mask, len;\n  volatile uint32_t *addr;\n  const uint32_t *ptr = sample_output;\n\n  while ((addr = (volatile uint32_t *) *ptr++) != 0) {\n    mask = *ptr++;\n    len = *ptr++;\n    for (i = 0; i < len; i++)\n      if ((*addr++ & mask) != *ptr++) {\n        printf(\"Data mismatch (%d/%d) at address 0x%08x: Expected 0x%08x, read 0x%08x.\\n\",\n               i + 1, len, addr - 1, *(ptr - 1), *(addr - 1) & mask);\n        return CNN_FAIL;\n      }\n  }\n\n  return CNN_OK;\n}\n",
        );
        s
    }
}
