//! What a matrix cell says, before it is drawn: its headline line and,
//! where it protects its resource, the clients' belief beneath — the same
//! words for the Markdown and the HTML, each drawing its own marks and
//! links ([`super::cell_markdown::cell_text`], [`super::cell_html::cell_td`]).

use super::cell::{CellResult, CellTrace};
use locksmith_model::engine::harness::{Property, Verdict};

/// Why a cell is n/a: its fault never struck where its column says (the
/// checker: no explored path spent the budget; the simulator: no holder's
/// session expired inside its critical section), so it shows nothing of
/// what its column names.
pub const NEVER_STRUCK: &str = "the fault never struck where the column says";

/// One line of a cell: the verdict its mark draws (with the property,
/// where violated), its words, and the trace it links to, if any (then the
/// link's text is the trace's property).
pub struct Line<'a> {
    pub verdict: Verdict,
    pub property: Option<Property>,
    pub words: String,
    pub trace: Option<&'a CellTrace>,
}

/// The cell's headline line and its belief line (fenced or guarded cells).
pub fn lines(c: &CellResult) -> (Line<'_>, Option<Line<'_>>) {
    let linked = |p: Property| c.trace.as_ref().filter(|t| t.property == p);
    let line = |verdict, property, words: String, trace| Line {
        verdict,
        property,
        words,
        trace,
    };
    let first = match (c.verdict, c.property) {
        (Verdict::Violated, Some(p)) => line(Verdict::Violated, Some(p), p.to_string(), linked(p)),
        (Verdict::Incomplete, Some(p)) => line(
            Verdict::Incomplete,
            Some(p),
            format!("incomplete: {p}"),
            None,
        ),
        (Verdict::NotApplicable, _) => line(
            Verdict::NotApplicable,
            None,
            format!("n/a ({NEVER_STRUCK})"),
            None,
        ),
        // A headline names its property unless it holds.
        _ if c.belief.is_some() => line(Verdict::Holds, None, "holds at the resource".into(), None),
        _ => line(Verdict::Holds, None, "holds".into(), None),
    };
    let second = c.belief.as_ref().map(|b| match b.verdict {
        Verdict::Violated => line(
            b.verdict,
            Some(b.property),
            b.property.to_string(),
            linked(b.property),
        ),
        v => line(v, Some(b.property), v.to_string(), None),
    });
    (first, second)
}
