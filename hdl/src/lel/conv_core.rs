//! ConvCore: the conv core of the LEL platform (thesis §4.2.2, T:1268-1312; spec
//! lel-platform.md §4.3, §2.4 "Conv core", §7-2..§7-4, §7-20, §7-28): a depthwise 3x3
//! convolution without padding (output channel c reads input channel `c / (CO / CI)`), the
//! `5 + CONV_ALPHA` quantizer with ReLU (§7-4), and a 3x3 max pool with stride 3, one output
//! channel at a time in the thesis, P at a time with `rtl.conv_parallel` (docs/decisions.md
//! D-CONV-PARALLEL), sequenced by the `CS_*` FSM. Built from the image and inter-FM triout
//! caches, the tree adder in the conv role and the tree comparator. The kernels are fixed
//! (not trained on chip, T:1289) and baked in when the core is built.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: CS_IDLE, pipelines and FIFO empty |
//! | `s_tdata` | in | 32 | image stream: 4 int8 pixels per beat, CHW, row by row, lane 0 = bits [7:0] first |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | input beat taken when `s_tvalid & s_tready` |
//! | `s_tuser` | in | 4 | the image's label, taken from the first beat |
//! | `m_tdata` | out | 32 | pooled outputs, 4 int8 per beat, channel-major (index `c Ph Pw + Y Pw + X`) |
//! | `m_tvalid` | out | 1 | output beat valid (never waits for `m_tready`) |
//! | `m_tready` | in | 1 | output beat taken when `m_tvalid & m_tready` |
//! | `m_tuser` | out | 4 | the image's label |
//! | `m_tlast` | out | 1 | the image's last beat |
//! | `model_cfg` | in | 32 | [2:0] CONV_ALPHA (§4.5); sampled in CS_LOAD |
//! | `instr` | in | 3 | I_IDLE 0, I_TRAIN 2, I_INF 3 (both run the image), I_STOP 4 |
//! | `conv_state` | out | 4 | CS_IDLE 0, LOAD 1, CONV 2, POOL 3, FIN 4 |
//!
//! Cycles with one beat per cycle and the output always ready (docs/decisions.md
//! D-CONVCORE), a CI x H x W image, Oh = H - 2, Ow = W - 2, Ph = Oh / 3, Pw = Ow / 3:
//! LOAD CI H W / 4 + 2; per group of P output channels (`rtl.conv_parallel`, 1 in the
//! thesis) CONV 5 + Oh (W + 1) once and POOL 5 + Ph Pw + 6 (Ph - 1) per channel; FIN 1. The
//! thesis image (3 x 32 x 32, 24 channels, P = 1): 770, 995, 159, 1; 28,467 in all.
//! Sub-blocks with benches of their own: the phases [`ConvLoad`] (the image into the image
//! cache), [`ConvScan`] (a channel's 3x3 windows, one a cycle) and [`PoolScan`] (its pooling
//! windows), the two triout caches, the tree adder (conv role), the tree comparator and
//! [`PoolPacker`] (four pooled values to a beat), and [`ConvChannels`] (the output-channel
//! walk and its kernels). The core itself is the `CS_*` FSM and the wiring.
//! Golden: `edgelearn_verif::lel::conv`. Tests: `tests/conv_core.rs`.

use super::conv_channels::ConvChannels;
use super::conv_load::ConvLoad;
use super::conv_scan::ConvScan;
use super::pool_packer::PoolPacker;
use super::pool_scan::PoolScan;
use super::stream_fifo::StreamFifo;
use super::tree_adder_conv::TreeAdderConv;
use super::tree_comparator::TreeComparator;
use super::triout_cache::TrioutCache;
use rust_hdl::prelude::*;

/// The thesis conv core: 24 output channels, one at a time.
pub type LelConvCore = ConvCore<LEL_CONV_CHANNELS, 1>;

/// The output channels a conv core computes at once that the RTL is built with.
pub const CONV_PARALLEL: [usize; 3] = [1, 2, 4];

/// The output channels of the platform's conv core ([`LelConvCore`]): the thesis's 24.
pub const LEL_CONV_CHANNELS: usize = 24;

/// Output FIFO depth (beats).
pub const CONV_FIFO_DEPTH: usize = 16;

crate::fsm_states! {
    /// `CS_*` states (§4.6). The declaration order is the encoding.
    pub enum ConvState {
        /// 0: waiting for an image.
        Idle = "CS_IDLE",
        /// 1: the image stream into the image cache.
        Load = "CS_LOAD",
        /// 2: one output channel into the inter-FM cache.
        Conv = "CS_CONV",
        /// 3: its max pool onto the output stream.
        Pool = "CS_POOL",
        /// 4: finished; waits for `instr` to leave TRAIN/INF.
        Fin = "CS_FIN",
    }
    arcs {
        // The spec's sequence (POOL back to CONV for the next channel), and I_STOP's return
        // to IDLE from any state.
        Idle => [Load],
        Load => [Conv, Idle],
        Conv => [Pool, Idle],
        Pool => [Conv, Fin, Idle],
        Fin => [Idle],
    }
}

/// Shape of a conv core (runtime parameters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConvCoreShape {
    /// Input channels CI.
    pub in_channels: usize,
    /// Image rows H (after padding).
    pub height: usize,
    /// Image columns W (after padding).
    pub width: usize,
    /// Output channels CO.
    pub out_channels: usize,
    /// Kernel size (3).
    pub kernel: usize,
    /// Pool size and stride (3).
    pub pool: usize,
    /// Output channels computed at once (`rtl.conv_parallel`): one convolution pass of the
    /// image fills P inter-FM caches, pooled one after the other.
    pub parallel: usize,
}

impl ConvCoreShape {
    /// Why the RTL cannot build this shape, as (configuration key, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let s = self;
        if s.kernel != 3 {
            return Err((
                "conv.kernel",
                format!("{}: the RTL has the thesis's 3x3 window", s.kernel),
            ));
        }
        if s.pool != 3 {
            return Err((
                "conv.pool",
                format!(
                    "{}: the RTL pools the triout cache's three rows, so 3",
                    s.pool
                ),
            ));
        }
        if !(1..=4).contains(&s.in_channels) {
            return Err((
                "input.channels",
                format!("{}: the image cache holds 1..=4 channels", s.in_channels),
            ));
        }
        if !(9..=32).contains(&s.height) {
            return Err((
                "input.height",
                format!("{} rows (padded): the RTL takes 9..=32", s.height),
            ));
        }
        if !(9..=32).contains(&s.width) || !s.width.is_multiple_of(4) {
            return Err(("input.width", format!("{} columns (padded): the RTL takes multiples of 4 in 12..=32 (4 pixels per beat)", s.width)));
        }
        if s.out_channels == 0 || !s.out_channels.is_multiple_of(s.in_channels) {
            return Err((
                "conv.out_channels",
                format!(
                    "{}: must be a multiple of the input channels",
                    s.out_channels
                ),
            ));
        }
        if !CONV_PARALLEL.contains(&s.parallel)
            || !(s.out_channels / s.in_channels).is_multiple_of(s.parallel)
        {
            return Err((
                "rtl.conv_parallel",
                format!(
                    "{}: the conv core is built with {CONV_PARALLEL:?} output channels at a time, \
                     and the channels at a time must read one input channel ({} output channels \
                     per input channel)",
                    s.parallel,
                    s.out_channels / s.in_channels
                ),
            ));
        }
        let (ph, pw) = ((s.height - 2) / 3, (s.width - 2) / 3);
        if !(s.out_channels * ph * pw).is_multiple_of(4) {
            return Err((
                "conv.out_channels",
                format!(
                    "{} x {ph} x {pw} pooled outputs do not fill beats of 4",
                    s.out_channels
                ),
            ));
        }
        Ok(())
    }
}

/// Conv core with `G x P` output channels, `P` at a time: `G` groups of `P` channels that
/// read the same input channel, each group convolved in one pass (P tree adders into P
/// inter-FM caches) and pooled one cache after the other, so the output order is the same
/// as one channel at a time.
#[derive(Clone, Debug, LogicBlock)]
pub struct ConvCore<const G: usize, const P: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Image stream data.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Image stream valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Image stream ready.
    pub s_tready: Signal<Out, Bit>,
    /// Image stream label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Pooled output data.
    pub m_tdata: Signal<Out, Bits<32>>,
    /// Pooled output valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Pooled output ready.
    pub m_tready: Signal<In, Bit>,
    /// Pooled output label.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Last beat of an image.
    pub m_tlast: Signal<Out, Bit>,
    /// Configuration ([2:0] CONV_ALPHA).
    pub model_cfg: Signal<In, Bits<32>>,
    /// Instruction.
    pub instr: Signal<In, Bits<3>>,
    /// FSM state.
    pub conv_state: Signal<Out, Bits<4>>,
    // Blocks.
    img: TrioutCache<4, 8, 5, 2, 10, 32, 7, 256, 6>,
    fm: [TrioutCache<1, 32, 5, 1, 11, 8, 6, 256, 6>; P],
    load: ConvLoad,
    scan: ConvScan,
    pool: PoolScan,
    tadd: [TreeAdderConv<10, 80, 60>; P],
    cmp: TreeComparator<9, 8, 72>,
    fifo: StreamFifo<32, CONV_FIFO_DEPTH>,
    packer: PoolPacker,
    // FSM and channels.
    state: DFF<ConvState>,
    cfg: DFF<Bits<32>>,
    live: DFF<Bit>,
    /// The inter-FM cache being pooled (of the group's P).
    bank: DFF<Bits<3>>,
    /// Walker `j` holds the kernels of channels `g P + j`.
    chans: [ConvChannels<G>; P],
    // Combinational helpers.
    next_state: Signal<Local, ConvState>,
    bank_last: Signal<Local, Bit>,
    run: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    code: Signal<Local, Bits<4>>,
    // Constants.
    c_in_last: Constant<Bits<2>>,
    c_rows_last: Constant<Bits<5>>,
    c_words_last: Constant<Bits<3>>,
    c_orows_last: Constant<Bits<5>>,
    c_ocols_last: Constant<Bits<5>>,
    c_shift_last: Constant<Bits<6>>,
    c_prows_last: Constant<Bits<4>>,
    c_pcols_last: Constant<Bits<4>>,
    c_total: Constant<Bits<16>>,
    c_room: Constant<Bits<6>>,
    i_train: Constant<Bits<3>>,
    i_inf: Constant<Bits<3>>,
    i_stop: Constant<Bits<3>>,
    s_code: [Constant<Bits<4>>; 5],
    bank_id: [Constant<Bits<3>>; P],
    c_bank_last: Constant<Bits<3>>,
    one3: Constant<Bits<3>>,
    _shape: ConvCoreShape,
}

impl<const G: usize, const P: usize> ConvCore<G, P> {
    /// A core of this shape with `kernels` (`[c][dy][dx]`, int6); panics (naming the limit)
    /// on a shape the RTL cannot build.
    pub fn new(shape: ConvCoreShape, kernels: &[i32]) -> Self {
        if let Err((key, m)) = shape.check() {
            panic!("ConvCore: {key}: {m}");
        }
        let co = G * P;
        assert!(
            shape.out_channels == co && shape.parallel == P && (1..=1024).contains(&co),
            "ConvCore<{G}, {P}>: the shape has {} output channels, {} at a time",
            shape.out_channels,
            shape.parallel
        );
        assert_eq!(kernels.len(), co * 9, "ConvCore: CO x 9 kernel weights");
        assert!(
            kernels.iter().all(|k| (-32..32).contains(k)),
            "ConvCore: kernel weights are int6"
        );
        let (h, w, ci) = (shape.height, shape.width, shape.in_channels);
        let (oh, ow) = (h - 2, w - 2);
        let (ph, pw) = (oh / 3, ow / 3);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_tuser: Default::default(),
            m_tdata: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_tuser: Default::default(),
            m_tlast: Default::default(),
            model_cfg: Default::default(),
            instr: Default::default(),
            conv_state: Default::default(),
            img: TrioutCache::new(ci, h),
            fm: array_init::array_init(|_| TrioutCache::new(1, oh)),
            load: Default::default(),
            scan: Default::default(),
            pool: Default::default(),
            tadd: array_init::array_init(|_| Default::default()),
            cmp: Default::default(),
            fifo: Default::default(),
            packer: Default::default(),
            state: Default::default(),
            cfg: Default::default(),
            live: Default::default(),
            bank: Default::default(),
            chans: array_init::array_init(|j| {
                let mine: Vec<i32> = (0..G)
                    .flat_map(|g| {
                        kernels[(g * P + j) * 9..(g * P + j + 1) * 9]
                            .iter()
                            .copied()
                    })
                    .collect();
                ConvChannels::new(ci, &mine)
            }),
            next_state: Default::default(),
            bank_last: Default::default(),
            run: Default::default(),
            start: Default::default(),
            code: Default::default(),
            c_in_last: Constant::new(Bits::<2>::from((ci - 1) as u64)),
            c_rows_last: Constant::new(Bits::<5>::from((h - 1) as u64)),
            c_words_last: Constant::new(Bits::<3>::from((w / 4 - 1) as u64)),
            c_orows_last: Constant::new(Bits::<5>::from((oh - 1) as u64)),
            c_ocols_last: Constant::new(Bits::<5>::from((ow - 1) as u64)),
            c_shift_last: Constant::new(Bits::<6>::from((w - 1) as u64)),
            c_prows_last: Constant::new(Bits::<4>::from((ph - 1) as u64)),
            c_pcols_last: Constant::new(Bits::<4>::from((pw - 1) as u64)),
            c_total: Constant::new(Bits::<16>::from((co * ph * pw) as u64)),
            c_room: Constant::new(Bits::<6>::from((CONV_FIFO_DEPTH / 2) as u64)),
            i_train: Constant::new(Bits::<3>::from(super::instr::TRAIN)),
            i_inf: Constant::new(Bits::<3>::from(super::instr::INF)),
            i_stop: Constant::new(Bits::<3>::from(super::instr::STOP)),
            s_code: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
            bank_id: array_init::array_init(|j| Constant::new(Bits::<3>::from(j as u64))),
            c_bank_last: Constant::new(Bits::<3>::from((P - 1) as u64)),
            one3: Constant::new(Bits::<3>::from(1u64)),
            _shape: shape,
        }
    }

    /// The shape this core was built for.
    pub fn shape(&self) -> ConvCoreShape {
        self._shape
    }
}

impl<const G: usize, const P: usize> Logic for ConvCore<G, P> {
    crate::wired_update! {
        // Every plain connection, once (D-HDLGEN); `update` has the FSM and what is more
        // than a wire.
        wires {
            img.reset <= reset;
            load.reset <= reset;
            scan.reset <= reset;
            pool.reset <= reset;
            cmp.reset <= reset;
            fifo.reset <= reset;
            packer.reset <= reset;
            // ---- LOAD: the image stream into the image cache.
            load.in_last <= c_in_last;
            load.rows_last <= c_rows_last;
            load.words_last <= c_words_last;
            load.s_tdata <= s_tdata;
            load.s_tvalid <= s_tvalid;
            load.s_tuser <= s_tuser;
            s_tready <= load.s_tready;
            img.addr_in <= load.wr_addr;
            img.data_in <= load.wr_data;
            img.wr_en <= load.wr_en;
            // ---- CONV: the image cache's windows through the tree adder, into the inter-FM
            // cache.
            scan.rows_last <= c_orows_last;
            scan.shift_last <= c_shift_last;
            scan.cols_last <= c_ocols_last;
            scan.rows_valid <= img.valid_out;
            scan.row0 <= img.data_out0;
            scan.row1 <= img.data_out1;
            scan.row2 <= img.data_out2;
            scan.result <= tadd[0].valid_out;
            img.cur_channel <= chans[0].in_ch;
            img.clr_opt <= scan.rows_clr;
            img.pop_en <= scan.rows_pop;
            // ---- POOL: the inter-FM cache's windows through the tree comparator.
            pool.rows_last <= c_prows_last;
            pool.cols_last <= c_pcols_last;
            cmp.data_in <= pool.window;
            cmp.valid_in <= pool.window_valid;
            // ---- Output: four pooled values per beat into the output FIFO.
            packer.value <= cmp.data_out;
            packer.total <= c_total;
            fifo.push <= packer.push;
            fifo.in_data <= packer.data;
            fifo.in_user <= load.label;
            fifo.in_last <= packer.last;
            fifo.out_ready <= m_tready;
            m_tdata <= fifo.out_data;
            m_tvalid <= fifo.out_valid;
            m_tuser <= fifo.out_user;
            m_tlast <= fifo.out_last;
        }
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, state, cfg, live, bank);
            clock!(self, clock, img, load, scan, pool, cmp, fifo, packer);
            self.run.next =
                (self.instr.val() == self.i_train.val()) | (self.instr.val() == self.i_inf.val());
            self.start.next = (self.state.q.val() == ConvState::Idle) & self.run.val();
            self.bank_last.next = self.bank.q.val() == self.c_bank_last.val();

            // ---- FSM: the phases are blocks of their own; each says when it is done.
            self.next_state.next = self.state.q.val();
            match self.state.q.val() {
                ConvState::Idle => {
                    if self.run.val() {
                        self.next_state.next = ConvState::Load;
                        self.live.d.next = true;
                    }
                }
                ConvState::Load => {
                    self.cfg.d.next = self.model_cfg.val();
                    if self.load.done.val() {
                        self.next_state.next = ConvState::Conv;
                    }
                }
                ConvState::Conv => {
                    if self.scan.done.val() {
                        self.next_state.next = ConvState::Pool;
                    }
                }
                ConvState::Pool => {
                    // The group's caches one after the other; the last one ends the group.
                    if self.pool.done.val() & self.bank_last.val() {
                        if self.chans[0].last.val() {
                            self.next_state.next = ConvState::Fin;
                        } else {
                            self.next_state.next = ConvState::Conv;
                        }
                    }
                }
                ConvState::Fin => {
                    if !self.run.val() {
                        self.next_state.next = ConvState::Idle;
                    }
                }
                _ => {
                    self.next_state.next = ConvState::Idle;
                }
            }
            if self.instr.val() == self.i_stop.val() {
                self.next_state.next = ConvState::Idle;
                self.live.d.next = false;
            }
            self.state.d.next = self.next_state.val();

            // ---- LOAD: the image stream into the image cache.
            self.load.start.next = self.start.val();
            self.load.active.next = self.state.q.val() == ConvState::Load;

            // ---- CONV: the windows of input channel `in_ch` through the P tree adders with
            // the kernels of output channels `g P + j`, results into the P inter-FM caches.
            self.scan.active.next = self.state.q.val() == ConvState::Conv;
            for j in 0..P {
                self.chans[j].clock.next = self.clock.val();
                self.chans[j].first.next =
                    (self.state.q.val() == ConvState::Load) & self.load.done.val();
                self.chans[j].advance.next = (self.state.q.val() == ConvState::Pool)
                    & self.pool.done.val()
                    & self.bank_last.val();
                self.tadd[j].clock.next = self.clock.val();
                self.tadd[j].reset.next = self.reset.val();
                self.tadd[j].weight.next = self.chans[j].kernel.val();
                self.tadd[j].valid_in.next = self.scan.window_valid.val();
                self.tadd[j].data_in.next = bit_cast::<80, 72>(self.scan.window.val());
                self.tadd[j].alpha_conv.next = self.cfg.q.val().get_bits::<3>(0);
                self.tadd[j].instr.next = true;
                self.fm[j].clock.next = self.clock.val();
                self.fm[j].reset.next = self.reset.val();
                self.fm[j].addr_in.next = self.scan.fm_addr.val();
                self.fm[j].data_in.next = self.tadd[j].data_out.val();
                self.fm[j].wr_en.next = self.tadd[j].valid_out.val() & self.live.q.val();
                self.fm[j].cur_channel.next = 0.into();
            }

            // ---- POOL: the inter-FM caches' windows through the tree comparator, cache
            // `bank` of the group's P.
            self.pool.active.next = self.state.q.val() == ConvState::Pool;
            self.pool.room.next = self.fifo.count.val() < self.c_room.val();
            self.pool.rows_valid.next = self.fm[0].valid_out.val();
            self.pool.row0.next = self.fm[0].data_out0.val();
            self.pool.row1.next = self.fm[0].data_out1.val();
            self.pool.row2.next = self.fm[0].data_out2.val();
            for j in 0..P {
                self.fm[j].clr_opt.next = false;
                self.fm[j].pop_en.next = false;
                if self.bank.q.val() == self.bank_id[j].val() {
                    self.pool.rows_valid.next = self.fm[j].valid_out.val();
                    self.pool.row0.next = self.fm[j].data_out0.val();
                    self.pool.row1.next = self.fm[j].data_out1.val();
                    self.pool.row2.next = self.fm[j].data_out2.val();
                    self.fm[j].clr_opt.next = self.pool.rows_clr.val();
                    self.fm[j].pop_en.next = self.pool.rows_pop.val();
                }
            }
            self.bank.d.next = 0.into();
            if self.state.q.val() == ConvState::Pool {
                self.bank.d.next = self.bank.q.val();
                if self.pool.done.val() {
                    self.bank.d.next = self.bank.q.val() + self.one3.val();
                    if self.bank_last.val() {
                        self.bank.d.next = 0.into();
                    }
                }
            }
            self.cmp.instr.next = true;

            // ---- Output: four pooled values per beat (a new image clears the count).
            self.packer.clear.next = self.start.val();
            self.packer.valid.next = self.cmp.valid_out.val() & self.live.q.val();

            if self.reset.val() {
                self.state.d.next = ConvState::Idle;
                self.live.d.next = false;
                self.cfg.d.next = 0.into();
                self.bank.d.next = 0.into();
            }
            self.code.next = self.s_code[0].val();
            match self.state.q.val() {
                ConvState::Idle => self.code.next = self.s_code[0].val(),
                ConvState::Load => self.code.next = self.s_code[1].val(),
                ConvState::Conv => self.code.next = self.s_code[2].val(),
                ConvState::Pool => self.code.next = self.s_code[3].val(),
                ConvState::Fin => self.code.next = self.s_code[4].val(),
                _ => {}
            }
            self.conv_state.next = self.code.val();
        }
    }
}

impl<const G: usize, const P: usize> crate::design::HasMemories for ConvCore<G, P> {
    /// The core's memories (its `DutIo` list) under `PATH.`, so a platform reaches them.
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        crate::design::DutIo::visit_memories(self, &mut |m, a| {
            f(crate::design::join_path(path, &m), a)
        });
    }
}

crate::dut_io! {
    impl[const G: usize, const P: usize] ConvCore<G, P> {
        clock: yes,
        inputs: [reset, s_tdata, s_tvalid, s_tuser, m_tready, model_cfg, instr],
        outputs: [s_tready, m_tdata, m_tvalid, m_tuser, m_tlast, conv_state],
        notes: [s_tdata: (true, 4), m_tdata: (true, 4)],
        memories: [img, fm],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small core (1 x 12 x 12 to 4 channels) through Yosys and Verilator lint; the shipped
    /// instances are linted by `tests/emit.rs`.
    #[test]
    fn conv_core_is_synthesizable() {
        let kernels: Vec<i32> = (0..4 * 9).map(|i| (i % 63) - 31).collect();
        crate::synth_check::assert_synthesizable(
            "conv_core",
            ConvCore::<2, 2>::new(
                ConvCoreShape {
                    in_channels: 1,
                    height: 12,
                    width: 12,
                    out_channels: 4,
                    kernel: 3,
                    pool: 3,
                    parallel: 2,
                },
                &kernels,
            ),
        );
    }
}
