//! A training session on the whole LEL platform RTL (`edgelearn platform train`): a fresh
//! model is built, reset, configured and INITed, then trained epoch by epoch beside the
//! golden network (every output and every weight compared when asked), each epoch's test
//! images inferred, and after every epoch a checkpoint offered: the golden state, taken only
//! when the RTL's weights read back equal it. What a person sees (progress, the epoch lines)
//! and where a checkpoint goes are the caller's, through [`Observer`].

use super::designs;
use super::fc::Traffic;
use super::platform::{
    configure, stop_sweep, test_run, train_epoch, PlatformBench, PlatformCheck, RunStats, StopPoint,
};
use super::RtlError;
use crate::lel::config::PlatformConfig;
use crate::lel::network::{lfsr_seeds, LelNetwork};
use crate::lel::train::{EpochReport, TrainOrder};
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::{Backend, Simulator};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::time::Instant;

/// What a session trains on: the configuration, its golden network before training, and
/// the prepared images with their labels.
pub struct Prepared {
    /// The configuration.
    pub cfg: PlatformConfig,
    /// The golden network before the first epoch.
    pub net: LelNetwork,
    /// Training images (the conv core's input words) and labels.
    pub train_x: Vec<Vec<i32>>,
    /// Training labels.
    pub train_y: Vec<u32>,
    /// Test images.
    pub test_x: Vec<Vec<i32>>,
    /// Test labels.
    pub test_y: Vec<u32>,
}

/// How a session runs.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// The emitted design's name (`lel_platform`, `lel_platform_axi_mnist`, ...).
    pub design: String,
    /// Through the AXI wrapper.
    pub axi: bool,
    /// The simulator.
    pub backend: Backend,
    /// The streams' gaps and back-pressure.
    pub traffic: Traffic,
    /// Compare every output and, after every image, every weight with the golden model.
    pub check_golden: bool,
    /// The last epoch (counting from 1).
    pub epochs: usize,
    /// Offer a checkpoint after every epoch ([`Observer::save`]).
    pub checkpoints: bool,
    /// Before training, stop a training run in every state of every core
    /// ([`stop_sweep`]), then reset and INIT again.
    pub stop_sweep: bool,
    /// Feed each run's images as fast as the input FIFO takes them
    /// ([`PlatformBench::set_eager_input`]).
    pub eager_input: bool,
}

/// What a checkpoint holds after an epoch: the golden network's state (equal to the RTL's,
/// read back) and what the report has gathered so far.
#[derive(Clone, Serialize, Deserialize)]
pub struct PlatformState {
    /// [`PlatformState::FORMAT`].
    pub format: u32,
    /// The run: configuration, images, design (the caller's key).
    pub key: String,
    /// Epochs finished.
    pub epochs_done: usize,
    /// Per FC core: weights `[k][j][i]`.
    pub weights: Vec<Vec<i32>>,
    /// Per FC core: weight-update random numbers consumed.
    pub wu_position: Vec<u64>,
    /// The epochs' records so far.
    pub epochs: Vec<Value>,
    /// The epochs' reports so far.
    pub reports: Vec<EpochReport>,
    /// The first PL_TRAIN run's counters.
    pub first_run: Option<RunStats>,
    /// Cycles simulated so far.
    pub sim_cycles: u64,
}

impl PlatformState {
    /// The checkpoint format this build writes and reads.
    pub const FORMAT: u32 = 1;
}

/// What a session measured.
#[derive(Default)]
pub struct Outcome {
    /// One record per epoch (accuracies, cycles, speed, gate shares).
    pub epochs: Vec<Value>,
    /// One report per epoch.
    pub reports: Vec<EpochReport>,
    /// The first PL_TRAIN run's counters.
    pub first_run: Option<RunStats>,
    /// The RTL's weights (read back) after the last epoch.
    pub weights_sha256: String,
    /// The golden network's.
    pub golden_sha256: String,
    /// Cycles simulated (with a resumed run's).
    pub sim_cycles: u64,
    /// The stops of [`SessionOptions::stop_sweep`], in order.
    pub stops: Vec<StopPoint>,
    /// Every readable register at the end ([`PlatformBench::registers`]).
    pub registers: Vec<(String, u32)>,
    /// Cycles the input stream waited on the platform ([`PlatformBench::input_stalls`]).
    pub input_stalls: u64,
}

/// One finished epoch, as a person reads it.
pub struct EpochLine<'a> {
    /// The epoch.
    pub epoch: usize,
    /// Training accuracy of FC0 and FC1.
    pub train_accuracy: &'a [f64],
    /// Test accuracy of FC0 and FC1 (empty without test images).
    pub test_accuracy: &'a [f64],
    /// PL_TRAIN cycles per image.
    pub cycles_per_image: f64,
    /// Simulated cycles per second.
    pub cycles_per_second: f64,
    /// Training images per second.
    pub images_per_second: f64,
    /// Per simulation gate (`core.fc0.fc.mm_group.gate`), the share of the edges it clocked.
    pub gate_shares: &'a serde_json::Map<String, Value>,
}

/// Where a session reports to.
pub trait Observer {
    /// The model is built (or loaded), in `seconds`.
    fn built(&mut self, seconds: f64);
    /// A phase of `len` images starts (`epoch 2 train`).
    fn phase(&mut self, what: &str, len: usize);
    /// Images of the phase done.
    fn progress(&mut self, done: usize);
    /// An epoch finished.
    fn epoch(&mut self, line: &EpochLine);
    /// Something worth saying (a checkpoint not taken).
    fn note(&mut self, text: &str);
    /// Keep this checkpoint (only called with [`SessionOptions::checkpoints`]).
    fn save(&mut self, state: &PlatformState) -> Result<(), String>;
}

/// One session on a fresh model: reset, INIT, the epochs from `resume`'s next (or the
/// first). An error comes with the cycle it happened at.
pub fn session(
    p: &Prepared,
    o: &SessionOptions,
    sim: &Simulator,
    dut_options: &DutOptions,
    resume: Option<&PlatformState>,
    obs: &mut dyn Observer,
) -> Result<Outcome, (RtlError, u64)> {
    let cfg = &p.cfg;
    let mut net = p.net.clone();
    let mut out = Outcome::default();
    let mut seeds = lfsr_seeds(cfg);
    let (mut start, mut cycles_before) = (1, 0);
    if let Some(st) = resume {
        for (x, core) in net.cores.iter_mut().enumerate() {
            core.restore(st.weights[x].clone(), st.wu_position[x])
                .map_err(|e| {
                    let e = RtlError::Other(format!("the checkpoint's FC core {x}: {e}"));
                    (e, 0)
                })?;
            // The hardware's weight-update LFSR continues from the state the golden stream
            // is at (the LC LFSRs are re-seeded every image anyway).
            seeds[x].1 = core.wu_state();
        }
        out.epochs = st.epochs.clone();
        out.reports = st.reports.clone();
        out.first_run = st.first_run.clone();
        cycles_before = st.sim_cycles;
        start = st.epochs_done + 1;
    }
    let design = if o.axi {
        designs::platform_axi_design(&o.design, cfg)
    } else {
        designs::platform_design(&o.design, cfg)
    }
    .map_err(|e| (e, 0))?;
    let shape = designs::platform_shape(cfg).map_err(|e| (e, 0))?;
    let t = Instant::now();
    let dut = sim
        .dut(o.backend, design, dut_options)
        .map_err(|e| (RtlError::Sim(e), 0))?;
    obs.built(t.elapsed().as_secs_f64());
    let fc = [net.cores[0].p.clone(), net.cores[1].p.clone()];
    let mut bench = PlatformBench::new(dut, shape, fc, &o.traffic).map_err(|e| (e, 0))?;
    bench.set_eager_input(o.eager_input);
    let r = (|| -> Result<(), RtlError> {
        if o.stop_sweep {
            bench.reset()?;
            configure(&mut bench, &net, 1)?;
            bench.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])?;
            let imgs: Vec<(&[i32], u32)> = p
                .train_x
                .iter()
                .zip(&p.train_y)
                .take(2)
                .map(|(x, &y)| (x.as_slice(), y))
                .collect();
            out.stops = stop_sweep(&mut bench, &imgs)?;
        }
        bench.reset()?;
        configure(&mut bench, &net, 1)?;
        bench.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])?;
        let mut orders = TrainOrder::new(cfg, p.train_x.len());
        for _ in 1..start {
            orders.next_epoch();
        }
        for epoch in start..=o.epochs {
            let order = orders.next_epoch().to_vec();
            one_epoch(&mut bench, &mut net, p, o, epoch, &order, &mut out, obs)?;
            if o.checkpoints {
                offer_checkpoint(&mut bench, &net, epoch, cycles_before, &out, obs)?;
            }
        }
        let got = bench.read_weights()?;
        let mut rtl = net.clone();
        rtl.cores[0].w = got[0].clone();
        rtl.cores[1].w = got[1].clone();
        out.weights_sha256 = rtl.weights_sha256();
        out.golden_sha256 = net.weights_sha256();
        out.registers = bench.registers()?;
        out.input_stalls = bench.input_stalls();
        Ok(())
    })();
    out.sim_cycles = cycles_before + bench.dut().cycle();
    let _ = bench.dut().finish();
    match r {
        Ok(()) => Ok(out),
        Err(e) => {
            let c = bench.dut().cycle();
            Err((e, c))
        }
    }
}

/// One epoch: the training images in `order`, then the test images; its record and report
/// appended to `out`, its line to the observer.
#[allow(clippy::too_many_arguments)]
fn one_epoch(
    bench: &mut PlatformBench,
    net: &mut LelNetwork,
    p: &Prepared,
    o: &SessionOptions,
    epoch: usize,
    order: &[usize],
    out: &mut Outcome,
    obs: &mut dyn Observer,
) -> Result<(), RtlError> {
    let check = PlatformCheck {
        outputs: o.check_golden,
        weights_every: o.check_golden.then_some(1),
    };
    obs.phase(&format!("epoch {epoch} train"), order.len());
    let (c0, t0) = (bench.dut().cycle(), Instant::now());
    let ticks0 = bench.dut().sim_gate_ticks();
    let er = train_epoch(
        bench,
        net,
        &p.train_x,
        &p.train_y,
        order,
        epoch,
        check,
        &mut |d| obs.progress(d),
    )?;
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    let sim_cycles = bench.dut().cycle() - c0;
    // The share of the training edges at which each simulation gate clocked its core.
    let gates: serde_json::Map<String, Value> = bench
        .dut()
        .sim_gate_ticks()
        .iter()
        .zip(&ticks0)
        .map(|((g, t1), (_, t0))| {
            (
                g.clone(),
                json!((t1 - t0) as f64 / sim_cycles.max(1) as f64),
            )
        })
        .collect();
    if out.first_run.is_none() {
        out.first_run = er.runs.first().cloned();
    }
    obs.phase(&format!("epoch {epoch} test"), p.test_x.len());
    let test = if p.test_x.is_empty() {
        None
    } else {
        let check = PlatformCheck {
            outputs: o.check_golden,
            weights_every: None,
        };
        let progress = &mut |d| obs.progress(d);
        Some(test_run(bench, net, &p.test_x, &p.test_y, check, progress)?)
    };
    let n = er.images.max(1) as f64;
    let run_cycles: u64 = er.runs.iter().map(|r| r.cycles).sum();
    let train_acc: Vec<f64> = er.correct.iter().map(|&c| c as f64 / n).collect();
    let test_acc: Vec<f64> = match &test {
        Some(t) => {
            let m = t.images.max(1) as f64;
            t.correct.iter().map(|&c| c as f64 / m).collect()
        }
        None => vec![],
    };
    let lr: Vec<u32> = (0..2).map(|x| net.lr_shift(x, epoch)).collect();
    obs.epoch(&EpochLine {
        epoch,
        train_accuracy: &train_acc,
        test_accuracy: &test_acc,
        cycles_per_image: run_cycles as f64 / n,
        cycles_per_second: sim_cycles as f64 / secs,
        images_per_second: er.images as f64 / secs,
        gate_shares: &gates,
    });
    out.reports.push(EpochReport {
        epoch,
        train_accuracy: train_acc.clone(),
        test_accuracy: test_acc.clone(),
        images_per_second: er.images as f64 / secs,
        lr_shift: lr.clone(),
    });
    out.epochs.push(json!({
        "epoch": epoch,
        "images": er.images,
        "train_accuracy": train_acc,
        "test_accuracy": test_acc,
        "lr_shift": lr,
        "run_cycles": run_cycles,
        "runs": er.runs.len(),
        "cycles_per_image": run_cycles as f64 / n,
        "core_cycles_last_image": er.runs.last().map(|r| r.core_cycles),
        "simulated_cycles": sim_cycles,
        "wall_seconds": secs,
        "simulated_cycles_per_second": sim_cycles as f64 / secs,
        "images_per_second": er.images as f64 / secs,
        "test_cycles": test.as_ref().map(|t| t.cycles),
        "sim_gate_share": gates,
    }));
    Ok(())
}

/// After `epoch`: the checkpoint, offered only when the RTL holds the golden model's
/// weights, so a resumed run cannot hide a divergence behind a re-INIT.
fn offer_checkpoint(
    bench: &mut PlatformBench,
    net: &LelNetwork,
    epoch: usize,
    cycles_before: u64,
    out: &Outcome,
    obs: &mut dyn Observer,
) -> Result<(), RtlError> {
    let got = bench.read_weights()?;
    if got[0] != net.cores[0].w || got[1] != net.cores[1].w {
        obs.note(&format!(
            "epoch {epoch}: the RTL's weights differ from the golden model's; no checkpoint written"
        ));
        return Ok(());
    }
    let st = PlatformState {
        format: PlatformState::FORMAT,
        key: String::new(),
        epochs_done: epoch,
        weights: net.cores.iter().map(|c| c.w.clone()).collect(),
        wu_position: net.cores.iter().map(|c| c.wu_position()).collect(),
        epochs: out.epochs.clone(),
        reports: out.reports.clone(),
        first_run: out.first_run.clone(),
        sim_cycles: cycles_before + bench.dut().cycle(),
    };
    obs.save(&st).map_err(RtlError::Other)
}
