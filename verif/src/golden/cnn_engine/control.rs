//! Golden twins of the CNN engine's control: the windows' handshake (`WindowCtl`), the MAC
//! pipeline's side information (`MacPipe`), the layer sequencer (`LayerSeq`), the MAC side's
//! sequencer (`MacCtl`) and the host port (`HostPort`).

use super::lowest_set;

/// The two windows' handshake (`WindowCtl`): per window, `pend` while an iteration's items
/// are on their way (from the gather's last one until the value is in the window, three
/// edges), then `full` until the MAC has issued the iteration's last channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowFlags {
    /// Windows holding a complete iteration (bit b: window b).
    pub full: u8,
    /// Windows whose iteration's items are issued, the values not yet in.
    pub pend: u8,
    /// The gather ends of the last three edges, newest first: (an end, its window).
    ends: [(bool, bool); 3],
}

/// One edge's inputs of [`WindowFlags`].
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowCtlIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A layer starts.
    pub load: bool,
    /// The layer runs (the flags change only then).
    pub run: bool,
    /// The gather issues an iteration's last item, into window `gather_buf`.
    pub gather_end: bool,
    /// The gather's window.
    pub gather_buf: bool,
    /// The MAC issues an iteration's last channel, from window `mac_buf`.
    pub mac_end: bool,
    /// The MAC's window.
    pub mac_buf: bool,
}

impl WindowFlags {
    /// One edge. A window whose values arrive is full and no longer pending; the MAC's end
    /// frees its window; the later of these wins. A load or a reset frees both windows.
    pub fn step(&mut self, i: &WindowCtlIn) {
        let bit = |b: bool| 1u8 << (b as u8);
        let (mut full, mut pend) = (self.full, self.pend);
        if i.gather_end {
            pend |= bit(i.gather_buf);
        }
        let (arrived, buf) = self.ends[2];
        if arrived {
            full |= bit(buf);
            pend &= !bit(buf);
        }
        if i.mac_end {
            full &= !bit(i.mac_buf);
        }
        if i.run {
            (self.full, self.pend) = (full, pend);
        }
        if i.load || i.reset {
            (self.full, self.pend) = (0, 0);
        }
        self.ends = [
            (i.gather_end && !i.reset, i.gather_buf),
            self.ends[0],
            self.ends[1],
        ];
        if i.reset {
            for e in &mut self.ends {
                e.0 = false;
            }
        }
    }
}

/// What travels with an issued output channel (`MacPipe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacTag {
    /// A channel is in this stage.
    pub valid: bool,
    /// The pixel's first iteration (the accumulator starts from the bias).
    pub first: bool,
    /// The pixel's last iteration (the result is written).
    pub last: bool,
    /// Output channel.
    pub oc: u32,
    /// Output processor.
    pub proc: u32,
    /// Output pass.
    pub oe: u32,
    /// Output pixel.
    pub pix: u32,
}

/// The MAC pipeline's side information (`MacPipe`): stages M1, M2, M3 and the write at M4.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacTags {
    /// M1, M2, M3.
    pub stage: [MacTag; 3],
    /// M4: valid only for a last iteration.
    pub m4: MacTag,
}

impl MacTags {
    /// One edge: `issue` enters M1 (not valid under `reset`), everything moves one stage.
    pub fn step(&mut self, reset: bool, issue: MacTag) {
        let m3 = self.stage[2];
        self.m4 = MacTag {
            valid: m3.valid && m3.last,
            ..m3
        };
        self.stage = [
            MacTag {
                valid: issue.valid && !reset,
                ..issue
            },
            self.stage[0],
            self.stage[1],
        ];
    }
}

/// The layer sequencer's states (`LayerSeq`), in the order of their index on `state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SeqPhase {
    /// Waiting for the host.
    #[default]
    Idle,
    /// One cycle: the layer's registers into the configuration.
    Load,
    /// The gather and the MAC.
    Run,
    /// The MAC pipeline empties (nine cycles).
    Drain,
    /// A schedule entry's address (streaming).
    Fetch,
    /// Waiting for the entry's input rows (streaming).
    Wait,
}

impl SeqPhase {
    /// The state's index on `state`.
    pub fn index(self) -> u32 {
        self as u32
    }
}

/// Streaming layers at most (the sequencer's per-layer cycle sums).
pub const SEQ_STREAM_LAYERS: usize = 8;

/// Cycles of DRAIN after the layer's last issue, minus one.
pub const SEQ_DRAIN_COUNT: u32 = 8;

/// One edge's inputs of [`Sequencer`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The host starts a run (taken in IDLE).
    pub start: bool,
    /// Layers to run.
    pub nlayers: u32,
    /// The MAC issues the layer's last channel.
    pub layer_end: bool,
    /// The layer whose cycle count is read.
    pub lc_raddr: u32,
    /// Streaming layers (0: none).
    pub stream_layers: u32,
    /// Schedule entry word 0: rows 9:0 and 19:10, layer 22:20, END 31.
    pub sched_w0: u32,
    /// Word 1: NEED 10:0, ALLOW 26:16.
    pub sched_w1: u32,
    /// Word 2: the first pixel.
    pub sched_w2: u32,
    /// Input rows the FIFOs have brought.
    pub fifo_rows: u32,
}

/// The layer sequencer (`LayerSeq`): LOAD, RUN until the layer's last issue, DRAIN nine
/// cycles, then the next layer's LOAD or IDLE with `done`; it counts the run's cycles and
/// keeps each layer's (from its LOAD to the end of its DRAIN). Streaming: FETCH and WAIT
/// per schedule entry before its LOAD, a streaming layer's cycles summed over its slices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sequencer {
    /// State.
    pub phase: SeqPhase,
    /// The running (or last) layer.
    pub layer: u32,
    /// DRAIN's countdown.
    pub cnt: u32,
    /// Cycles since the start.
    pub cycles: u32,
    /// `cycles` at the layer's LOAD.
    pub lstart: u32,
    /// The run has finished.
    pub done: bool,
    /// A layer's last write was one cycle ago.
    pub layer_done: bool,
    /// The cycle after LOAD.
    pub loaded: bool,
    /// Each layer's cycles in the last run.
    pub lcycles: [u32; 32],
    /// The count read at the last edge.
    pub lc_read: u32,
    /// The schedule entry.
    pub sched: u32,
    /// The running layer runs an entry's rows.
    pub slice: bool,
    /// The entry is the last.
    pub end: bool,
    /// The entry's rows.
    pub row_first: u32,
    /// The entry's last row.
    pub row_last: u32,
    /// The entry's first pixel.
    pub pix_first: u32,
    /// Input rows the FIFOs may have written.
    pub allow: u32,
    /// Streaming layers' cycles so far.
    pub lacc: [u32; SEQ_STREAM_LAYERS],
}

impl Sequencer {
    /// The layer whose registers are read this cycle (for the next LOAD).
    pub fn next_layer(&self, i: &SeqIn) -> u32 {
        match self.phase {
            SeqPhase::Idle => 0,
            SeqPhase::Drain if self.slice => i.stream_layers % 16,
            SeqPhase::Drain => (self.layer + 1) % 32,
            SeqPhase::Wait => (i.sched_w0 >> 20) & 7,
            _ => self.layer,
        }
    }

    /// The first row and pixel the gather and the MAC take at LOAD.
    pub fn first(&self) -> (u32, u32) {
        if self.slice {
            (self.row_first, self.pix_first)
        } else {
            (0, 0)
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &SeqIn) {
        let before = self.clone();
        self.lc_read = before.lcycles[i.lc_raddr as usize % 32];
        self.layer_done = false;
        self.loaded = false;
        if before.phase != SeqPhase::Idle {
            self.cycles = before.cycles.wrapping_add(1);
        }
        let last = before.layer % 64 == i.nlayers.wrapping_sub(1) % 64;
        let stream_layers = i.stream_layers % 16;
        let in_slice = |k: u32| before.slice && (k as usize) < SEQ_STREAM_LAYERS;
        match before.phase {
            SeqPhase::Idle => {
                if i.start {
                    (self.phase, self.layer, self.done, self.cycles) =
                        (SeqPhase::Load, 0, false, 0);
                    (self.slice, self.sched, self.allow) = (false, 0, 0);
                    self.lacc = [0; SEQ_STREAM_LAYERS];
                    if stream_layers != 0 {
                        (self.phase, self.slice) = (SeqPhase::Fetch, true);
                    }
                }
            }
            SeqPhase::Fetch => self.phase = SeqPhase::Wait,
            SeqPhase::Wait => {
                self.layer = (i.sched_w0 >> 20) & 7;
                self.row_first = i.sched_w0 & 0x3ff;
                self.row_last = (i.sched_w0 >> 10) & 0x3ff;
                self.end = i.sched_w0 >> 31 != 0;
                self.allow = (i.sched_w1 >> 16) & 0x7ff;
                self.pix_first = i.sched_w2 & 0xf_ffff;
                if i.fifo_rows % 2048 >= i.sched_w1 & 0x7ff {
                    self.phase = SeqPhase::Load;
                }
            }
            SeqPhase::Load => {
                self.lstart = before.cycles;
                self.loaded = true;
                self.phase = SeqPhase::Run;
            }
            SeqPhase::Run => {
                if i.layer_end {
                    self.phase = SeqPhase::Drain;
                    self.cnt = SEQ_DRAIN_COUNT;
                }
            }
            SeqPhase::Drain => {
                if before.cnt == 0 {
                    let sum = if in_slice(before.layer) {
                        before.lacc[before.layer as usize]
                    } else {
                        0
                    };
                    let total = sum
                        .wrapping_add(before.cycles.wrapping_sub(before.lstart))
                        .wrapping_add(1);
                    self.lcycles[before.layer as usize] = total;
                    if in_slice(before.layer) {
                        self.lacc[before.layer as usize] = total;
                    }
                    self.layer_done = true;
                    if before.slice {
                        if !before.end {
                            self.sched = (before.sched + 1) % 2048;
                            self.phase = SeqPhase::Fetch;
                        } else if stream_layers == i.nlayers % 64 {
                            self.phase = SeqPhase::Idle;
                            self.done = true;
                        } else {
                            (self.slice, self.layer, self.phase) =
                                (false, stream_layers, SeqPhase::Load);
                        }
                    } else if last {
                        self.phase = SeqPhase::Idle;
                        self.done = true;
                    } else {
                        self.layer = (before.layer + 1) % 32;
                        self.phase = SeqPhase::Load;
                    }
                } else {
                    self.cnt = before.cnt - 1;
                }
            }
        }
        if i.reset {
            self.phase = SeqPhase::Idle;
            self.done = false;
            self.layer = 0;
            self.cycles = 0;
            self.layer_done = false;
            self.loaded = false;
            self.slice = false;
            self.allow = 0;
        }
    }
}

/// One edge's inputs of [`MacSeq`] (the layer's fields as `MacCtl` takes them).
#[derive(Clone, Copy, Debug, Default)]
pub struct MacCtlIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A layer starts.
    pub load: bool,
    /// The starting kernel word of the layer being loaded.
    pub load_kstart: u32,
    /// The layer runs.
    pub run: bool,
    /// Windows holding a complete iteration.
    pub full: u32,
    /// Output channels.
    pub out_ch: u32,
    /// Kernel start word (each pixel's).
    pub kstart: u32,
    /// Kernels per word.
    pub kpw: u32,
    /// Bits per kernel.
    pub kslot: u32,
    /// Output processors per output pass.
    pub out_thresh: u32,
    /// Output processor map.
    pub out_map: u64,
    /// Input passes.
    pub in_passes: u32,
    /// Flatten chunks.
    pub chunks: u32,
    /// Output width.
    pub out_w: u32,
    /// First output row (taken at `load`).
    pub row_first: u32,
    /// Last output row.
    pub row_last: u32,
    /// The first row's first pixel (taken at `load`).
    pub pix_first: u32,
}

/// The MAC side's sequencer (`MacCtl`): once its window is full, a cycle to start, then one
/// output channel per cycle, each with its kernel word and slot, output processor (the map's
/// processors in order, `out_thresh` per output pass) and pass; after the last channel the
/// window is freed and the loop moves on (chunk, input pass, output pixel).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacSeq {
    /// Issuing channels.
    pub active: bool,
    /// The window read.
    pub buf: bool,
    /// Output row.
    pub y: u32,
    /// Output column.
    pub x: u32,
    /// Output pixel index.
    pub pix: u32,
    /// Input pass.
    pub pass_in: u32,
    /// Flatten chunk.
    pub chunk: u32,
    /// Channel.
    pub ch: u32,
    /// Kernel word.
    pub kword: u32,
    /// Kernel in the word.
    pub ksub: u32,
    /// Output processor.
    pub proc: u32,
    /// Channels of this output pass so far.
    pub rank: u32,
    /// Output pass.
    pub pass_out: u32,
}

/// What [`MacSeq`] drives in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacIssue {
    /// A channel is issued.
    pub issue: bool,
    /// The pixel's first iteration.
    pub first: bool,
    /// The pixel's last iteration.
    pub last: bool,
    /// The window read.
    pub read_buf: bool,
    /// Channel.
    pub oc: u32,
    /// Kernel word.
    pub kaddr: u32,
    /// The kernel's first bit in the word.
    pub kshift: u32,
    /// Output processor.
    pub oproc: u32,
    /// Output pass.
    pub oe: u32,
    /// Output pixel.
    pub opix: u32,
    /// The iteration's last channel.
    pub mac_end: bool,
    /// The layer's last channel.
    pub layer_end: bool,
}

impl MacSeq {
    /// The iteration-loop ends for inputs `i` (each counter at its bound minus one).
    fn ends(&self, i: &MacCtlIn) -> [bool; 5] {
        let at = |v: u32, n: u32, bits: u32| v == n.wrapping_sub(1) & ((1 << bits) - 1);
        [
            at(self.ch, i.out_ch, 11),
            at(self.chunk, i.chunks, 5),
            at(self.pass_in, i.in_passes, 5),
            at(self.x, i.out_w, 10),
            self.y == i.row_last & 0x3ff,
        ]
    }

    /// The outputs in this cycle.
    pub fn outputs(&self, i: &MacCtlIn) -> MacIssue {
        let go = i.run && self.active;
        let [ch_end, chunk_end, pass_end, x_end, y_end] = self.ends(i);
        MacIssue {
            issue: go,
            first: self.pass_in == 0 && self.chunk == 0,
            last: pass_end && chunk_end,
            read_buf: self.buf,
            oc: self.ch,
            kaddr: self.kword,
            kshift: (self.ksub * i.kslot) & 0x7f,
            oproc: self.proc,
            oe: self.pass_out,
            opix: self.pix,
            mac_end: go && ch_end,
            layer_end: go && ch_end && chunk_end && pass_end && x_end && y_end,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &MacCtlIn) {
        let b = self.clone();
        let go = i.run && b.active;
        let [ch_end, chunk_end, pass_end, x_end, y_end] = b.ends(i);
        let first_proc = lowest_set(i.out_map);
        // The processors of the map above this one.
        let above = i.out_map & !((2u64 << (b.proc & 63)).wrapping_sub(1));
        let full = i.full >> (b.buf as u32) & 1 == 1;
        if i.run && !b.active && full {
            (self.active, self.ch, self.rank, self.pass_out) = (true, 0, 0, 0);
            self.proc = first_proc;
        }
        if go {
            if b.ksub == i.kpw.wrapping_sub(1) & 0x7f {
                self.ksub = 0;
                self.kword = (b.kword + 1) & 0x3ff;
            } else {
                self.ksub = (b.ksub + 1) & 0x7f;
            }
            let next_rank = (b.rank + 1) & 0x7f;
            if next_rank == i.out_thresh {
                self.rank = 0;
                self.pass_out = (b.pass_out + 1) & 0x1f;
                self.proc = first_proc;
            } else {
                self.rank = next_rank;
                self.proc = lowest_set(above);
            }
            self.ch = (b.ch + 1) & 0x7ff;
            if ch_end {
                self.active = false;
                self.buf = !b.buf;
                if !chunk_end {
                    self.chunk = (b.chunk + 1) & 0x1f;
                } else {
                    self.chunk = 0;
                    if !pass_end {
                        self.pass_in = (b.pass_in + 1) & 0x1f;
                    } else {
                        self.pass_in = 0;
                        self.kword = i.kstart;
                        self.ksub = 0;
                        self.pix = (b.pix + 1) & 0xf_ffff;
                        if !x_end {
                            self.x = (b.x + 1) & 0x3ff;
                        } else {
                            self.x = 0;
                            if !y_end {
                                self.y = (b.y + 1) & 0x3ff;
                            }
                        }
                    }
                }
            }
        }
        if i.load {
            (self.y, self.x, self.pix, self.pass_in, self.chunk) =
                (i.row_first & 0x3ff, 0, i.pix_first & 0xf_ffff, 0, 0);
            (self.buf, self.active) = (false, false);
            self.kword = i.load_kstart;
            self.ksub = 0;
        }
        if i.reset {
            self.active = false;
        }
    }
}

/// One edge's inputs of [`HostRegs`].
#[derive(Clone, Copy, Debug, Default)]
pub struct HostIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Write strobe.
    pub we: bool,
    /// Read strobe.
    pub re: bool,
    /// Word address (24 bits).
    pub addr: u32,
    /// Write data.
    pub wdata: u32,
    /// The engine runs.
    pub busy: bool,
    /// The run has finished.
    pub done: bool,
    /// The running layer.
    pub layer: u32,
    /// Cycles of the run.
    pub cycles: u32,
}

/// The memories' read data a host read selects from (each one edge after its address).
#[derive(Clone, Copy, Debug, Default)]
pub struct HostReadData {
    /// A layer's cycle count.
    pub lc: u32,
    /// The layer-register words.
    pub lregs: [u32; 16],
    /// A bias byte.
    pub bias: u8,
    /// A data-memory word.
    pub dm: u32,
    /// A kernel word (72 bits).
    pub kword: u128,
    /// The schedule entry's words.
    pub sched: [u32; 3],
}

/// The host port (`HostPort`, the map `hdl/regs/cnn_engine.toml`): each input registered
/// once (the port stage); writes to NLAYERS and to the memory regions only while the engine
/// is idle, CTRL's start bit at any time; kernel words staged in parts 0 and 1 and written
/// with part 2; a read answered two cycles after its strobe, the registers from the port's
/// state, the memories from their read data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostRegs {
    /// The port stage: (reset, we, re, addr, wdata) of the last edge.
    pub stage: (bool, bool, bool, u32, u32),
    /// Layers to run.
    pub nlayers: u32,
    /// The STREAM register (18 bits).
    pub stream: u32,
    /// Kernel parts 0 and 1.
    pub kstage: u64,
    /// Address of the last read.
    pub read_addr: u32,
    /// Register value of the last read.
    pub read_reg: u32,
    /// Processors of the engine.
    pub processors: u32,
    /// Kernel words per processor.
    pub kernel_words: u32,
}

/// What [`HostRegs`] drives in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostOut {
    /// Start a run.
    pub start: bool,
    /// Writes by region.
    pub lreg_we: bool,
    /// Bias write.
    pub bias_we: bool,
    /// Data-memory write.
    pub dm_we: bool,
    /// Kernel-memory write.
    pub k_we: bool,
    /// Schedule write.
    pub sched_we: bool,
    /// The kernel word written.
    pub k_wdata: u128,
    /// The word read.
    pub rdata: u32,
}

impl HostRegs {
    /// The port of an engine of `processors` processors of `kernel_words` kernel words.
    pub fn new(processors: u32, kernel_words: u32) -> Self {
        HostRegs {
            processors,
            kernel_words,
            ..Default::default()
        }
    }

    /// The outputs in this cycle (`busy` the engine's now, `rd` the memories' read data).
    pub fn outputs(&self, busy: bool, rd: &HostReadData) -> HostOut {
        use edgelearn_hdl::cnn::engine::regs;
        let (_, we, _, addr, wdata) = self.stage;
        let region = addr >> 20;
        let write = we && !busy;
        let part = addr & 3;
        let r = self.read_addr;
        let rdata = match r >> 20 {
            0 if (r >> 5) & 7 == regs::LAYER_CYCLES >> 5 && (r >> 8) & 0xfff == 0 => rd.lc,
            0 => self.read_reg,
            x if x == regs::LAYER_REGS >> 20 => rd.lregs[(r & 15) as usize],
            x if x == regs::BIAS >> 20 => rd.bias as u32,
            x if x == regs::DATA >> 20 => rd.dm,
            // Word k of an entry (k = 3 reads word 0, as no word matches).
            x if x == regs::SCHEDULE >> 20 => rd.sched[(r & 3) as usize % 3],
            x if x == regs::KERNEL >> 20 => match r & 3 {
                0 => rd.kword as u32,
                1 => (rd.kword >> 32) as u32,
                _ => (rd.kword >> 64) as u32 & 0xff,
            },
            _ => self.read_reg,
        };
        HostOut {
            start: we && addr == regs::CTRL && wdata & 1 == 1,
            lreg_we: write && region == regs::LAYER_REGS >> 20,
            bias_we: write && region == regs::BIAS >> 20,
            dm_we: write && region == regs::DATA >> 20,
            k_we: write && region == regs::KERNEL >> 20 && part == 2,
            sched_we: write && region == regs::SCHEDULE >> 20,
            k_wdata: self.kstage as u128 | ((wdata & 0xff) as u128) << 64,
            rdata,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &HostIn) {
        use edgelearn_hdl::cnn::engine::regs;
        let (reset, _, re, addr, wdata) = self.stage;
        let write = self.stage.1 && !i.busy;
        // A read and a write of NLAYERS at one edge: the read gets the old value.
        let nlayers = self.nlayers;
        if write && addr == regs::NLAYERS {
            self.nlayers = wdata & 0x3f;
        }
        let stream = self.stream;
        if write && addr == regs::STREAM {
            self.stream = wdata & 0x3_ffff;
        }
        if write && addr >> 20 == regs::KERNEL >> 20 {
            match addr & 3 {
                0 => self.kstage = self.kstage & !0xffff_ffff | wdata as u64,
                1 => self.kstage = self.kstage & 0xffff_ffff | (wdata as u64) << 32,
                _ => {}
            }
        }
        if re {
            self.read_addr = addr;
            self.read_reg = match addr {
                a if a == regs::CTRL => i.busy as u32 | (i.done as u32) << 1,
                a if a == regs::NLAYERS => nlayers,
                a if a == regs::CYCLES => i.cycles,
                a if a == regs::LAYER => i.layer & 31,
                a if a == regs::PROCESSORS => self.processors,
                a if a == regs::KERNEL_WORDS => self.kernel_words,
                a if a == regs::STREAM => stream,
                _ => 0,
            };
        }
        if reset {
            self.nlayers = 1;
            self.stream = 0;
            self.read_addr = 0;
            self.read_reg = 0;
        }
        self.stage = (i.reset, i.we, i.re, i.addr & 0xff_ffff, i.wdata);
    }
}

/// One edge's inputs of [`FifoWriter`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FifoInIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A run starts.
    pub start: bool,
    /// The STREAM register: FIFOs 6:4, CHW 7, input columns 17:8.
    pub stream: u32,
    /// Rows that may be written.
    pub allow: u32,
    /// The beat.
    pub s_tdata: u32,
    /// Valid.
    pub s_tvalid: bool,
}

/// The input FIFOs' writer (`FifoIn`): per word group one beat per FIFO, FIFO 0 first, each
/// written (one edge later) to its line buffer at the group's word modulo 2048; the rows
/// complete counted, a beat taken only while its rows are below `allow`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FifoWriter {
    /// The next beat's FIFO.
    pub f: u32,
    /// The group's word.
    pub word: u32,
    /// Pixels of the current row done.
    pub pix: u32,
    /// Rows complete.
    pub rows: u32,
    /// The registered write: strobe, FIFO, word, data.
    pub write: (bool, u32, u32, u32),
}

impl FifoWriter {
    /// `s_tready` in this cycle.
    pub fn ready(&self, i: &FifoInIn) -> bool {
        let (fifos, chw, _) = Self::config(i);
        fifos != 0 && (self.rows + chw as u32) % 2048 < i.allow % 2048
    }

    /// FIFOs, CHW and input columns from STREAM.
    fn config(i: &FifoInIn) -> (u32, bool, u32) {
        (
            (i.stream >> 4) & 7,
            i.stream >> 7 & 1 == 1,
            (i.stream >> 8) & 0x3ff,
        )
    }

    /// One edge.
    pub fn step(&mut self, i: &FifoInIn) {
        let take = self.ready(i) && i.s_tvalid;
        let (fifos, chw, width) = Self::config(i);
        self.write = (take, self.f, self.word, i.s_tdata);
        if take {
            let last = ((fifos % 4) + 3) % 4;
            if self.f != last {
                self.f = (self.f + 1) % 4;
            } else {
                self.f = 0;
                self.word = (self.word + 1) % 2048;
                let npix = (self.pix + if chw { 4 } else { 1 }) % 2048;
                if npix >= width {
                    self.pix = (npix + 2048 - width) % 1024;
                    self.rows = (self.rows + 1) % 2048;
                } else {
                    self.pix = npix % 1024;
                }
            }
        }
        if i.start || i.reset {
            (self.f, self.word, self.pix, self.rows) = (0, 0, 0, 0);
            self.write.0 = false;
        }
    }
}
