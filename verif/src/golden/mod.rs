//! Golden models: pure, integer, bit-exact functions of what the hardware computes.
//!
//! Invariant: nothing here knows about HDL, simulators, ports or files. Each block's
//! model is a plain function of its arithmetic plus, where the block has state, a cycle
//! model (`step`) with typed inputs and outputs that follows the block's documented
//! latency. The port-level adapters live in [`crate::blocks`].
pub mod arith;
pub mod bk_group;
pub mod burst;
pub mod cache_x4;
pub mod classification;
pub mod cnn_engine;
pub mod cnn_fc_update;
pub mod conv_channels;
pub mod conv_load;
pub mod conv_scan;
pub mod err_fetch;
pub mod fc_fsm;
pub mod fc_out;
pub mod lc_forward;
pub mod lc_group;
pub mod lc_rows;
pub mod lfsr;
pub mod loss;
pub mod matmul;
pub mod mm_group;
pub mod packet_fifo;
pub mod pl_fsm;
pub mod pl_regs;
pub mod pool_packer;
pub mod pool_scan;
pub mod read_pipe;
pub mod result_tally;
pub mod sim_gate;
pub mod stream_fifo;
pub mod stream_resize;
pub mod stream_slice;
pub mod tree_adder;
pub mod tree_comparator;
pub mod triout_cache;
pub mod visit_cycles;
pub mod weight_update;
pub mod word_seq;
pub mod wu_group;
