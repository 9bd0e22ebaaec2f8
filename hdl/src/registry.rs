//! Every block that `edgelearn emit` knows, by emitted name.

use crate::arith::check::ArithCheck;
use crate::design::{Design, Instance};
use crate::error::{Error, ErrorKind};
use crate::lel::lfsr::Lfsr;
use crate::lel::matmul::LelMatmul;
use crate::lel::tree_comparator::LelTreeComparator;

/// A registered block.
pub struct BlockEntry {
    /// Emitted name: Verilog top module, file stem, manifest key.
    pub name: &'static str,
    /// One line: what it is and where the spec is.
    pub summary: &'static str,
    /// Build a fresh instance.
    pub build: fn() -> Box<dyn Design>,
}

fn boxed<T: crate::design::DutIo + 'static>(name: &str, block: T) -> Box<dyn Design> {
    Box::new(Instance::new(name, block))
}

/// All blocks, in emission order.
pub fn blocks() -> Vec<BlockEntry> {
    vec![
        BlockEntry {
            name: "arith_check",
            summary: "every signed-arithmetic primitive behind shared operands (verification top)",
            build: || boxed("arith_check", ArithCheck::default()),
        },
        BlockEntry {
            name: "lel_lfsr56",
            summary: "unfolded x^17+x^3+1 LFSR, 56 bits per step: weight-update randoms (thesis §4.1.7)",
            build: || boxed("lel_lfsr56", Lfsr::<56>::default()),
        },
        BlockEntry {
            name: "lel_lfsr60",
            summary: "unfolded x^17+x^3+1 LFSR, 60 bits per step: local-classifier weights (thesis §4.1.7)",
            build: || boxed("lel_lfsr60", Lfsr::<60>::default()),
        },
        BlockEntry {
            name: "lel_tree_comparator",
            summary: "pipelined 9-input signed max, 5 cycles (thesis §4.1.10)",
            build: || boxed("lel_tree_comparator", LelTreeComparator::default()),
        },
        BlockEntry {
            name: "lel_matmul",
            summary: "4-lane signed MAC matmul with alpha_fc/alpha_lc quantizers and ReLU mask (thesis §4.1.1)",
            build: || boxed("lel_matmul", LelMatmul::default()),
        },
    ]
}

/// Every registered name.
pub fn names() -> Vec<&'static str> {
    blocks().iter().map(|b| b.name).collect()
}

/// Build the block called `name`.
pub fn build(name: &str) -> Result<Box<dyn Design>, Error> {
    blocks()
        .into_iter()
        .find(|b| b.name == name)
        .map(|b| (b.build)())
        .ok_or_else(|| {
            ErrorKind::UnknownBlock {
                name: name.to_string(),
                valid: names().iter().map(|s| s.to_string()).collect(),
            }
            .into()
        })
}
