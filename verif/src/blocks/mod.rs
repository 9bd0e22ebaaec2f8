//! Port-level adapters: for each block, the stimulus generators of its tests (the thesis's
//! own setups and random vectors with corner values) and its golden trace, i.e. the
//! expected value of every output port on every cycle where the spec defines it.
//!
//! The golden trace of a block is computed from the port-level stimulus alone, so any
//! stimulus (a test's, a user's file) can be checked against the model.

pub mod arith_check;
pub mod arith_check_wide;
pub mod cache_x4;
pub mod classification;
pub mod cnn_engine;
pub mod cnn_fc_update;
pub mod lc_forward;
pub mod lfsr;
pub mod loss;
pub mod matmul;
pub mod tree_adder;
pub mod tree_comparator;
pub mod triout_cache;
pub mod weight_update;

use crate::golden::tree_adder::TreeAdderRole;

use edgelearn_sim::value::{mask, to_i64, unpack_lanes};
use edgelearn_sim::{Expected, PortSpec, Stimulus};
use num_bigint::BigUint;
use num_traits::ToPrimitive;

/// Corner values of an 8-bit activation (DEVELOPERS.md: always include them).
pub const CORNERS_8: [i64; 7] = [-128, -127, 127, -31, 31, 0, 1];
/// Corner values of a 6-bit weight.
pub const CORNERS_6: [i64; 6] = [-32, -31, 31, 0, 1, -1];

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
    fn len(&self, thesis_cycles: usize) -> usize {
        if self.thesis {
            thesis_cycles
        } else {
            self.cycles
        }
    }
}

/// The verification side of a registered block: its golden trace of any stimulus, and its
/// named stimuli. One entry per block of `edgelearn_hdl::registry::blocks()`, by the same
/// name (a test holds the two lists equal).
pub struct BlockModel {
    /// The registered name.
    pub name: &'static str,
    /// The expected value of every output on every cycle the spec defines.
    pub golden: fn(&[PortSpec], &Stimulus) -> Expected,
    /// A named stimulus.
    pub stimulus: fn(&StimulusRequest) -> edgelearn_sim::Result<Stimulus>,
}

/// Every block model, in the registry's order.
pub const MODELS: &[BlockModel] = &[
    BlockModel {
        name: "arith_check",
        golden: arith_check::expected,
        stimulus: |r| arith_check::exhaustive_stimulus(r.ports, r.seed, r.len(0)),
    },
    BlockModel {
        name: "arith_check_wide",
        golden: arith_check_wide::expected,
        stimulus: |r| match r.thesis {
            true => arith_check_wide::small_stimulus(r.ports, r.seed, 4, 0),
            false => arith_check_wide::exhaustive_stimulus(r.ports, r.seed, 64, r.cycles),
        },
    },
    BlockModel {
        name: "lel_lfsr56",
        golden: |p, s| lfsr::expected(p, s, 56),
        stimulus: lfsr_stimulus,
    },
    BlockModel {
        name: "lel_lfsr60",
        golden: |p, s| lfsr::expected(p, s, 60),
        stimulus: lfsr_stimulus,
    },
    BlockModel {
        name: "lel_tree_comparator",
        golden: tree_comparator::expected,
        stimulus: |r| match r.thesis {
            true => tree_comparator::thesis_stimulus(r.ports, r.seed, 100, 12),
            false => tree_comparator::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_matmul",
        golden: matmul::expected,
        stimulus: |r| match r.thesis {
            true => matmul::thesis_stimulus(r.ports, r.seed, 4, 4).map(|x| x.0),
            false => matmul::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_lc_forward",
        golden: lc_forward::expected,
        stimulus: |r| match r.thesis {
            true => lc_forward::burst_stimulus(r.ports, r.seed, 2, 480).map(|x| x.0),
            false => lc_forward::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_tree_adder",
        golden: |p, s| tree_adder::expected(p, s, TreeAdderRole::LcBackward),
        stimulus: |r| match r.thesis {
            true => tree_adder::thesis_stimulus(r.ports, r.seed, 480, false),
            false => tree_adder::random_stimulus(r.block, r.ports, r.seed, r.cycles, false),
        },
    },
    BlockModel {
        name: "lel_tree_adder_conv",
        golden: |p, s| tree_adder::expected(p, s, TreeAdderRole::Conv),
        stimulus: |r| match r.thesis {
            true => tree_adder::conv_stimulus(r.ports, r.seed, 100),
            false => tree_adder::random_stimulus(r.block, r.ports, r.seed, r.cycles, false),
        },
    },
    BlockModel {
        name: "lel_loss",
        golden: loss::expected,
        stimulus: |r| match r.thesis {
            true => loss::thesis_stimulus(r.ports, r.seed, 1, &[0]).map(|x| x.0),
            false => loss::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_weight_update",
        golden: weight_update::expected,
        stimulus: |r| match r.thesis {
            true => weight_update::thesis_stimulus(r.ports, r.seed, 600).map(|x| x.0),
            false => weight_update::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_cache_x4_act",
        golden: cache_x4::expected,
        stimulus: cache_stimulus,
    },
    BlockModel {
        name: "lel_cache_x4_weight",
        golden: cache_x4::expected,
        stimulus: cache_stimulus,
    },
    BlockModel {
        name: "lel_cache_x4_grad",
        golden: cache_x4::expected,
        stimulus: cache_stimulus,
    },
    BlockModel {
        name: "lel_triout_cache",
        golden: triout_cache::expected,
        stimulus: |r| match r.thesis {
            true => triout_cache::thesis_stimulus(r.ports, r.seed).map(|x| x.0),
            false => triout_cache::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "lel_classification",
        golden: classification::expected,
        stimulus: |r| match r.thesis {
            true => classification::thesis_stimulus(r.ports, r.seed, 10).map(|x| x.0),
            false => classification::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
    BlockModel {
        name: "cnn_engine_check",
        golden: cnn_engine::check_expected,
        stimulus: |r| cnn_engine::check_stimulus(r.ports, r.seed, r.len(1024)),
    },
    BlockModel {
        name: "cnn_addr_gen",
        golden: cnn_engine::addr_gen_expected,
        stimulus: |r| cnn_engine::addr_gen_stimulus(r.ports, r.seed),
    },
    BlockModel {
        name: "cnn_reduce",
        golden: cnn_engine::reduce_expected,
        stimulus: |r| cnn_engine::reduce_stimulus(r.ports, r.seed, r.len(500)),
    },
    BlockModel {
        name: "cnn_window_buf",
        golden: cnn_engine::window_expected,
        stimulus: |r| cnn_engine::window_stimulus(r.ports, r.seed, r.len(200)),
    },
    BlockModel {
        name: "cnn_window_ctl",
        golden: cnn_engine::window_ctl_expected,
        stimulus: |r| cnn_engine::window_ctl_stimulus(r.ports, r.seed, r.len(400)),
    },
    BlockModel {
        name: "cnn_mac_pipe",
        golden: cnn_engine::mac_pipe_expected,
        stimulus: |r| cnn_engine::mac_pipe_stimulus(r.ports, r.seed, r.len(400)),
    },
    BlockModel {
        name: "cnn_group_sum",
        golden: cnn_engine::group_sum_expected,
        stimulus: |r| cnn_engine::group_sum_stimulus(r.ports, r.seed, r.len(400)),
    },
    BlockModel {
        name: "cnn_acc_mem",
        golden: cnn_engine::acc_mem_expected,
        stimulus: |r| cnn_engine::acc_mem_stimulus(r.ports, r.seed, r.len(400)),
    },
    BlockModel {
        name: "cnn_layer_seq",
        golden: cnn_engine::layer_seq_expected,
        stimulus: |r| cnn_engine::layer_seq_stimulus(r.ports, r.seed, r.len(600)),
    },
    BlockModel {
        name: "cnn_mac_ctl",
        golden: cnn_engine::mac_ctl_expected,
        stimulus: |r| cnn_engine::mac_ctl_stimulus(r.ports, r.seed, r.len(600)),
    },
    BlockModel {
        name: "cnn_host_port",
        golden: cnn_engine::host_port_expected,
        stimulus: |r| cnn_engine::host_port_stimulus(r.ports, r.seed, r.len(600)),
    },
    BlockModel {
        name: "cnn_processor",
        golden: cnn_engine::processor_expected,
        stimulus: |r| cnn_engine::processor_stimulus(r.ports, r.seed, r.len(800)),
    },
    BlockModel {
        name: "cnn_fc_update",
        golden: cnn_fc_update::expected,
        stimulus: |r| match r.thesis {
            true => {
                let cases = cnn_fc_update::layer_cases(r.seed, cnn_fc_update::INPUTS);
                cnn_fc_update::layer_stimulus(r.ports, &cases[..1], r.seed as u32).map(|x| x.0)
            }
            false => cnn_fc_update::random_stimulus(r.ports, r.seed, r.cycles),
        },
    },
];

fn lfsr_stimulus(r: &StimulusRequest) -> edgelearn_sim::Result<Stimulus> {
    match r.thesis {
        true => lfsr::random_stimulus(r.block, r.ports, r.seed, 10, 20),
        false => lfsr::random_stimulus(r.block, r.ports, r.seed, r.cycles / 100 + 1, 100),
    }
}

fn cache_stimulus(r: &StimulusRequest) -> edgelearn_sim::Result<Stimulus> {
    match r.thesis {
        true => cache_x4::thesis_stimulus(r.block, r.ports, r.seed).map(|x| x.0),
        false => cache_x4::random_stimulus(r.block, r.ports, r.seed, r.cycles),
    }
}

/// The model of a registered block.
pub fn model(block: &str) -> Option<&'static BlockModel> {
    MODELS.iter().find(|m| m.name == block)
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
mod registry_tests {
    use super::MODELS;

    #[test]
    fn every_registered_block_has_one_model_and_every_model_a_block() {
        let blocks: Vec<&str> = edgelearn_hdl::registry::blocks()
            .iter()
            .map(|b| b.name)
            .collect();
        let models: Vec<&str> = MODELS.iter().map(|m| m.name).collect();
        assert_eq!(
            models, blocks,
            "verif::blocks::MODELS must follow hdl::registry::blocks()"
        );
    }
}
