//! The integration tests, one binary: each file of `tests/` is a module (the triad's bench of
//! a block has the block's name), `common/` their shared helpers. One binary links once and
//! keeps both cores busy until the last test, instead of 38 binaries run one after another
//! (docs/BENCHMARKS.md, suite time). Run one file's tests with
//! `cargo test --release --test suite -- matmul::`.

mod common;

mod arith;
mod bk_group;
mod cache_x4;
mod classification;
mod cnn_engine;
mod cnn_engine_blocks;
mod cnn_engine_ref;
mod cnn_fc_update;
mod cnn_finetune;
mod cnn_random;
mod cnn_rtl;
mod conv_channels;
mod conv_core;
mod conv_load;
mod conv_scan;
mod core_blocks;
mod core_cli;
mod coverage;
mod dedup;
mod dut;
mod emit;
mod err_fetch;
mod explore;
mod fc_core;
mod fc_fsm;
mod fc_out;
mod formal;
mod fusesoc;
mod hardening;
mod host;
mod invariants;
mod lc_forward;
mod lc_group;
mod lc_rows;
mod lel_model;
mod lfsr;
mod loss;
mod matmul;
mod mm_group;
mod pl_fsm;
mod pl_regs;
mod platform;
mod platform_axi;
mod platform_cli;
mod pool_packer;
mod pool_scan;
mod read_pipe;
mod regress;
mod regs;
mod result_tally;
mod sim_gate;
mod stream_resize;
mod synth;
mod train;
mod tree_adder;
mod tree_comparator;
mod triout_cache;
mod vcd;
mod visit_cycles;
mod vivado;
mod weight_update;
mod wu_group;
