//! The CNN engine's sub-blocks on rust-hdl's simulator, Icarus, Verilator and the Yosys
//! netlist, against their golden twins (`edgelearn_verif::golden::cnn_engine`): the
//! combinational ones together (`cnn_engine_check`: average division, nine-tap MAC, output
//! stage, priority encoder), a pooling / element-wise unit (`cnn_reduce`), a processor's
//! two windows (`cnn_window_buf`), the gather's address generator (`cnn_addr_gen`) and its
//! pieces (`cnn_tap_pos`, `cnn_elem_walk`, `cnn_word_addr`, `cnn_iter_walk`), the
//! windows' handshake (`cnn_window_ctl`), the MAC pipeline's side information
//! (`cnn_mac_pipe`), the adders over the quads (`cnn_group_sum`) and the accumulators and
//! biases (`cnn_acc_mem`), the layer sequencer (`cnn_layer_seq`), the MAC side's
//! sequencer (`cnn_mac_ctl`), the host port (`cnn_host_port`) and a processor
//! (`cnn_processor`). The engine as a whole: `tests/cnn_rtl.rs`.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::cnn_engine;

#[test]
fn combinational_sub_blocks_are_bit_exact_on_every_backend() {
    let ports = common::ports("cnn_engine_check");
    // 4,096 rows: every divisor with and without rounding, every MAC width x tap count,
    // every shift of the output stage several times.
    let stim = cnn_engine::check_stimulus(&ports, 0xE461, 4096).unwrap();
    common::check_block(
        "cnn_engine_check",
        &stim,
        &[Backend::Native, Backend::Icarus, Backend::Verilator],
    );
    // The netlist's gate-level multipliers are slow in Icarus: a quarter of the rows.
    let small = cnn_engine::check_stimulus(&ports, 0xE462, 1024).unwrap();
    common::check_block("cnn_engine_check", &small, &[Backend::Netlist]);
}

#[test]
fn reduce_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::reduce_stimulus(&common::ports("cnn_reduce"), 0x8ED, 3000).unwrap();
    common::check_block("cnn_reduce", &stim, &Backend::ALL);
}

#[test]
fn window_buf_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::window_stimulus(&common::ports("cnn_window_buf"), 0x3D0, 1500).unwrap();
    common::check_block("cnn_window_buf", &stim, &Backend::ALL);
}

#[test]
fn addr_gen_issues_every_layers_items_on_every_backend() {
    let stim = cnn_engine::addr_gen_stimulus(&common::ports("cnn_addr_gen"), 0xADD6).unwrap();
    common::check_block("cnn_addr_gen", &stim, &Backend::ALL);
}

#[test]
fn tap_pos_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::tap_pos_stimulus(&common::ports("cnn_tap_pos"), 0x7A9, 2048).unwrap();
    common::check_block("cnn_tap_pos", &stim, &Backend::ALL);
}

#[test]
fn elem_walk_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::elem_walk_stimulus(&common::ports("cnn_elem_walk"), 0xE1E, 3000).unwrap();
    common::check_block("cnn_elem_walk", &stim, &Backend::ALL);
}

#[test]
fn iter_walk_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::iter_walk_stimulus(&common::ports("cnn_iter_walk"), 0x17E8, 4000).unwrap();
    common::check_block("cnn_iter_walk", &stim, &Backend::ALL);
}

#[test]
fn word_addr_is_bit_exact_on_every_backend() {
    let ports = common::ports("cnn_word_addr");
    let stim = cnn_engine::word_addr_stimulus(&ports, 0x30AD, 2048).unwrap();
    common::check_block(
        "cnn_word_addr",
        &stim,
        &[Backend::Native, Backend::Icarus, Backend::Verilator],
    );
    // The netlist's five gate-level multipliers are slow in Icarus: a quarter of the rows.
    let small = cnn_engine::word_addr_stimulus(&ports, 0x30AE, 512).unwrap();
    common::check_block("cnn_word_addr", &small, &[Backend::Netlist]);
}

#[test]
fn window_ctl_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::window_ctl_stimulus(&common::ports("cnn_window_ctl"), 0xC71, 3000).unwrap();
    common::check_block("cnn_window_ctl", &stim, &Backend::ALL);
}

#[test]
fn mac_pipe_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::mac_pipe_stimulus(&common::ports("cnn_mac_pipe"), 0x3AC, 2000).unwrap();
    common::check_block("cnn_mac_pipe", &stim, &Backend::ALL);
}

#[test]
fn group_sum_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::group_sum_stimulus(&common::ports("cnn_group_sum"), 0x65D, 1500).unwrap();
    common::check_block("cnn_group_sum", &stim, &Backend::ALL);
}

#[test]
fn acc_mem_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::acc_mem_stimulus(&common::ports("cnn_acc_mem"), 0xACC, 2500).unwrap();
    common::check_block("cnn_acc_mem", &stim, &Backend::ALL);
}

#[test]
fn layer_seq_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::layer_seq_stimulus(&common::ports("cnn_layer_seq"), 0x5E9, 3000).unwrap();
    common::check_block("cnn_layer_seq", &stim, &Backend::ALL);
}

#[test]
fn fifo_in_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::fifo_in_stimulus(&common::ports("cnn_fifo_in"), 0xF1F0, 3000).unwrap();
    common::check_block("cnn_fifo_in", &stim, &Backend::ALL);
}

#[test]
fn mac_ctl_is_bit_exact_on_every_backend() {
    let stim = cnn_engine::mac_ctl_stimulus(&common::ports("cnn_mac_ctl"), 0x3C7, 4000).unwrap();
    common::check_block("cnn_mac_ctl", &stim, &Backend::ALL);
}

#[test]
fn host_port_is_bit_exact_on_every_backend() {
    let stim =
        cnn_engine::host_port_stimulus(&common::ports("cnn_host_port"), 0x405, 3000).unwrap();
    common::check_block("cnn_host_port", &stim, &Backend::ALL);
}

#[test]
fn processor_is_bit_exact_on_every_backend() {
    let ports = common::ports("cnn_processor");
    let stim = cnn_engine::processor_stimulus(&ports, 0x9C0, 3000).unwrap();
    common::check_block(
        "cnn_processor",
        &stim,
        &[Backend::Native, Backend::Icarus, Backend::Verilator],
    );
    // The netlist (768 x 72 kernel words as flip-flops, gate-level multipliers) is slow in
    // Icarus: a shorter run.
    let small = cnn_engine::processor_stimulus(&ports, 0x9C1, 600).unwrap();
    common::check_block("cnn_processor", &small, &[Backend::Netlist]);
}
