//! Functional cover points of a design beyond its FSMs ([`crate::fsm`]): what a coverage
//! model's top counts for the FIFOs, the LFSRs and the learning-rate table it holds
//! (docs/decisions.md D-COVERAGE). Like the FSMs, they are found in the design's structure,
//! by the ports each kind of block documents, not listed by hand:
//!
//! | kind | a block with | counted |
//! |---|---|---|
//! | FIFO | output `count` and constant `depth` ([`StreamFifo`], [`PacketFifo`]) | `empty` (`count` 0), the level rising through a quarter, a half and three quarters of `depth`, `full` |
//! | LFSR | inputs `seed` and `prog` ([`Lfsr`]) | `reseed`: a cycle with `prog` high |
//! | table | input `idx`, output `pick` and outputs `entries$0..` ([`LrTable`]) | `entry k`: a cycle with `idx` = k (the entry in effect) |
//!
//! [`StreamFifo`]: crate::lel::stream_fifo::StreamFifo
//! [`PacketFifo`]: crate::lel::packet_fifo::PacketFifo
//! [`Lfsr`]: crate::lel::lfsr::Lfsr
//! [`LrTable`]: crate::lel::pl_regs::LrTable

use crate::design::{walk, Visit};
use rust_hdl::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// What a cover site is and the bins it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoverKind {
    /// A FIFO of `depth` entries; its level is the block's `count` output.
    Fifo {
        /// Entries it holds when full.
        depth: u64,
        /// Width of `count`.
        width: usize,
    },
    /// An LFSR; a reseed is a cycle with its `prog` input high.
    Lfsr,
    /// A table of `entries` entries; the entry in effect is its `idx` input.
    Table {
        /// Entries.
        entries: usize,
        /// Width of `idx`.
        width: usize,
    },
}

/// A block a coverage model's top samples ([`cover_sites`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoverSite {
    /// Instance path of the block below the top (`core.fc0.fc.fifo`; `""`: the top itself,
    /// a FIFO built as a design of its own).
    pub path: String,
    /// What it is.
    pub kind: CoverKind,
}

impl CoverSite {
    /// The kind's short name (`fifo`, `lfsr`, `table`).
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            CoverKind::Fifo { .. } => "fifo",
            CoverKind::Lfsr => "lfsr",
            CoverKind::Table { .. } => "table",
        }
    }

    /// The bins, in the order the top writes them.
    pub fn bins(&self) -> Vec<String> {
        match self.kind {
            CoverKind::Fifo { .. } => ["empty", "1/4", "1/2", "3/4", "full"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            CoverKind::Lfsr => vec!["reseed".to_string()],
            CoverKind::Table { entries, .. } => (0..entries).map(|k| format!("entry{k}")).collect(),
        }
    }

    /// The signal the top samples, as the parent module names it (`fifo$count`; the port,
    /// `count`, for the top itself), and its width.
    pub fn signal(&self) -> (String, usize) {
        let (port, width) = match self.kind {
            CoverKind::Fifo { width, .. } => ("count", width),
            CoverKind::Lfsr => ("prog", 1),
            CoverKind::Table { width, .. } => ("idx", width),
        };
        match self.path.rsplit('.').next() {
            Some(inst) if !inst.is_empty() => (format!("{inst}${port}"), width),
            _ => (port.to_string(), width),
        }
    }

    /// The name reports give it: its path, `top` for the top itself.
    pub fn name(&self) -> &str {
        if self.path.is_empty() {
            "top"
        } else {
            &self.path
        }
    }

    /// The hierarchical name of [`Self::signal`] below the top (`core.fc0.fc.fifo$count`).
    pub fn hierarchical(&self) -> String {
        let (sig, _) = self.signal();
        match self.path.rsplit_once('.') {
            Some((parent, _)) => format!("{parent}.{sig}"),
            None => sig,
        }
    }

    /// For a FIFO, the levels its `1/4`, `1/2` and `3/4` bins rise through: the least
    /// level at or above that share of `depth` (at least 1).
    pub fn thresholds(&self) -> [u64; 3] {
        let CoverKind::Fifo { depth, .. } = self.kind else {
            return [0; 3];
        };
        [1u64, 2, 3].map(|q| (q * depth).div_ceil(4).max(1))
    }
}

/// A constant's value (rust-hdl writes it as a sized hex literal, `16'h40`).
fn constant_value(signal: &dyn Atom) -> Option<u64> {
    let text = format!("{:x}", signal.verilog());
    u64::from_str_radix(text.split_once("'h")?.1, 16).ok()
}

/// Every FIFO, LFSR and table in `block`, in visiting order (see the module's table).
pub fn cover_sites<B: Block>(block: &B) -> Vec<CoverSite> {
    // The atoms of each scope below the top: name -> (kind, width, constant value).
    type Atoms = BTreeMap<String, (AtomKind, usize, Option<u64>)>;
    let mut scopes: Vec<(Vec<String>, Atoms)> = Vec::new();
    let mut index: HashMap<Vec<String>, usize> = HashMap::new();
    walk(block, &mut |v| match v {
        Visit::Scope { path, .. } => {
            index.insert(path.to_vec(), scopes.len());
            scopes.push((path.to_vec(), Atoms::new()));
        }
        Visit::Atom { path, name, signal } => {
            if let Some((_, atoms)) = index.get(path).and_then(|&i| scopes.get_mut(i)) {
                let value = (signal.kind() == AtomKind::Constant)
                    .then(|| constant_value(signal))
                    .flatten();
                atoms.insert(name.to_string(), (signal.kind(), signal.bits(), value));
            }
        }
    });
    // Blocks that pass `seed` and `prog` down to an LFSR are not LFSRs themselves.
    let has = |a: &Atoms, names: &[&str]| names.iter().all(|n| a.contains_key(*n));
    let lfsr_inside: Vec<String> = scopes
        .iter()
        .filter(|(_, a)| has(a, &["seed", "prog"]))
        .map(|(p, _)| p.join("."))
        .collect();
    let passes_down = |path: &[String]| {
        let me = format!("{}.", path.join("."));
        lfsr_inside.iter().any(|p| p.starts_with(&me))
    };
    let is = |a: &Atoms, name: &str, kind: AtomKind| a.get(name).is_some_and(|x| x.0 == kind);
    scopes
        .into_iter()
        .filter_map(|(path, a)| {
            let kind = if let (
                true,
                Some(&(_, width, _)),
                Some(&(AtomKind::Constant, _, Some(depth))),
            ) = (
                is(&a, "count", AtomKind::OutputParameter),
                a.get("count"),
                a.get("depth"),
            ) {
                CoverKind::Fifo { depth, width }
            } else if is(&a, "seed", AtomKind::InputParameter)
                && is(&a, "prog", AtomKind::InputParameter)
                && !passes_down(&path)
            {
                CoverKind::Lfsr
            } else if is(&a, "idx", AtomKind::InputParameter)
                && is(&a, "pick", AtomKind::OutputParameter)
                && is(&a, "entries$0", AtomKind::OutputParameter)
            {
                let entries = (0..)
                    .take_while(|k| is(&a, &format!("entries${k}"), AtomKind::OutputParameter))
                    .count();
                CoverKind::Table {
                    entries,
                    width: a["idx"].1,
                }
            } else {
                return None;
            };
            Some(CoverSite {
                path: path[1..].join("."),
                kind,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lel::platform::{small_shape, LelPlatform};

    #[test]
    fn the_platform_s_fifos_lfsrs_and_lr_table_are_found_with_their_depths() {
        let p = LelPlatform::new(small_shape());
        let sites = cover_sites(&p);
        let fifos: Vec<(&str, u64)> = sites
            .iter()
            .filter_map(|s| match s.kind {
                CoverKind::Fifo { depth, .. } => Some((s.path.as_str(), depth)),
                _ => None,
            })
            .collect();
        // The three packet FIFOs and the three cores' output FIFOs.
        assert_eq!(
            fifos,
            [
                ("core.conv.fifo", 16),
                ("core.fc0.fc.fifo", 8),
                ("core.fc1.fc.fifo", 8),
                ("core.in_fifo", 32),
                ("core.mid_fifo", 64),
                ("core.out_fifo", 8)
            ]
        );
        // The LC weights' and the weight update's of each FC core, not the blocks that pass
        // their seeds down.
        let lfsrs: Vec<&str> = sites
            .iter()
            .filter(|s| s.kind == CoverKind::Lfsr)
            .map(|s| s.path.as_str())
            .collect();
        assert_eq!(lfsrs.len(), 4, "{lfsrs:?}");
        assert!(lfsrs.iter().all(|p| p.ends_with(".lfsr")), "{lfsrs:?}");
        let tables: Vec<&CoverSite> = sites
            .iter()
            .filter(|s| matches!(s.kind, CoverKind::Table { .. }))
            .collect();
        assert_eq!(tables.len(), 1, "{sites:#?}");
        assert_eq!(
            tables[0].kind,
            CoverKind::Table {
                entries: 16,
                width: 32
            }
        );
        assert!(tables[0].hierarchical().ends_with("lr_tab$idx"));
    }

    #[test]
    fn thresholds_round_up_and_never_reach_zero() {
        let fifo = |depth| CoverSite {
            path: "a.f".into(),
            kind: CoverKind::Fifo { depth, width: 6 },
        };
        assert_eq!(fifo(8).thresholds(), [2, 4, 6]);
        assert_eq!(fifo(1).thresholds(), [1, 1, 1]);
        assert_eq!(fifo(5).thresholds(), [2, 3, 4]);
        assert_eq!(fifo(8).hierarchical(), "a.f$count");
        assert_eq!(fifo(8).bins().len(), 5);
        let top = CoverSite {
            path: String::new(),
            kind: CoverKind::Lfsr,
        };
        assert_eq!((top.hierarchical().as_str(), top.name()), ("prog", "top"));
        // A FIFO built as a design of its own is its own site.
        let fifo = crate::lel::stream_fifo::CoreFifo::default();
        assert_eq!(
            cover_sites(&fifo),
            [CoverSite {
                path: String::new(),
                kind: CoverKind::Fifo { depth: 8, width: 6 }
            }]
        );
    }
}
