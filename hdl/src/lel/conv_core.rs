//! ConvCore: the conv core of the LEL platform (thesis §4.2.2, T:1268-1312; spec
//! lel-platform.md §4.3, §2.4 "Conv core", §7-2..§7-4, §7-20, §7-28): a depthwise 3x3
//! convolution without padding (output channel c reads input channel `c / (CO / CI)`), the
//! `5 + CONV_ALPHA` quantizer with ReLU (§7-4), and a 3x3 max pool with stride 3, one output
//! channel at a time, sequenced by the `CS_*` FSM. Built from the image and inter-FM triout
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
//! LOAD CI H W / 4 + 2; per output channel CONV 5 + Oh (W + 1) and POOL 5 + Ph Pw + 6 (Ph - 1);
//! FIN 1. The thesis image (3 x 32 x 32, 24 channels): 770, 995, 159, 1; 28,467 in all.
//! Sub-blocks with benches of their own: the two triout caches, the tree adder (conv role),
//! the tree comparator and [`PoolPacker`] (four pooled values to a beat).
//! Golden: `edgelearn_verif::lel::conv`. Tests: `tests/conv_core.rs`.

use super::pool_packer::PoolPacker;
use super::stream_fifo::StreamFifo;
use super::tree_adder_conv::TreeAdderConv;
use super::tree_comparator::TreeComparator;
use super::triout_cache::TrioutCache;
use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

/// The thesis conv core: 24 output channels.
pub type LelConvCore = ConvCore<24>;

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
}

/// Sub-steps of CS_CONV and CS_POOL.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ConvPhase {
    /// Restart the triout cache (`clr_opt`).
    Clear,
    /// Wait for its rows.
    Wait,
    /// CONV: shift a row through the 3x3 window, one column per cycle.
    Shift,
    /// POOL: one 3x3 window per cycle straight from the cache's rows.
    Window,
    /// POOL: fetch the next three rows.
    Pop,
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

/// Conv core with CO output channels.
#[derive(Clone, Debug, LogicBlock)]
pub struct ConvCore<const CO: usize> {
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
    fm: TrioutCache<1, 32, 5, 1, 11, 8, 6, 256, 6>,
    tadd: TreeAdderConv<10, 80, 60>,
    cmp: TreeComparator<9, 8, 72>,
    fifo: StreamFifo<32, CONV_FIFO_DEPTH>,
    win_join: LaneJoin<8, 10, 80>,
    pool_join: LaneJoin<8, 9, 72>,
    packer: PoolPacker,
    // FSM.
    state: DFF<ConvState>,
    phase: DFF<ConvPhase>,
    cfg: DFF<Bits<32>>,
    label: DFF<Bits<4>>,
    got_label: DFF<Bit>,
    live: DFF<Bit>,
    // LOAD.
    loading: DFF<Bit>,
    lch: DFF<Bits<2>>,
    lrow: DFF<Bits<5>>,
    lword: DFF<Bits<3>>,
    wr_en: DFF<Bit>,
    wr_addr: DFF<Bits<10>>,
    wr_data: DFF<Bits<32>>,
    // Channels.
    ch: DFF<Bits<10>>,
    in_ch: DFF<Bits<2>>,
    grp: DFF<Bits<10>>,
    // CONV: rows, shifts, the 3x3 window.
    row: DFF<Bits<5>>,
    shift: DFF<Bits<6>>,
    line: [DFF<Bits<256>>; 3],
    win: [DFF<Bits<8>>; 9],
    win_valid: DFF<Bit>,
    fy: DFF<Bits<5>>,
    fx: DFF<Bits<5>>,
    // POOL.
    py: DFF<Bits<4>>,
    px: DFF<Bits<4>>,
    pops: DFF<Bits<2>>,
    shamt: DFF<Bits<9>>,
    rowsh: [Signal<Local, Bits<256>>; 3],
    // Output packing.
    // Combinational helpers.
    next_state: Signal<Local, ConvState>,
    /// The kernel of the channel in `ch`, registered: chosen from `ch.d` (the channel `ch`
    /// takes at this edge), so it equals `kernels[ch.q]` every cycle while the 24-way choice
    /// no longer sits in front of the tree adder's multipliers (the ECP5 critical path).
    kernel: DFF<Bits<60>>,
    run: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    pooled: Signal<Local, Bit>,
    img_clr: Signal<Local, Bit>,
    img_pop: Signal<Local, Bit>,
    fm_clr: Signal<Local, Bit>,
    fm_pop: Signal<Local, Bit>,
    cmp_valid: Signal<Local, Bit>,
    f_push: Signal<Local, Bit>,
    ready: Signal<Local, Bit>,
    code: Signal<Local, Bits<4>>,
    // Constants.
    kernels: [Constant<Bits<60>>; CO],
    ch_id: [Constant<Bits<10>>; CO],
    c_in_last: Constant<Bits<2>>,
    c_rows_last: Constant<Bits<5>>,
    c_words_last: Constant<Bits<3>>,
    c_group_last: Constant<Bits<10>>,
    c_ch_last: Constant<Bits<10>>,
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
    one2: Constant<Bits<2>>,
    one3: Constant<Bits<3>>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
    one10: Constant<Bits<10>>,
    two6: Constant<Bits<6>>,
    three2: Constant<Bits<2>>,
    step9: Constant<Bits<9>>,
    zero8: Constant<Bits<8>>,
    c_byte: Constant<Bits<4>>,
    c_word_bits: Constant<Bits<4>>,
    c_col_bits: Constant<Bits<4>>,
    _shape: ConvCoreShape,
}

impl<const CO: usize> ConvCore<CO> {
    /// A core of this shape with `kernels` (`[c][dy][dx]`, int6); panics (naming the limit)
    /// on a shape the RTL cannot build.
    pub fn new(shape: ConvCoreShape, kernels: &[i32]) -> Self {
        if let Err((key, m)) = shape.check() {
            panic!("ConvCore: {key}: {m}");
        }
        assert!(
            shape.out_channels == CO && (1..=1024).contains(&CO),
            "ConvCore<{CO}>: the shape has {} output channels",
            shape.out_channels
        );
        assert_eq!(kernels.len(), CO * 9, "ConvCore: CO x 9 kernel weights");
        assert!(
            kernels.iter().all(|k| (-32..32).contains(k)),
            "ConvCore: kernel weights are int6"
        );
        let (h, w, ci) = (shape.height, shape.width, shape.in_channels);
        let (oh, ow) = (h - 2, w - 2);
        let (ph, pw) = (oh / 3, ow / 3);
        let word = |c: usize| -> u64 {
            (0..9).fold(0u64, |acc, t| {
                acc | (((kernels[c * 9 + t] as i64 as u64) & 63) << (6 * t))
            })
        };
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
            fm: TrioutCache::new(1, oh),
            tadd: Default::default(),
            cmp: Default::default(),
            fifo: Default::default(),
            win_join: Default::default(),
            pool_join: Default::default(),
            packer: Default::default(),
            state: Default::default(),
            phase: Default::default(),
            cfg: Default::default(),
            label: Default::default(),
            got_label: Default::default(),
            live: Default::default(),
            loading: Default::default(),
            lch: Default::default(),
            lrow: Default::default(),
            lword: Default::default(),
            wr_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            ch: Default::default(),
            in_ch: Default::default(),
            grp: Default::default(),
            row: Default::default(),
            shift: Default::default(),
            line: array_init::array_init(|_| Default::default()),
            win: array_init::array_init(|_| Default::default()),
            win_valid: Default::default(),
            fy: Default::default(),
            fx: Default::default(),
            py: Default::default(),
            px: Default::default(),
            pops: Default::default(),
            shamt: Default::default(),
            rowsh: array_init::array_init(|_| Default::default()),
            next_state: Default::default(),
            kernel: Default::default(),
            run: Default::default(),
            room: Default::default(),
            pooled: Default::default(),
            img_clr: Default::default(),
            img_pop: Default::default(),
            fm_clr: Default::default(),
            fm_pop: Default::default(),
            cmp_valid: Default::default(),
            f_push: Default::default(),
            ready: Default::default(),
            code: Default::default(),
            kernels: array_init::array_init(|c| Constant::new(Bits::<60>::from(word(c)))),
            ch_id: array_init::array_init(|c| Constant::new(Bits::<10>::from(c as u64))),
            c_in_last: Constant::new(Bits::<2>::from((ci - 1) as u64)),
            c_rows_last: Constant::new(Bits::<5>::from((h - 1) as u64)),
            c_words_last: Constant::new(Bits::<3>::from((w / 4 - 1) as u64)),
            c_group_last: Constant::new(Bits::<10>::from((CO / ci - 1) as u64)),
            c_ch_last: Constant::new(Bits::<10>::from((CO - 1) as u64)),
            c_orows_last: Constant::new(Bits::<5>::from((oh - 1) as u64)),
            c_ocols_last: Constant::new(Bits::<5>::from((ow - 1) as u64)),
            c_shift_last: Constant::new(Bits::<6>::from((w - 1) as u64)),
            c_prows_last: Constant::new(Bits::<4>::from((ph - 1) as u64)),
            c_pcols_last: Constant::new(Bits::<4>::from((pw - 1) as u64)),
            c_total: Constant::new(Bits::<16>::from((CO * ph * pw) as u64)),
            c_room: Constant::new(Bits::<6>::from((CONV_FIFO_DEPTH / 2) as u64)),
            i_train: Constant::new(Bits::<3>::from(super::instr::TRAIN)),
            i_inf: Constant::new(Bits::<3>::from(super::instr::INF)),
            i_stop: Constant::new(Bits::<3>::from(super::instr::STOP)),
            s_code: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
            one2: Constant::new(Bits::<2>::from(1u64)),
            one3: Constant::new(Bits::<3>::from(1u64)),
            one4: Constant::new(Bits::<4>::from(1u64)),
            one5: Constant::new(Bits::<5>::from(1u64)),
            one6: Constant::new(Bits::<6>::from(1u64)),
            one10: Constant::new(Bits::<10>::from(1u64)),
            two6: Constant::new(Bits::<6>::from(2u64)),
            three2: Constant::new(Bits::<2>::from(3u64)),
            step9: Constant::new(Bits::<9>::from(24u64)),
            zero8: Constant::new(Bits::<8>::from(0u64)),
            c_byte: Constant::new(Bits::<4>::from(8u64)),
            c_word_bits: Constant::new(Bits::<4>::from(3u64)),
            c_col_bits: Constant::new(Bits::<4>::from(5u64)),
            _shape: shape,
        }
    }

    /// The shape this core was built for.
    pub fn shape(&self) -> ConvCoreShape {
        self._shape
    }
}

impl<const CO: usize> Logic for ConvCore<CO> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, phase, cfg, label, got_label, live, loading, lch, lrow, lword,
            wr_en, wr_addr, wr_data, ch, in_ch, grp, row, shift, win_valid, fy, fx, py, px, pops,
            shamt, kernel
        );
        for r in 0..3 {
            self.line[r].clock.next = self.clock.val();
            self.line[r].d.next = self.line[r].q.val();
        }
        for t in 0..9 {
            self.win[t].clock.next = self.clock.val();
            self.win[t].d.next = self.win[t].q.val();
        }
        self.img.clock.next = self.clock.val();
        self.img.reset.next = self.reset.val();
        self.fm.clock.next = self.clock.val();
        self.fm.reset.next = self.reset.val();
        self.tadd.clock.next = self.clock.val();
        self.tadd.reset.next = self.reset.val();
        self.cmp.clock.next = self.clock.val();
        self.cmp.reset.next = self.reset.val();
        self.fifo.clock.next = self.clock.val();
        self.fifo.reset.next = self.reset.val();
        self.room.next = self.fifo.count.val() < self.c_room.val();
        self.run.next =
            (self.instr.val() == self.i_train.val()) | (self.instr.val() == self.i_inf.val());

        // ---- Defaults.
        self.next_state.next = self.state.q.val();
        self.ready.next = false;
        self.wr_en.d.next = false;
        self.img_clr.next = false;
        self.img_pop.next = false;
        self.img.cur_channel.next = self.in_ch.q.val();
        self.fm_clr.next = false;
        self.fm_pop.next = false;
        self.fm.cur_channel.next = 0.into();
        self.win_valid.d.next = false;
        self.cmp_valid.next = false;

        // ---- FSM.
        match self.state.q.val() {
            ConvState::Idle => {
                if self.run.val() {
                    self.next_state.next = ConvState::Load;
                    self.loading.d.next = true;
                    self.got_label.d.next = false;
                    self.live.d.next = true;
                    self.lch.d.next = 0.into();
                    self.lrow.d.next = 0.into();
                    self.lword.d.next = 0.into();
                }
            }
            ConvState::Load => {
                self.cfg.d.next = self.model_cfg.val();
                self.ready.next = self.loading.q.val();
                if self.loading.q.val() & self.s_tvalid.val() {
                    self.wr_en.d.next = true;
                    if !self.got_label.q.val() {
                        self.label.d.next = self.s_tuser.val();
                        self.got_label.d.next = true;
                    }
                    self.lword.d.next = self.lword.q.val() + self.one3.val();
                    if self.lword.q.val() == self.c_words_last.val() {
                        self.lword.d.next = 0.into();
                        self.lrow.d.next = self.lrow.q.val() + self.one5.val();
                        if self.lrow.q.val() == self.c_rows_last.val() {
                            self.lrow.d.next = 0.into();
                            self.lch.d.next = self.lch.q.val() + self.one2.val();
                            if self.lch.q.val() == self.c_in_last.val() {
                                self.loading.d.next = false;
                            }
                        }
                    }
                }
                if !self.loading.q.val() & !self.wr_en.q.val() {
                    self.next_state.next = ConvState::Conv;
                    self.phase.d.next = ConvPhase::Clear;
                    self.ch.d.next = 0.into();
                    self.in_ch.d.next = 0.into();
                    self.grp.d.next = 0.into();
                }
            }
            ConvState::Conv => match self.phase.q.val() {
                ConvPhase::Clear => {
                    self.img_clr.next = true;
                    self.row.d.next = 0.into();
                    self.fy.d.next = 0.into();
                    self.fx.d.next = 0.into();
                    self.phase.d.next = ConvPhase::Wait;
                }
                ConvPhase::Wait => {
                    if self.img.valid_out.val() {
                        // Load the three rows; fetch the next one meanwhile.
                        self.line[0].d.next = self.img.data_out0.val();
                        self.line[1].d.next = self.img.data_out1.val();
                        self.line[2].d.next = self.img.data_out2.val();
                        self.img_pop.next = self.row.q.val() != self.c_orows_last.val();
                        self.shift.d.next = 0.into();
                        self.phase.d.next = ConvPhase::Shift;
                    }
                }
                ConvPhase::Shift => {
                    // Column `shift` enters the window; from the third on it is complete.
                    for r in 0..3 {
                        self.win[3 * r].d.next = self.win[3 * r + 1].q.val();
                        self.win[3 * r + 1].d.next = self.win[3 * r + 2].q.val();
                        self.win[3 * r + 2].d.next = self.line[r].q.val().get_bits::<8>(0);
                        self.line[r].d.next = self.line[r].q.val() >> self.c_byte.val();
                    }
                    self.win_valid.d.next = self.shift.q.val() >= self.two6.val();
                    self.shift.d.next = self.shift.q.val() + self.one6.val();
                    if self.shift.q.val() == self.c_shift_last.val() {
                        self.row.d.next = self.row.q.val() + self.one5.val();
                        self.phase.d.next = ConvPhase::Wait;
                        if self.row.q.val() == self.c_orows_last.val() {
                            self.next_state.next = ConvState::Pool;
                            self.phase.d.next = ConvPhase::Clear;
                        }
                    }
                }
                _ => {
                    self.phase.d.next = ConvPhase::Clear;
                }
            },
            ConvState::Pool => match self.phase.q.val() {
                ConvPhase::Clear => {
                    self.fm_clr.next = true;
                    self.py.d.next = 0.into();
                    self.px.d.next = 0.into();
                    self.shamt.d.next = 0.into();
                    self.pops.d.next = 0.into();
                    self.phase.d.next = ConvPhase::Pop;
                }
                ConvPhase::Pop => {
                    if self.fm.valid_out.val() {
                        if self.pops.q.val().any() {
                            self.fm_pop.next = true;
                            self.pops.d.next = self.pops.q.val() - self.one2.val();
                        } else if self.room.val() {
                            self.phase.d.next = ConvPhase::Window;
                            self.cmp_valid.next = true;
                            self.px.d.next = self.one4.val();
                            self.shamt.d.next = self.step9.val();
                        }
                    }
                }
                ConvPhase::Window => {
                    self.cmp_valid.next = true;
                    self.px.d.next = self.px.q.val() + self.one4.val();
                    self.shamt.d.next = self.shamt.q.val() + self.step9.val();
                    if self.px.q.val() == self.c_pcols_last.val() {
                        self.px.d.next = 0.into();
                        self.shamt.d.next = 0.into();
                        self.py.d.next = self.py.q.val() + self.one4.val();
                        self.pops.d.next = self.three2.val();
                        self.phase.d.next = ConvPhase::Pop;
                        if self.py.q.val() == self.c_prows_last.val() {
                            self.phase.d.next = ConvPhase::Clear;
                            self.ch.d.next = self.ch.q.val() + self.one10.val();
                            self.grp.d.next = self.grp.q.val() + self.one10.val();
                            if self.grp.q.val() == self.c_group_last.val() {
                                self.grp.d.next = 0.into();
                                self.in_ch.d.next = self.in_ch.q.val() + self.one2.val();
                            }
                            if self.ch.q.val() == self.c_ch_last.val() {
                                self.next_state.next = ConvState::Fin;
                            } else {
                                self.next_state.next = ConvState::Conv;
                            }
                        }
                    }
                }
                _ => {
                    self.phase.d.next = ConvPhase::Clear;
                }
            },
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

        // ---- LOAD writes: address {channel, row, word}, one register after the stream.
        self.wr_addr.d.next = (bit_cast::<10, 2>(self.lch.q.val()) << self.c_byte.val())
            | (bit_cast::<10, 5>(self.lrow.q.val()) << self.c_word_bits.val())
            | bit_cast::<10, 3>(self.lword.q.val());
        self.wr_data.d.next = self.s_tdata.val();
        self.img.addr_in.next = self.wr_addr.q.val();
        self.img.data_in.next = self.wr_data.q.val();
        self.img.wr_en.next = self.wr_en.q.val();

        // ---- CONV: the window through the tree adder, results into the inter-FM cache.
        self.kernel.d.next = self.kernels[0].val();
        for c in 0..CO {
            if self.ch.d.val() == self.ch_id[c].val() {
                self.kernel.d.next = self.kernels[c].val();
            }
        }
        for t in 0..9 {
            self.win_join.lanes[t].next = self.win[t].q.val();
        }
        self.win_join.lanes[9].next = self.zero8.val();
        self.tadd.data_in.next = self.win_join.word.val();
        self.tadd.weight.next = self.kernel.q.val();
        self.tadd.alpha_conv.next = self.cfg.q.val().get_bits::<3>(0);
        self.tadd.instr.next = true;
        self.tadd.valid_in.next = self.win_valid.q.val();
        self.fm.wr_en.next = self.tadd.valid_out.val() & self.live.q.val();
        self.fm.addr_in.next = (bit_cast::<11, 5>(self.fy.q.val()) << self.c_col_bits.val())
            | bit_cast::<11, 5>(self.fx.q.val());
        self.fm.data_in.next = self.tadd.data_out.val();
        if self.tadd.valid_out.val() {
            self.fx.d.next = self.fx.q.val() + self.one5.val();
            if self.fx.q.val() == self.c_ocols_last.val() {
                self.fx.d.next = 0.into();
                self.fy.d.next = self.fy.q.val() + self.one5.val();
            }
        }

        // ---- POOL: window (Y, X) = rows 0..2 of the cache, columns 3X..3X+2. Outside POOL
        // the comparator sees zeros (operand isolation: only POOL's windows are valid, and
        // the three wide shifts are not evaluated in the other states).
        self.rowsh[0].next = 0.into();
        self.rowsh[1].next = 0.into();
        self.rowsh[2].next = 0.into();
        if self.state.q.val() == ConvState::Pool {
            self.rowsh[0].next = self.fm.data_out0.val() >> self.shamt.q.val();
            self.rowsh[1].next = self.fm.data_out1.val() >> self.shamt.q.val();
            self.rowsh[2].next = self.fm.data_out2.val() >> self.shamt.q.val();
        }
        for r in 0..3 {
            for d in 0..3 {
                self.pool_join.lanes[3 * r + d].next = self.rowsh[r].val().get_bits::<8>(8 * d);
            }
        }
        self.cmp.data_in.next = self.pool_join.word.val();
        self.cmp.instr.next = true;

        // ---- Output: four pooled values per beat (a new image clears the count).
        self.pooled.next = self.cmp.valid_out.val() & self.live.q.val();
        self.packer.clock.next = self.clock.val();
        self.packer.reset.next = self.reset.val();
        self.packer.clear.next = (self.state.q.val() == ConvState::Idle) & self.run.val();
        self.packer.valid.next = self.pooled.val();
        self.packer.value.next = self.cmp.data_out.val();
        self.packer.total.next = self.c_total.val();
        self.f_push.next = self.packer.push.val();
        self.fifo.in_data.next = self.packer.data.val();
        self.fifo.in_user.next = self.label.q.val();
        self.fifo.in_last.next = self.packer.last.val();
        self.fifo.out_ready.next = self.m_tready.val();

        if self.reset.val() {
            self.state.d.next = ConvState::Idle;
            self.phase.d.next = ConvPhase::Clear;
            self.live.d.next = false;
            self.loading.d.next = false;
            self.wr_en.d.next = false;
            self.win_valid.d.next = false;
            self.cfg.d.next = 0.into();
            self.label.d.next = 0.into();
        }

        // ---- Outputs.
        self.m_tdata.next = self.fifo.out_data.val();
        self.m_tvalid.next = self.fifo.out_valid.val();
        self.m_tuser.next = self.fifo.out_user.val();
        self.m_tlast.next = self.fifo.out_last.val();
        self.code.next = self.s_code[0].val();
        match self.state.q.val() {
            ConvState::Idle => self.code.next = self.s_code[0].val(),
            ConvState::Load => self.code.next = self.s_code[1].val(),
            ConvState::Conv => self.code.next = self.s_code[2].val(),
            ConvState::Pool => self.code.next = self.s_code[3].val(),
            ConvState::Fin => self.code.next = self.s_code[4].val(),
            _ => {}
        }
        // Every signal that crosses into a block or out of this one is assigned once per
        // evaluation (docs/decisions.md D-HDLGEN).
        self.conv_state.next = self.code.val();
        self.s_tready.next = self.ready.val();
        self.img.clr_opt.next = self.img_clr.val();
        self.img.pop_en.next = self.img_pop.val();
        self.fm.clr_opt.next = self.fm_clr.val();
        self.fm.pop_en.next = self.fm_pop.val();
        self.cmp.valid_in.next = self.cmp_valid.val();
        self.fifo.push.next = self.f_push.val();
    }
}

impl<const CO: usize> crate::design::HasMemories for ConvCore<CO> {
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
    impl[const CO: usize] ConvCore<CO> {
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
            ConvCore::<4>::new(
                ConvCoreShape {
                    in_channels: 1,
                    height: 12,
                    width: 12,
                    out_channels: 4,
                    kernel: 3,
                    pool: 3,
                },
                &kernels,
            ),
        );
    }
}
