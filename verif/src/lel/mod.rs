//! The LEL platform as a whole (spec lel-platform.md §1, §2.4, §4): configuration, the
//! bit-exact golden network with on-chip learning, its float reference, and training.
//!
//! The integer model computes exactly what the hardware computes, in the hardware's order,
//! with the hardware's random numbers; it reuses the block golden functions of
//! [`crate::golden`] (quantizer, loss, tree adder, weight update, classification).
pub mod codec;
pub mod config;
pub mod conv;
pub mod fc_core;
pub mod float;
pub mod lfsr_stream;
pub mod network;
pub mod train;
