//! FSM state enums with the names the spec gives their states, declared once: the RTL
//! encodes a state by its declaration order (`#[derive(LogicState)]`), and the benches,
//! reports and divergence messages read the same enum's [`NAMES`](crate::fsm_states) for a
//! state code read from a port, so no bench keeps a copy of a state list.

/// Declare an FSM's state enum (`Copy`, `PartialEq`, `LogicState`; the declaration order is
/// the encoding) with each state's spec name:
///
/// ```ignore
/// fsm_states! {
///     /// `LS_*` states.
///     pub enum FcState {
///         /// Idle.
///         Idle = "LS_IDLE",
///         Init = "LS_INIT",
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
}
