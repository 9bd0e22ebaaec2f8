//! Signed-arithmetic primitives built on `Bits` only (rust-hdl pitfalls P1-P8), and the
//! lane packing helpers. Each has a golden twin in `edgelearn_verif::golden::arith`.
pub mod abs;
pub mod asr;
pub mod check;
pub mod check_wide;
pub mod cmp;
pub mod dot9;
pub mod lane_join;
pub mod lane_split;
pub mod max;
pub mod mul;
pub mod mul_u;
pub mod mul_wide;
pub mod sat;
pub mod sext;
pub mod zext;
