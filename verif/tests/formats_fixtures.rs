//! Synthetic files written by `tests/fixtures/make_fixtures.py` (Python's pickle and NumPy,
//! no torch) that exercise what the real data does not: every storage type, offsets,
//! arbitrary strides, parameters, `_rebuild_tensor_v3`, byte order, legacy views, npy format
//! versions 2 and 3, Fortran order, npz archives, and broken checkpoints.

#[path = "formats_common/mod.rs"]
mod common;

use common::fixture;
use edgelearn_verif::formats::npy::{self, NpyData};
use edgelearn_verif::formats::pickle::{self, Value};
use edgelearn_verif::formats::torch::{self, DType};

fn values(c: &torch::Checkpoint, name: &str) -> (Vec<usize>, DType, Vec<f64>) {
    let t = c.tensor(name).unwrap_or_else(|| panic!("no tensor {name}"));
    (t.shape.clone(), t.dtype, t.data.clone())
}

#[test]
fn strides_offsets_and_every_storage_type() {
    let c = torch::load_checkpoint(&fixture("strided.pth")).unwrap();
    assert_eq!(c.arch.as_deref(), Some("synthetic"));
    assert_eq!(c.epoch, Some(3));
    let names: Vec<&str> = c.state_dict.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "transposed",
            "offset_slice",
            "param",
            "half",
            "bf16",
            "long",
            "int",
            "short",
            "char",
            "byte",
            "bool",
            "scalar",
            "broadcast",
            "empty",
            "v3_untyped"
        ]
    );
    let f = DType::Float32;
    assert_eq!(
        values(&c, "transposed"),
        (
            vec![4, 3],
            f,
            vec![0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]
        )
    );
    assert_eq!(values(&c, "offset_slice"), (vec![2], f, vec![5., 8.]));
    assert_eq!(
        values(&c, "param"),
        (vec![3], DType::Float64, vec![0.5, -1.25, 3.0])
    );
    assert_eq!(
        values(&c, "half"),
        (vec![3], DType::Float16, vec![1.0, -2.5, 65504.0])
    );
    assert_eq!(
        values(&c, "bf16"),
        (vec![2], DType::BFloat16, vec![1.0, -3.5])
    );
    assert_eq!(
        values(&c, "long"),
        (vec![2], DType::Int64, vec![-(2f64.powi(40)), 7.0])
    );
    assert_eq!(
        values(&c, "int"),
        (vec![2], DType::Int32, vec![-5.0, 2147483647.0])
    );
    assert_eq!(
        values(&c, "short"),
        (vec![2], DType::Int16, vec![-300.0, 300.0])
    );
    assert_eq!(
        values(&c, "char"),
        (vec![2], DType::Int8, vec![-128.0, 127.0])
    );
    assert_eq!(
        values(&c, "byte"),
        (vec![2], DType::UInt8, vec![0.0, 255.0])
    );
    assert_eq!(
        values(&c, "bool"),
        (vec![3], DType::Bool, vec![1.0, 0.0, 1.0])
    );
    assert_eq!(values(&c, "scalar"), (vec![], f, vec![7.0]));
    assert_eq!(
        values(&c, "broadcast"),
        (vec![2, 3], f, vec![2., 3., 4., 2., 3., 4.])
    );
    assert_eq!(values(&c, "empty"), (vec![0, 5], f, vec![]));
    assert_eq!(
        values(&c, "v3_untyped"),
        (vec![3], DType::Int16, vec![1.0, -1.0, 513.0])
    );
    assert_eq!(
        c.tensor("long").unwrap().to_i64_exact().unwrap(),
        [-(1i64 << 40), 7]
    );
    // A tensor outside the state dict stays a pickle value.
    let nested = c.get("extras").unwrap().get("nested").unwrap();
    assert!(matches!(nested, Value::Call { .. }));
}

#[test]
fn zip_byteorder_big() {
    let c = torch::load_checkpoint(&fixture("bigendian.pth")).unwrap();
    assert_eq!(values(&c, "f"), (vec![2], DType::Float32, vec![1.5, -2.0]));
    assert_eq!(
        values(&c, "l"),
        (vec![2], DType::Int64, vec![-3.0, 8589934592.0])
    );
    assert_eq!(c.arch, None);
    assert_eq!(c.epoch, None);
}

#[test]
fn top_level_state_dict_with_metadata() {
    let c = torch::load_checkpoint(&fixture("plain_state_dict.pth")).unwrap();
    let names: Vec<&str> = c.state_dict.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["w", "b"]);
    assert_eq!(
        values(&c, "w"),
        (vec![2, 2], DType::Float32, vec![1., 2., 3., 4.])
    );
    assert_eq!(values(&c, "b"), (vec![2], DType::Float32, vec![3., 4.]));
    assert_eq!(c.entries.len(), 2);
}

#[test]
fn legacy_views_and_old_rebuild() {
    let c = torch::load_checkpoint(&fixture("legacy_view.pth")).unwrap();
    assert_eq!(c.arch.as_deref(), Some("legacyview"));
    assert_eq!(
        values(&c, "full"),
        (vec![2, 3], DType::Float32, vec![0., 1., 2., 3., 4., 5.])
    );
    // View of elements 2..5 of the root storage, then offset 1 within the view.
    assert_eq!(values(&c, "view"), (vec![2], DType::Float32, vec![3., 4.]));
    assert_eq!(
        values(&c, "old_style"),
        (vec![2], DType::Int64, vec![10., -20.])
    );
}

#[test]
fn legacy_big_endian() {
    let c = torch::load_checkpoint(&fixture("legacy_bigendian.pth")).unwrap();
    assert_eq!(values(&c, "x"), (vec![2], DType::Float32, vec![0.25, -8.0]));
}

fn load_err(name: &str) -> String {
    let path = fixture(name);
    let err = torch::load_checkpoint(&path).unwrap_err();
    assert_eq!(err.path, path.display().to_string());
    err.message
}

#[test]
fn broken_checkpoints_give_clear_errors() {
    let m = load_err("not_a_dict.pth");
    assert!(m.contains("not a dict"), "{m}");
    let m = load_err("missing_storage.pth");
    assert!(m.contains("storage 7 is missing"), "{m}");
    assert!(m.contains("'x'"), "{m}");
    let m = load_err("bad_view.pth");
    assert!(m.contains("reaches element 4"), "{m}");
    let m = load_err("no_state_dict.pth");
    assert!(m.contains("no 'state_dict'"), "{m}");
    // An .npz is a zip archive, but not a checkpoint.
    let m = load_err("stored.npz");
    assert!(m.contains("data.pkl"), "{m}");
}

#[test]
fn npy_versions_orders_and_dtypes() {
    let a = npy::load_npy(&fixture("fortran_i4.npy")).unwrap();
    assert_eq!(a.shape, [2, 3, 4]);
    assert_eq!(a.dtype, "<i4");
    assert_eq!(a.to_i64().unwrap(), (0..24).collect::<Vec<i64>>());

    let a = npy::load_npy(&fixture("v2_f8.npy")).unwrap();
    assert_eq!(a.dtype, ">f8");
    assert_eq!(a.shape, [2, 2]);
    assert_eq!(a.data, NpyData::Float(vec![1.5, -2.25, 3.0, 1e300]));
    assert!(a.to_i64().is_err());

    let a = npy::load_npy(&fixture("v3_u8.npy")).unwrap();
    assert_eq!(a.data, NpyData::UInt(vec![0, u64::MAX, 12345]));
    assert!(a.to_i64().unwrap_err().contains("does not fit"));

    let a = npy::load_npy(&fixture("f2.npy")).unwrap();
    assert_eq!(a.data, NpyData::Float(vec![1.0, -0.5, 65504.0]));

    let a = npy::load_npy(&fixture("b1.npy")).unwrap();
    assert_eq!(a.data, NpyData::Bool(vec![true, false, false, true]));
    assert_eq!(a.to_i64().unwrap(), [1, 0, 0, 1]);

    let a = npy::load_npy(&fixture("scalar_i2.npy")).unwrap();
    assert!(a.shape.is_empty());
    assert_eq!(a.dtype, ">i2");
    assert_eq!(a.data, NpyData::Int(vec![-7]));

    let a = npy::load_npy(&fixture("empty_f4.npy")).unwrap();
    assert_eq!(a.shape, [0, 3]);
    assert!(a.data.is_empty());
}

#[test]
fn npz_stored_and_deflated() {
    let arrays = npy::load_npz(&fixture("stored.npz")).unwrap();
    let names: Vec<&str> = arrays.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(arrays[0].1.data, NpyData::Int(vec![1, 2, 3]));
    assert_eq!(arrays[1].1.shape, [1, 1]);
    assert_eq!(arrays[1].1.data, NpyData::Float(vec![0.5]));

    let arrays = npy::load_npz(&fixture("deflated.npz")).unwrap();
    assert_eq!(arrays.len(), 2);
    assert_eq!(arrays[0].0, "x");
    assert_eq!(arrays[0].1.shape, [10, 100]);
    assert_eq!(arrays[0].1.dtype, "<i2");
    assert_eq!(
        arrays[0].1.to_i64().unwrap(),
        (0..1000).collect::<Vec<i64>>()
    );
    assert_eq!(arrays[1].1.data, NpyData::Bool(vec![true, false]));
}

#[test]
fn plain_data_in_every_pickle_protocol_matches_python_repr() {
    let expected = std::fs::read_to_string(fixture("plain_repr.txt")).unwrap();
    for proto in 0..=5 {
        let name = format!("plain_p{proto}.pkl");
        let bytes = std::fs::read(fixture(&name)).unwrap();
        let v = pickle::parse(&bytes, &name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(v.to_string(), expected.trim_end(), "{name}");
        let ints = v.get("ints").and_then(Value::as_seq).unwrap();
        assert_eq!(ints[10], Value::Int(i64::MAX), "{name}");
        assert_eq!(ints[11], Value::Int(i64::MIN), "{name}");
        assert!(matches!(ints[12], Value::BigInt(_)), "{name}");
        let bytes_list = v.get("bytes").and_then(Value::as_seq).unwrap();
        assert_eq!(bytes_list[1], Value::Bytes(vec![0, 255]), "{name}");
        assert!(matches!(v.get("set"), Some(Value::Set(items)) if items.len() == 3));
    }
}

#[test]
fn legacy_checkpoint_written_with_pickle_protocol_1() {
    let c = torch::load_checkpoint(&fixture("legacy_proto1.pth")).unwrap();
    assert_eq!(c.epoch, Some(5));
    assert_eq!(values(&c, "w"), (vec![2], DType::Int16, vec![2.0, -3.0]));
}
