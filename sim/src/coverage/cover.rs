//! FIFO, LFSR and table coverage: the generated top's `// el-cover` lines (written by
//! `sim::dut::verilator` for the sites `edgelearn_hdl::cover` finds) read back into the
//! cycles each bin held.

use super::Build;
use serde::Serialize;
use std::collections::BTreeMap;

/// A FIFO's, LFSR's or table's monitor and its counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cover {
    /// The block's instance path (`core.in_fifo`).
    pub name: String,
    /// `fifo`, `lfsr` or `table`.
    pub kind: String,
    /// Each bin (`empty`, `1/4`, `1/2`, `3/4`, `full`; `reseed`; `entry0`, ...) and the
    /// cycles it held (a FIFO's level bins: the times the level rose through it).
    pub bins: Vec<(String, u64)>,
}

impl Cover {
    /// The bins never hit.
    pub fn missed(&self) -> Vec<&str> {
        self.bins
            .iter()
            .filter(|(_, h)| *h == 0)
            .map(|(b, _)| b.as_str())
            .collect()
    }

    /// `core.in_fifo (fifo): empty 1200, 1/4 30, 1/2 12, 3/4 3, full 0 (never: full)`.
    pub fn show(&self) -> String {
        let bins: Vec<String> = self.bins.iter().map(|(b, h)| format!("{b} {h}")).collect();
        let mut out = format!("{} ({}): {}", self.name, self.kind, bins.join(", "));
        let missed = self.missed();
        if !missed.is_empty() {
            out += &format!(" (never: {})", missed.join(", "));
        }
        out
    }
}

/// The sites a generated top monitors and, per marked line, (site, bin).
pub(super) fn cover_markers(top: &str) -> (Vec<Cover>, BTreeMap<usize, (usize, usize)>) {
    let mut covers = Vec::new();
    let mut lines = BTreeMap::new();
    for (i, line) in top.lines().enumerate() {
        let Some((_, m)) = line.split_once("// el-cover ") else {
            continue;
        };
        let w: Vec<&str> = m.split_whitespace().collect();
        let Some(j) = w.first().and_then(|x| x.parse::<usize>().ok()) else {
            continue;
        };
        match (w.get(1), w.get(2).and_then(|k| k.parse::<usize>().ok())) {
            (Some(&"bin"), Some(k)) => {
                lines.insert(i + 1, (j, k));
            }
            _ if covers.len() == j => {
                let field = |key: &str| w.iter().find_map(|x| x.strip_prefix(key)).unwrap_or("");
                covers.push(Cover {
                    name: field("name=").to_string(),
                    kind: field("kind=").to_string(),
                    bins: field("bins=")
                        .split(',')
                        .filter(|b| !b.is_empty())
                        .map(|b| (b.to_string(), 0))
                        .collect(),
                });
            }
            _ => {}
        }
    }
    (covers, lines)
}

impl Build {
    /// The FIFOs, LFSRs and tables the generated top monitors, with their counts.
    pub fn covers(&self) -> Vec<Cover> {
        let (mut covers, marked) = cover_markers(&self.top);
        for (line, c) in self.top_points.values() {
            if let Some((j, k)) = marked.get(line) {
                if let Some(b) = covers.get_mut(*j).and_then(|x| x.bins.get_mut(*k)) {
                    b.1 = b.1.max(*c);
                }
            }
        }
        covers
    }
}
