//! What a core is fed when it runs alone: the golden network trains on the first N training
//! images (in file order, epoch 1) and records, for every image, the input of the core under
//! test: the prepared image for the conv core, the conv block's pooled output for FC core 0,
//! FC core x-1's `out_fc` for FC core x. Because LEL has no gradients between cores, a core
//! trained alone on these inputs evolves exactly as it does inside the network.

use super::{Result, RtlError};
use crate::datasets::ImageSet;
use crate::lel::codec::FcCfg;
use crate::lel::config::PlatformConfig;
use crate::lel::conv::ConvBlock;
use crate::lel::fc_core::FcCore;
use crate::lel::network::{lfsr_seeds, LelNetwork};
use crate::lel::train::prepare_all;

/// One image for a core: its input values and its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The core's input (activations, or prepared pixels for the conv core).
    pub input: Vec<i32>,
    /// The label.
    pub label: u32,
}

/// An FC core's starting point and what it is fed.
#[derive(Clone, Debug)]
pub struct FcFeed {
    /// The golden core before the first image (initial weights, LC weights, LFSR seeds).
    pub core: FcCore,
    /// LC-weight LFSR seed.
    pub seed_lc: u32,
    /// Weight-update LFSR seed.
    pub seed_wu: u32,
    /// The core's `model_cfg` (FC-core view) in epoch 1.
    pub cfg: FcCfg,
    /// The images.
    pub samples: Vec<Sample>,
}

/// The conv core's kernels and images.
#[derive(Clone, Debug)]
pub struct ConvFeed {
    /// The golden conv block.
    pub block: ConvBlock,
    /// The prepared images (CHW, after padding and the pixel map).
    pub samples: Vec<Sample>,
}

fn first(set: &ImageSet, n: usize) -> Result<ImageSet> {
    if n > set.len() {
        return Err(RtlError::Other(format!(
            "{n} images asked for; the training set has {}",
            set.len()
        )));
    }
    Ok(set.truncated(n))
}

/// FC core `x` of `cfg`, fed by the golden network on the first `n` images of `train`.
pub fn fc_feed(cfg: &PlatformConfig, train: &ImageSet, n: usize, x: usize) -> Result<FcFeed> {
    let mut net = LelNetwork::new(cfg).map_err(|e| RtlError::Other(e.0))?;
    if x >= net.cores.len() {
        return Err(RtlError::Config {
            key: "fc".into(),
            message: format!(
                "there is no FC core {x}; the configuration has {}",
                net.cores.len()
            ),
        });
    }
    let set = first(train, n)?;
    let images = prepare_all(cfg, &set).map_err(|e| RtlError::Other(e.0))?;
    let core = net.cores[x].clone();
    let (seed_lc, seed_wu) = lfsr_seeds(cfg)[x];
    let f = &cfg.fc[x];
    let fc_cfg = FcCfg {
        alpha_next: f.alpha_next,
        alpha_e: f.alpha_e,
        lr_shift: net.lr_shift(x, 1),
        alpha_lc: f.alpha_lc,
    };
    let mut samples = Vec::with_capacity(n);
    for (img, &label) in images.iter().zip(&set.labels) {
        let (_, fed) = net.train_image_traced(img, label as u32, 1);
        samples.push(Sample {
            input: fed[x].clone(),
            label: label as u32,
        });
    }
    Ok(FcFeed {
        core,
        seed_lc,
        seed_wu,
        cfg: fc_cfg,
        samples,
    })
}

/// The conv core of `cfg` and the first `n` images of `train`, prepared.
pub fn conv_feed(cfg: &PlatformConfig, train: &ImageSet, n: usize) -> Result<ConvFeed> {
    let net = LelNetwork::new(cfg).map_err(|e| RtlError::Other(e.0))?;
    let set = first(train, n)?;
    let images = prepare_all(cfg, &set).map_err(|e| RtlError::Other(e.0))?;
    Ok(ConvFeed {
        block: net.conv.clone(),
        samples: images
            .into_iter()
            .zip(&set.labels)
            .map(|(input, &l)| Sample {
                input,
                label: l as u32,
            })
            .collect(),
    })
}
