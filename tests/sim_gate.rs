//! Simulation clock gates (`SimGate`, docs/decisions.md D-SIM-GATE): the in-process
//! Verilator model holds the clock of a block that is idle with its inputs held. The
//! reference is the same model with gating off (every block clocked at every edge, as every
//! other backend does): gated and ungated runs of the same bench must agree on every output
//! of every cycle, and the gated one must actually skip edges. A dishonest gate (one that
//! hides a block that still changes) is caught by that comparison.

use crate::common;

use common::simulator;
use edgelearn_hdl::cnn::EngineShape;
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::sim_gate::{SimGateDemo, SIM_GATE_HOLD};
use edgelearn_sim::dut::record::Recorder;
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::{compare, Backend, Trace};
use edgelearn_verif::cnn::{self, Device, Network, RunOptions};
use edgelearn_verif::lel::network::{lfsr_seeds, LelNetwork};
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, Load};
use edgelearn_verif::rtl::designs::{engine_design, platform_design, platform_shape};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::{configure, train_epoch, PlatformBench, PlatformCheck};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::PathBuf;

/// Run `bench` on the Verilator model of `design` with gating on and off; the two traces of
/// every output, and the gate ticks of the gated run.
/// `bench` owns the model and returns its gate ticks and cycles at the end.
fn gated_and_ungated(
    design: impl Fn() -> Box<dyn Design>,
    bench: impl Fn(Box<dyn Dut>) -> (Vec<(String, u64)>, u64),
) -> (Trace, Trace, Vec<(String, u64)>, u64) {
    let sim = simulator();
    let mut runs = Vec::new();
    for ungated in [false, true] {
        let opts = DutOptions {
            ungated,
            ..DutOptions::default()
        };
        let dut = sim
            .dut(Backend::Verilator, design(), &opts)
            .unwrap_or_else(|e| panic!("{e}"));
        let (rec, recording) = Recorder::new(dut);
        let (ticks, cycles) = bench(Box::new(rec));
        let mut trace = recording.trace();
        trace.backend = if ungated { "ungated" } else { "gated" }.into();
        runs.push((trace, ticks, cycles));
    }
    let (ungated, _, _) = runs.pop().unwrap();
    let (gated, ticks, cycles) = runs.pop().unwrap();
    (gated, ungated, ticks, cycles)
}

fn demo(honest: bool) -> Box<dyn Design> {
    Box::new(Instance::new("sim_gate_demo", SimGateDemo::new(honest)))
}

/// The demo's outputs after every edge, its gate's clocked edges and its cycles.
struct DemoRun {
    rows: Vec<(u64, u64)>,
    ticks: Vec<(String, u64)>,
    cycles: u64,
}

/// `en` high for 200 cycles, low for 300 (a backdoor write to RAM word 0 in the middle),
/// high for 100, low for 100; gating on or off, optionally writing a VCD.
fn demo_run(honest: bool, ungated: bool, vcd: Option<std::path::PathBuf>) -> DemoRun {
    let opts = DutOptions {
        ungated,
        vcd,
        ..DutOptions::default()
    };
    let mut d = simulator()
        .dut(Backend::Verilator, demo(honest), &opts)
        .unwrap_or_else(|e| panic!("{e}"));
    let (en, count, word) = (
        d.port("en").unwrap(),
        d.port("count").unwrap(),
        d.port("word").unwrap(),
    );
    let mem = d.memories()[0].name.clone();
    let mut rows = Vec::new();
    for (level, n) in [(1, 200), (0, 150), (0, 150), (1, 100), (0, 100)] {
        if d.cycle() == 350 {
            d.load_mem(&mem, 0, &[0x5a]).unwrap();
        }
        d.poke(en, level).unwrap();
        for _ in 0..n {
            d.step().unwrap();
            rows.push((d.peek(count).unwrap(), d.peek(word).unwrap()));
        }
    }
    d.finish().unwrap();
    DemoRun {
        rows,
        ticks: d.sim_gate_ticks(),
        cycles: d.cycle(),
    }
}

/// The first cycle at which two runs differ: (cycle, what, reference, gated).
fn first_difference(a: &DemoRun, b: &DemoRun) -> Option<(usize, &'static str, u64, u64)> {
    a.rows
        .iter()
        .zip(&b.rows)
        .enumerate()
        .find_map(|(c, (x, y))| {
            if x.0 != y.0 {
                Some((c, "count", x.0, y.0))
            } else if x.1 != y.1 {
                Some((c, "word", x.1, y.1))
            } else {
                None
            }
        })
}

/// The golden model's outputs for `demo_run`'s stimulus.
fn demo_golden() -> Vec<(u64, u64)> {
    let mut g = edgelearn_verif::golden::sim_gate::SimGateDemo::new();
    let mut rows = Vec::new();
    let mut cycle = 0;
    for (level, n) in [(1, 200), (0, 150), (0, 150), (1, 100), (0, 100)] {
        if cycle == 350 {
            g.write_ram0(0x5a);
        }
        for _ in 0..n {
            g.edge(level == 1);
            rows.push(g.outputs());
            cycle += 1;
        }
    }
    rows
}

#[test]
fn an_honest_gate_skips_idle_edges_and_changes_nothing() {
    let (gated, ungated) = (demo_run(true, false, None), demo_run(true, true, None));
    assert_eq!(
        ungated.rows,
        demo_golden(),
        "the ungated model is the golden model"
    );
    assert_eq!(first_difference(&ungated, &gated), None);
    assert_eq!(gated.ticks.len(), 1, "one gate: {:?}", gated.ticks);
    let (path, n) = &gated.ticks[0];
    assert_eq!(path, "gate");
    assert_eq!(ungated.ticks[0].1, ungated.cycles, "ungated: every edge");
    // Clocked while counting and for the hold after each change of `en` or of the RAM.
    assert!(
        *n < gated.cycles - 200,
        "the gate clocked {n} of {} edges: it skipped almost nothing",
        gated.cycles
    );
    assert!(*n >= 300, "the gate clocked only {n} edges");
    assert_eq!(gated.rows.last().unwrap().0, 300, "200 + 100 counted edges");
    assert_eq!(
        gated.rows.last().unwrap().1,
        0x5a,
        "the backdoor write woke the gated RAM"
    );
}

#[test]
fn a_gate_that_hides_a_changing_block_is_caught() {
    let (gated, ungated) = (demo_run(false, false, None), demo_run(false, true, None));
    let (cycle, what, _, _) =
        first_difference(&ungated, &gated).expect("a dishonest gate must change the run");
    assert_eq!(what, "count");
    // The counter stops once `en` has been steady for the gate's hold.
    assert!(
        cycle > SIM_GATE_HOLD && cycle < 200,
        "first difference at cycle {cycle}"
    );
}

#[test]
fn a_gated_model_writing_a_vcd_runs_the_same() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("sim-gate-vcd-{}", std::process::id()));
    let vcd = dir.join("demo.vcd");
    let plain = demo_run(true, false, None);
    let traced = demo_run(true, false, Some(vcd.clone()));
    assert_eq!(first_difference(&plain, &traced), None);
    assert_eq!(plain.ticks, traced.ticks, "the same edges skipped");
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        text.contains("sim_clock_0"),
        "the gate's clock is in the VCD"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tiny platform, with FC cores of 4 and of 8 lanes: INIT, then a pipelined epoch of 12
/// images under random input gaps and back-pressure, then the weights read back; gated and
/// ungated agree on every port of every cycle, and every core and block group was left
/// unclocked for part of the run.
#[test]
fn the_gated_platform_equals_the_ungated_one_cycle_for_cycle() {
    let four = common::tiny_platform();
    gated_platform_equals_ungated(&four);
    // With FC cores of 8 lanes behind their width adapters (inside the FC gates).
    let mut eight = common::tiny_platform();
    eight.fc[0].outputs = 32;
    eight.fc[0].pieces = 2;
    gated_platform_equals_ungated(&eight.with_lanes(8).unwrap());
}

fn gated_platform_equals_ungated(cfg: &edgelearn_verif::lel::config::PlatformConfig) {
    let cfg = cfg.clone();
    let design = || platform_design("lel_platform_tiny", &cfg).unwrap();
    let bench = |d: Box<dyn Dut>| {
        let net = LelNetwork::new(&cfg).unwrap();
        let traffic = Traffic {
            gaps: Gaps::Anywhere(0.3),
            backpressure: Backpressure::Random(0.7),
            seed: 11,
        };
        let fc = [net.cores[0].p.clone(), net.cores[1].p.clone()];
        let mut b = PlatformBench::new(d, platform_shape(&cfg).unwrap(), fc, &traffic).unwrap();
        let mut net = net;
        b.reset().unwrap();
        configure(&mut b, &net, 1).unwrap();
        let seeds = lfsr_seeds(&cfg);
        b.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])
            .unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let px = cfg.input.channels * cfg.input.height * cfg.input.width;
        let x: Vec<Vec<i32>> = (0..12)
            .map(|_| (0..px).map(|_| rng.random_range(0..128)).collect())
            .collect();
        let y: Vec<u32> = (0..12).map(|_| rng.random_range(0..10)).collect();
        let order: Vec<usize> = (0..12).collect();
        let check = PlatformCheck {
            outputs: true,
            weights_every: None,
        };
        train_epoch(&mut b, &mut net, &x, &y, &order, 1, check, &mut |_| {})
            .unwrap_or_else(|e| panic!("{e}"));
        let w = b.read_weights().unwrap();
        assert_eq!(w[0], net.cores[0].w, "FC0 weights after the epoch");
        assert_eq!(w[1], net.cores[1].w, "FC1 weights after the epoch");
        (b.dut().sim_gate_ticks(), b.dut().cycle())
    };
    let (gated, ungated, ticks, cycles) = gated_and_ungated(design, bench);
    if let Err(m) = compare(&ungated, &gated) {
        panic!("{m}");
    }
    let paths: Vec<&str> = ticks.iter().map(|(p, _)| p.as_str()).collect();
    for g in [
        "core.gate_conv",
        "core.gate_fc0",
        "core.gate_fc1",
        "core.fc0.fc.mm_group.gate",
        "core.fc0.fc.lc_group.gate",
        "core.fc0.fc.bk_group.gate",
        "core.fc1.fc.wu_group.gate",
    ] {
        assert!(paths.contains(&g), "gate {g} missing from {paths:?}");
    }
    for (g, n) in &ticks {
        assert!(n < &cycles, "{g} clocked every one of {cycles} edges");
    }
}

/// An ai8x network or layer test on the 64-processor engine, gated and ungated: every output
/// on every cycle equal, every layer's data memories equal to the golden model in both runs,
/// and the quad halves' gates skipping edges (the quads' two gates, D-SIM-GATE). Loaded
/// through the host port (a recorded run has no backdoor writes).
fn engine_gated_equals_ungated(
    name: &str,
    (yaml, weights, bias, input): (PathBuf, PathBuf, Option<PathBuf>, PathBuf),
    opts: RunOptions,
    stop: Option<usize>,
) {
    let mut net = Network::load(&yaml, &weights, bias.as_deref(), Device::max78000()).unwrap();
    net.infer_max_proc = true;
    let x = cnn::weights::load_input(&input).unwrap();
    let inf = net.infer(&x, &opts, stop).unwrap();
    let shape = EngineShape::with_processors(64);
    let img = cnn::engine::build(&net.desc, &net.weights, &inf.plan, &x, &opts, &shape)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let design = || engine_design(&shape);
    let bench = |d: Box<dyn Dut>| {
        let mut b = CnnBench::new(d, shape).unwrap();
        let rep = simulate(&mut b, &net, &inf, &img, Load::FrontDoor).unwrap();
        if let Some(d) = rep.first_mismatch() {
            panic!("{name}: {d}");
        }
        (b.dut().sim_gate_ticks(), b.dut().cycle())
    };
    let (gated, ungated, ticks, cycles) = gated_and_ungated(design, bench);
    if let Err(m) = compare(&ungated, &gated) {
        panic!("{name}: {m}");
    }
    assert_eq!(ticks.len(), 32, "{name}: two gates a quad");
    for half in ["gather_gate", "mac_gate"] {
        let skipped = ticks
            .iter()
            .filter(|(p, n)| p.ends_with(&format!(".{half}")) && *n < cycles)
            .count();
        // A quad the whole run uses may be clocked at every edge; the others are not.
        assert!(
            skipped > 0,
            "{name}: no quad's {half} skips an edge: {ticks:?}"
        );
    }
}

#[test]
fn the_gated_engine_equals_the_ungated_one_cycle_for_cycle() {
    // MNIST: a layer of one quad, max and average pooling before convolutions.
    engine_gated_equals_ungated(
        "mnist",
        (
            common::cli::data("ai8x/mnist-chw-ai85.yaml"),
            common::cli::data("ai8x/ai85-mnist-qat8-q.pth.tar"),
            None,
            common::cli::data("ai8x/sample_mnist.npy"),
        ),
        RunOptions::default(),
        None,
    );
    // Element-wise operations with pooling before and after them, rounded average pooling,
    // and 1-, 2- and 4-bit weights (several kernels a word).
    let kat = common::kat_cases();
    for name in [
        "t-eltwise-pool-avg",
        "t-eltwise-poolafter-avg",
        "t-eltwise-add7-conv2d",
        "t-avgpool3x3s1-round",
        "t-conv1d-multilayer-q1248",
    ] {
        let k = kat
            .iter()
            .find(|k| k.name == name)
            .unwrap_or_else(|| panic!("{name} is not vendored"));
        engine_gated_equals_ungated(
            name,
            (
                k.yaml.clone(),
                k.weights.clone(),
                k.bias.clone(),
                k.input.clone(),
            ),
            k.opts.clone(),
            k.stop,
        );
    }
}
