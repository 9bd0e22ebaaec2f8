//! MacCtl: the MAC side of the layer loop (docs/cnn-engine-rtl.md "What happens per cycle",
//! MAC): once a window is full it takes a cycle to start, then issues one output channel
//! per cycle: the kernel-memory word and the kernel's offset in it, the channel's output
//! processor and output pass; after the last channel it frees the window and moves to the
//! next iteration (chunk, input pass, output pixel).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: not active |
//! | `load` | in | 1 | start a layer: iteration 0, window 0, kernel word `load_kstart` |
//! | `load_kstart` | in | 10 | the starting kernel column of the layer being loaded |
//! | `run` | in | 1 | the layer runs |
//! | `full` | in | 2 | windows holding a complete iteration |
//! | `out_ch`, `kstart`, `kpw`, `kslot` | in | 11, 10, 7, 7 | output channels; kernel start column, kernels per word, bits per kernel |
//! | `out_thresh`, `out_map` | in | 7, 64 | output processors per output pass, output processor map |
//! | `in_passes`, `chunks`, `out_w` | in | 5, 5, 10 | the iteration loop's bounds |
//! | `row_first`, `row_last`, `pix_first` | in | 10, 10, 20 | the output rows to run and the first one's first pixel (`row_first` and `pix_first` taken at `load`) |
//! | `issue` | out | 1 | a channel is issued (M0) |
//! | `first`, `last` | out | 1 | the issue belongs to the pixel's first / last iteration (pass and chunk) |
//! | `read_buf` | out | 1 | the window the MAC reads |
//! | `oc` | out | 11 | the channel |
//! | `kaddr` | out | 10 | its kernel word |
//! | `kshift` | out | 7 | its kernel's first bit in the word (`index in word x kslot`) |
//! | `oproc`, `oe` | out | 7, 5 | its output processor and output pass |
//! | `opix` | out | 20 | the output pixel's index |
//! | `mac_end` | out | 1 | the issue is the iteration's last (its window is freed) |
//! | `layer_end` | out | 1 | the issue is the layer's last |
//!
//! Output processors: channel 0 goes to the lowest processor of `out_map`, each next channel
//! to the next processor of the map, and after `out_thresh` channels the next output pass
//! starts again at the lowest ([`LowestSet`]). Kernel words: `kpw` kernels per word, the
//! next word after the last; back to `kstart` at the next pixel.
//! Golden: `edgelearn_verif::golden::cnn_engine::MacSeq`, the engine's cycle model
//! (`edgelearn_verif::cnn::engine::layer_cycles`) and its kernel layout (`KernelLayout`).
//! Tests: `tests/cnn_engine_blocks.rs` (registered as `cnn_mac_ctl`), `tests/cnn_rtl.rs`.

use super::lowest_set::LowestSet;
use crate::arith::mul_u::MulUnsigned;
use rust_hdl::prelude::*;

/// The MAC side's sequencer.
#[derive(Clone, Debug, LogicBlock)]
pub struct MacCtl {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Start a layer.
    pub load: Signal<In, Bit>,
    /// The starting kernel column of the layer being loaded.
    pub load_kstart: Signal<In, Bits<10>>,
    /// The layer runs.
    pub run: Signal<In, Bit>,
    /// Windows holding a complete iteration.
    pub full: Signal<In, Bits<2>>,
    /// Output channels.
    pub out_ch: Signal<In, Bits<11>>,
    /// Starting kernel column.
    pub kstart: Signal<In, Bits<10>>,
    /// Kernels per word.
    pub kpw: Signal<In, Bits<7>>,
    /// Bits per kernel.
    pub kslot: Signal<In, Bits<7>>,
    /// Output processors per output pass.
    pub out_thresh: Signal<In, Bits<7>>,
    /// Output processor map.
    pub out_map: Signal<In, Bits<64>>,
    /// Input passes.
    pub in_passes: Signal<In, Bits<5>>,
    /// Chunks per pass.
    pub chunks: Signal<In, Bits<5>>,
    /// Output columns.
    pub out_w: Signal<In, Bits<10>>,
    /// First output row (taken at `load`).
    pub row_first: Signal<In, Bits<10>>,
    /// Last output row.
    pub row_last: Signal<In, Bits<10>>,
    /// The first output row's first pixel (taken at `load`).
    pub pix_first: Signal<In, Bits<20>>,
    /// A channel is issued.
    pub issue: Signal<Out, Bit>,
    /// First iteration of the pixel.
    pub first: Signal<Out, Bit>,
    /// Last iteration of the pixel.
    pub last: Signal<Out, Bit>,
    /// The MAC's window.
    pub read_buf: Signal<Out, Bit>,
    /// The channel.
    pub oc: Signal<Out, Bits<11>>,
    /// Its kernel word.
    pub kaddr: Signal<Out, Bits<10>>,
    /// Its kernel's offset in the word.
    pub kshift: Signal<Out, Bits<7>>,
    /// Its output processor.
    pub oproc: Signal<Out, Bits<7>>,
    /// Its output pass.
    pub oe: Signal<Out, Bits<5>>,
    /// The output pixel.
    pub opix: Signal<Out, Bits<20>>,
    /// The iteration's last channel.
    pub mac_end: Signal<Out, Bit>,
    /// The layer's last channel.
    pub layer_end: Signal<Out, Bit>,
    active: DFF<Bit>,
    mbuf: DFF<Bit>,
    my: DFF<Bits<10>>,
    mx: DFF<Bits<10>>,
    pix: DFF<Bits<20>>,
    me: DFF<Bits<5>>,
    mch: DFF<Bits<5>>,
    ch: DFF<Bits<11>>,
    kword: DFF<Bits<10>>,
    ksub: DFF<Bits<7>>,
    proc_q: DFF<Bits<7>>,
    rank: DFF<Bits<7>>,
    pass: DFF<Bits<5>>,
    first_proc: LowestSet,
    next_proc: LowestSet,
    kshift_mul: MulUnsigned<7, 7, 7>,
    above: Signal<Local, Bits<64>>,
    next_rank: Signal<Local, Bits<7>>,
    go: Signal<Local, Bit>,
    ch_end: Signal<Local, Bit>,
    chunk_end: Signal<Local, Bit>,
    pass_end: Signal<Local, Bit>,
    x_end: Signal<Local, Bit>,
    y_end: Signal<Local, Bit>,
    mbuf_full: Signal<Local, Bit>,
    two64: Constant<Bits<64>>,
    one64: Constant<Bits<64>>,
    one5: Constant<Bits<5>>,
    one7: Constant<Bits<7>>,
    one10: Constant<Bits<10>>,
    one11: Constant<Bits<11>>,
}

impl Default for MacCtl {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            load_kstart: Default::default(),
            run: Default::default(),
            full: Default::default(),
            out_ch: Default::default(),
            kstart: Default::default(),
            kpw: Default::default(),
            kslot: Default::default(),
            out_thresh: Default::default(),
            out_map: Default::default(),
            in_passes: Default::default(),
            chunks: Default::default(),
            out_w: Default::default(),
            row_first: Default::default(),
            row_last: Default::default(),
            pix_first: Default::default(),
            issue: Default::default(),
            first: Default::default(),
            last: Default::default(),
            read_buf: Default::default(),
            oc: Default::default(),
            kaddr: Default::default(),
            kshift: Default::default(),
            oproc: Default::default(),
            oe: Default::default(),
            opix: Default::default(),
            mac_end: Default::default(),
            layer_end: Default::default(),
            active: Default::default(),
            mbuf: Default::default(),
            my: Default::default(),
            mx: Default::default(),
            pix: Default::default(),
            me: Default::default(),
            mch: Default::default(),
            ch: Default::default(),
            kword: Default::default(),
            ksub: Default::default(),
            proc_q: Default::default(),
            rank: Default::default(),
            pass: Default::default(),
            first_proc: Default::default(),
            next_proc: Default::default(),
            kshift_mul: Default::default(),
            above: Default::default(),
            next_rank: Default::default(),
            go: Default::default(),
            ch_end: Default::default(),
            chunk_end: Default::default(),
            pass_end: Default::default(),
            x_end: Default::default(),
            y_end: Default::default(),
            mbuf_full: Default::default(),
            two64: Constant::new(2u64.into()),
            one64: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            one7: Constant::new(1u64.into()),
            one10: Constant::new(1u64.into()),
            one11: Constant::new(1u64.into()),
        }
    }
}

impl Logic for MacCtl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, active, mbuf, my, mx, pix, me, mch, ch, kword, ksub, proc_q, rank, pass
        );
        self.go.next = self.run.val() & self.active.q.val();
        // The next output processor: the lowest of the map, or the lowest above this one.
        self.above.next = self.out_map.val()
            & !((self.two64.val() << self.proc_q.q.val().get_bits::<6>(0)) - self.one64.val());
        self.first_proc.flags.next = self.out_map.val();
        self.next_proc.flags.next = self.above.val();
        self.next_rank.next = self.rank.q.val() + self.one7.val();
        self.kshift_mul.a.next = self.ksub.q.val();
        self.kshift_mul.b.next = self.kslot.val();
        self.ch_end.next = self.ch.q.val() == self.out_ch.val() - self.one11.val();
        self.chunk_end.next = self.mch.q.val() == self.chunks.val() - self.one5.val();
        self.pass_end.next = self.me.q.val() == self.in_passes.val() - self.one5.val();
        self.x_end.next = self.mx.q.val() == self.out_w.val() - self.one10.val();
        self.y_end.next = self.my.q.val() == self.row_last.val();
        self.mbuf_full.next = self.full.val().get_bit(0);
        if self.mbuf.q.val() {
            self.mbuf_full.next = self.full.val().get_bit(1);
        }
        if self.run.val() & !self.active.q.val() & self.mbuf_full.val() {
            // Start: a cycle before the first channel.
            self.active.d.next = true;
            self.ch.d.next = 0.into();
            self.rank.d.next = 0.into();
            self.pass.d.next = 0.into();
            self.proc_q.d.next = self.first_proc.index.val();
        }
        if self.go.val() {
            if self.ksub.q.val() == self.kpw.val() - self.one7.val() {
                self.ksub.d.next = 0.into();
                self.kword.d.next = self.kword.q.val() + 1;
            } else {
                self.ksub.d.next = self.ksub.q.val() + 1;
            }
            if self.next_rank.val() == self.out_thresh.val() {
                self.rank.d.next = 0.into();
                self.pass.d.next = self.pass.q.val() + 1;
                self.proc_q.d.next = self.first_proc.index.val();
            } else {
                self.rank.d.next = self.next_rank.val();
                self.proc_q.d.next = self.next_proc.index.val();
            }
            self.ch.d.next = self.ch.q.val() + 1;
            if self.ch_end.val() {
                self.active.d.next = false;
                self.mbuf.d.next = !self.mbuf.q.val();
                if !self.chunk_end.val() {
                    self.mch.d.next = self.mch.q.val() + 1;
                } else {
                    self.mch.d.next = 0.into();
                    if !self.pass_end.val() {
                        self.me.d.next = self.me.q.val() + 1;
                    } else {
                        self.me.d.next = 0.into();
                        self.kword.d.next = self.kstart.val();
                        self.ksub.d.next = 0.into();
                        self.pix.d.next = self.pix.q.val() + 1;
                        if !self.x_end.val() {
                            self.mx.d.next = self.mx.q.val() + 1;
                        } else {
                            self.mx.d.next = 0.into();
                            if !self.y_end.val() {
                                self.my.d.next = self.my.q.val() + 1;
                            }
                        }
                    }
                }
            }
        }
        if self.load.val() {
            self.my.d.next = self.row_first.val();
            self.mx.d.next = 0.into();
            self.pix.d.next = self.pix_first.val();
            self.me.d.next = 0.into();
            self.mch.d.next = 0.into();
            self.mbuf.d.next = false;
            self.active.d.next = false;
            self.kword.d.next = self.load_kstart.val();
            self.ksub.d.next = 0.into();
        }
        if self.reset.val() {
            self.active.d.next = false;
        }
        self.issue.next = self.go.val();
        self.first.next = (self.me.q.val() == 0) & (self.mch.q.val() == 0);
        self.last.next = self.pass_end.val() & self.chunk_end.val();
        self.read_buf.next = self.mbuf.q.val();
        self.oc.next = self.ch.q.val();
        self.kaddr.next = self.kword.q.val();
        self.kshift.next = self.kshift_mul.p.val();
        self.oproc.next = self.proc_q.q.val();
        self.oe.next = self.pass.q.val();
        self.opix.next = self.pix.q.val();
        self.mac_end.next = self.go.val() & self.ch_end.val();
        self.layer_end.next = self.go.val()
            & self.ch_end.val()
            & self.chunk_end.val()
            & self.pass_end.val()
            & self.x_end.val()
            & self.y_end.val();
    }
}

crate::dut_io! {
    impl[] MacCtl {
        clock: yes,
        inputs: [
            reset, load, load_kstart, run, full, out_ch, kstart, kpw, kslot, out_thresh, out_map,
            in_passes, chunks, out_w, row_first, row_last, pix_first
        ],
        outputs: [
            issue, first, last, read_buf, oc, kaddr, kshift, oproc, oe, opix, mac_end, layer_end
        ],
        notes: [],
    }
}
