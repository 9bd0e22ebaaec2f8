//! PNG plots (plotters, with a font bundled by `epaint_default_fonts`, so no system fonts).

use edgelearn_verif::lel::train::TrainReport;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

static FONT: Once = Once::new();

/// Register the bundled font as "sans-serif" once.
pub fn fonts() {
    FONT.call_once(|| {
        let _ = register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

/// Train and test accuracy per epoch, one line per core and split.
pub fn accuracy_png(path: &Path, r: &TrainReport) -> anyhow::Result<()> {
    fonts();
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let epochs = r.epochs.len().max(1);
    let all: Vec<f64> = r
        .epochs
        .iter()
        .flat_map(|e| e.train_accuracy.iter().chain(&e.test_accuracy))
        .map(|v| v * 100.0)
        .collect();
    let lo = all
        .iter()
        .cloned()
        .fold(100.0f64, f64::min)
        .floor()
        .clamp(0.0, 95.0)
        - 5.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: accuracy per epoch ({:?}, {} training images)",
                r.config.name, r.mode, r.train_images
            ),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.5f64..(epochs as f64 + 0.5), lo.max(0.0)..100.0f64)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("accuracy (%)")
        .x_labels(epochs.min(20))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", 15))
        .draw()?;
    let cores = r.epochs.first().map(|e| e.test_accuracy.len()).unwrap_or(0);
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
    ];
    for core in 0..cores {
        let color = palette[core % palette.len()];
        for (split, dashed) in [("test", false), ("train", true)] {
            let pts: Vec<(f64, f64)> = r
                .epochs
                .iter()
                .map(|e| {
                    let v = if split == "test" {
                        e.test_accuracy[core]
                    } else {
                        e.train_accuracy[core]
                    };
                    (e.epoch as f64, v * 100.0)
                })
                .collect();
            let style = if dashed {
                color.mix(0.5).stroke_width(2)
            } else {
                color.stroke_width(3)
            };
            chart
                .draw_series(LineSeries::new(pts.clone(), style))?
                .label(format!("FC core {core} {split}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            let marker = if dashed {
                color.stroke_width(2)
            } else {
                color.filled()
            };
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, marker)))?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    root.present()?;
    Ok(())
}
