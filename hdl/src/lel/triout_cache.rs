//! TrioutCache: the three-row cache that feeds 3x3 windows (thesis §4.1.9, T:1115-1144;
//! spec lel-platform.md §3.9, §7-28). `data_out2` is the current row of a feature map,
//! `data_out1` and `data_out0` the two rows before it. This is the image variant: several
//! channels written LW pixels per write, the channel to read selected by `cur_channel`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: idle, `valid_out` low (contents kept) |
//! | `addr_in` | in | AW (10) | write address `{channel, row, word}` (2, 5 and 3 bits) |
//! | `data_in` | in | LW x 8 (4 x 8) | LW pixels: lane j is pixel `LW*word + j` of the row |
//! | `wr_en` | in | 1 | write |
//! | `cur_channel` | in | CB (2) | channel to read, taken when a `clr_opt` pulse ends |
//! | `clr_opt` | in | 1 | restart: when it falls, rows 0, 1, 2 of the channel are loaded |
//! | `pop_en` | in | 1 | fetch the next row (ignored until `valid_out`, and at `eof`) |
//! | `data_out0` | out | X x 8 (32 x 8) | row r-2, pixel x at bits [8x+7 : 8x] |
//! | `data_out1` | out | X x 8 (32 x 8) | row r-1 |
//! | `data_out2` | out | X x 8 (32 x 8) | row r, the current row |
//! | `valid_out` | out | 1 | the three rows are valid |
//! | `eof` | out | 1 | row r is the channel's last row: there is no next row to fetch |
//!
//! Timing (T:1144): `valid_out` rises 4 cycles after `clr_opt` falls (rows 0, 1, 2 are read
//! on three consecutive edges and shifted in); with `valid_out` high, `pop_en` drops
//! `valid_out` at the next edge and raises it with the next row one edge later: 2 cycles per
//! row, also when `pop_en` is held high. Storage: 2^WB banks (one per word of a row), each an
//! [`SdpRam`] of `channels << RB` words, read in parallel so a whole row arrives in one
//! cycle. Reads of a channel at or beyond `channels` give zero rows.
//! Golden: `edgelearn_verif::golden::triout_cache`. Tests: `tests/triout_cache.rs`.

use crate::arith::lane_join::LaneJoin;
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// The thesis image cache: 3 channels of 32 x 32 int8, written 4 pixels at a time.
/// Parameters: LW = 4 pixels per write, NB = 8 words per row, RB = 5 row bits, CB = 2
/// channel bits, AW = 10, DW = 32, BA = 7, XW = 256, RC = 6.
pub type LelTrioutCache = TrioutCache<4, 8, 5, 2, 10, 32, 7, 256, 6>;

/// Three-row cache. `DW = 8 LW`, `AW = CB + RB + log2 NB`, `BA = CB + RB`,
/// `XW = 8 LW NB`, `RC = RB + 1` (checked in `new`).
#[derive(Clone, Debug, LogicBlock)]
pub struct TrioutCache<
    const LW: usize,
    const NB: usize,
    const RB: usize,
    const CB: usize,
    const AW: usize,
    const DW: usize,
    const BA: usize,
    const XW: usize,
    const RC: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Write address `{channel, row, word}`.
    pub addr_in: Signal<In, Bits<AW>>,
    /// Packed pixels to write.
    pub data_in: Signal<In, Bits<DW>>,
    /// Write enable.
    pub wr_en: Signal<In, Bit>,
    /// Channel to read.
    pub cur_channel: Signal<In, Bits<CB>>,
    /// Restart the rows.
    pub clr_opt: Signal<In, Bit>,
    /// Fetch the next row.
    pub pop_en: Signal<In, Bit>,
    /// Row r-2.
    pub data_out0: Signal<Out, Bits<XW>>,
    /// Row r-1.
    pub data_out1: Signal<Out, Bits<XW>>,
    /// Row r.
    pub data_out2: Signal<Out, Bits<XW>>,
    /// Rows valid.
    pub valid_out: Signal<Out, Bit>,
    /// Row r is the last row.
    pub eof: Signal<Out, Bit>,
    banks: [SdpRam<BA, DW>; NB],
    row_join: LaneJoin<DW, NB, XW>,
    state: DFF<Bits<3>>,
    next_row: DFF<Bits<RC>>,
    ch_q: DFF<Bits<CB>>,
    load_left: DFF<Bits<2>>,
    pend: DFF<Bit>,
    in_range: DFF<Bit>,
    row0: DFF<Bits<XW>>,
    row1: DFF<Bits<XW>>,
    row2: DFF<Bits<XW>>,
    valid_q: DFF<Bit>,
    eof_q: DFF<Bit>,
    rd_ch: Signal<Local, Bits<CB>>,
    rd_row: Signal<Local, Bits<RB>>,
    rd_addr: Signal<Local, Bits<BA>>,
    wr_row: Signal<Local, Bits<AW>>,
    wr_addr: Signal<Local, Bits<BA>>,
    bank_id: [Constant<Bits<AW>>; NB],
    word_mask: Constant<Bits<AW>>,
    rows: Constant<Bits<RC>>,
    channels: Constant<Bits<CB>>,
    all_channels: Constant<Bit>,
    s_idle: Constant<Bits<3>>,
    s_clr: Constant<Bits<3>>,
    s_load: Constant<Bits<3>>,
    s_ready: Constant<Bits<3>>,
    s_fetch: Constant<Bits<3>>,
    one_row: Constant<Bits<RC>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
}

impl<
        const LW: usize,
        const NB: usize,
        const RB: usize,
        const CB: usize,
        const AW: usize,
        const DW: usize,
        const BA: usize,
        const XW: usize,
        const RC: usize,
    > TrioutCache<LW, NB, RB, CB, AW, DW, BA, XW, RC>
{
    /// A cache of `channels` channels of `rows` rows (3 <= rows <= 2^RB, channels <= 2^CB).
    pub fn new(channels: usize, rows: usize) -> Self {
        let wb = NB.trailing_zeros() as usize;
        assert!(
            NB.is_power_of_two()
                && DW == 8 * LW
                && AW == CB + RB + wb
                && BA == CB + RB
                && XW == 8 * LW * NB
                && RC == RB + 1
                && CB >= 1,
            "TrioutCache<{LW}, {NB}, {RB}, {CB}, {AW}, {DW}, {BA}, {XW}, {RC}>: need NB a power of two, \
             DW = 8 LW, AW = CB + RB + log2 NB, BA = CB + RB, XW = 8 LW NB, RC = RB + 1, CB >= 1"
        );
        assert!(
            (3..=(1 << RB)).contains(&rows) && (1..=(1 << CB)).contains(&channels),
            "TrioutCache: rows {rows} must be in 3..={} and channels {channels} in 1..={}",
            1 << RB,
            1 << CB
        );
        let c = |v: u64| Constant::new(Bits::<3>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            addr_in: Default::default(),
            data_in: Default::default(),
            wr_en: Default::default(),
            cur_channel: Default::default(),
            clr_opt: Default::default(),
            pop_en: Default::default(),
            data_out0: Default::default(),
            data_out1: Default::default(),
            data_out2: Default::default(),
            valid_out: Default::default(),
            eof: Default::default(),
            banks: array_init::array_init(|_| SdpRam::new(channels << RB)),
            row_join: Default::default(),
            state: Default::default(),
            next_row: Default::default(),
            ch_q: Default::default(),
            load_left: Default::default(),
            pend: Default::default(),
            in_range: Default::default(),
            row0: Default::default(),
            row1: Default::default(),
            row2: Default::default(),
            valid_q: Default::default(),
            eof_q: Default::default(),
            rd_ch: Default::default(),
            rd_row: Default::default(),
            rd_addr: Default::default(),
            wr_row: Default::default(),
            wr_addr: Default::default(),
            bank_id: array_init::array_init(|b| Constant::new(Bits::<AW>::from(b as u64))),
            word_mask: Constant::new(Bits::<AW>::from((NB - 1) as u64)),
            rows: Constant::new(Bits::<RC>::from(rows as u64)),
            channels: Constant::new(Bits::<CB>::from((channels % (1 << CB)) as u64)),
            all_channels: Constant::new(channels == 1 << CB),
            s_idle: c(0),
            s_clr: c(1),
            s_load: c(2),
            s_ready: c(3),
            s_fetch: c(4),
            one_row: Constant::new(Bits::<RC>::from(1u64)),
            one2: Constant::new(Bits::<2>::from(1u64)),
            two2: Constant::new(Bits::<2>::from(2u64)),
        }
    }
}

impl<
        const LW: usize,
        const NB: usize,
        const RB: usize,
        const CB: usize,
        const AW: usize,
        const DW: usize,
        const BA: usize,
        const XW: usize,
        const RC: usize,
    > Logic for TrioutCache<LW, NB, RB, CB, AW, DW, BA, XW, RC>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, next_row, ch_q, load_left, pend, in_range, row0, row1, row2,
            valid_q, eof_q
        );
        // Read address: row 0 of the live channel while clearing, else the next row.
        self.rd_ch.next = self.ch_q.q.val();
        self.rd_row.next = self.next_row.q.val().get_bits::<RB>(0);
        if self.state.q.val() == self.s_clr.val() {
            self.rd_ch.next = self.cur_channel.val();
            self.rd_row.next = 0.into();
        }
        for rb in (RB as u64)..(RB as u64 + 1) {
            self.rd_addr.next = (bit_cast::<BA, CB>(self.rd_ch.val()) << rb)
                | bit_cast::<BA, RB>(self.rd_row.val());
        }
        // Writes go to bank `word`, at `{channel, row}`.
        for wb in (AW as u64 - BA as u64)..(AW as u64 - BA as u64 + 1) {
            self.wr_row.next = self.addr_in.val() >> wb;
        }
        self.wr_addr.next = bit_cast::<BA, AW>(self.wr_row.val());
        for b in 0..NB {
            self.banks[b].clock.next = self.clock.val();
            self.banks[b].write_enable.next = self.wr_en.val()
                & ((self.addr_in.val() & self.word_mask.val()) == self.bank_id[b].val());
            self.banks[b].write_address.next = self.wr_addr.val();
            self.banks[b].write_data.next = self.data_in.val();
            self.banks[b].read_address.next = self.rd_addr.val();
            self.row_join.lanes[b].next = self.banks[b].read_data.val();
        }
        self.in_range.d.next = (self.rd_ch.val() < self.channels.val()) | self.all_channels.val();
        // Shift a row in when a read was issued at the previous edge.
        if self.pend.q.val()
            & ((self.state.q.val() == self.s_load.val())
                | (self.state.q.val() == self.s_fetch.val()))
        {
            self.row0.d.next = self.row1.q.val();
            self.row1.d.next = self.row2.q.val();
            self.row2.d.next = 0.into();
            if self.in_range.q.val() {
                self.row2.d.next = self.row_join.word.val();
            }
        }
        self.pend.d.next = false;
        if self.state.q.val() == self.s_clr.val() {
            // clr_opt has fallen: read row 0 now, rows 1 and 2 at the next two edges.
            self.ch_q.d.next = self.cur_channel.val();
            self.next_row.d.next = self.one_row.val();
            self.load_left.d.next = self.two2.val();
            self.pend.d.next = true;
            self.state.d.next = self.s_load.val();
        } else if self.state.q.val() == self.s_load.val() {
            if self.load_left.q.val().any() {
                self.next_row.d.next = self.next_row.q.val() + self.one_row.val();
                self.load_left.d.next = self.load_left.q.val() - self.one2.val();
                self.pend.d.next = true;
            } else {
                self.state.d.next = self.s_ready.val();
                self.valid_q.d.next = true;
                self.eof_q.d.next = self.next_row.q.val() == self.rows.val();
            }
        } else if self.state.q.val() == self.s_ready.val() {
            if self.pop_en.val() & !self.eof_q.q.val() {
                self.next_row.d.next = self.next_row.q.val() + self.one_row.val();
                self.pend.d.next = true;
                self.valid_q.d.next = false;
                self.state.d.next = self.s_fetch.val();
            }
        } else if self.state.q.val() == self.s_fetch.val() {
            self.valid_q.d.next = true;
            self.eof_q.d.next = self.next_row.q.val() == self.rows.val();
            self.state.d.next = self.s_ready.val();
        }
        if self.clr_opt.val() {
            self.state.d.next = self.s_clr.val();
            self.valid_q.d.next = false;
            self.eof_q.d.next = false;
            self.pend.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = self.s_idle.val();
            self.valid_q.d.next = false;
            self.eof_q.d.next = false;
            self.pend.d.next = false;
        }
        self.data_out0.next = self.row0.q.val();
        self.data_out1.next = self.row1.q.val();
        self.data_out2.next = self.row2.q.val();
        self.valid_out.next = self.valid_q.q.val();
        self.eof.next = self.eof_q.q.val();
    }
}

impl<
        const LW: usize,
        const NB: usize,
        const RB: usize,
        const CB: usize,
        const AW: usize,
        const DW: usize,
        const BA: usize,
        const XW: usize,
        const RC: usize,
    > crate::design::HasMemories for TrioutCache<LW, NB, RB, CB, AW, DW, BA, XW, RC>
{
    /// Bank b is `PATH.banks$b.mem`.
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        self.banks
            .visit_memories(&crate::design::join_path(path, "banks"), f);
    }
}

crate::dut_io! {
    impl[
        const LW: usize,
        const NB: usize,
        const RB: usize,
        const CB: usize,
        const AW: usize,
        const DW: usize,
        const BA: usize,
        const XW: usize,
        const RC: usize
    ] TrioutCache<LW, NB, RB, CB, AW, DW, BA, XW, RC> {
        clock: yes,
        inputs: [reset, addr_in, data_in, wr_en, cur_channel, clr_opt, pop_en],
        outputs: [data_out0, data_out1, data_out2, valid_out, eof],
        notes: [
            data_in: (true, LW), data_out0: (true, XW / 8), data_out1: (true, XW / 8),
            data_out2: (true, XW / 8),
        ],
        memories: [banks],
    }
}
