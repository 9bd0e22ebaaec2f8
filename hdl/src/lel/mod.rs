//! LEL platform blocks (thesis seed 002, spec lel-platform.md).
pub mod lfsr;
pub mod mac_lane;
pub mod matmul;
pub mod quant_relu;
pub mod tree_comparator;
