//! `edgelearn demo`: the first end-to-end run a new user sees.

use super::emit;
use anyhow::Context;
use edgelearn_sim::{check, compare, Backend, RunOptions, Simulator};
use edgelearn_verif::blocks::golden_trace;
use edgelearn_verif::blocks::matmul::thesis_stimulus;
use edgelearn_verif::rtl::designs;
use std::path::Path;
use std::process::ExitCode;

pub fn run(out: &Path, seed: u64) -> anyhow::Result<ExitCode> {
    println!(
        "== emitting every block to {}",
        out.join("verilog").display()
    );
    emit::run(&[], true, None, &out.join("verilog"), false)?;

    let block = designs::name::LEL_MATMUL;
    let ports = designs::build(block)?.ports().to_vec();
    let (alpha_fc, alpha_lc) = (4, 4);
    let (stim, _bursts, starts) = thesis_stimulus(&ports, seed, alpha_fc, alpha_lc)?;
    let expected = golden_trace(block, &ports, &stim).context("no golden model")?;
    println!(
        "\n== thesis matmul test (thesis §4.1.1): 2 bursts x 600 rows, weights in -31..31, inputs in -127..127, alpha_fc = alpha_lc = {alpha_fc}, seed {seed}"
    );
    let sim = Simulator::from_env();
    let vcd = out.join("demo").join("lel_matmul_icarus.vcd");
    println!(
        "{:<12} {:<10} {:>8} {:>10} {:>9} {:>14} {:>9} {:>10}",
        "block", "backend", "cycles", "build s", "sim s", "cycles/s", "latency", "bit-exact"
    );
    let mut all_ok = true;
    let mut reference = None;
    for backend in Backend::ALL {
        let opts = RunOptions {
            vcd: (backend == Backend::Icarus).then(|| vcd.clone()),
            ..Default::default()
        };
        let run = sim
            .run(backend, designs::build(block)?, &stim, &opts)
            .with_context(|| format!("{block} on {backend}"))?;
        let golden = check(&expected, &run.trace);
        let cross = reference
            .as_ref()
            .map(|r| compare(r, &run.trace))
            .unwrap_or(Ok(()));
        let ok = golden.is_ok() && cross.is_ok();
        all_ok &= ok;
        let vi = run.trace.port_index("valid_out").context("valid_out")?;
        let latency = run
            .trace
            .rows
            .iter()
            .position(|r| r[vi] == edgelearn_sim::Value::Known(1u8.into()))
            .map(|r| (r + 1 - starts[0]).to_string())
            .unwrap_or_else(|| "-".into());
        let build = if run.stats.cached {
            format!("{:.2}*", run.stats.build_seconds)
        } else {
            format!("{:.2}", run.stats.build_seconds)
        };
        println!(
            "{:<12} {:<10} {:>8} {:>10} {:>9.3} {:>14.0} {:>9} {:>10}",
            block,
            backend.name(),
            run.stats.cycles,
            build,
            run.stats.run_seconds,
            run.stats.cycles_per_second(),
            latency,
            if ok { "yes" } else { "NO" }
        );
        if let Err(m) = golden {
            eprintln!("{m}");
        }
        if let Err(m) = cross {
            eprintln!("{m}");
        }
        if reference.is_none() {
            reference = Some(run.trace);
        }
    }
    println!(
        "(* = Verilator build or Yosys netlist reused from the cache under {})",
        sim.root().display()
    );
    println!("latency = clock edges from valid_in rising to valid_out rising (thesis: 602)");
    println!("netlist = Icarus on the Yosys `synth -flatten` netlist of the emitted Verilog");
    println!("VCD of the Icarus run: {}", vcd.display());
    all_ok &= lel_platform()?;
    all_ok &= cnn_mnist(out)?;
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The LEL platform in RTL learning on MNIST (Verilator), next to the thesis's cycle table,
/// and the golden model trained on the whole training split for comparison.
fn lel_platform() -> anyhow::Result<bool> {
    use edgelearn_verif::datasets::mnist;
    use edgelearn_verif::lel::config::PlatformConfig;
    use edgelearn_verif::lel::train::{train, Mode, Progress};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("data/mnist-10k");
    let mnist_cfg = root.join("configs/mnist.toml");
    println!();
    println!("== the LEL platform in RTL (lel_platform_mnist: conv -> FC0 -> FC1, Verilator): 20 MNIST images, every LC output, class and weight checked against the golden model after every image, then 200 test images");
    let a = super::platform::demo_run(&mnist_cfg, &data, 20, 200, true)?;
    println!();
    println!("== the thesis network's platform (lel_platform): a 5-image epoch, pipelined, cycles from the RTL's counters next to Table 4.3");
    let b = super::platform::demo_run(
        &root.join("configs/thesis-cifar10.toml"),
        &data,
        5,
        0,
        false,
    )?;
    println!();
    let cfg = PlatformConfig::from_toml(&std::fs::read_to_string(&mnist_cfg)?)?;
    let set = mnist::load(&data)?;
    let t = std::time::Instant::now();
    let (report, _) = train(
        &cfg,
        Mode::BitExact,
        &set.train,
        &set.test,
        1,
        &mut |_: Progress| {},
    )?;
    let e = &report.epochs[0];
    println!(
        "== for comparison, the golden model (`edgelearn train`) on the whole split: {} training images, 1 epoch, {:.1} s: test accuracy FC0 {:.2}%, FC1 {:.2}% on {} test images",
        report.train_images,
        t.elapsed().as_secs_f64(),
        100.0 * e.test_accuracy[0],
        100.0 * e.test_accuracy[1],
        report.test_images
    );
    Ok(a == ExitCode::SUCCESS && b == ExitCode::SUCCESS)
}

/// The CNN engine golden model on the ai8x MNIST network vendored in `data/ai8x`, then the
/// same network on the engine RTL (Verilator): every layer compared, cycles per layer next
/// to izer's estimate.
fn cnn_mnist(out_dir: &Path) -> anyhow::Result<bool> {
    use edgelearn_verif::cnn::{weights, Device, Network, RunOptions};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/ai8x");
    let net = Network::load(
        &dir.join("mnist-chw-ai85.yaml"),
        &dir.join("ai85-mnist-qat8-q.pth.tar"),
        None,
        Device::max78000(),
    )?;
    let input = weights::load_input(&dir.join("sample_mnist.npy"))?;
    let start = std::time::Instant::now();
    let inf = net.infer(&input, &RunOptions::default(), None)?;
    let secs = start.elapsed().as_secs_f64();
    let out = &inf.output().data;
    let class = (0..out.len()).max_by_key(|&i| out[i]).unwrap_or(0);
    println!();
    println!(
        "== MAX78000 CNN engine golden model: ai8x MNIST network (data/ai8x), {} layers, {:.1} ms",
        inf.plan.order.len(),
        secs * 1e3
    );
    println!("32-bit outputs: {out:?}");
    println!("class: {class}  (the sample is a 7; `edgelearn cnn --help` for check, run, kat)");
    println!();
    println!(
        "== the same network on the CNN engine RTL (cnn_engine: 64 processors, rust-hdl, Verilator; `edgelearn cnn sim`): every layer's data memory compared with the golden model"
    );
    let net_args = crate::cli::CnnNet {
        network: dir.join("mnist-chw-ai85.yaml"),
        checkpoint: dir.join("ai85-mnist-qat8-q.pth.tar"),
        bias: None,
        input: dir.join("sample_mnist.npy"),
        stop_after: None,
        avg_pool_rounding: false,
        semantics: "silicon".into(),
        legacy_test: false,
        max_proc: None,
        overlap_data: false,
    };
    let json = out_dir.join("demo").join("cnn_mnist_rtl.json");
    std::fs::create_dir_all(out_dir.join("demo"))?;
    let code = super::cnn_sim::sim(
        &net_args,
        &super::cnn_sim::SimOptions {
            processors: 64,
            front_door: false,
            ungated: false,
            repeat: 1,
            fifo_gap: None,
            vcd: None,
            output: Some(&json),
            log_dir: None,
            force: true,
        },
    )?;
    println!("(the engine's output JSON: {})", json.display());
    Ok(code == ExitCode::SUCCESS)
}
