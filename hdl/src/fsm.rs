//! FSM state enums with the names the spec gives their states, declared once: the RTL
//! encodes a state by its declaration order (`#[derive(LogicState)]`), and the benches,
//! reports and divergence messages read the same enum's [`NAMES`](crate::fsm_states) for a
//! state code read from a port, so no bench keeps a copy of a state list. Each spec FSM also
//! declares its transitions ([`fsm_states!`]'s `arcs`): what FSM coverage counts, and what
//! it reports as illegal when the RTL takes another ([`fsm_sites`], docs/decisions.md
//! D-COVERAGE).

use rust_hdl::prelude::*;

/// Declare an FSM's state enum (`Copy`, `PartialEq`, `LogicState`; the declaration order is
/// the encoding) with each state's spec name and the FSM's transitions (staying in a state
/// is not one):
///
/// ```ignore
/// fsm_states! {
///     /// `LS_*` states.
///     pub enum FcState {
///         /// Idle.
///         Idle = "LS_IDLE",
///         Init = "LS_INIT",
///     }
///     arcs {
///         Idle => [Init],
///         Init => [Idle],
///     }
/// }
/// assert_eq!(FcState::NAMES[1], "LS_INIT");
/// assert_eq!(FcState::name(7), "state 7");
/// ```
#[macro_export]
macro_rules! fsm_states {
    (
        $(#[$m:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vm:meta])* $v:ident = $spec:literal),+ $(,)?
        }
        arcs {
            $($from:ident => [$($to:ident),* $(,)?]),+ $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, LogicState)]
        $vis enum $name {
            $($(#[$vm])* $v),+
        }

        impl $name {
            /// Every state, in encoding order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// The spec's name of each state, by encoding.
            pub const NAMES: &'static [&'static str] = &[$($spec),+];
            /// The transitions (from, to) by encoding.
            pub const ARCS: &'static [(usize, usize)] =
                &[$($(($name::$from as usize, $name::$to as usize)),*),+];

            /// The spec's name of a state code read from the RTL (`state N` for a code no
            /// state has).
            pub fn name(code: u64) -> String {
                Self::NAMES
                    .get(code as usize)
                    .map_or_else(|| format!("state {code}"), |s| s.to_string())
            }

            /// The state's encoding.
            pub fn code(self) -> u64 {
                self as u64
            }
        }
    };
}

/// A spec FSM's state names and transitions.
#[derive(Clone, Copy, Debug)]
pub struct SpecFsm {
    /// State names by encoding.
    pub names: &'static [&'static str],
    /// Transitions by encoding.
    pub arcs: &'static [(usize, usize)],
}

/// A spec FSM by its enum's name (rust-hdl's type name).
pub fn spec(kind: &str) -> Option<SpecFsm> {
    use crate::cnn::engine::layer_seq::SeqState;
    use crate::lel::conv_core::ConvState;
    use crate::lel::fc_fsm::FcState;
    use crate::lel::pl_fsm::PlState;
    let (names, arcs) = match kind {
        "FcState" => (FcState::NAMES, FcState::ARCS),
        "ConvState" => (ConvState::NAMES, ConvState::ARCS),
        "PlState" => (PlState::NAMES, PlState::ARCS),
        "SeqState" => (SeqState::NAMES, SeqState::ARCS),
        _ => return None,
    };
    Some(SpecFsm { names, arcs })
}

/// A register of a `LogicState` enum in a design: an FSM whose states (and, for a spec FSM,
/// transitions) coverage counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsmSite {
    /// Instance path of the block holding the register, below the top (`""`: the top).
    pub path: String,
    /// The register's field name (`state`); its output is `<register>$q` in that module.
    pub register: String,
    /// The register's width.
    pub width: usize,
    /// The enum's name (`FcState`).
    pub kind: String,
    /// State names by encoding: the spec's, else the enum's variants.
    pub states: Vec<String>,
    /// The transitions by encoding, for a spec FSM ([`spec`]); `None` for another enum.
    pub arcs: Option<Vec<(usize, usize)>>,
}

impl FsmSite {
    /// `path.register` (`core.fc0.fc.fsm.state`).
    pub fn name(&self) -> String {
        if self.path.is_empty() {
            self.register.clone()
        } else {
            format!("{}.{}", self.path, self.register)
        }
    }
}

/// Every register of a `LogicState` enum in `block`, in visiting order.
pub fn fsm_sites<B: Block>(block: &B) -> Vec<FsmSite> {
    let mut found = Vec::new();
    crate::design::walk(block, &mut |v| {
        // A register is a scope (`DFF`) whose output atom is `q`; the first scope is the top
        // module itself.
        let crate::design::Visit::Atom { path, name, signal } = v else {
            return;
        };
        if name != "q" || path.len() < 2 {
            return;
        }
        let d = signal.descriptor();
        let TypeKind::Enum(variants) = d.kind else {
            return;
        };
        let (register, parent) = path[1..].split_last().expect("two scopes");
        let (states, arcs) = match spec(&d.name) {
            Some(f) => (
                f.names.iter().map(|s| s.to_string()).collect(),
                Some(f.arcs.to_vec()),
            ),
            None => (
                variants
                    .iter()
                    .map(|v| v.rsplit("::").next().unwrap_or(v).to_string())
                    .collect(),
                None,
            ),
        };
        found.push(FsmSite {
            path: parent.join("."),
            register: register.clone(),
            width: signal.bits(),
            kind: d.name,
            states,
            arcs,
        });
    });
    found
}

#[cfg(test)]
mod tests {
    use crate::lel::conv_core::ConvState;
    use crate::lel::fc_core::FcState;
    use crate::lel::platform::PlState;

    #[test]
    fn names_follow_the_encoding() {
        assert_eq!(FcState::NAMES.len(), FcState::ALL.len());
        for (i, s) in FcState::ALL.iter().enumerate() {
            assert_eq!(s.code(), i as u64);
        }
        assert_eq!(FcState::name(FcState::Wu.code()), "LS_WU");
        assert_eq!(ConvState::name(ConvState::Pool.code()), "CS_POOL");
        assert_eq!(PlState::name(PlState::Read.code()), "PL_READ");
        assert_eq!(FcState::name(15), "state 15");
    }

    #[test]
    fn arcs_join_states_of_the_fsm_and_never_stay() {
        for kind in ["FcState", "ConvState", "PlState", "SeqState"] {
            let super::SpecFsm { names, arcs } = super::spec(kind).unwrap();
            assert!(!arcs.is_empty(), "{kind}");
            for &(a, b) in arcs {
                assert!(
                    a < names.len() && b < names.len() && a != b,
                    "{kind}: {a} -> {b}"
                );
            }
            // Every state is entered and left.
            for (s, name) in names.iter().enumerate() {
                assert!(
                    arcs.iter().any(|a| a.0 == s),
                    "{kind}: {name} has no way out"
                );
                assert!(
                    arcs.iter().any(|a| a.1 == s),
                    "{kind}: {name} has no way in"
                );
            }
        }
        assert!(FcState::ARCS.contains(&(FcState::Loss as usize, FcState::Bk as usize)));
    }

    #[test]
    fn the_fc_cores_fsm_is_found_with_its_spec_names() {
        let fsm = crate::lel::fc_fsm::FcFsm::default();
        let sites = super::fsm_sites(&fsm);
        let s = sites.iter().find(|s| s.kind == "FcState").unwrap();
        assert_eq!((s.path.as_str(), s.register.as_str()), ("", "state"));
        assert_eq!(s.width, 4);
        assert_eq!(s.states[8], "LS_READ");
        assert!(s.arcs.is_some());
    }
}
