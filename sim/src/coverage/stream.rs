//! Stream-port coverage: the generated top's `// el-stream` lines (written by
//! `sim::dut::verilator`) read back into beats, stalls, gaps and idle cycles per port.

use super::Build;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a stream port's cycles were, in the order the top lists them.
pub const BINS: [&str; 4] = ["beat", "stall", "gap", "idle"];

/// A stream port's monitor and its counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stream {
    /// The ports' common prefix (`s_axis_t`, `s_axi_aw`).
    pub name: String,
    /// The design receives on it (its `valid` is an input).
    pub input: bool,
    /// Cycles of each of [`BINS`]: valid and ready; valid, not ready; ready, not valid;
    /// neither.
    pub hits: [u64; 4],
}

impl Stream {
    /// The kinds of cycle never seen (`stall`: never back-pressured; `gap`: never without
    /// data while ready; `beat`: nothing ever moved).
    pub fn missed(&self) -> Vec<&'static str> {
        BINS.iter()
            .zip(self.hits)
            .filter(|(_, h)| *h == 0)
            .map(|(b, _)| *b)
            .collect()
    }

    /// `s_axis_t (in): 1200 beats, 30 stalls, 400 gaps, 5 idle`.
    pub fn show(&self) -> String {
        let dir = if self.input { "in" } else { "out" };
        let [b, s, g, i] = self.hits;
        let mut out = format!(
            "{} ({dir}): {b} beats, {s} stalls, {g} gaps, {i} idle",
            self.name
        );
        let missed = self.missed();
        if !missed.is_empty() {
            out += &format!(" (never: {})", missed.join(", "));
        }
        out
    }
}

/// The stream ports a generated top monitors and, per marked line, (port, bin).
pub(super) fn stream_markers(top: &str) -> (Vec<Stream>, BTreeMap<usize, (usize, usize)>) {
    let mut streams = Vec::new();
    let mut lines = BTreeMap::new();
    for (i, line) in top.lines().enumerate() {
        let Some((_, m)) = line.split_once("// el-stream ") else {
            continue;
        };
        let w: Vec<&str> = m.split_whitespace().collect();
        let Some(j) = w.first().and_then(|x| x.parse::<usize>().ok()) else {
            continue;
        };
        match w.get(1).and_then(|b| BINS.iter().position(|x| x == b)) {
            Some(bin) => {
                lines.insert(i + 1, (j, bin));
            }
            None if streams.len() == j => {
                let field = |key: &str| w.iter().find_map(|x| x.strip_prefix(key)).unwrap_or("");
                streams.push(Stream {
                    name: field("name=").to_string(),
                    input: field("dir=") == "in",
                    hits: [0; 4],
                });
            }
            None => {}
        }
    }
    (streams, lines)
}

impl Build {
    /// The stream ports the generated top monitors, with their counts.
    pub fn streams(&self) -> Vec<Stream> {
        let (mut streams, marked) = stream_markers(&self.top);
        for (line, c) in self.top_points.values() {
            if let Some((j, bin)) = marked.get(line) {
                if let Some(s) = streams.get_mut(*j) {
                    s.hits[*bin] = s.hits[*bin].max(*c);
                }
            }
        }
        streams
    }
}
