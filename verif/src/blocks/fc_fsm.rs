//! `lel_fc_fsm`: the FC core's FSM as the core drives it (INIT, a trained image, an inferred
//! image, READ, I_STOP in the middle of a training image, with a word sequencer, a stream
//! and phases that answer as the core's do), random traffic (every instruction, random
//! handshakes and phase ends, rare resets), and the golden trace.

use super::{blank, out_row, port_row, OutRow, PortRow, View};
use crate::golden::fc_fsm::{FcFsm, FcFsmIn, FcFsmOut};
use crate::rtl::designs::name::LEL_FC_FSM;
use edgelearn_hdl::lel::fc_fsm::FcState;
use edgelearn_hdl::lel::instr;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(FcFsmOut =>
    fresh, enter, ready, take, sq_start, sq_cancel, sq_stall, sq_gap, sq_load, sq_drain, lc_seed,
    lc_prog, wu_prog, train, cfg, label);

port_row!(FcFsmIn => reset, instr, s_tvalid, s_tuser, model_cfg, seeds, seq_active, seq_emit, seq_first, seq_done, wr_busy, credit, lc_done, bk_done, drained);

/// What the core around the FSM does: a word sequencer (a sequence's words, `pass` words a
/// pass, one a cycle unless stalled), the write register, and each phase's end some cycles
/// after its words.
#[derive(Default)]
struct Core {
    left: usize,
    pass: usize,
    index: usize,
    active: bool,
    done: bool,
    wr: bool,
    wait: usize,
}

impl Core {
    fn drive(&self, i: &mut FcFsmIn, state: FcState) {
        i.seq_active = self.active;
        i.seq_first = self.active && self.index.is_multiple_of(self.pass);
        i.seq_done = self.done;
        i.wr_busy = self.wr;
        i.lc_done = state == FcState::Inf && self.done && self.wait == 0;
        i.bk_done = state == FcState::Bk && self.wait == 0;
        i.drained = self.wait == 0;
    }

    /// The edge: the FSM's outputs `o` before it.
    fn step(&mut self, o: &FcFsmOut) {
        self.wr = o.take;
        self.wait = self.wait.saturating_sub(1);
        if o.sq_cancel {
            (self.active, self.done) = (false, false);
        } else if o.sq_start {
            // Words and pass length of the sequence each state starts (the FSM's state is
            // the one before the edge).
            (self.left, self.pass) = match (o.state, o.sq_load) {
                (_, true) => (6, 6),
                (FcState::Init, _) => (8, 8),
                (FcState::Load, _) => (12, 3),
                (FcState::Bk, _) => (10, 5),
                _ => (8, 8),
            };
            (self.active, self.done, self.index, self.wait) = (true, false, 0, 3);
        } else if self.active && !o.sq_stall {
            (self.left, self.index) = (self.left - 1, self.index + 1);
            if self.left == 0 {
                (self.active, self.done, self.wait) = (false, true, 4);
            }
        }
        if o.enter && !o.sq_start {
            self.wait = 5;
        }
    }
}

/// INIT, TRAIN of an image, INF of an image, READ, and a TRAIN stopped by I_STOP in LOAD;
/// each instruction given as the platform does (until the core leaves LS_IDLE; TRAIN and
/// INF until LS_FIN), beats offered on about three cycles in four.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_FC_FSM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut m = FcFsm::default();
    let mut core = Core::default();
    let mut i = FcFsmIn {
        reset: true,
        seeds: 0x2_a5a5_1234,
        model_cfg: 0x5a48,
        ..Default::default()
    };
    i.push(&mut s)?;
    m.step(&i);
    i.reset = false;
    for (want, stop_after) in [
        (instr::INIT, None),
        (instr::TRAIN, None),
        (instr::INF, None),
        (instr::READ, None),
        (instr::TRAIN, Some(4)),
    ] {
        let mut sent = false;
        for cycle in 0..400 {
            let state = m.outputs(&i).state;
            sent |= state != FcState::Idle;
            let image = want == instr::TRAIN || want == instr::INF;
            i.instr = match (sent, image) {
                (false, _) => want,
                (true, true) if state != FcState::Fin && state != FcState::Idle => want,
                _ => instr::IDLE,
            };
            if stop_after == Some(cycle) {
                i.instr = instr::STOP;
            }
            i.s_tvalid = rng.random_range(0..4) != 0;
            i.s_tuser = rng.random_range(0..10);
            i.credit = rng.random_range(0..5) != 0;
            i.seq_emit = false;
            core.drive(&mut i, state);
            let o = m.outputs(&i);
            i.seq_emit = core.active && !o.sq_stall;
            i.push(&mut s)?;
            let o = m.outputs(&i);
            m.step(&i);
            core.step(&o);
            if sent && state == FcState::Idle && cycle > 2 {
                break;
            }
        }
    }
    Ok(s)
}

/// Random traffic: any instruction (IDLE most often), random handshakes, sequencer status
/// and phase ends, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_FC_FSM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    FcFsmIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        let i = FcFsmIn {
            reset: rng.random_range(0..300) == 0,
            instr: match rng.random_range(0..10) {
                0..=5 => instr::IDLE,
                _ => rng.random_range(0..8),
            },
            s_tvalid: rng.random(),
            s_tuser: rng.random_range(0..16),
            model_cfg: rng.random(),
            seeds: rng.random_range(0..1 << 34),
            seq_active: rng.random(),
            seq_emit: rng.random(),
            seq_first: rng.random(),
            seq_done: rng.random_range(0..4) == 0,
            wr_busy: rng.random(),
            credit: rng.random(),
            lc_done: rng.random_range(0..6) == 0,
            bk_done: rng.random_range(0..6) == 0,
            drained: rng.random(),
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = FcFsm::default();
    for c in 0..stim.len() {
        let i = FcFsmIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        let b = |x: bool| BigUint::from(x as u8);
        e.set(c, "code", BigUint::from(o.state.code()));
        for (p, st) in [
            ("init", FcState::Init),
            ("load", FcState::Load),
            ("inf", FcState::Inf),
            ("loss", FcState::Loss),
            ("bk", FcState::Bk),
            ("wu", FcState::Wu),
            ("fin", FcState::Fin),
            ("read", FcState::Read),
        ] {
            e.set(c, p, b(o.state == st));
        }
        o.set_row(&mut e, c);
    }
    e
}
