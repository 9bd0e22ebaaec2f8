//! Tensors as accelerator data-memory words (spec §2.3, §2.5, §2.6, §2.11), and the
//! known-answer files in the form ai8x's generated `sampledata.h` / `sampleoutput.h` use.
//!
//! Channel `c` of a layer with `T` processors per pass lives in pass `c / T`, on the
//! `(c % T)`-th enabled processor of the map; processor `p` is byte lane `p % 4` of the data
//! memory instance `(p % 16) / 4` of group `p / 16`, at `0x5040_0000 + g * 0x40_0000 +
//! m * 0x8000`. HWC data has one word per pixel, pass and operand; 32-bit outputs use four
//! consecutive words (one per lane); `write_gap` stretches the pixel stride.

use super::desc::{DataFormat, LayerDesc};
use super::device::Device;
use super::error::{CnnError, Result};
use super::ops::Tensor;
use super::plan::LayerPlan;

/// The words one `memcpy32` of the input loader writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputBlock {
    /// The processor that names the block (`SAMPLE_INPUT_{processor}`).
    pub processor: usize,
    /// Byte address of the first word (for a FIFO, its data register).
    pub address: u32,
    /// Whether the words are pushed into a FIFO (streaming first layer) rather than copied.
    pub fifo: bool,
    /// The words.
    pub words: Vec<u32>,
}

/// One expected output word: `(*address & mask) == value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Check {
    /// Bits that are compared.
    pub mask: u32,
    /// Byte address.
    pub address: u32,
    /// Expected value (already masked).
    pub value: u32,
}

fn u8_of(v: i64) -> u32 {
    (v & 0xff) as u32
}

/// The input loader's words for the first layer: `input` re-viewed to the layer's input size.
pub fn input_blocks(
    layer: &LayerDesc,
    plan: &LayerPlan,
    input: &Tensor,
    dev: &Device,
) -> Result<Vec<InputBlock>> {
    let (h, w) = (plan.in_dim[0], plan.in_dim[1]);
    let data = input
        .reshaped(h, w)
        .ok_or_else(|| CnnError::layer(0, format!("the input cannot be viewed as {h}x{w}")))?;
    let ops = layer.operands;
    let c_per_op = data.c / ops;
    let (expand, thresh) = plan.in_passes;
    let offset = plan.in_offset;
    let map = layer.processors;
    let mut blocks = Vec::new();
    match layer.data_format {
        DataFormat::Chw => {
            if expand > 1 {
                return Err(CnnError::layer_key(
                    0,
                    "data_format",
                    "CHW input with more than one pass cannot be loaded by the embedded loader; use HWC",
                ));
            }
            if ops > 1 {
                return Err(CnnError::layer_key(
                    0,
                    "data_format",
                    "CHW input with several element-wise operands is not supported",
                ));
            }
            let mut c = 0;
            for p in 0..64 {
                if map >> p & 1 == 0 {
                    continue;
                }
                let mut words = vec![0u32; (h * w).div_ceil(4)];
                if c < c_per_op {
                    for k in 0..h * w {
                        words[k / 4] |= u8_of(data.data[c * h * w + k]) << (8 * (k % 4));
                    }
                }
                blocks.push(InputBlock {
                    processor: p,
                    address: dev.instance_base(p) + offset,
                    words,
                    fifo: false,
                });
                c += 1;
            }
        }
        DataFormat::Hwc => {
            // Channels are assigned to enabled lanes in ascending processor order, pass by
            // pass: channel `e * thresh + j` is on the `j`-th enabled processor in pass `e`.
            let enabled: Vec<usize> = (0..64).filter(|p| map >> p & 1 == 1).collect();
            let lane_channel: Vec<Vec<Option<usize>>> = (0..expand)
                .map(|e| {
                    let mut lanes = vec![None; 64];
                    for (j, &p) in enabled.iter().enumerate().take(thresh) {
                        lanes[p] = Some(e * thresh + j);
                    }
                    lanes
                })
                .collect();
            for quad in (0..64).step_by(4) {
                if (map >> quad) & 0xf == 0 {
                    continue;
                }
                let mut words = vec![0u32; ops * h * w * expand];
                for q in 0..h * w {
                    for (e, lanes) in lane_channel.iter().enumerate() {
                        for o in 0..ops {
                            let mut v = 0u32;
                            for l in 0..4 {
                                if let Some(ch) = lanes[quad + l] {
                                    if ch < c_per_op {
                                        v |= u8_of(data.data[(o * c_per_op + ch) * h * w + q])
                                            << (8 * l);
                                    }
                                }
                            }
                            words[(q * expand + e) * ops + o] = v;
                        }
                    }
                }
                blocks.push(InputBlock {
                    processor: quad,
                    address: dev.instance_base(quad) + offset,
                    words,
                    fifo: false,
                });
            }
        }
    }
    Ok(blocks)
}

/// Address of the data register of input FIFO `f`.
pub const FIFO_DATA: u32 = 0x5000_0008;
/// Address of the FIFO status register (bit `f`: FIFO `f` is full).
pub const FIFO_STATUS: u32 = 0x5000_0004;

/// The input FIFO streams of a streaming first layer: HWC data gives FIFO `f` (the group of
/// processors `16f..16f+3`) one word per pixel with up to four channels; CHW data gives the
/// FIFO of each channel's group its pixels four to a word.
pub fn fifo_blocks(layer: &LayerDesc, plan: &LayerPlan, input: &Tensor) -> Result<Vec<InputBlock>> {
    let (h, w) = (plan.in_dim[0], plan.in_dim[1]);
    let data = input
        .reshaped(h, w)
        .ok_or_else(|| CnnError::layer(0, format!("the input cannot be viewed as {h}x{w}")))?;
    if layer.operands > 1 || plan.in_passes.0 > 1 {
        return Err(CnnError::layer_key(
            0,
            "streaming",
            "FIFO input supports one operand and one pass",
        ));
    }
    let map = layer.processors;
    let chans = plan.in_ch.min(data.c);
    let pixels = h * w;
    let mut fifos: Vec<Vec<u32>> = Vec::new();
    let ensure = |f: usize, len: usize, fifos: &mut Vec<Vec<u32>>| {
        while fifos.len() <= f {
            fifos.push(Vec::new());
        }
        if fifos[f].len() < len {
            fifos[f].resize(len, 0);
        }
    };
    match layer.data_format {
        DataFormat::Chw => {
            let mut pmap = 0u64;
            let mut f = 0usize;
            for c in 0..chans {
                if pmap == 0 {
                    pmap = map;
                    f = 0;
                }
                while pmap & 1 == 0 {
                    pmap >>= 16;
                    f += 1;
                    if f > 3 {
                        return Err(CnnError::layer_key(
                            0,
                            "processors",
                            "CHW FIFO input uses processors 0, 16, 32 and 48",
                        ));
                    }
                }
                ensure(f, pixels.div_ceil(4), &mut fifos);
                for k in 0..pixels {
                    fifos[f][k / 4] |= u8_of(data.data[c * pixels + k]) << (8 * (k % 4));
                }
                pmap >>= 16;
                f += 1;
            }
        }
        DataFormat::Hwc => {
            for q in 0..pixels {
                let mut pmap = 0u64;
                let mut f = 0usize;
                for c in (0..chans).step_by(4) {
                    if pmap == 0 {
                        pmap = map;
                        f = 0;
                    }
                    while pmap & 0xf == 0 {
                        pmap >>= 16;
                        f += 1;
                        if f > 3 {
                            return Err(CnnError::layer_key(
                                0,
                                "processors",
                                "HWC FIFO input uses processors 0-3, 16-19, 32-35 and 48-51",
                            ));
                        }
                    }
                    let mut v = 0u32;
                    for b in 0..4 {
                        if pmap & 1 == 1 && c + b < chans {
                            v |= u8_of(data.data[(c + b) * pixels + q]) << (8 * b);
                        }
                        pmap >>= 1;
                    }
                    ensure(f, pixels, &mut fifos);
                    fifos[f][q] = v;
                    pmap >>= 12;
                    f += 1;
                }
            }
        }
    }
    Ok(fifos
        .into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(f, words)| InputBlock {
            processor: f,
            address: FIFO_DATA + 4 * f as u32,
            words,
            fifo: true,
        })
        .collect())
}

/// The expected words of one layer's output (ai8x `unload.verify`, embedded mode).
pub fn output_checks(
    layer: &LayerDesc,
    plan: &LayerPlan,
    out: &Tensor,
    dev: &Device,
) -> Vec<Check> {
    let map = plan.out_map;
    let (expand, thresh) = plan.out_passes;
    let size: u32 = if layer.output_width == 32 { 4 } else { 1 };
    let width = expand as u32 * size;
    let gap = layer.write_gap + 1;
    let mut checks = Vec::new();
    if map == 0 {
        return checks;
    }
    let coffs_start = (map.trailing_zeros() as usize) & !3;
    let layer_map = map >> coffs_start;
    let channels = out.c;
    let pixels = out.h * out.w;
    for q in 0..pixels {
        let mut c = 0usize;
        let mut poffs = coffs_start;
        let mut this_map = layer_map;
        while c < channels {
            if c.is_multiple_of(thresh) {
                poffs = coffs_start;
                this_map = layer_map;
            }
            if this_map == 0 {
                break; // map exhausted (cannot happen for a validated plan)
            }
            let this_c = c;
            let e = (c / thresh) as u32;
            let proc = poffs & !3;
            let mut lanes = [0i64; 4];
            let mut any = false;
            for lane in &mut lanes {
                if this_map & 1 == 1 {
                    any = true;
                    if c < channels {
                        *lane = out.data[c * pixels + q];
                    }
                    c += 1;
                }
                this_map >>= 1;
            }
            let base = dev.data_base
                + layer.out_offset
                + 4 * (((((proc % 16) as u32) * 2048) | (((proc / 16) as u32) * 0x10_0000))
                    + (q as u32 * width + e * size) * gap);
            if any {
                let num_bytes = (c - this_c).min(channels - this_c);
                if size == 1 {
                    let val: u32 = lanes
                        .iter()
                        .enumerate()
                        .map(|(l, &v)| u8_of(v) << (8 * l))
                        .sum();
                    let first_proc = ((map >> proc).trailing_zeros() % 4) as usize;
                    let mask = if num_bytes >= 4 {
                        0xffff_ffff
                    } else {
                        (((1u64 << (8 * num_bytes)) - 1) << (8 * first_proc)) as u32
                    };
                    checks.push(Check {
                        mask,
                        address: base,
                        value: val & mask,
                    });
                } else {
                    for (i, &v) in lanes.iter().enumerate().take(num_bytes.min(4)) {
                        checks.push(Check {
                            mask: 0xffff_ffff,
                            address: base + 4 * i as u32,
                            value: v as u32,
                        });
                    }
                }
            }
            poffs += 4;
        }
    }
    checks
}

/// The `SAMPLE_OUTPUT` list: checks sorted by (mask, address), packed into runs of one mask
/// and consecutive addresses as `{address, mask, count, values...}`, ending with 0.
pub fn sample_output(checks: &[Check]) -> Vec<u32> {
    let mut sorted = checks.to_vec();
    sorted.sort();
    let mut out = Vec::new();
    let mut run: Vec<u32> = Vec::new();
    let (mut run_mask, mut run_addr, mut next) = (0u32, 0u32, 0u32);
    for c in &sorted {
        if c.mask != run_mask || c.address != next || run.is_empty() {
            if !run.is_empty() {
                out.extend([run_addr, run_mask, run.len() as u32]);
                out.append(&mut run);
            }
            run_mask = c.mask;
            run_addr = c.address;
            next = c.address;
        }
        run.push(c.value);
        next = next.wrapping_add(4);
    }
    if !run.is_empty() {
        out.extend([run_addr, run_mask, run.len() as u32]);
        out.extend(run);
    }
    out.push(0);
    out
}

/// A C `#define NAME { ... }` of 32-bit words, eight per line, as ai8x writes them.
pub fn c_define(name: &str, values: &[u32]) -> String {
    let mut s = format!("#define {name} {{ \\\n  ");
    for (i, v) in values.iter().enumerate() {
        s.push_str(&format!("0x{v:08x}"));
        if i + 1 < values.len() {
            s.push_str(", ");
            if (i + 1) % 8 == 0 {
                s.push_str("\\\n  ");
            }
        }
    }
    s.push_str(" \\\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_sorted_by_mask_then_address() {
        let checks = [
            Check {
                mask: 0xffff_ffff,
                address: 0x50400000,
                value: 1,
            },
            Check {
                mask: 0x0000_00ff,
                address: 0x50400004,
                value: 2,
            },
            Check {
                mask: 0x0000_00ff,
                address: 0x50400000,
                value: 3,
            },
            Check {
                mask: 0xffff_ffff,
                address: 0x50400008,
                value: 4,
            },
        ];
        assert_eq!(
            sample_output(&checks),
            vec![
                0x50400000,
                0xff,
                2,
                3,
                2,
                0x50400000,
                0xffff_ffff,
                1,
                1,
                0x50400008,
                0xffff_ffff,
                1,
                4,
                0
            ]
        );
    }

    #[test]
    fn define_format() {
        let s = c_define("X", &(0..9).collect::<Vec<_>>());
        assert_eq!(
            s,
            "#define X { \\\n  0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x00000004, 0x00000005, 0x00000006, 0x00000007, \\\n  0x00000008 \\\n}\n"
        );
    }
}
