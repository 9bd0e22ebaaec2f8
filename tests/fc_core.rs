//! The FC core in RTL (`lel_fc_core*`, spec lel-platform.md §4.2): bit-exact with the golden
//! core image by image (outputs, LC values, classes, weights read back with I_READ), the
//! cycle table of Table 4.1, the streams under random gaps and back-pressure, I_STOP from
//! every state, reset mid-image, and no X after reset on Icarus.

use crate::common;

use common::{replay_equal, simulator};
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::fc_core::{FcCoreShape, LelFcCore};
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::lel::codec::FcCfg;
use edgelearn_verif::lel::fc_core::{FcCore, FcParams};
use edgelearn_verif::lel::network::init_weights;
use edgelearn_verif::rtl::fc::{run_fc_core, FcBench, FcCheck, FcImageReport, Traffic};
use edgelearn_verif::rtl::inputs::Sample;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn params(inputs: usize, outputs: usize, pieces: usize) -> FcParams {
    FcParams {
        inputs,
        outputs,
        pieces,
        lanes: 4,
        classes: 10,
        weight_bits: 6,
        acc_bits: 24,
        lc_acc_bits: 23,
        rnd_bits: 14,
        alpha_next: 2,
        alpha_lc: 1,
        alpha_e: 0,
    }
}

fn small_design(p: &FcParams) -> Box<dyn Design> {
    Box::new(Instance::new(
        "fc_core_small",
        LelFcCore::new(FcCoreShape {
            inputs: p.inputs,
            outputs: p.outputs,
            pieces: p.pieces,
            registered_reads: false,
        }),
    ))
}

/// The LFSR seeds of the small cores' golden models and INITs.
const SEED_LC: u32 = 0x1ace;
const SEED_WU: u32 = 0x0bee;

fn bench(backend: Backend, design: Box<dyn Design>, p: &FcParams, t: &Traffic) -> FcBench {
    let dut: Box<dyn Dut> = simulator()
        .dut(backend, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut b = FcBench::new(dut, p.clone(), t).unwrap();
    b.reset().unwrap();
    b
}

/// A bench of the small core `p` on `backend` without gaps or back-pressure, reset.
fn small_bench(backend: Backend, p: &FcParams) -> FcBench {
    bench(backend, small_design(p), p, &Traffic::default())
}

/// The checks of training: outputs, LC values and classes after every image, and every
/// weight read back after the images `weights_after` (1-based).
fn training(weights_after: Vec<usize>) -> FcCheck {
    FcCheck {
        outputs: true,
        weights_after,
        train: true,
    }
}

/// Runs `samples` on the bench beside `golden` with `check`; panics at the first
/// divergence, naming `what`.
fn run_checked(
    b: &mut FcBench,
    golden: &mut FcCore,
    samples: &[Sample],
    cfg: FcCfg,
    check: &FcCheck,
    what: &str,
) -> Vec<FcImageReport> {
    run_fc_core(b, golden, samples, cfg, check, &mut |_| {})
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Trains `samples` on the bench beside `golden` with the checks of [`training`]; panics
/// at the first divergence, naming `what`.
fn train_bit_exactly(
    b: &mut FcBench,
    golden: &mut FcCore,
    samples: &[Sample],
    cfg: FcCfg,
    weights_after: Vec<usize>,
    what: &str,
) -> Vec<FcImageReport> {
    run_checked(b, golden, samples, cfg, &training(weights_after), what)
}

/// The small core `p` on the bench: INIT with `golden`'s weights and the test seeds, then
/// `samples` trained bit-exactly, every weight read back after the last one.
fn small_core_trains(
    b: &mut FcBench,
    golden: &mut FcCore,
    samples: &[Sample],
    p: &FcParams,
    what: &str,
) {
    b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
    train_bit_exactly(b, golden, samples, cfg(p, 0), vec![samples.len()], what);
}

/// A golden core with eq 3.2 weights and random activations (with zeros, corner values).
fn random_case(p: &FcParams, images: usize, seed: u64) -> (FcCore, Vec<Sample>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let w = init_weights(
        &mut rng,
        p.inputs * p.outputs / p.pieces,
        p.inputs / p.pieces,
        6,
    );
    let core = FcCore::new(p.clone(), w, SEED_LC, SEED_WU);
    let samples = (0..images)
        .map(|_| Sample {
            input: (0..p.inputs)
                .map(|_| match rng.random_range(0..8) {
                    0 => 0,
                    1 => 127,
                    2 => -128,
                    _ => rng.random_range(0..128),
                })
                .collect(),
            label: rng.random_range(0..10),
        })
        .collect();
    (core, samples)
}

fn cfg(p: &FcParams, lr_shift: u32) -> FcCfg {
    FcCfg {
        alpha_next: p.alpha_next,
        alpha_e: p.alpha_e,
        lr_shift,
        alpha_lc: p.alpha_lc,
    }
}

#[test]
fn small_core_trains_bit_exactly_on_verilator() {
    let p = params(32, 16, 4);
    let (mut golden, samples) = random_case(&p, 6, 7);
    let mut b = small_bench(Backend::Verilator, &p);
    let init = b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
    eprintln!("INIT {init:?}");
    let r = run_fc_core(
        &mut b,
        &mut golden,
        &samples,
        cfg(&p, 0),
        &training((1..=6).collect()),
        &mut |r| eprintln!("{r:?}"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.len(), 6);
}

fn mnist() -> edgelearn_verif::datasets::mnist::Mnist {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    edgelearn_verif::datasets::mnist::load(&root.join("data/mnist-10k")).unwrap()
}

/// Table 4.1 (FC0) and its derived form for FC1 (spec §4.2): INIT, LOAD, INF, LOSS, BK, WU, FIN.
fn expected_cycles(n: usize) -> [(&'static str, u64); 6] {
    let n = n as u64;
    [
        ("LS_LOAD", n / 4 + 2),
        ("LS_INF", 30 * n + 608),
        ("LS_LOSS", 1),
        ("LS_BK", 489),
        ("LS_WU", 30 * n + 17),
        ("LS_FIN", 1),
    ]
}

/// A shipped instance fed by the golden network on the first MNIST training images:
/// Table 4.1 cycles on every image, and every weight after 1, 5 and 20 images.
fn shipped_core_trains(name: &str, config: &str, x: usize, n_inputs: usize) {
    use edgelearn_verif::rtl::{designs, inputs};
    let cfg = designs::shipped_config(config);
    let feed = inputs::fc_feed(&cfg, &mnist().train, 20, x).unwrap();
    let mut golden = feed.core.clone();
    assert_eq!(golden.p.inputs, n_inputs);
    let design = designs::build(name).unwrap();
    let mut b = bench(Backend::Verilator, design, &golden.p, &Traffic::default());
    let t = std::time::Instant::now();
    let init = b.init(&golden.w, feed.seed_lc, feed.seed_wu).unwrap();
    assert_eq!(
        init.0,
        vec![("LS_INIT".to_string(), 30 * n_inputs as u64 + 3)]
    );
    let reports = train_bit_exactly(
        &mut b,
        &mut golden,
        &feed.samples,
        feed.cfg,
        vec![1, 5, 20],
        name,
    );
    for r in &reports {
        for (state, want) in expected_cycles(n_inputs) {
            assert_eq!(r.cycles[state], want, "{name} image {}: {state}", r.image);
        }
    }
    assert_ne!(golden.w, feed.core.w, "{name}: training changed no weight");
    eprintln!(
        "{name}: 20 images bit-exact, {} cycles per image, {:.1} s",
        reports[0].total_cycles,
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn fc_core0_thesis_table_4_1_and_bit_exact_weights() {
    shipped_core_trains("lel_fc_core0", "thesis-cifar10", 0, 2400);
}

#[test]
fn fc_core1_derived_table_and_bit_exact_weights() {
    shipped_core_trains("lel_fc_core1", "thesis-cifar10", 1, 480);
}

#[test]
fn fc_core0_mnist_bit_exact_weights() {
    shipped_core_trains("lel_fc_core0_mnist", "mnist", 0, 1536);
}

/// FC core 1 through its streams with random gaps on the input and random back-pressure on
/// the output (the protocol monitor checks both every cycle), then with a sink that raises
/// ready only after valid (a core whose valid waited for ready would hang): INIT, five
/// images and READ all bit-exact.
#[test]
fn fc_core_streams_under_gaps_and_backpressure() {
    use edgelearn_verif::rtl::{designs, inputs};
    let cfg = designs::shipped_config("thesis-cifar10");
    let feed = inputs::fc_feed(&cfg, &mnist().train, 5, 1).unwrap();
    for (k, traffic) in [
        Traffic {
            gaps: Gaps::Anywhere(0.3),
            backpressure: Backpressure::Random(0.4),
            seed: 11,
        },
        Traffic {
            gaps: Gaps::Anywhere(0.05),
            backpressure: Backpressure::AfterValid(0.5),
            seed: 12,
        },
    ]
    .into_iter()
    .enumerate()
    {
        let mut golden = feed.core.clone();
        let mut b = bench(
            Backend::Verilator,
            designs::build("lel_fc_core1").unwrap(),
            &golden.p,
            &traffic,
        );
        b.init(&golden.w, feed.seed_lc, feed.seed_wu).unwrap();
        let r = train_bit_exactly(
            &mut b,
            &mut golden,
            &feed.samples,
            feed.cfg,
            vec![1, 5],
            &format!("traffic {k}"),
        );
        // Stalls only stretch the cycle counts.
        assert!(
            r.iter().all(|r| r.cycles["LS_INF"] >= 15_008),
            "traffic {k}"
        );
    }
}

/// I_INF runs LOAD, INF, FIN only and leaves every weight as it was.
#[test]
fn fc_core_inference_leaves_weights_unchanged() {
    let p = params(64, 32, 4);
    let (mut golden, samples) = random_case(&p, 4, 21);
    let w0 = golden.w.clone();
    let mut b = small_bench(Backend::Verilator, &p);
    b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
    let inference = FcCheck {
        outputs: true,
        weights_after: vec![4],
        train: false,
    };
    let r = run_checked(
        &mut b,
        &mut golden,
        &samples,
        cfg(&p, 0),
        &inference,
        "inference",
    );
    assert_eq!(golden.w, w0);
    for im in &r {
        let states: Vec<&str> = im.cycles.keys().map(|s| s.as_str()).collect();
        assert_eq!(
            states,
            ["LS_FIN", "LS_INF", "LS_LOAD"],
            "image {}",
            im.image
        );
    }
    let (w, _) = b.read_weights().unwrap();
    assert_eq!(w, w0);
}

/// I_STOP in every state returns to LS_IDLE at the next edge; the next image then trains
/// bit-exactly (after a fresh INIT where the stop left the weights or the LFSR mid-way:
/// in LS_INIT, and in LS_WU with the weights read back).
#[test]
fn fc_core_stop_from_every_state() {
    let p = params(32, 16, 4);
    for state in 1..=8u64 {
        let (mut golden, samples) = random_case(&p, 3, 100 + state);
        let mut b = small_bench(Backend::Verilator, &p);
        let c = cfg(&p, 0);
        let (s0, s1) = (&samples[0], &samples[1]);
        if state != 1 {
            b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
        }
        match state {
            1 => {
                b.start_init(&golden.w, SEED_LC, SEED_WU).unwrap();
                b.run_until_state(1, 16).unwrap();
                b.dut().steps(0).unwrap();
                for _ in 0..10 {
                    b.cycle().unwrap();
                }
            }
            8 => {
                b.set_instr(5).unwrap();
                b.run_until_state(8, 16).unwrap();
                b.set_instr(0).unwrap();
                for _ in 0..7 {
                    b.cycle().unwrap();
                }
            }
            _ => {
                b.start_image(&s0.input, s0.label, c, true).unwrap();
                b.run_until_state(state, 1000).unwrap();
                if state != 4 && state != 7 {
                    for _ in 0..3 {
                        b.cycle().unwrap();
                    }
                }
            }
        }
        assert_eq!(b.state(), state, "reached the state to stop");
        assert_eq!(b.stop().unwrap(), 1, "state {state}: I_STOP takes one edge");
        match state {
            1 => {
                b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
            }
            6 => {
                // A stopped update leaves some words updated and the LFSR part-way.
                let (w, _) = b.read_weights().unwrap();
                golden = FcCore::new(p.clone(), w.clone(), SEED_LC, SEED_WU);
                b.init(&w, SEED_LC, SEED_WU).unwrap();
            }
            7 => {
                // The image had finished: the golden core learns it too.
                let fwd = golden.forward(&s0.input);
                let e = golden.backward(&fwd, s0.label);
                golden.update(&s0.input, &e, 0);
            }
            _ => {}
        }
        train_bit_exactly(
            &mut b,
            &mut golden,
            std::slice::from_ref(s1),
            c,
            vec![1],
            &format!("after I_STOP in state {state}"),
        );
    }
}

/// A reset in LS_INF or LS_WU: back to LS_IDLE with the caches kept; READ gives the weights,
/// INIT restarts the LFSRs, and the next image trains bit-exactly.
#[test]
fn fc_core_reset_mid_image() {
    let p = params(32, 16, 4);
    for state in [3u64, 6] {
        let (mut golden, samples) = random_case(&p, 2, 300 + state);
        let mut b = small_bench(Backend::Verilator, &p);
        b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
        let c = cfg(&p, 1);
        b.start_image(&samples[0].input, samples[0].label, c, true)
            .unwrap();
        b.run_until_state(state, 1000).unwrap();
        b.cycle().unwrap();
        b.reset().unwrap();
        assert_eq!(b.state(), 0);
        let (w, _) = b.read_weights().unwrap();
        if state == 3 {
            assert_eq!(w, golden.w, "a reset in LS_INF changes no weight");
        }
        golden = FcCore::new(p.clone(), w.clone(), SEED_LC, SEED_WU);
        b.init(&w, SEED_LC, SEED_WU).unwrap();
        train_bit_exactly(
            &mut b,
            &mut golden,
            &samples[1..],
            c,
            vec![1],
            &format!("after a reset in state {state}"),
        );
    }
}

/// The same small core on rust-hdl's simulator: INIT, two images and READ bit-exact.
#[test]
fn small_core_trains_bit_exactly_on_rust_hdl() {
    let p = params(32, 16, 4);
    let (mut golden, samples) = random_case(&p, 2, 8);
    let mut b = small_bench(Backend::Native, &p);
    small_core_trains(&mut b, &mut golden, &samples, &p, "rust-hdl");
}

/// One FC core 1 image (INIT and a training image, recorded from the Verilator bench)
/// replayed on Icarus: four-state simulation shows no X on any output after reset, and
/// every output equals Verilator's on every cycle.
#[test]
fn fc_core1_image_on_icarus_has_no_x() {
    use edgelearn_verif::rtl::{designs, inputs};
    let cfg = designs::shipped_config("thesis-cifar10");
    let feed = inputs::fc_feed(&cfg, &mnist().train, 1, 1).unwrap();
    let mut golden = feed.core.clone();
    // Row 0 is the reset cycle itself; from row 1 on every output is known and equal.
    replay_equal(
        || designs::build("lel_fc_core1").unwrap(),
        Backend::Icarus,
        |dut| {
            let mut b = FcBench::new(dut, golden.p.clone(), &Traffic::default()).unwrap();
            b.reset().unwrap();
            b.init(&golden.w, feed.seed_lc, feed.seed_wu).unwrap();
            train_bit_exactly(
                &mut b,
                &mut golden,
                &feed.samples,
                feed.cfg,
                vec![],
                "on Verilator",
            );
        },
    );
}

/// A wrong golden model is caught and named: the image, the state, what and which index.
#[test]
fn divergences_name_image_state_index_expected_and_got() {
    use edgelearn_verif::rtl::RtlError;
    let p = params(32, 16, 4);
    let (golden, samples) = random_case(&p, 3, 9);
    let check = training(vec![1, 2, 3]);
    // Only the weight checks can see a golden weight nobody reads (input 7 of a piece is
    // zero in every image); a weight that matters changes an output first.
    for (k, outputs_too) in [(7usize, false), (0, true)] {
        let mut samples = samples.clone();
        for s in samples.iter_mut() {
            for piece in 0..4 {
                s.input[piece * 8 + 7] = 0;
            }
            s.input[0] = 100;
        }
        let mut wrong = golden.clone();
        wrong.w[k] = if wrong.w[k] > 0 { -31 } else { 31 };
        let mut b = small_bench(Backend::Verilator, &p);
        b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
        match run_fc_core(
            &mut b,
            &mut wrong,
            &samples,
            cfg(&p, 0),
            &check,
            &mut |_| {},
        ) {
            Err(RtlError::Divergence(d)) => {
                assert_eq!((d.block.as_str(), d.image), ("fc_core_small", 0), "{d}");
                if outputs_too {
                    // An output, or else the weight itself after the image.
                    assert!(d.state == "LS_INF" || d.index == k, "{d}");
                } else {
                    assert_eq!((d.state.as_str(), d.index), ("LS_WU", k), "{d}");
                    assert!(d.what.contains("sub-layer 0, output 0, input 7"), "{d}");
                    assert_eq!(d.expected, wrong.w[k].to_string(), "{d}");
                }
            }
            other => panic!("expected a divergence, got {other:?}"),
        }
    }
}

/// The small core's Yosys netlist (simulated by Icarus) trains as the RTL does: INIT, an
/// image with negative activations, READ (rust-hdl pitfall P8: a netlist can differ where
/// every simulator agrees).
#[test]
fn small_core_netlist_equals_rtl() {
    let p = params(32, 16, 4);
    let (mut golden, samples) = random_case(&p, 1, 31);
    replay_equal(
        || small_design(&p),
        Backend::Netlist,
        |dut| {
            let mut b = FcBench::new(dut, p.clone(), &Traffic::default()).unwrap();
            b.reset().unwrap();
            small_core_trains(&mut b, &mut golden, &samples, &p, "on Verilator");
        },
    );
}

#[test]
fn fc_core1_mnist_bit_exact_weights() {
    shipped_core_trains("lel_fc_core1", "mnist", 1, 480);
}

/// FC cores of 2 and 8 lanes, built the way the CLI builds them (`fc_core_design`): a small
/// core trains bit-exactly with the golden model at its lane count (outputs, LC values,
/// classes, every weight read back after every image), each state takes the cycles of the
/// formula in L (`fc_cycle_table`), and the 8-lane core's 64-bit streams hold under gaps
/// and back-pressure; with registered weight-cache reads (D-REGISTERED-READS) too.
#[test]
fn cores_of_2_and_8_lanes_train_bit_exactly_in_the_cycles_of_the_formula() {
    use edgelearn_hdl::lel::fc_core::fc_core_design;
    use edgelearn_verif::rtl::fc_cycle_table;
    for (lanes, traffic, registered_reads) in [
        (2, Traffic::default(), false),
        (4, Traffic::default(), true),
        (
            8,
            Traffic {
                gaps: Gaps::Anywhere(0.2),
                backpressure: Backpressure::Random(0.5),
                seed: 13,
            },
            false,
        ),
        (
            8,
            Traffic {
                gaps: Gaps::Anywhere(0.2),
                backpressure: Backpressure::Random(0.5),
                seed: 13,
            },
            true,
        ),
    ] {
        let mut p = params(96, 64, 2);
        p.lanes = lanes;
        let shape = FcCoreShape {
            inputs: p.inputs,
            outputs: p.outputs,
            pieces: p.pieces,
            registered_reads,
        };
        let rr = if registered_reads { "_rr" } else { "" };
        let design = fc_core_design(&format!("fc_core_small_l{lanes}{rr}"), lanes, shape).unwrap();
        let (mut golden, samples) = random_case(&p, 4, 9 + lanes as u64);
        let mut b = bench(Backend::Verilator, design, &p, &traffic);
        let init = b.init(&golden.w, SEED_LC, SEED_WU).unwrap();
        let what = format!("{lanes} lanes{rr}");
        let reports = train_bit_exactly(
            &mut b,
            &mut golden,
            &samples,
            cfg(&p, 0),
            (1..=samples.len()).collect(),
            &what,
        );
        // Stalls only stretch the counts: the formula holds where the streams never wait.
        let table = fc_cycle_table(&shape, lanes);
        if matches!(traffic.gaps, Gaps::None) {
            assert_eq!(init.get("LS_INIT"), table[0].1, "{what}: LS_INIT");
            for r in &reports {
                for &(state, cycles) in &table[1..] {
                    assert_eq!(r.cycles[state], cycles, "{what}: image {} {state}", r.image);
                }
            }
        }
    }
}
