//! One cell of the MySQL matrix: a database lock under one MySQL fault
//! class, written as a MySQL scenario file and judged by loading that very
//! file as `locksmith check` loads it.

use super::backend::{cell_id, interruptible, judged, toml_faults, toml_head, Fault, Judged};
use super::cell::CellResult;
use super::mysql_faults::{space, MYSQL_FAULTS, MYSQL_ROWS};
use crate::scenario::MysqlScenario;
use locksmith_model::check::sql::trace::mermaid;
use locksmith_model::check::sql::SqlSpace;
use std::path::Path;
use std::time::Instant;

/// The scenario file of `s` (a row's configuration under `fault`).
pub fn to_toml(s: &SqlSpace, fault: &Fault) -> String {
    let mut out = toml_head(s.recipe.id(), fault, s.clients, s.acquisitions);
    out.push_str(&format!(
        "\n[mysql]\ncritical_section = {}\npause = {}\nlock_wait_timeout = {}\n",
        s.work, s.pause, s.lock_wait_timeout
    ));
    if let Some(age) = s.cleanup_after {
        out.push_str(&format!("cleanup_after = {age}\n"));
    }
    let f = &s.faults;
    out.push_str(&toml_faults(&[
        ("pauses", f.pauses),
        ("crashes", f.crashes),
        ("connection_drops", f.connection_drops),
    ]));
    out.push_str(&format!(
        "\n[check]\nmax_states = {}\n",
        s.limits.max_states
    ));
    out
}

/// Runs the cell `recipe` × `fault` (ids of [`MYSQL_ROWS`] and
/// [`MYSQL_FAULTS`]); `out` is the report folder as the commands name it.
pub fn run(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let started = Instant::now();
    let row = MYSQL_ROWS
        .iter()
        .find(|r| r.recipe.id() == recipe)
        .ok_or_else(|| format!("no MySQL recipe `{recipe}`"))?;
    let class = MYSQL_FAULTS
        .iter()
        .find(|f| f.fault.id == fault)
        .ok_or_else(|| format!("no MySQL fault class `{fault}`"))?;
    let mut s = space(row);
    (class.apply)(&mut s);
    let text = to_toml(&s, &class.fault);
    let scenario = format!("scenarios/{}.toml", cell_id(recipe, fault));
    let path = format!("{out}/{scenario}");
    let sc = MysqlScenario::parse(Path::new(&path), &text).map_err(|e| e.to_string())?;
    let report = sc.space.check_with_progress(&mut interruptible);
    let clients = sc.space.clients;
    let j = Judged {
        recipe,
        fault,
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
