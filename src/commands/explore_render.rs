//! What `edgelearn explore` shows: the table of points, the Pareto front of training
//! images/s against XC7Z020 LUTs, and its plot.

use super::explore::{Args, Point, SHI_2023_IMAGES_PER_SECOND, THESIS};
use edgelearn_fpga::synth::{num, Target};
use plotters::prelude::*;
use std::path::Path;

const XC7: &str = "xc7z020";

/// The ECP5 parts (speed grades) that some point was placed on, in [`Target::ALL`]'s order.
fn ecp5_parts(points: &[Point]) -> Vec<Target> {
    Target::ALL
        .into_iter()
        .filter(|t| t.is_ecp5() && points.iter().any(|p| p.parts.contains_key(t.name())))
        .collect()
}

/// The LUTs of a point on the XC7Z020, when it was synthesized.
fn luts(p: &Point) -> Option<f64> {
    p.part(XC7).map(|x| x.used("LUT"))
}

/// The points (labels) on the Pareto front: no other point has as few LUTs (XC7Z020) and
/// as many training images/s with one of them strictly better. Sorted by LUTs.
pub fn pareto(points: &[Point]) -> Vec<String> {
    let xy: Vec<(String, f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p.label.clone(), luts(p)?, p.images_per_second?)))
        .collect();
    let mut front: Vec<(String, f64, f64)> = xy
        .iter()
        .filter(|&(_, x, y)| {
            !xy.iter()
                .any(|(_, x2, y2)| x2 <= x && y2 >= y && (x2 < x || y2 > y))
        })
        .cloned()
        .collect();
    front.sort_by(|a, b| a.1.total_cmp(&b.1));
    front.into_iter().map(|(l, _, _)| l).collect()
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or("-".to_string(), f)
}

/// The Fmax column's heading for the ECP5 parts swept.
fn fmax_heading(ecp5: &[Target]) -> String {
    match ecp5 {
        [] | [Target::Ecp5_85k] => "ECP5-85F Fmax".to_string(),
        ts => format!(
            "{} Fmax",
            ts.iter()
                .map(|t| t.short_name())
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    }
}

/// A point's Fmax on each ECP5 part swept, `-` where it has none.
fn fmax_cell(p: &Point, ecp5: &[Target]) -> String {
    match ecp5.is_empty() {
        true => "-".to_string(),
        false => ecp5
            .iter()
            .map(|e| {
                opt(p.part(e.name()).and_then(|e| e.fmax_mhz), |f| {
                    format!("{f:.2} MHz")
                })
            })
            .collect::<Vec<_>>()
            .join(" / "),
    }
}

/// The Markdown table of the sweep, with the reasons for every missing value below it.
pub fn table(config: &str, a: &Args, points: &[Point], front: &[String]) -> String {
    let ecp5 = ecp5_parts(points);
    let fmax_heading = fmax_heading(&ecp5);
    let mut t = format!(
        "# edgelearn explore: {config}, RTL cycles on {} training images\n\n\
         | lanes | cycles/image | conv / FC0 / FC1 cycles | bit-exact | FC0 / FC1 test acc. (1 epoch) | XC7Z020 LUT | FF | DSP48 | BRAM36 | fits XC7Z020 | {fmax_heading} | training images/s |\n\
         |---:|---:|---|---|---|---:|---:|---:|---:|---|---:|---:|\n",
        a.images
    );
    let mut notes = Vec::new();
    for p in points {
        let cores = match (&p.rtl, p.model_core_cycles) {
            (Ok(r), _) => format!(
                "{} / {} / {}",
                r.core_cycles[0], r.core_cycles[1], r.core_cycles[2]
            ),
            (Err(_), Some(m)) => format!("{} / {} / {} (model)", m[0], m[1], m[2]),
            _ => "-".into(),
        };
        let exact = match &p.rtl {
            Ok(r) if r.bit_exact => "yes".to_string(),
            Ok(_) => "**NO**".to_string(),
            Err(_) => "-".to_string(),
        };
        let acc = match &p.golden {
            Ok(g) => g
                .test_accuracy
                .iter()
                .map(|v| format!("{:.2} %", 100.0 * v))
                .collect::<Vec<_>>()
                .join(" / "),
            Err(_) => "-".into(),
        };
        let xc7 = p.part(XC7);
        let used = |m: &str| opt(xc7.map(|x| x.used(m)), num);
        let fits = match xc7 {
            Some(x) if x.fits => format!("yes (tightest {})", x.tightest.as_deref().unwrap_or("-")),
            Some(x) => format!("no: {}", x.reasons.join("; ")),
            None => "-".into(),
        };
        let fmax = fmax_cell(p, &ecp5);
        let ips = opt(p.images_per_second, |v| {
            format!(
                "{v:.0} at {:.1} MHz{}",
                p.clock_mhz.unwrap_or(0.0),
                if p.cycles_source == "model" {
                    " (model)"
                } else {
                    ""
                }
            )
        });
        let star = if front.contains(&p.label) { " *" } else { "" };
        t += &format!(
            "| {}{star} | {} | {cores} | {exact} | {acc} | {} | {} | {} | {} | {fits} | {fmax} | {ips} |\n",
            p.label,
            opt(p.cycles_per_image, |c| format!("{c:.0}")),
            used("LUT"),
            used("FF"),
            used("DSP48E1"),
            used("BRAM36"),
        );
        // Why a value is missing, once per reason.
        let mut why: Vec<(String, String)> = Vec::new();
        let mut add = |what: &str, e: String| match why.iter_mut().find(|w| w.1 == e) {
            Some(w) => w.0 += &format!(", {what}"),
            None => why.push((what.to_string(), e)),
        };
        if let Err(e) = &p.rtl {
            add("RTL", e.clone());
        }
        if let Err(e) = &p.golden {
            add("golden model", e.clone());
        }
        for (part, r) in &p.parts {
            if let Err(e) = r {
                add(part, e.clone());
            }
        }
        for e in &ecp5 {
            if let Some(r) = p.part(e.name()).filter(|r| !r.fits) {
                add(&format!("{} fit", e.name()), r.reasons.join("; "));
            }
        }
        notes.extend(
            why.into_iter()
                .map(|(what, e)| format!("- lanes {}, {what}: {e}", p.label)),
        );
    }
    t += &format!(
        "\n`*` the Pareto front of training images/s against XC7Z020 LUTs. Images/s at the \
         Fmax of the first ECP5 of --part where it was measured, else at {} MHz. References: the thesis, {} \
         cycles/image (FC core 0), {} images/s at 75 MHz; Shi et al. 2023 (XC7Z010), {} images/s.\n",
        num(a.freq),
        THESIS.0,
        THESIS.1,
        SHI_2023_IMAGES_PER_SECOND
    );
    if !notes.is_empty() {
        t += "\nNot measured:\n";
        t += &notes.join("\n");
        t += "\n";
    }
    t
}

/// Training images/s against XC7Z020 LUTs, one mark per point, the Pareto front joined,
/// the XC7Z020's LUTs and the references as lines. PNG, or SVG for a `.svg` path.
pub fn plot(path: &Path, config: &str, points: &[Point], front: &[String]) -> anyhow::Result<()> {
    super::plot::fonts();
    if path.extension().is_some_and(|e| e == "svg") {
        draw(
            SVGBackend::new(path, (900, 600)).into_drawing_area(),
            config,
            points,
            front,
        )
    } else {
        draw(
            BitMapBackend::new(path, (900, 600)).into_drawing_area(),
            config,
            points,
            front,
        )
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    config: &str,
    points: &[Point],
    front: &[String],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let lut_cap = Target::Xc7z020
        .limits()
        .iter()
        .find(|l| l.0 == "LUT")
        .map_or(53_200.0, |l| l.1);
    let xy: Vec<(String, f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p.label.clone(), luts(p)?, p.images_per_second?)))
        .collect();
    let x_max = xy.iter().map(|p| p.1).fold(lut_cap, f64::max) * 1.1;
    let y_max = xy
        .iter()
        .map(|p| p.2)
        .fold(SHI_2023_IMAGES_PER_SECOND, f64::max)
        * 1.15;
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{config}: training images/s against XC7Z020 LUTs"),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(65)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("LUTs (XC7Z020, Yosys)")
        .y_desc("training images/s")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 15))
        .draw()?;
    let grey = RGBColor(120, 120, 120);
    chart.draw_series(LineSeries::new(
        [(lut_cap, 0.0), (lut_cap, y_max)],
        grey.stroke_width(1),
    ))?;
    chart.draw_series(std::iter::once(Text::new(
        "XC7Z020 LUTs",
        (lut_cap - x_max * 0.13, y_max * 0.97),
        ("sans-serif", 14).into_font().color(&grey),
    )))?;
    for (label, y) in [
        ("Shi et al. 2023 (XC7Z010)", SHI_2023_IMAGES_PER_SECOND),
        ("thesis, 4 lanes, 75 MHz", THESIS.1),
    ] {
        chart.draw_series(DashedLineSeries::new(
            [(0.0, y), (x_max, y)],
            6,
            4,
            grey.stroke_width(1),
        ))?;
        chart.draw_series(std::iter::once(Text::new(
            label,
            (x_max * 0.02, y + y_max * 0.035),
            ("sans-serif", 14).into_font().color(&grey),
        )))?;
    }
    let blue = RGBColor(31, 119, 180);
    let line: Vec<(f64, f64)> = front
        .iter()
        .filter_map(|l| xy.iter().find(|p| p.0 == *l).map(|p| (p.1, p.2)))
        .collect();
    chart.draw_series(LineSeries::new(line, blue.stroke_width(2)))?;
    chart.draw_series(xy.iter().map(|(l, x, y)| {
        EmptyElement::at((*x, *y))
            + Circle::new((0, 0), 5, blue.filled())
            + Text::new(format!("L={l}"), (8, -16), ("sans-serif", 15))
    }))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(parts: &str) -> Point {
        serde_json::from_str(&format!(
            r#"{{"lanes": 4, "registered_reads": false, "label": "4", "design": "d",
                "model_core_cycles": null, "rtl": {{"Err": "-"}}, "golden": {{"Err": "-"}},
                "parts": {{{parts}}}, "cycles_per_image": null, "cycles_source": "none",
                "clock_mhz": null, "clock_source": "none", "images_per_second": null}}"#
        ))
        .unwrap()
    }

    fn placed(name: &str, fmax: f64) -> String {
        format!(
            r#""{name}": {{"Ok": {{"part": "{name}", "fits": true, "reasons": [], "checks": [],
                "tightest": null, "fmax_mhz": {fmax}, "critical_path": null, "seconds": 1.0}}}}"#
        )
    }

    #[test]
    fn the_fmax_column_names_each_ecp5_speed_grade_swept() {
        let both = point(&format!(
            "{}, {}",
            placed("ecp5-85k", 66.21),
            placed("ecp5-85k-8", 80.41)
        ));
        let failed = point(r#""ecp5-85k-8": {"Err": "nextpnr stopped"}"#);
        let ecp5 = ecp5_parts(&[both.clone(), failed.clone()]);
        assert_eq!(ecp5, [Target::Ecp5_85k, Target::Ecp5_85k8]);
        assert_eq!(fmax_heading(&ecp5), "ECP5-85F / ECP5-85F-8 Fmax");
        assert_eq!(fmax_cell(&both, &ecp5), "66.21 MHz / 80.41 MHz");
        assert_eq!(fmax_cell(&failed, &ecp5), "- / -");
        assert_eq!(
            ecp5_parts(std::slice::from_ref(&failed)),
            [Target::Ecp5_85k8]
        );
        assert_eq!(fmax_heading(&[Target::Ecp5_85k8]), "ECP5-85F-8 Fmax");
        assert_eq!(fmax_heading(&[]), "ECP5-85F Fmax");
        assert_eq!(fmax_cell(&both, &[]), "-");
    }
}
