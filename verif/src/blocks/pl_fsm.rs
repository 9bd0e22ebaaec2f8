//! `lel_pl_fsm`: the platform's FSM as the platform drives it (INIT of both FC cores, a
//! training run and an inference run of a few images with cores and FIFOs that answer as
//! the platform's do, I_STOP in the middle of a run and its flush, READ), random traffic
//! (CTRL writes of every instruction, random core states, levels and counts, rare resets),
//! and the golden trace.

use super::{blank, out_row, port_row, OutRow, PortRow, View};
use crate::golden::pl_fsm::{PlFsm, PlFsmIn, PlFsmOut};
use crate::rtl::designs::name::LEL_PL_FSM;
use edgelearn_hdl::lel::conv_core::ConvState;
use edgelearn_hdl::lel::fc_core::FcState;
use edgelearn_hdl::lel::instr;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(PlFsmOut => code, flushing, run_start, run_cycles);

/// The registered block's image (input beats), conv room and flush.
pub const SHAPE: (u16, u16, u8) = (12, 40, 6);

port_row!(PlFsmIn => reset, ctrl, instr, n_train, n_test, conv_state, fc0_state, fc1_state, in_count, mid_count, mid_packets, out_packets, results0, results1);

/// A core as the FSM sees it: idle; told an instruction, busy for `work` cycles; then in
/// its FIN state until the instruction is withdrawn (INIT and READ go straight back).
#[derive(Clone, Copy)]
struct Core {
    code: u64,
    fin: u64,
    left: u32,
    work: u32,
}

impl Core {
    fn step(&mut self, ins: u64) -> bool {
        let busy = 5; // any state but IDLE and FIN
        let mut finished = false;
        if ins == instr::STOP {
            self.code = 0;
        } else if self.code == 0 && ins != instr::IDLE {
            (self.code, self.left) = (busy, self.work);
        } else if self.code == busy {
            self.left = self.left.saturating_sub(1);
            if self.left == 0 {
                finished = true;
                let image = ins == instr::TRAIN || ins == instr::INF;
                self.code = if image { self.fin } else { 0 };
            }
        } else if self.code == self.fin && ins != instr::TRAIN && ins != instr::INF {
            self.code = 0;
        }
        finished
    }
}

/// The FSM with cores and FIFOs that answer as the platform's: INIT, TRAIN of 3 images,
/// INF of 2, a TRAIN stopped in its middle (I_STOP, the flush), READ.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_PL_FSM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (beats, room, flush) = SHAPE;
    let mut m = PlFsm::new(beats, room, flush);
    let (fin_fc, fin_conv) = (FcState::Fin.code(), ConvState::Fin.code());
    let mut cores = [
        Core {
            code: 0,
            fin: fin_conv,
            left: 0,
            work: 9,
        },
        Core {
            code: 0,
            fin: fin_fc,
            left: 0,
            work: 14,
        },
        Core {
            code: 0,
            fin: fin_fc,
            left: 0,
            work: 11,
        },
    ];
    let mut i = PlFsmIn {
        n_train: 3,
        n_test: 2,
        in_count: beats,
        ..Default::default()
    };
    let step = |s: &mut Stimulus, i: &mut PlFsmIn, m: &mut PlFsm, cores: &mut [Core; 3]| {
        i.push(s)?;
        let o = m.outputs(i);
        m.step(i);
        if o.run_start {
            (i.results0, i.results1) = (0, 0);
        }
        let done: Vec<bool> = (0..3).map(|c| cores[c].step(o.ins[c])).collect();
        // The conv core's image enters the mid FIFO as a packet, FC0's the out FIFO; the FC
        // cores take theirs when they start and classify at their end.
        i.mid_packets += done[0] as u16;
        i.mid_packets -= o.start_fc[0] as u16;
        i.out_packets += (done[1] && o.to[0]) as u16;
        i.out_packets -= o.start_fc[1] as u16;
        i.results0 += (done[1] && o.to[0]) as u32;
        i.results1 += (done[2] && o.to[0]) as u32;
        i.mid_count = 10 * i.mid_packets;
        i.conv_state = cores[0].code;
        i.fc0_state = cores[1].code;
        i.fc1_state = cores[2].code;
        i.ctrl = false;
        Ok::<_, edgelearn_sim::Error>(o.code)
    };
    i.reset = true;
    step(&mut s, &mut i, &mut m, &mut cores)?;
    i.reset = false;
    for (ins, cycles) in [
        (instr::INIT, 80),
        (instr::TRAIN, 160),
        (instr::INF, 120),
        (instr::TRAIN, 25),
        (instr::STOP, 20),
        (instr::READ, 80),
    ] {
        i.ctrl = true;
        i.instr = ins;
        for _ in 0..cycles + rng.random_range(0..3) {
            step(&mut s, &mut i, &mut m, &mut cores)?;
        }
    }
    Ok(s)
}

/// Random traffic: CTRL written on about one cycle in twelve with any instruction, the
/// cores' states among IDLE, FIN and busy, small run lengths and result counts (so runs
/// end), random levels, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_PL_FSM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let fc = [0, 0, 3, FcState::Fin.code()];
    let conv = [0, 0, 2, ConvState::Fin.code()];
    PlFsmIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        let i = PlFsmIn {
            reset: rng.random_range(0..400) == 0,
            ctrl: rng.random_range(0..12) == 0,
            instr: rng.random_range(0..8),
            n_train: rng.random_range(0..3),
            n_test: rng.random_range(0..3),
            conv_state: conv[rng.random_range(0..4)],
            fc0_state: fc[rng.random_range(0..4)],
            fc1_state: fc[rng.random_range(0..4)],
            in_count: rng.random_range(0..2 * SHAPE.0),
            mid_count: rng.random_range(0..2 * SHAPE.1),
            mid_packets: rng.random_range(0..3),
            out_packets: rng.random_range(0..3),
            results0: rng.random_range(0..3),
            results1: rng.random_range(0..3),
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let (beats, room, flush) = SHAPE;
    let mut m = PlFsm::new(beats, room, flush);
    for c in 0..stim.len() {
        let i = PlFsmIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        let b = |x: bool| BigUint::from(x as u8);
        o.set_row(&mut e, c);
        for (k, p) in ["ins_conv", "ins_fc0", "ins_fc1"].iter().enumerate() {
            e.set(c, p, BigUint::from(o.ins[k]));
        }
        for (k, p) in ["to_conv", "to_fc0", "to_fc1"].iter().enumerate() {
            e.set(c, p, b(o.to[k]));
        }
        e.set(c, "rd_fc0", b(o.rd[0]));
        e.set(c, "rd_fc1", b(o.rd[1]));
        e.set(c, "start_fc0", b(o.start_fc[0]));
        e.set(c, "start_fc1", b(o.start_fc[1]));
        for (k, p) in ["conv_n", "fc0_n", "fc1_n"].iter().enumerate() {
            e.set(c, p, BigUint::from(o.started[k]));
        }
    }
    e
}
