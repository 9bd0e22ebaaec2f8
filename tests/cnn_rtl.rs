//! The CNN engine in RTL (issue 15): real ai8x networks and layer tests on the engine,
//! every layer's data-memory words compared with the golden model.

mod common;

use common::simulator;
use edgelearn_hdl::cnn::{self as hcnn, EngineShape};
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::Backend;
use edgelearn_verif::cnn::{self, engine, Device, Network, RunOptions};
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, Load, SimReport};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn data(rel: &str) -> PathBuf {
    root().join("data").join(rel)
}

/// Runs a network on the engine; panics with the first mismatch.
fn run_case(
    yaml: &Path,
    weights: &Path,
    bias: Option<&Path>,
    input: &Path,
    flags: &str,
    shape: EngineShape,
    how: Load,
) -> Result<SimReport, String> {
    let mut net =
        Network::load(yaml, weights, bias, Device::max78000()).map_err(|e| e.to_string())?;
    net.infer_max_proc = true;
    let input = cnn::weights::load_input(input).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        avg_pool_rounding: flags.contains("--avg-pool-rounding"),
        ..RunOptions::default()
    };
    let stop = flags
        .split_whitespace()
        .skip_while(|f| *f != "--stop-after")
        .nth(1)
        .map(|n| n.parse().unwrap());
    let inf = net.infer(&input, &opts, stop).map_err(|e| e.to_string())?;
    let img = engine::build(&net.desc, &net.weights, &inf.plan, &input, &opts, &shape)
        .map_err(|e| format!("not supported: {e}"))?;
    let dut = simulator()
        .dut(
            Backend::Verilator,
            Box::new(hcnn::engine(&shape)),
            &DutOptions::default(),
        )
        .unwrap();
    let mut bench = CnnBench::new(dut, shape).unwrap();
    let rep = simulate(&mut bench, &net, &inf, &img, how).map_err(|e| e.to_string())?;
    if let Some(d) = rep.first_mismatch() {
        return Err(format!("mismatch: {d}"));
    }
    assert_eq!(&rep.output, inf.output(), "unloaded output");
    Ok(rep)
}

#[test]
fn mnist_on_the_engine_is_bit_exact() {
    let rep = run_case(
        &data("ai8x/mnist-chw-ai85.yaml"),
        &data("ai8x/ai85-mnist-qat8-q.pth.tar"),
        None,
        &data("ai8x/sample_mnist.npy"),
        "",
        EngineShape::MAX78000,
        Load::Backdoor,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for l in &rep.layers {
        println!("layer {} cycles {} words {}", l.layer, l.cycles, l.words);
    }
    println!("cycles {}", rep.cycles);
}

#[test]
#[ignore]
fn print_public() {
    use edgelearn_sim::dut::verilator::VerilatorDut;
    let root = simulator().root().to_path_buf();
    let d = VerilatorDut::new(
        &root,
        Box::new(hcnn::engine(&EngineShape::with_processors(16))),
        &DutOptions::default(),
    )
    .unwrap();
    for v in d.public_variables().iter().filter(|v| v.3 > 0) {
        println!("{v:?}");
    }
}
