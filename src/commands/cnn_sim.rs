//! `edgelearn cnn sim`: a network on the CNN engine RTL, every layer compared with the
//! golden model.

use super::cnn::{engine_image, fresh_file, op_text, write};
use crate::cli::CnnNet;
use anyhow::Context;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::cnn;
use edgelearn_verif::formats::npy::encode_npy_i64;
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, FifoFeed, Load, SimReport};
use edgelearn_verif::rtl::designs::engine_design as engine;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// What `cnn sim` does besides the network: the engine's shape, how it loads and clocks,
/// how often it runs, where its files go.
#[derive(Clone, Copy)]
pub struct SimOptions<'a> {
    /// Processors of the engine.
    pub processors: usize,
    /// Load through the host port.
    pub front_door: bool,
    /// Clock every quad at every edge.
    pub ungated: bool,
    /// Inferences to run on one model.
    pub repeat: u32,
    /// A streaming network's input: the probability of an idle cycle before each beat.
    pub fifo_gap: Option<f64>,
    /// A VCD of the run.
    pub vcd: Option<&'a Path>,
    /// The JSON result (stdout otherwise).
    pub output: Option<&'a Path>,
    /// Every layer's output and data-memory words.
    pub log_dir: Option<&'a Path>,
    /// Overwrite existing files.
    pub force: bool,
}

pub fn sim(net: &CnnNet, o: &SimOptions) -> anyhow::Result<ExitCode> {
    let SimOptions {
        processors,
        front_door,
        ungated,
        repeat,
        fifo_gap,
        vcd,
        output,
        log_dir,
        force,
    } = *o;
    for p in [vcd, output].into_iter().flatten() {
        fresh_file(p, force)?;
    }
    let (shape, network, inf, img) = engine_image(net, processors)?;
    if fifo_gap.is_some() && img.stream.is_none() {
        anyhow::bail!(
            "--fifo-gap: the network's first layer does not stream (`streaming: true`); its input is loaded into data memory"
        );
    }

    let opts = DutOptions {
        vcd: vcd.map(Path::to_path_buf),
        ungated,
        ..DutOptions::default()
    };
    let t0 = Instant::now();
    let dut = Simulator::from_env().dut(Backend::Verilator, engine(&shape), &opts)?;
    let build = t0.elapsed().as_secs_f64();
    let mut bench = CnnBench::new(dut, shape)?;
    bench.set_feed(FifoFeed {
        gap: fifo_gap.unwrap_or(0.0),
        seed: 1,
    });
    let how = if front_door {
        Load::FrontDoor
    } else {
        Load::Backdoor
    };
    let t1 = Instant::now();
    let cycle0 = bench.dut().cycle();
    let mut rep = simulate(&mut bench, &network, &inf, &img, how)?;
    for _ in 1..repeat {
        let again = simulate(&mut bench, &network, &inf, &img, how)?;
        if again != rep {
            anyhow::bail!("a repeated inference differs from the first one");
        }
        rep = again;
    }
    let secs = t1.elapsed().as_secs_f64();
    let edges = (bench.dut().cycle() - cycle0).max(1);
    let ticks = bench.dut().sim_gate_ticks();
    bench.dut().finish()?;
    eprintln!(
        "{}: {} layers on {} ({} processors), {} load; model built or loaded in {build:.1} s",
        network.desc.file,
        inf.plan.order.len(),
        edgelearn_verif::rtl::designs::engine_name(&shape),
        processors,
        if front_door { "host-port" } else { "backdoor" },
    );
    print_layers(&network, &inf, &img, &rep);
    eprintln!(
        "cycles per inference: {} (izer's estimate {}; {:.2} M simulated cycles/s, {:.2} s{})",
        rep.cycles,
        cnn::latency::total_cycles(&network.desc, &inf.plan),
        (rep.cycles * repeat as u64) as f64 / secs / 1e6,
        secs,
        if repeat > 1 {
            format!(" for {repeat} inferences")
        } else {
            String::new()
        }
    );
    print_gate_share(&ticks, edges);
    if let Some(dir) = log_dir {
        write_layer_logs(dir, &rep, &inf, force)?;
    }
    let final_layer = inf.plan.final_layer;
    let result = json!({
        "output_shape": inf.output_shape(),
        "output": rep.output.data,
        "wide": network.desc.layers[final_layer].output_width == 32,
        "layer": final_layer,
        "cycles": rep.cycles,
        "izer_estimate": cnn::latency::total_cycles(&network.desc, &inf.plan),
        "layer_cycles": rep
            .layers
            .iter()
            .zip(&img.layers)
            .map(|(l, r)| {
                let izer = cnn::latency::layer_cycles(&network.desc, &inf.plan, l.layer);
                let identity = network.desc.layers[l.layer].op == cnn::desc::Op::Passthrough;
                json!({
                    "layer": l.layer,
                    "cycles": l.cycles,
                    "izer_estimate": izer,
                    "above_izer": cnn::engine::excess(r, izer, identity).map(|x| x.to_string()),
                })
            })
            .collect::<Vec<_>>(),
        "stream": img.stream.as_ref().map(|st| json!({
            "layers": st.layers,
            "entries": st.schedule.len(),
            "beats": st.beats.len(),
            "input_done": rep.input_done,
        })),
        "bit_exact": rep.first_mismatch().is_none(),
    });
    match output {
        Some(p) => write(
            p,
            (serde_json::to_string_pretty(&result)? + "\n").as_bytes(),
        )?,
        None => println!("{}", serde_json::to_string(&result)?),
    }
    if let Some(d) = rep.first_mismatch() {
        eprintln!("error: the engine differs from the golden model: {d}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The per-layer table on stderr: cycles, izer's estimate and the reason when above it,
/// data-memory words compared and the verdict; then, for a streaming run, its schedule and
/// input.
fn print_layers(
    network: &cnn::Network,
    inf: &cnn::Inference,
    img: &cnn::engine::EngineImage,
    rep: &SimReport,
) {
    eprintln!(
        "  {:>5}  {:<34} {:>10} {:>10} {:>8}  data memory",
        "layer", "operation", "cycles", "izer est.", "words"
    );
    for (l, r) in rep.layers.iter().zip(&img.layers) {
        let izer = cnn::latency::layer_cycles(&network.desc, &inf.plan, l.layer);
        eprintln!(
            "  {:>5}  {:<34} {:>10} {:>10} {:>8}  {}",
            l.layer,
            op_text(&network.desc.layers[l.layer]),
            l.cycles,
            izer,
            l.words,
            match &l.mismatch {
                None => "equal to the golden model".to_string(),
                Some(d) => format!("DIFFERS: {d}"),
            }
        );
        let identity = network.desc.layers[l.layer].op == cnn::desc::Op::Passthrough;
        if let Some(x) = cnn::engine::excess(r, izer, identity) {
            eprintln!("  {:>5}  above izer's estimate {x}", "");
        }
    }
    if let (Some(st), Some(last)) = (&img.stream, rep.input_done) {
        eprintln!(
            "streaming: layers 0..{} in {} one-row schedule entries; input {} beats on {} FIFO(s), the last taken at cycle {last}",
            st.layers,
            st.schedule.len(),
            st.beats.len(),
            st.fifos,
        );
    }
}

/// How often the simulation gates clocked the quads' halves (D-SIM-GATE).
fn print_gate_share(ticks: &[(String, u64)], edges: u64) {
    if !ticks.is_empty() {
        let share = |half: &str| {
            let t: Vec<u64> = ticks
                .iter()
                .filter(|(p, _)| p.ends_with(half))
                .map(|(_, t)| *t)
                .collect();
            100.0 * (t.iter().sum::<u64>() as f64 / (t.len().max(1) as f64 * edges as f64)).min(1.0)
        };
        eprintln!(
            "simulation gates: the {} quads' MAC halves were clocked at {:.0} % of the edges, \
             their gather halves at {:.0} %",
            ticks.len() / 2,
            share(".mac_gate"),
            share(".gather_gate")
        );
    }
}

/// `--log-dir`: every layer's output (`layerNN.npy`) and its data-memory words
/// (`layerNN.mem`, in `cnn run`'s format).
fn write_layer_logs(
    dir: &Path,
    rep: &SimReport,
    inf: &cnn::Inference,
    force: bool,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut files = Vec::new();
    for l in &rep.layers {
        let t = &l.output;
        let shape: Vec<usize> = if inf.plan.layer(l.layer).one_d {
            vec![t.c, t.h]
        } else {
            vec![t.c, t.h, t.w]
        };
        files.push((
            dir.join(format!("layer{:02}.npy", l.layer)),
            encode_npy_i64(&shape, &t.data),
        ));
        // The engine's data-memory words, in `cnn run`'s format.
        let mut mem = format!(
            "# layer {} output as data-memory words: address value mask (check: (mem[address] & mask) == value)\n",
            l.layer
        );
        for c in &l.memory {
            mem.push_str(&format!(
                "0x{:08x} 0x{:08x} 0x{:08x}\n",
                c.address, c.value, c.mask
            ));
        }
        files.push((
            dir.join(format!("layer{:02}.mem", l.layer)),
            mem.into_bytes(),
        ));
    }
    for (p, _) in &files {
        fresh_file(p, force)?;
    }
    for (p, bytes) in &files {
        write(p, bytes)?;
    }
    Ok(())
}
