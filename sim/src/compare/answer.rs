//! The answer a reader came for, read off the judged cells: per backend,
//! each lock's guarantee profile on one line, ranked, and the
//! recommendation that follows — never typed by hand, so it changes when a
//! cell does.
//!
//! A profile sorts a lock's fault classes by what its cell headlines:
//! safety (at the resource or by belief), liveness, cost, holds,
//! incomplete. The ranking puts first the lock that the fewest fault
//! classes break (safety or liveness), then the fewest safety breaks, then
//! the fewest herds and incomplete cells, then the fewest packets per
//! acquisition at [`COST_CLIENTS`] clients, then the matrix's order.
//! Fault classes the backend never produces (its `never_produced`:
//! ZooKeeper's `reorder`) are left out of the profile and the ranking.

use super::Matrix;
use crate::matrix::cell::CellResult;
use crate::matrix::costs::CostPoint;
use locksmith_model::engine::harness::{Severity, Verdict};

/// The client count whose costs a profile quotes.
pub const COST_CLIENTS: u8 = 10;

/// One backend's matrix as the answer reads it.
struct Grid<'a> {
    backend: &'static str,
    recipes: Vec<&'a str>,
    /// Column ids, in the matrix's order.
    faults: Vec<&'a str>,
    /// Columns the answer leaves out (a fault the server never produces).
    left_out: Vec<&'a str>,
    /// Row-major, as the matrix's.
    cells: &'a [CellResult],
    /// Per recipe, its costs at [`COST_CLIENTS`] clients, if measured.
    costs: Vec<Option<&'a CostPoint>>,
}

/// A lock's fault classes, sorted by what its cell headlines.
pub struct Profile<'a> {
    pub recipe: &'a str,
    pub safety: Vec<&'a str>,
    pub liveness: Vec<&'a str>,
    pub cost: Vec<&'a str>,
    pub holds: Vec<&'a str>,
    /// Incomplete, or n/a (the fault never struck where the column says).
    pub incomplete: Vec<&'a str>,
    /// The columns where fencing or guarded writes kept the resource safe
    /// although clients' beliefs overlapped.
    pub saved_by_the_resource: Vec<&'a str>,
    pub costs: Option<&'a CostPoint>,
}

impl Profile<'_> {
    /// Fewest fault classes that break it at all first (a lock that stays
    /// safe by deadlocking under every fault is no answer), then fewest
    /// safety breaks, fewest herds and incomplete cells, fewest packets.
    fn rank_key(&self) -> (usize, usize, usize, u64) {
        let packets = self
            .costs
            .map_or(u64::MAX, |c| (c.packets_per_acquisition * 1000.0) as u64);
        (
            self.safety.len() + self.liveness.len(),
            self.safety.len(),
            self.cost.len() + self.incomplete.len(),
            packets,
        )
    }

    fn breaks_under(&self, fault: &str) -> bool {
        self.safety.contains(&fault) || self.liveness.contains(&fault)
    }
}

/// A backend's answer: its ranked profiles, and how many columns count.
pub struct Answer<'a> {
    pub backend: &'static str,
    pub profiles: Vec<Profile<'a>>,
    pub columns: usize,
    /// Columns left out of the answer (never produced by the server).
    pub left_out: Vec<&'a str>,
}

fn profiles<'a>(g: &Grid<'a>) -> Vec<Profile<'a>> {
    let width = g.faults.len();
    let mut out: Vec<Profile> = g
        .recipes
        .iter()
        .enumerate()
        .map(|(r, &recipe)| {
            let mut p = Profile {
                recipe,
                safety: Vec::new(),
                liveness: Vec::new(),
                cost: Vec::new(),
                holds: Vec::new(),
                incomplete: Vec::new(),
                saved_by_the_resource: Vec::new(),
                costs: g.costs[r],
            };
            for (f, &fault) in g.faults.iter().enumerate() {
                if g.left_out.contains(&fault) {
                    continue;
                }
                let c = &g.cells[r * width + f];
                let into = match (c.verdict, c.severity) {
                    (Verdict::Violated, Some(s)) if s.is_safety() => &mut p.safety,
                    (Verdict::Violated, Some(Severity::Liveness)) => &mut p.liveness,
                    (Verdict::Violated, _) => &mut p.cost,
                    (Verdict::Incomplete | Verdict::NotApplicable, _) => &mut p.incomplete,
                    _ => &mut p.holds,
                };
                into.push(fault);
                let resource_safe = c.severity.is_none_or(|s| !s.is_safety());
                let believed_wrong = c
                    .belief
                    .as_ref()
                    .is_some_and(|b| b.verdict == Verdict::Violated);
                if believed_wrong && resource_safe {
                    p.saved_by_the_resource.push(fault);
                }
            }
            p
        })
        .collect();
    // A stable sort keeps the matrix's order among equals.
    out.sort_by_key(|p| p.rank_key());
    out
}

/// Every backend's answer, in the report's order.
pub fn answers(m: &Matrix) -> Vec<Answer<'_>> {
    m.matrices
        .iter()
        .filter(|b| !b.cells.is_empty())
        .map(|b| Grid {
            backend: b.backend.name,
            recipes: b.recipes.iter().map(|r| r.recipe).collect(),
            faults: b.faults.iter().map(|f| f.id).collect(),
            left_out: b
                .faults
                .iter()
                .map(|f| f.id)
                .filter(|id| b.backend.never_produced.contains(id))
                .collect(),
            cells: &b.cells,
            costs: b
                .recipes
                .iter()
                .map(|r| {
                    b.costs
                        .iter()
                        .find(|s| s.recipe == r.recipe)
                        .and_then(|s| s.points.iter().find(|p| p.clients == COST_CLIENTS))
                })
                .collect(),
        })
        .map(|g| Answer {
            backend: g.backend,
            columns: g.faults.len() - g.left_out.len(),
            profiles: profiles(&g),
            left_out: g.left_out,
        })
        .collect()
}

/// A list of column ids, or a dash.
fn ids(v: &[&str]) -> String {
    if v.is_empty() {
        return "—".into();
    }
    v.iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A profile as one table row's cells (Markdown inline marks): the lock,
/// the columns whose cell breaks safety, liveness, costs a herd, how many
/// hold (and which are incomplete), and its costs when measured.
pub fn profile_cells(p: &Profile) -> Vec<String> {
    let mut holds = p.holds.len().to_string();
    if !p.incomplete.is_empty() {
        holds.push_str(&format!(" (incomplete or n/a: {})", ids(&p.incomplete)));
    }
    let mut cells = vec![
        format!("**{}**", p.recipe),
        ids(&p.safety),
        ids(&p.liveness),
        ids(&p.cost),
        holds,
    ];
    if let Some(c) = p.costs {
        cells.push(format!(
            "{} / {}",
            c.notifications_per_contended_acquisition, c.packets_per_acquisition
        ));
    }
    cells
}

/// The table's header cells, each with the class that colours it.
fn header(with_costs: bool) -> Vec<(&'static str, &'static str)> {
    let mut h = vec![
        ("lock", ""),
        ("unsafe under", "safety"),
        ("liveness broken under", "liveness"),
        ("herd under", "cost"),
        ("holds under", "holds"),
    ];
    if with_costs {
        h.push((
            "at 10 clients: notifications per contended acquisition / packets per acquisition",
            "",
        ));
    }
    h
}

/// The Markdown mark of a header's class.
fn header_mark(class: &str) -> &'static str {
    match class {
        "safety" => "🔴 ",
        "liveness" => "🟠 ",
        "cost" => "🟡 ",
        "holds" => "✅ ",
        _ => "",
    }
}

/// The recommendation that follows from a backend's ranked profiles.
pub fn recommendation(a: &Answer) -> String {
    let Some(best) = a.profiles.first() else {
        return String::new();
    };
    let none_or = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            ids(v)
        }
    };
    let mut out = format!(
        "**Use `{}`**: it holds under {} of the {} fault classes; its safety breaks under {}, \
         its liveness under {}.",
        best.recipe,
        best.holds.len(),
        a.columns,
        none_or(&best.safety),
        none_or(&best.liveness)
    );
    if !best.saved_by_the_resource.is_empty() {
        out.push_str(&format!(
            " Under {} its clients' beliefs overlap but fencing or guarded writes keep the \
             resource safe: use them if holders can pause or lose their lease.",
            ids(&best.saved_by_the_resource)
        ));
    }
    let nobody: Vec<&str> = best
        .safety
        .iter()
        .chain(&best.liveness)
        .copied()
        .filter(|f| a.profiles.iter().all(|p| p.breaks_under(f)))
        .collect();
    if !nobody.is_empty() {
        out.push_str(&format!(
            " Under {} no lock of this matrix holds (each is unsafe or stops there).",
            ids(&nobody)
        ));
    }
    let broken: Vec<&str> = a
        .profiles
        .iter()
        .filter(|p| p.breaks_under("none"))
        .map(|p| p.recipe)
        .collect();
    if !broken.is_empty() {
        out.push_str(&format!(
            " **Avoid** {}: broken with no fault at all.",
            ids(&broken)
        ));
    }
    out
}

/// The answer as Markdown: per backend a heading, the ranked profiles as a
/// table (a row each) and the recommendation.
pub fn markdown(m: &Matrix) -> String {
    let mut o = String::new();
    for a in answers(m) {
        o.push_str(&format!("### {} locks, best first\n\n", a.backend));
        let h = header(a.profiles.iter().any(|p| p.costs.is_some()));
        o.push_str("| # |");
        for (name, class) in &h {
            o.push_str(&format!(" {}{name} |", header_mark(class)));
        }
        o.push_str(&format!("\n|---|{}\n", "---|".repeat(h.len())));
        for (i, p) in a.profiles.iter().enumerate() {
            o.push_str(&format!(
                "| {} | {} |\n",
                i + 1,
                profile_cells(p).join(" | ")
            ));
        }
        o.push('\n');
        if !a.left_out.is_empty() {
            o.push_str(&format!(
                "Left out: {} (a fault {} never produces).\n\n",
                ids(&a.left_out),
                a.backend
            ));
        }
        o.push_str(&recommendation(&a));
        o.push_str("\n\n");
    }
    o
}

/// The answer as HTML: the same tables and sentences, the headers
/// coloured by class instead of marked (no emoji: a machine without an
/// emoji font draws boxes).
pub fn html(m: &Matrix) -> String {
    let mut o = String::new();
    for a in answers(m) {
        o.push_str(&format!(
            "<h3>{} locks, best first</h3>\n<table><tr><th>#</th>",
            a.backend
        ));
        for (name, class) in header(a.profiles.iter().any(|p| p.costs.is_some())) {
            o.push_str(&format!("<th class=\"{class}\">{name}</th>"));
        }
        o.push_str("</tr>\n");
        for (i, p) in a.profiles.iter().enumerate() {
            o.push_str(&format!("<tr><td>{}</td>", i + 1));
            for cell in profile_cells(p) {
                o.push_str(&format!("<td>{}</td>", inline_html(&cell)));
            }
            o.push_str("</tr>\n");
        }
        o.push_str("</table>\n");
        if !a.left_out.is_empty() {
            o.push_str(&format!(
                "<p>Left out: {} (a fault {} never produces).</p>\n",
                inline_html(&ids(&a.left_out)),
                a.backend
            ));
        }
        o.push_str(&format!("<p>{}</p>\n", inline_html(&recommendation(&a))));
    }
    o
}

/// The two Markdown marks the answer's lines use — `**bold**` and
/// `` `code` `` — as HTML, the rest escaped.
fn inline_html(md: &str) -> String {
    let text = crate::matrix::cell_html::esc(md);
    let mut out = String::with_capacity(text.len());
    let (mut bold, mut code) = (false, false);
    let mut rest = text.as_str();
    while let Some(ch) = rest.chars().next() {
        if rest.starts_with("**") && !code {
            out.push_str(if bold { "</b>" } else { "<b>" });
            bold = !bold;
            rest = &rest[2..];
        } else if ch == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
            rest = &rest[1..];
        } else {
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::cell::{blank, PropertyVerdict, Source};
    use locksmith_model::engine::harness::Property;

    fn cell(verdict: Verdict, property: Option<Property>, belief: Option<Verdict>) -> CellResult {
        let mut c = blank(
            Source::Sim {
                clients: 2,
                acquisitions: 1,
                seeds: 1,
                failing_seeds: Vec::new(),
                struck_seeds: None,
            },
            String::new(),
        );
        c.verdict = verdict;
        c.property = property;
        c.severity = property
            .filter(|_| verdict == Verdict::Violated)
            .map(|p| p.severity());
        c.belief = belief.map(|verdict| PropertyVerdict {
            property: Property::MutualExclusion,
            verdict,
        });
        c
    }

    /// Two locks: `a` deadlocks with no fault; `b` breaks by belief under
    /// `pause`, and its fenced column keeps the resource safe. `b` ranks
    /// first, the recommendation names the fenced column, and `a` is to
    /// be avoided.
    #[test]
    fn the_answer_ranks_by_severity_and_reads_its_advice_off_the_cells() {
        use Verdict::{Holds, Violated};
        let cells = vec![
            cell(Violated, Some(Property::Deadlock), None),
            cell(Violated, Some(Property::MutualExclusion), None),
            cell(Violated, Some(Property::Herd), Some(Violated)),
            cell(Holds, None, None),
            cell(Violated, Some(Property::MutualExclusion), None),
            cell(Holds, None, Some(Violated)),
        ];
        let g = Grid {
            backend: "Test",
            recipes: vec!["a", "b"],
            faults: vec!["none", "pause", "pause-fenced"],
            left_out: Vec::new(),
            cells: &cells,
            costs: vec![None, None],
        };
        let answer = Answer {
            backend: g.backend,
            columns: 3,
            left_out: Vec::new(),
            profiles: profiles(&g),
        };
        let order: Vec<&str> = answer.profiles.iter().map(|p| p.recipe).collect();
        assert_eq!(order, ["b", "a"]);
        let b = &answer.profiles[0];
        assert_eq!(
            (b.safety.clone(), b.holds.clone()),
            (vec!["pause"], vec!["none", "pause-fenced"])
        );
        assert_eq!(b.saved_by_the_resource, ["pause-fenced"]);
        let a = &answer.profiles[1];
        assert_eq!(
            (a.liveness.clone(), a.cost.clone()),
            (vec!["none"], vec!["pause-fenced"])
        );
        assert_eq!(a.saved_by_the_resource, ["pause-fenced"]);
        let advice = recommendation(&answer);
        assert!(
            advice.starts_with(
                "**Use `b`**: it holds under 2 of the 3 fault classes; its safety breaks under \
                 `pause`, its liveness under none."
            ),
            "{advice}"
        );
        assert!(
            advice.contains("Under `pause-fenced` its clients' beliefs overlap"),
            "{advice}"
        );
        assert!(
            advice.contains("Under `pause` no lock of this matrix holds"),
            "{advice}"
        );
        assert!(
            advice.ends_with("**Avoid** `a`: broken with no fault at all."),
            "{advice}"
        );
        assert_eq!(
            profile_cells(b),
            ["**b**", "`pause`", "—", "—", "2"].map(String::from)
        );
    }

    #[test]
    fn bold_and_code_become_tags_and_the_rest_is_escaped() {
        assert_eq!(
            inline_html("**Use `a<b`**: x & y"),
            "<b>Use <code>a&lt;b</code></b>: x &amp; y"
        );
    }
}
