//! `lel_mm_group` (the FC core's forward matmul behind its simulation gate): LS_INF's
//! passes and random traffic against the golden trace (`verif::golden::mm_group`, the
//! matmul's cycle model with the core's operand isolation), every output on every cycle.
//! The thesis stimulus runs on every backend, the netlist included; the random one on the
//! three simulators.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::mm_group::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_mm_group";

#[test]
fn mm_group_inf_passes_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9711).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // The gate slept through the idle stretches and woke for the next burst.
    common::assert_gate_slept(&runs, "gate");
    // Every pass of the eight scale pairs ends in a result: 64 pulses.
    let i = runs[0].trace.port_index("valid_out").unwrap();
    let one = edgelearn_sim::Value::Known(1u32.into());
    let pulses = runs[0].trace.rows.iter().filter(|r| r[i] == one).count();
    assert_eq!(pulses, 64, "pass results");
}

#[test]
fn mm_group_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9712, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}
