//! The cost charts: one SVG per figure, a line per recipe over the number
//! of clients. plotters with its SVG backend only: text goes out as SVG
//! `<text>` (the viewer picks the font), so no system font is read and the
//! bytes are the same on every machine.

use super::costs::{CostPoint, CostSeries};
use plotters::prelude::*;

/// One chart: its file stem, its title, and the figure it plots.
pub struct Chart {
    pub id: &'static str,
    pub title: &'static str,
    pub value: fn(&CostPoint) -> f64,
    /// Plotted on a logarithmic axis: latencies span three orders of
    /// magnitude, and one slow recipe would flatten the others on a linear
    /// one.
    pub log: bool,
}

/// Every chart, in the report's order.
pub static CHARTS: &[Chart] = &[
    chart(
        "notifications",
        "notifications per contended acquisition",
        |p| p.notifications_per_contended_acquisition,
        false,
    ),
    chart(
        "packets",
        "packets per acquisition (requests + replies + notifications)",
        |p| p.packets_per_acquisition,
        false,
    ),
    chart(
        "wakeups",
        "wake-ups per release with a waiter",
        |p| p.wakeups_per_release,
        false,
    ),
    chart(
        "latency-p50",
        "acquisition latency p50 (ms, log scale)",
        |p| p.latency_p50_ms,
        true,
    ),
    chart(
        "latency-p99",
        "acquisition latency p99 (ms, log scale)",
        |p| p.latency_p99_ms,
        true,
    ),
];

const fn chart(
    id: &'static str,
    title: &'static str,
    value: fn(&CostPoint) -> f64,
    log: bool,
) -> Chart {
    Chart {
        id,
        title,
        value,
        log,
    }
}

/// Colours that stay apart on white; the first eight recipes draw solid
/// lines with round marks, the next eight dashed lines with square ones,
/// so no two lines look alike.
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

/// A point this many times the median of its own line is an outlier (a
/// recipe's one slow size): its value is written beside it.
const OUTLIER: f64 = 5.0;

/// The pixels between two direct labels' baselines.
const LABEL_GAP: i32 = 13;

/// Draws `chart` over `series` (each recipe's points in client order):
/// each line labelled at its right end (labels that would overlap are
/// pushed apart), outliers marked with their value.
pub fn svg(chart: &Chart, series: &[&CostSeries]) -> Result<String, String> {
    // A log chart plots log10 of the value on a linear axis and labels the
    // ticks with the value itself.
    let y_of = |p: &CostPoint| {
        let v = (chart.value)(p);
        if chart.log {
            v.max(1e-3).log10()
        } else {
            v
        }
    };
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(y_of))
        .collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    let (lo, hi) = match (chart.log, lo <= hi) {
        (_, false) => (0.0, 1.0),
        (true, true) => (lo - 0.1, hi + 0.1),
        (false, true) => (0.0, if hi > 0.0 { hi * 1.1 } else { 1.0 }),
    };
    // The x axis ends at the most clients any point has.
    let last = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.clients))
        .max()
        .unwrap_or(1) as f64;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (860, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut ctx = ChartBuilder::on(&root)
            .caption(chart.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..last * 1.4, lo..hi)
            .map_err(|e| e.to_string())?;
        let log = chart.log;
        ctx.configure_mesh()
            .x_desc("clients")
            .x_labels(12)
            .y_labels(8)
            .light_line_style(RGBColor(242, 242, 242))
            .x_label_formatter(&|x| {
                if *x <= last {
                    format!("{x:.0}")
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| {
                if log {
                    value_text(10f64.powf(*y))
                } else {
                    format!("{y:.1}")
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let mut ends = Vec::new();
        for (i, s) in series.iter().enumerate() {
            let (name, points) = (&s.recipe, &s.points);
            let colour = COLOURS[i % COLOURS.len()];
            let dashed = (i / COLOURS.len()) % 2 == 1;
            let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.clients as f64, y_of(p))).collect();
            if dashed {
                ctx.draw_series(DashedLineSeries::new(
                    xy.clone(),
                    7,
                    4,
                    colour.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
                let d = (hi - lo) / 110.0;
                ctx.draw_series(xy.iter().map(|&(x, y)| {
                    Rectangle::new([(x - 0.18, y - d), (x + 0.18, y + d)], colour.filled())
                }))
                .map_err(|e| e.to_string())?;
            } else {
                ctx.draw_series(LineSeries::new(xy.clone(), colour.stroke_width(2)))
                    .map_err(|e| e.to_string())?;
                ctx.draw_series(xy.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                    .map_err(|e| e.to_string())?;
            }
            let mut own: Vec<f64> = points.iter().map(chart.value).collect();
            own.sort_by(f64::total_cmp);
            let median = own.get(own.len() / 2).copied().unwrap_or(0.0);
            for (p, &(x, y)) in points.iter().zip(&xy) {
                let v = (chart.value)(p);
                if median > 0.0 && v > OUTLIER * median {
                    ctx.draw_series(std::iter::once(Text::new(
                        format!("{} ({name})", value_text(v)),
                        (x + 0.4, y),
                        ("sans-serif", 11).into_font().color(&colour),
                    )))
                    .map_err(|e| e.to_string())?;
                }
            }
            if let Some(&end) = xy.last() {
                ends.push((ctx.backend_coord(&end), name.as_str(), colour));
            }
        }
        // Direct labels, top to bottom, at least LABEL_GAP apart: pushed
        // down where they crowd, then up where that ran past the plot's
        // bottom; a label moved off its line's end gets a leader.
        ends.sort_by_key(|&((_, y), name, _)| (y, name));
        let bottom = ctx.backend_coord(&(0.0, lo)).1;
        let mut at: Vec<i32> = Vec::with_capacity(ends.len());
        for &((_, y), _, _) in &ends {
            let floor = at.last().map_or(i32::MIN, |&a| a + LABEL_GAP);
            at.push(y.max(floor));
        }
        let mut ceiling = bottom;
        for a in at.iter_mut().rev() {
            *a = (*a).min(ceiling);
            ceiling = *a - LABEL_GAP;
        }
        for (((x, y), name, colour), label_y) in ends.into_iter().zip(at) {
            if (label_y - y).abs() > 3 {
                root.draw(&PathElement::new(
                    vec![(x + 3, y), (x + 12, label_y)],
                    colour.stroke_width(1),
                ))
                .map_err(|e| e.to_string())?;
            }
            root.draw(&Text::new(
                name.to_string(),
                (x + 14, label_y - 5),
                ("sans-serif", 11).into_font().color(&colour),
            ))
            .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A value as a tick or a mark writes it: no more digits than it needs.
fn value_text(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
