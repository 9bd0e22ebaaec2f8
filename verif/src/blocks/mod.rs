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
