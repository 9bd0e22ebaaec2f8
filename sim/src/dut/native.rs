//! [`Dut`] on rust-hdl's own simulator: the block itself, settled with rust-hdl's
//! `simulate()` (short runs and designs under development; about 40 k cycles/s).

use super::{check_load, check_peek, check_poke, find_memory, Dut, DutOptions, PortId};
use crate::error::{Error, Result};
use crate::native::{native_of, NativeVcd, HALF_PERIOD_PS};
use edgelearn_hdl::design::{Design, MemorySpec, NativeDesign, PortSpec};
use num_bigint::BigUint;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

/// A rust-hdl block under test.
pub struct NativeDut {
    design: Box<dyn Design>,
    name: String,
    ports: Vec<PortSpec>,
    memories: Vec<MemorySpec>,
    /// The value driven on each input (read back by a peek).
    driven: Vec<Vec<u64>>,
    cycle: u64,
    dirty: bool,
    vcd: Option<(NativeVcd<BufWriter<File>>, PathBuf)>,
}

fn to_words(v: &BigUint, n: usize) -> Vec<u64> {
    let mut w = v.to_u64_digits();
    w.resize(n.max(1), 0);
    w
}

fn from_words(words: &[u64]) -> BigUint {
    let mut digits = Vec::with_capacity(words.len() * 2);
    for &w in words {
        digits.push(w as u32);
        digits.push((w >> 32) as u32);
    }
    BigUint::from_slice(&digits)
}

impl NativeDut {
    /// Start simulating `design` (a fresh instance; a rust-hdl block).
    pub fn new(mut design: Box<dyn Design>, opts: &DutOptions) -> Result<Self> {
        let name = design.name().to_string();
        let ports = design.ports().to_vec();
        let memories = design.memories();
        let native = native_of(&mut *design)?;
        if opts.vcd_window.is_some() {
            return Err(crate::ErrorKind::Dut {
                block: name.clone(),
                message: "a VCD window needs the verilator backend".into(),
            }
            .into());
        }
        if let Some(p) = opts.vcd.as_deref().filter(|p| super::verilator::is_fst(p)) {
            return Err(crate::fst_needs_verilator(&name, p));
        }
        let vcd = match &opts.vcd {
            Some(p) => {
                if let Some(parent) = p.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                let f = File::create(p).map_err(|e| Error::io(p, e))?;
                let v = NativeVcd::new(
                    BufWriter::new(f),
                    native.block(),
                    &format!("{name}_tb"),
                    opts.vcd_depth,
                )
                .map_err(|e| Error::io(p, e))?;
                Some((v, p.clone()))
            }
            None => None,
        };
        native.set_clock(false);
        native.settle()?;
        let driven = ports
            .iter()
            .map(|p| vec![0; p.width.div_ceil(64).max(1)])
            .collect();
        Ok(NativeDut {
            design,
            driven,
            name,
            ports,
            memories,
            cycle: 0,
            dirty: false,
            vcd,
        })
    }

    fn native(&mut self) -> Result<&mut dyn NativeDesign> {
        native_of(&mut *self.design)
    }

    fn settle(&mut self) -> Result<()> {
        if self.dirty {
            self.native()?.settle()?;
            self.dirty = false;
        }
        Ok(())
    }

    fn sample_vcd(&mut self, t: u64) -> Result<()> {
        if let Some((mut v, path)) = self.vcd.take() {
            let r = v.sample(t, native_of(&mut *self.design)?.block());
            self.vcd = Some((v, path.clone()));
            r.map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    }
}

impl Dut for NativeDut {
    fn name(&self) -> &str {
        &self.name
    }
    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }
    fn memories(&self) -> &[MemorySpec] {
        &self.memories
    }

    fn poke(&mut self, port: PortId, value: u64) -> Result<()> {
        self.poke_words(port, &[value])
    }

    fn poke_words(&mut self, port: PortId, words: &[u64]) -> Result<()> {
        let spec = &self.ports[port.0];
        check_poke(&self.name, spec, words)?;
        let name = spec.name.clone();
        self.native()?.set_input(&name, &from_words(words))?;
        let d = &mut self.driven[port.0];
        d.iter_mut().for_each(|w| *w = 0);
        let n = d.len().min(words.len());
        d[..n].copy_from_slice(&words[..n]);
        self.dirty = true;
        Ok(())
    }

    fn peek(&mut self, port: PortId) -> Result<u64> {
        let spec = &self.ports[port.0];
        if spec.width > 64 {
            return Err(self.misuse(format!(
                "`{}` has {} bits; read it with peek_words",
                spec.name, spec.width
            )));
        }
        let mut w = [0u64];
        self.peek_into(port, &mut w)?;
        Ok(w[0])
    }

    fn peek_into(&mut self, port: PortId, out: &mut [u64]) -> Result<()> {
        let spec = &self.ports[port.0];
        check_peek(&self.name, spec, out.len())?;
        let (name, n) = (spec.name.clone(), spec.width.div_ceil(64).max(1));
        if spec.direction == edgelearn_hdl::design::Direction::Input {
            out[..n].copy_from_slice(&self.driven[port.0]);
            return Ok(());
        }
        self.settle()?;
        let v = self.native()?.get_output(&name)?;
        out[..n].copy_from_slice(&to_words(&v, n));
        Ok(())
    }

    fn step(&mut self) -> Result<()> {
        let t = 2 * HALF_PERIOD_PS * self.cycle;
        let native = self.native()?;
        native.set_clock(false);
        native.settle()?;
        self.sample_vcd(t)?;
        let native = self.native()?;
        native.set_clock(true);
        native.settle()?;
        self.dirty = false;
        self.sample_vcd(t + HALF_PERIOD_PS)?;
        self.cycle += 1;
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }

    fn load_mem(&mut self, name: &str, offset: usize, words: &[u64]) -> Result<()> {
        let (_, m) = find_memory(&self.name, &self.memories, name)?;
        check_load(&self.name, m, offset, words)?;
        let per = m.words_per_entry();
        self.native()?.with_memory(name, &mut |mem| {
            for (i, e) in words.chunks(per).enumerate() {
                mem.write_word(offset + i, &from_words(e));
            }
        });
        self.dirty = true;
        Ok(())
    }

    fn read_mem(&mut self, name: &str) -> Result<Vec<u64>> {
        let (_, m) = find_memory(&self.name, &self.memories, name)?;
        let per = m.words_per_entry();
        let mut out = Vec::with_capacity(m.depth * per);
        self.native()?.with_memory(name, &mut |mem| {
            for i in 0..mem.depth() {
                out.extend(to_words(&mem.read_word(i), per));
            }
        });
        Ok(out)
    }

    fn finish(&mut self) -> Result<()> {
        if self.vcd.is_some() {
            // The clock falls half a period after the last edge, as in the Verilog bench.
            let t = 2 * HALF_PERIOD_PS * self.cycle;
            let native = self.native()?;
            native.set_clock(false);
            native.settle()?;
            self.sample_vcd(t)?;
            if let Some((mut v, path)) = self.vcd.take() {
                v.w.flush().map_err(|e| Error::io(path, e))?;
            }
        }
        Ok(())
    }
}

impl Drop for NativeDut {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}
