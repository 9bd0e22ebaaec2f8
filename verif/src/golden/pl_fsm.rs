//! The platform's `PL_*` FSM (hdl `lel::pl_fsm::PlFsm`): what each core is told and where
//! the input stream goes, from CTRL's instructions, the cores' states, the FIFOs' levels and
//! the classifications. Cycle model in the trace convention (docs/decisions.md D-CYCLE):
//! [`PlFsm::step`] is the edge, [`PlFsm::outputs`] what is sampled after it.

use edgelearn_hdl::lel::conv_core::ConvState;
use edgelearn_hdl::lel::fc_core::FcState;
use edgelearn_hdl::lel::instr;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlFsmIn {
    /// Synchronous reset.
    pub reset: bool,
    /// CTRL is written.
    pub ctrl: bool,
    /// Its INSTR field (3 bits).
    pub instr: u64,
    /// Images of a training run.
    pub n_train: u32,
    /// Images of an inference run.
    pub n_test: u32,
    /// The cores' state codes (4 bits).
    pub conv_state: u64,
    /// See `conv_state`.
    pub fc0_state: u64,
    /// See `conv_state`.
    pub fc1_state: u64,
    /// Beats in the input FIFO.
    pub in_count: u16,
    /// Beats in the conv -> FC0 FIFO.
    pub mid_count: u16,
    /// Whole packets in the conv -> FC0 FIFO.
    pub mid_packets: u16,
    /// Whole packets in the FC0 -> FC1 FIFO.
    pub out_packets: u16,
    /// The FC cores' classifications this run.
    pub results0: u32,
    /// See `results0`.
    pub results1: u32,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlFsmOut {
    /// The state's code (PL_IDLE 0 .. PL_READ 4).
    pub code: u64,
    /// The FIFOs are held empty.
    pub flushing: bool,
    /// The cores' instructions.
    pub ins: [u64; 3],
    /// The input stream goes to the conv core, FC0, FC1.
    pub to: [bool; 3],
    /// FC0's, FC1's output goes to `m_*`.
    pub rd: [bool; 2],
    /// FC0, FC1 start an image.
    pub start_fc: [bool; 2],
    /// A run starts.
    pub run_start: bool,
    /// Cycles of the run.
    pub run_cycles: u32,
    /// Images the conv core, FC0, FC1 started.
    pub started: [u32; 3],
}

/// The FSM's registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlFsm {
    /// The state's code.
    code: u64,
    phase: bool,
    sent: bool,
    flush: u8,
    stop_q: bool,
    n_run: u32,
    cycles: u32,
    started: [u32; 3],
    image_beats: u16,
    conv_room: u16,
    flush_cycles: u8,
}

const IDLE: u64 = 0;
const INIT: u64 = 1;
const TRAIN: u64 = 2;
const INF: u64 = 3;
const READ: u64 = 4;

impl PlFsm {
    /// The FSM of [`edgelearn_hdl::lel::pl_fsm::PlFsm::new`] (power-up: PL_IDLE, all 0).
    pub fn new(image_beats: u16, conv_room: u16, flush_cycles: u8) -> Self {
        PlFsm {
            image_beats,
            conv_room,
            flush_cycles,
            ..Default::default()
        }
    }

    /// The combinational outputs and the next state, from the registers and `i`.
    fn eval(&self, i: &PlFsmIn) -> (PlFsmOut, PlFsm) {
        let (s_idle, s_fin_fc, s_fin_conv) = (
            FcState::Idle.code(),
            FcState::Fin.code(),
            ConvState::Fin.code(),
        );
        let mut n = *self;
        let mut o = PlFsmOut {
            ins: [instr::IDLE; 3],
            ..Default::default()
        };
        let cmd = if self.code == INF {
            instr::INF
        } else {
            instr::TRAIN
        };
        let fc_state = [i.fc0_state, i.fc1_state];
        match self.code {
            IDLE => {
                if i.ctrl && self.flush == 0 {
                    if i.instr == instr::INIT || i.instr == instr::READ {
                        n.code = if i.instr == instr::INIT { INIT } else { READ };
                        (n.phase, n.sent) = (false, false);
                    }
                    if i.instr == instr::TRAIN || i.instr == instr::INF {
                        (n.code, n.n_run) = match i.instr == instr::INF {
                            true => (INF, i.n_test),
                            false => (TRAIN, i.n_train),
                        };
                        o.run_start = true;
                        (n.cycles, n.started) = (0, [0; 3]);
                    }
                }
            }
            INIT | READ => {
                // FC0 (phase 0), then FC1: the instruction until the core leaves LS_IDLE.
                let k = self.phase as usize;
                match self.code == INIT {
                    true => o.to[1 + k] = true,
                    false => o.rd[k] = true,
                }
                if !self.sent {
                    o.ins[1 + k] = if self.code == INIT {
                        instr::INIT
                    } else {
                        instr::READ
                    };
                    if fc_state[k] != s_idle {
                        n.sent = true;
                    }
                } else if fc_state[k] == s_idle {
                    match k {
                        0 => (n.phase, n.sent) = (true, false),
                        _ => n.code = IDLE,
                    }
                }
            }
            _ => {
                o.to[0] = true;
                n.cycles = self.cycles.wrapping_add(1);
                let states = [i.conv_state, i.fc0_state, i.fc1_state];
                let fins = [s_fin_conv, s_fin_fc, s_fin_fc];
                let ready = [
                    i.in_count >= self.image_beats && i.mid_count <= self.conv_room,
                    i.mid_packets != 0,
                    i.out_packets != 0,
                ];
                for c in 0..3 {
                    let go = states[c] == s_idle && self.started[c] != self.n_run && ready[c];
                    if (states[c] != s_idle && states[c] != fins[c]) || go {
                        o.ins[c] = cmd;
                    }
                    if go {
                        n.started[c] = self.started[c].wrapping_add(1);
                        if c > 0 {
                            o.start_fc[c - 1] = true;
                        }
                    }
                }
                if self.started.iter().all(|&k| k == self.n_run)
                    && i.results0 == self.n_run
                    && i.results1 == self.n_run
                    && states.iter().all(|&s| s == s_idle)
                {
                    n.code = IDLE;
                }
            }
        }
        n.stop_q = false;
        if i.ctrl && i.instr == instr::STOP {
            (n.code, n.stop_q, n.flush) = (IDLE, true, self.flush_cycles);
        } else if self.flush != 0 {
            n.flush = self.flush - 1;
        }
        if self.stop_q {
            o.ins = [instr::STOP; 3];
        }
        if i.reset {
            (n.code, n.phase, n.sent, n.flush, n.stop_q) = (IDLE, false, false, 0, false);
            (n.n_run, n.cycles, n.started) = (0, 0, [0; 3]);
        }
        o.code = self.code;
        o.flushing = self.flush != 0;
        o.run_cycles = self.cycles;
        o.started = self.started;
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &PlFsmIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the state (the registers as they are) with the inputs `i` applied.
    pub fn outputs(&self, i: &PlFsmIn) -> PlFsmOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A training run of one image: CTRL's I_TRAIN starts it; each core is told I_TRAIN
    /// when its input is whole; PL_IDLE follows once all ran it and both classified it.
    /// I_STOP stops every core for a cycle and flushes.
    #[test]
    fn a_run_starts_each_core_once_its_input_is_whole_then_ends() {
        let mut m = PlFsm::new(12, 40, 3);
        let base = PlFsmIn {
            n_train: 1,
            ..Default::default()
        };
        let i = PlFsmIn {
            ctrl: true,
            instr: instr::TRAIN,
            ..base
        };
        assert!(m.outputs(&i).run_start);
        m.step(&i);
        assert_eq!(m.outputs(&base).code, TRAIN);
        // Nothing whole yet: nobody starts.
        assert_eq!(m.outputs(&base).ins, [instr::IDLE; 3]);
        let whole = PlFsmIn {
            in_count: 12,
            mid_packets: 1,
            out_packets: 1,
            ..base
        };
        let o = m.outputs(&whole);
        assert_eq!(o.ins, [instr::TRAIN; 3]);
        assert_eq!(o.start_fc, [true, true]);
        m.step(&whole);
        assert_eq!(m.outputs(&base).started, [1, 1, 1]);
        // Every image started: the next whole input is not taken.
        assert_eq!(m.outputs(&whole).ins, [instr::IDLE; 3]);
        m.step(&PlFsmIn {
            results0: 1,
            ..base
        });
        assert_eq!(m.outputs(&base).code, TRAIN, "FC1 has not classified it");
        m.step(&PlFsmIn {
            results0: 1,
            results1: 1,
            ..base
        });
        assert_eq!(m.outputs(&base).code, IDLE);
        // I_STOP: IDLE, every core I_STOP for a cycle, three cycles of flush.
        m.step(&PlFsmIn {
            ctrl: true,
            instr: instr::STOP,
            ..base
        });
        let o = m.outputs(&base);
        assert_eq!((o.ins, o.flushing), ([instr::STOP; 3], true));
        for _ in 0..3 {
            m.step(&base);
        }
        assert!(!m.outputs(&base).flushing);
    }
}
