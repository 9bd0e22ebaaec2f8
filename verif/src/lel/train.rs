//! Training loop: batch 1, per-epoch shuffle, train and test accuracy of every FC core after
//! every epoch, training throughput. No IO: progress goes to a callback.

use super::config::PlatformConfig;
use super::float::FloatNetwork;
use super::network::{derive_seed, BuildError, ImageShape, LelNetwork};
use crate::datasets::ImageSet;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::Instant;

/// Bit-exact or float.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The integer golden model.
    BitExact,
    /// The f32 reference.
    Float,
}

/// One epoch's figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EpochReport {
    /// 1-based.
    pub epoch: usize,
    /// Per core: fraction of training images classified right before their update.
    pub train_accuracy: Vec<f64>,
    /// Per core: fraction of test images classified right after the epoch.
    pub test_accuracy: Vec<f64>,
    /// Training images per second (training only, evaluation excluded).
    pub images_per_second: f64,
    /// Learning-rate shift per core in this epoch.
    pub lr_shift: Vec<u32>,
}

/// A whole run.
#[derive(Clone, Debug, Serialize)]
pub struct TrainReport {
    /// The configuration used (after command-line overrides).
    pub config: PlatformConfig,
    /// Which model.
    pub mode: Mode,
    /// Training images per epoch.
    pub train_images: usize,
    /// Test images.
    pub test_images: usize,
    /// Per epoch.
    pub epochs: Vec<EpochReport>,
    /// SHA-256 of the final weights (bit-exact: int weights in stream order).
    pub weights_sha256: String,
}

/// Progress events.
#[derive(Clone, Debug)]
pub enum Progress {
    /// An epoch starts with this many training images.
    EpochStart { epoch: usize, images: usize },
    /// Training images done in the current epoch.
    Trained { done: usize },
    /// An epoch ended.
    EpochEnd(EpochReport),
}

enum Model {
    Int(Box<LelNetwork>),
    Float(Box<FloatNetwork>),
}

impl Model {
    fn train(&mut self, x: &[i32], label: u32, epoch: usize) -> Vec<usize> {
        match self {
            Model::Int(n) => n.train_image(x, label, epoch),
            Model::Float(n) => n.train_image(x, label, epoch),
        }
    }
    fn infer(&self, x: &[i32]) -> Vec<usize> {
        match self {
            Model::Int(n) => n.infer(x),
            Model::Float(n) => n.infer(x),
        }
    }
}

/// Every image of `set` prepared for `cfg` ([`LelNetwork::prepare`]).
pub fn prepare_all(cfg: &PlatformConfig, set: &ImageSet) -> Result<Vec<Vec<i32>>, BuildError> {
    let shape = ImageShape {
        channels: set.channels,
        height: set.height,
        width: set.width,
    };
    (0..set.len())
        .map(|i| LelNetwork::prepare(cfg, shape, set.image(i)))
        .collect()
}

/// The order in which [`train`] presents `n` training images, epoch after epoch: shuffled
/// every epoch with xoshiro256++ seeded by SHA-256(master seed, "shuffle"), or file order
/// when `train.shuffle` is off. The platform RTL is fed in this order, so both train the same.
pub struct TrainOrder {
    order: Vec<usize>,
    rng: Xoshiro256PlusPlus,
    shuffle: bool,
}

impl TrainOrder {
    /// The order for `cfg` over `n` images.
    pub fn new(cfg: &PlatformConfig, n: usize) -> Self {
        TrainOrder {
            order: (0..n).collect(),
            rng: Xoshiro256PlusPlus::seed_from_u64(derive_seed(cfg.seed, "shuffle")),
            shuffle: cfg.train.shuffle,
        }
    }

    /// The next epoch's order.
    pub fn next_epoch(&mut self) -> &[usize] {
        if self.shuffle {
            self.order.shuffle(&mut self.rng);
        }
        &self.order
    }
}

/// The state of a bit-exact training run between two images: enough to continue it and
/// end with the same weights, bit for bit, as a run that was never stopped.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrainState {
    /// [`TrainState::FORMAT`].
    pub format: u32,
    /// Digest of the configuration and of the training and test images: a state is only
    /// continued by the run it came from.
    pub key: String,
    /// The epoch in progress (1-based; `epochs + 1` once a run is complete).
    pub epoch: usize,
    /// Images of that epoch trained so far.
    pub done: usize,
    /// Per core: images of that epoch classified right so far.
    pub right: Vec<usize>,
    /// Training seconds of that epoch so far.
    pub seconds: f64,
    /// The epochs finished.
    pub reports: Vec<EpochReport>,
    /// Per FC core: its weights `[k][j][i]`.
    pub weights: Vec<Vec<i32>>,
    /// Per FC core: weight-update random numbers consumed.
    pub wu_position: Vec<u64>,
}

impl TrainState {
    /// The file format version.
    pub const FORMAT: u32 = 1;

    /// The key of a run: configuration and images (not the number of epochs, so a run can
    /// be continued for more epochs).
    pub fn key(cfg: &PlatformConfig, train: &ImageSet, test: &ImageSet) -> String {
        let mut h = Sha256::new();
        h.update(
            serde_json::to_string(cfg)
                .expect("config serializes")
                .as_bytes(),
        );
        for set in [train, test] {
            h.update(format!(
                "{}x{}x{}:{}",
                set.channels,
                set.height,
                set.width,
                set.len()
            ));
            h.update(&set.pixels);
            h.update(&set.labels);
        }
        hex::encode(h.finalize())
    }
}

/// Checkpointing of a bit-exact run: where to start, and how often to hand out the state.
pub struct Checkpoints<'a> {
    /// A state saved by an earlier run with the same key.
    pub resume: Option<TrainState>,
    /// Hand out the state every this many images (and at every epoch's end); 0: epoch ends.
    pub every: usize,
    /// Receives the states (writes them somewhere durable).
    pub save: &'a mut dyn FnMut(&TrainState) -> Result<(), String>,
}

/// Train `cfg` on `train` for `epochs`, evaluating on `test` after every epoch.
pub fn train(
    cfg: &PlatformConfig,
    mode: Mode,
    train: &ImageSet,
    test: &ImageSet,
    epochs: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<(TrainReport, Option<LelNetwork>), BuildError> {
    train_with(cfg, mode, train, test, epochs, None, progress)
}

/// [`train`], continued from a checkpoint and handing out checkpoints (bit-exact mode only).
pub fn train_with(
    cfg: &PlatformConfig,
    mode: Mode,
    train: &ImageSet,
    test: &ImageSet,
    epochs: usize,
    mut ck: Option<Checkpoints<'_>>,
    progress: &mut dyn FnMut(Progress),
) -> Result<(TrainReport, Option<LelNetwork>), BuildError> {
    let net = LelNetwork::new(cfg)?;
    check_run(cfg, mode, ck.is_some(), train, test)?;
    let cores = net.cores.len();
    let mut model = match mode {
        Mode::BitExact => Model::Int(Box::new(net.clone())),
        Mode::Float => Model::Float(Box::new(FloatNetwork::from_integer(&net))),
    };
    let train_x = prepare_all(cfg, train)?;
    let test_x = prepare_all(cfg, test)?;
    let mut orders = TrainOrder::new(cfg, train.len());
    let key = TrainState::key(cfg, train, test);
    let run = Run {
        net: &net,
        cores,
        train,
        test,
        train_x: &train_x,
        test_x: &test_x,
        key: &key,
    };
    let (mut reports, start) = match ck.as_mut().and_then(|c| c.resume.take()) {
        Some(state) => resume(state, &run, epochs, &mut model, &mut orders)?,
        None => (vec![], Position::start(1, cores)),
    };
    let first_epoch = start.epoch;
    // The first epoch continues from `start`; the later ones start from their beginning.
    let mut start = Some(start);
    for epoch in first_epoch..=epochs {
        let order = orders.next_epoch().to_vec();
        progress(Progress::EpochStart {
            epoch,
            images: order.len(),
        });
        let at = start
            .take()
            .unwrap_or_else(|| Position::start(epoch, cores));
        let (right, seconds) =
            run.train_epoch(&mut model, &order, at, &mut ck, &reports, progress)?;
        let report = run.epoch_report(&model, epoch, &right, order.len(), seconds);
        progress(Progress::EpochEnd(report.clone()));
        reports.push(report);
        if let Some(c) = ck.as_mut() {
            let next = Position::start(epoch + 1, cores);
            (c.save)(&run.snapshot(&model, &next, &reports)).map_err(BuildError)?;
        }
    }
    Ok(finish(model, cfg, mode, train, test, reports))
}

/// Where a run stands within an epoch: what a checkpoint records besides the weights and
/// the finished epochs.
struct Position {
    /// The epoch (1-based).
    epoch: usize,
    /// Images of it trained so far.
    done: usize,
    /// Per core: images of it classified right so far.
    right: Vec<usize>,
    /// Training seconds of it so far.
    seconds: f64,
}

impl Position {
    /// The beginning of `epoch` for `cores` FC cores.
    fn start(epoch: usize, cores: usize) -> Self {
        Position {
            epoch,
            done: 0,
            right: vec![0; cores],
            seconds: 0.0,
        }
    }
}

/// What the training loop reads and never changes.
struct Run<'a> {
    /// The untrained network (for the learning-rate schedule).
    net: &'a LelNetwork,
    /// FC cores.
    cores: usize,
    /// The training set (labels).
    train: &'a ImageSet,
    /// The test set (labels).
    test: &'a ImageSet,
    /// The training images, prepared.
    train_x: &'a [Vec<i32>],
    /// The test images, prepared.
    test_x: &'a [Vec<i32>],
    /// [`TrainState::key`] of the run.
    key: &'a str,
}

/// The checks before any image is prepared: checkpoints only in bit-exact mode, and every
/// label of both sets one of the platform's classes.
fn check_run(
    cfg: &PlatformConfig,
    mode: Mode,
    checkpoints: bool,
    train: &ImageSet,
    test: &ImageSet,
) -> Result<(), BuildError> {
    if checkpoints && mode != Mode::BitExact {
        return Err(BuildError(
            "checkpoints are for the bit-exact model (the f32 reference is not resumable)".into(),
        ));
    }
    for (name, set) in [("training", train), ("test", test)] {
        if let Some(&l) = set
            .labels
            .iter()
            .find(|&&l| l as usize >= cfg.widths.classes)
        {
            return Err(BuildError(format!(
                "widths.classes: the {name} set has label {l}, but the platform has {} classes",
                cfg.widths.classes
            )));
        }
    }
    Ok(())
}

/// Continues a run from `state`: checks that it belongs to this run and fits `epochs`,
/// restores the weights and LFSR positions into `model` (bit-exact) and advances `orders`
/// to its epoch. Gives the finished epochs' reports and where training resumes.
fn resume(
    state: TrainState,
    run: &Run<'_>,
    epochs: usize,
    model: &mut Model,
    orders: &mut TrainOrder,
) -> Result<(Vec<EpochReport>, Position), BuildError> {
    if state.format != TrainState::FORMAT || state.key != run.key {
        return Err(BuildError(
            "the checkpoint belongs to another run (configuration, seed or images differ); remove it or give another path".into(),
        ));
    }
    if state.epoch > epochs + 1 || (state.epoch == epochs + 1 && state.done > 0) {
        return Err(BuildError(format!(
            "the checkpoint is past epoch {}; --epochs {epochs} asks for fewer",
            state.epoch.min(epochs + 1) - 1
        )));
    }
    let Model::Int(n) = model else {
        unreachable!("bit-exact checked above")
    };
    if state.weights.len() != run.cores || state.wu_position.len() != run.cores {
        return Err(BuildError(
            "the checkpoint has another number of FC cores".into(),
        ));
    }
    for (x, core) in n.cores.iter_mut().enumerate() {
        core.restore(state.weights[x].clone(), state.wu_position[x])
            .map_err(|e| BuildError(format!("the checkpoint's core {x}: {e}")))?;
    }
    for _ in 1..state.epoch {
        orders.next_epoch();
    }
    let at = Position {
        epoch: state.epoch,
        done: state.done,
        right: state.right,
        seconds: state.seconds,
    };
    Ok((state.reports, at))
}

impl Run<'_> {
    /// Trains the images of `order` from `at` to the epoch's end, counting per core the
    /// images classified right before their update, reporting progress every 64 images and
    /// handing out a checkpoint every `every` images (not at the epoch's end). Gives the
    /// right counts and the epoch's training seconds.
    fn train_epoch(
        &self,
        model: &mut Model,
        order: &[usize],
        at: Position,
        ck: &mut Option<Checkpoints<'_>>,
        reports: &[EpochReport],
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Vec<usize>, f64), BuildError> {
        let Position {
            epoch,
            done: first,
            mut right,
            seconds: before,
        } = at;
        let t = Instant::now();
        for (done, &i) in order.iter().enumerate().skip(first) {
            let label = self.train.labels[i] as u32;
            let got = model.train(&self.train_x[i], label, epoch);
            for (r, g) in right.iter_mut().zip(&got) {
                *r += (*g == label as usize) as usize;
            }
            if done % 64 == 63 {
                progress(Progress::Trained { done: done + 1 });
            }
            if let Some(c) = ck
                .as_mut()
                .filter(|c| c.every > 0 && (done + 1) % c.every == 0)
            {
                if done + 1 < order.len() {
                    let at = Position {
                        epoch,
                        done: done + 1,
                        right: right.clone(),
                        seconds: before + t.elapsed().as_secs_f64(),
                    };
                    (c.save)(&self.snapshot(model, &at, reports)).map_err(BuildError)?;
                }
            }
        }
        let seconds = before + t.elapsed().as_secs_f64();
        progress(Progress::Trained { done: order.len() });
        Ok((right, seconds))
    }

    /// The figures of a finished epoch: evaluates `model` on the test set and combines that
    /// with the training counts `right` over `images` images trained in `seconds`.
    fn epoch_report(
        &self,
        model: &Model,
        epoch: usize,
        right: &[usize],
        images: usize,
        seconds: f64,
    ) -> EpochReport {
        let mut test_right = vec![0usize; self.cores];
        for (i, x) in self.test_x.iter().enumerate() {
            for (r, g) in test_right.iter_mut().zip(model.infer(x)) {
                *r += (g == self.test.labels[i] as usize) as usize;
            }
        }
        let frac = |v: &[usize], n: usize| {
            v.iter()
                .map(|&r| if n == 0 { 0.0 } else { r as f64 / n as f64 })
                .collect()
        };
        EpochReport {
            epoch,
            train_accuracy: frac(right, images),
            test_accuracy: frac(&test_right, self.test_x.len()),
            images_per_second: if seconds > 0.0 {
                images as f64 / seconds
            } else {
                0.0
            },
            lr_shift: (0..self.cores)
                .map(|x| self.net.lr_shift(x, epoch))
                .collect(),
        }
    }

    /// The checkpoint of a bit-exact `model` at `at`, after the epochs of `reports`.
    fn snapshot(&self, model: &Model, at: &Position, reports: &[EpochReport]) -> TrainState {
        let Model::Int(n) = model else {
            unreachable!("bit-exact checked above")
        };
        TrainState {
            format: TrainState::FORMAT,
            key: self.key.to_string(),
            epoch: at.epoch,
            done: at.done,
            right: at.right.clone(),
            seconds: at.seconds,
            reports: reports.to_vec(),
            weights: n.cores.iter().map(|c| c.w.clone()).collect(),
            wu_position: n.cores.iter().map(|c| c.wu_position()).collect(),
        }
    }
}

/// The run's report and, for the bit-exact model, the trained network.
fn finish(
    model: Model,
    cfg: &PlatformConfig,
    mode: Mode,
    train: &ImageSet,
    test: &ImageSet,
    reports: Vec<EpochReport>,
) -> (TrainReport, Option<LelNetwork>) {
    let (sha, trained) = match model {
        Model::Int(n) => (n.weights_sha256(), Some(*n)),
        Model::Float(n) => (n.weights_sha256(), None),
    };
    (
        TrainReport {
            config: cfg.clone(),
            mode,
            train_images: train.len(),
            test_images: test.len(),
            epochs: reports,
            weights_sha256: sha,
        },
        trained,
    )
}
