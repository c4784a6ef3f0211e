//! The deterministic simulator's backend-blind parts: one seed's run, laid
//! out the same for every backend ([`seed_run`]), the seed sweep every
//! backend's simulator runs under ([`sweep`]), and the core the command
//! backends' worlds share ([`command`]). A backend's own world (its server
//! node, its client library, its faults) is in its own folder
//! (`crate::zk::sim` for ZooKeeper).

pub mod command;
pub mod flags;
pub mod seed_run;
pub mod sweep;

use flags::ReplayArgs;
use locksmith_model::engine::harness::Property;
use serde_json::json;

/// `replay --json`, the same fields for every backend; ZooKeeper's adds
/// its Mermaid diagram.
pub fn replay_json(
    a: &ReplayArgs,
    backend: &str,
    recipe: &str,
    violation: Option<&(Property, String)>,
    trace: &[&str],
    metrics: serde_json::Value,
) -> serde_json::Value {
    json!({
        "scenario": a.scenario.display().to_string(),
        "backend": backend,
        "recipe": recipe,
        "seed": a.seed,
        "verdict": if violation.is_some() { "violated" } else { "holds" },
        "property": violation.map(|v| v.0.name()),
        "why": violation.map(|v| v.1.clone()),
        "trace": trace,
        "metrics": metrics,
    })
}
