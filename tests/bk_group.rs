//! `lel_bk_group`: the FC core's images as the core runs them and random traffic
//! against the golden trace (`verif::golden::bk_group`, the blocks' cycle models
//! composed), every output on every cycle. The thesis stimulus runs on every backend, the
//! netlist included; the random one on the three simulators.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::bk_group::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_bk_group";

#[test]
fn bk_group_images_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9731).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // The gate slept through the idle stretches and woke for the next burst.
    common::assert_gate_slept(&runs, "gate");
    // Every row of LS_BK leaves an error: about 20 of the 24 rows per image are valid.
    let i = runs[0].trace.port_index("grad_valid").unwrap();
    let one = edgelearn_sim::Value::Known(1u32.into());
    let grads = runs[0].trace.rows.iter().filter(|r| r[i] == one).count();
    assert!((8 * 12..=8 * 24).contains(&grads), "{grads} errors");
}

#[test]
fn bk_group_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9732, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}
