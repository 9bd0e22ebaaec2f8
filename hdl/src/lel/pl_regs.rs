//! PlRegs: the platform's writable registers (docs/registers.md, generated from
//! `hdl/regs/lel_platform.toml`; spec §4.5, §7-23): MODEL_CFG (its writable fields), the four
//! LFSR seeds, N_TRAIN, N_TEST, EPOCH, LR_LEN and the learning-rate table, written through
//! the register port, and CFG_ACTIVE, the configuration the cores get: MODEL_CFG with both FC
//! cores' LR_SHIFT fields from LR_TABLE[min(EPOCH, LR_LEN - 1)] when LR_LEN > 0 (a write of
//! LR_LEN above 16 stores 16, the map's `max`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: every register and table entry 0 |
//! | `we` | in | 1 | write `wdata` to the register at `addr` |
//! | `addr` | in | 8 | register word address |
//! | `wdata` | in | 32 | value written (a register keeps its writable bits) |
//! | `ctrl` | out | 1 | CTRL is written this cycle (its INSTR goes to the FSM) |
//! | `model_cfg` | out | 32 | MODEL_CFG |
//! | `cfg_active` | out | 32 | CFG_ACTIVE |
//! | `seed_lc0`, `seed_wu0`, `seed_lc1`, `seed_wu1` | out | 17 | the FC cores' LFSR seeds |
//! | `n_train`, `n_test`, `epoch` | out | 32 | N_TRAIN, N_TEST, EPOCH |
//! | `lr_len` | out | 5 | LR_LEN |
//! | `lr` | out | 16 x 6 | LR_TABLE's entries, entry e in bits [6e+5:6e] |
//!
//! Golden: `edgelearn_verif::golden::pl_regs`. Tests: `tests/pl_regs.rs`.

use super::platform_regs as regs;
use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

// `LrTable`'s write decode: 16 entries from a multiple of 16, LR_LEN at most 16.
const _: () = assert!(
    regs::LR_TABLE.is_multiple_of(16)
        && regs::LR_TABLE_COUNT == 16
        && regs::LR_LEN_LEN_MAX as usize == regs::LR_TABLE_COUNT,
    "the LR table decode needs 16 entries from a multiple of 16, LR_LEN at most 16"
);

/// A register's writable bits (its fields in the register map).
pub fn write_mask(word: u8) -> u32 {
    regs::REGISTERS
        .iter()
        .find(|r| r.word == word)
        .map_or(u32::MAX, |r| r.write_mask)
}

/// MODEL_CFG with both FC cores' LR_SHIFT fields cleared (bits [8:6] and [20:18]).
pub const LR_FIELDS_CLEAR: u32 = !((7 << 6) | (7 << 18));

/// The platform's writable registers.
#[derive(Clone, Debug, LogicBlock)]
pub struct PlRegs {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Write strobe.
    pub we: Signal<In, Bit>,
    /// Register word address.
    pub addr: Signal<In, Bits<8>>,
    /// Value written.
    pub wdata: Signal<In, Bits<32>>,
    /// CTRL is written.
    pub ctrl: Signal<Out, Bit>,
    /// MODEL_CFG.
    pub model_cfg: Signal<Out, Bits<32>>,
    /// CFG_ACTIVE.
    pub cfg_active: Signal<Out, Bits<32>>,
    /// FC0's LC-weight seed.
    pub seed_lc0: Signal<Out, Bits<17>>,
    /// FC0's weight-update seed.
    pub seed_wu0: Signal<Out, Bits<17>>,
    /// FC1's LC-weight seed.
    pub seed_lc1: Signal<Out, Bits<17>>,
    /// FC1's weight-update seed.
    pub seed_wu1: Signal<Out, Bits<17>>,
    /// N_TRAIN.
    pub n_train: Signal<Out, Bits<32>>,
    /// N_TEST.
    pub n_test: Signal<Out, Bits<32>>,
    /// EPOCH.
    pub epoch: Signal<Out, Bits<32>>,
    /// LR_LEN.
    pub lr_len: Signal<Out, Bits<5>>,
    /// LR_TABLE's entries, packed.
    pub lr: Signal<Out, Bits<96>>,
    cfg_q: DFF<Bits<32>>,
    lc0_q: DFF<Bits<17>>,
    wu0_q: DFF<Bits<17>>,
    lc1_q: DFF<Bits<17>>,
    wu1_q: DFF<Bits<17>>,
    train_q: DFF<Bits<32>>,
    test_q: DFF<Bits<32>>,
    epoch_q: DFF<Bits<32>>,
    len_q: DFF<Bits<5>>,
    lr_tab: LrTable,
    entries: LaneJoin<6, 16, 96>,
    idx: Signal<Local, Bits<32>>,
    c_ctrl: Constant<Bits<8>>,
    c_cfg: Constant<Bits<8>>,
    c_lc0: Constant<Bits<8>>,
    c_wu0: Constant<Bits<8>>,
    c_lc1: Constant<Bits<8>>,
    c_wu1: Constant<Bits<8>>,
    c_train: Constant<Bits<8>>,
    c_test: Constant<Bits<8>>,
    c_epoch: Constant<Bits<8>>,
    c_len: Constant<Bits<8>>,
    c_lr_base: Constant<Bits<8>>,
    c_cfg_mask: Constant<Bits<32>>,
    c_lr_clear: Constant<Bits<32>>,
    c_len_max: Constant<Bits<5>>,
}

impl Default for PlRegs {
    fn default() -> Self {
        let a = |w: u8| Constant::new(Bits::<8>::from(w as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            we: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            ctrl: Default::default(),
            model_cfg: Default::default(),
            cfg_active: Default::default(),
            seed_lc0: Default::default(),
            seed_wu0: Default::default(),
            seed_lc1: Default::default(),
            seed_wu1: Default::default(),
            n_train: Default::default(),
            n_test: Default::default(),
            epoch: Default::default(),
            lr_len: Default::default(),
            lr: Default::default(),
            cfg_q: Default::default(),
            lc0_q: Default::default(),
            wu0_q: Default::default(),
            lc1_q: Default::default(),
            wu1_q: Default::default(),
            train_q: Default::default(),
            test_q: Default::default(),
            epoch_q: Default::default(),
            len_q: Default::default(),
            lr_tab: Default::default(),
            entries: Default::default(),
            idx: Default::default(),
            c_ctrl: a(regs::CTRL),
            c_cfg: a(regs::MODEL_CFG),
            c_lc0: a(regs::SEED_LC0),
            c_wu0: a(regs::SEED_WU0),
            c_lc1: a(regs::SEED_LC1),
            c_wu1: a(regs::SEED_WU1),
            c_train: a(regs::N_TRAIN),
            c_test: a(regs::N_TEST),
            c_epoch: a(regs::EPOCH),
            c_len: a(regs::LR_LEN),
            c_lr_base: a(regs::LR_TABLE),
            c_cfg_mask: Constant::new(Bits::<32>::from(write_mask(regs::MODEL_CFG) as u64)),
            c_lr_clear: Constant::new(Bits::<32>::from(LR_FIELDS_CLEAR as u64)),
            c_len_max: Constant::new(Bits::<5>::from(regs::LR_LEN_LEN_MAX as u64)),
        }
    }
}

impl Logic for PlRegs {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cfg_q, lc0_q, wu0_q, lc1_q, wu1_q, train_q, test_q, epoch_q, len_q);
        self.lr_tab.clock.next = self.clock.val();
        self.lr_tab.reset.next = self.reset.val();
        if self.we.val() {
            if self.addr.val() == self.c_cfg.val() {
                self.cfg_q.d.next = self.wdata.val() & self.c_cfg_mask.val();
            }
            if self.addr.val() == self.c_lc0.val() {
                self.lc0_q.d.next = self.wdata.val().get_bits::<17>(0);
            }
            if self.addr.val() == self.c_wu0.val() {
                self.wu0_q.d.next = self.wdata.val().get_bits::<17>(0);
            }
            if self.addr.val() == self.c_lc1.val() {
                self.lc1_q.d.next = self.wdata.val().get_bits::<17>(0);
            }
            if self.addr.val() == self.c_wu1.val() {
                self.wu1_q.d.next = self.wdata.val().get_bits::<17>(0);
            }
            if self.addr.val() == self.c_train.val() {
                self.train_q.d.next = self.wdata.val();
            }
            if self.addr.val() == self.c_test.val() {
                self.test_q.d.next = self.wdata.val();
            }
            if self.addr.val() == self.c_epoch.val() {
                self.epoch_q.d.next = self.wdata.val();
            }
            if self.addr.val() == self.c_len.val() {
                self.len_q.d.next = self.wdata.val().get_bits::<5>(0);
                if self.wdata.val().get_bits::<5>(0) > self.c_len_max.val() {
                    self.len_q.d.next = self.c_len_max.val();
                }
            }
        }
        if self.reset.val() {
            self.cfg_q.d.next = 0.into();
            self.lc0_q.d.next = 0.into();
            self.wu0_q.d.next = 0.into();
            self.lc1_q.d.next = 0.into();
            self.wu1_q.d.next = 0.into();
            self.train_q.d.next = 0.into();
            self.test_q.d.next = 0.into();
            self.epoch_q.d.next = 0.into();
            self.len_q.d.next = 0.into();
        }
        // LR_TABLE: 16 words from LR_TABLE (a multiple of 16).
        self.lr_tab.we.next = self.we.val()
            & (self.addr.val().get_bits::<4>(4) == self.c_lr_base.val().get_bits::<4>(4));
        self.lr_tab.waddr.next = self.addr.val().get_bits::<4>(0);
        self.lr_tab.wdata.next = self.wdata.val().get_bits::<6>(0);
        // The entry in use: min(EPOCH, LR_LEN - 1) (§7-23; LR_LEN stores at most 16).
        self.idx.next = self.epoch_q.q.val();
        if bit_cast::<32, 5>(self.len_q.q.val()) <= self.epoch_q.q.val() {
            self.idx.next = bit_cast::<32, 5>(self.len_q.q.val()) - 1;
        }
        self.lr_tab.idx.next = self.idx.val();
        self.cfg_active.next = self.cfg_q.q.val();
        if self.len_q.q.val().any() {
            self.cfg_active.next = (self.cfg_q.q.val() & self.c_lr_clear.val())
                | (bit_cast::<32, 3>(self.lr_tab.pick.val().get_bits::<3>(0)) << 6)
                | (bit_cast::<32, 3>(self.lr_tab.pick.val().get_bits::<3>(3)) << 18);
        }
        for j in 0..16 {
            self.entries.lanes[j].next = self.lr_tab.entries[j].val();
        }
        self.lr.next = self.entries.word.val();
        self.ctrl.next = self.we.val() & (self.addr.val() == self.c_ctrl.val());
        self.model_cfg.next = self.cfg_q.q.val();
        self.seed_lc0.next = self.lc0_q.q.val();
        self.seed_wu0.next = self.wu0_q.q.val();
        self.seed_lc1.next = self.lc1_q.q.val();
        self.seed_wu1.next = self.wu1_q.q.val();
        self.n_train.next = self.train_q.q.val();
        self.n_test.next = self.test_q.q.val();
        self.epoch.next = self.epoch_q.q.val();
        self.lr_len.next = self.len_q.q.val();
    }
}

crate::dut_io! {
    impl[] PlRegs {
        clock: yes,
        inputs: [reset, we, addr, wdata],
        outputs: [
            ctrl, model_cfg, cfg_active, seed_lc0, seed_wu0, seed_lc1, seed_wu1, n_train,
            n_test, epoch, lr_len, lr,
        ],
        notes: [lr: (false, 16)],
    }
}

/// LR_TABLE, the learning-rate table: 16 entries of 6 bits written through the register
/// port, `pick` the entry at `idx` (0 when `idx` is 16 or more), and every entry for the
/// register reads. A block of its own written by hand, an array: the lookup is one indexed
/// read instead of sixteen comparisons, and the entries are not copied register by register
/// every cycle. `reset` clears every entry (a write at the same edge is lost, as before).
#[derive(Clone, Debug, LogicBlock)]
pub struct LrTable {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every entry 0.
    pub reset: Signal<In, Bit>,
    /// Write `wdata` to entry `waddr`.
    pub we: Signal<In, Bit>,
    /// Entry written.
    pub waddr: Signal<In, Bits<4>>,
    /// Value written.
    pub wdata: Signal<In, Bits<6>>,
    /// Entry looked up.
    pub idx: Signal<In, Bits<32>>,
    /// The entry at `idx`.
    pub pick: Signal<Out, Bits<6>>,
    /// Every entry.
    pub entries: [Signal<Out, Bits<6>>; 16],
    _tab: [Bits<6>; 16],
}

impl Default for LrTable {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            idx: Default::default(),
            pick: Default::default(),
            entries: array_init::array_init(|_| Default::default()),
            _tab: [Bits::default(); 16],
        }
    }
}

impl Logic for LrTable {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._tab = [Bits::default(); 16];
            } else if self.we.val() {
                self._tab[self.waddr.val().index()] = self.wdata.val();
            }
        }
        let i = self.idx.val().index();
        self.pick.next = if i < 16 {
            self._tab[i]
        } else {
            Bits::default()
        };
        for j in 0..16 {
            self.entries[j].next = self._tab[j];
        }
    }

    fn connect(&mut self) {
        self.pick.connect();
        for e in self.entries.iter_mut() {
            e.connect();
        }
    }

    fn hdl(&self) -> Verilog {
        let entries: String = (0..16)
            .map(|j| format!("   entries${j} = t[{j}];\n"))
            .collect();
        Verilog::Custom(format!(
            "\
reg [5:0] t [0:15];
integer i;
initial begin
   for (i = 0; i < 16; i = i + 1) t[i] = 6'd0;
end
always @(posedge clock) begin
   if (reset) begin
      for (i = 0; i < 16; i = i + 1) t[i] <= 6'd0;
   end else if (we) begin
      t[waddr] <= wdata;
   end
end
always @(*) begin
   pick = (idx < 32'd16) ? t[idx[3:0]] : 6'd0;
{entries}end
"
        ))
    }
}
