//! Code coverage of the in-process Verilator models (`edgelearn coverage`,
//! docs/decisions.md D-COVERAGE).
//!
//! With an output directory set ([`collect_into`], or `EDGELEARN_COVERAGE` in the
//! environment), every in-process Verilator model is built with coverage points
//! ([`crate::dut::verilator::COVERAGE_FLAGS`], its own cache key) and writes its counts when
//! it is dropped, into one directory per model build:
//!
//! ```text
//! DIR/<design>-<key>/<design>.v          the Verilog the model was built from
//! DIR/<design>-<key>/<design>_tb.v       the generated top, with the FSM monitors
//! DIR/<design>-<key>/counts-<pid>-<n>.dat  Verilator's coverage data, one per model
//! ```
//!
//! Besides Verilator's line, branch and toggle points of the design, the generated top's
//! FSM monitors (`sim::dut::verilator`, marked `// el-fsm`) give each FSM's states and
//! transitions: which were reached, which were not, and any transition the FSM does not
//! declare (`edgelearn_hdl::fsm`).
//!
//! [`Coverage::read`] merges any number of such directories (jobs, shards, earlier merges):
//! the counts of a point are summed over every file of the same build. [`Coverage::write`]
//! writes the merge back in the same layout, as lcov (`coverage.info`), as HTML and as a JSON
//! summary with line, branch and toggle percentages per design and per module.

mod cover;
mod fsm;
mod html;
pub mod plan;
mod stream;

use cover::cover_markers;
pub use cover::Cover;
use fsm::fsm_markers;
pub use fsm::{Fsm, FsmSummary};
use html::{html_build, html_index};
use stream::stream_markers;
pub use stream::Stream;

use crate::error::{Error, ErrorKind, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The environment variable that turns coverage on for a whole process tree (for example a
/// test run): the directory the counts go to.
pub const ENV: &str = "EDGELEARN_COVERAGE";

/// Name of the merged counts file in a directory [`Coverage::write`] writes.
pub const MERGED: &str = "counts-merged.dat";

/// Beside [`MERGED`]: how many model runs it sums.
const RUNS: &str = "runs.txt";

/// The file that marks a directory [`Coverage::write`] wrote: its `data/` is the merge, and
/// nothing else under it is read again (a run's raw counts there are already in it).
pub const MARKER: &str = ".edgelearn-coverage";

static OUTPUT: Mutex<Option<PathBuf>> = Mutex::new(None);
static FILES: AtomicUsize = AtomicUsize::new(0);

/// Collect coverage into `dir` from now on in this process (overrides [`ENV`]).
pub fn collect_into(dir: &Path) {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    *OUTPUT.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir);
}

/// Where coverage counts go, if anywhere: [`collect_into`]'s directory, else [`ENV`]'s.
pub fn output() -> Option<PathBuf> {
    if let Some(d) = OUTPUT.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        return Some(d);
    }
    std::env::var_os(ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The counts file a new model of `design` (built as `library`) writes under `dir`; the
/// design's Verilog and the generated top are kept next to it, once per build.
pub fn counts_file(
    dir: &Path,
    design: &str,
    library: &Path,
    verilog: &str,
    top: &str,
) -> Result<PathBuf> {
    let build = library
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| design.to_string());
    let d = dir.join(build);
    std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
    for (file, text) in [
        (format!("{design}.v"), verilog),
        (format!("{design}_tb.v"), top),
    ] {
        let v = d.join(file);
        if !v.is_file() {
            crate::files::write_atomic(&v, text).map_err(|e| Error::io(&v, e))?;
        }
    }
    let n = FILES.fetch_add(1, Ordering::SeqCst);
    Ok(d.join(format!("counts-{}-{n}.dat", std::process::id())))
}

/// What a coverage point counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A block of statements ran.
    Line,
    /// One arm of an `if` or `case` was taken.
    Branch,
    /// A bit of a signal toggled.
    Toggle,
    /// Anything else Verilator counts (expressions, FSM arcs, user points).
    Other,
}

impl Kind {
    fn of(t: Option<&str>, page: &str) -> Kind {
        let t = t.unwrap_or_else(|| {
            page.strip_prefix("v_")
                .and_then(|p| p.split('/').next())
                .unwrap_or("")
        });
        match t {
            "line" | "block" => Kind::Line,
            "branch" => Kind::Branch,
            "toggle" => Kind::Toggle,
            _ => Kind::Other,
        }
    }
}

/// One coverage point of a build.
#[derive(Clone, Debug)]
pub struct Point {
    /// What it counts.
    pub kind: Kind,
    /// Line in the design's Verilog (1-based).
    pub line: usize,
    /// The Verilog module it is in.
    pub module: String,
    /// The instance it is in (`TOP.<design>_tb.dut...`).
    pub hier: String,
    /// Verilator's comment (`if`, `else`, a toggled signal's name and bit, ...).
    pub comment: String,
    /// Times it was hit, summed over every counts file.
    pub count: u64,
}

/// The merged counts of one model build (one design's Verilog with the coverage flags).
#[derive(Clone, Debug)]
pub struct Build {
    /// The design's name.
    pub design: String,
    /// The Verilog the model was built from.
    pub verilog: String,
    /// The generated top (with the FSM monitors), if kept.
    pub top: String,
    /// Points by Verilator's key (without the count), in the order first seen.
    pub points: BTreeMap<String, Point>,
    /// The generated top's FSM points by key: the line they are on, and their count.
    pub top_points: BTreeMap<String, (usize, u64)>,
    /// Model runs merged (a merged counts file counts its runs).
    pub files: usize,
}

/// Covered and total points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Points hit at least once.
    pub covered: usize,
    /// Points.
    pub total: usize,
}

impl Tally {
    fn add(&mut self, hit: bool) {
        self.total += 1;
        self.covered += usize::from(hit);
    }

    /// Percentage covered (100 for no points).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.total as f64
        }
    }

    /// `97.5 % (390/400)`, or `-` without points.
    pub fn show(&self) -> String {
        if self.total == 0 {
            "-".into()
        } else {
            format!("{:.1} % ({}/{})", self.percent(), self.covered, self.total)
        }
    }
}

/// Line, branch and toggle tallies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tallies {
    /// Statement blocks.
    pub line: Tally,
    /// Branch arms.
    pub branch: Tally,
    /// Signal bits.
    pub toggle: Tally,
}

impl Tallies {
    fn add(&mut self, p: &Point) {
        let hit = p.count > 0;
        match p.kind {
            Kind::Line => self.line.add(hit),
            Kind::Branch => self.branch.add(hit),
            Kind::Toggle => self.toggle.add(hit),
            Kind::Other => {}
        }
    }

    /// Points not hit, over every kind.
    pub fn missed(&self) -> usize {
        [self.line, self.branch, self.toggle]
            .iter()
            .map(|t| t.total - t.covered)
            .sum()
    }
}

/// One build's summary: totals and the tallies of each module.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The build's directory name (`<design>-<key>`).
    pub build: String,
    /// The design.
    pub design: String,
    /// Counts files merged (models run).
    pub runs: usize,
    /// Over the whole design.
    pub total: Tallies,
    /// By module, the least covered (most points missed) first.
    pub modules: Vec<(String, Tallies)>,
    /// The design's FSMs, in the design's order.
    pub fsms: Vec<FsmSummary>,
    /// The design's FIFOs, LFSRs and tables, in the design's order.
    pub covers: Vec<Cover>,
    /// The design's stream ports, in port order.
    pub streams: Vec<Stream>,
    /// Every toggle point, for testplans' `toggle PATTERN` items (not in the JSON summary).
    #[serde(skip)]
    pub toggles: Vec<ToggleBit>,
}

/// One toggle point: a bit of a signal changed one way (each bit has a rising and a falling
/// point).
#[derive(Clone, Debug, PartialEq)]
pub struct ToggleBit {
    /// The signal below the design's top (`core.conv.img.row0`; rust-hdl's `$` separators
    /// as dots, Verilator's `*` where it merged instances, a memory's word index kept).
    pub signal: String,
    /// The bit (the last index), `None` for a one-bit signal.
    pub bit: Option<u32>,
    /// Whether it toggled that way.
    pub hit: bool,
}

impl Summary {
    /// The signals with bits that did not toggle both ways, most such bits first: `(signal,
    /// bits)`, the bits as ranges (`row0[402..511]`, `run`).
    pub fn untoggled(&self) -> Vec<(String, usize)> {
        let mut by: BTreeMap<&str, Vec<Option<u32>>> = BTreeMap::new();
        for t in self.toggles.iter().filter(|t| !t.hit) {
            by.entry(&t.signal).or_default().push(t.bit);
        }
        let mut out: Vec<(String, usize)> = by
            .into_iter()
            .map(|(signal, mut bits)| {
                bits.sort_unstable();
                bits.dedup();
                let ranges: Vec<String> = bit_ranges(&bits);
                let text = match ranges.is_empty() {
                    true => signal.to_string(),
                    false => format!("{signal}[{}]", ranges.join(",")),
                };
                (text, bits.len())
            })
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Sorted bits as ranges `LO..HI` (or one bit); `None` (a one-bit signal) gives nothing.
fn bit_ranges(bits: &[Option<u32>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = bits.iter().flatten().copied().peekable();
    while let Some(lo) = it.next() {
        let mut hi = lo;
        while it.peek() == Some(&(hi + 1)) {
            hi = it.next().unwrap_or(hi);
        }
        out.push(match lo == hi {
            true => lo.to_string(),
            false => format!("{lo}..{hi}"),
        });
    }
    out
}

impl ToggleBit {
    /// The toggle point of `p`, `None` for other points.
    fn of(p: &Point) -> Option<ToggleBit> {
        if p.kind != Kind::Toggle {
            return None;
        }
        let below = p
            .hier
            .split_once("_tb.dut")
            .map_or("", |(_, b)| b.trim_start_matches('.'));
        let name = p.comment.split(':').next().unwrap_or("");
        let (name, bit) = match name.strip_suffix(']').and_then(|n| n.rsplit_once('[')) {
            Some((n, b)) if b.parse::<u32>().is_ok() => (n, b.parse().ok()),
            _ => (name, None),
        };
        let signal = match below {
            "" => name.to_string(),
            b => format!("{b}.{name}"),
        }
        .replace("__024", ".");
        Some(ToggleBit {
            signal,
            bit,
            hit: p.count > 0,
        })
    }
}

/// Merged coverage of any number of builds.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Builds by directory name.
    pub builds: BTreeMap<String, Build>,
}

fn parse_error(path: &Path, line: usize, message: impl Into<String>) -> Error {
    ErrorKind::TraceParse {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
    .into()
}

/// The fields of a point's key: `\x01name\x02value` pairs.
fn fields(key: &str) -> BTreeMap<&str, &str> {
    key.split('\u{1}')
        .filter_map(|f| f.split_once('\u{2}'))
        .collect()
}

impl Coverage {
    /// Merge every build directory found under each of `dirs` (searched to any depth).
    pub fn read(dirs: &[PathBuf]) -> Result<Coverage> {
        let mut c = Coverage::default();
        for d in dirs {
            if !d.is_dir() {
                return Err(Error::io(
                    d,
                    std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
                ));
            }
            c.read_tree(d)?;
        }
        Ok(c)
    }

    fn read_tree(&mut self, dir: &Path) -> Result<()> {
        if dir.join(MARKER).is_file() {
            let data = dir.join("data");
            return if data.is_dir() {
                self.read_tree_below(&data)
            } else {
                Ok(())
            };
        }
        self.read_tree_below(dir)
    }

    fn read_tree_below(&mut self, dir: &Path) -> Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        let counts: Vec<&PathBuf> = entries
            .iter()
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|x| x == "dat")
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("counts-"))
            })
            .collect();
        if !counts.is_empty() {
            self.read_build(dir, &counts)?;
        }
        for e in &entries {
            if e.is_dir() {
                self.read_tree(e)?;
            }
        }
        Ok(())
    }

    fn read_build(&mut self, dir: &Path, counts: &[&PathBuf]) -> Result<()> {
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "v"))
            .collect();
        // The design's Verilog, and beside it (when kept) the generated top `<design>_tb.v`.
        let stem = |p: &PathBuf| p.file_stem().map(|s| s.to_string_lossy().into_owned());
        let sources: Vec<&PathBuf> = files
            .iter()
            .filter(|p| {
                files.len() == 1
                    || stem(p)
                        .is_some_and(|s| files.iter().any(|q| stem(q) == Some(format!("{s}_tb"))))
            })
            .collect();
        let [source] = sources.as_slice() else {
            return Err(parse_error(
                dir,
                0,
                format!(
                    "a coverage build directory holds its design's Verilog and the generated \
                     top <design>_tb.v; found {} .v files",
                    files.len()
                ),
            ));
        };
        let design = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let verilog = std::fs::read_to_string(source).map_err(|e| Error::io(source, e))?;
        let top_file = dir.join(format!("{design}_tb.v"));
        let top = if top_file.is_file() {
            std::fs::read_to_string(&top_file).map_err(|e| Error::io(&top_file, e))?
        } else {
            String::new()
        };
        for path in counts {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            self.add_counts(&id, &design, (&verilog, &top), path, &text)?;
            if path.file_name().is_some_and(|n| n == MERGED) {
                let r = dir.join(RUNS);
                let runs: usize = std::fs::read_to_string(&r)
                    .map_err(|e| Error::io(&r, e))?
                    .trim()
                    .parse()
                    .map_err(|_| parse_error(&r, 1, "not a number of runs"))?;
                if let Some(b) = self.builds.get_mut(&id) {
                    b.files += runs.saturating_sub(1);
                }
            }
        }
        Ok(())
    }

    /// Add one Verilator coverage data file's counts to build `id` of `design`, whose
    /// Verilog and generated top are `sources`. Of the top's points, only its monitors'
    /// (FSMs, FIFOs, LFSRs, tables, stream ports) are kept.
    pub fn add_counts(
        &mut self,
        id: &str,
        design: &str,
        sources: (&str, &str),
        path: &Path,
        text: &str,
    ) -> Result<()> {
        let (verilog, top) = sources;
        let build = self.builds.entry(id.to_string()).or_insert_with(|| Build {
            design: design.to_string(),
            verilog: verilog.to_string(),
            top: top.to_string(),
            points: BTreeMap::new(),
            top_points: BTreeMap::new(),
            files: 0,
        });
        if build.design != design || build.verilog != verilog || build.top != top {
            return Err(parse_error(
                path,
                0,
                format!("build `{id}` is merged from different Verilog or designs"),
            ));
        }
        build.files += 1;
        let file = format!("{design}.v");
        let top_file = format!("{design}_tb.v");
        let (_, marked) = fsm_markers(top);
        let (_, stream_lines) = stream_markers(top);
        let (_, cover_lines) = cover_markers(top);
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |m: &str| parse_error(path, n, m);
            let rest = line
                .strip_prefix("C '")
                .ok_or_else(|| bad("expected `C '<key>' <count>`"))?;
            let (key, count) = rest
                .rsplit_once("' ")
                .ok_or_else(|| bad("expected `C '<key>' <count>`"))?;
            let count: u64 = count
                .trim()
                .parse()
                .map_err(|_| bad("the count is not a whole number"))?;
            let f = fields(key);
            if f.get("f").copied() == Some(top_file.as_str()) {
                let line: usize = f.get("l").and_then(|l| l.parse().ok()).unwrap_or(0);
                if marked.contains_key(&line)
                    || stream_lines.contains_key(&line)
                    || cover_lines.contains_key(&line)
                {
                    let p = build.top_points.entry(key.to_string()).or_insert((line, 0));
                    p.1 = p.1.saturating_add(count);
                }
                continue;
            }
            if f.get("f").copied() != Some(file.as_str()) {
                continue;
            }
            let page = f.get("page").copied().unwrap_or("");
            let point = build
                .points
                .entry(key.to_string())
                .or_insert_with(|| Point {
                    kind: Kind::of(f.get("t").copied(), page),
                    line: f.get("l").and_then(|l| l.parse().ok()).unwrap_or(0),
                    module: page.split_once('/').map_or("", |(_, m)| m).to_string(),
                    hier: f.get("h").copied().unwrap_or("").to_string(),
                    comment: f.get("o").copied().unwrap_or("").to_string(),
                    count: 0,
                });
            point.count = point.count.saturating_add(count);
        }
        Ok(())
    }

    /// Every build's summary, by design name.
    pub fn summaries(&self) -> Vec<Summary> {
        let mut out: Vec<Summary> = self
            .builds
            .iter()
            .map(|(id, b)| {
                let mut total = Tallies::default();
                let mut modules: BTreeMap<&str, Tallies> = BTreeMap::new();
                for p in b.points.values() {
                    total.add(p);
                    modules.entry(&p.module).or_default().add(p);
                }
                let mut modules: Vec<(String, Tallies)> = modules
                    .into_iter()
                    .map(|(m, t)| (m.to_string(), t))
                    .collect();
                modules.sort_by(|a, b| b.1.missed().cmp(&a.1.missed()).then(a.0.cmp(&b.0)));
                Summary {
                    build: id.clone(),
                    design: b.design.clone(),
                    runs: b.files,
                    total,
                    modules,
                    fsms: b.fsms().iter().map(FsmSummary::of).collect(),
                    covers: b.covers(),
                    streams: b.streams(),
                    toggles: b.points.values().filter_map(ToggleBit::of).collect(),
                }
            })
            .collect();
        out.sort_by(|a, b| a.design.cmp(&b.design).then(a.build.cmp(&b.build)));
        out
    }

    /// The builds as lcov: one record per design's Verilog (`SF` the path under `data/`
    /// that [`Coverage::write`] writes), lines from line points, branches from branch
    /// points. lcov has no toggles; the summary and the HTML give them.
    pub fn lcov(&self) -> String {
        let mut s = String::new();
        for (id, b) in &self.builds {
            let _ = writeln!(s, "TN:{id}\nSF:data/{id}/{}.v", b.design);
            let mut lines: BTreeMap<usize, u64> = BTreeMap::new();
            let mut branches: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
            for p in b.points.values() {
                match p.kind {
                    Kind::Line => {
                        let c = lines.entry(p.line).or_insert(0);
                        *c = (*c).max(p.count);
                    }
                    Kind::Branch => {
                        lines.entry(p.line).or_insert(0);
                        branches.entry(p.line).or_default().push(p.count);
                    }
                    _ => {}
                }
            }
            // A line with only branch points ran when any arm did.
            for (l, arms) in &branches {
                let c = lines.entry(*l).or_insert(0);
                *c = (*c).max(arms.iter().copied().max().unwrap_or(0));
            }
            for (l, c) in &lines {
                let _ = writeln!(s, "DA:{l},{c}");
            }
            let mut brf = 0;
            let mut brh = 0;
            for (l, arms) in &branches {
                for (k, c) in arms.iter().enumerate() {
                    let _ = writeln!(s, "BRDA:{l},0,{k},{c}");
                    brf += 1;
                    brh += usize::from(*c > 0);
                }
            }
            let lh = lines.values().filter(|c| **c > 0).count();
            let _ = writeln!(
                s,
                "BRF:{brf}\nBRH:{brh}\nLF:{}\nLH:{lh}\nend_of_record",
                lines.len()
            );
        }
        s
    }

    /// One build's merged counts in Verilator's coverage data format (what
    /// `verilator_coverage` reads).
    pub fn dat(build: &Build) -> String {
        let mut s = String::from("# SystemC::Coverage-3\n");
        for (key, p) in &build.points {
            let _ = writeln!(s, "C '{key}' {}", p.count);
        }
        for (key, (_, count)) in &build.top_points {
            let _ = writeln!(s, "C '{key}' {count}");
        }
        s
    }

    /// Write the merge under `out`: `data/<build>/` (the Verilog and one merged counts file,
    /// which [`Coverage::read`] reads again), `coverage.info`, `summary.json`, `html/` and
    /// [`MARKER`]. What `data/` held before is replaced.
    pub fn write(&self, out: &Path) -> Result<Vec<Summary>> {
        let summaries = self.summaries();
        std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
        write(&out.join(MARKER), "edgelearn coverage\n")?;
        for old in [out.join("data"), out.join("html")] {
            if old.is_dir() {
                std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
            }
        }
        for (id, b) in &self.builds {
            let d = out.join("data").join(id);
            std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
            write(&d.join(format!("{}.v", b.design)), &b.verilog)?;
            if !b.top.is_empty() {
                write(&d.join(format!("{}_tb.v", b.design)), &b.top)?;
            }
            write(&d.join(MERGED), &Coverage::dat(b))?;
            write(&d.join(RUNS), &format!("{}\n", b.files))?;
        }
        write(&out.join("coverage.info"), &self.lcov())?;
        let json = serde_json::to_string_pretty(&summaries).expect("summary serializes");
        write(&out.join("summary.json"), &(json + "\n"))?;
        let html = out.join("html");
        std::fs::create_dir_all(&html).map_err(|e| Error::io(&html, e))?;
        write(&html.join("index.html"), &html_index(&summaries))?;
        for (id, b) in &self.builds {
            let s = summaries
                .iter()
                .find(|s| &s.build == id)
                .expect("a summary per build");
            write(&html.join(format!("{id}.html")), &html_build(s, b))?;
        }
        Ok(summaries)
    }
}

fn write(path: &Path, text: &str) -> Result<()> {
    crate::files::write_atomic(path, text).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(f: &str, l: usize, page: &str, o: &str, h: &str) -> String {
        format!("\u{1}f\u{2}{f}\u{1}l\u{2}{l}\u{1}page\u{2}{page}\u{1}o\u{2}{o}\u{1}h\u{2}{h}")
    }

    fn dat(points: &[(String, u64)]) -> String {
        let mut s = String::from("# SystemC::Coverage-3\n");
        for (k, c) in points {
            s += &format!("C '{k}' {c}\n");
        }
        s
    }

    #[test]
    fn counts_are_summed_per_point_and_the_bench_top_is_left_out() {
        let a = key("d.v", 3, "v_line/d", "block", "TOP.d_tb.dut");
        let b = key("d.v", 4, "v_branch/d", "if", "TOP.d_tb.dut");
        let e = key("d.v", 4, "v_branch/d", "else", "TOP.d_tb.dut");
        let t = key("d.v", 1, "v_toggle/d", "x[0]", "TOP.d_tb.dut");
        let top = key("d_tb.v", 2, "v_line/d_tb", "block", "TOP.d_tb");
        let mut c = Coverage::default();
        let v = "module d;\n\n\n\nendmodule\n";
        let p = Path::new("x.dat");
        c.add_counts(
            "d-1",
            "d",
            (v, ""),
            p,
            &dat(&[
                (a.clone(), 2),
                (b.clone(), 1),
                (e.clone(), 0),
                (t.clone(), 0),
            ]),
        )
        .unwrap();
        c.add_counts(
            "d-1",
            "d",
            (v, ""),
            p,
            &dat(&[(a, 3), (e, 0), (t, 5), (top, 9)]),
        )
        .unwrap();
        let s = c.summaries();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].runs, 2);
        assert_eq!(
            s[0].total.line,
            Tally {
                covered: 1,
                total: 1
            }
        );
        assert_eq!(
            s[0].total.branch,
            Tally {
                covered: 1,
                total: 2
            }
        );
        assert_eq!(
            s[0].total.toggle,
            Tally {
                covered: 1,
                total: 1
            }
        );
        let info = c.lcov();
        assert!(info.contains("SF:data/d-1/d.v\n"), "{info}");
        assert!(
            info.contains("DA:3,5\n") && info.contains("DA:4,1\n"),
            "{info}"
        );
        assert!(info.contains("BRDA:4,0,0,0\n") || info.contains("BRDA:4,0,1,0\n"));
        assert!(info.contains("BRF:2\nBRH:1\nLF:2\nLH:2\n"), "{info}");
        // The merged file reads back to the same counts.
        let again = Coverage::dat(&c.builds["d-1"]);
        let mut d = Coverage::default();
        d.add_counts("d-1", "d", (v, ""), p, &again).unwrap();
        assert_eq!(d.summaries()[0].total, s[0].total);
    }

    #[test]
    fn fsm_monitors_give_states_transitions_holes_and_undeclared_changes() {
        // A top as `sim::dut::verilator` writes it: a header, then one marked line per point.
        let top = "module d_tb;\n\
                   // el-fsm 0 name=fsm.state kind=S states=A,B,C arcs=0-1,1-2,2-0\n\
                   x // el-fsm 0 state 0\n\
                   x // el-fsm 0 state 1\n\
                   x // el-fsm 0 state 2\n\
                   x // el-fsm 0 badstate\n\
                   x // el-fsm 0 arc 0 1\n\
                   x // el-fsm 0 arc 0 2\n\
                   x // el-fsm 0 arc 1 0\n\
                   x // el-fsm 0 arc 1 2\n\
                   x // el-fsm 0 arc 2 0\n\
                   x // el-fsm 0 arc 2 1\n\
                   x // el-fsm 0 badarc\n";
        let point = |l: usize, c: u64| (key("d_tb.v", l, "v_line/d_tb", "case", "TOP.d_tb"), c);
        // States A and B reached; A -> B taken, and A -> C, which the FSM does not declare.
        let counts = dat(&[
            point(3, 5),
            point(4, 2),
            point(5, 0),
            point(7, 2),
            point(8, 1),
            point(2, 9), // the header line: not a point of the monitor
        ]);
        let mut c = Coverage::default();
        c.add_counts("d-1", "d", ("", top), Path::new("x.dat"), &counts)
            .unwrap();
        let s = c.summaries();
        let f = &s[0].fsms[0];
        assert_eq!((f.name.as_str(), f.kind.as_str()), ("fsm.state", "S"));
        assert_eq!(
            f.states,
            Tally {
                covered: 2,
                total: 3
            }
        );
        assert_eq!(
            f.arcs,
            Some(Tally {
                covered: 1,
                total: 3
            })
        );
        assert_eq!(f.missed_states, ["C"]);
        assert_eq!(f.missed_arcs, ["B -> C", "C -> A"]);
        assert_eq!(f.undeclared, [("A -> C".to_string(), 1)]);
        let shown = f.show();
        assert!(shown.contains("UNDECLARED: A -> C x1"), "{shown}");
        // The merge keeps the monitor's points.
        let again = Coverage::dat(&c.builds["d-1"]);
        let mut d = Coverage::default();
        d.add_counts("d-1", "d", ("", top), Path::new("y.dat"), &again)
            .unwrap();
        assert_eq!(d.summaries()[0].fsms[0].undeclared, f.undeclared);
    }

    #[test]
    fn stream_monitors_count_each_kind_of_cycle() {
        let top = "module d_tb;\n\
                   // el-stream 0 name=s_t dir=in\n\
                   x // el-stream 0 beat\n\
                   x // el-stream 0 stall\n\
                   x // el-stream 0 gap\n\
                   x // el-stream 0 idle\n";
        let point = |l: usize, c: u64| (key("d_tb.v", l, "v_line/d_tb", "case", "TOP.d_tb"), c);
        let counts = dat(&[point(3, 7), point(4, 0), point(5, 2), point(6, 1)]);
        let mut c = Coverage::default();
        c.add_counts("d-1", "d", ("", top), Path::new("x.dat"), &counts)
            .unwrap();
        let s = &c.summaries()[0].streams[0];
        assert_eq!(
            (s.name.as_str(), s.input, s.hits),
            ("s_t", true, [7, 0, 2, 1])
        );
        assert_eq!(s.missed(), ["stall"]);
        assert!(s.show().contains("(never: stall)"), "{}", s.show());
    }

    #[test]
    fn a_malformed_counts_file_names_the_line() {
        let mut c = Coverage::default();
        let e = c
            .add_counts(
                "d-1",
                "d",
                ("", ""),
                Path::new("bad.dat"),
                "# x\nC 'k' many\n",
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.dat") && e.contains('2'), "{e}");
        let e = c
            .add_counts("d-1", "d", ("", ""), Path::new("bad.dat"), "garbage\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected"), "{e}");
    }
}
