//! MNIST in IDX format (gzipped or raw) with the standard file names:
//! `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`,
//! `t10k-labels-idx1-ubyte`, each optionally with `.gz`. IDX: big-endian magic
//! `0x00000803` (u8 images, 3 dimensions) or `0x00000801` (u8 labels), then the dimensions
//! as big-endian u32, then the data (data/mnist-10k/FORMAT.md).

use super::{DatasetError, ImageSet};
use flate2::read::GzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Training and test split.
#[derive(Clone, Debug)]
pub struct Mnist {
    /// Training images.
    pub train: ImageSet,
    /// Test images.
    pub test: ImageSet,
}

fn find(dir: &Path, stem: &str) -> Result<PathBuf, DatasetError> {
    for name in [format!("{stem}.gz"), stem.to_string()] {
        let p = dir.join(&name);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(DatasetError {
        path: dir.join(stem),
        message: format!(
            "missing: neither {stem} nor {stem}.gz is in {}",
            dir.display()
        ),
    })
}

fn read_all(path: &Path) -> Result<Vec<u8>, DatasetError> {
    let raw = std::fs::read(path).map_err(|e| DatasetError {
        path: path.into(),
        message: e.to_string(),
    })?;
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        GzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| DatasetError {
                path: path.into(),
                message: format!("corrupt or truncated gzip data: {e}"),
            })?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// Parse an IDX buffer: `(dimensions, data)`.
pub fn parse_idx(
    path: &Path,
    bytes: &[u8],
    want_dims: usize,
) -> Result<(Vec<usize>, Vec<u8>), DatasetError> {
    let bad = |m: String| DatasetError {
        path: path.into(),
        message: m,
    };
    if bytes.len() < 4 {
        return Err(bad(format!(
            "truncated: {} bytes, no IDX header",
            bytes.len()
        )));
    }
    if bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08 {
        return Err(bad(format!(
            "not an IDX file of unsigned bytes (magic {:02x}{:02x}{:02x}{:02x})",
            bytes[0], bytes[1], bytes[2], bytes[3]
        )));
    }
    let dims = bytes[3] as usize;
    if dims != want_dims {
        return Err(bad(format!("{dims} dimensions, expected {want_dims}")));
    }
    let header = 4 + 4 * dims;
    if bytes.len() < header {
        return Err(bad(format!(
            "truncated header: {} bytes, {header} needed",
            bytes.len()
        )));
    }
    let shape: Vec<usize> = (0..dims)
        .map(|d| u32::from_be_bytes(bytes[4 + 4 * d..8 + 4 * d].try_into().unwrap()) as usize)
        .collect();
    let n: usize = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| bad(format!("header dimensions {shape:?} overflow")))?;
    if bytes.len() - header < n {
        return Err(bad(format!(
            "truncated: {} data bytes, the header promises {n}",
            bytes.len() - header
        )));
    }
    if bytes.len() - header > n {
        return Err(bad(format!(
            "{} bytes of trailing garbage after the {n} data bytes",
            bytes.len() - header - n
        )));
    }
    Ok((shape, bytes[header..].to_vec()))
}

fn load_split(dir: &Path, images: &str, labels: &str) -> Result<ImageSet, DatasetError> {
    let ip = find(dir, images)?;
    let lp = find(dir, labels)?;
    let (shape, pixels) = parse_idx(&ip, &read_all(&ip)?, 3)?;
    let (lshape, labels_v) = parse_idx(&lp, &read_all(&lp)?, 1)?;
    if lshape[0] != shape[0] {
        return Err(DatasetError {
            path: lp,
            message: format!(
                "{} labels for {} images in {}",
                lshape[0],
                shape[0],
                ip.display()
            ),
        });
    }
    if let Some(bad) = labels_v.iter().position(|&l| l > 9) {
        return Err(DatasetError {
            path: lp,
            message: format!("label {} of item {bad} is not a digit", labels_v[bad]),
        });
    }
    Ok(ImageSet {
        channels: 1,
        height: shape[1],
        width: shape[2],
        pixels,
        labels: labels_v,
    })
}

/// Load MNIST from a directory.
pub fn load(dir: &Path) -> Result<Mnist, DatasetError> {
    if !dir.is_dir() {
        return Err(DatasetError {
            path: dir.into(),
            message: "not a directory".into(),
        });
    }
    Ok(Mnist {
        train: load_split(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte")?,
        test: load_split(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn idx(dims: &[u32], data: &[u8], magic: u8) -> Vec<u8> {
        let mut v = vec![0, 0, 8, magic];
        for d in dims {
            v.extend(d.to_be_bytes());
        }
        v.extend(data);
        v
    }

    #[test]
    fn idx_errors_are_clear() {
        let p = Path::new("x");
        let ok = idx(&[2, 2, 2], &[1; 8], 3);
        assert_eq!(parse_idx(p, &ok, 3).unwrap().0, vec![2, 2, 2]);
        let e = parse_idx(p, &ok[..ok.len() - 1], 3).unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        assert!(parse_idx(p, &ok[..6], 3)
            .unwrap_err()
            .message
            .contains("truncated header"));
        assert!(parse_idx(p, &[1, 2, 3, 4, 5], 3)
            .unwrap_err()
            .message
            .contains("not an IDX"));
        assert!(parse_idx(p, &ok, 1)
            .unwrap_err()
            .message
            .contains("dimensions"));
        // Fuzz: no input panics.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let mut b = bytes.clone();
            if len > 4 {
                b[..4].copy_from_slice(&[0, 0, 8, 3]);
            }
            let _ = parse_idx(p, &b, 3);
            let _ = parse_idx(p, &bytes, 1);
        }
    }
}
