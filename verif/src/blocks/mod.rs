//! Port-level adapters: for each block, the stimulus generators of its tests (the thesis's
//! own setups and random vectors with corner values) and its golden trace, i.e. the
//! expected value of every output port on every cycle where the spec defines it.
//!
//! The golden trace of a block is computed from the port-level stimulus alone, so any
//! stimulus (a test's, a user's file) can be checked against the model.

pub mod arith_check;
pub mod arith_check_wide;
pub mod bk_group;
pub mod cache_x4;
pub mod classification;
pub mod cnn_engine;
pub mod cnn_fc_update;
pub mod conv_channels;
pub mod conv_load;
pub mod conv_scan;
pub mod err_fetch;
pub mod fc_fsm;
pub mod fc_out;
pub mod lc_forward;
pub mod lc_group;
pub mod lc_rows;
pub mod lfsr;
pub mod loss;
pub mod matmul;
pub mod mm_group;
pub mod pl_fsm;
pub mod pl_regs;
pub mod pool_packer;
pub mod pool_scan;
pub mod read_pipe;
pub mod result_tally;
pub mod stream_fifo;
pub mod stream_resize;
pub mod tree_adder;
pub mod tree_comparator;
pub mod triout_cache;
pub mod visit_cycles;
pub mod weight_update;
pub mod wu_group;

use edgelearn_sim::value::{mask, to_i64, unpack_lanes};
use edgelearn_sim::{Expected, PortSpec, Row, Stimulus};
use num_bigint::BigUint;
use num_traits::ToPrimitive;

/// Corner values of an 8-bit activation (DEVELOPERS.md: always include them).
pub const CORNERS_8: [i64; 7] = [-128, -127, 127, -31, 31, 0, 1];
/// Corner values of a 6-bit weight.
pub const CORNERS_6: [i64; 6] = [-32, -31, 31, 0, 1, -1];

/// `n` random lanes of a `bits`-bit signed value, one in three a corner value from `corners`.
pub(crate) fn corner_lanes(
    rng: &mut rand_xoshiro::Xoshiro256PlusPlus,
    n: usize,
    corners: &[i64],
    bits: u32,
) -> Vec<i8> {
    use rand::RngExt;
    (0..n)
        .map(|_| match rng.random_range(0..3) {
            0 => corners[rng.random_range(0..corners.len())] as i8,
            _ => (rng.random::<i8>() << (8 - bits)) >> (8 - bits),
        })
        .collect()
}

/// What a named stimulus is asked for: the block, its ports, the seed, about how many
/// cycles (`random`), and whether it is the thesis's own setup (`thesis`).
pub struct StimulusRequest<'a> {
    /// The block's registered name.
    pub block: &'a str,
    /// Its ports.
    pub ports: &'a [PortSpec],
    /// The seed.
    pub seed: u64,
    /// About how long a random stimulus is.
    pub cycles: usize,
    /// The thesis's own setup (else random traffic with corner values).
    pub thesis: bool,
}

impl StimulusRequest<'_> {
    /// `thesis_cycles` for the thesis's setup, else the cycles asked for.
    pub(crate) fn len(&self, thesis_cycles: usize) -> usize {
        if self.thesis {
            thesis_cycles
        } else {
            self.cycles
        }
    }
}

/// The verification side of a registered block (its entry in
/// [`crate::rtl::designs`]): its golden trace of any stimulus, and its named stimuli.
#[derive(Clone, Copy)]
pub struct BlockModel {
    /// The expected value of every output on every cycle the spec defines.
    pub golden: fn(&[PortSpec], &Stimulus) -> Expected,
    /// A named stimulus.
    pub stimulus: fn(&StimulusRequest) -> edgelearn_sim::Result<Stimulus>,
}

/// The model of a registered block.
pub fn model(block: &str) -> Option<BlockModel> {
    crate::rtl::designs::entry(block).ok().and_then(|e| e.model)
}

/// The golden trace of `block` for `stim`, if edgelearn has a model of that block.
pub fn golden_trace(block: &str, ports: &[PortSpec], stim: &Stimulus) -> Option<Expected> {
    model(block).map(|m| (m.golden)(ports, stim))
}

/// The stimulus kinds every block offers.
pub const STIMULUS_KINDS: &[&str] = &["thesis", "random"];

/// A named stimulus of a block: `thesis` (the thesis's own test setup) or `random`
/// (random traffic with corner values, about `cycles` long).
pub fn named_stimulus(
    block: &str,
    kind: &str,
    ports: &[PortSpec],
    seed: u64,
    cycles: usize,
) -> Option<edgelearn_sim::Result<Stimulus>> {
    if !STIMULUS_KINDS.contains(&kind) {
        return None;
    }
    let request = StimulusRequest {
        block,
        ports,
        seed,
        cycles,
        thesis: kind == "thesis",
    };
    model(block).map(|m| (m.stimulus)(&request))
}

/// A field of a golden model's inputs, read from and written to the block's port of the
/// same name: `bool` a bit, `i64` and `i8` a signed value, `u8` to `u64` and `usize` an
/// unsigned one, `Vec<i64>` and `Vec<i8>` the port's lanes (signed as the port is
/// declared), `Vec<u64>` its lanes unsigned. An empty lane list (a `Default` input
/// struct's) leaves the port as the row before had it.
pub(crate) trait PortValue: Sized {
    /// The value of `port` in row `c`.
    fn read(v: &View, c: usize, port: &str) -> Self;
    /// `row` with `port` set to this value.
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>>;
}

impl PortValue for bool {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.bit(c, port)
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        row.bit(port, *self)
    }
}

impl PortValue for i64 {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.signed(c, port)
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        row.set_signed(port, *self)
    }
}

impl PortValue for u32 {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.unsigned(c, port) as u32
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        row.set(port, *self)
    }
}

/// Unsigned fields of other widths, read as `unsigned` and cast (the port's width bounds them).
macro_rules! unsigned_port_value {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            fn read(v: &View, c: usize, port: &str) -> Self {
                v.unsigned(c, port) as $t
            }
            fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
                row.set(port, *self as u64)
            }
        }
    )*};
}
unsigned_port_value!(u8, u16, u64, usize);

impl PortValue for i8 {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.signed(c, port) as i8
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        row.set_signed(port, *self as i64)
    }
}

impl PortValue for Vec<i8> {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.lanes(c, port).iter().map(|&x| x as i8).collect()
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        let lanes: Vec<i64> = self.iter().map(|&x| x as i64).collect();
        lanes.write(row, port)
    }
}

impl PortValue for Vec<i64> {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.lanes(c, port)
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        match self.is_empty() {
            true => Ok(row),
            false => row.set_lanes(port, self),
        }
    }
}

impl PortValue for Vec<u64> {
    fn read(v: &View, c: usize, port: &str) -> Self {
        v.lanes(c, port).iter().map(|&x| x as u64).collect()
    }
    fn write<'a>(&self, row: Row<'a>, port: &str) -> edgelearn_sim::Result<Row<'a>> {
        let lanes: Vec<i64> = self.iter().map(|&x| x as i64).collect();
        lanes.write(row, port)
    }
}

/// A golden model's one-cycle inputs as one stimulus row, field by port of the same name
/// ([`port_row!`] writes the impl from the field list).
pub(crate) trait PortRow: Sized {
    /// Row `c` of the stimulus.
    fn read(v: &View, c: usize) -> Self;
    /// Append these inputs as the next row.
    fn push(&self, s: &mut Stimulus) -> edgelearn_sim::Result<()>;
}

/// `port_row!(Type => field, ...)`: [`PortRow`] for a golden model's input struct whose
/// fields are named after the block's input ports.
macro_rules! port_row {
    ($ty:ty => $($field:ident),* $(,)?) => {
        impl $crate::blocks::PortRow for $ty {
            fn read(v: &$crate::blocks::View, c: usize) -> Self {
                Self { $($field: $crate::blocks::PortValue::read(v, c, stringify!($field)),)* }
            }
            fn push(&self, s: &mut edgelearn_sim::Stimulus) -> edgelearn_sim::Result<()> {
                let row = s.row();
                $(let row = $crate::blocks::PortValue::write(&self.$field, row, stringify!($field))?;)*
                row.push()
            }
        }
    };
}
pub(crate) use port_row;

/// A golden model's output value as the bits of its port (`p`: the port's width, lanes and
/// signedness): flags 0/1, unsigned counts as they are, signed values in two's complement
/// at the port's width, lane vectors packed at its lane width, byte arrays little-endian.
pub(crate) trait OutValue {
    /// The port's bits.
    fn bits(&self, p: &PortSpec) -> BigUint;
}

impl OutValue for bool {
    fn bits(&self, _: &PortSpec) -> BigUint {
        BigUint::from(*self as u8)
    }
}

macro_rules! out_unsigned {
    ($($t:ty),*) => {$(
        impl OutValue for $t {
            fn bits(&self, _: &PortSpec) -> BigUint {
                BigUint::from(*self)
            }
        }
    )*};
}
out_unsigned!(u8, u16, u32, u64, usize);

impl OutValue for bitvec::vec::BitVec<u64, bitvec::order::Lsb0> {
    fn bits(&self, _: &PortSpec) -> BigUint {
        use bitvec::field::BitField;
        let bytes: Vec<u8> = self.chunks(8).map(|c| c.load_le::<u8>()).collect();
        BigUint::from_bytes_le(&bytes)
    }
}

impl OutValue for i64 {
    fn bits(&self, p: &PortSpec) -> BigUint {
        edgelearn_sim::value::from_signed(*self, p.width)
    }
}

impl OutValue for i8 {
    fn bits(&self, p: &PortSpec) -> BigUint {
        (*self as i64).bits(p)
    }
}

impl<const N: usize> OutValue for [u8; N] {
    fn bits(&self, _: &PortSpec) -> BigUint {
        BigUint::from_bytes_le(self)
    }
}

impl OutValue for Vec<i64> {
    fn bits(&self, p: &PortSpec) -> BigUint {
        // The port's lanes when it declares them, else its width shared out evenly.
        let w = if p.lanes == self.len() {
            p.lane_width
        } else {
            p.width / self.len().max(1)
        };
        edgelearn_sim::value::pack_lanes(self, w)
    }
}

impl OutValue for Vec<i8> {
    fn bits(&self, p: &PortSpec) -> BigUint {
        let v: Vec<i64> = self.iter().map(|&x| x as i64).collect();
        v.bits(p)
    }
}

/// A golden model's output struct whose fields are named after the block's output ports:
/// one cycle's row of the expected trace.
pub(crate) trait OutRow {
    /// Row `c` of `e` set from this value.
    fn set_row(&self, e: &mut Expected, c: usize);
}

/// A model with one output port: `(port, value)`.
impl<V: OutValue> OutRow for (&'static str, V) {
    fn set_row(&self, e: &mut Expected, c: usize) {
        set_out(e, c, self.0, &self.1);
    }
}

/// Row `c`'s `port` in `e` set to `v`.
pub(crate) fn set_out(e: &mut Expected, c: usize, port_name: &str, v: &dyn OutValue) {
    let bits = v.bits(port(&e.outputs, port_name));
    e.set(c, port_name, bits);
}

/// `out_row!(Type => field, ...)`: [`OutRow`] for a golden model's output struct whose
/// fields are named after the block's output ports (the fields listed; others are the
/// model's own).
macro_rules! out_row {
    ($ty:ty => $($field:ident),* $(,)?) => {
        impl $crate::blocks::OutRow for $ty {
            fn set_row(&self, e: &mut edgelearn_sim::Expected, c: usize) {
                $($crate::blocks::set_out(e, c, stringify!($field), &self.$field);)*
            }
        }
    };
}
pub(crate) use out_row;

/// The golden trace of a model that takes one input row a cycle: `read` makes cycle `c`'s
/// input from the stimulus, `step` advances the model by it and gives the outputs sampled
/// after the edge; every output port is set on every cycle ([`OutRow`]).
pub(crate) fn trace<I, O: OutRow>(
    ports: &[PortSpec],
    stim: &Stimulus,
    read: impl Fn(&View, usize) -> I,
    mut step: impl FnMut(&I) -> O,
) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        step(&read(&v, c)).set_row(&mut e, c);
    }
    e
}

/// Read access to a stimulus by port name. Panics on an unknown port: the adapters are
/// written against the block's port list, so that is a bug here, not bad input.
pub(crate) struct View<'a> {
    stim: &'a Stimulus,
}

impl<'a> View<'a> {
    pub(crate) fn new(stim: &'a Stimulus) -> Self {
        View { stim }
    }

    fn idx(&self, port: &str) -> usize {
        self.stim
            .port_index(port)
            .unwrap_or_else(|e| panic!("golden adapter for `{}`: {e}", self.stim.block))
    }

    pub(crate) fn raw(&self, c: usize, port: &str) -> &BigUint {
        &self.stim.rows[c][self.idx(port)]
    }

    pub(crate) fn bit(&self, c: usize, port: &str) -> bool {
        self.raw(c, port).bit(0)
    }

    pub(crate) fn unsigned(&self, c: usize, port: &str) -> u64 {
        (self.raw(c, port) & mask(64)).to_u64().unwrap_or(0)
    }

    pub(crate) fn signed(&self, c: usize, port: &str) -> i64 {
        let p = &self.stim.inputs[self.idx(port)];
        to_i64(self.raw(c, port), p.width)
    }

    /// A port of up to 128 bits (kernel words, windows), unsigned.
    pub(crate) fn wide(&self, c: usize, port: &str) -> u128 {
        self.raw(c, port)
            .to_u64_digits()
            .iter()
            .enumerate()
            .fold(0u128, |acc, (k, &d)| acc | (d as u128) << (64 * k))
    }

    pub(crate) fn lanes(&self, c: usize, port: &str) -> Vec<i64> {
        let p = &self.stim.inputs[self.idx(port)];
        unpack_lanes(self.raw(c, port), p.lane_width, p.lanes, p.signed)
    }
}

/// The port spec called `name`.
pub(crate) fn port<'a>(ports: &'a [PortSpec], name: &str) -> &'a PortSpec {
    ports
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("golden adapter: block has no port `{name}`"))
}

/// Ensure a fresh expectation of the stimulus's length.
pub(crate) fn blank(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    Expected::new(&stim.block, ports, stim.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgelearn_hdl::design::Direction;

    /// An output struct named after its ports, as the golden models have them.
    struct Out {
        flag: bool,
        count: u16,
        level: i64,
        lane: i8,
        bytes: [u8; 2],
        lanes: Vec<i64>,
        packed: Vec<i8>,
    }

    out_row!(Out => flag, count, level, lane, bytes, lanes, packed);

    #[test]
    fn an_output_row_sets_each_port_by_its_width_and_lanes() {
        let port = |name: &str, width: usize| PortSpec::new(name, Direction::Output, width);
        let lanes = PortSpec {
            signed: true,
            lanes: 3,
            lane_width: 5,
            ..port("lanes", 15)
        };
        let ports = vec![
            port("flag", 1),
            port("count", 12),
            port("level", 8),
            port("lane", 8),
            port("bytes", 16),
            lanes,
            port("packed", 12),
        ];
        let mut e = Expected::new("t", &ports, 1);
        let o = Out {
            flag: true,
            count: 0xabc,
            level: -128,
            lane: -1,
            bytes: [0x34, 0x12],
            lanes: vec![-1, 0, 15],
            packed: vec![-31, 31],
        };
        o.set_row(&mut e, 0);
        ("count", 7u16).set_row(&mut e, 0);
        let got: Vec<u64> = e.rows[0]
            .iter()
            .map(|v| v.as_ref().unwrap().to_u64().unwrap())
            .collect();
        // -128 and -1 at 8 bits; lanes at their declared 5 bits; an undeclared lane
        // vector at the width shared out (6 bits each: -31 = 0b100001, 31 = 0b011111); a
        // `(port, value)` pair sets that port.
        assert_eq!(
            got,
            vec![1, 7, 0x80, 0xff, 0x1234, 0x1f | 15 << 10, 0x21 | 0x1f << 6]
        );
    }
}
