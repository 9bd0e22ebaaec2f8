//! ConvLoad: the conv core's LOAD phase (thesis §4.2.2, T:1268-1312; lel-platform.md §4.3):
//! the image stream into the image cache, four int8 pixels a beat, CHW, the image's label
//! from its first beat. Each beat taken is written one cycle later at address
//! `{channel, row, word}` (the cache's own layout, `verif::golden::triout_cache`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: not loading, no write pending, the label 0 |
//! | `start` | in | 1 | a new image: the walk restarts at channel 0, row 0, word 0 and the label is taken again |
//! | `active` | in | 1 | the core is in CS_LOAD: beats are taken while the walk lasts |
//! | `in_last` | in | 2 | input channels - 1 |
//! | `rows_last` | in | 5 | image rows - 1 |
//! | `words_last` | in | 3 | beats per row - 1 (width / 4 - 1) |
//! | `s_tdata` | in | 32 | image beat |
//! | `s_tvalid` | in | 1 | beat valid |
//! | `s_tuser` | in | 4 | the image's label (first beat) |
//! | `s_tready` | out | 1 | `active` and the walk not over (combinational) |
//! | `wr_en` | out | 1 | a beat is written this cycle (registered) |
//! | `wr_addr` | out | 10 | its address `{channel[1:0], row[4:0], word[2:0]}` |
//! | `wr_data` | out | 32 | its data |
//! | `label` | out | 4 | the label of the image loaded |
//! | `done` | out | 1 | `active`, the walk over and its last write made: CS_LOAD ends at this edge |
//!
//! Cycles: `start`, then one beat per cycle when `s_tvalid` is held: CI H W / 4 beats and two
//! more cycles (the last write, then `done`).
//! Golden: `edgelearn_verif::golden::conv_load`. Tests: `tests/conv_load.rs`.

use rust_hdl::prelude::*;

/// The LOAD phase's walk over the image.
#[derive(Clone, Debug, LogicBlock)]
pub struct ConvLoad {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A new image.
    pub start: Signal<In, Bit>,
    /// The core is in CS_LOAD.
    pub active: Signal<In, Bit>,
    /// Input channels - 1.
    pub in_last: Signal<In, Bits<2>>,
    /// Image rows - 1.
    pub rows_last: Signal<In, Bits<5>>,
    /// Beats per row - 1.
    pub words_last: Signal<In, Bits<3>>,
    /// Image beat.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Beat valid.
    pub s_tvalid: Signal<In, Bit>,
    /// The image's label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Beat taken.
    pub s_tready: Signal<Out, Bit>,
    /// Cache write enable.
    pub wr_en: Signal<Out, Bit>,
    /// Cache write address.
    pub wr_addr: Signal<Out, Bits<10>>,
    /// Cache write data.
    pub wr_data: Signal<Out, Bits<32>>,
    /// The image's label.
    pub label: Signal<Out, Bits<4>>,
    /// LOAD is over.
    pub done: Signal<Out, Bit>,
    loading: DFF<Bit>,
    got_label: DFF<Bit>,
    lch: DFF<Bits<2>>,
    lrow: DFF<Bits<5>>,
    lword: DFF<Bits<3>>,
    we: DFF<Bit>,
    addr: DFF<Bits<10>>,
    data: DFF<Bits<32>>,
    user: DFF<Bits<4>>,
    one2: Constant<Bits<2>>,
    one3: Constant<Bits<3>>,
    one5: Constant<Bits<5>>,
    c_row_shift: Constant<Bits<4>>,
    c_word_bits: Constant<Bits<4>>,
}

impl Default for ConvLoad {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            active: Default::default(),
            in_last: Default::default(),
            rows_last: Default::default(),
            words_last: Default::default(),
            s_tdata: Default::default(),
            s_tvalid: Default::default(),
            s_tuser: Default::default(),
            s_tready: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            label: Default::default(),
            done: Default::default(),
            loading: Default::default(),
            got_label: Default::default(),
            lch: Default::default(),
            lrow: Default::default(),
            lword: Default::default(),
            we: Default::default(),
            addr: Default::default(),
            data: Default::default(),
            user: Default::default(),
            one2: Constant::new(Bits::<2>::from(1u64)),
            one3: Constant::new(Bits::<3>::from(1u64)),
            one5: Constant::new(Bits::<5>::from(1u64)),
            c_row_shift: Constant::new(Bits::<4>::from(8u64)),
            c_word_bits: Constant::new(Bits::<4>::from(3u64)),
        }
    }
}

impl Logic for ConvLoad {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, loading, got_label, lch, lrow, lword, we, addr, data, user);
        self.we.d.next = false;
        self.s_tready.next = self.active.val() & self.loading.q.val();
        if self.active.val() & self.loading.q.val() & self.s_tvalid.val() {
            self.we.d.next = true;
            if !self.got_label.q.val() {
                self.user.d.next = self.s_tuser.val();
                self.got_label.d.next = true;
            }
            self.lword.d.next = self.lword.q.val() + self.one3.val();
            if self.lword.q.val() == self.words_last.val() {
                self.lword.d.next = 0.into();
                self.lrow.d.next = self.lrow.q.val() + self.one5.val();
                if self.lrow.q.val() == self.rows_last.val() {
                    self.lrow.d.next = 0.into();
                    self.lch.d.next = self.lch.q.val() + self.one2.val();
                    if self.lch.q.val() == self.in_last.val() {
                        self.loading.d.next = false;
                    }
                }
            }
        }
        if self.start.val() {
            self.loading.d.next = true;
            self.got_label.d.next = false;
            self.lch.d.next = 0.into();
            self.lrow.d.next = 0.into();
            self.lword.d.next = 0.into();
        }
        // The write, one register after the stream.
        self.addr.d.next = (bit_cast::<10, 2>(self.lch.q.val()) << self.c_row_shift.val())
            | (bit_cast::<10, 5>(self.lrow.q.val()) << self.c_word_bits.val())
            | bit_cast::<10, 3>(self.lword.q.val());
        self.data.d.next = self.s_tdata.val();
        if self.reset.val() {
            self.loading.d.next = false;
            self.we.d.next = false;
            self.user.d.next = 0.into();
        }
        self.wr_en.next = self.we.q.val();
        self.wr_addr.next = self.addr.q.val();
        self.wr_data.next = self.data.q.val();
        self.label.next = self.user.q.val();
        self.done.next = self.active.val() & !self.loading.q.val() & !self.we.q.val();
    }
}

crate::dut_io! {
    impl[] ConvLoad {
        clock: yes,
        inputs: [reset, start, active, in_last, rows_last, words_last, s_tdata, s_tvalid, s_tuser],
        outputs: [s_tready, wr_en, wr_addr, wr_data, label, done],
        notes: [s_tdata: (true, 4), wr_data: (true, 4)],
    }
}
