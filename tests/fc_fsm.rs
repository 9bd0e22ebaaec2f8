//! `lel_fc_fsm` (the FC core's FSM): the core's instructions as the platform gives them and
//! random traffic (the thesis stimulus on every backend, the netlist included; the random
//! one on the three simulators), every output on every cycle against the golden trace
//! (`verif::golden::fc_fsm`, a cycle model of its own).

use crate::common;

use edgelearn_hdl::lel::fc_fsm::FcState;
use edgelearn_sim::Backend;
use edgelearn_verif::blocks::fc_fsm::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_fc_fsm";

#[test]
fn fc_fsm_thesis_instructions_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9401).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // Every LS_* state is visited, and I_STOP cancels the sequencer.
    for (code, name) in FcState::NAMES.iter().enumerate() {
        let row = common::first_row_where(&runs[0], "code", code as u32, 0);
        assert!(row.is_some(), "{name} never visited");
    }
    assert!(common::first_row_where(&runs[0], "sq_cancel", 1, 0).is_some());
}

#[test]
fn fc_fsm_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9402, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}
