//! `cnn_fc_update` (issue 16, item 3): the softmax error vector and the row weight update of
//! an FC last layer, every output on every cycle against the cycle model over
//! `edgelearn_verif::cnn::fc_update` on rust-hdl, Icarus, Verilator and the Yosys netlist;
//! whole-layer updates checked against `update_layer` itself; the host bench
//! (`FcUpdateBench`) over chained updates.

use crate::common;

use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::{Backend, Run, Stimulus};
use edgelearn_verif::blocks::cnn_fc_update::{self as adapter, Coverage, LayerCase, OUTS};
use edgelearn_verif::cnn::fc_update::{forward, pow2_table, update_layer, Rounding, UpdateParams};
use edgelearn_verif::golden::cnn_fc_update::{error_latency, layer_cycles, ROW_LATENCY};
use edgelearn_verif::golden::lfsr::SerialLfsr;
use edgelearn_verif::rtl::fc_update::FcUpdateBench;

const BLOCK: &str = "cnn_fc_update";

fn ports() -> Vec<edgelearn_sim::PortSpec> {
    common::ports(BLOCK)
}

/// Every row rounding both ways, at every `lr_shift`, saturating both ways.
fn assert_covers_rows(c: &Coverage) {
    assert!(c.nearest > 0 && c.stochastic > 0, "both roundings: {c:?}");
    assert!(c.lr.iter().all(|&n| n > 0), "every lr_shift: {c:?}");
    assert!(c.sat_hi > 0 && c.sat_lo > 0, "saturation both ways: {c:?}");
}

/// Trace rows where `port` is 1.
fn rows_high(run: &Run, port: &str) -> Vec<usize> {
    let i = run.trace.port_index(port).unwrap();
    let one = edgelearn_sim::Value::Known(1u8.into());
    (0..run.trace.rows.len())
        .filter(|&c| run.trace.rows[c][i] == one)
        .collect()
}

fn signed_at(run: &Run, port: &str, c: usize, bits: usize) -> i64 {
    let i = run.trace.port_index(port).unwrap();
    edgelearn_sim::value::to_i64(run.trace.rows[c][i].known().unwrap(), bits)
}

#[test]
fn fc_update_pow2_rom_is_the_golden_table() {
    let hdl = edgelearn_hdl::cnn::fc_update::pow2_table();
    assert_eq!(hdl, pow2_table());
}

#[test]
fn fc_update_corner_rows() {
    let stim = adapter::corner_stimulus(&ports(), 1).unwrap();
    let c = adapter::coverage(&stim);
    assert_covers_rows(&c);
    assert!(
        c.e_one >= 672 && c.e_minus_one >= 672 && c.e_zero >= 672,
        "e = 4096, -4096 and 0 on every corner row: {c:?}"
    );
    assert!(c.bias > 0);
    assert_eq!(c.error_vectors, adapter::corner_vectors().len());
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

/// The two whole-layer updates (10 x 192, outputs from `forward`; stochastic at lr 1/8, then
/// half-up at lr 1) on every backend, every output on every cycle; the weights on `w_out` are
/// `update_layer`'s, chained on one LFSR; the latencies and the cycles of a layer.
#[test]
fn fc_update_whole_layer_10x192() {
    let cases: Vec<LayerCase> = adapter::layer_cases(16, adapter::INPUTS);
    let seed = 0x0_beef;
    let (stim, starts) = adapter::layer_stimulus(&ports(), &cases, seed).unwrap();
    let c = adapter::coverage(&stim);
    assert!(c.nearest > 0 && c.stochastic > 0, "{c:?}");
    assert_eq!(c.rows, 2 * OUTS * (adapter::INPUTS + 1));
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // update_layer, chained.
    let mut lfsr = SerialLfsr::new(seed);
    let mut want = vec![];
    let mut errs = vec![];
    for case in &cases {
        let (mut w, mut b) = (case.w.clone(), case.b.clone());
        errs.push(update_layer(
            &mut w,
            &mut b,
            &case.x,
            &case.acc,
            case.label,
            &case.params,
            &mut lfsr,
        ));
        let n = case.x.len();
        for o in 0..OUTS {
            want.extend_from_slice(&w[o * n..(o + 1) * n]);
            want.push(b[o]);
        }
        let moved = w.iter().zip(&case.w).filter(|(a, b)| a != b).count();
        assert!(moved > 100, "the update moves weights: {moved}");
    }
    for run in &runs {
        let valid = rows_high(run, "w_valid");
        let got: Vec<i64> = valid
            .iter()
            .map(|&c| signed_at(run, "w_out", c, 8))
            .collect();
        assert_eq!(got, want, "{}: w_out is update_layer's", run.trace.backend);
        let ready = rows_high(run, "err_ready");
        for (k, &start) in starts.iter().enumerate() {
            let last_beat = start + OUTS - 1;
            let rise = *ready.iter().find(|&&c| c > last_beat).unwrap();
            assert_eq!(common::edges(last_beat, rise), error_latency(OUTS));
            assert_eq!(error_latency(OUTS), 37);
            for (o, &e) in errs[k].iter().enumerate() {
                // err_idx sweeps o = cycle % 16 while waiting and during the rows.
                let c = (rise..).find(|c| c % 16 == o).unwrap();
                assert_eq!(signed_at(run, "err_out", c, 14), e, "e[{o}]");
            }
            let first_row = rise + 1;
            let first_w = *valid.iter().find(|&&c| c > rise).unwrap();
            assert_eq!(common::edges(first_row, first_w), ROW_LATENCY);
            let rows = OUTS * (adapter::INPUTS + 1);
            let last_w = valid[(k + 1) * rows - 1];
            assert_eq!(
                common::edges(start, last_w) as u64,
                layer_cycles(OUTS, adapter::INPUTS)
            );
        }
    }
    assert_eq!(layer_cycles(OUTS, adapter::INPUTS), 1_977);
}

#[test]
fn fc_update_random_traffic() {
    let stim = adapter::random_stimulus(&ports(), 160, 3_000).unwrap();
    let c = adapter::coverage(&stim);
    eprintln!("{c:?}");
    assert_covers_rows(&c);
    assert!(c.error_vectors >= 8 && c.rows >= 1_000, "{c:?}");
    common::check_block(BLOCK, &stim, &Backend::THREE);
    let stim: Stimulus = adapter::random_stimulus(&ports(), 161, 30_000).unwrap();
    let c = adapter::coverage(&stim);
    eprintln!("{c:?}");
    assert_covers_rows(&c);
    assert!(c.error_vectors >= 80 && c.rows >= 5_000, "{c:?}");
    common::check_block(BLOCK, &stim, &[Backend::Verilator]);
}

fn bench(backend: Backend) -> FcUpdateBench {
    let dut = common::simulator()
        .dut(
            backend,
            edgelearn_verif::rtl::designs::build(BLOCK).unwrap(),
            &DutOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    FcUpdateBench::new(dut, OUTS).unwrap()
}

/// Three consecutive whole-layer updates through the ports (Verilator in-process), each on
/// the weights the previous one left, equal to `update_layer` chained on one LFSR.
#[test]
fn fc_update_bench_three_chained_layers() {
    let mut bench = bench(Backend::Verilator);
    let seed = 0x1_0f0f;
    bench.seed(seed).unwrap();
    let case = adapter::layer_case(
        7,
        OUTS,
        adapter::INPUTS,
        UpdateParams {
            lr_shift: 0,
            rounding: Rounding::Nearest,
            logit_shift: 6,
        },
    );
    let (mut w, mut b) = (case.w.clone(), case.b.clone());
    let (mut gw, mut gb) = (case.w.clone(), case.b.clone());
    let mut lfsr = SerialLfsr::new(seed);
    let settings = [
        (3, Rounding::Stochastic, 2),
        (8, Rounding::Nearest, 1),
        (3, Rounding::Stochastic, 0),
    ];
    for (k, &(label, rounding, lr_shift)) in settings.iter().enumerate() {
        let p = UpdateParams {
            lr_shift,
            rounding,
            logit_shift: 6,
        };
        let acc = forward(&w, &b, &case.x);
        let t = std::time::Instant::now();
        let r = bench
            .update_layer(&mut w, &mut b, &case.x, &acc, label, &p)
            .unwrap();
        eprintln!(
            "update {k}: {} cycles ({} to err_ready) in {:.3} s",
            r.cycles,
            r.error_cycles,
            t.elapsed().as_secs_f64()
        );
        assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
        let want_err = update_layer(&mut gw, &mut gb, &case.x, &acc, label, &p, &mut lfsr);
        assert_eq!(r.err, want_err);
        assert_eq!(
            (w.clone(), b.clone()),
            (gw.clone(), gb.clone()),
            "update {k}"
        );
        assert_eq!(r.cycles, layer_cycles(OUTS, adapter::INPUTS));
        assert_eq!(r.error_cycles as usize, error_latency(OUTS));
        assert_eq!(bench.lfsr(), lfsr);
    }
    assert_ne!(w, case.w);
}

/// The bench names the first difference: the block re-seeded behind its back gives other
/// stochastic roundings, found in state `update`; the error vector still agrees.
#[test]
fn fc_update_bench_reports_the_first_divergence() {
    let mut bench = bench(Backend::Verilator);
    bench.seed(5).unwrap();
    {
        let d = bench.dut();
        let (seed, load) = (d.port("seed").unwrap(), d.port("seed_load").unwrap());
        d.poke(seed, 6).unwrap();
        d.poke(load, 1).unwrap();
        d.step().unwrap();
        d.poke(load, 0).unwrap();
    }
    let case = adapter::layer_case(
        9,
        OUTS,
        32,
        UpdateParams {
            lr_shift: 0,
            rounding: Rounding::Stochastic,
            logit_shift: 6,
        },
    );
    let (mut w, mut b) = (case.w.clone(), case.b.clone());
    let r = bench
        .update_layer(&mut w, &mut b, &case.x, &case.acc, case.label, &case.params)
        .unwrap();
    let d = r.mismatch.expect("a divergence");
    assert_eq!((d.state.as_str(), d.image), ("update", 0), "{d}");
    assert!(d.what == "weight" || d.what == "bias", "{d}");
    assert_ne!(d.expected, d.got);
    // Bad inputs are errors, not panics.
    assert!(bench
        .update_layer(&mut w, &mut b, &case.x, &case.acc, OUTS, &case.params)
        .is_err());
}

/// One whole-layer update through the bench on rust-hdl's simulator too.
#[test]
fn fc_update_bench_on_native() {
    let mut bench = bench(Backend::Native);
    bench.seed(77).unwrap();
    let case = adapter::layer_case(
        3,
        OUTS,
        48,
        UpdateParams {
            lr_shift: 2,
            rounding: Rounding::Stochastic,
            logit_shift: 6,
        },
    );
    let (mut w, mut b) = (case.w.clone(), case.b.clone());
    let r = bench
        .update_layer(&mut w, &mut b, &case.x, &case.acc, case.label, &case.params)
        .unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    assert_eq!(r.cycles, layer_cycles(OUTS, 48));
}
