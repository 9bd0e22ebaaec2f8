//! edgelearn-verif: golden models (`golden`), their port-level adapters and stimulus
//! generators (`blocks`), the whole LEL platform and its training (`lel`), and datasets.
//!
//! Invariant: `golden` is pure integer arithmetic with no dependency on rust-hdl, the
//! simulators, ports or files; `blocks` adds port names and packing on top of it.

pub mod blocks;
pub mod cnn;
pub mod datasets;
pub mod formats;
pub mod golden;
pub mod lel;
pub mod regress;
pub mod rtl;
