//! Datasets and their file formats.
pub mod mnist;

use std::fmt;
use std::path::PathBuf;

/// A dataset that could not be read.
#[derive(Debug)]
pub struct DatasetError {
    /// The file (or directory).
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for DatasetError {}

/// Labelled images, `[c][y][x]` bytes each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageSet {
    /// Channels.
    pub channels: usize,
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
    /// Pixels, image after image.
    pub pixels: Vec<u8>,
    /// Labels.
    pub labels: Vec<u8>,
}

impl ImageSet {
    /// Number of images.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Pixels of image `i`.
    pub fn image(&self, i: usize) -> &[u8] {
        let n = self.channels * self.height * self.width;
        &self.pixels[i * n..(i + 1) * n]
    }

    /// The first `n` images.
    pub fn truncated(&self, n: usize) -> ImageSet {
        let n = n.min(self.len());
        let size = self.channels * self.height * self.width;
        ImageSet {
            pixels: self.pixels[..n * size].to_vec(),
            labels: self.labels[..n].to_vec(),
            ..*self
        }
    }
}
