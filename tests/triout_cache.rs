//! Triout cache (thesis §4.1.9): the thesis test on every channel with its 4-cycle and
//! 2-cycles-per-row latencies and `eof`, and random traffic.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::triout_cache::{random_stimulus, thesis_stimulus};

#[test]
fn triout_cache_thesis_test_every_channel() {
    let (stim, plan) = thesis_stimulus(&common::ports("lel_triout_cache"), 1135).unwrap();
    let runs = common::check_block("lel_triout_cache", &stim, &Backend::ALL);
    for run in &runs {
        let b = &run.trace.backend;
        let row = |r: usize, port: &str| {
            unpack_lanes(
                run.trace.rows[r][run.trace.port_index(port).unwrap()]
                    .known()
                    .unwrap(),
                8,
                32,
                true,
            )
        };
        for (ch, (&fall, &pop)) in plan.clr_falls.iter().zip(&plan.pop_rises).enumerate() {
            let rise = common::first_row_where(run, "valid_out", 1, fall).unwrap();
            assert_eq!(
                common::edges(fall, rise),
                4,
                "{b}: clr_opt fall to valid_out rise"
            );
            assert_eq!(
                row(rise, "data_out0"),
                plan.image[ch][0],
                "{b}: channel {ch} row 0"
            );
            assert_eq!(row(rise, "data_out1"), plan.image[ch][1]);
            assert_eq!(row(rise, "data_out2"), plan.image[ch][2]);
            // pop_en held: valid_out drops at the first edge and returns with each new row.
            let next = common::first_row_where(run, "valid_out", 1, pop).unwrap();
            assert_eq!(
                common::edges(pop, next),
                2,
                "{b}: pop_en rise to the next row"
            );
            assert_eq!(row(next, "data_out2"), plan.image[ch][3]);
            let last = common::first_row_where(run, "eof", 1, pop).unwrap();
            assert_eq!(
                common::edges(pop, last),
                2 * 29,
                "{b}: 29 rows at 2 cycles each"
            );
            assert_eq!(
                row(last, "data_out0"),
                plan.image[ch][29],
                "{b}: last three rows"
            );
            assert_eq!(row(last, "data_out1"), plan.image[ch][30]);
            assert_eq!(row(last, "data_out2"), plan.image[ch][31]);
        }
    }
}

#[test]
fn triout_cache_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_triout_cache"), 18, 3_000).unwrap();
    common::check_block("lel_triout_cache", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_triout_cache"), 19, 15_000).unwrap();
    common::check_block("lel_triout_cache", &stim, &[Backend::Verilator]);
}
