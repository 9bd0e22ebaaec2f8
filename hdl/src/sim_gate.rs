//! SimGate: the clock of a block that the simulator may leave idle. In hardware (every
//! backend but edgelearn's in-process Verilator model) `gclock` is `clock`: a wire, no logic,
//! nothing for synthesis. In the in-process Verilator model (`EDGELEARN_SIM_CLOCKS` defined)
//! `gclock` is driven by the harness, which raises it together with `clock` except at the
//! edges where the block behind the gate cannot change: Verilator then skips that block's
//! sequential logic and every combinational statement that depends only on it
//! (docs/decisions.md D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the clock of the parent |
//! | `busy` | in | 1 | the block may change with its inputs held (an FSM away from idle, a stream beat waiting, an enable) |
//! | `w0`..`w3` | in | A, B, C, D | every input of the block behind the gate, in four words (each up to 64 bits keeps the model's comparison free of wide arithmetic; an unused word is one bit tied to 0) |
//! | `gclock` | out | 1 | the clock of the block behind the gate |
//!
//! The rule the simulation model applies (an edge is skipped only when the block is at a
//! fixed point): the block is clocked at the next edge when `busy` is high, when a watch word
//! differs from its value one cycle earlier, or when it changed at any of the last
//! [`SIM_GATE_HOLD`] edges. So a block is left alone only after its inputs have been constant
//! for that many cycles while it was not busy; its designer asserts (and the tests check, by
//! comparing gated with ungated runs cycle by cycle) that such a block no longer changes.
//! `sim_awake` (the decision) is computed from registers and from the watch words and `busy`,
//! so a design whose top-level inputs reach them combinationally is still gated correctly: the
//! harness evaluates poked inputs before it reads `sim_awake`.
//! Golden: a gate is a wire, so a gated run must equal the ungated one; the bench design
//! [`SimGateDemo`]'s model is `edgelearn_verif::golden::sim_gate`. Tests: `tests/sim_gate.rs`.

use rust_hdl::prelude::*;

/// Edges a gated block keeps its clock after its inputs last changed (the longest pipeline
/// or drain of a gated block while not busy must be shorter).
pub const SIM_GATE_HOLD: usize = 64;

/// The marker in the gate's Verilog by which [`sim_gates`] finds the instances.
const MARKER: &str = "// edgelearn:sim-gate";

/// The clock of a gated block: `clock` in hardware, the harness's in simulation.
///
/// The gated blocks are siblings of the gate (`drives` names them). Their parent connects
/// their clocks to `clock` as usual; the emitted Verilog then takes them from the gate
/// instead ([`patch_gate_clocks`]). rust-hdl's simulator keeps the direct
/// connection: there every assignment on the clock's path is one more settling round, so a
/// clock through the gate would reach the block's registers after the data they sample.
#[derive(Clone, Debug, LogicBlock)]
pub struct SimGate<const A: usize, const B: usize, const C: usize, const D: usize> {
    /// The parent's clock.
    pub clock: Signal<In, Clock>,
    /// The block may change with its inputs held.
    pub busy: Signal<In, Bit>,
    /// The block's inputs, first word.
    pub w0: Signal<In, Bits<A>>,
    /// Second word.
    pub w1: Signal<In, Bits<B>>,
    /// Third word.
    pub w2: Signal<In, Bits<C>>,
    /// Fourth word.
    pub w3: Signal<In, Bits<D>>,
    /// The block's clock (in the emitted Verilog).
    pub gclock: Signal<Out, Clock>,
    _drives: &'static [&'static str],
}

impl<const A: usize, const B: usize, const C: usize, const D: usize> SimGate<A, B, C, D> {
    /// The gate of the sibling blocks (fields) `drives`.
    pub fn new(drives: &'static [&'static str]) -> Self {
        assert!(
            A >= 1 && B >= 1 && C >= 1 && D >= 1,
            "SimGate<{A}, {B}, {C}, {D}>: each watch word has at least one bit"
        );
        Self {
            clock: Default::default(),
            busy: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            gclock: Default::default(),
            _drives: drives,
        }
    }
}

impl<const A: usize, const B: usize, const C: usize, const D: usize> Logic for SimGate<A, B, C, D> {
    fn update(&mut self) {
        // rust-hdl's simulator and every Verilog backend but the gated Verilator model.
        self.gclock.next = self.clock.val();
    }

    fn connect(&mut self) {
        self.gclock.connect();
    }

    fn hdl(&self) -> Verilog {
        let hold_bits = usize::BITS - SIM_GATE_HOLD.leading_zeros();
        Verilog::Custom(format!(
            "{MARKER} {drives}\n\
             `ifdef EDGELEARN_SIM_CLOCKS\n\
             // Simulation only: edgelearn's in-process Verilator harness drives sim_clock and\n\
             // raises it with `clock` when sim_awake is high (docs/decisions.md D-SIM-GATE).\n\
             wire sim_clock;\n\
             reg [{a1}:0] w0_q;\n\
             reg [{b1}:0] w1_q;\n\
             reg [{c1}:0] w2_q;\n\
             reg [{d1}:0] w3_q;\n\
             reg [{h1}:0] hold;\n\
             wire changed = (w0 != w0_q) | (w1 != w1_q) | (w2 != w2_q) | (w3 != w3_q);\n\
             wire sim_awake = busy | changed | (hold != {hold_bits}'d0);\n\
             always @(posedge clock) begin\n\
             \x20  w0_q <= w0;\n\
             \x20  w1_q <= w1;\n\
             \x20  w2_q <= w2;\n\
             \x20  w3_q <= w3;\n\
             \x20  hold <= changed ? {hold_bits}'d{hold} : (hold != {hold_bits}'d0 ? hold - {hold_bits}'d1 : {hold_bits}'d0);\n\
             end\n\
             always @(*) gclock = sim_clock;\n\
             `else\n\
             always @(*) gclock = clock;\n\
             `endif\n",
            drives = self._drives.join(" "),
            a1 = A - 1,
            b1 = B - 1,
            c1 = C - 1,
            d1 = D - 1,
            h1 = hold_bits - 1,
            hold = SIM_GATE_HOLD,
        ))
    }
}

/// A [`SimGate`] of a design: its instance path below the top module (`.`-separated) and
/// the sibling blocks whose clock it supplies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateSite {
    /// Instance path of the gate, e.g. `core.gate_conv`.
    pub path: String,
    /// The gated siblings, e.g. `conv`.
    pub drives: Vec<String>,
}

/// Every [`SimGate`] in `block`, in visiting order.
pub fn sim_gates<B: Block>(block: &B) -> Vec<GateSite> {
    struct Finder {
        path: Vec<String>,
        found: Vec<GateSite>,
    }
    impl Probe for Finder {
        fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
            self.path.push(name.to_string());
            if let Verilog::Custom(v) = node.hdl() {
                if let Some(rest) = v.strip_prefix(MARKER) {
                    let drives = rest
                        .lines()
                        .next()
                        .unwrap_or("")
                        .split_whitespace()
                        .map(str::to_string)
                        .collect();
                    // The first scope is the top module itself.
                    self.found.push(GateSite {
                        path: self.path[1..].join("."),
                        drives,
                    });
                }
            }
        }
        fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.path.pop();
        }
    }
    let mut f = Finder {
        path: Vec::new(),
        found: Vec::new(),
    };
    block.accept("top", &mut f);
    f.found
}

/// The emitted Verilog of a design with its gated blocks clocked by their gates: in the
/// module holding gate `g` that drives block `b`, rust-hdl's `b$clock = clock;` becomes
/// `b$clock = g$gclock;` (a register, `DFF`, is a block too). `Err` names a gate whose
/// block's clock assignment is not there.
pub fn patch_gate_clocks(top: &str, verilog: &str, gates: &[GateSite]) -> Result<String, String> {
    let mut out = verilog.to_string();
    // A design that is a gate itself drives nothing of its own.
    for g in gates.iter().filter(|g| !g.path.is_empty()) {
        let (parent, leaf) = match g.path.rsplit_once('.') {
            Some((p, l)) => (format!("{top}${}", p.replace('.', "$")), l.to_string()),
            None => (top.to_string(), g.path.clone()),
        };
        let head = format!("\nmodule {parent}(");
        let start = out
            .find(&head)
            .ok_or_else(|| format!("gate {}: no module {parent}", g.path))?;
        let end = out[start..]
            .find("\nendmodule")
            .map(|e| start + e)
            .ok_or_else(|| format!("gate {}: module {parent} has no end", g.path))?;
        let mut lines: Vec<String> = out[start..end].split('\n').map(String::from).collect();
        for d in &g.drives {
            // The statement, however rust-hdl indents it: exactly one line that is it.
            let from = format!("{d}$clock = clock;");
            let at: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].trim() == from)
                .collect();
            let [i] = at[..] else {
                return Err(format!(
                    "gate {}: module {parent} does not assign `{from}` once",
                    g.path
                ));
            };
            let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
            lines[i] = format!("{indent}{d}$clock = {leaf}$gclock;");
        }
        out.replace_range(start..end, &lines.join("\n"));
    }
    Ok(out)
}

/// The gate's bench design (`tests/sim_gate.rs`): a 16-bit counter that counts while `en` is
/// high and a 4-word RAM whose word 0 is on `word`, both behind one gate that watches `en`.
/// Built `honest`, the gate is busy while `en` is high (the counter moves with its input
/// held); built dishonest, it is never busy, so the gated model stops counting once `en` has
/// been steady for [`SIM_GATE_HOLD`] edges and a run differs from the ungated one, which is
/// what the gates' tests must notice. The RAM shows a backdoor write only when clocked.
#[derive(Clone, Debug, LogicBlock)]
pub struct SimGateDemo {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Count.
    pub en: Signal<In, Bit>,
    /// The counter.
    pub count: Signal<Out, Bits<16>>,
    /// Word 0 of the RAM (registered read).
    pub word: Signal<Out, Bits<8>>,
    gate: SimGate<1, 1, 1, 1>,
    cnt: DFF<Bits<16>>,
    ram: crate::mem::sdp_ram::SdpRam<2, 8>,
    honest_bit: Constant<Bit>,
}

impl SimGateDemo {
    /// The demo with an honest (`true`) or a dishonest gate.
    pub fn new(honest: bool) -> Self {
        Self {
            clock: Default::default(),
            en: Default::default(),
            count: Default::default(),
            word: Default::default(),
            gate: SimGate::new(&["cnt", "ram"]),
            cnt: Default::default(),
            ram: crate::mem::sdp_ram::SdpRam::new(4),
            honest_bit: Constant::new(honest),
        }
    }
}

impl Logic for SimGateDemo {
    #[hdl_gen]
    fn update(&mut self) {
        self.gate.clock.next = self.clock.val();
        self.cnt.clock.next = self.clock.val();
        self.ram.clock.next = self.clock.val();
        self.cnt.d.next = self.cnt.q.val();
        if self.en.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
        }
        self.ram.write_enable.next = false;
        self.ram.write_address.next = 0.into();
        self.ram.write_data.next = 0.into();
        self.ram.read_address.next = 0.into();
        self.gate.busy.next = self.en.val() & self.honest_bit.val();
        self.gate.w0.next = self.en.val().into();
        self.gate.w1.next = false.into();
        self.gate.w2.next = false.into();
        self.gate.w3.next = false.into();
        self.count.next = self.cnt.q.val();
        self.word.next = self.ram.read_data.val();
    }
}

crate::dut_io! {
    impl[] SimGateDemo {
        clock: yes,
        inputs: [en],
        outputs: [count, word],
        notes: [],
        memories: [ram],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_gate_is_synthesizable() {
        crate::synth_check::assert_synthesizable(
            "sim_gate",
            SimGate::<8, 2, 1, 1>::new(&["block"]),
        );
        crate::synth_check::assert_synthesizable("sim_gate_demo", SimGateDemo::new(true));
    }

    #[test]
    fn the_gated_blocks_take_the_gates_clock_in_the_emitted_verilog() {
        let mut d = SimGateDemo::new(true);
        d.connect_all();
        let v = crate::design::verilog_named("demo", &d).unwrap();
        assert!(v.contains("\n        cnt$clock = gate$gclock;\n"), "{v}");
        assert!(v.contains("\n        ram$clock = gate$gclock;\n"), "{v}");
        assert!(v.contains("\n        gate$clock = clock;\n"), "{v}");
        let sites = sim_gates(&d);
        assert_eq!(
            sites,
            vec![GateSite {
                path: "gate".into(),
                drives: vec!["cnt".into(), "ram".into()]
            }]
        );
        // A gate naming a block its parent does not clock is an error, not a silent no-op.
        let wrong = vec![GateSite {
            path: "gate".into(),
            drives: vec!["nothing".into()],
        }];
        let e = patch_gate_clocks("demo", &v, &wrong).unwrap_err();
        assert!(e.contains("nothing$clock"), "{e}");
    }
}
