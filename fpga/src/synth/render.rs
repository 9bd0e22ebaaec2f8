//! The report in Markdown: resource tables beside the thesis's Table 4.6, the fit verdict,
//! place-and-route lines beside the thesis's clock.

use super::{num, PathSummary, Pnr, Report, Resources, Target, THESIS_CLOCK, THESIS_TABLE_4_6};

/// The thesis's Table 4.6 row of a module label (`conv core`, `FC core 0`, `FC core 1`,
/// `platform`).
pub fn thesis_row(label: &str) -> Option<(u32, f64)> {
    THESIS_TABLE_4_6
        .iter()
        .find(|(m, _, _)| *m == label)
        .map(|(_, s, b)| (*s, *b))
}

/// One row of a resource table: its label, the Table 4.6 row it sits beside, its resources.
pub struct Row<'a> {
    /// The label.
    pub label: String,
    /// The thesis's module label, when the thesis has this row.
    pub thesis: Option<&'static str>,
    /// The resources.
    pub resources: &'a Resources,
}

/// A Markdown table of resources, with the thesis's Table 4.6 beside it when any row has
/// a thesis figure.
pub fn resource_table(target: Target, rows: &[Row]) -> String {
    let names = target.metric_names();
    let thesis = rows.iter().any(|r| r.thesis.is_some());
    let extra = if thesis {
        " thesis slices | thesis BRAM tiles |"
    } else {
        ""
    };
    let mut s = format!("| part | {} |{extra}\n", names.join(" | "));
    let cols = names.len() + if thesis { 2 } else { 0 };
    s += &format!("|---|{}\n", "---|".repeat(cols));
    for r in rows {
        let cells: Vec<String> = names.iter().map(|n| num(r.resources.get(n))).collect();
        let t = match r.thesis.and_then(thesis_row) {
            Some((sl, b)) => format!(" {sl} | {} |", num(b)),
            None if thesis => " - | - |".to_string(),
            None => String::new(),
        };
        s += &format!("| {} | {} |{t}\n", r.label, cells.join(" | "));
    }
    s
}

/// The verdict line: `FITS` or `DOES NOT FIT` with the reasons.
pub fn verdict(report: &Report) -> String {
    let checks: Vec<String> = report
        .fit
        .checks
        .iter()
        .map(|c| format!("{} {} / {}", c.metric, num(c.used), num(c.limit)))
        .collect();
    if report.fit.fits {
        format!("FITS the {}: {}", report.device, checks.join(", "))
    } else {
        format!(
            "DOES NOT FIT the {}: {} (limits: {})",
            report.device,
            report.fit.reasons.join("; "),
            checks.join(", ")
        )
    }
}

/// Place-and-route lines: utilization, Fmax beside the thesis's clock, the critical path
/// when the constraint is missed.
pub fn pnr_text(pnr: &Pnr) -> String {
    let used: Vec<String> = pnr
        .utilization
        .iter()
        .map(|(t, (u, a))| format!("{t} {u}/{a}"))
        .collect();
    let mut s = format!(
        "nextpnr utilization{}: {}\n",
        if pnr.out_of_context {
            " (out of context: the ports exceed the package's pins, no I/O buffers)"
        } else {
            ""
        },
        used.join(", ")
    );
    match &pnr.fmax {
        Some(f) => {
            let ok = f.achieved_mhz >= f.target_mhz;
            s += &format!(
                "Fmax of clock `clock` ({}): {:.2} MHz ({} at {} MHz)\n",
                f.clock,
                f.achieved_mhz,
                if ok { "meets" } else { "FAILS" },
                num(f.target_mhz)
            );
            if !ok {
                if let Some(p) = &pnr.critical_path {
                    s += &path_text(p);
                }
            }
        }
        None => s += "Fmax: nextpnr reported no clock `clock` (no register on it)\n",
    }
    s
}

/// The thesis's clock beside ours, and why they do not compare directly.
pub fn thesis_clock_text() -> String {
    let (mhz, wns) = THESIS_CLOCK;
    format!(
        "Thesis: {mhz} MHz with WNS {wns} ns (about {:.1} MHz) on the XC7Z020 with Vivado; \
         the fabrics differ (ECP5/iCE40 LUT4 against 7-series LUT6, other routing and \
         block RAM), so the Fmax figures are not like for like.\n",
        1000.0 / (1000.0 / mhz - wns)
    )
}

fn path_text(p: &PathSummary) -> String {
    format!(
        "Critical path: {:.2} ns ({:.2} ns routing), {} logic levels, from {} to {}\n",
        p.delay_ns, p.routing_ns, p.logic_levels, p.start, p.end
    )
}

/// The whole report of a run (and of the cores run alone, each with its label), in
/// Markdown; `platform` when the design is a platform (thesis Table 4.6 applies).
pub fn render(report: &Report, platform: bool, cores: &[(String, Report)]) -> String {
    let target = Target::parse(report.target).unwrap_or(Target::Xc7z020);
    let mut s = format!(
        "### `{}` on {} ({})\n\n{}; synthesis {:.1} s{}{}.\n\n",
        report.top,
        report.target,
        report.device,
        report.tools.join("; "),
        report.synth_seconds,
        if report.from_cache {
            " (an earlier run's, from the build cache)"
        } else {
            ""
        },
        report.pnr.as_ref().map_or(String::new(), |p| format!(
            ", place and route {:.1} s",
            p.seconds
        ))
    );
    let thesis_label = |l: &str| THESIS_TABLE_4_6.iter().map(|t| t.0).find(|t| *t == l);
    let mut rows: Vec<Row> = report
        .parts
        .iter()
        .map(|p| Row {
            label: p.label.clone(),
            thesis: thesis_label(&p.label),
            resources: &p.resources,
        })
        .collect();
    rows.push(Row {
        label: "total".into(),
        thesis: platform.then_some("platform"),
        resources: &report.total,
    });
    for (label, c) in cores {
        rows.push(Row {
            label: format!("`{}` alone", c.top),
            thesis: thesis_label(label),
            resources: &c.total,
        });
    }
    s += &resource_table(target, &rows);
    s += "\n";
    if platform || !cores.is_empty() {
        s += "Thesis Table 4.6 (Vivado, XC7Z020): slices 1188 / 1818 / 1500 (conv / FC0 / FC1, \
              platform 4868 of 13,300), BRAM tiles 17 / 99 / 19 (platform 137.5 of 140). Slices \
              and LUTs are different units (a 7-series slice holds 4 LUT6 and 8 FFs); BRAM \
              tiles compare directly with BRAM36 = RAMB36E1 + RAMB18E1 / 2 (an ECP5 DP16KD \
              holds 18 Kb, half a RAMB36E1).\n\n";
    }
    if let Some(p) = &report.pnr {
        s += &pnr_text(p);
    }
    for (_, c) in cores {
        s += &format!("\n`{}` alone: {}\n", c.top, verdict(c));
        if let Some(p) = &c.pnr {
            s += &pnr_text(p);
        }
    }
    if report.pnr.is_some() || cores.iter().any(|(_, c)| c.pnr.is_some()) {
        s += &format!("\n{}", thesis_clock_text());
    }
    s + &format!("\n{}\n\n", verdict(report))
}
