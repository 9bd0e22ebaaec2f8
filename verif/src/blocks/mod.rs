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

/// The golden trace of `block` for `stim`, if edgelearn has a model of that block.
pub fn golden_trace(block: &str, ports: &[PortSpec], stim: &Stimulus) -> Option<Expected> {
    match block {
        "arith_check" => Some(arith_check::expected(ports, stim)),
        "arith_check_wide" => Some(arith_check_wide::expected(ports, stim)),
        "lel_lfsr56" => Some(lfsr::expected(ports, stim, 56)),
        "lel_lfsr60" => Some(lfsr::expected(ports, stim, 60)),
        "lel_tree_comparator" => Some(tree_comparator::expected(ports, stim)),
        "lel_matmul" => Some(matmul::expected(ports, stim)),
        "lel_lc_forward" => Some(lc_forward::expected(ports, stim)),
        "lel_tree_adder" => Some(tree_adder::expected(ports, stim, TreeAdderRole::LcBackward)),
        "lel_tree_adder_conv" => Some(tree_adder::expected(ports, stim, TreeAdderRole::Conv)),
        "lel_loss" => Some(loss::expected(ports, stim)),
        "lel_weight_update" => Some(weight_update::expected(ports, stim)),
        "lel_cache_x4_act" | "lel_cache_x4_weight" | "lel_cache_x4_grad" => {
            Some(cache_x4::expected(ports, stim))
        }
        "lel_triout_cache" => Some(triout_cache::expected(ports, stim)),
        "lel_classification" => Some(classification::expected(ports, stim)),
        "cnn_fc_update" => Some(cnn_fc_update::expected(ports, stim)),
        "cnn_engine_check" => Some(cnn_engine::check_expected(ports, stim)),
        "cnn_reduce" => Some(cnn_engine::reduce_expected(ports, stim)),
        "cnn_addr_gen" => Some(cnn_engine::addr_gen_expected(ports, stim)),
        "cnn_window_buf" => Some(cnn_engine::window_expected(ports, stim)),
        "cnn_window_ctl" => Some(cnn_engine::window_ctl_expected(ports, stim)),
        "cnn_mac_pipe" => Some(cnn_engine::mac_pipe_expected(ports, stim)),
        "cnn_group_sum" => Some(cnn_engine::group_sum_expected(ports, stim)),
        "cnn_acc_mem" => Some(cnn_engine::acc_mem_expected(ports, stim)),
        "cnn_layer_seq" => Some(cnn_engine::layer_seq_expected(ports, stim)),
        "cnn_mac_ctl" => Some(cnn_engine::mac_ctl_expected(ports, stim)),
        "cnn_host_port" => Some(cnn_engine::host_port_expected(ports, stim)),
        "cnn_processor" => Some(cnn_engine::processor_expected(ports, stim)),
        _ => None,
    }
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
    let thesis = kind == "thesis";
    if !STIMULUS_KINDS.contains(&kind) {
        return None;
    }
    Some(match block {
        "arith_check" => {
            arith_check::exhaustive_stimulus(ports, seed, if thesis { 0 } else { cycles })
        }
        "arith_check_wide" => {
            if thesis {
                arith_check_wide::small_stimulus(ports, seed, 4, 0)
            } else {
                arith_check_wide::exhaustive_stimulus(ports, seed, 64, cycles)
            }
        }
        "lel_lfsr56" | "lel_lfsr60" => {
            if thesis {
                lfsr::random_stimulus(block, ports, seed, 10, 20)
            } else {
                lfsr::random_stimulus(block, ports, seed, cycles / 100 + 1, 100)
            }
        }
        "lel_tree_comparator" => {
            if thesis {
                tree_comparator::thesis_stimulus(ports, seed, 100, 12)
            } else {
                tree_comparator::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_matmul" => {
            if thesis {
                matmul::thesis_stimulus(ports, seed, 4, 4).map(|r| r.0)
            } else {
                matmul::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_lc_forward" => {
            if thesis {
                lc_forward::burst_stimulus(ports, seed, 2, 480).map(|r| r.0)
            } else {
                lc_forward::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_tree_adder" => {
            if thesis {
                tree_adder::thesis_stimulus(ports, seed, 480, false)
            } else {
                tree_adder::random_stimulus(block, ports, seed, cycles, false)
            }
        }
        "lel_tree_adder_conv" => {
            if thesis {
                tree_adder::conv_stimulus(ports, seed, 100)
            } else {
                tree_adder::random_stimulus(block, ports, seed, cycles, false)
            }
        }
        "lel_loss" => {
            if thesis {
                loss::thesis_stimulus(ports, seed, 1, &[0]).map(|r| r.0)
            } else {
                loss::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_weight_update" => {
            if thesis {
                weight_update::thesis_stimulus(ports, seed, 600).map(|r| r.0)
            } else {
                weight_update::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_cache_x4_act" | "lel_cache_x4_weight" | "lel_cache_x4_grad" => {
            if thesis {
                cache_x4::thesis_stimulus(block, ports, seed).map(|r| r.0)
            } else {
                cache_x4::random_stimulus(block, ports, seed, cycles)
            }
        }
        "lel_triout_cache" => {
            if thesis {
                triout_cache::thesis_stimulus(ports, seed).map(|r| r.0)
            } else {
                triout_cache::random_stimulus(ports, seed, cycles)
            }
        }
        "lel_classification" => {
            if thesis {
                classification::thesis_stimulus(ports, seed, 10).map(|r| r.0)
            } else {
                classification::random_stimulus(ports, seed, cycles)
            }
        }
        "cnn_engine_check" => {
            cnn_engine::check_stimulus(ports, seed, if thesis { 1024 } else { cycles })
        }
        "cnn_reduce" => cnn_engine::reduce_stimulus(ports, seed, if thesis { 500 } else { cycles }),
        "cnn_addr_gen" => cnn_engine::addr_gen_stimulus(ports, seed),
        "cnn_window_buf" => {
            cnn_engine::window_stimulus(ports, seed, if thesis { 200 } else { cycles })
        }
        "cnn_window_ctl" => {
            cnn_engine::window_ctl_stimulus(ports, seed, if thesis { 400 } else { cycles })
        }
        "cnn_mac_pipe" => {
            cnn_engine::mac_pipe_stimulus(ports, seed, if thesis { 400 } else { cycles })
        }
        "cnn_group_sum" => {
            cnn_engine::group_sum_stimulus(ports, seed, if thesis { 400 } else { cycles })
        }
        "cnn_acc_mem" => {
            cnn_engine::acc_mem_stimulus(ports, seed, if thesis { 400 } else { cycles })
        }
        "cnn_layer_seq" => {
            cnn_engine::layer_seq_stimulus(ports, seed, if thesis { 600 } else { cycles })
        }
        "cnn_mac_ctl" => {
            cnn_engine::mac_ctl_stimulus(ports, seed, if thesis { 600 } else { cycles })
        }
        "cnn_host_port" => {
            cnn_engine::host_port_stimulus(ports, seed, if thesis { 600 } else { cycles })
        }
        "cnn_processor" => {
            cnn_engine::processor_stimulus(ports, seed, if thesis { 800 } else { cycles })
        }
        "cnn_fc_update" => {
            if thesis {
                let cases = cnn_fc_update::layer_cases(seed, cnn_fc_update::INPUTS);
                cnn_fc_update::layer_stimulus(ports, &cases[..1], seed as u32).map(|r| r.0)
            } else {
                cnn_fc_update::random_stimulus(ports, seed, cycles)
            }
        }
        _ => return None,
    })
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
