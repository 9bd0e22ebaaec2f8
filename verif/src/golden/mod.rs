//! Golden models: pure, integer, bit-exact functions of what the hardware computes.
//!
//! Invariant: nothing here knows about HDL, simulators, ports or files. Each block's
//! model is a plain function of its arithmetic plus, where the block has state, a cycle
//! model (`step`) with typed inputs and outputs that follows the block's documented
//! latency. The port-level adapters live in [`crate::blocks`].
pub mod arith;
pub mod lfsr;
pub mod matmul;
pub mod tree_comparator;
