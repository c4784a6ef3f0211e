//! ZooKeeper's part of `reports/README.md` — its matrix, legend, costs
//! and one paragraph per recipe — and its trace pages.

use super::View;
use crate::matrix::axes::Driver;
use crate::matrix::cell::CellResult;
use crate::matrix::cell_markdown::{diagram_section, short, trace_page_head, COLOURS};
use crate::matrix::charts::CHARTS;
use crate::matrix::tables;
use crate::zk::compare::costs::{acquisitions_text, SEEDS};
use crate::zk::compare::faults::{NOT_MODELLED, NOT_MODELLED_ISSUE};
use locksmith_model::engine::harness::Property;
use std::fmt::Write;

/// The section: `summary` is the matrix's counts.
pub(super) fn section(o: &mut String, v: &View, summary: &str) {
    let _ = writeln!(o, "## The matrix\n\n{summary}\n");
    o.push_str(&matrix_table(v, ""));
    o.push('\n');
    legend(o, v);
    costs_section(o, v);
    let _ = writeln!(o, "## The recipes\n");
    for r in 0..v.rows.len() {
        recipe_section(o, v, r);
    }
}

/// The matrix as a GitHub table; links start with `prefix`.
fn matrix_table(v: &View, prefix: &str) -> String {
    let heads: Vec<String> = v
        .faults
        .iter()
        .map(|f| format!("{}<br>*{}*", f.label, f.driver.name()))
        .collect();
    let recipes: Vec<String> = v.rows.iter().map(|r| r.id.to_string()).collect();
    tables::matrix(&heads, &recipes, |r, f| v.m.cell(r, f), prefix)
}

fn legend(o: &mut String, v: &View) {
    let _ = writeln!(o, "### Legend\n");
    let _ = writeln!(
        o,
        "A cell is the headline of one run: the first violated property in this order, worst \
         first — {} — with a link to its shortest trace (checker: steps; simulator: the entries \
         of the failing seed with the shortest trace). Marks: {} ✅ holds: the checker explored \
         every reachable state (*check*), or no seed violated any property (*sim*: evidence, not \
         proof). *✔ ZK*: its trace re-enacted step for step on a real {} by \
         `locksmith confirm`, which showed the same violation. \
         – n/a: the driver does not judge the property on this run (the checker has the \
         protected resource only in the guarded column; fenced safety needs fencing tokens; \
         unlock by non-owner and stuck lock are the Redis checker's: the ZooKeeper checker does \
         not yet track whose lock node a delete takes from whom, the ZooKeeper recipes do not \
         state when their lock is free, and the simulator judges neither — \
         `locksmith check --json` gives each n/a its `reason`).\n",
        Property::ALL.map(|p| p.name()).join(", "),
        COLOURS,
        crate::zk::compare::CONFIRMED.record().server
    );
    let _ = writeln!(o, "| fault class | driver | what strikes |\n|---|---|---|");
    for f in &v.faults {
        let _ = writeln!(
            o,
            "| `{}` {} | {} | {} |",
            f.id,
            f.label,
            f.driver.name(),
            f.about
        );
    }
    for (f, about) in NOT_MODELLED {
        let _ = writeln!(
            o,
            "| {f} | — | not modelled yet ({NOT_MODELLED_ISSUE}): {about} |"
        );
    }
    let _ = writeln!(
        o,
        "\nColumns: {}.\n",
        Property::ALL
            .map(|p| format!("{} = {}", short(p), p.name()))
            .join(", ")
    );
}

fn costs_section(o: &mut String, v: &View) {
    if v.m.costs.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## What it costs\n\nThe simulator without faults, {}, {} seeds per point, \
         default `[sim]` settings. A contended acquisition is one during whose attempt a watch \
         notification reached the client (as `locksmith real` counts them). Runs that end on a \
         violation (racy-wait's lost wake-up) count up to it. Each point's command is in \
         [compare.json](compare.json) (`costs[].command`).\n",
        acquisitions_text(&v.rows),
        SEEDS
    );
    for c in CHARTS {
        let _ = writeln!(o, "![{}](charts/{}.svg)\n", c.title, c.id);
    }
    let _ = writeln!(
        o,
        "| recipe | clients | notifications / contended acq. | packets / acq. | wake-ups / release | p50 ms | p99 ms | failing seeds |\n|---|---|---|---|---|---|---|---|"
    );
    for s in &v.m.costs {
        for p in &s.points {
            let _ = writeln!(
                o,
                "| {} | {} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} | {} |",
                p.recipe,
                p.clients,
                p.notifications_per_contended_acquisition,
                p.packets_per_acquisition,
                p.wakeups_per_release,
                p.latency_p50_ms,
                p.latency_p99_ms,
                p.failing_seeds
            );
        }
    }
    o.push('\n');
}

fn recipe_section(o: &mut String, v: &View, r: usize) {
    let row = v.rows[r];
    let _ = writeln!(o, "### {}\n", row.id);
    let claim = if row.claim.is_empty() {
        format!(
            "Origin: {}. (No text in `sim/src/zk/compare/recipes.toml` yet.)",
            row.id.origin()
        )
    } else {
        row.claim.clone()
    };
    let _ = writeln!(o, "{claim}\n");
    tables::recipe_markdown(o, &v.row_cells(r), &row.instead);
}

/// The page of a violated cell's shortest trace.
pub(super) fn trace_page(v: &View, c: &CellResult) -> Option<String> {
    let t = c.trace.as_ref()?;
    let fault = v.faults.iter().find(|f| f.id == c.fault)?;
    let p = t.property;
    let mut o = trace_page_head(c, t, fault.label, fault.about);
    match fault.driver {
        Driver::Check => {
            let _ = writeln!(
                o,
                "The shortest trace that violates {p}: {} steps, found by breadth-first search of \
                 every interleaving.\n",
                t.steps
            );
        }
        Driver::Sim => {
            let _ = writeln!(
                o,
                "Seed {}: {}. Of the failing seeds (up to 20 replayed), the one with the fewest \
                 trace entries: {}. Times are simulated.\n",
                t.seed.unwrap_or(0),
                t.why.as_deref().unwrap_or(""),
                t.steps
            );
        }
    }
    let _ = writeln!(o, "Reproduce the cell: `{}`  ", c.command);
    let _ = writeln!(o, "Print this trace: `{}`  ", t.command);
    let _ = writeln!(
        o,
        "Scenario: [{}](../{}) · [back to the matrix](../README.md)\n",
        c.scenario, c.scenario
    );
    let _ = writeln!(o, "## Trace\n\n```text\n{}```\n", t.text);
    o.push_str(&diagram_section(t));
    Some(o)
}
