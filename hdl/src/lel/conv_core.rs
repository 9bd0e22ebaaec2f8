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

/// The thesis conv core: 24 output channels.
pub type LelConvCore = ConvCore<LEL_CONV_CHANNELS>;

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
    load: ConvLoad,
    scan: ConvScan,
    pool: PoolScan,
    tadd: TreeAdderConv<10, 80, 60>,
    cmp: TreeComparator<9, 8, 72>,
    fifo: StreamFifo<32, CONV_FIFO_DEPTH>,
    packer: PoolPacker,
    // FSM and channels.
    state: DFF<ConvState>,
    cfg: DFF<Bits<32>>,
    live: DFF<Bit>,
    chans: ConvChannels<CO>,
    // Combinational helpers.
    next_state: Signal<Local, ConvState>,
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
            load: Default::default(),
            scan: Default::default(),
            pool: Default::default(),
            tadd: Default::default(),
            cmp: Default::default(),
            fifo: Default::default(),
            packer: Default::default(),
            state: Default::default(),
            cfg: Default::default(),
            live: Default::default(),
            chans: ConvChannels::new(ci, kernels),
            next_state: Default::default(),
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
            c_total: Constant::new(Bits::<16>::from((CO * ph * pw) as u64)),
            c_room: Constant::new(Bits::<6>::from((CONV_FIFO_DEPTH / 2) as u64)),
            i_train: Constant::new(Bits::<3>::from(super::instr::TRAIN)),
            i_inf: Constant::new(Bits::<3>::from(super::instr::INF)),
            i_stop: Constant::new(Bits::<3>::from(super::instr::STOP)),
            s_code: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
            _shape: shape,
        }
    }

    /// The shape this core was built for.
    pub fn shape(&self) -> ConvCoreShape {
        self._shape
    }
}

impl<const CO: usize> Logic for ConvCore<CO> {
    crate::wired_update! {
        // Every plain connection, once (D-HDLGEN); `update` has the FSM and what is more
        // than a wire.
        wires {
            img.reset <= reset;
            fm.reset <= reset;
            load.reset <= reset;
            scan.reset <= reset;
            pool.reset <= reset;
            tadd.reset <= reset;
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
            scan.result <= tadd.valid_out;
            img.cur_channel <= chans.in_ch;
            img.clr_opt <= scan.rows_clr;
            img.pop_en <= scan.rows_pop;
            tadd.weight <= chans.kernel;
            tadd.valid_in <= scan.window_valid;
            fm.addr_in <= scan.fm_addr;
            fm.data_in <= tadd.data_out;
            // ---- POOL: the inter-FM cache's windows through the tree comparator.
            pool.rows_last <= c_prows_last;
            pool.cols_last <= c_pcols_last;
            pool.rows_valid <= fm.valid_out;
            pool.row0 <= fm.data_out0;
            pool.row1 <= fm.data_out1;
            pool.row2 <= fm.data_out2;
            fm.clr_opt <= pool.rows_clr;
            fm.pop_en <= pool.rows_pop;
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
            dff_setup!(self, clock, state, cfg, live);
            clock!(self, clock, img, fm, load, scan, pool, chans, tadd, cmp, fifo, packer);
            self.run.next =
                (self.instr.val() == self.i_train.val()) | (self.instr.val() == self.i_inf.val());
            self.start.next = (self.state.q.val() == ConvState::Idle) & self.run.val();

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
                    if self.pool.done.val() {
                        if self.chans.last.val() {
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

            // ---- CONV: the windows of input channel `in_ch` through the tree adder with the
            // kernel of output channel `ch`, results into the inter-FM cache.
            self.scan.active.next = self.state.q.val() == ConvState::Conv;
            self.chans.first.next = (self.state.q.val() == ConvState::Load) & self.load.done.val();
            self.chans.advance.next = (self.state.q.val() == ConvState::Pool) & self.pool.done.val();
            self.tadd.data_in.next = bit_cast::<80, 72>(self.scan.window.val());
            self.tadd.alpha_conv.next = self.cfg.q.val().get_bits::<3>(0);
            self.tadd.instr.next = true;
            self.fm.wr_en.next = self.tadd.valid_out.val() & self.live.q.val();

            // ---- POOL: the inter-FM cache's windows through the tree comparator.
            self.pool.active.next = self.state.q.val() == ConvState::Pool;
            self.pool.room.next = self.fifo.count.val() < self.c_room.val();
            self.fm.cur_channel.next = 0.into();
            self.cmp.instr.next = true;

            // ---- Output: four pooled values per beat (a new image clears the count).
            self.packer.clear.next = self.start.val();
            self.packer.valid.next = self.cmp.valid_out.val() & self.live.q.val();

            if self.reset.val() {
                self.state.d.next = ConvState::Idle;
                self.live.d.next = false;
                self.cfg.d.next = 0.into();
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
