//! A trace's sequence diagram drawn as SVG, by our own hand: a picture any
//! browser shows offline, with no script (Mermaid needs one) and no
//! dependency. It reads the small Mermaid subset every backend's trace
//! already writes (`participant`, `Note over`, `->>` requests and `-->>`
//! replies), so one renderer serves all of them and the CLI's `--mermaid`
//! stays the diagram's single source.
//!
//! Text is monospace so its width is known without a font: the picture is
//! as wide as its longest line, and a label that crosses other lanes keeps
//! a white halo so it stays readable over their lifelines.

use std::fmt::Write as _;

/// At most this many rows are drawn: the last ones, where the violation
/// is (a simulator trace runs to a thousand entries; the text trace beside
/// the picture is whole).
pub const ROWS_MAX: usize = 120;

const FONT: f64 = 11.0;
/// DejaVu Sans Mono's advance (0.602 em), the monospace face Debian's and
/// most browsers' `monospace` resolves to.
const CHAR: f64 = 0.602 * FONT;
const LANE: i64 = 96;
const LEFT: i64 = 48;
const TOP: i64 = 44;
const ROW: i64 = 20;

/// One participant's lane.
struct Lane {
    id: String,
    label: String,
}

/// One row of the diagram.
enum Row {
    Note {
        lane: usize,
        text: String,
    },
    Message {
        from: usize,
        to: usize,
        reply: bool,
        text: String,
    },
}

/// The diagram of `mermaid` as an SVG document, `title` its accessible
/// name; an error names the line this renderer does not read.
pub fn svg(mermaid: &str, title: &str) -> Result<String, String> {
    let (lanes, rows) = parse(mermaid)?;
    let left_out = rows.len().saturating_sub(ROWS_MAX);
    Ok(render(&lanes, &rows[left_out..], left_out, title))
}

fn parse(mermaid: &str) -> Result<(Vec<Lane>, Vec<Row>), String> {
    let mut lanes: Vec<Lane> = Vec::new();
    let mut rows = Vec::new();
    let find = |lanes: &[Lane], id: &str, line: &str| {
        lanes
            .iter()
            .position(|l| l.id == id.trim())
            .ok_or_else(|| format!("sequence diagram: `{line}` names an undeclared participant"))
    };
    for line in mermaid.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line == "sequenceDiagram" {
            continue;
        }
        if let Some(p) = line.strip_prefix("participant ") {
            let (id, label) = p.split_once(" as ").unwrap_or((p, p));
            lanes.push(Lane {
                id: id.trim().to_string(),
                label: label.trim().to_string(),
            });
        } else if let Some(n) = line.strip_prefix("Note over ") {
            let (who, text) = n
                .split_once(':')
                .ok_or_else(|| format!("sequence diagram: `{line}` has no `:`"))?;
            let first = who.split(',').next().unwrap_or(who);
            rows.push(Row::Note {
                lane: find(&lanes, first, line)?,
                text: text.trim().to_string(),
            });
        } else if let Some((ends, text)) = line.split_once(':') {
            let (from, to, reply) = if let Some((a, b)) = ends.split_once("-->>") {
                (a, b, true)
            } else if let Some((a, b)) = ends.split_once("->>") {
                (a, b, false)
            } else {
                return Err(format!("sequence diagram: `{line}` is not a line it draws"));
            };
            rows.push(Row::Message {
                from: find(&lanes, from, line)?,
                to: find(&lanes, to, line)?,
                reply,
                text: text.trim().to_string(),
            });
        } else {
            return Err(format!("sequence diagram: `{line}` is not a line it draws"));
        }
    }
    if lanes.is_empty() {
        return Err("sequence diagram: no participant".into());
    }
    Ok((lanes, rows))
}

fn lane_x(i: usize) -> i64 {
    LEFT + LANE * i as i64
}

/// Columns a monospace face gives `text`: wide (CJK) characters take two.
fn columns(text: &str) -> usize {
    text.chars()
        .map(|c| {
            let wide = matches!(c, '\u{1100}'..='\u{115F}' | '\u{2E80}'..='\u{A4CF}'
                | '\u{AC00}'..='\u{D7A3}' | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}'
                | '\u{FF00}'..='\u{FF60}' | '\u{FFE0}'..='\u{FFE6}');
            1 + usize::from(wide)
        })
        .sum()
}

fn text_end(x: i64, text: &str) -> i64 {
    x + (columns(text) as f64 * CHAR).ceil() as i64
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Lane colours: the clients' in turn, any lane that is not a client
/// (the server, the resource) grey.
fn colour(lane: &Lane, clients_before: usize) -> &'static str {
    const CLIENTS: [&str; 6] = [
        "#1f5fa8", "#b5461a", "#2d7d2d", "#7b3fa0", "#a07a00", "#0f7b7b",
    ];
    if is_client(lane) {
        CLIENTS[clients_before % CLIENTS.len()]
    } else {
        "#555"
    }
}

/// Whether a lane is a client's (`c1`, `c2`, …).
fn is_client(lane: &Lane) -> bool {
    lane.id
        .strip_prefix('c')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn render(lanes: &[Lane], rows: &[Row], left_out: usize, title: &str) -> String {
    let first = TOP + ROW * i64::from(left_out > 0);
    let bottom = first + ROW * rows.len() as i64 + 8;
    let mut width = lane_x(lanes.len() - 1) + LANE / 2;
    let mut body = String::new();
    if left_out > 0 {
        let text = format!("… {left_out} earlier rows left out (the text trace is whole)");
        let x = lane_x(0) + 7;
        let _ = writeln!(body, "<text x=\"{x}\" y=\"{}\">{text}</text>", TOP + 12);
        width = width.max(text_end(x, &text) + 8);
    }
    for (i, row) in rows.iter().enumerate() {
        let y = first + ROW * i as i64;
        let (x, text, lane) = match row {
            Row::Note { lane, text } => {
                let _ = write!(
                    body,
                    "<path class=\"l{lane}\" d=\"M{} {}h6v6h-6z\"/>",
                    lane_x(*lane) - 3,
                    y + 6
                );
                (lane_x(*lane) + 7, text, *lane)
            }
            Row::Message {
                from,
                to,
                reply,
                text,
            } => {
                let (a, b) = (lane_x(*from), lane_x(*to));
                let short = if b > a { -2 } else { 2 };
                let _ = write!(
                    body,
                    "<path class=\"{}\" d=\"M{a} {}H{}\"/>",
                    if *reply { "r" } else { "m" },
                    y + 17,
                    b + short
                );
                // Coloured as the client it goes to or comes from.
                let client = if is_client(&lanes[*from]) { *from } else { *to };
                (a.min(b) + 7, text, client)
            }
        };
        let _ = writeln!(
            body,
            "<text class=\"t{lane}\" x=\"{x}\" y=\"{}\">{}</text>",
            y + 12,
            esc(text)
        );
        width = width.max(text_end(x, text) + 8);
    }
    let mut style = String::from(
        "text{font:11px monospace;paint-order:stroke;stroke:#fff;stroke-width:4px;fill:#222}\
         .h{font-weight:bold;text-anchor:middle}.v{stroke:#ddd}\
         .m,.r{stroke:#444;marker-end:url(#a)}.r{stroke-dasharray:4 3}",
    );
    let mut clients = 0;
    for (i, lane) in lanes.iter().enumerate() {
        let c = colour(lane, clients);
        clients += usize::from(c != "#555");
        let _ = write!(style, ".t{i}{{fill:{c}}}.l{i}{{fill:{c}}}");
    }
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{bottom}\" \
         viewBox=\"0 0 {width} {bottom}\" role=\"img\"><title>{}</title><style>{style}</style>\
         <defs><marker id=\"a\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"8\" \
         markerHeight=\"8\" orient=\"auto\"><path d=\"M0 0L8 4L0 8z\" fill=\"#444\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
        esc(title)
    );
    for (i, lane) in lanes.iter().enumerate() {
        let x = lane_x(i);
        let _ = writeln!(
            out,
            "<path class=\"v\" d=\"M{x} {}V{bottom}\"/><text class=\"h t{i}\" x=\"{x}\" y=\"20\">{}</text>",
            TOP - 12,
            esc(&lane.label)
        );
    }
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIAGRAM: &str = "sequenceDiagram\n    participant c1\n    participant c2\n    \
                           participant zk as ZooKeeper\n    Note over c1: main: lock\n    \
                           c1->>zk: create(/lock) → ok\n    zk-->>c1: reply <ok> & done\n";

    /// Every row is drawn in order: a note as a mark on its lane, a request
    /// as a solid arrow, a reply as a dashed one; text is escaped.
    #[test]
    fn each_row_is_drawn_on_its_lanes() {
        let s = svg(DIAGRAM, "t").expect("our own subset");
        assert!(s.contains(">ZooKeeper</text>"), "{s}");
        assert!(s.contains("<path class=\"l0\""), "{s}");
        let request = s.find("class=\"m\"").expect("a request arrow");
        let reply = s.find("class=\"r\"").expect("a reply arrow");
        assert!(request < reply);
        assert!(s.contains("reply &lt;ok&gt; &amp; done"), "{s}");
        // zk is lane 2 (x = 48 + 192 = 240); the request ends short of it.
        assert!(s.contains("d=\"M48 81H238\""), "{s}");
    }

    /// A long trace keeps its last rows and says how many it left out.
    #[test]
    fn a_long_trace_keeps_its_end() {
        let mut d = String::from("sequenceDiagram\n participant c1\n");
        for i in 0..ROWS_MAX + 5 {
            let _ = writeln!(d, " Note over c1: row {i}");
        }
        let s = svg(&d, "t").expect("our own subset");
        assert!(s.contains("… 5 earlier rows left out"), "{s}");
        assert!(!s.contains(">row 4<"), "{s}");
        assert!(s.contains(">row 5<") && s.contains(&format!(">row {}<", ROWS_MAX + 4)));
    }

    /// The picture is as wide as its longest label, wide characters twice.
    #[test]
    fn the_width_follows_the_longest_label() {
        let narrow = svg("participant c1\nNote over c1: ab", "t").expect("ok");
        let wide = svg(
            "participant c1\nNote over c1: 锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁锁",
            "t",
        )
        .expect("ok");
        let w = |s: &str| {
            s.split("width=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .map(str::to_string)
        };
        assert_eq!(w(&narrow).as_deref(), Some("96"));
        assert_eq!(
            w(&wide).as_deref(),
            Some(&*format!("{}", 48 + 7 + (40.0 * CHAR).ceil() as i64 + 8))
        );
    }

    /// A line outside the subset, or an undeclared participant, is an
    /// error that quotes it, not a silently wrong picture.
    #[test]
    fn a_line_it_does_not_draw_is_an_error() {
        let e = svg("participant c1\nloop forever", "t").expect_err("not ours");
        assert!(e.contains("`loop forever`"), "{e}");
        let e = svg("participant c1\nc1->>zk: x", "t").expect_err("undeclared");
        assert!(e.contains("undeclared"), "{e}");
    }
}
