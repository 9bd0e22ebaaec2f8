//! Corrupt, truncated and hostile inputs: every reader must return a `FormatError` (or, when
//! the corruption happens to keep the file valid, a value) and never panic.

#[path = "formats_common/mod.rs"]
mod common;

use common::{corrupt, data_dir, fixture, Rng};
use edgelearn_verif::formats::npy;
use edgelearn_verif::formats::pickle;
use edgelearn_verif::formats::torch;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Runs `f` and fails the test with `what` if it panics.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => panic!("panicked on {what}"),
    }
}

/// The members of a zip file, in order.
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut f = archive.by_index(i).unwrap();
            let name = f.name().unwrap().into_owned();
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            (name, data)
        })
        .collect()
}

/// A stored (uncompressed) zip of the given members.
fn zip_stored(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in members {
        w.start_file(name.as_str(), options).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn every_prefix_of_small_npy_files() {
    let dir = data_dir();
    for rel in [
        "ai8x-kat/t-flatten-bias/bias_source.npy",
        "ai8x-kat/t-conv1d-multilayer-q1248/weights_source.npy",
        "ai8x/sample_mnist.npy",
    ] {
        let bytes = std::fs::read(dir.join(rel)).unwrap();
        let full = npy::parse_npy_all(&bytes, rel).unwrap();
        for len in 0..bytes.len() {
            let what = format!("{rel} cut to {len} bytes");
            let first = no_panic(&what, || npy::parse_npy(&bytes[..len], rel));
            let all = no_panic(&what, || npy::parse_npy_all(&bytes[..len], rel));
            match all {
                // Only a cut exactly between two arrays reads, and then the arrays before it.
                Ok(arrays) => {
                    assert!(arrays.len() < full.len(), "{what}");
                    assert_eq!(arrays[..], full[..arrays.len()], "{what}");
                    assert_eq!(first.unwrap(), full[0], "{what}");
                }
                Err(err) => {
                    assert_eq!(err.path, rel);
                    if let Ok(a) = first {
                        assert_eq!(a, full[0], "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn corrupted_npy_and_npz_files() {
    let dir = data_dir();
    let mut rng = Rng::new(1);
    let inputs = [
        std::fs::read(dir.join("ai8x/sample_mnist.npy")).unwrap(),
        std::fs::read(dir.join("ai8x-kat/t-chan1024/input.npy")).unwrap(),
        std::fs::read(dir.join("ai8x-kat/t-upscale/weights_source.npy")).unwrap(),
        std::fs::read(fixture("fortran_i4.npy")).unwrap(),
        std::fs::read(fixture("v3_u8.npy")).unwrap(),
    ];
    for (n, input) in inputs.iter().enumerate() {
        for i in 0..150 {
            let bad = corrupt(&mut rng, input, 0..128);
            no_panic(&format!("npy {n} variant {i}"), || {
                npy::parse_npy(&bad, "x.npy").ok();
                npy::parse_npy_all(&bad, "x.npy").ok();
            });
        }
    }
    for name in ["stored.npz", "deflated.npz"] {
        let input = std::fs::read(fixture(name)).unwrap();
        for i in 0..200 {
            let bad = corrupt(&mut rng, &input, 0..input.len());
            no_panic(&format!("{name} variant {i}"), || {
                npy::parse_npz(&bad, name)
            })
            .ok();
        }
        for len in (0..input.len()).step_by(7) {
            let r = no_panic(&format!("{name} cut to {len}"), || {
                npy::parse_npz(&input[..len], name)
            });
            assert!(r.is_err(), "{name} cut to {len} bytes loaded");
        }
    }
}

#[test]
fn corrupted_data_pkl_inside_a_zip_checkpoint() {
    let path = data_dir().join("ai8x-kat/checkpoints/ai85-mnist-extrasmall-qat8-q.pth.tar");
    let members = unzip(&std::fs::read(&path).unwrap());
    let pkl_index = members
        .iter()
        .position(|(n, _)| n.ends_with("/data.pkl"))
        .unwrap();
    // The rewritten archive loads like the original.
    let good = torch::parse_checkpoint(&zip_stored(&members), "rewritten").unwrap();
    assert_eq!(good.state_dict.len(), 25);

    let pkl = members[pkl_index].1.clone();
    let mut rng = Rng::new(2);
    let mut failures = 0;
    for i in 0..400 {
        let mut variant = members.clone();
        variant[pkl_index].1 = corrupt(&mut rng, &pkl, 0..pkl.len());
        let zipped = zip_stored(&variant);
        let r = no_panic(&format!("data.pkl variant {i}"), || {
            torch::parse_checkpoint(&zipped, "variant")
        });
        if let Err(e) = r {
            assert_eq!(e.path, "variant");
            assert!(!e.message.is_empty());
            failures += 1;
        }
    }
    assert!(
        failures > 100,
        "only {failures} of 400 corruptions were detected"
    );

    // Every truncation of data.pkl fails.
    for len in (0..pkl.len()).step_by(3) {
        let mut variant = members.clone();
        variant[pkl_index].1.truncate(len);
        let zipped = zip_stored(&variant);
        let r = no_panic(&format!("data.pkl cut to {len}"), || {
            torch::parse_checkpoint(&zipped, "variant")
        });
        assert!(r.is_err(), "data.pkl cut to {len} bytes loaded");
    }

    // Missing or corrupted storages.
    for i in 0..60 {
        let mut variant = members.clone();
        let k = 1 + rng.below(variant.len() - 1);
        if k == pkl_index {
            continue;
        }
        if i % 2 == 0 {
            variant.remove(k);
        } else {
            let data = variant[k].1.clone();
            variant[k].1 = corrupt(&mut rng, &data, 0..data.len());
        }
        let zipped = zip_stored(&variant);
        no_panic(&format!("storage variant {i}"), || {
            torch::parse_checkpoint(&zipped, "variant")
        })
        .ok();
    }
}

#[test]
fn corrupted_whole_checkpoint_files() {
    let dir = data_dir();
    let mut rng = Rng::new(3);
    for rel in [
        "ai8x-kat/checkpoints/ai85-mnist-extrasmall-qat8-q.pth.tar",
        "ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar",
        "ai8x-kat/checkpoints/test-firetestnet-cifar10.pth.tar",
    ] {
        let bytes = std::fs::read(dir.join(rel)).unwrap();
        for i in 0..150 {
            let bad = corrupt(&mut rng, &bytes, 0..bytes.len().min(4096));
            no_panic(&format!("{rel} variant {i}"), || {
                torch::parse_checkpoint(&bad, rel)
            })
            .ok();
        }
        // Truncations: a zip loses its directory and a legacy file its pickles or storages.
        let step = (bytes.len() / 300).max(1);
        for len in (0..bytes.len()).step_by(step) {
            let r = no_panic(&format!("{rel} cut to {len}"), || {
                torch::parse_checkpoint(&bytes[..len], rel)
            });
            assert!(r.is_err(), "{rel} cut to {len} bytes loaded");
        }
    }
    // Every prefix of the pickles at the start of a legacy file.
    let rel = "ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar";
    let bytes = std::fs::read(dir.join(rel)).unwrap();
    for len in 0..2200 {
        let r = no_panic(&format!("{rel} cut to {len}"), || {
            torch::parse_checkpoint(&bytes[..len], rel)
        });
        assert!(r.is_err());
    }
}

#[test]
fn corrupted_synthetic_checkpoints() {
    let mut rng = Rng::new(4);
    for name in ["strided.pth", "legacy_view.pth", "legacy_bigendian.pth"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        for i in 0..150 {
            let bad = corrupt(&mut rng, &bytes, 0..bytes.len());
            no_panic(&format!("{name} variant {i}"), || {
                torch::parse_checkpoint(&bad, name)
            })
            .ok();
        }
    }
    // Corrupt the pickle of the synthetic zip checkpoint, which uses every tensor form.
    let members = unzip(&std::fs::read(fixture("strided.pth")).unwrap());
    let pkl_index = members
        .iter()
        .position(|(n, _)| n.ends_with("/data.pkl"))
        .unwrap();
    let pkl = members[pkl_index].1.clone();
    for i in 0..200 {
        let mut variant = members.clone();
        variant[pkl_index].1 = corrupt(&mut rng, &pkl, 0..pkl.len());
        let zipped = zip_stored(&variant);
        no_panic(&format!("strided data.pkl variant {i}"), || {
            torch::parse_checkpoint(&zipped, "variant")
        })
        .ok();
    }
}

#[test]
fn random_bytes_as_pickle() {
    let mut rng = Rng::new(5);
    // Opcode bytes are over-represented so that the interpreter gets past the first opcode.
    let opcodes = b"().012FIJKLMNPQRSTUVXabcdegh}ijl]opqrstuBCG\x80\x81\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96";
    for i in 0..3000 {
        let len = rng.below(64);
        let data: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(3) > 0 {
                    opcodes[rng.below(opcodes.len())]
                } else {
                    rng.byte()
                }
            })
            .collect();
        no_panic(&format!("random pickle {i}: {data:?}"), || {
            pickle::parse(&data, "random")
        })
        .ok();
    }
}

#[test]
fn corrupted_pickles_of_every_protocol() {
    let mut rng = Rng::new(6);
    for proto in 0..=5 {
        let name = format!("plain_p{proto}.pkl");
        let bytes = std::fs::read(fixture(&name)).unwrap();
        for i in 0..100 {
            let bad = corrupt(&mut rng, &bytes, 0..bytes.len());
            no_panic(&format!("{name} variant {i}"), || {
                pickle::parse(&bad, &name)
            })
            .ok();
        }
        for len in 0..bytes.len() {
            let r = no_panic(&format!("{name} cut to {len}"), || {
                pickle::parse(&bytes[..len], &name)
            });
            assert!(r.is_err(), "{name} cut to {len} bytes parsed");
        }
    }
}

#[test]
fn missing_files_give_format_errors() {
    let missing = Path::new("/nonexistent/dir/file");
    for r in [
        torch::load_checkpoint(missing).map(|_| ()),
        npy::load_npy(missing).map(|_| ()),
        npy::load_npz(missing).map(|_| ()),
    ] {
        let e = r.unwrap_err();
        assert_eq!(e.path, "/nonexistent/dir/file");
        assert!(e.message.contains("cannot read file"), "{e}");
        assert!(e
            .to_string()
            .starts_with("/nonexistent/dir/file: cannot read file"));
    }
    // A directory is not a file either.
    assert!(torch::load_checkpoint(&fixture("")).is_err());
}

#[test]
fn wrong_magic_gives_format_errors() {
    let dir = data_dir();
    let npy_path = dir.join("ai8x/sample_mnist.npy");
    let ckpt_path = dir.join("ai8x/ai85-mnist-qat8-q.pth.tar");
    let legacy_path = dir.join("ai8x-kat/checkpoints/test-cifar10.pth.tar");

    let e = torch::load_checkpoint(&npy_path).unwrap_err();
    assert!(e.message.contains("not a PyTorch checkpoint"), "{e}");
    let e = npy::load_npy(&ckpt_path).unwrap_err();
    assert!(e.message.contains("not an .npy file"), "{e}");
    let e = npy::load_npy(&legacy_path).unwrap_err();
    assert!(e.message.contains("not an .npy file"), "{e}");
    let e = npy::load_npz(&npy_path).unwrap_err();
    assert!(e.message.contains("not an .npz file"), "{e}");
    // An .npz of no .npy members is a valid but empty archive; a checkpoint is not an npz.
    let arrays = npy::load_npz(&ckpt_path).unwrap();
    assert!(arrays.is_empty());

    // A pickle that is not the legacy magic number.
    let e = torch::parse_checkpoint(b"\x80\x02K\x05.", "p").unwrap_err();
    assert!(e.message.contains("magic number"), "{e}");
    let e = torch::parse_checkpoint(b"", "p").unwrap_err();
    assert!(e.message.contains("empty"), "{e}");
    let e = npy::parse_npy(b"\x93NUMPY\x09\x00", "p").unwrap_err();
    assert!(e.message.contains("version 9.0"), "{e}");
    let e = npy::parse_npy(b"", "p").unwrap_err();
    assert!(e.message.contains("empty"), "{e}");
}
