//! The tools' reports as data: Yosys `stat -json` (cells per module, sub-modules resolved)
//! and nextpnr's `--report` JSON (utilization, Fmax, critical path).

use super::{Fmax, PathSummary, Pnr};
use serde_json::Value;
use std::collections::BTreeMap;

/// The cells of every module in a Yosys `stat -json` report: module -> type -> count, with
/// Yosys's leading `\` taken off names.
pub fn parse_stat(text: &str) -> Result<BTreeMap<String, BTreeMap<String, u64>>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let modules = v
        .get("modules")
        .and_then(Value::as_object)
        .ok_or("no `modules` object")?;
    let mut out = BTreeMap::new();
    for (name, m) in modules {
        let by_type = m
            .get("num_cells_by_type")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("module {name} has no `num_cells_by_type`"))?;
        let mut cells = BTreeMap::new();
        for (t, c) in by_type {
            let c = c
                .as_u64()
                .ok_or_else(|| format!("{name}: {t} is not a count"))?;
            cells.insert(unescape(t).to_string(), c);
        }
        out.insert(unescape(name).to_string(), cells);
    }
    Ok(out)
}

fn unescape(name: &str) -> &str {
    name.strip_prefix('\\').unwrap_or(name)
}

/// The cells of `module` with every sub-module instance replaced by that module's cells
/// (recursively); `$scopeinfo` and other `$` bookkeeping cells are dropped.
pub fn resolved_cells(
    modules: &BTreeMap<String, BTreeMap<String, u64>>,
    module: &str,
) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Some(cells) = modules.get(module) else {
        return out;
    };
    for (t, c) in cells {
        if modules.contains_key(t) && t != module {
            for (st, sc) in resolved_cells(modules, t) {
                *out.entry(st).or_insert(0) += sc * c;
            }
        } else if !t.starts_with('$') {
            *out.entry(t.clone()).or_insert(0) += c;
        }
    }
    out
}

/// How many instances of `part` the hierarchy under `module` holds.
pub(super) fn instances(
    modules: &BTreeMap<String, BTreeMap<String, u64>>,
    module: &str,
    part: &str,
) -> u64 {
    let Some(cells) = modules.get(module) else {
        return 0;
    };
    cells
        .iter()
        .filter(|(t, _)| modules.contains_key(*t) && *t != module)
        .map(|(t, c)| {
            c * if t == part {
                1
            } else {
                instances(modules, t, part)
            }
        })
        .sum()
}

/// `a - k * b` per cell type (the top's own cells: the whole minus its parts).
pub(super) fn minus(
    a: &BTreeMap<String, u64>,
    b: &BTreeMap<String, u64>,
    k: u64,
) -> BTreeMap<String, u64> {
    a.iter()
        .map(|(t, c)| {
            (
                t.clone(),
                c.saturating_sub(k * b.get(t).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, c)| *c > 0)
        .collect()
}

/// Utilization, Fmax and critical path of the clock `clock` from nextpnr's `--report` JSON.
pub fn parse_pnr(text: &str) -> Result<Pnr, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut utilization = BTreeMap::new();
    for (t, u) in v
        .get("utilization")
        .and_then(Value::as_object)
        .ok_or("no `utilization` object")?
    {
        let get = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        if get("used") > 0 {
            utilization.insert(t.clone(), (get("used"), get("available")));
        }
    }
    let fmax = v
        .get("fmax")
        .and_then(Value::as_object)
        .and_then(|m| m.iter().find(|(name, _)| is_clock(name)))
        .map(|(name, f)| Fmax {
            clock: name.clone(),
            achieved_mhz: f.get("achieved").and_then(Value::as_f64).unwrap_or(0.0),
            target_mhz: f.get("constraint").and_then(Value::as_f64).unwrap_or(0.0),
        });
    let critical_path = v
        .get("critical_paths")
        .and_then(Value::as_array)
        .and_then(|ps| {
            ps.iter().find(|p| {
                let s = |k| p.get(k).and_then(Value::as_str).unwrap_or("");
                s("from").split(' ').any(is_clock) && s("to").split(' ').any(is_clock)
            })
        })
        .and_then(summarise_path);
    Ok(Pnr {
        utilization,
        fmax,
        critical_path,
        out_of_context: false,
        seconds: 0.0,
    })
}

/// A nextpnr clock name for the port `clock` (`clock`, `$glbnet$clock$TRELLIS_IO_IN`,
/// `clock$SB_IO_IN_$glb_clk`).
pub(super) fn is_clock(name: &str) -> bool {
    name.split('$').any(|s| s == "clock")
}

fn summarise_path(p: &Value) -> Option<PathSummary> {
    let segs = p.get("path")?.as_array()?;
    let end = |s: &Value, k: &str| {
        let e = s.get(k)?;
        Some(format!(
            "{}.{}",
            e.get("cell")?.as_str()?,
            e.get("port")?.as_str()?
        ))
    };
    fn kind(s: &Value) -> &str {
        s.get("type").and_then(Value::as_str).unwrap_or("")
    }
    let delay = |s: &Value| s.get("delay").and_then(Value::as_f64).unwrap_or(0.0);
    let logic: Vec<&Value> = segs.iter().filter(|s| kind(s) == "logic").collect();
    let cells = logic
        .iter()
        .filter_map(|s| Some(s.get("from")?.get("cell")?.as_str()?.to_string()))
        .collect();
    Some(PathSummary {
        start: end(segs.first()?, "from")?,
        end: end(segs.last()?, "to")?,
        logic_levels: logic.len(),
        delay_ns: segs.iter().map(delay).sum(),
        routing_ns: segs
            .iter()
            .filter(|s| kind(s) == "routing")
            .map(delay)
            .sum(),
        cells,
    })
}

/// The first `ERROR:` line of a nextpnr log.
pub fn first_error(log: &str) -> Option<String> {
    log.lines()
        .find_map(|l| l.trim().strip_prefix("ERROR:"))
        .map(|l| l.trim().to_string())
}

/// A version line without its build details: `Yosys 0.70 (git sha1 28ba3cb92, Release,
/// Clang ...)` -> `Yosys 0.70 (git sha1 28ba3cb92)`.
pub fn short_version(line: &str) -> String {
    match (line.find(" (git sha1 "), line.find(',')) {
        (Some(g), Some(c)) if c > g => format!("{})", &line[..c]),
        _ => line.replace('"', ""),
    }
}
