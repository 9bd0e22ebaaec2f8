//! FSM coverage: the generated top's monitors (`// el-fsm` lines, written by
//! `sim::dut::verilator`) read back into states and transitions reached, missed and
//! undeclared.

use super::{Build, Tally};
use serde::Serialize;
use std::collections::BTreeMap;

/// An FSM's monitor in the generated top, as its `// el-fsm` comments give it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fsm {
    /// The register (`core.fc0.fc.fsm.state`).
    pub name: String,
    /// Its enum (`FcState`).
    pub kind: String,
    /// State names by encoding.
    pub states: Vec<String>,
    /// The declared transitions by encoding; `None` for an enum without a declared FSM.
    pub arcs: Option<Vec<(usize, usize)>>,
    /// Hits per state.
    pub state_hits: Vec<u64>,
    /// Hits per change of state (from, to), every pair.
    pub changes: BTreeMap<(usize, usize), u64>,
    /// Edges with a code no state has.
    pub bad_states: u64,
}

/// What an `// el-fsm` line of the generated top counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    State(usize, usize),
    Arc(usize, usize, usize),
    BadState(usize),
    BadArc(usize),
}

/// The FSMs a generated top monitors and what each of its marked lines counts.
pub(super) fn fsm_markers(top: &str) -> (Vec<Fsm>, BTreeMap<usize, Marker>) {
    let mut fsms = Vec::new();
    let mut lines = BTreeMap::new();
    for (i, line) in top.lines().enumerate() {
        let Some((_, m)) = line.split_once("// el-fsm ") else {
            continue;
        };
        let w: Vec<&str> = m.split_whitespace().collect();
        let num = |k: usize| w.get(k).and_then(|x| x.parse::<usize>().ok());
        let Some(f) = num(0) else { continue };
        let marker = match w.get(1).copied() {
            Some("state") => num(2).map(|k| Marker::State(f, k)),
            Some("arc") => num(2).zip(num(3)).map(|(a, b)| Marker::Arc(f, a, b)),
            Some("badstate") => Some(Marker::BadState(f)),
            Some("badarc") => Some(Marker::BadArc(f)),
            _ => {
                // The header: name=.. kind=.. states=a,b arcs=0-1,1-0|none
                let field = |key: &str| {
                    w.iter()
                        .find_map(|x| x.strip_prefix(key))
                        .unwrap_or("")
                        .to_string()
                };
                let states: Vec<String> = field("states=")
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                let arcs = field("arcs=");
                let arcs = (arcs != "none").then(|| {
                    arcs.split(',')
                        .filter_map(|a| a.split_once('-'))
                        .filter_map(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
                        .collect()
                });
                if fsms.len() == f {
                    fsms.push(Fsm {
                        name: field("name="),
                        kind: field("kind="),
                        state_hits: vec![0; states.len()],
                        states,
                        arcs,
                        changes: BTreeMap::new(),
                        bad_states: 0,
                    });
                }
                None
            }
        };
        if let Some(m) = marker {
            lines.insert(i + 1, m);
        }
    }
    (fsms, lines)
}

impl Build {
    /// The FSMs the generated top monitors, with their counts.
    pub fn fsms(&self) -> Vec<Fsm> {
        let (mut fsms, marked) = fsm_markers(&self.top);
        let mut per_line: BTreeMap<usize, u64> = BTreeMap::new();
        for (line, c) in self.top_points.values() {
            let e = per_line.entry(*line).or_insert(0);
            *e = (*e).max(*c);
        }
        for (line, m) in &marked {
            let c = per_line.get(line).copied().unwrap_or(0);
            let f = match *m {
                Marker::State(f, _) | Marker::Arc(f, _, _) | Marker::BadState(f) => f,
                Marker::BadArc(f) => f,
            };
            let Some(x) = fsms.get_mut(f) else { continue };
            match *m {
                Marker::State(_, k) => {
                    if let Some(h) = x.state_hits.get_mut(k) {
                        *h += c;
                    }
                }
                Marker::Arc(_, a, b) => *x.changes.entry((a, b)).or_insert(0) += c,
                // A change to or from a code no state has is counted at that code too.
                Marker::BadState(_) | Marker::BadArc(_) => x.bad_states += c,
            }
        }
        fsms
    }
}

/// One FSM's coverage: states and declared transitions reached, what was not, and
/// transitions it took that it does not declare.
#[derive(Clone, Debug, Serialize)]
pub struct FsmSummary {
    /// The register (`core.fc0.fc.fsm.state`).
    pub name: String,
    /// Its enum.
    pub kind: String,
    /// States reached.
    pub states: Tally,
    /// Declared transitions taken (`None`: the enum declares none).
    pub arcs: Option<Tally>,
    /// States never reached.
    pub missed_states: Vec<String>,
    /// Declared transitions never taken (`A -> B`).
    pub missed_arcs: Vec<String>,
    /// Transitions taken that the FSM does not declare, with their counts.
    pub undeclared: Vec<(String, u64)>,
    /// Edges with a code no state has.
    pub bad_states: u64,
    /// Every state's name (what a testplan may name).
    #[serde(skip)]
    pub all_states: Vec<String>,
    /// Every declared transition (`A -> B`).
    #[serde(skip)]
    pub declared: Vec<String>,
}

impl FsmSummary {
    pub(super) fn of(f: &Fsm) -> FsmSummary {
        let name = |k: usize| {
            f.states
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("state {k}"))
        };
        let arc = |(a, b): (usize, usize)| format!("{} -> {}", name(a), name(b));
        let mut states = Tally::default();
        let mut missed_states = Vec::new();
        for (k, h) in f.state_hits.iter().enumerate() {
            states.add(*h > 0);
            if *h == 0 {
                missed_states.push(name(k));
            }
        }
        let mut missed_arcs = Vec::new();
        let mut undeclared = Vec::new();
        let arcs = f.arcs.as_ref().map(|declared| {
            let mut t = Tally::default();
            for &a in declared {
                let hit = f.changes.get(&a).copied().unwrap_or(0) > 0;
                t.add(hit);
                if !hit {
                    missed_arcs.push(arc(a));
                }
            }
            for (&a, &c) in &f.changes {
                if c > 0 && !declared.contains(&a) {
                    undeclared.push((arc(a), c));
                }
            }
            t
        });
        FsmSummary {
            name: f.name.clone(),
            kind: f.kind.clone(),
            states,
            arcs,
            missed_states,
            missed_arcs,
            undeclared,
            bad_states: f.bad_states,
            all_states: (0..f.states.len()).map(name).collect(),
            declared: f.arcs.iter().flatten().map(|&a| arc(a)).collect(),
        }
    }

    /// `FcState core.fc0.fc.fsm.state: states 9/9, transitions 12/14 (never: ...)`.
    pub fn show(&self) -> String {
        let mut s = format!(
            "{} {}: states {}/{}",
            self.kind, self.name, self.states.covered, self.states.total
        );
        if let Some(a) = &self.arcs {
            s += &format!(", transitions {}/{}", a.covered, a.total);
        }
        let mut never: Vec<&str> = self.missed_states.iter().map(String::as_str).collect();
        never.extend(self.missed_arcs.iter().map(String::as_str));
        if !never.is_empty() {
            s += &format!(" (never: {})", never.join(", "));
        }
        if !self.undeclared.is_empty() {
            let u: Vec<String> = self
                .undeclared
                .iter()
                .map(|(a, c)| format!("{a} x{c}"))
                .collect();
            s += &format!("; UNDECLARED: {}", u.join(", "));
        }
        if self.bad_states > 0 {
            s += &format!("; {} edges in no state", self.bad_states);
        }
        s
    }
}
