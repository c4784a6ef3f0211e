//! What each recipe costs when it works: the simulator's figures without
//! faults, at growing numbers of clients, so the herd's growth against the
//! textbook lock's flat line shows in the charts.

use super::recipes::RecipeRow;
use crate::matrix::costs::{CostPoint, CostSeries};
use crate::simulate::sweep::SweepOptions;
use crate::zk::scenario::Scenario;
use crate::zk::sim::sweep::sweep;
use crate::zk::sim::SimConfig;
use locksmith_model::zk::recipes::RecipeId;
use std::path::Path;

/// The client counts of every cost series.
pub const CLIENTS: [u8; 4] = [2, 5, 10, 20];
pub use super::recipes::ACQUISITIONS;
/// Seeds per point.
pub const SEEDS: u64 = 20;

/// The scenario file every point of `recipe` runs (`--clients` varies),
/// with `acquisitions` per client.
pub fn scenario_text(recipe: RecipeId, acquisitions: u8) -> String {
    format!(
        "# {recipe}'s costs: `locksmith compare` runs this file with --clients 2, 5, 10, 20.\n\
         # Generated; do not edit (regenerate with `cargo run --release -- compare`).\n\
         description = \"Costs without faults: default [sim] settings.\"\n\
         recipe = \"{recipe}\"\nclients = 2\nacquisitions = {acquisitions}\n\n[sim]\nseeds = {SEEDS}\n"
    )
}

/// How many acquisitions per client the cost runs of `rows` take, in
/// words: [`ACQUISITIONS`], and the recipes that take fewer.
pub fn acquisitions_text(rows: &[&RecipeRow]) -> String {
    let mut text = format!("{ACQUISITIONS} acquisitions per client");
    let fewer: Vec<String> = rows
        .iter()
        .filter(|r| r.cost_acquisitions != ACQUISITIONS)
        .map(|r| format!("{} for {}", r.cost_acquisitions, r.id))
        .collect();
    if !fewer.is_empty() {
        text.push_str(&format!(
            " ({}: its release, `close()`, ends the client)",
            fewer.join(", ")
        ));
    }
    text
}

/// The scenario's path, relative to the report folder.
pub fn scenario_path(recipe: RecipeId) -> String {
    format!("scenarios/costs--{}.toml", recipe.name())
}

/// Runs every point of `row`'s recipe.
pub fn run(row: &RecipeRow, out: &str) -> Result<CostSeries, String> {
    let recipe = row.id;
    let scenario = scenario_path(recipe);
    let path = format!("{out}/{scenario}");
    let text = scenario_text(recipe, row.cost_acquisitions);
    let sc = Scenario::parse(Path::new(&path), &text).map_err(|e| e.to_string())?;
    let mut points = Vec::new();
    for n in CLIENTS {
        let mut cfg = SimConfig::of(&sc);
        cfg.clients = n as usize;
        let opts = SweepOptions::every_seed(sc.sim.seeds);
        let r = sweep(&cfg, &opts, &|| {});
        let s = r.totals.summary();
        points.push(CostPoint {
            recipe: recipe.name().into(),
            clients: n,
            seeds: r.seeds_run,
            acquisitions: s.acquisitions,
            contended_acquisitions: s.contended_acquisitions,
            notifications_per_contended_acquisition: round(
                s.notifications_per_contended_acquisition,
            ),
            packets_per_acquisition: round(s.packets_per_acquisition),
            wakeups_per_release: round(s.wakeups_per_release),
            latency_p50_ms: round(s.latency_p50_ms),
            latency_p99_ms: round(s.latency_p99_ms),
            failing_seeds: r.failures.len() as u64,
            command: format!("cargo run --release -- sim {path} --clients {n} --keep-going --json"),
        });
    }
    Ok(CostSeries {
        recipe: recipe.name().into(),
        scenario,
        scenario_text: text,
        points,
    })
}

/// Three decimals: what the report prints, and what the JSON keeps (so the
/// committed files do not depend on the last bits of a float sum).
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
