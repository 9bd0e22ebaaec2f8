//! Helpers shared by the integration tests.

#![allow(dead_code)]

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::{Path, PathBuf};

/// The directory holding the kit's real data (`ai8x/`, `ai8x-kat/`).
///
/// Taken from `FORMATS_TEST_DATA` if set, else the workplace folder `../shared/data` next to the
/// repository when it is there (every file), else the repository's own `data/` (a
/// byte-identical subset with the same layout, vendored so that a clean checkout tests).
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FORMATS_TEST_DATA") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../../shared/data"),
        manifest.join("../shared/data"),
        manifest.join("../data"),
    ];
    for c in &candidates {
        if c.join("ai8x").is_dir() && c.join("ai8x-kat").is_dir() {
            return c.clone();
        }
    }
    panic!("the kit's data directory was not found (tried {candidates:?}); set FORMATS_TEST_DATA");
}

/// Whether [`data_dir`] holds every file of the kit (and not the vendored subset). The
/// repository's `data/` vendors every checkpoint but one: the workplace's
/// `ai8x/ai85-cifar10-qat8-q.pth.tar`, which does not match `cifar10-hwc-ai85.yaml` (the one
/// that does is `ai8x-kat/checkpoints/`).
pub fn full_data() -> bool {
    data_dir()
        .join("ai8x/ai85-cifar10-qat8-q.pth.tar")
        .is_file()
}

/// The path of `rel` under [`data_dir`]; `None` when the vendored subset lacks it. With the full
/// data a missing file is a test failure. Loops over a table use this and then assert how
/// many files they checked, so they cannot pass by skipping.
pub fn present(rel: &str) -> Option<PathBuf> {
    let p = data_dir().join(rel);
    if p.exists() {
        Some(p)
    } else if full_data() {
        panic!("{} is missing from the kit's data", p.display());
    } else {
        None
    }
}

/// The path of `rel` under [`data_dir`], which must exist: the file is vendored in the
/// repository's `data/`, so a test that needs it never passes by skipping it.
pub fn require(rel: &str) -> PathBuf {
    let p = data_dir().join(rel);
    assert!(
        p.is_file(),
        "{} is missing; it is vendored in data/ and this test needs it",
        p.display()
    );
    p
}

/// A synthetic fixture in `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/formats/fixtures")
        .join(name)
}

/// Files of `dir` whose names end with `suffix`, sorted.
pub fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    out.sort();
    out
}

/// A seeded generator for the fuzz tests (xoshiro256++ with the two helpers they use).
pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n)
    }

    pub fn byte(&mut self) -> u8 {
        self.0.random()
    }
}

/// Applies one random corruption to `data`: truncation, bit flips, overwritten bytes,
/// inserted or deleted bytes. `hot` is a byte range where most corruption is aimed.
pub fn corrupt(rng: &mut Rng, data: &[u8], hot: std::ops::Range<usize>) -> Vec<u8> {
    let mut out = data.to_vec();
    if out.is_empty() {
        return out;
    }
    let pick = |rng: &mut Rng, len: usize| -> usize {
        if rng.below(4) > 0 && hot.end > hot.start && hot.end <= len {
            hot.start + rng.below(hot.end - hot.start)
        } else {
            rng.below(len)
        }
    };
    match rng.below(6) {
        0 => {
            let cut = pick(rng, out.len());
            out.truncate(cut);
        }
        1 | 2 => {
            for _ in 0..=rng.below(4) {
                let i = pick(rng, out.len());
                out[i] ^= 1 << rng.below(8);
            }
        }
        3 => {
            for _ in 0..=rng.below(8) {
                let i = pick(rng, out.len());
                out[i] = rng.byte();
            }
        }
        4 => {
            let i = pick(rng, out.len());
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
            out.splice(i..i, bytes);
        }
        _ => {
            let i = pick(rng, out.len());
            let n = (1 + rng.below(16)).min(out.len() - i);
            out.drain(i..i + n);
        }
    }
    out
}
