//! edgelearn-hdl: the hardware blocks of edgelearn, written with rust-hdl 0.46.
//!
//! `arith` holds the signed-arithmetic primitives (Bits-only, see the rust-hdl pitfalls),
//! `lel` the blocks of the LEL platform. `design` gives every block a name, a port list
//! and Verilog; the registry of designs is `edgelearn_verif::rtl::designs`.
//!
//! Invariant: this crate does no IO and spawns no process (its `#[cfg(test)]`
//! synthesizability checks are the one exception).

pub mod arith;
pub mod cnn;
pub mod cover;
pub mod dedup;
pub mod design;
pub mod error;
pub mod fsm;
pub mod lel;
pub mod mem;
pub mod prelude;
pub mod regfile;
pub mod sim_gate;
pub mod wiring;

pub use num_bigint;

/// Verilator lint warnings that rust-hdl's code generation always triggers and that
/// edgelearn waives (docs/decisions.md D-LINT): WIDTH (32-bit literals and `bit_cast`
/// masks), DECLFILENAME (a block's inner modules share its file), UNUSEDSIGNAL (outputs of
/// shared sub-blocks that a parent does not read), UNUSEDPARAM (rust-hdl declares a
/// `LogicState` enum's values in every module that holds a register of it, also where they
/// are not compared). Lint with `-Wall` plus these.
pub const VERILATOR_LINT_WAIVERS: &[&str] = &[
    "-Wno-WIDTH",
    "-Wno-DECLFILENAME",
    "-Wno-UNUSEDSIGNAL",
    "-Wno-UNUSEDPARAM",
];
pub use rust_hdl;

#[cfg(test)]
pub(crate) mod synth_check;
