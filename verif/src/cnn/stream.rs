//! Streaming on the engine (spec max78000-cnn-engine.md §2.10; docs/cnn-engine-rtl.md
//! "Streaming"; docs/decisions.md D-CNN-STREAM): the loader's part. A network whose first
//! layers stream runs them interleaved, one output row at a time, in a static order (the
//! schedule) the engine's sequencer follows: the first layer reads its input from the line
//! buffers the input FIFOs fill, each streaming layer but the last writes a rolling buffer
//! of `2^roll` words in data memory, and an entry waits until the FIFOs have brought the
//! input rows it needs. The order is chosen here, deepest layer first; a simulation of every
//! word the entries write and read (tagged with the layer and row that wrote it) proves that
//! no entry reads a word a later row overwrote, or the network is refused naming the layer.

use super::desc::{DataFormat, NetworkDesc};
use super::engine::LayerRegs;
use super::error::{CnnError, Result};
use super::memory;
use super::ops::Tensor;
use super::plan::Plan;
use edgelearn_hdl::cnn::engine::cnn_engine::SCHED_BITS;
use edgelearn_hdl::cnn::engine::fifo_in::{LINE_BITS, LINE_WORDS};
use edgelearn_hdl::cnn::{EngineShape, DATA_WORDS};

/// One schedule entry: output row `row` of the streaming layer at run position `pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The layer's run position (0..streaming layers).
    pub pos: usize,
    /// The output row.
    pub row: u32,
    /// Input rows the FIFOs must have brought before it starts.
    pub need: u32,
    /// Input rows the FIFOs may have written while it runs.
    pub allow: u32,
    /// The row's first output pixel.
    pub pix_first: u32,
    /// The last entry.
    pub end: bool,
}

impl Entry {
    /// The entry's three schedule words.
    pub fn words(&self) -> [u32; 3] {
        [
            self.row | self.row << 10 | (self.pos as u32) << 20 | u32::from(self.end) << 31,
            self.need | self.allow << 16,
            self.pix_first,
        ]
    }
}

/// A streaming run: the STREAM register's fields, the schedule, the input stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    /// Streaming layers (run positions `0..layers`).
    pub layers: usize,
    /// Input FIFOs in use.
    pub fifos: usize,
    /// The FIFOs carry CHW words.
    pub chw: bool,
    /// Input columns.
    pub width: u32,
    /// The schedule.
    pub schedule: Vec<Entry>,
    /// The input stream, beat by beat (izer's `--fifo` order).
    pub beats: Vec<u32>,
}

impl Stream {
    /// The STREAM register.
    pub fn register(&self) -> u32 {
        self.layers as u32 | (self.fifos as u32) << 4 | u32::from(self.chw) << 7 | self.width << 8
    }
}

/// The input rows output row `row` of a layer reads: `(lowest, highest)`.
pub fn rows_read(r: &LayerRegs, row: u32) -> (u32, u32) {
    let reach = (r.kh.max(1) - 1) * r.dil.max(1);
    let top = (row as i64 - r.pad_y as i64).max(0) as u32;
    let bottom = (row + reach)
        .saturating_sub(r.pad_y)
        .min(r.pooled_h.max(1) - 1);
    let lo = (top.min(bottom) * r.stride_y).min(r.in_h - 1);
    let hi = (bottom * r.stride_y + r.pool_h - 1).min(r.in_h - 1);
    (lo, hi)
}

fn err(net: &NetworkDesc, ll: usize, key: &str, m: String) -> CnnError {
    CnnError::layer_key(ll, key, m).at_line(net.layers[ll].line)
}

/// Words of one row of a layer's input (`in_w x passes x operands`, HWC).
fn in_row_words(r: &LayerRegs) -> u32 {
    r.in_w * r.in_passes * r.operands
}

/// Words of one row of a layer's output.
fn out_row_words(r: &LayerRegs) -> u32 {
    r.out_w * r.out_passes * r.gap
}

/// Checks what the engine needs of the streaming layers `layers[..n]` and of the first
/// one's FIFO input.
fn check(
    net: &NetworkDesc,
    plan: &Plan,
    layers: &[LayerRegs],
    n: usize,
    shape: &EngineShape,
) -> Result<()> {
    for (pos, r) in layers[..n].iter().enumerate() {
        let ll = r.layer;
        let fail = |key: &str, m: &str| Err(err(net, ll, key, m.to_string()));
        let seq = &net.layers[ll].in_sequences;
        let reads_prev = match seq {
            None => true,
            Some(s) => pos > 0 && s[..] == [layers[pos - 1].layer as isize],
        };
        if !reads_prev {
            return fail(
                "in_sequences",
                "a streaming layer reads the streaming layer before it, in order",
            );
        }
        if r.mode != 0 {
            return fail("operation", "a streaming layer is a convolution, pooling or passthrough over a window (no flatten, no transposed convolution)");
        }
        if r.wide {
            return fail("output_width", "a streaming layer writes 8-bit outputs");
        }
        if r.operands != 1 || (pos + 1 < n && r.gap != 1) {
            return fail(
                "write_gap",
                "streaming layers read one operand and write without gaps",
            );
        }
        if r.in_h < 1 || r.pooled_h < 1 {
            return fail("in_dim", "no input rows");
        }
        if pos > 0 {
            let prev = &layers[pos - 1];
            if r.in_base != prev.out_base || in_row_words(r) != out_row_words(prev) {
                return fail("in_offset", "a streaming layer reads its input where the layer before it writes it, row for row");
            }
        }
    }
    let first = &layers[0];
    let (p0, l0) = (plan.layer(first.layer), &net.layers[first.layer]);
    let fifo_procs: u64 = if l0.data_format == DataFormat::Chw {
        0x0001_0001_0001_0001
    } else {
        0x000f_000f_000f_000f
    };
    if l0.processors & !fifo_procs != 0 {
        return Err(err(net, first.layer, "processors", format!(
            "a streaming first layer reads the FIFOs' line buffers, processors 0x{fifo_procs:016x}, not 0x{:016x}",
            l0.processors
        )));
    }
    if p0.in_dim[1] < 4 {
        return Err(err(
            net,
            first.layer,
            "in_dim",
            "a streamed row has at least 4 columns".into(),
        ));
    }
    let top = 63 - l0.processors.leading_zeros() as usize;
    if top >= shape.processors {
        return Err(err(
            net,
            first.layer,
            "processors",
            format!(
                "the FIFO of processor {top} is not on an engine of {} processors",
                shape.processors
            ),
        ));
    }
    Ok(())
}

/// The rolling buffer of each streaming layer's output but the last (log2 of its words, 0
/// for the whole frame): the largest power of two from its first word up to the next
/// streaming layer's first output word (or the memory's end), the whole frame if it fits.
fn rolls(layers: &[LayerRegs], n: usize) -> Vec<u32> {
    let bases: Vec<u32> = layers[..n].iter().map(|r| r.out_base).collect();
    (0..n)
        .map(|k| {
            if k + 1 == n {
                return 0;
            }
            let b = bases[k];
            let end = bases
                .iter()
                .copied()
                .filter(|&x| x > b)
                .min()
                .unwrap_or(DATA_WORDS as u32)
                .min(DATA_WORDS as u32);
            let frame = layers[k].out_h * out_row_words(&layers[k]);
            if b + frame <= end {
                0
            } else {
                31 - (end - b).max(1).leading_zeros()
            }
        })
        .collect()
}

/// The streaming part of a run, when its first layer streams: the rolling buffers and the
/// line buffers set in `layers`' registers, the schedule, the input stream. `None` when
/// nothing streams.
pub fn setup(
    net: &NetworkDesc,
    plan: &Plan,
    layers: &mut [LayerRegs],
    input: &Tensor,
    shape: &EngineShape,
) -> Result<Option<Stream>> {
    let n = layers
        .iter()
        .take_while(|r| net.layers[r.layer].streaming)
        .count();
    if n == 0 {
        return Ok(None);
    }
    check(net, plan, layers, n, shape)?;
    let roll = rolls(layers, n);
    for k in 0..n {
        layers[k].out_roll = roll[k];
        if k + 1 < layers.len() {
            layers[k + 1].in_roll = roll[k];
        }
    }
    layers[0].in_base = 0;
    layers[0].in_roll = LINE_BITS as u32;
    layers[0].linebuf = true;
    let l0 = &net.layers[layers[0].layer];
    let blocks = memory::fifo_blocks(l0, plan.layer(layers[0].layer), input)?;
    let fifos = blocks.iter().map(|b| b.processor + 1).max().unwrap_or(1);
    let len = blocks.iter().map(|b| b.words.len()).max().unwrap_or(0);
    let mut beats = Vec::with_capacity(len * fifos);
    for i in 0..len {
        for f in 0..fifos {
            let w = blocks.iter().find(|b| b.processor == f);
            beats.push(w.and_then(|b| b.words.get(i).copied()).unwrap_or(0));
        }
    }
    let chw = l0.data_format == DataFormat::Chw;
    let width = layers[0].in_w;
    let schedule = schedule(net, layers, n, chw)?;
    verify(net, plan, layers, n, &schedule)?;
    Ok(Some(Stream {
        layers: n,
        fifos,
        chw,
        width,
        schedule,
        beats,
    }))
}

/// Input rows a line buffer holds beyond the lowest one still read.
fn line_rows(width: u32, chw: bool) -> u32 {
    if chw {
        ((LINE_WORDS as u32 - 1) * 4 / width).saturating_sub(1)
    } else {
        LINE_WORDS as u32 / width
    }
}

/// The order of the streaming layers' rows: repeatedly the deepest layer that can compute
/// its next row (its input rows written, room in its rolling buffer).
fn schedule(net: &NetworkDesc, layers: &[LayerRegs], n: usize, chw: bool) -> Result<Vec<Entry>> {
    let lb_rows = line_rows(layers[0].in_w, chw);
    let roll_rows: Vec<u32> = (0..n)
        .map(|k| match layers[k].out_roll {
            0 => u32::MAX,
            r => (1u32 << r) / out_row_words(&layers[k]).max(1),
        })
        .collect();
    let mut next = vec![0u32; n];
    let mut out = Vec::new();
    let total: u32 = layers[..n].iter().map(|r| r.out_h).sum();
    while out.len() < total as usize {
        let ready = (0..n).rev().find(|&k| {
            let r = next[k];
            if r >= layers[k].out_h {
                return false;
            }
            let (lo, hi) = rows_read(&layers[k], r);
            let have = if k == 0 {
                hi + 1 - lo <= lb_rows
            } else {
                hi < next[k - 1]
            };
            let room = k + 1 == n
                || next[k + 1] >= layers[k + 1].out_h
                || r + 1 - rows_read(&layers[k + 1], next[k + 1]).0.min(r + 1) <= roll_rows[k];
            have && room
        });
        let Some(k) = ready else {
            let k = (0..n).find(|&k| next[k] < layers[k].out_h).unwrap_or(0);
            return Err(err(net, layers[k].layer, "out_offset", format!(
                "the streaming layers cannot go on at output row {} of this layer: its rolling buffer or the line buffer ({lb_rows} rows) is too small for the rows its consumer still reads",
                next[k]
            )));
        };
        let r = next[k];
        let need = if k == 0 {
            rows_read(&layers[0], r).1 + 1
        } else {
            0
        };
        let low0 = if next[0] < layers[0].out_h {
            rows_read(&layers[0], next[0]).0
        } else {
            layers[0].in_h
        };
        let allow = (low0 + lb_rows).min((1 << 11) - 1);
        out.push(Entry {
            pos: k,
            row: r,
            need,
            allow,
            pix_first: r * layers[k].out_w,
            end: false,
        });
        next[k] += 1;
    }
    if out.len() > 1 << SCHED_BITS {
        return Err(err(
            net,
            layers[0].layer,
            "streaming",
            format!(
                "{} rows stream; the engine's schedule holds {}",
                out.len(),
                1 << SCHED_BITS
            ),
        ));
    }
    if let Some(e) = out.last_mut() {
        e.end = true;
    }
    Ok(out)
}

/// The data-memory words (in each instance of the layer's output map) that output row
/// `row` of a layer writes: `words_per_row` words from the row's offset, in a rolling
/// buffer of `2^roll` words (`roll` 0: the whole frame).
fn row_span(r: &LayerRegs, row: u32, roll: u32, words_per_row: u32) -> Vec<usize> {
    let mask = if roll == 0 { u32::MAX } else { (1 << roll) - 1 };
    (row * words_per_row..(row + 1) * words_per_row)
        .map(|w| ((r.out_base + (w & mask)) as usize) % DATA_WORDS)
        .collect()
}

/// Replays the schedule's writes and reads word by word, each data-memory word tagged with
/// the (layer, row) that wrote it last: every read must find the row it expects, and the
/// last streaming layer's frame must be whole when the schedule ends.
fn verify(
    net: &NetworkDesc,
    plan: &Plan,
    layers: &[LayerRegs],
    n: usize,
    schedule: &[Entry],
) -> Result<()> {
    let insts =
        |map: u64| -> Vec<usize> { (0..16).filter(|i| map >> (4 * i) & 0xf != 0).collect() };
    let mut tag: Vec<Vec<Option<(usize, u32)>>> = vec![vec![None; DATA_WORDS]; 16];
    let words = |k: usize, row: u32| {
        row_span(
            &layers[k],
            row,
            layers[k].out_roll,
            out_row_words(&layers[k]),
        )
    };
    for e in schedule {
        let k = e.pos;
        if k > 0 {
            let (lo, hi) = rows_read(&layers[k], e.row);
            for i in insts(layers[k].in_map) {
                for row in lo..=hi {
                    for w in words(k - 1, row) {
                        if tag[i][w] != Some((k - 1, row)) {
                            let ll = layers[k - 1].layer;
                            return Err(err(net, ll, "out_offset", format!(
                                "streamed, row {row} of this layer's output (data memory {i}, word 0x{w:04x}) is overwritten before layer {} has read it; move the outputs apart",
                                layers[k].layer
                            )));
                        }
                    }
                }
            }
        }
        for i in insts(plan.layer(layers[k].layer).out_map) {
            for w in words(k, e.row) {
                tag[i][w] = Some((k, e.row));
            }
        }
    }
    let last = n - 1;
    for i in insts(plan.layer(layers[last].layer).out_map) {
        for row in 0..layers[last].out_h {
            for w in words(last, row) {
                if tag[i][w] != Some((last, row)) {
                    return Err(err(net, layers[last].layer, "out_offset", format!(
                        "streamed, row {row} of this layer's output (data memory {i}, word 0x{w:04x}) is overwritten before the layers after the streaming ones read it"
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(in_h: u32, pool: u32, kh: u32, pad: u32) -> LayerRegs {
        let mut r = LayerRegs::default();
        (r.in_h, r.pool_h, r.stride_y) = (in_h, pool, pool);
        (r.pooled_h, r.kh, r.dil, r.pad_y) = (in_h / pool, kh, 1, pad);
        r
    }

    #[test]
    fn rows_read_cover_the_window_through_pooling_and_padding() {
        // 3x3, pad 1, no pooling: rows r-1..r+1, clipped at the edges.
        let c = layer(8, 1, 3, 1);
        assert_eq!(rows_read(&c, 0), (0, 1));
        assert_eq!(rows_read(&c, 3), (2, 4));
        assert_eq!(rows_read(&c, 7), (6, 7));
        // 2x2/2 pooling first: pooled rows r-1..r+1 are input rows 2(r-1)..2(r+1)+1.
        let p = layer(8, 2, 3, 1);
        assert_eq!(rows_read(&p, 0), (0, 3));
        assert_eq!(rows_read(&p, 1), (0, 5));
        assert_eq!(rows_read(&p, 3), (4, 7));
        // 1x1: the row itself.
        assert_eq!(rows_read(&layer(5, 1, 1, 0), 4), (4, 4));
    }

    #[test]
    fn an_entry_packs_its_fields_as_the_sequencer_reads_them() {
        let e = Entry {
            pos: 5,
            row: 0x3ff,
            need: 0x7ff,
            allow: 0x155,
            pix_first: 0xf_ffff,
            end: true,
        };
        let [w0, w1, w2] = e.words();
        assert_eq!(
            (w0 & 0x3ff, (w0 >> 10) & 0x3ff, (w0 >> 20) & 7, w0 >> 31),
            (0x3ff, 0x3ff, 5, 1)
        );
        assert_eq!((w1 & 0x7ff, (w1 >> 16) & 0x7ff), (0x7ff, 0x155));
        assert_eq!(w2, 0xf_ffff);
        assert_eq!(line_rows(128, false), 16);
        assert_eq!(line_rows(168, true), 47);
    }
}
