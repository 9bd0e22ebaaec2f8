//! LEL platform blocks (thesis seed 002, spec lel-platform.md).
pub mod burst_ctl;
pub mod cache_x4;
pub mod classification;
pub mod dot_tree;
pub mod lc_forward;
pub mod lfsr;
pub mod loss;
pub mod mac_lane;
pub mod matmul;
pub mod quant_relu;
pub mod tree_adder;
pub mod tree_adder_conv;
pub mod tree_comparator;
pub mod triout_cache;
pub mod weight_update;
