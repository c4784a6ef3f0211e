//! How text and a verdict read in the report's HTML.

use locksmith_model::engine::harness::Verdict;

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

/// A verdict as one mark: plain symbols every font has (no emoji, which a
/// machine without an emoji font draws as boxes).
pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Holds => "✓",
        Verdict::Violated => "✗",
        Verdict::Incomplete => "?",
        Verdict::NotApplicable => "–",
    }
}
