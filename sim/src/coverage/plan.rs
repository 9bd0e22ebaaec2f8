//! Testplans: the coverage items a design's testplan (`docs/blocks/<block>.md`, section
//! "Coverage plan") says its tests close, and their closure against a coverage report
//! (`edgelearn coverage`, docs/decisions.md D-COVERAGE).
//!
//! ```text
//! ## Coverage plan
//!
//! Designs: `lel_platform`, `lel_platform_mnist`
//!
//! | item | closed by | waiver |
//! |---|---|---|
//! | `fsm PlState PL_INF` | inference | |
//! | `fsm PlState PL_INF -> PL_FIN` | inference | |
//! | `stream s_t stall` | streams | |
//! | `line >= 95` | every test | |
//! | `toggle >= 90` | every test | waived: the weight memories' upper bits ... |
//! ```
//!
//! Items: `fsm ENUM STATE`, `fsm ENUM A -> B` (a declared transition), `fsm ENUM *` (every
//! state and declared transition of every FSM of the enum, and no undeclared one),
//! `stream PORT BIN`
//! (`beat`, `stall`, `gap`, `idle`), `cover PATH BIN` (a FIFO's `empty`, `1/4`, `1/2`,
//! `3/4`, `full`; an LFSR's `reseed`; a table's `entryK`; PATH the block's instance path;
//! in either, `*` stands for any run of characters), `toggle SIGNAL` (every bit of every
//! signal that matches toggled both ways; SIGNAL is the path below the design, a pattern
//! with `*`, and may end in a bit range `[LO..HI]` or `[LO..HI:STEP]`; `on DESIGN` keeps it
//! to one design of the plan), `line|branch|toggle >= PERCENT` (the
//! design's total).
//! A waiver is a third cell starting `waived:` with its reason. A waived `toggle SIGNAL`
//! is an exclusion: its points leave the `toggle >= PERCENT` total of the same plan, which
//! then reports both figures.

use super::stream::BINS;
use super::{Summary, ToggleBit};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The heading of the section a testplan keeps its items under.
pub const HEADING: &str = "## Coverage plan";

/// One coverage item of a testplan.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// A state of every FSM of an enum.
    State {
        /// The enum (`PlState`).
        kind: String,
        /// The state.
        state: String,
    },
    /// A declared transition.
    Arc {
        /// The enum.
        kind: String,
        /// `A -> B`.
        arc: String,
    },
    /// Every state and every declared transition of every FSM of an enum, and no
    /// transition it does not declare.
    Fsm {
        /// The enum.
        kind: String,
    },
    /// A kind of cycle at a stream port.
    Stream {
        /// The port's prefix (`s_t`).
        port: String,
        /// `beat`, `stall`, `gap` or `idle`.
        bin: usize,
    },
    /// A bin of a FIFO, LFSR or table.
    Cover {
        /// The block's instance path (`core.in_fifo`), or a pattern with `*` for any run of
        /// characters (`core.fc*.fc.fifo`).
        path: String,
        /// The bin (`full`, `reseed`, `entry3`), or a pattern (`entry*`).
        bin: String,
    },
    /// Every bit of the signals a pattern names toggled both ways.
    Toggle {
        /// The signal below the design (`core.conv.img.row0`), `*` for any run of
        /// characters.
        signal: String,
        /// Only these bits.
        bits: Option<BitRange>,
        /// Only on these designs of the plan (`toggle SIGNAL on DESIGN[,DESIGN...]`).
        design: Option<String>,
    },
    /// A total at least a percentage.
    Total {
        /// `line`, `branch` or `toggle`.
        metric: String,
        /// Percent.
        min: f64,
    },
}

/// A testplan row.
#[derive(Clone, Debug)]
pub struct Row {
    /// The item as written.
    pub text: String,
    /// The item.
    pub item: Item,
    /// What closes it (the tests).
    pub closed_by: String,
    /// The waiver's reason, if waived.
    pub waiver: Option<String>,
    /// Line in the file.
    pub line: usize,
}

/// A testplan file's coverage plan.
#[derive(Clone, Debug)]
pub struct Testplan {
    /// The file.
    pub file: PathBuf,
    /// The designs it is for.
    pub designs: Vec<String>,
    /// Its items.
    pub rows: Vec<Row>,
}

/// Parse one item (`fsm PlState PL_INF`, ...).
pub fn parse_item(text: &str) -> Result<Item, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["fsm", kind, "*"] => Ok(Item::Fsm {
            kind: kind.to_string(),
        }),
        ["fsm", kind, state] => Ok(Item::State {
            kind: kind.to_string(),
            state: state.to_string(),
        }),
        ["fsm", kind, a, "->", b] => Ok(Item::Arc {
            kind: kind.to_string(),
            arc: format!("{a} -> {b}"),
        }),
        ["stream", port, bin] => match BINS.iter().position(|b| b == bin) {
            Some(bin) => Ok(Item::Stream {
                port: port.to_string(),
                bin,
            }),
            None => Err(format!("`{bin}` is not a stream bin ({})", BINS.join(", "))),
        },
        ["cover", path, bin] => Ok(Item::Cover {
            path: path.to_string(),
            bin: bin.to_string(),
        }),
        ["toggle", signal] => parse_toggle(signal, None),
        ["toggle", signal, "on", design] => parse_toggle(signal, Some(design)),
        [metric @ ("line" | "branch" | "toggle"), ">=", pct] => pct
            .trim_end_matches('%')
            .parse::<f64>()
            .map(|min| Item::Total {
                metric: metric.to_string(),
                min,
            })
            .map_err(|_| format!("`{pct}` is not a percentage")),
        _ => Err(format!(
            "`{text}` is not an item (fsm ENUM STATE, fsm ENUM A -> B, fsm ENUM *, stream PORT BIN, cover PATH BIN, toggle SIGNAL[LO..HI:STEP] [on DESIGN], line|branch|toggle >= PERCENT)"
        )),
    }
}

/// Bits `lo, lo + step, ...` up to `hi` (`[LO..HI]`, `[LO..HI:STEP]`: `[7..255:8]` is bit 7
/// of every byte of a 256-bit signal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitRange {
    /// First bit.
    pub lo: u32,
    /// Last bit (inclusive).
    pub hi: u32,
    /// Stride.
    pub step: u32,
}

impl BitRange {
    fn contains(&self, b: u32) -> bool {
        (self.lo..=self.hi).contains(&b) && (b - self.lo).is_multiple_of(self.step)
    }
}

/// `toggle SIGNAL` or `toggle SIGNAL[LO..HI[:STEP]]`, only on `design` if given.
fn parse_toggle(text: &str, design: Option<&str>) -> Result<Item, String> {
    let design = design.map(String::from);
    let range = text
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
        .and_then(|(s, r)| r.split_once("..").map(|(lo, hi)| (s, lo, hi)));
    let Some((signal, lo, hi)) = range else {
        return Ok(Item::Toggle {
            signal: text.to_string(),
            bits: None,
            design,
        });
    };
    let (hi, step) = hi.split_once(':').unwrap_or((hi, "1"));
    match (lo.parse::<u32>(), hi.parse::<u32>(), step.parse::<u32>()) {
        (Ok(lo), Ok(hi), Ok(step)) if lo <= hi && step > 0 => Ok(Item::Toggle {
            signal: signal.to_string(),
            bits: Some(BitRange { lo, hi, step }),
            design,
        }),
        _ => Err(format!(
            "`[{lo}..{hi}:{step}]` is not a bit range (LO..HI or LO..HI:STEP, LO <= HI, STEP > 0)"
        )),
    }
}

impl Item {
    /// Whether this `toggle SIGNAL` item names the toggle point `t` of design `design`.
    fn names(&self, design: &str, t: &ToggleBit) -> bool {
        match self {
            Item::Toggle {
                signal,
                bits,
                design: only,
            } => {
                only.as_ref()
                    .is_none_or(|d| d.split(',').any(|d| d == design))
                    && glob(signal, &t.signal)
                    && bits.is_none_or(|r| t.bit.is_some_and(|b| r.contains(b)))
            }
            _ => false,
        }
    }
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim().trim_start_matches('|').trim_end_matches('|');
    t.split('|').map(|c| c.trim().to_string()).collect()
}

fn ticked(cell: &str) -> Option<&str> {
    cell.strip_prefix('`').and_then(|c| c.strip_suffix('`'))
}

/// Parse a testplan's coverage plan; `Ok(None)` when the file has none.
pub fn parse(file: &Path, text: &str) -> Result<Option<Testplan>, String> {
    let Some(start) = text.lines().position(|l| l.trim() == HEADING) else {
        return Ok(None);
    };
    let at = |line: usize| format!("{}:{}", file.display(), line + 1);
    let mut plan = Testplan {
        file: file.to_path_buf(),
        designs: Vec::new(),
        rows: Vec::new(),
    };
    for (i, line) in text.lines().enumerate().skip(start + 1) {
        if line.starts_with("## ") {
            break;
        }
        if let Some(d) = line.trim().strip_prefix("Designs:") {
            plan.designs = d
                .split(',')
                .filter_map(|x| ticked(x.trim()))
                .map(String::from)
                .collect();
            continue;
        }
        if !line.trim_start().starts_with('|') {
            continue;
        }
        let c = cells(line);
        let Some(text) = c.first().and_then(|c| ticked(c)) else {
            continue; // the header and the rule
        };
        let item = parse_item(text).map_err(|e| format!("{}: {e}", at(i)))?;
        let waiver = match c.get(2).map(String::as_str).unwrap_or("") {
            "" => None,
            w => match w.strip_prefix("waived:") {
                Some(r) if !r.trim().is_empty() => Some(r.trim().to_string()),
                _ => {
                    return Err(format!(
                        "{}: a waiver is `waived: REASON`, not `{w}`",
                        at(i)
                    ))
                }
            },
        };
        plan.rows.push(Row {
            text: text.to_string(),
            item,
            closed_by: c.get(1).cloned().unwrap_or_default(),
            waiver,
            line: i + 1,
        });
    }
    if plan.designs.is_empty() {
        return Err(format!(
            "{}: the coverage plan names no design (`Designs: `name``)",
            at(start)
        ));
    }
    Ok(Some(plan))
}

/// Every testplan with a coverage plan in `dir` (`*.md`, by name).
pub fn read_dir(dir: &Path) -> Result<Vec<Testplan>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut plans = Vec::new();
    for f in files {
        let text =
            std::fs::read_to_string(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        plans.extend(parse(&f, &text)?);
    }
    Ok(plans)
}

/// Where an item stands in a report.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Covered.
    Closed,
    /// Not covered, waived (the reason).
    Waived(String),
    /// Not covered: what the report shows.
    Open(String),
    /// The report cannot say: the item names no state, transition or port of the design.
    Unknown(String),
}

/// The status of `item` in the summaries of one design (all its builds).
pub fn status(item: &Item, builds: &[&Summary]) -> Status {
    status_excluding(item, builds, &[])
}

/// [`status`], with the toggle points `excluded` names (waived `toggle SIGNAL` items) left
/// out of a `toggle >= PERCENT` total.
pub fn status_excluding(item: &Item, builds: &[&Summary], excluded: &[&Item]) -> Status {
    let fsms = |kind: &str| {
        builds
            .iter()
            .flat_map(|b| &b.fsms)
            .filter(|f| f.kind == kind)
            .collect::<Vec<_>>()
    };
    match item {
        Item::State { kind, state } => {
            let f = fsms(kind);
            if !f.iter().any(|f| f.all_states.contains(state)) {
                return Status::Unknown(format!("no {kind} FSM with a state {state}"));
            }
            match f
                .iter()
                .any(|f| f.all_states.contains(state) && !f.missed_states.contains(state))
            {
                true => Status::Closed,
                false => Status::Open("never reached".into()),
            }
        }
        Item::Arc { kind, arc } => {
            let f = fsms(kind);
            if !f.iter().any(|f| f.declared.contains(arc)) {
                return Status::Unknown(format!("no {kind} FSM declares {arc}"));
            }
            match f
                .iter()
                .any(|f| f.declared.contains(arc) && !f.missed_arcs.contains(arc))
            {
                true => Status::Closed,
                false => Status::Open("never taken".into()),
            }
        }
        Item::Fsm { kind } => {
            let f = fsms(kind);
            if f.is_empty() {
                return Status::Unknown(format!("no {kind} FSM"));
            }
            let mut holes: Vec<String> = Vec::new();
            for x in &f {
                holes.extend(x.missed_states.iter().map(|s| format!("{}: {s}", x.name)));
                holes.extend(x.missed_arcs.iter().map(|a| format!("{}: {a}", x.name)));
                holes.extend(
                    x.undeclared
                        .iter()
                        .map(|(a, _)| format!("{}: {a} (undeclared)", x.name)),
                );
            }
            match holes.is_empty() {
                true => Status::Closed,
                false => Status::Open(holes.join(", ")),
            }
        }
        Item::Stream { port, bin } => {
            let s: Vec<_> = builds
                .iter()
                .flat_map(|b| &b.streams)
                .filter(|s| &s.name == port)
                .collect();
            if s.is_empty() {
                return Status::Unknown(format!("no stream port {port}"));
            }
            match s.iter().map(|s| s.hits[*bin]).sum::<u64>() {
                0 => Status::Open(format!("never: {}", BINS[*bin])),
                _ => Status::Closed,
            }
        }
        Item::Cover { path, bin } => {
            let sites: Vec<_> = builds
                .iter()
                .flat_map(|b| &b.covers)
                .filter(|c| glob(path, &c.name))
                .collect();
            if sites.is_empty() {
                return Status::Unknown(format!("no FIFO, LFSR or table {path}"));
            }
            // Every bin the pattern names, of every block the path names, must be reached.
            let bins: Vec<(&str, &str, u64)> = sites
                .iter()
                .flat_map(|c| {
                    c.bins
                        .iter()
                        .filter(|(b, _)| glob(bin, b))
                        .map(|(b, h)| (c.name.as_str(), b.as_str(), *h))
                })
                .collect();
            let missed: Vec<String> = bins
                .iter()
                .filter(|(_, _, h)| *h == 0)
                .map(|(c, b, _)| format!("{c} {b}"))
                .collect();
            match (bins.is_empty(), missed.is_empty()) {
                (true, _) => Status::Unknown(format!("{path} has no bin {bin}")),
                (false, true) => Status::Closed,
                (false, false) => Status::Open(format!("never: {}", missed.join(", "))),
            }
        }
        Item::Toggle { .. } => toggle_status(item, builds),
        Item::Total { metric, min } if metric == "toggle" && !excluded.is_empty() => {
            toggle_total(builds, excluded, *min)
        }
        Item::Total { metric, min } => {
            // The best build of the design (one configuration's run).
            let pct = builds
                .iter()
                .map(|b| match metric.as_str() {
                    "line" => b.total.line.percent(),
                    "branch" => b.total.branch.percent(),
                    _ => b.total.toggle.percent(),
                })
                .fold(f64::NAN, f64::max);
            match pct >= *min {
                true => Status::Closed,
                false => Status::Open(format!("{pct:.1} %")),
            }
        }
    }
}

/// The status of a `toggle SIGNAL` item: closed when every bit it names toggled both ways.
fn toggle_status(item: &Item, builds: &[&Summary]) -> Status {
    let named: Vec<&ToggleBit> = builds
        .iter()
        .flat_map(|b| b.toggles.iter().filter(|t| item.names(&b.design, t)))
        .collect();
    if named.is_empty() {
        return Status::Unknown("no signal bit matches".into());
    }
    let mut missed: Vec<String> = named
        .iter()
        .filter(|t| !t.hit)
        .map(|t| match t.bit {
            Some(b) => format!("{}[{b}]", t.signal),
            None => t.signal.clone(),
        })
        .collect();
    missed.dedup();
    match missed.len() {
        0 => Status::Closed,
        n => Status::Open(format!(
            "{n} of {} bits did not toggle both ways, e.g. {}",
            named.len() / 2,
            missed[..n.min(3)].join(", ")
        )),
    }
}

/// A `toggle >= min` total without the points `excluded` names, on the best build.
fn toggle_total(builds: &[&Summary], excluded: &[&Item], min: f64) -> Status {
    // The best build, its excluded points left out of both counts.
    let (pct, raw, n) = builds
        .iter()
        .map(|b| {
            let kept = b
                .toggles
                .iter()
                .filter(|t| !excluded.iter().any(|e| e.names(&b.design, t)));
            let (mut hit, mut total) = (0usize, 0usize);
            for t in kept {
                total += 1;
                hit += usize::from(t.hit);
            }
            let pct = if total == 0 {
                100.0
            } else {
                100.0 * hit as f64 / total as f64
            };
            (pct, b.total.toggle.percent(), b.toggles.len() - total)
        })
        .fold(
            (f64::NAN, f64::NAN, 0),
            |a, b| if a.0 >= b.0 { a } else { b },
        );
    let text = format!("{pct:.1} % without the {n} waived points; {raw:.1} % of all");
    match pct >= min {
        true => Status::Closed,
        false => Status::Open(text),
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters and `\*`
/// for a `*` itself (the `$*` of a module that several instances share in the emitted
/// Verilog: `quads$*.gather.lbuf`, apart from `quads$0.gather.lbuf`).
fn glob(pattern: &str, name: &str) -> bool {
    // The literal runs between the wildcards, with `\*` unescaped.
    let mut parts = vec![String::new()];
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'*') => {
                chars.next();
                parts.last_mut().expect("one part").push('*');
            }
            '*' => parts.push(String::new()),
            c => parts.last_mut().expect("one part").push(c),
        }
    }
    let Some(mut rest) = name.strip_prefix(parts[0].as_str()) else {
        return false;
    };
    let parts = &parts[1..];
    for (i, p) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return rest.len() >= p.len() && rest.ends_with(p.as_str());
        }
        match rest.find(p.as_str()) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// A testplan's closure in a report.
#[derive(Clone, Debug)]
pub struct Closure {
    /// The testplan.
    pub file: PathBuf,
    /// The designs of the report it applies to.
    pub designs: Vec<String>,
    /// Each row with its status.
    pub rows: Vec<(Row, Status)>,
}

impl Closure {
    /// Items closed, waived, open, unknown.
    pub fn counts(&self) -> [usize; 4] {
        let mut n = [0; 4];
        for (_, s) in &self.rows {
            n[match s {
                Status::Closed => 0,
                Status::Waived(_) => 1,
                Status::Open(_) => 2,
                Status::Unknown(_) => 3,
            }] += 1;
        }
        n
    }

    /// `docs/blocks/platform.md (lel_platform): 14 of 17 closed, 1 waived, 2 open: ...`.
    pub fn show(&self) -> String {
        let [c, w, o, u] = self.counts();
        let mut s = format!(
            "{} ({}): {c} of {} items closed, {w} waived, {o} open",
            self.file.display(),
            self.designs.join(", "),
            self.rows.len()
        );
        if u > 0 {
            let _ = write!(s, ", {u} unknown");
        }
        for (r, st) in &self.rows {
            match st {
                Status::Open(why) => {
                    let _ = write!(
                        s,
                        "\n  open: {} ({why}; closed by: {})",
                        r.text, r.closed_by
                    );
                }
                Status::Unknown(why) => {
                    let _ = write!(s, "\n  unknown: {} (line {}: {why})", r.text, r.line);
                }
                Status::Waived(why) => {
                    let _ = write!(s, "\n  waived: {} ({why})", r.text);
                }
                Status::Closed => {}
            }
        }
        s
    }
}

/// The closure of every testplan that names a design of `summaries` (waivers apply to
/// items not covered only).
pub fn closure(plans: &[Testplan], summaries: &[Summary]) -> Vec<Closure> {
    let mut out = Vec::new();
    for p in plans {
        let builds: Vec<&Summary> = summaries
            .iter()
            .filter(|s| p.designs.contains(&s.design))
            .collect();
        if builds.is_empty() {
            continue;
        }
        let mut designs: Vec<String> = builds.iter().map(|b| b.design.clone()).collect();
        designs.dedup();
        let excluded: Vec<&Item> = p
            .rows
            .iter()
            .filter(|r| r.waiver.is_some() && matches!(r.item, Item::Toggle { .. }))
            .map(|r| &r.item)
            .collect();
        let rows = p
            .rows
            .iter()
            .map(|r| {
                let st = match (status_excluding(&r.item, &builds, &excluded), &r.waiver) {
                    (Status::Open(_), Some(w)) => Status::Waived(w.clone()),
                    (st, _) => st,
                };
                (r.clone(), st)
            })
            .collect();
        out.push(Closure {
            file: p.file.clone(),
            designs,
            rows,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# x\n\n## Coverage plan\n\nDesigns: `d1`, `d2`\n\n| item | closed by | waiver |\n|---|---|---|\n\
        | `fsm PlState PL_INF` | inference | |\n| `fsm PlState PL_INF -> PL_FIN` | inference | |\n\
        | `stream s_t stall` | streams | waived: the bench never stalls |\n| `line >= 95` | all | |\n\n## Next\n| `bogus` | | |\n";

    #[test]
    fn a_plan_parses_and_bad_items_are_named() {
        let p = parse(Path::new("t.md"), PLAN).unwrap().unwrap();
        assert_eq!(p.designs, ["d1", "d2"]);
        assert_eq!(p.rows.len(), 4);
        assert_eq!(
            p.rows[1].item,
            Item::Arc {
                kind: "PlState".into(),
                arc: "PL_INF -> PL_FIN".into()
            }
        );
        assert_eq!(p.rows[2].waiver.as_deref(), Some("the bench never stalls"));
        assert_eq!(
            p.rows[3].item,
            Item::Total {
                metric: "line".into(),
                min: 95.0
            }
        );
        assert!(parse(Path::new("t.md"), "no plan").unwrap().is_none());
        let e = parse(
            Path::new("t.md"),
            &PLAN.replace("stream s_t stall", "stream s_t stop"),
        )
        .unwrap_err();
        assert!(
            e.contains("t.md:11") && e.contains("`stop` is not a stream bin"),
            "{e}"
        );
        let e = parse(Path::new("t.md"), &PLAN.replace("waived: the", "maybe the")).unwrap_err();
        assert!(e.contains("waived: REASON"), "{e}");
        let e = parse(Path::new("t.md"), &PLAN.replace("Designs: `d1`, `d2`", "")).unwrap_err();
        assert!(e.contains("names no design"), "{e}");
        assert!(parse_item("fsm X").is_err() && parse_item("toggle >= lots").is_err());
        assert_eq!(
            parse_item("fsm FcState *"),
            Ok(Item::Fsm {
                kind: "FcState".into()
            })
        );
    }

    #[test]
    fn a_cover_item_closes_only_when_every_block_it_names_reached_the_bin() {
        use crate::coverage::{Cover, Tallies};
        let fifo = |name: &str, full: u64| Cover {
            name: name.into(),
            kind: "fifo".into(),
            bins: vec![("empty".into(), 9), ("full".into(), full)],
        };
        let summary = Summary {
            build: "p-1".into(),
            design: "p".into(),
            runs: 1,
            total: Tallies::default(),
            modules: Vec::new(),
            fsms: Vec::new(),
            covers: vec![fifo("core.fc0.fc.fifo", 3), fifo("core.fc1.fc.fifo", 0)],
            streams: Vec::new(),
            toggles: Vec::new(),
        };
        let st = |item: &str| status(&parse_item(item).unwrap(), &[&summary]);
        assert_eq!(st("cover core.fc0.fc.fifo full"), Status::Closed);
        assert_eq!(st("cover core.fc*.fc.fifo empty"), Status::Closed);
        assert_eq!(
            st("cover core.fc*.fc.fifo full"),
            Status::Open("never: core.fc1.fc.fifo full".into())
        );
        assert!(matches!(st("cover core.mid_fifo full"), Status::Unknown(_)));
        assert!(matches!(st("cover *.fifo half"), Status::Unknown(_)));
        assert_eq!(
            st("cover core.fc0.fc.fifo *"),
            Status::Closed,
            "every bin of one FIFO"
        );
        assert_eq!(
            st("cover * *"),
            Status::Open("never: core.fc1.fc.fifo full".into())
        );
        assert!(glob("*", "a.b") && glob("a.*.c", "a.x.y.c") && !glob("a.*.c", "a.x.d"));
        assert!(glob("core.in_fifo", "core.in_fifo") && !glob("core.in", "core.in_fifo"));
        // `\*` is a `*` itself: a shared module's signals, not instance 0's.
        assert!(glob("q$\\*.lbuf*", "q$*.lbuf.mem[0]") && !glob("q$\\*.lbuf*", "q$0.lbuf.mem[0]"));
        assert!(glob("q$*.lbuf*", "q$0.lbuf.mem[0]") && glob("a\\*", "a*") && !glob("a\\*", "ab"));
    }

    fn st_of(summary: &Summary, item: &str) -> Status {
        status(&parse_item(item).unwrap(), &[summary])
    }

    #[test]
    fn a_waived_toggle_pattern_leaves_the_toggle_total_and_a_plain_one_must_close() {
        use crate::coverage::{Tallies, Tally};
        let bit = |signal: &str, bit: Option<u32>, hit: bool| ToggleBit {
            signal: signal.into(),
            bit,
            hit,
        };
        // 8 bits of a 4-bit map (both directions), 2 points of a one-bit `run`: the map's
        // upper two bits never toggle.
        let mut toggles = vec![bit("run", None, true), bit("run", None, true)];
        for b in 0..4 {
            for _ in 0..2 {
                toggles.push(bit("decode.in_map", Some(b), b < 2));
            }
        }
        let hit = toggles.iter().filter(|t| t.hit).count();
        let summary = Summary {
            build: "e-1".into(),
            design: "e".into(),
            runs: 1,
            total: Tallies {
                toggle: Tally {
                    covered: hit,
                    total: toggles.len(),
                },
                ..Tallies::default()
            },
            modules: Vec::new(),
            fsms: Vec::new(),
            covers: Vec::new(),
            streams: Vec::new(),
            toggles,
        };
        let item = |t: &str| parse_item(t).unwrap();
        assert_eq!(
            item("toggle *.in_map[2..3]"),
            Item::Toggle {
                signal: "*.in_map".into(),
                bits: Some(BitRange {
                    lo: 2,
                    hi: 3,
                    step: 1
                }),
                design: None
            }
        );
        assert!(parse_item("toggle x[3..1]").is_err() && parse_item("toggle x[1..3:0]").is_err());
        assert_eq!(
            st_of(&summary, "toggle decode.in_map[1..3:2]"),
            Status::Open("1 of 2 bits did not toggle both ways, e.g. decode.in_map[3]".into())
        );
        assert_eq!(
            item("toggle mem[3]"),
            Item::Toggle {
                signal: "mem[3]".into(),
                bits: None,
                design: None
            },
            "an index without a range is part of the name"
        );
        let st = |t: &str| st_of(&summary, t);
        assert_eq!(st("toggle run"), Status::Closed);
        assert_eq!(st("toggle decode.in_map[0..1]"), Status::Closed);
        assert_eq!(
            st("toggle decode.in_map"),
            Status::Open(
                "2 of 4 bits did not toggle both ways, e.g. decode.in_map[2], decode.in_map[3]"
                    .into()
            )
        );
        assert!(matches!(st("toggle nothing*"), Status::Unknown(_)));
        assert!(matches!(st("toggle run on other"), Status::Unknown(_)));
        assert_eq!(st("toggle run on e"), Status::Closed);
        assert_eq!(st("toggle run on other,e"), Status::Closed);
        assert_eq!(st("toggle >= 61"), Status::Open("60.0 %".into()));
        // Waived, the upper bits leave the total: 6 of 6 points.
        let plan = String::from(
            "## Coverage plan\n\nDesigns: `e`\n\n| item | by | waiver |\n|---|---|---|\n\
             | `toggle >= 90` | all | |\n| `toggle *.in_map[2..63]` | | waived: 2 processors |\n",
        );
        let p = parse(Path::new("e.md"), &plan).unwrap().unwrap();
        let c = closure(std::slice::from_ref(&p), std::slice::from_ref(&summary));
        assert_eq!(c[0].rows[0].1, Status::Closed);
        assert_eq!(c[0].rows[1].1, Status::Waived("2 processors".into()));
        // Without the exclusion the same plan is open at the raw figure; with a narrower one
        // the report gives both figures.
        let narrow = plan.replace("[2..63]", "[3..63]");
        let p = parse(Path::new("e.md"), &narrow).unwrap().unwrap();
        let c = closure(&[p], std::slice::from_ref(&summary));
        assert_eq!(
            c[0].rows[0].1,
            Status::Open("75.0 % without the 2 waived points; 60.0 % of all".into())
        );
        // An exclusion for another design of the plan leaves this one's total alone.
        let other = plan.replace("[2..63]`", "[2..63] on e16`");
        let p = parse(Path::new("e.md"), &other).unwrap().unwrap();
        let c = closure(&[p], &[summary]);
        assert_eq!(
            c[0].rows[0].1,
            Status::Open("60.0 % without the 0 waived points; 60.0 % of all".into())
        );
    }
}
