//! `locksmith recipes`: every recipe of every backend's catalogue — its id,
//! its backend, where it comes from, what it claims — and the faults known
//! to break it.
//!
//! "Known" means pinned: a break is listed only if a scenario file says so
//! in an expectation that `cargo test` holds a driver to (`[expect]` for
//! the checker, `[sim.expect]` for the simulator) with verdict `violated`.
//! Nothing here is typed in by hand, so the list cannot claim more than the
//! tests show.

use crate::backends::AnyScenario;
use crate::commands::Pinned;
use crate::expect::Expectation;
use crate::scenario::all_in;
use clap::Args;
use locksmith_model::catalogue::{self, Entry};
use locksmith_model::engine::harness::Verdict;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RecipesArgs {
    /// The folder of scenario files the breaks are read from.
    #[arg(long, default_value = "scenarios")]
    pub scenarios: PathBuf,
    /// Print a JSON array instead of text.
    #[arg(long)]
    pub json: bool,
}

/// One pinned violation: which scenario, which driver, the faults it
/// injects (empty: none) and the property it breaks.
pub(super) struct Break {
    scenario: String,
    path: PathBuf,
    driver: &'static str,
    faults: Vec<String>,
    property: String,
}

pub fn run(a: &RecipesArgs) -> i32 {
    let breaks = match breaks_in(&a.scenarios) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if a.json {
        println!("{}", to_json(&breaks));
    } else {
        print!("{}", to_text(&breaks));
    }
    0
}

/// Every pinned violation in `dir`, by recipe, in file-name order.
pub(super) fn breaks_in(dir: &Path) -> Result<Vec<(&'static str, Break)>, String> {
    let files = all_in(dir).map_err(|e| {
        format!(
            "cannot list {}: {e} (run from the repository root, or pass --scenarios <folder>)",
            dir.display()
        )
    })?;
    let mut out = Vec::new();
    for f in files {
        let commands = AnyScenario::load(&f)
            .map_err(|e| e.to_string())?
            .into_commands();
        let recipe = commands.recipe_id();
        let Pinned { name, drivers } = commands.pinned();
        for (driver, expect, faults) in drivers {
            if let Some(property) = violated(expect.as_ref()) {
                out.push((
                    recipe,
                    Break {
                        scenario: name.clone(),
                        path: f.clone(),
                        driver,
                        faults,
                        property,
                    },
                ));
            }
        }
    }
    Ok(out)
}

fn violated(e: Option<&Expectation>) -> Option<String> {
    let e = e?;
    if e.verdict != Verdict::Violated {
        return None;
    }
    Some(
        e.property
            .map_or("(unnamed)".into(), |p| p.name().to_string()),
    )
}

fn of<'b>(breaks: &'b [(&'static str, Break)], r: &'b str) -> impl Iterator<Item = &'b Break> {
    breaks
        .iter()
        .filter(move |(id, _)| *id == r)
        .map(|(_, b)| b)
}

fn to_json(breaks: &[(&'static str, Break)]) -> String {
    let rows: Vec<_> = catalogue::all()
        .iter()
        .map(|e| {
            let by: Vec<_> = of(breaks, e.id)
                .map(|b| {
                    json!({
                        "scenario": b.scenario,
                        "driver": b.driver,
                        "faults": b.faults,
                        "property": b.property,
                    })
                })
                .collect();
            json!({
                "id": e.id,
                "backend": e.backend.name(),
                "origin": e.origin,
                "claim": e.claim,
                "broken_by": by,
            })
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

fn to_text(breaks: &[(&'static str, Break)]) -> String {
    let entries: Vec<Entry> = catalogue::all();
    let width = entries.iter().map(|e| e.id.len()).max().unwrap_or(0);
    let pad = " ".repeat(width + 2);
    let mut out = String::new();
    for e in &entries {
        out += &format!("{:width$}  {} — {}\n", e.id, e.backend.name(), e.origin);
        out += &format!("{pad}claims:    {}\n", e.claim);
        let mut label = "broken by:";
        let mut any = false;
        for b in of(breaks, e.id) {
            let faults = if b.faults.is_empty() {
                "none (no faults)".to_string()
            } else {
                b.faults.join(" + ")
            };
            out += &format!(
                "{pad}{label:10} {faults} → {}   ({} {})\n",
                b.property,
                b.driver,
                b.path.display()
            );
            label = "";
            any = true;
        }
        if !any {
            out += &format!("{pad}broken by: nothing pinned in a scenario file\n");
        }
    }
    out
}
