//! The cost charts: one SVG per figure, a line per recipe over the number
//! of clients. plotters with its SVG backend only: text goes out as SVG
//! `<text>` (the viewer picks the font), so no system font is read and the
//! bytes are the same on every machine.

use super::costs::{CostPoint, CLIENTS};
use plotters::prelude::*;

/// One chart: its file stem, its title, and the figure it plots.
pub struct Chart {
    pub id: &'static str,
    pub title: &'static str,
    pub value: fn(&CostPoint) -> f64,
}

/// Every chart, in the report's order.
pub static CHARTS: &[Chart] = &[
    chart(
        "notifications",
        "notifications per contended acquisition",
        |p| p.notifications_per_contended_acquisition,
    ),
    chart(
        "packets",
        "packets per acquisition (requests + replies + notifications)",
        |p| p.packets_per_acquisition,
    ),
    chart("wakeups", "wake-ups per release with a waiter", |p| {
        p.wakeups_per_release
    }),
    chart("latency-p50", "acquisition latency p50 (ms)", |p| {
        p.latency_p50_ms
    }),
    chart("latency-p99", "acquisition latency p99 (ms)", |p| {
        p.latency_p99_ms
    }),
];

const fn chart(id: &'static str, title: &'static str, value: fn(&CostPoint) -> f64) -> Chart {
    Chart { id, title, value }
}

/// Colours that stay apart on white, one per recipe (cycled).
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// Draws `chart` over `series` (recipe name, its points in client order).
pub fn svg(chart: &Chart, series: &[(String, Vec<CostPoint>)]) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (720, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let top = series
            .iter()
            .flat_map(|(_, ps)| ps.iter().map(chart.value))
            .fold(0.0f64, f64::max);
        let top = if top > 0.0 { top * 1.1 } else { 1.0 };
        let last = CLIENTS[CLIENTS.len() - 1] as f64;
        let mut ctx = ChartBuilder::on(&root)
            .caption(chart.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..last + 1.0, 0.0..top)
            .map_err(|e| e.to_string())?;
        ctx.configure_mesh()
            .x_desc("clients")
            .x_labels(12)
            .y_labels(8)
            .light_line_style(RGBColor(242, 242, 242))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (name, points)) in series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let xy: Vec<(f64, f64)> = points
                .iter()
                .map(|p| (p.clients as f64, (chart.value)(p)))
                .collect();
            ctx.draw_series(LineSeries::new(xy.clone(), colour.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            ctx.draw_series(xy.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
                .map_err(|e| e.to_string())?;
        }
        ctx.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
