//! Loss derivative (thesis §4.1.5, eq 4.1): the thesis test for every label with the region
//! boundaries, outputs valid 3 cycles after `instr` falls and held, every alpha_e, and
//! random traffic.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::loss::{random_stimulus, thesis_stimulus};
use edgelearn_verif::golden::loss::loss;

#[test]
fn loss_thesis_test_every_label_valid_3_cycles_after_instr_falls() {
    let ports = common::ports("lel_loss");
    let (stim, falls) = thesis_stimulus(&ports, 1010, 3, &[0]).unwrap();
    let runs = common::check_block("lel_loss", &stim, &Backend::ALL);
    let xi = stim.port_index("data_in").unwrap();
    let li = stim.port_index("true_label").unwrap();
    for run in &runs {
        let oi = run.trace.port_index("data_out").unwrap();
        for &f in &falls {
            let x = unpack_lanes(&stim.rows[f - 1][xi], 23, 10, true);
            let label = u32::try_from(&stim.rows[f - 1][li]).unwrap();
            let want = loss(&x, label, 0);
            // 3 cycles after instr falls (trace row f + 2) and held until the next instr.
            for r in f + 2..f + 5 {
                let got = unpack_lanes(run.trace.rows[r][oi].known().unwrap(), 8, 10, true);
                assert_eq!(got, want, "{} cycle {r}", run.trace.backend);
            }
        }
    }
}

#[test]
fn loss_every_alpha_e() {
    let (stim, _) = thesis_stimulus(
        &common::ports("lel_loss"),
        1011,
        1,
        &[0, 1, 2, 3, 4, 5, 6, 7],
    )
    .unwrap();
    common::check_block("lel_loss", &stim, &Backend::ALL);
}

#[test]
fn loss_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_loss"), 12, 2_000).unwrap();
    common::check_block("lel_loss", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_loss"), 13, 12_000).unwrap();
    common::check_block("lel_loss", &stim, &[Backend::Verilator]);
}
