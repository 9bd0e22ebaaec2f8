//! The platform's writable registers (hdl `lel::pl_regs::PlRegs`; docs/registers.md): each
//! keeps its writable bits of what is written to its address, the learning-rate table its
//! 16 entries (LR_LEN stores at most 16), and CFG_ACTIVE is MODEL_CFG with both FC cores' LR_SHIFT fields from
//! LR_TABLE[min(EPOCH, LR_LEN - 1)] when LR_LEN > 0. Cycle model in the trace convention
//! (docs/decisions.md D-CYCLE): [`PlRegs::step`] is the edge, [`PlRegs::outputs`] what is
//! sampled after it.

use edgelearn_hdl::lel::pl_regs::LR_FIELDS_CLEAR;
use edgelearn_hdl::lel::platform_regs as regs;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlRegsIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Write strobe.
    pub we: bool,
    /// Register word address.
    pub addr: u8,
    /// Value written.
    pub wdata: u32,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlRegsOut {
    /// CTRL is written.
    pub ctrl: bool,
    /// MODEL_CFG.
    pub model_cfg: u32,
    /// CFG_ACTIVE.
    pub cfg_active: u32,
    /// SEED_LC0, SEED_WU0, SEED_LC1, SEED_WU1.
    pub seeds: [u32; 4],
    /// N_TRAIN.
    pub n_train: u32,
    /// N_TEST.
    pub n_test: u32,
    /// EPOCH.
    pub epoch: u32,
    /// LR_LEN.
    pub lr_len: u32,
    /// LR_TABLE.
    pub lr: [u32; 16],
}

/// The registers (power-up: all 0), by word address.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlRegs {
    word: [u32; 11],
    lr: [u32; 16],
}

/// The scalar registers this block holds, by word address.
const WORDS: [u8; 9] = [
    regs::MODEL_CFG,
    regs::SEED_LC0,
    regs::SEED_WU0,
    regs::SEED_LC1,
    regs::SEED_WU1,
    regs::N_TRAIN,
    regs::N_TEST,
    regs::EPOCH,
    regs::LR_LEN,
];

impl PlRegs {
    fn eval(&self, i: &PlRegsIn) -> (PlRegsOut, PlRegs) {
        let mut n = *self;
        if i.we && WORDS.contains(&i.addr) {
            // The writable bits, LR_LEN at most its `max` (the map's `Register::stored`).
            n.word[i.addr as usize] =
                regs::lookup(i.addr as u32).map_or(0, |(r, _)| r.stored(i.wdata));
        }
        if i.we && i.addr >> 4 == regs::LR_TABLE >> 4 {
            n.lr[(i.addr & 15) as usize] = i.wdata & 0x3f;
        }
        if i.reset {
            n = PlRegs::default();
        }
        let w = |a: u8| self.word[a as usize];
        let (len, epoch) = (w(regs::LR_LEN), w(regs::EPOCH));
        let idx = if len <= epoch {
            len.wrapping_sub(1)
        } else {
            epoch
        };
        let pick = self.lr.get(idx as usize).copied().unwrap_or(0);
        let cfg = w(regs::MODEL_CFG);
        let o = PlRegsOut {
            ctrl: i.we && i.addr == regs::CTRL,
            model_cfg: cfg,
            cfg_active: match len {
                0 => cfg,
                _ => (cfg & LR_FIELDS_CLEAR) | (pick & 7) << 6 | (pick >> 3) << 18,
            },
            seeds: [
                w(regs::SEED_LC0),
                w(regs::SEED_WU0),
                w(regs::SEED_LC1),
                w(regs::SEED_WU1),
            ],
            n_train: w(regs::N_TRAIN),
            n_test: w(regs::N_TEST),
            epoch,
            lr_len: len,
            lr: self.lr,
        };
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &PlRegsIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &PlRegsIn) -> PlRegsOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(m: &mut PlRegs, addr: u8, wdata: u32) {
        m.step(&PlRegsIn {
            we: true,
            addr,
            wdata,
            ..Default::default()
        });
    }

    /// Writes keep their writable bits; CFG_ACTIVE takes the LR fields from the table entry
    /// of the epoch, the last in use repeating, and MODEL_CFG's own with LR_LEN 0.
    #[test]
    fn the_lr_table_sets_the_active_configuration() {
        let mut m = PlRegs::default();
        write(&mut m, regs::SEED_LC0, 0xffff_ffff);
        write(&mut m, regs::MODEL_CFG, 0x1c0); // FC0's LR_SHIFT 7
        let o = m.outputs(&PlRegsIn::default());
        assert_eq!((o.seeds[0], o.cfg_active), (0x1_ffff, o.model_cfg));
        assert_eq!(o.model_cfg & 0x1c0, 0x1c0);
        write(&mut m, regs::LR_TABLE, 1 | (2 << 3));
        write(&mut m, regs::LR_TABLE + 1, 3 | (4 << 3));
        write(&mut m, regs::LR_LEN, 2);
        let active = |m: &PlRegs| m.outputs(&PlRegsIn::default()).cfg_active;
        assert_eq!(active(&m), (1 << 6) | (2 << 18));
        write(&mut m, regs::EPOCH, 5);
        assert_eq!(active(&m), (3 << 6) | (4 << 18), "the last entry repeats");
        m.step(&PlRegsIn {
            reset: true,
            ..Default::default()
        });
        assert_eq!(m.outputs(&PlRegsIn::default()), PlRegsOut::default());
    }

    /// LR_LEN stores at most 16 (docs/registers.md): what it reads is what CFG_ACTIVE uses.
    #[test]
    fn lr_len_above_16_stores_16() {
        let mut m = PlRegs::default();
        for (w, want) in [(0x11, 16), (0xffff_ffff, 16), (16, 16), (15, 15), (0x20, 0)] {
            write(&mut m, regs::LR_LEN, w);
            assert_eq!(m.outputs(&PlRegsIn::default()).lr_len, want, "{w:#x}");
        }
    }
}
