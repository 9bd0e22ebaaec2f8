//! FcCore: one FC core of the LEL platform (thesis §4.2.1, T:1202-1266; spec lel-platform.md
//! §4.2, §4.5, §4.6, §2.4, §7): a parallel fully connected layer of P sub-layers, its local
//! classifier, the eq 4.1 loss, the LC backward pass, the stochastic weight update and the
//! classification, sequenced by the `LS_*` FSM and fed by AXI-Stream-style ports. Built from
//! the caches X4, the LC memories, the output FIFO and four datapath groups of the LEL
//! blocks, each behind its simulation gate: [`MmGroup`] (matmul), [`LcGroup`] (LC weights
//! and LC forward), [`BkGroup`] (loss, tree adder, classification) and [`WuGroup`] (weight
//! update and its LFSR); sequenced by its own phase blocks: the `LS_*` FSM ([`FcFsm`]), the
//! word sequencer ([`WordSeq`]), the read stages ([`ReadPipe`]), the output feed
//! ([`FcOut`]), the LC row walk ([`LcRows`]) and the errors between BK and WU
//! ([`ErrFetch`]); this file wires them.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: LS_IDLE, pipelines and FIFO empty; cache contents kept; INIT again afterwards (the LFSRs restart) |
//! | `s_tdata` | in | 8L (32) | input stream: INIT weights (L int6, each sign-extended in a byte) or TRAIN/INF activations (L int8); lane 0 = bits [7:0] |
//! | `s_tvalid` | in | 1 | input beat valid |
//! | `s_tready` | out | 1 | input beat taken when `s_tvalid & s_tready` at a rising edge |
//! | `s_tuser` | in | 4 | the image's label, taken from the first LOAD beat |
//! | `m_tdata` | out | 8L (32) | output stream: `mm_data_out` (L outputs of one pass, int8) in INF, weight words in READ (INIT's format) |
//! | `m_tvalid` | out | 1 | output beat valid (never waits for `m_tready`) |
//! | `m_tready` | in | 1 | output beat taken when `m_tvalid & m_tready` |
//! | `m_tuser` | out | 4 | the label in INF; 0 in READ |
//! | `m_tlast` | out | 1 | the image's last output beat / the last weight word |
//! | `model_cfg` | in | 32 | FC-core view (§4.5): [14:12] A(x+1)_ALPHA, [11:9] E_ALPHA, [8:6] LR_SHIFT, [5:3] LC_ALPHA; sampled in LS_LOAD |
//! | `seeds` | in | 34 | [16:0] LC-weight LFSR seed, [33:17] weight-update LFSR seed; sampled in the first LS_INIT cycle |
//! | `instr` | in | 3 | I_IDLE 0, I_INIT 1, I_TRAIN 2, I_INF 3, I_STOP 4, I_READ 5 |
//! | `layer_state` | out | 4 | LS_IDLE 0, INIT 1, LOAD 2, INF 3, LOSS 4, BK 5, WU 6, FIN 7, READ 8 |
//! | `lc_data_out` | out | C x 23 (10 x 23) | local-classifier outputs of the last image, Q12 |
//! | `lc_valid` | out | 1 | one-cycle pulse: `lc_data_out` holds a new image's result |
//! | `class_num` | out | 4 | classification (first maximum of `lc_data_out`) |
//! | `classify_done` | out | 1 | `class_num` valid (9 cycles after `lc_valid`, held until the next) |
//!
//! FSM (§4.2 with §7-17, §7-18): IDLE --INIT--> INIT --> IDLE; IDLE --TRAIN/INF--> LOAD -->
//! INF --TRAIN--> LOSS --> BK --> WU --> FIN, INF --INF--> FIN; FIN --> IDLE when `instr` is
//! neither TRAIN nor INF; IDLE --READ--> READ --> IDLE; I_STOP: any state --> IDLE at the next
//! edge. Cycles with one beat per cycle and the output always ready (docs/decisions.md
//! D-FCCORE), N inputs, O outputs, P pieces of F = N/P inputs, L lanes, W = N O / L words:
//! INIT W + 3, LOAD N/L + 2, INF W + O/L + O + 8, LOSS 1, BK O + 9, WU W + 4P + 1, FIN 1.
//! FC0 of the thesis (N 2400, O 480, P 4): 72,003 / 602 / 72,608 / 1 / 489 / 72,017 / 1.
//! Golden: `edgelearn_verif::lel::fc_core`. Tests: `tests/fc_core.rs`.

use super::bk_group::BkGroup;
use super::cache_x4::CacheX4;
use super::err_fetch::ErrFetch;
use super::fc_fsm::{FcFsm, WU_DRAIN};
use super::fc_out::FcOut;
use super::lc_group::LcGroup;
use super::lc_rows::LcRows;
use super::mm_group::MmGroup;
use super::read_pipe::ReadPipe;
use super::stream_fifo::StreamFifo;
use super::word_seq::WordSeq;
use super::wu_group::WuGroup;
use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// The thesis FC core: 4 lanes, 10 classes.
pub type LelFcCore = FcCore<4, 10, 32, 24, 56, 96, 230, 60, 80>;

/// The lane counts an FC core is built with (10 classes): one stream beat holds L bytes,
/// and the benches' stream words are 64 bits (one lane would leave one-bit lane masks, which
/// rust-hdl emits without a range).
pub const FC_LANES: [usize; 3] = [2, 4, 8];

/// The FC core of `shape` with `lanes` lanes (one of [`FC_LANES`]) and 10 classes, as the
/// design `name`; why not, if the RTL cannot build it.
pub fn fc_core_design(
    name: &str,
    lanes: usize,
    shape: FcCoreShape,
) -> Result<Box<dyn crate::design::Design>, String> {
    shape.check(lanes)?;
    macro_rules! at {
        ($l:literal) => {
            Box::new(crate::design::Instance::new(
                name,
                FcCore::<$l, 10, { 8 * $l }, { 6 * $l }, { 14 * $l }, { 24 * $l }, 230, 60, 80>::new(
                    shape,
                ),
            ))
        };
    }
    Ok(match lanes {
        2 => at!(2),
        4 => at!(4),
        8 => at!(8),
        _ => {
            return Err(format!(
                "{lanes} lanes: an FC core is built with {FC_LANES:?}"
            ))
        }
    })
}

pub use super::fc_out::FC_FIFO_DEPTH;

pub use super::fc_fsm::FcState;

/// Shape of one FC core instance (runtime parameters; lanes and classes are type parameters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FcCoreShape {
    /// Inputs N.
    pub inputs: usize,
    /// Outputs O.
    pub outputs: usize,
    /// Pieces P (parallel sub-layers, 1..=4: one cache of each cache X4 per piece).
    pub pieces: usize,
    /// The weight cache's read word registered once more before the matmul, the weight
    /// update and READ use it (the timing option of docs/decisions.md D-REGISTERED-READS):
    /// the read pipeline runs one cycle behind the sequencer, WU drains one cycle longer.
    pub registered_reads: bool,
}

impl FcCoreShape {
    /// Why the RTL cannot build this shape with `lanes` lanes, if it cannot.
    pub fn check(&self, lanes: usize) -> Result<(), String> {
        let (n, o, p) = (self.inputs, self.outputs, self.pieces);
        if !(1..=4).contains(&p) {
            return Err(format!(
                "pieces {p}: the RTL has one cache of each cache X4 per piece, so 1..=4"
            ));
        }
        if n == 0 || n % p != 0 || (n / p) % lanes != 0 {
            return Err(format!("inputs {n}: each of the {p} pieces must get a multiple of {lanes} inputs (one activation word holds {lanes})"));
        }
        let f = n / p;
        if f < lanes + 4 {
            return Err(format!("inputs {n}: {f} inputs per piece; the weight update needs at least {} to fetch the next pass's errors during a pass", lanes + 4));
        }
        if f / lanes > 1 << 12 {
            return Err(format!(
                "inputs {n}: {f} inputs per piece; the activation cache holds {} words",
                1 << 12
            ));
        }
        if o == 0 || o % (p * lanes) != 0 {
            return Err(format!(
                "outputs {o}: must be a multiple of pieces x lanes = {}",
                p * lanes
            ));
        }
        let g = o / p;
        if g > 1 << 10 || o / lanes > 1 << 10 {
            return Err(format!(
                "outputs {o}: at most {} outputs per piece and {} passes",
                1 << 10,
                1 << 10
            ));
        }
        if (g / lanes) * f > 1 << 16 {
            return Err(format!(
                "inputs {n} x outputs {o}: {} weight words per piece; the weight cache holds {}",
                (g / lanes) * f,
                1 << 16
            ));
        }
        Ok(())
    }
}

/// FC core with L lanes and C classes. `SW = 8L` (stream), `WW = 6L` (weight word),
/// `RW = 14L` (random bits), `AW = 24L` (matmul accumulators), `CW = 23C` (LC outputs),
/// `BW = 6C` (LC weights), `EW = 8C` (errors); checked in `new`.
#[derive(Clone, Debug, LogicBlock)]
pub struct FcCore<
    const L: usize,
    const C: usize,
    const SW: usize,
    const WW: usize,
    const RW: usize,
    const AW: usize,
    const CW: usize,
    const BW: usize,
    const EW: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Input stream data.
    pub s_tdata: Signal<In, Bits<SW>>,
    /// Input stream valid.
    pub s_tvalid: Signal<In, Bit>,
    /// Input stream ready.
    pub s_tready: Signal<Out, Bit>,
    /// Input stream label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Output stream data.
    pub m_tdata: Signal<Out, Bits<SW>>,
    /// Output stream valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// Output stream ready.
    pub m_tready: Signal<In, Bit>,
    /// Output stream label.
    pub m_tuser: Signal<Out, Bits<4>>,
    /// Output stream last beat.
    pub m_tlast: Signal<Out, Bit>,
    /// Configuration (FC-core view of §4.5).
    pub model_cfg: Signal<In, Bits<32>>,
    /// LFSR seeds: [16:0] LC weights, [33:17] weight update.
    pub seeds: Signal<In, Bits<34>>,
    /// Instruction.
    pub instr: Signal<In, Bits<3>>,
    /// FSM state.
    pub layer_state: Signal<Out, Bits<4>>,
    /// LC outputs.
    pub lc_data_out: Signal<Out, Bits<CW>>,
    /// New LC outputs.
    pub lc_valid: Signal<Out, Bit>,
    /// Class.
    pub class_num: Signal<Out, Bits<4>>,
    /// Class valid.
    pub classify_done: Signal<Out, Bit>,
    // Blocks.
    seq: WordSeq,
    wcache: CacheX4<16, WW>,
    acache: CacheX4<12, SW>,
    gcache: CacheX4<10, 8>,
    lcin: SdpRam<10, SW>,
    lcmask: SdpRam<10, L>,
    mm_group: MmGroup<L, WW, SW, AW>,
    lc_group: LcGroup<C, BW, CW>,
    bk_group: BkGroup<C, BW, EW, CW>,
    wu_group: WuGroup<L, WW, SW, RW>,
    fifo: StreamFifo<SW, FC_FIFO_DEPTH>,
    // Sequencing: the LS_* FSM, then each phase's block (the word sequencer `seq` above).
    fsm: FcFsm,
    rd: ReadPipe<L, SW>,
    out: FcOut<L, SW, WW>,
    lc_rows: LcRows<L, SW>,
    errs: ErrFetch<L, SW>,
    // INIT / LOAD write pipeline: one register between the stream and the cache.
    beat_split: LaneSplit<8, L, SW>,
    beat_join6: LaneJoin<6, L, WW>,
    wr_en: DFF<Bit>,
    wr_k: DFF<Bits<2>>,
    wr_addr: DFF<Bits<16>>,
    wr_data: DFF<Bits<SW>>,
    // Registered reads (option): the weight cache's word a register later, and the words
    // the sequencer issues one cycle later into everything that meets that word.
    w_q: DFF<Bits<WW>>,
    d_issue: DFF<Bit>,
    d_emit: DFF<Bit>,
    d_index: DFF<Bits<16>>,
    d_first: DFF<Bit>,
    d_last: DFF<Bit>,
    d_addr: DFF<Bits<16>>,
    d_piece: DFF<Bits<2>>,
    d_pass: DFF<Bits<16>>,
    // Values of block inputs and outputs, settled before their one assignment.
    sq_passes: Signal<Local, Bits<16>>,
    sq_words: Signal<Local, Bits<16>>,
    w_sel: Signal<Local, Bits<2>>,
    w_we: Signal<Local, Bit>,
    w_waddr: Signal<Local, Bits<16>>,
    w_wdata: Signal<Local, Bits<WW>>,
    a_sel: Signal<Local, Bits<2>>,
    g_sel: Signal<Local, Bits<2>>,
    p_issue: Signal<Local, Bit>,
    p_emit: Signal<Local, Bit>,
    p_index: Signal<Local, Bits<16>>,
    p_first: Signal<Local, Bit>,
    p_last: Signal<Local, Bit>,
    p_addr: Signal<Local, Bits<16>>,
    p_piece: Signal<Local, Bits<2>>,
    p_pass: Signal<Local, Bits<16>>,
    w_rd: Signal<Local, Bits<WW>>,
    // Shape constants.
    c_registered: Constant<Bit>,
    c_pieces: Constant<Bits<3>>,
    c_passes: Constant<Bits<16>>,
    c_words: Constant<Bits<16>>,
    c_awords: Constant<Bits<16>>,
    c_out_passes: Constant<Bits<10>>,
    c_rows: Constant<Bits<16>>,
    c_grads: Constant<Bits<10>>,
    c_last_piece: Constant<Bits<2>>,
    one16: Constant<Bits<16>>,
    _shape: FcCoreShape,
}

impl<
        const L: usize,
        const C: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const CW: usize,
        const BW: usize,
        const EW: usize,
    > FcCore<L, C, SW, WW, RW, AW, CW, BW, EW>
{
    /// A core of this shape; panics (naming the limit) on a shape the RTL cannot build.
    pub fn new(shape: FcCoreShape) -> Self {
        assert!(
            L.is_power_of_two()
                && (1..=16).contains(&L)
                && SW == 8 * L
                && WW == 6 * L
                && RW == 14 * L
                && AW == 24 * L
                && (2..=16).contains(&C)
                && CW == 23 * C
                && BW == 6 * C
                && EW == 8 * C,
            "FcCore<{L}, {C}, {SW}, {WW}, {RW}, {AW}, {CW}, {BW}, {EW}>: need L a power of two \
             <= 16, SW = 8L, WW = 6L, RW = 14L, AW = 24L, 2 <= C <= 16, CW = 23C, BW = 6C, EW = 8C"
        );
        if let Err(e) = shape.check(L) {
            panic!("FcCore: {e}");
        }
        let (n, o, p) = (shape.inputs, shape.outputs, shape.pieces);
        let (f, g) = (n / p, o / p);
        let q = g / L;
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
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
            seeds: Default::default(),
            instr: Default::default(),
            layer_state: Default::default(),
            lc_data_out: Default::default(),
            lc_valid: Default::default(),
            class_num: Default::default(),
            classify_done: Default::default(),
            seq: Default::default(),
            fsm: FcFsm::with_drain(WU_DRAIN + shape.registered_reads as u64),
            lc_rows: Default::default(),
            errs: Default::default(),
            rd: Default::default(),
            out: Default::default(),
            wcache: CacheX4::new(q * f),
            acache: CacheX4::new(f / L),
            gcache: CacheX4::new(g),
            lcin: SdpRam::new(o / L),
            lcmask: SdpRam::new(o / L),
            mm_group: Default::default(),
            lc_group: Default::default(),
            bk_group: Default::default(),
            wu_group: Default::default(),
            fifo: Default::default(),
            beat_split: Default::default(),
            beat_join6: Default::default(),
            wr_en: Default::default(),
            wr_k: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            w_q: Default::default(),
            d_issue: Default::default(),
            d_emit: Default::default(),
            d_index: Default::default(),
            d_first: Default::default(),
            d_last: Default::default(),
            d_addr: Default::default(),
            d_piece: Default::default(),
            d_pass: Default::default(),
            sq_passes: Default::default(),
            sq_words: Default::default(),
            w_sel: Default::default(),
            w_we: Default::default(),
            w_waddr: Default::default(),
            w_wdata: Default::default(),
            a_sel: Default::default(),
            g_sel: Default::default(),
            p_issue: Default::default(),
            p_emit: Default::default(),
            p_index: Default::default(),
            p_first: Default::default(),
            p_last: Default::default(),
            p_addr: Default::default(),
            p_piece: Default::default(),
            p_pass: Default::default(),
            w_rd: Default::default(),
            c_registered: Constant::new(shape.registered_reads),
            c_pieces: Constant::new(Bits::<3>::from(p as u64)),
            c_passes: c16(q),
            c_words: c16(f),
            c_awords: c16(f / L),
            c_out_passes: Constant::new(Bits::<10>::from((o / L - 1) as u64)),
            c_rows: c16(o),
            c_grads: Constant::new(Bits::<10>::from((g - 1) as u64)),
            c_last_piece: Constant::new(Bits::<2>::from((p - 1) as u64)),
            one16: c16(1),
            _shape: shape,
        }
    }

    /// The shape this core was built for.
    pub fn shape(&self) -> FcCoreShape {
        self._shape
    }
}

impl<
        const L: usize,
        const C: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const CW: usize,
        const BW: usize,
        const EW: usize,
    > Logic for FcCore<L, C, SW, WW, RW, AW, CW, BW, EW>
{
    crate::wired_update! {
        // Every plain connection, once (D-HDLGEN: each block input assigned once per
        // evaluation); `update` has what is more than a wire.
        wires {
            // ---- Resets of the blocks.
            fsm.reset <= reset;
            lc_rows.reset <= reset;
            errs.reset <= reset;
            rd.reset <= reset;
            seq.reset <= reset;
            wcache.reset <= reset;
            acache.reset <= reset;
            gcache.reset <= reset;
            mm_group.reset <= reset;
            lc_group.reset <= reset;
            bk_group.reset <= reset;
            wu_group.reset <= reset;
            fifo.reset <= reset;
            // ---- FSM (`FcFsm`): the instruction, the stream's handshake and each phase's end.
            fsm.instr <= instr;
            fsm.s_tvalid <= s_tvalid;
            fsm.s_tuser <= s_tuser;
            fsm.model_cfg <= model_cfg;
            fsm.seeds <= seeds;
            fsm.seq_active <= seq.active;
            fsm.seq_emit <= seq.emit;
            fsm.seq_first <= seq.first;
            fsm.seq_done <= seq.done;
            fsm.wr_busy <= wr_en.q;
            fsm.credit <= out.credit;
            fsm.lc_done <= lc_group.done;
            fsm.bk_done <= errs.last_grad;
            fsm.drained <= out.drained;
            layer_state <= fsm.code;
            s_tready <= fsm.ready;
            // ---- The sequencer (`WordSeq`).
            seq.start <= fsm.sq_start;
            seq.cancel <= fsm.sq_cancel;
            seq.stall <= fsm.sq_stall;
            seq.pieces <= c_pieces;
            seq.gap <= fsm.sq_gap;
            seq.drain <= fsm.sq_drain;
            // ---- INIT / LOAD writes (one register between the stream and the cache).
            wr_data.d <= s_tdata;
            wr_k.d <= seq.piece;
            wr_addr.d <= seq.addr;
            beat_split.word <= wr_data.q;
            acache.data_in0 <= wr_data.q;
            // ---- Reads (`ReadPipe`): the word the sequencer issues, its activation, its
            // stages.
            rd.act_data <= acache.data_out1;
            wcache.addr1 <= seq.addr;
            acache.addr1 <= rd.act_addr;
            // ---- INF (`MmGroup`): matmul bursts, one per pass.
            mm_group.en <= fsm.inf;
            mm_group.valid <= rd.v2;
            mm_group.act <= rd.act_lane;
            lcin.write_enable <= out.lc_we;
            lcin.write_address <= out.lc_addr;
            lcin.write_data <= mm_group.output_to_lc;
            lcmask.write_enable <= out.lc_we;
            lcmask.write_address <= out.lc_addr;
            lcmask.write_data <= mm_group.relu_mask;
            // ---- LC rows (`LcRows`): INF (forward) after the last pass, BK (backward).
            lc_rows.clear <= fsm.enter;
            lc_rows.bk <= fsm.bk;
            lc_rows.rows <= c_rows;
            lc_rows.lcin_data <= lcin.read_data;
            lc_rows.mask_data <= lcmask.read_data;
            lcin.read_address <= lc_rows.word;
            lcmask.read_address <= lc_rows.word;
            // The LC weights step with the rows; INF sums them (`LcGroup`).
            lc_group.en <= fsm.inf;
            lc_group.run <= out.lc_run;
            lc_group.valid <= lc_rows.valid;
            lc_group.data <= lc_rows.lc_in;
            lc_group.step <= lc_rows.step;
            lc_group.seed <= fsm.lc_seed;
            lc_group.prog <= fsm.lc_prog;
            // ---- LOSS and BK (`BkGroup`), and the classification of each LC result.
            bk_group.label <= fsm.label;
            bk_group.lc <= lc_group.lc;
            bk_group.lc_valid <= lc_group.lc_valid;
            bk_group.loss_en <= fsm.loss;
            bk_group.en <= fsm.bk;
            bk_group.valid <= lc_rows.valid;
            bk_group.weight <= lc_group.weights;
            bk_group.relu_mask <= lc_rows.lc_mask;
            // Errors into the gradient cache, and a pass ahead out of it in WU (`ErrFetch`).
            errs.clear <= fsm.enter;
            errs.grad_valid <= bk_group.grad_valid;
            errs.grad <= bk_group.grad;
            errs.wu <= fsm.wu;
            errs.pass_start <= rd.start1;
            errs.gdata <= gcache.data_out1;
            errs.passes <= c_passes;
            errs.last_piece <= c_last_piece;
            errs.grads <= c_grads;
            g_sel <= errs.g_sel;
            gcache.addr0 <= errs.g_addr0;
            gcache.data_in0 <= bk_group.grad;
            gcache.wr_en <= errs.g_we;
            gcache.addr1 <= errs.g_addr1;
            // ---- WU (`WuGroup`): read, update, write back four cycles later.
            wu_group.en <= fsm.wu;
            wu_group.v1 <= rd.v1;
            wu_group.v2 <= rd.v2;
            wu_group.act <= rd.act_lane;
            wu_group.err <= errs.err;
            wu_group.prog <= fsm.wu_prog;
            // ---- The output FIFO's beats (`FcOut`): INF's passes, READ's weight words.
            out.clear <= fsm.enter;
            out.inf <= fsm.inf;
            out.read <= fsm.read;
            out.mm_valid <= mm_group.valid_out;
            out.mm_fc <= mm_group.output_to_fc;
            out.label <= fsm.label;
            out.rd_v2 <= rd.v2;
            out.rd_last2 <= rd.last2;
            // In-flight words are counted as the sequencer issues them (the FIFO's credit).
            out.seq_emit <= seq.emit;
            out.seq_first <= seq.first;
            out.fifo_count <= fifo.count;
            out.out_passes <= c_out_passes;
            fifo.push <= out.push;
            fifo.in_data <= out.data;
            fifo.in_user <= out.user;
            fifo.in_last <= out.last;
            fifo.out_ready <= m_tready;
            // ---- Outputs.
            m_tdata <= fifo.out_data;
            m_tvalid <= fifo.out_valid;
            m_tuser <= fifo.out_user;
            m_tlast <= fifo.out_last;
            lc_data_out <= lc_group.lc;
            lc_valid <= lc_group.lc_valid;
            class_num <= bk_group.class_num;
            classify_done <= bk_group.classify_done;
        }
        #[hdl_gen]
        fn update(&mut self) {
            dff_setup!(self, clock, wr_en, d_issue, d_emit);
            clock!(
                self, clock, wr_k, wr_addr, wr_data, w_q, d_index, d_first, d_last, d_addr,
                d_piece, d_pass, fsm, lc_rows, errs, rd, out, seq, wcache,
                acache, gcache, lcin, lcmask, mm_group, lc_group, bk_group, wu_group, fifo
            );

            // ---- The sequencer (`WordSeq`): LOAD's sequence is one pass of F/L activation
            // words per piece.
            self.sq_passes.next = self.c_passes.val();
            self.sq_words.next = self.c_words.val();
            if self.fsm.sq_load.val() {
                self.sq_passes.next = self.one16.val();
                self.sq_words.next = self.c_awords.val();
            }
            self.seq.passes.next = self.sq_passes.val();
            self.seq.words.next = self.sq_words.val();

            // ---- INIT / LOAD writes (one register between the stream and the cache); no
            // write pending after reset.
            self.wr_en.d.next = self.fsm.take.val();
            if self.reset.val() {
                self.wr_en.d.next = false;
            }
            for j in 0..L {
                self.beat_join6.lanes[j].next = self.beat_split.lanes[j].val().get_bits::<6>(0);
            }
            self.acache.wr_en.next = self.wr_en.q.val() & self.fsm.load.val();
            self.acache.addr0.next = bit_cast::<12, 16>(self.wr_addr.q.val());

            // ---- The weight cache's write port: INIT's words, or WU's updated weights four
            // cycles after their read; the caches' pieces: the write's, or the sequencer's.
            self.w_we.next = self.wr_en.q.val() & self.fsm.init.val();
            self.w_waddr.next = self.wr_addr.q.val();
            self.w_wdata.next = self.beat_join6.word.val();
            if self.fsm.wu.val() {
                self.w_we.next = self.rd.v4.val();
                self.w_waddr.next = self.rd.addr4.val();
                self.w_wdata.next = self.wu_group.weight_out.val();
            }
            self.w_sel.next = self.wr_k.q.val();
            self.a_sel.next = self.wr_k.q.val();
            if self.fsm.inf.val() | self.fsm.wu.val() | self.fsm.read.val() {
                self.w_sel.next = self.seq.piece.val();
                self.a_sel.next = self.seq.piece.val();
            }
            self.wcache.p_sel.next = self.w_sel.val();
            self.wcache.wr_en.next = self.w_we.val();
            self.wcache.addr0.next = self.w_waddr.val();
            self.wcache.data_in0.next = self.w_wdata.val();
            self.acache.p_sel.next = self.a_sel.val();
            self.gcache.p_sel.next = self.g_sel.val();

            // ---- Reads (`ReadPipe`): the words the sequencer issues in INF, WU and READ;
            // with registered reads, the weight cache's word a register later and everything
            // that meets it (the read pipeline, ErrFetch, FcOut) one cycle behind the sequencer.
            self.p_issue.next =
                self.seq.emit.val() & (self.fsm.inf.val() | self.fsm.wu.val() | self.fsm.read.val());
            self.d_issue.d.next = self.p_issue.val() & !self.reset.val();
            self.d_emit.d.next = self.seq.emit.val() & !self.reset.val();
            self.d_index.d.next = self.seq.index.val();
            self.d_first.d.next = self.seq.first.val();
            self.d_last.d.next = self.seq.last.val();
            self.d_addr.d.next = self.seq.addr.val();
            self.d_piece.d.next = self.seq.piece.val();
            self.d_pass.d.next = self.seq.pass.val();
            self.w_q.d.next = self.wcache.data_out1.val();
            self.p_emit.next = self.seq.emit.val();
            self.p_index.next = self.seq.index.val();
            self.p_first.next = self.seq.first.val();
            self.p_last.next = self.seq.last.val();
            self.p_addr.next = self.seq.addr.val();
            self.p_piece.next = self.seq.piece.val();
            self.p_pass.next = self.seq.pass.val();
            self.w_rd.next = self.wcache.data_out1.val();
            if self.c_registered.val() {
                self.p_issue.next = self.d_issue.q.val();
                self.p_emit.next = self.d_emit.q.val();
                self.p_index.next = self.d_index.q.val();
                self.p_first.next = self.d_first.q.val();
                self.p_last.next = self.d_last.q.val();
                self.p_addr.next = self.d_addr.q.val();
                self.p_piece.next = self.d_piece.q.val();
                self.p_pass.next = self.d_pass.q.val();
                self.w_rd.next = self.w_q.q.val();
            }
            self.rd.issue.next = self.p_issue.val();
            self.rd.index.next = self.p_index.val();
            self.rd.first.next = self.p_first.val();
            self.rd.last.next = self.p_last.val();
            self.rd.addr.next = self.p_addr.val();
            self.mm_group.weight.next = self.w_rd.val();
            self.wu_group.weight.next = self.w_rd.val();
            self.out.weight.next = self.w_rd.val();
            self.errs.seq_emit.next = self.p_emit.val();
            self.errs.seq_index.next = self.p_index.val();
            self.errs.seq_piece.next = self.p_piece.val();
            self.errs.seq_pass.next = self.p_pass.val();

            // ---- The configuration's fields: alpha_lc 3, lr_shift 6, alpha_e 9, alpha_fc 12;
            // FC1's WU seed is the seeds' upper half.
            self.mm_group.alpha_fc.next = self.fsm.cfg.val().get_bits::<3>(12);
            self.mm_group.alpha_lc.next = self.fsm.cfg.val().get_bits::<3>(3);
            self.bk_group.alpha_e.next = self.fsm.cfg.val().get_bits::<3>(9);
            self.wu_group.lr_shift.next = self.fsm.cfg.val().get_bits::<3>(6);
            self.wu_group.seed.next = self.seeds.val().get_bits::<17>(17);

            // ---- LC rows (`LcRows`): forward in INF after the last pass.
            self.lc_rows.fwd.next = self.fsm.inf.val() & self.out.lc_run.val();
        }
    }
}

impl<
        const L: usize,
        const C: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const CW: usize,
        const BW: usize,
        const EW: usize,
    > crate::design::HasMemories for FcCore<L, C, SW, WW, RW, AW, CW, BW, EW>
{
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
    impl[
        const L: usize,
        const C: usize,
        const SW: usize,
        const WW: usize,
        const RW: usize,
        const AW: usize,
        const CW: usize,
        const BW: usize,
        const EW: usize
    ] FcCore<L, C, SW, WW, RW, AW, CW, BW, EW> {
        clock: yes,
        inputs: [reset, s_tdata, s_tvalid, s_tuser, m_tready, model_cfg, seeds, instr],
        outputs: [
            s_tready, m_tdata, m_tvalid, m_tuser, m_tlast, layer_state, lc_data_out, lc_valid,
            class_num, classify_done
        ],
        notes: [s_tdata: (true, L), m_tdata: (true, L), seeds: (false, 2), lc_data_out: (true, C)],
        memories: [wcache, acache, gcache, lcin, lcmask],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small core (N 32, O 16, P 4: F 8, one pass per piece) through Yosys and Verilator
    /// lint; the big instances are linted by `tests/emit.rs`.
    #[test]
    fn fc_core_is_synthesizable() {
        crate::synth_check::assert_synthesizable(
            "fc_core",
            LelFcCore::new(FcCoreShape {
                inputs: 32,
                outputs: 16,
                pieces: 4,
                registered_reads: false,
            }),
        );
    }

    #[test]
    fn shapes_outside_the_rtl_are_named() {
        let s = |inputs, outputs, pieces| FcCoreShape {
            inputs,
            outputs,
            pieces,
            registered_reads: false,
        };
        assert!(s(2400, 480, 4).check(4).is_ok());
        assert!(s(480, 480, 4).check(4).is_ok());
        assert!(s(1536, 480, 4).check(4).is_ok());
        assert!(s(2400, 480, 5).check(4).unwrap_err().contains("pieces 5"));
        assert!(s(2404, 480, 4)
            .check(4)
            .unwrap_err()
            .contains("inputs 2404"));
        assert!(s(16, 16, 4).check(4).unwrap_err().contains("at least 8"));
        assert!(s(2400, 470, 4)
            .check(4)
            .unwrap_err()
            .contains("outputs 470"));
        assert!(s(2400 * 64, 480, 4).check(4).is_err());
    }
}
