//! A trace's own HTML page (`traces/<cell>.html`): the cell's headline,
//! where it came from, the commands that reproduce it, and the trace as
//! text with its failing step marked — one small page per trace, so
//! `index.html` links to them instead of carrying them all — and its
//! sequence diagram, an SVG file beside it that the Markdown page shows too.

use crate::matrix::cell::{CellResult, CellTrace};
use crate::matrix::cell_html::esc;
use crate::matrix::cell_markdown::{source_text, trace_headline};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px;color:#222}\
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}code{font-size:13px}";

/// The page of `c`'s trace `t`; `fault` is the column's label, `about` its
/// legend sentence.
pub fn page(c: &CellResult, t: &CellTrace, fault: &str, about: &str) -> String {
    let headline = trace_headline(c, t).replace("**", "");
    let length = if t.seed.is_some() {
        format!("seed {}: {} trace entries", t.seed.unwrap_or(0), t.steps)
    } else {
        format!("{} steps, the shortest", t.steps)
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{recipe} × {fault}</title>\
         <style>{STYLE}</style></head><body>\n<p><a href=\"../index.html\">← the report</a></p>\n\
         <h1>{recipe} × {fault}</h1>\n<p><b>{headline}</b></p>\n<p>Fault: {about}.</p>\n\
         <p>{length}{why}. {source}.<br>Reproduce the cell: <code>{command}</code><br>This trace: \
         <code>{trace_command}</code><br>Scenario: <a href=\"../{scenario}\">{scenario}</a></p>\n\
         <pre>{text}</pre>\n<h2>Sequence diagram</h2>\n<p><img src=\"{svg}\" alt=\"the sequence diagram \
         of this trace\"></p>\n</body></html>\n",
        recipe = esc(&c.recipe),
        fault = esc(fault),
        headline = esc(&headline),
        about = esc(about),
        why = t.why.as_deref().map_or(String::new(), |w| format!(" ({})", esc(w))),
        source = esc(&source_text(c)),
        command = esc(&c.command),
        trace_command = esc(&t.command),
        scenario = esc(&c.scenario),
        text = esc(&t.text),
        svg = esc(t.svg_page().rsplit('/').next().unwrap_or_default()),
    )
}
