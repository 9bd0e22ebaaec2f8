//! `edgelearn train`.

use super::{checkpoint, plot};
use anyhow::{bail, Context};
use edgelearn_verif::datasets::mnist;
use edgelearn_verif::lel::train::{train_with, Checkpoints, Mode, Progress, TrainState};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;

/// The command's options (the command line's, `crate::cli::TrainArgs`).
pub use crate::cli::TrainArgs as Args;

/// Refuse to overwrite a file unless forced; make its directory.
pub fn output_path(p: &Path, force: bool) -> anyhow::Result<()> {
    if p.exists() && !force {
        bail!("{} exists; not overwriting it (use --force)", p.display());
    }
    if let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    Ok(())
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if a.epochs == 0 {
        bail!("--epochs must be at least 1");
    }
    let cfg = super::load_config(&a.config, a.seed, a.lanes)?;
    for p in a.report.iter().chain(a.plot.iter()) {
        output_path(p, a.force)?;
    }
    let data = mnist::load(&a.data).context("cannot load MNIST")?;
    let train_set = match a.images {
        Some(k) => data.train.truncated(k),
        None => data.train.clone(),
    };
    let test_set = match a.test_images {
        Some(k) => data.test.truncated(k),
        None => data.test.clone(),
    };
    let mode = if a.float { Mode::Float } else { Mode::BitExact };
    eprintln!(
        "training {} ({}) on {} images, testing on {}, {} epoch(s), seed {}",
        cfg.name,
        if a.float {
            "f32 reference"
        } else {
            "bit-exact"
        },
        train_set.len(),
        test_set.len(),
        a.epochs,
        cfg.seed
    );
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(train_set.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "epoch {msg} [{bar:40}] {pos}/{len} images, {per_sec}, eta {eta}",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    let mut on_progress = |p: Progress| match p {
        Progress::EpochStart { epoch, images } => {
            bar.reset();
            bar.set_length(images as u64);
            bar.set_message(epoch.to_string());
        }
        Progress::Trained { done } => bar.set_position(done as u64),
        Progress::EpochEnd(r) => {
            bar.suspend(|| {
                let pct = percents;
                eprintln!(
                    "epoch {}: train {} | test {} (per core) | {:.0} images/s | lr_shift {:?}",
                    r.epoch,
                    pct(&r.train_accuracy),
                    pct(&r.test_accuracy),
                    r.images_per_second,
                    r.lr_shift
                );
            });
        }
    };
    // The checkpoint: read when it exists, rewritten (atomically) as the run goes.
    let resume: Option<TrainState> = match &a.checkpoint {
        Some(p) => checkpoint::load(p, "training")?,
        None => None,
    };
    if let (Some(p), Some(st)) = (&a.checkpoint, &resume) {
        eprintln!(
            "resuming from {}: epoch {}, {} images done",
            p.display(),
            st.epoch,
            st.done
        );
    }
    let mut save = |s: &TrainState| -> Result<(), String> {
        let p = a.checkpoint.as_ref().expect("saving needs a path");
        checkpoint::save(p, s).map_err(|e| format!("{e:#}"))
    };
    let ck = a.checkpoint.as_ref().map(|_| Checkpoints {
        resume,
        every: a.checkpoint_every,
        save: &mut save,
    });
    let (report, _) = train_with(
        &cfg,
        mode,
        &train_set,
        &test_set,
        a.epochs,
        ck,
        &mut on_progress,
    )?;
    bar.finish_and_clear();
    println!("weights_sha256 {}", report.weights_sha256);
    if let Some(p) = &a.report {
        let json = serde_json::to_string_pretty(&report).expect("report serializes");
        std::fs::write(p, json + "\n").with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(p) = &a.plot {
        plot::accuracy_png(p, &report).with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Accuracies as percentages, `96.10% / 95.80%` (one per core).
pub fn percents(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{:.2}%", 100.0 * x))
        .collect::<Vec<_>>()
        .join(" / ")
}
