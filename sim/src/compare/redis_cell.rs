//! One cell of the Redis matrix: a Redis recipe under one Redis fault
//! class, written as a Redis scenario file and judged by loading that very
//! file as `locksmith check` loads it — so the command beside the cell
//! reproduces it.

use super::backend::{cell_id, interruptible, judged, toml_faults, toml_head, Fault, Judged};
use super::cell::CellResult;
use super::redis_faults::{find, space, RedisFaultClass, REDIS_ROWS};
use crate::scenario::RedisScenario;
use locksmith_model::check::redis::trace::mermaid;
use locksmith_model::check::redis::RedisSpace;
use std::path::Path;
use std::time::Instant;

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &RedisSpace, fault: &RedisFaultClass) -> String {
    let head = Fault {
        id: fault.id,
        label: fault.label,
        about: fault.about,
    };
    let mut out = toml_head(s.recipe.id(), &head, s.clients, s.acquisitions);
    if s.fencing {
        out.push_str("fencing = true\n");
    }
    out.push_str(&format!(
        "\n[redis]\nlease = {}\ncritical_section = {}\npause = {}\nskew = {}\n",
        s.lease, s.work, s.pause, s.skew
    ));
    if s.replica {
        out.push_str("replica = true\n");
    }
    let f = &s.faults;
    out.push_str(&toml_faults(&[
        ("pauses", f.pauses),
        ("crashes", f.crashes),
        ("clock_jumps", f.clock_jumps),
        ("restarts", f.restarts),
        ("failovers", f.failovers),
        ("server_clock_jumps", f.server_clock_jumps),
    ]));
    out.push_str(&format!(
        "\n[check]\nmax_states = {}\n",
        s.limits.max_states
    ));
    out
}

/// Runs the cell `recipe` × `fault` (ids of [`REDIS_ROWS`] and
/// [`REDIS_FAULTS`]); `out` is the report folder as the commands name it.
pub fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let started = Instant::now();
    let row = REDIS_ROWS
        .iter()
        .find(|r| r.recipe.id() == recipe)
        .ok_or_else(|| format!("no Redis recipe `{recipe}`"))?;
    let fault = find(fault).ok_or_else(|| format!("no Redis fault class `{fault}`"))?;
    let mut s = space(row);
    (fault.apply)(&mut s);
    let text = to_toml(&s, fault);
    let scenario = format!("scenarios/{}.toml", cell_id(recipe, fault.id));
    let path = format!("{out}/{scenario}");
    let sc = RedisScenario::parse(Path::new(&path), &text).map_err(|e| e.to_string())?;
    let report = sc.space.check_with_progress(&mut interruptible);
    let clients = sc.space.clients;
    let j = Judged {
        recipe,
        fault: fault.id,
        scenario,
        text,
        out,
        clients,
        acquisitions: sc.space.acquisitions,
    };
    let mut r = judged(j, &report, &|t| mermaid(t, clients));
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
}
