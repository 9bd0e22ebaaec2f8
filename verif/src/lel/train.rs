//! Training loop: batch 1, per-epoch shuffle, train and test accuracy of every FC core after
//! every epoch, training throughput. No IO: progress goes to a callback.

use super::config::PlatformConfig;
use super::float::FloatNetwork;
use super::network::{derive_seed, BuildError, ImageShape, LelNetwork};
use crate::datasets::ImageSet;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;
use std::time::Instant;

/// Bit-exact or float.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// The integer golden model.
    BitExact,
    /// The f32 reference.
    Float,
}

/// One epoch's figures.
#[derive(Clone, Debug, Serialize)]
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

/// Train `cfg` on `train` for `epochs`, evaluating on `test` after every epoch.
pub fn train(
    cfg: &PlatformConfig,
    mode: Mode,
    train: &ImageSet,
    test: &ImageSet,
    epochs: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<(TrainReport, Option<LelNetwork>), BuildError> {
    let net = LelNetwork::new(cfg)?;
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
    let cores = net.cores.len();
    let mut model = match mode {
        Mode::BitExact => Model::Int(Box::new(net.clone())),
        Mode::Float => Model::Float(Box::new(FloatNetwork::from_integer(&net))),
    };
    let train_x = prepare_all(cfg, train)?;
    let test_x = prepare_all(cfg, test)?;
    let mut orders = TrainOrder::new(cfg, train.len());
    let mut reports = vec![];
    for epoch in 1..=epochs {
        let order = orders.next_epoch().to_vec();
        progress(Progress::EpochStart {
            epoch,
            images: order.len(),
        });
        let mut right = vec![0usize; cores];
        let t = Instant::now();
        for (done, &i) in order.iter().enumerate() {
            let label = train.labels[i] as u32;
            let got = model.train(&train_x[i], label, epoch);
            for (r, g) in right.iter_mut().zip(&got) {
                *r += (*g == label as usize) as usize;
            }
            if done % 64 == 63 {
                progress(Progress::Trained { done: done + 1 });
            }
        }
        let seconds = t.elapsed().as_secs_f64();
        progress(Progress::Trained { done: order.len() });
        let mut test_right = vec![0usize; cores];
        for (i, x) in test_x.iter().enumerate() {
            for (r, g) in test_right.iter_mut().zip(model.infer(x)) {
                *r += (g == test.labels[i] as usize) as usize;
            }
        }
        let frac = |v: &[usize], n: usize| {
            v.iter()
                .map(|&r| if n == 0 { 0.0 } else { r as f64 / n as f64 })
                .collect()
        };
        let report = EpochReport {
            epoch,
            train_accuracy: frac(&right, order.len()),
            test_accuracy: frac(&test_right, test_x.len()),
            images_per_second: if seconds > 0.0 {
                order.len() as f64 / seconds
            } else {
                0.0
            },
            lr_shift: (0..cores).map(|x| net.lr_shift(x, epoch)).collect(),
        };
        progress(Progress::EpochEnd(report.clone()));
        reports.push(report);
    }
    let (sha, trained) = match model {
        Model::Int(n) => (n.weights_sha256(), Some(*n)),
        Model::Float(n) => (n.weights_sha256(), None),
    };
    Ok((
        TrainReport {
            config: cfg.clone(),
            mode,
            train_images: train.len(),
            test_images: test.len(),
            epochs: reports,
            weights_sha256: sha,
        },
        trained,
    ))
}
