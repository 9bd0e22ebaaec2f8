//! `edgelearn cnn check | run | kat`: the MAX78000-style CNN engine golden model.

use crate::cli::{CnnCommand, CnnNet};
use anyhow::{bail, Context};
use edgelearn_verif::cnn::{
    self, desc::NetworkDesc, plan::Plan, weights, Device, Network, RunOptions, Semantics,
};
use edgelearn_verif::formats::npy::encode_npy_i64;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(cmd: CnnCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        CnnCommand::Check {
            network,
            checkpoint,
            bias,
            input,
            input_shape,
            max_proc,
            overlap_data,
        } => check(
            &network,
            checkpoint.as_deref(),
            bias.as_deref(),
            input.as_deref(),
            input_shape,
            (max_proc, overlap_data),
        ),
        CnnCommand::Run {
            net,
            output,
            log_intermediate,
            force,
        } => run_net(&net, output.as_deref(), log_intermediate.as_deref(), force),
        CnnCommand::Kat { net, out, force } => kat(&net, &out, force),
        CnnCommand::Random(a) => super::cnn_random::run(&a),
        CnnCommand::Bench { net, iterations } => bench(&net, iterations),
        CnnCommand::Finetune(args) => super::cnn_finetune::finetune(&args),
        CnnCommand::Load {
            net,
            out,
            processors,
            force,
        } => load_image(&net, &out, processors, force),
        CnnCommand::Sim {
            net,
            processors,
            backend: _,
            front_door,
            ungated,
            repeat,
            fifo_gap,
            vcd,
            output,
            log_intermediate,
            force,
        } => super::cnn_sim::sim(
            &net,
            &super::cnn_sim::SimOptions {
                processors,
                front_door,
                ungated,
                repeat,
                fifo_gap,
                vcd: vcd.as_deref(),
                output: output.as_deref(),
                log_dir: log_intermediate.as_deref(),
                force,
            },
        ),
    }
}

fn device(max_proc: Option<u32>, overlap_data: bool) -> Device {
    let d = match max_proc {
        Some(n) => Device::with_max_proc(n as usize),
        None => Device::max78000(),
    };
    Device { overlap_data, ..d }
}

pub(crate) fn options(net: &CnnNet) -> RunOptions {
    RunOptions {
        avg_pool_rounding: net.avg_pool_rounding,
        semantics: if net.semantics == "document" {
            Semantics::Document
        } else {
            Semantics::Silicon
        },
        legacy_test: net.legacy_test,
    }
}

pub(crate) fn load(net: &CnnNet) -> anyhow::Result<(Network, cnn::Tensor, cnn::Inference)> {
    let mut network = Network::load(
        &net.network,
        &net.checkpoint,
        net.bias.as_deref(),
        device(net.max_proc, net.overlap_data),
    )?;
    network.infer_max_proc = net.max_proc.is_none();
    let input = weights::load_input(&net.input)?;
    let inf = network.infer(&input, &options(net), net.stop_after)?;
    for n in &inf.plan.notes {
        eprintln!("note: {n}");
    }
    Ok((network, input, inf))
}

/// Refuses to overwrite `p` unless `force`; creates its directory.
pub(crate) fn fresh_file(p: &Path, force: bool) -> anyhow::Result<()> {
    super::train::output_path(p, force)
}

pub(crate) fn write(p: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(p, bytes).with_context(|| format!("cannot write {}", p.display()))
}

fn run_net(
    net: &CnnNet,
    output: Option<&Path>,
    log_dir: Option<&Path>,
    force: bool,
) -> anyhow::Result<ExitCode> {
    // Check the destinations before the (possibly long) run.
    if let Some(p) = output {
        fresh_file(p, force)?;
    }
    let (network, _input, inf) = load(net)?;
    let final_layer = inf.plan.final_layer;
    let wide = network.desc.layers[final_layer].output_width == 32;
    let out = inf.output();
    let shape = inf.output_shape();
    let result = json!({
        "output_shape": shape,
        "output": out.data,
        "wide": wide,
        "layer": final_layer,
    });
    if let Some(dir) = log_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        for &ll in &inf.plan.order {
            let t = inf.result.outputs[ll].as_ref().expect("layer ran");
            let p = inf.plan.layer(ll);
            let shape: Vec<usize> = if p.one_d {
                vec![t.c, t.h]
            } else {
                vec![t.c, t.h, t.w]
            };
            files.push((
                dir.join(format!("layer{ll:02}.npy")),
                encode_npy_i64(&shape, &t.data),
            ));
            // The same tensor as the data-memory words the layer writes.
            let mut mem = format!(
                "# layer {ll} output as data-memory words: address value mask (check: (mem[address] & mask) == value)\n"
            );
            for c in cnn::memory::output_checks(&network.desc.layers[ll], p, t, &inf.plan.device) {
                mem.push_str(&format!(
                    "0x{:08x} 0x{:08x} 0x{:08x}\n",
                    c.address, c.value, c.mask
                ));
            }
            files.push((dir.join(format!("layer{ll:02}.mem")), mem.into_bytes()));
        }
        for (p, _) in &files {
            fresh_file(p, force)?;
        }
        for (p, bytes) in &files {
            write(p, bytes)?;
        }
    }
    match output {
        Some(p) => {
            write(
                p,
                format!("{}\n", serde_json::to_string(&result)?).as_bytes(),
            )?;
            let l = &network.desc.layers[final_layer];
            println!(
                "layer {final_layer} ({}) output {}{}:",
                l.op.name(),
                shape
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x"),
                if wide { ", 32-bit" } else { ", 8-bit" }
            );
            let shown: Vec<String> = out.data.iter().take(64).map(|v| v.to_string()).collect();
            println!(
                "{}{}",
                shown.join(" "),
                if out.data.len() > 64 { " ..." } else { "" }
            );
            println!("wrote {}", p.display());
        }
        None => println!("{}", serde_json::to_string(&result)?),
    }
    Ok(ExitCode::SUCCESS)
}

fn hex(v: u32) -> String {
    format!("0x{v:08x}")
}

fn kat(net: &CnnNet, out: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let names = ["sampledata.h", "sampleoutput.h", "kat.c", "kat.json"];
    for n in names {
        fresh_file(&out.join(n), force)?;
    }
    let (network, input, inf) = load(net)?;
    let k = network.kat(&input, &inf)?;
    let test_name = net
        .network
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let sample_output = cnn::memory::sample_output(&k.checks);
    let mut sorted = k.checks.clone();
    sorted.sort();
    let doc = json!({
        "network": net.network.display().to_string(),
        "checked_layers": k.layers,
        "input": k.inputs.iter().map(|b| json!({
            "processor": b.processor,
            "address": hex(b.address),
            "words": b.words.iter().map(|&w| hex(w)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "output": sorted.iter().map(|c| json!({
            "address": hex(c.address),
            "mask": hex(c.mask),
            "value": hex(c.value),
        })).collect::<Vec<_>>(),
        "sample_output": sample_output.iter().map(|&w| hex(w)).collect::<Vec<_>>(),
    });
    write(&out.join("sampledata.h"), k.sampledata_h().as_bytes())?;
    write(&out.join("sampleoutput.h"), k.sampleoutput_h().as_bytes())?;
    write(&out.join("kat.c"), k.kat_c(&test_name).as_bytes())?;
    write(
        &out.join("kat.json"),
        format!("{}\n", serde_json::to_string_pretty(&doc)?).as_bytes(),
    )?;
    let words: usize = k.inputs.iter().map(|b| b.words.len()).sum();
    println!(
        "{}: {} input words in {} block(s), {} expected output words (layers {:?}) -> {}",
        test_name,
        words,
        k.inputs.len(),
        k.checks.len(),
        k.layers,
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn check(
    network: &Path,
    checkpoint: Option<&Path>,
    bias: Option<&Path>,
    input: Option<&Path>,
    input_shape: Option<Vec<usize>>,
    (max_proc, overlap_data): (Option<u32>, bool),
) -> anyhow::Result<ExitCode> {
    let dev = device(max_proc, overlap_data);
    let desc = NetworkDesc::load(network, &dev)?;
    let shape: Option<[usize; 3]> = match (input, input_shape) {
        (Some(p), _) => {
            let t = weights::load_input(p)?;
            Some([t.c, t.h, t.w])
        }
        (None, Some(v)) => match v.as_slice() {
            [c, h, w] if *c > 0 && *h > 0 && *w > 0 => Some([*c, *h, *w]),
            [c, l] if *c > 0 && *l > 0 => Some([*c, *l, 1]),
            _ => bail!("--input-shape must be C,H,W or C,L with every size at least 1"),
        },
        (None, None) => None,
    };
    println!(
        "{}: arch {}, dataset {}, {} layers",
        network.display(),
        desc.arch,
        desc.dataset,
        desc.layers.len()
    );
    let Some(ck) = checkpoint else {
        print_desc_table(&desc);
        println!("valid; give --checkpoint and --input (or --input-shape) for shapes, memory use and MACs");
        return Ok(ExitCode::SUCCESS);
    };
    let mut net = Network::load(network, ck, bias, dev)?;
    net.infer_max_proc = max_proc.is_none();
    let Some(shape) = shape else {
        print_desc_table(&net.desc);
        println!("weights: ");
        for (i, w) in net.weights.layers.iter().enumerate() {
            if let Some(w) = w {
                println!(
                    "  layer {i:2}: {} -> {} channels, {}x{} kernels, {}-bit, output shift {}, {} bias{}",
                    w.kernels.in_ch,
                    w.kernels.out_ch,
                    w.kernels.kh,
                    w.kernels.kw,
                    w.bits,
                    w.shift,
                    if w.bias.is_some() { "with" } else { "no" },
                    format_args!(" ({})", w.source)
                );
            }
        }
        println!("valid; give --input or --input-shape for shapes, memory use and MACs");
        return Ok(ExitCode::SUCCESS);
    };
    let plan = net.plan(shape, None)?;
    for n in &plan.notes {
        println!("note: {n}");
    }
    print_plan_table(&net, &plan);
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn op_text(l: &cnn::desc::LayerDesc) -> String {
    let mut s = String::new();
    if let Some(p) = l.pool {
        s.push_str(&format!(
            "{}pool{}x{}/{}+",
            if p == cnn::desc::PoolKind::Max {
                "max"
            } else {
                "avg"
            },
            l.pool_size[0],
            l.pool_size[1],
            l.pool_stride[0]
        ));
    } else if l.pool_stride != [1, 1] {
        s.push_str(&format!("stride{}+", l.pool_stride[0]));
    }
    if let Some(e) = l.eltwise {
        s.push_str(&format!("{}{}+", e.name(), l.operands));
    }
    if l.flatten {
        s.push_str("flatten+");
    }
    s.push_str(l.op.name());
    if matches!(
        l.op,
        cnn::desc::Op::Conv2d | cnn::desc::Op::ConvTranspose2d | cnn::desc::Op::Conv1d
    ) {
        if l.op == cnn::desc::Op::Conv1d {
            s.push_str(&format!(" k{}", l.kernel_size[0]));
        } else {
            s.push_str(&format!(" {}x{}", l.kernel_size[0], l.kernel_size[1]));
        }
        s.push_str(&format!(" p{}", l.pad[0]));
    }
    match l.activation {
        cnn::desc::Activation::Relu => s.push_str(" relu"),
        cnn::desc::Activation::Abs => s.push_str(" abs"),
        cnn::desc::Activation::None => {}
    }
    s
}

fn print_desc_table(desc: &NetworkDesc) {
    println!(
        "{:>3}  {:<36} {:>18} {:>18} {:>5} {:>6} {:>5}",
        "L", "operation", "processors", "out processors", "bits", "shift", "width"
    );
    for (i, l) in desc.layers.iter().enumerate() {
        println!(
            "{:>3}  {:<36} {:>18} {:>18} {:>5} {:>6} {:>5}",
            i,
            op_text(l),
            format!("0x{:016x}", l.processors),
            l.output_processors
                .map_or("(next)".to_string(), |m| format!("0x{m:016x}")),
            l.quantization.map_or("-".into(), |q| q.to_string()),
            l.output_shift.map_or("-".into(), |s| s.to_string()),
            l.output_width
        );
    }
}

fn print_plan_table(net: &Network, plan: &Plan) {
    println!(
        "{:>3}  {:<34} {:>14} {:>14} {:>18} {:>18} {:>6} {:>4} {:>5} {:>6} {:>5} {:>7} {:>7} {:>11}",
        "L",
        "operation",
        "input",
        "output",
        "processors",
        "out processors",
        "passes",
        "bits",
        "shift",
        "kwords",
        "bias",
        "in B",
        "out B",
        "MACs"
    );
    let mut total_macs = 0u64;
    let mut columns = 0usize;
    let mut bias = 0usize;
    for &ll in &plan.order {
        let l = &net.desc.layers[ll];
        let p = plan.layer(ll);
        let shape = |c: usize, d: [usize; 2]| {
            if p.one_d {
                format!("{c}x{}", d[0])
            } else {
                format!("{c}x{}x{}", d[0], d[1])
            }
        };
        let in_c = p.in_ch * l.operands;
        println!(
            "{:>3}  {:<34} {:>14} {:>14} {:>18} {:>18} {:>6} {:>4} {:>5} {:>6} {:>5} {:>7} {:>7} {:>11}",
            ll,
            op_text(l),
            shape(in_c, p.in_dim),
            shape(p.out_ch, p.out_dim),
            format!("0x{:016x}", p.in_map),
            format!("0x{:016x}", p.out_map),
            format!("{}/{}", p.in_passes.0, p.out_passes.0),
            p.bits.map_or("-".into(), |b| b.to_string()),
            p.shift.map_or("-".into(), |s| s.to_string()),
            p.kernel_words,
            p.bias_bytes,
            p.in_bytes,
            p.out_bytes,
            p.macs
        );
        total_macs += p.macs;
        bias += p.bias_bytes;
        // Every layer starts at a column that is a multiple of 4, in every processor.
        if p.kernel_words > 0 {
            columns = columns.next_multiple_of(4) + p.kernel_words;
        }
    }
    let busiest = columns;
    println!(
        "total: {} MACs per inference; kernel memory: {} of {} 72-bit columns (layers with weights; passthrough layers add identity kernels on the engine); bias: {} of {} bytes",
        total_macs,
        busiest,
        plan.device.kernel_words,
        bias,
        4 * plan.device.bias_per_group
    );
    if busiest > plan.device.kernel_words {
        println!(
            "warning: the kernels do not fit the kernel memory ({busiest} > {} columns)",
            plan.device.kernel_words
        );
    }
    println!(
        "output: layer {} ({} channels, {})",
        plan.final_layer,
        plan.layer(plan.final_layer).out_ch,
        if net.desc.layers[plan.final_layer].output_width == 32 {
            "32-bit"
        } else {
            "8-bit"
        }
    );
}

fn bench(net: &CnnNet, iterations: usize) -> anyhow::Result<ExitCode> {
    if iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let (network, input, first) = load(net)?;
    let opts = options(net);
    let start = std::time::Instant::now();
    for _ in 0..iterations {
        let inf = network.infer(&input, &opts, net.stop_after)?;
        if inf.output() != first.output() {
            bail!("the model is not deterministic");
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let macs: u64 = first
        .plan
        .order
        .iter()
        .map(|&l| first.plan.layer(l).macs)
        .sum();
    println!(
        "{}: {iterations} inferences in {secs:.3} s: {:.1} inferences/s, {:.0} MMAC/s (one thread, {} MACs per inference)",
        net.network.display(),
        iterations as f64 / secs,
        macs as f64 * iterations as f64 / secs / 1e6,
        macs
    );
    Ok(ExitCode::SUCCESS)
}

/// The network of `net`, its golden inference and its image for an engine of `processors`.
pub(crate) fn engine_image(
    net: &CnnNet,
    processors: usize,
) -> anyhow::Result<(
    edgelearn_hdl::cnn::EngineShape,
    Network,
    cnn::Inference,
    cnn::engine::EngineImage,
)> {
    let shape = edgelearn_hdl::cnn::EngineShape::with_processors(processors);
    if let Err(e) = shape.check() {
        bail!("--processors: {e}");
    }
    let (network, input, inf) = load(net)?;
    let img = cnn::engine::build(
        &network.desc,
        &network.weights,
        &inf.plan,
        &input,
        &options(net),
        &shape,
    )
    .map_err(|e| e.in_file(&network.desc.file))?;
    Ok((shape, network, inf, img))
}

fn load_image(
    net: &CnnNet,
    out: &Path,
    processors: usize,
    force: bool,
) -> anyhow::Result<ExitCode> {
    let (shape, network, _, img) = engine_image(net, processors)?;
    let files = img.files();
    for (name, _) in &files {
        fresh_file(&out.join(name), force)?;
    }
    for (name, text) in &files {
        write(&out.join(name), text.as_bytes())?;
    }
    println!(
        "{}: {} layers, {} of {} kernel columns, {} bias bytes, {} input words for {} processors -> {}",
        network.desc.file,
        img.layers.len(),
        img.kernel_columns(),
        shape.kernel_words,
        img.bias.len(),
        img.data.len(),
        processors,
        out.display()
    );
    for (l, a) in img.layers.iter().zip(&img.allocs) {
        println!(
            "  layer {:>2}: kernel columns {:>3}..{:<3} ({} per word, {} per processor), bias {}",
            l.layer,
            a.start,
            a.start + a.words,
            a.per_word,
            a.kernels,
            if l.bias {
                format!("{}..{}", l.bias_start, l.bias_start + l.out_ch)
            } else {
                "-".into()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
