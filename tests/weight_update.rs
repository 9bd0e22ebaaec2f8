//! Stochastic weight update (thesis §4.1.6): the thesis test for every lr_shift with the
//! corners, the 2-cycle latency, and random traffic.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::weight_update::{random_stimulus, thesis_stimulus, updates_in};
use edgelearn_verif::golden::weight_update::weight_update;

#[test]
fn weight_update_thesis_test_every_lr_shift() {
    let ports = common::ports("lel_weight_update");
    let (stim, starts) = thesis_stimulus(&ports, 1045, 600).unwrap();
    let (yes, no) = updates_in(&stim);
    // With the thesis ranges P(update) = |x e| / 16384 is about 1.5 % at lr_shift 0.
    assert!(
        yes >= 100 && no > 1000,
        "the stimulus updates some weights and keeps others: {yes} / {no}"
    );
    let runs = common::check_block("lel_weight_update", &stim, &Backend::ALL);
    // The row presented in cycle c is on weight_out two edges later (trace row c + 1).
    let i = |p: &str| stim.port_index(p).unwrap();
    for run in &runs {
        let o = run.trace.port_index("weight_out").unwrap();
        for &c in &starts {
            let w = unpack_lanes(&stim.rows[c][i("weight_in")], 6, 4, true);
            let e = unpack_lanes(&stim.rows[c][i("err")], 8, 4, true);
            let r = unpack_lanes(&stim.rows[c][i("rnd")], 14, 4, false);
            let x = edgelearn_sim::value::to_i64(&stim.rows[c][i("data_in")], 8);
            let lr = u32::try_from(&stim.rows[c][i("lr_shift")]).unwrap();
            let want: Vec<i64> = (0..4)
                .map(|l| weight_update(w[l], x, e[l], lr, r[l] as u64))
                .collect();
            let got = unpack_lanes(run.trace.rows[c + 1][o].known().unwrap(), 6, 4, true);
            assert_eq!(got, want, "{} row {c}", run.trace.backend);
        }
    }
}

#[test]
fn weight_update_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_weight_update"), 14, 3_000).unwrap();
    common::check_block("lel_weight_update", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_weight_update"), 15, 20_000).unwrap();
    common::check_block("lel_weight_update", &stim, &[Backend::Verilator]);
}
