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

/// Fine-tuning per epoch, the seed's Figs. 5-6 side by side: new-class top-1 and top-5,
/// training top-1 and the original classes' accuracy (left); the mean softmax probability
/// of the new and of the displaced class on the new test images (right).
#[allow(clippy::type_complexity)] // the two panels' table: area, caption, axis, top, lines
pub fn finetune_png(
    path: &Path,
    r: &edgelearn_verif::cnn::finetune::FinetuneReport,
    network: &str,
    arith: &str,
) -> anyhow::Result<()> {
    fonts();
    let root = BitMapBackend::new(path, (1200, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);
    let last = r.epochs.last().map_or(1, |e| e.epoch.max(1)) as f64;
    let series =
        |f: &dyn Fn(&edgelearn_verif::cnn::finetune::EpochReport) -> f64| -> Vec<(f64, f64)> {
            r.epochs.iter().map(|e| (e.epoch as f64, f(e))).collect()
        };
    let blue = RGBColor(31, 119, 180);
    let red = RGBColor(214, 39, 40);
    let green = RGBColor(44, 160, 44);
    let purple = RGBColor(148, 103, 189);
    let panels: [(
        &_,
        String,
        &str,
        f64,
        Vec<(String, RGBColor, Vec<(f64, f64)>)>,
    ); 2] = [
        (
            &left,
            format!(
                "{network}: class {} learns mirrored 9s ({arith})",
                r.new_class
            ),
            "accuracy (%)",
            100.0,
            vec![
                (
                    "new class, test top-1".into(),
                    blue,
                    series(&|e| e.new_top1 * 100.0),
                ),
                (
                    "new class, test top-5".into(),
                    purple,
                    series(&|e| e.new_top5 * 100.0),
                ),
                (
                    "new class, train top-1".into(),
                    green,
                    series(&|e| e.train_top1 * 100.0),
                ),
                (
                    "original classes".into(),
                    red,
                    series(&|e| e.original_accuracy * 100.0),
                ),
            ],
        ),
        (
            &right,
            "mean softmax probability on the new test images".into(),
            "probability",
            1.0,
            vec![
                (
                    format!("P(new class {})", r.new_class),
                    blue,
                    series(&|e| e.p_new),
                ),
                (
                    format!("P(displaced class {})", r.displaced_class),
                    red,
                    series(&|e| e.p_displaced),
                ),
            ],
        ),
    ];
    for (area, caption, ydesc, top, lines) in panels {
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.3f64..(last + 0.3), 0.0f64..(top * 1.02))?;
        chart
            .configure_mesh()
            .x_desc("epoch")
            .y_desc(ydesc)
            .x_labels(last.min(20.0) as usize + 1)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(("sans-serif", 14))
            .draw()?;
        for (name, color, pts) in lines {
            let style = color.stroke_width(3);
            chart
                .draw_series(LineSeries::new(pts.clone(), style))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .position(SeriesLabelPosition::MiddleRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
