//! The FC core's `LS_*` FSM (hdl `lel::fc_fsm::FcFsm`): the state, what it samples (seeds,
//! configuration, label, TRAIN or INF) and what it tells the word sequencer and the LFSRs,
//! from the instruction, the stream's handshake and each phase's end. Cycle model in the
//! trace convention (docs/decisions.md D-CYCLE): [`FcFsm::step`] is the edge,
//! [`FcFsm::outputs`] what is sampled after it.

use edgelearn_hdl::lel::fc_fsm::{FcState, WU_DRAIN};
use edgelearn_hdl::lel::instr;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct FcFsmIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The core's instruction (3 bits).
    pub instr: u64,
    /// An input beat is offered.
    pub s_tvalid: bool,
    /// Its label (4 bits).
    pub s_tuser: u64,
    /// Configuration.
    pub model_cfg: u32,
    /// LFSR seeds (34 bits).
    pub seeds: u64,
    /// The word sequencer is running.
    pub seq_active: bool,
    /// It issues a word.
    pub seq_emit: bool,
    /// The word is a pass's first.
    pub seq_first: bool,
    /// The sequence is over.
    pub seq_done: bool,
    /// A stream beat is on its way to a cache.
    pub wr_busy: bool,
    /// The output FIFO has room.
    pub credit: bool,
    /// The LC forward pass ends.
    pub lc_done: bool,
    /// The last gradient is written.
    pub bk_done: bool,
    /// Nothing in flight, the output FIFO empty.
    pub drained: bool,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FcFsmOut {
    /// The state.
    pub state: FcState,
    /// The state's first cycle.
    pub fresh: bool,
    /// The state changes at the next edge.
    pub enter: bool,
    /// The input stream is taken.
    pub ready: bool,
    /// The sequencer's word is a stream beat for a cache.
    pub take: bool,
    /// Start, cancel, stall the sequencer; a gap after each pass; LOAD's sequence.
    pub sq_start: bool,
    /// See `sq_start`.
    pub sq_cancel: bool,
    /// See `sq_start`.
    pub sq_stall: bool,
    /// See `sq_start`.
    pub sq_gap: bool,
    /// See `sq_start`.
    pub sq_load: bool,
    /// Drain cycles after each piece.
    pub sq_drain: u64,
    /// The LC weights' seed (17 bits).
    pub lc_seed: u64,
    /// Program the LC-weight, the weight-update LFSR.
    pub lc_prog: bool,
    /// See `lc_prog`.
    pub wu_prog: bool,
    /// The image is trained.
    pub train: bool,
    /// The sampled configuration.
    pub cfg: u32,
    /// The image's label.
    pub label: u64,
}

/// The FSM's registers (power-up: LS_IDLE, all 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct FcFsm {
    state: FcState,
    fresh: bool,
    train: bool,
    cfg: u32,
    seed: u64,
    label: u64,
    got_label: bool,
}

const SEED_MASK: u64 = (1 << 17) - 1;

impl FcFsm {
    /// The combinational outputs and the next registers, from the registers and `i`.
    fn eval(&self, i: &FcFsmIn) -> (FcFsmOut, FcFsm) {
        let mut n = FcFsm {
            fresh: false,
            ..*self
        };
        let mut o = FcFsmOut {
            state: self.state,
            fresh: self.fresh,
            lc_seed: self.seed,
            train: self.train,
            cfg: self.cfg,
            label: self.label,
            ..Default::default()
        };
        let image = i.instr == instr::TRAIN || i.instr == instr::INF;
        let mut next = self.state;
        match self.state {
            FcState::Idle => {
                if i.instr == instr::INIT {
                    next = FcState::Init;
                } else if image {
                    next = FcState::Load;
                    (n.train, n.got_label) = (i.instr == instr::TRAIN, false);
                    (o.sq_start, o.sq_load) = (true, true);
                } else if i.instr == instr::READ {
                    (next, o.sq_start) = (FcState::Read, true);
                }
            }
            FcState::Init if self.fresh => {
                n.seed = i.seeds & SEED_MASK;
                o.lc_seed = n.seed;
                (o.lc_prog, o.wu_prog, o.sq_start) = (true, true, true);
            }
            FcState::Init | FcState::Load => {
                (o.ready, o.sq_stall, o.take) = (i.seq_active, !i.s_tvalid, i.seq_emit);
                if self.state == FcState::Load {
                    n.cfg = i.model_cfg;
                    if i.seq_emit && !self.got_label {
                        (n.label, n.got_label) = (i.s_tuser, true);
                    }
                }
                if i.seq_done && !i.wr_busy {
                    if self.state == FcState::Init {
                        next = FcState::Idle;
                    } else {
                        (next, o.sq_start, o.sq_gap) = (FcState::Inf, true, true);
                    }
                }
            }
            FcState::Inf => {
                o.lc_prog = self.fresh;
                o.sq_stall = i.seq_first && !i.credit;
                if i.lc_done {
                    next = if self.train {
                        FcState::Loss
                    } else {
                        FcState::Fin
                    };
                }
            }
            FcState::Loss => (o.lc_prog, next) = (true, FcState::Bk),
            FcState::Bk => {
                if i.bk_done {
                    (next, o.sq_start, o.sq_drain) = (FcState::Wu, true, WU_DRAIN);
                }
            }
            FcState::Wu => {
                if i.seq_done {
                    next = FcState::Fin;
                }
            }
            FcState::Fin => {
                if !image {
                    next = FcState::Idle;
                }
            }
            FcState::Read => {
                o.sq_stall = !i.credit;
                if i.seq_done && i.drained {
                    next = FcState::Idle;
                }
            }
        }
        if i.instr == instr::STOP {
            (next, o.sq_start, o.sq_cancel) = (FcState::Idle, false, true);
        }
        o.enter = next != self.state;
        (n.state, n.fresh) = (next, o.enter);
        if i.reset {
            (n.state, n.fresh, n.train, n.cfg, n.seed, n.label) =
                (FcState::Idle, false, false, 0, 0, 0);
        }
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &FcFsmIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &FcFsmIn) -> FcFsmOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: &mut FcFsm, i: &FcFsmIn) -> FcFsmOut {
        m.step(i);
        m.outputs(i)
    }

    /// TRAIN walks LOAD, INF, LOSS, BK, WU, FIN and back to IDLE, each phase ending on its
    /// own signal; the label is the first LOAD beat's, the configuration LOAD's.
    #[test]
    fn a_training_image_walks_every_phase() {
        let mut m = FcFsm::default();
        let t = FcFsmIn {
            instr: instr::TRAIN,
            credit: true,
            ..Default::default()
        };
        let o = m.outputs(&t);
        assert!(o.sq_start && o.sq_load && o.enter);
        let beat = FcFsmIn {
            s_tvalid: true,
            s_tuser: 7,
            model_cfg: 0x1234,
            seq_active: true,
            seq_emit: true,
            ..t
        };
        let o = run(&mut m, &t);
        assert_eq!((o.state, o.fresh), (FcState::Load, true));
        let o = m.outputs(&beat);
        assert!(o.ready && o.take);
        run(&mut m, &beat);
        let o = run(&mut m, &FcFsmIn { s_tuser: 3, ..beat });
        assert_eq!((o.label, o.cfg), (7, 0x1234), "the first beat's label");
        let o = run(
            &mut m,
            &FcFsmIn {
                seq_done: true,
                ..t
            },
        );
        assert_eq!(o.state, FcState::Inf);
        assert!(o.lc_prog && o.fresh);
        assert!(
            m.outputs(&FcFsmIn {
                seq_first: true,
                credit: false,
                ..t
            })
            .sq_stall,
            "no pass without room for its result"
        );
        let mut o = run(&mut m, &FcFsmIn { lc_done: true, ..t });
        for s in [FcState::Loss, FcState::Bk, FcState::Bk] {
            assert_eq!(o.state, s);
            o = run(&mut m, &t);
        }
        let o2 = m.outputs(&FcFsmIn { bk_done: true, ..t });
        assert_eq!((o2.sq_start, o2.sq_drain), (true, WU_DRAIN));
        let o = run(&mut m, &FcFsmIn { bk_done: true, ..t });
        assert_eq!(o.state, FcState::Wu);
        let o = run(
            &mut m,
            &FcFsmIn {
                seq_done: true,
                ..t
            },
        );
        assert_eq!(o.state, FcState::Fin);
        assert_eq!(run(&mut m, &t).state, FcState::Fin, "held while TRAIN");
        let o = run(&mut m, &FcFsmIn::default());
        assert_eq!(o.state, FcState::Idle);
        // I_STOP from any state: IDLE, the sequencer cancelled.
        run(
            &mut m,
            &FcFsmIn {
                instr: instr::READ,
                ..t
            },
        );
        let stop = FcFsmIn {
            instr: instr::STOP,
            ..t
        };
        assert!(m.outputs(&stop).sq_cancel);
        assert_eq!(run(&mut m, &stop).state, FcState::Idle);
    }

    /// INIT samples the seeds in its first cycle and programs both LFSRs then.
    #[test]
    fn init_samples_the_seeds_first() {
        let mut m = FcFsm::default();
        let i = FcFsmIn {
            instr: instr::INIT,
            seeds: (5 << 17) | 0x1_2345,
            ..Default::default()
        };
        let o = run(&mut m, &i);
        assert_eq!(
            (o.state, o.lc_seed),
            (FcState::Init, 0x1_2345),
            "the seeds as sampled"
        );
        assert!(o.fresh && o.lc_prog && o.wu_prog && o.sq_start);
        m.step(&i);
        let o = m.outputs(&FcFsmIn { seeds: 0, ..i });
        assert_eq!(
            (o.lc_seed, o.lc_prog),
            (0x1_2345, false),
            "kept after INIT's first cycle"
        );
    }
}
