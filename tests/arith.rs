//! Arithmetic primitives, exhaustively, on rust-hdl, Icarus, Verilator and the Yosys
//! netlist, against `edgelearn_verif::golden::arith`.

mod common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::arith_check::exhaustive_stimulus;

#[test]
fn arith_primitives_are_bit_exact_on_every_backend() {
    let stim = exhaustive_stimulus(&common::ports("arith_check"), 0xA517, 10_000).unwrap();
    // 16,384 mul pairs + 8,192 shift cases + 1,024 saturation inputs + 4,096 mul pairs + random.
    assert_eq!(stim.len(), 16_384 + 8_192 + 1_024 + 4_096 + 12 + 10_000);
    common::check_block("arith_check", &stim, &Backend::ALL);
}
