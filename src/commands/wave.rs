//! Waveform pictures of VCD signals (SVG or PNG), readable without GTKWave.

use super::plot::fonts;
use anyhow::{anyhow, bail};
use edgelearn_sim::vcd::{Val, Waveform};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const NAME_W: i32 = 230;
const ROW_H: i32 = 46;
const TOP: i32 = 50;
const WIDTH: u32 = 1500;

struct Row {
    name: String,
    width: u32,
    changes: Vec<(u64, Val)>,
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    w: &Waveform,
    rows: &[Row],
    edges: &[(usize, u64)],
    lo: u64,
    hi: u64,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let plot_w = WIDTH as i32 - NAME_W - 20;
    let x_of = |t: u64| {
        NAME_W + ((t.saturating_sub(lo)) as f64 / (hi - lo) as f64 * plot_w as f64).round() as i32
    };
    let text = |s: u32| ("sans-serif", s).into_font();
    root.draw(&Text::new(title.to_string(), (10, 12), text(18)))?;
    let bottom = TOP + ROW_H * rows.len() as i32;
    // Clock edges: light vertical lines with cycle numbers.
    let step = (edges.len() / 40).max(1);
    for (k, (cycle, t)) in edges.iter().enumerate() {
        let x = x_of(*t);
        root.draw(&PathElement::new(
            vec![(x, TOP - 6), (x, bottom)],
            RGBColor(225, 225, 235),
        ))?;
        if k % step == 0 {
            root.draw(&Text::new(
                cycle.to_string(),
                (x + 2, TOP - 18),
                text(11).color(&RGBColor(90, 90, 140)),
            ))?;
        }
    }
    for (r, row) in rows.iter().enumerate() {
        let y0 = TOP + r as i32 * ROW_H;
        let (hi_y, lo_y, mid) = (y0 + 10, y0 + ROW_H - 10, y0 + ROW_H / 2);
        root.draw(&Text::new(row.name.clone(), (8, mid - 7), text(14)))?;
        root.draw(&PathElement::new(
            vec![(NAME_W - 4, y0 + ROW_H), (WIDTH as i32 - 10, y0 + ROW_H)],
            RGBColor(240, 240, 240),
        ))?;
        // Segments [start, end) with their values, clipped to the window.
        let mut segs: Vec<(u64, u64, Option<&Val>)> = vec![];
        let first = row.changes.partition_point(|(t, _)| *t <= lo);
        let mut cur: Option<&Val> = if first > 0 {
            Some(&row.changes[first - 1].1)
        } else {
            None
        };
        let mut start = lo;
        for (t, v) in &row.changes[first..] {
            if *t > hi {
                break;
            }
            segs.push((start, *t, cur));
            cur = Some(v);
            start = *t;
        }
        segs.push((start, hi, cur));
        let green = RGBColor(0, 130, 60);
        let red = RGBColor(200, 30, 30);
        let unknown = |v: Option<&Val>| match v {
            None => true,
            Some(Val::Bits(b)) => b.contains('x') || b.contains('z'),
            _ => false,
        };
        if row.width == 1 {
            let mut pts = vec![];
            for (a, b, v) in &segs {
                let y = match v {
                    Some(Val::Bits(s)) if s == "1" => hi_y,
                    Some(Val::Bits(s)) if s == "0" => lo_y,
                    _ => mid,
                };
                pts.push((x_of(*a), y));
                pts.push((x_of(*b), y));
                if unknown(*v) {
                    root.draw(&Rectangle::new(
                        [(x_of(*a), hi_y), (x_of(*b), lo_y)],
                        red.mix(0.15).filled(),
                    ))?;
                }
            }
            root.draw(&PathElement::new(pts, green.stroke_width(2)))?;
        } else {
            for (a, b, v) in &segs {
                let (xa, xb) = (x_of(*a), x_of(*b));
                if xb <= xa {
                    continue;
                }
                let s = 3.min((xb - xa) / 2);
                let color = if unknown(*v) { red } else { green };
                let shape = vec![
                    (xa, mid),
                    (xa + s, hi_y),
                    (xb - s, hi_y),
                    (xb, mid),
                    (xb - s, lo_y),
                    (xa + s, lo_y),
                    (xa, mid),
                ];
                if unknown(*v) {
                    root.draw(&Polygon::new(shape.clone(), red.mix(0.15).filled()))?;
                }
                root.draw(&PathElement::new(shape, color.stroke_width(2)))?;
                let label = v.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
                let chars = label.len() as i32;
                if xb - xa > chars * 8 + 6 {
                    root.draw(&Text::new(
                        label,
                        ((xa + xb) / 2 - chars * 4, mid - 7),
                        text(13),
                    ))?;
                }
            }
        }
    }
    // Time axis.
    root.draw(&PathElement::new(
        vec![(NAME_W, bottom + 8), (WIDTH as i32 - 20, bottom + 8)],
        BLACK,
    ))?;
    for k in 0..=10u64 {
        let t = lo + (hi - lo) * k / 10;
        let x = x_of(t);
        root.draw(&PathElement::new(
            vec![(x, bottom + 4), (x, bottom + 12)],
            BLACK,
        ))?;
        root.draw(&Text::new(t.to_string(), (x - 20, bottom + 16), text(12)))?;
    }
    let unit = w
        .timescale
        .as_ref()
        .map(|(n, u)| format!("time ({n}{u})"))
        .unwrap_or_else(|| "time".into());
    root.draw(&Text::new(unit, (8, bottom + 16), text(12)))?;
    root.present()?;
    Ok(())
}

/// Draw `signals` of `w` between `from` and `to` into `out` (.svg or .png).
pub fn plot(
    w: &Waveform,
    w_name: &str,
    signals: &[String],
    from: Option<u64>,
    to: Option<u64>,
    clock: Option<&str>,
    out: &Path,
) -> anyhow::Result<()> {
    let mut rows = vec![];
    for s in signals {
        let i = w.resolve(s).map_err(|e| anyhow!(e))?;
        let sig = &w.signals[i];
        rows.push(Row {
            name: sig.leaf().to_string(),
            width: sig.width,
            changes: w.changes(i).to_vec(),
        });
    }
    let lo = from.unwrap_or(0);
    let hi = to.unwrap_or(w.end_time);
    if hi <= lo {
        bail!(
            "the time window is empty: --from {lo} --to {hi} (the file ends at {})",
            w.end_time
        );
    }
    let edges: Vec<(usize, u64)> = match clock {
        Some(c) => {
            let ci = w.resolve(c).map_err(|e| anyhow!(e))?;
            w.edges_between(ci, lo, hi)
        }
        None => vec![],
    };
    let height = (TOP + ROW_H * rows.len() as i32 + 50) as u32;
    let title = format!("{}: time {} .. {}", w_name, lo, hi);
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "svg" => {
            let root = SVGBackend::new(out, (WIDTH, height)).into_drawing_area();
            draw(&root, w, &rows, &edges, lo, hi, &title)
                .map_err(|e| anyhow!("drawing {}: {e:?}", out.display()))?;
        }
        "png" => {
            fonts();
            let root = BitMapBackend::new(out, (WIDTH, height)).into_drawing_area();
            draw(&root, w, &rows, &edges, lo, hi, &title)
                .map_err(|e| anyhow!("drawing {}: {e:?}", out.display()))?;
        }
        _ => bail!("{}: the picture must end in .svg or .png", out.display()),
    }
    Ok(())
}
