//! Arithmetic primitives, exhaustively, on rust-hdl, Icarus, Verilator and the Yosys
//! netlist, against `edgelearn_verif::golden::arith`.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::arith_check::exhaustive_stimulus;

#[test]
fn arith_primitives_are_bit_exact_on_every_backend() {
    let stim = exhaustive_stimulus(&common::ports("arith_check"), 0xA517, 10_000).unwrap();
    // 16,384 mul pairs + 8,192 shift cases + 1,024 saturation inputs + 4,096 mul pairs + random.
    assert_eq!(stim.len(), 16_384 + 8_192 + 1_024 + 4_096 + 12 + 10_000);
    common::check_block("arith_check", &stim, &Backend::ALL);
}

#[test]
fn wide_multiplies_and_dot9_are_bit_exact_on_every_backend() {
    let ports = common::ports("arith_check_wide");
    let stim =
        edgelearn_verif::blocks::arith_check_wide::exhaustive_stimulus(&ports, 0xD079, 64, 4_000)
            .unwrap();
    assert_eq!(stim.len(), 65_536 + 12 + 16 * 64 + 4_000);
    common::check_block(
        "arith_check_wide",
        &stim,
        &[Backend::Native, Backend::Icarus, Backend::Verilator],
    );
    // The Yosys netlist (pitfall P8): corners and random vectors; its gate-level multipliers
    // take Icarus minutes over the exhaustive sweep.
    let small =
        edgelearn_verif::blocks::arith_check_wide::small_stimulus(&ports, 0xD07A, 8, 500).unwrap();
    common::check_block("arith_check_wide", &small, &[Backend::Netlist]);
}
