//! Lfsr: the unfolded 17-bit LFSR of the weight update and the local classifier weights
//! (thesis §4.1.7, T:1056-1087; spec lel-platform.md §3.7 and §7-15).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: state <- 1, `out` <- 0 |
//! | `seed` | in | 17 | seed, loaded by `prog` (0 is illegal and loads 1) |
//! | `prog` | in | 1 | load `seed` at this edge (priority over `instr`) |
//! | `instr` | in | 1 | step: present the next W bits on `out` at this edge (thesis `en`) |
//! | `out` | out | W (14L, or 60) | the next W bits of the serial LFSR, bit 0 the earliest |
//!
//! Convention (docs/decisions.md D-LFSR): the serial sequence obeys
//! `y[t+17] = y[t+3] xor y[t]` (characteristic polynomial x^17 + x^3 + 1, primitive,
//! period 131,071). The state holds `y[t..t+16]` with `y[t]` in bit 0; `seed` bit i is
//! `y[i]`. Each `instr` edge sets `out[b] = y[t+b]` for b in 0..W and advances t by W; the
//! serial equivalent is a Fibonacci register that emits bit 0, shifts right and inserts
//! `s[0] ^ s[3]` at bit 16. The unfolded network is the W-th power of the step matrix,
//! computed at construction as one parity row per output bit. `out` holds between steps.
//! Latency 1 cycle; throughput W bits per cycle.
//! Golden: `edgelearn_verif::golden::lfsr`. Tests: `tests/lfsr.rs`.

use rust_hdl::prelude::*;

/// Width of the LFSR state.
pub const LFSR_BITS: usize = 17;
/// Recurrence taps: `y[t+17] = y[t+TAP] xor y[t]`.
pub const LFSR_TAP: usize = 3;
/// The widest step: 64 lanes of 14 random bits.
pub const LFSR_MAX_OUT: usize = 64 * 14;

/// Unfolded 17-bit LFSR emitting W bits per step.
#[derive(Clone, Debug, LogicBlock)]
pub struct Lfsr<const W: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Seed: bit i is `y[i]`.
    pub seed: Signal<In, Bits<17>>,
    /// Load the seed.
    pub prog: Signal<In, Bit>,
    /// Step W bits.
    pub instr: Signal<In, Bit>,
    /// The W bits of the last step, bit 0 earliest.
    pub out: Signal<Out, Bits<W>>,
    state: DFF<Bits<17>>,
    out_q: DFF<Bits<W>>,
    step: LfsrStep<W>,
    one: Constant<Bits<17>>,
}

/// The unfolded XOR network of [`Lfsr`]: the state and output W steps on. A block of its
/// own, so that its logic reads nothing but the LFSR's state register (a simulator clocking
/// the LFSR's block only when it can change then skips it: docs/decisions.md D-SIM-GATE).
/// Its Verilog is written by hand, an XOR of one masked column per state bit
/// (`{W{state[j]}} & column`): rust-hdl's conditional XOR compiles to seventeen
/// data-dependent branches, which a simulator mispredicts on random state bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct LfsrStep<const W: usize> {
    /// The state.
    pub state: Signal<In, Bits<17>>,
    /// The state W steps on.
    pub next_state: Signal<Out, Bits<17>>,
    /// The W bits those steps emit.
    pub next_out: Signal<Out, Bits<W>>,
    _rows: Vec<u32>,
}

impl<const W: usize> LfsrStep<W> {
    fn new() -> Self {
        Self {
            state: Default::default(),
            next_state: Default::default(),
            next_out: Default::default(),
            _rows: lfsr_unfolded_rows(W + LFSR_BITS),
        }
    }
}

impl<const W: usize> Logic for LfsrStep<W> {
    fn update(&mut self) {
        let s = self.state.val().index() as u32;
        let bit = |k: usize| (s & self._rows[k]).count_ones() & 1 == 1;
        // Bits above 64 (more than four lanes) one at a time; the rest as one word.
        let word = |lo: usize, n: usize| -> u64 {
            (0..n.min(64)).map(|b| (bit(lo + b) as u64) << b).sum()
        };
        let mut out = Bits::<W>::from(word(0, W));
        for b in 64..W {
            out = out.replace_bit(b, bit(b));
        }
        self.next_out.next = out;
        self.next_state.next = Bits::<17>::from(word(W, LFSR_BITS));
    }

    fn connect(&mut self) {
        self.next_state.connect();
        self.next_out.connect();
    }

    fn hdl(&self) -> Verilog {
        // Column j: the output (next-state) bits state bit j feeds, masked by that bit, as
        // hex digits (most significant first; W may be wider than a machine word).
        let col = |j: usize, lo: usize, n: usize| -> String {
            let digits: String = (0..n.div_ceil(4))
                .rev()
                .map(|d| {
                    let v = (0..4)
                        .filter(|&k| 4 * d + k < n && self._rows[lo + 4 * d + k] >> j & 1 == 1)
                        .map(|k| 1u32 << k)
                        .sum::<u32>();
                    char::from_digit(v, 16).expect("a hex digit")
                })
                .collect();
            let digits = digits.trim_start_matches('0');
            if digits.is_empty() {
                "0".to_string()
            } else {
                digits.to_string()
            }
        };
        let terms = |lo: usize, n: usize| -> String {
            (0..LFSR_BITS)
                .map(|j| format!("({{{n}{{state[{j}]}}}} & {n}'h{})", col(j, lo, n)))
                .collect::<Vec<_>>()
                .join("\n      ^ ")
        };
        Verilog::Custom(format!(
            "always @(*) begin\n   next_out = {};\n   next_state = {};\nend\n",
            terms(0, W),
            terms(W, LFSR_BITS)
        ))
    }
}

/// Linear form of `y[t+k]` over the state bits `y[t..t+16]`, for k in 0..n: bit j of the
/// returned word is set when `y[t+j]` contributes.
pub fn lfsr_unfolded_rows(n: usize) -> Vec<u32> {
    let mut rows: Vec<u32> = Vec::with_capacity(n.max(LFSR_BITS));
    for k in 0..n.max(LFSR_BITS) {
        rows.push(if k < LFSR_BITS {
            1 << k
        } else {
            rows[k - LFSR_BITS] ^ rows[k - LFSR_BITS + LFSR_TAP]
        });
    }
    rows.truncate(n);
    rows
}

impl<const W: usize> Default for Lfsr<W> {
    fn default() -> Self {
        assert!(
            (1..=LFSR_MAX_OUT).contains(&W),
            "Lfsr<{W}>: W must be in 1..={LFSR_MAX_OUT}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            seed: Default::default(),
            prog: Default::default(),
            instr: Default::default(),
            out: Default::default(),
            state: Default::default(),
            out_q: Default::default(),
            step: LfsrStep::new(),
            one: Constant::new(Bits::<17>::from(1u64)),
        }
    }
}

impl<const W: usize> Logic for Lfsr<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, out_q);
        self.step.state.next = self.state.q.val();
        if self.reset.val() {
            self.state.d.next = self.one.val();
            self.out_q.d.next = 0.into();
        } else if self.prog.val() {
            self.state.d.next = self.seed.val();
            if !self.seed.val().any() {
                self.state.d.next = self.one.val();
            }
        } else if self.instr.val() {
            self.state.d.next = self.step.next_state.val();
            self.out_q.d.next = self.step.next_out.val();
        }
        self.out.next = self.out_q.q.val();
    }
}

crate::dut_io! {
    impl[const W: usize] Lfsr<W> {
        clock: yes,
        inputs: [reset, seed, prog, instr],
        outputs: [out],
        notes: [],
    }
}
