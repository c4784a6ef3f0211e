//! `locksmith confirm`: every violated checker scenario's shortest trace,
//! re-enacted on a real ZooKeeper, shows the same violation there; and the
//! command's errors (exit 2) without a server.
//!
//! The server test needs one: `scripts/zookeeper.sh start`, then
//! `cargo test -p locksmith --test confirm -- --ignored` (CI:
//! `scripts/ci-conformance.sh`).

mod binary;
mod common;

use binary::locksmith;
use common::{global_sessions, one_at_a_time, zk_addr};
use locksmith::backends::backend_of;
use locksmith::confirm::Outcome;
use locksmith::scenario::all_in;
use locksmith::zk::confirm::trace::on_the_server;
use locksmith::zk::confirm::{run, ConfirmConfig};
use locksmith::zk::scenario::Scenario;
use locksmith_model::catalogue::Backend;
use locksmith_model::engine::harness::{Property, Verdict};
use std::path::Path;
use std::time::Instant;

/// The catalogue's checker scenarios whose `[expect]` says violated.
fn violated_checker_scenarios() -> Vec<Scenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut out = Vec::new();
    // ZooKeeper's: confirm does not re-enact Redis traces yet.
    for path in all_in(&dir)
        .expect("scenarios/")
        .into_iter()
        .filter(|f| backend_of(f).is_none_or(|b| b == Backend::ZooKeeper))
    {
        let sc = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        if sc
            .expect
            .as_ref()
            .is_some_and(|e| e.verdict == Verdict::Violated)
        {
            out.push(sc);
        }
    }
    out
}

/// `LOCKSMITH_CONFIRM_MAX_STATES`: re-enact only the scenarios whose
/// `[expect]` pins at most this many states (unset or empty: every one).
fn max_states() -> Option<usize> {
    let v = std::env::var("LOCKSMITH_CONFIRM_MAX_STATES")
        .ok()
        .filter(|v| !v.trim().is_empty())?;
    Some(v.trim().parse().unwrap_or_else(|_| {
        panic!("LOCKSMITH_CONFIRM_MAX_STATES={v}: expected a whole number of states")
    }))
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test confirm -- --ignored"]
fn every_violated_checker_scenario_is_confirmed_on_zookeeper() {
    let _one = one_at_a_time();
    let addr = zk_addr();
    let sessions_before = global_sessions(&addr);
    let mut all = violated_checker_scenarios();
    assert!(all.len() >= 4, "only {} violated scenarios", all.len());
    // CI samples (scripts/ci-conformance.sh): it leaves out the scenarios
    // whose pinned exploration is above this many states — minutes of
    // search each, which the heavy tier has just run to pin their traces.
    if let Some(max) = max_states() {
        let (kept, left): (Vec<_>, Vec<_>) = all
            .into_iter()
            .partition(|sc| sc.expect.as_ref().and_then(|e| e.states).unwrap_or(0) <= max);
        let names: Vec<&str> = left.iter().map(|sc| sc.name.as_str()).collect();
        eprintln!(
            "LOCKSMITH_CONFIRM_MAX_STATES={max}: {} of {} scenarios re-enacted; left out: {}",
            kept.len(),
            kept.len() + left.len(),
            names.join(", ")
        );
        all = kept;
    }
    let start = Instant::now();
    let mut failed = Vec::new();
    for sc in &all {
        let began = Instant::now();
        // The exploration that finds the trace dominates (minutes for the
        // long Curator scenarios, milliseconds on the server); verdicts and
        // traces are the same for any number of threads.
        let mut check = sc.check.clone();
        check.jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let r = match run(&ConfirmConfig::new(check, &addr)) {
            Ok(r) => r,
            Err(e) => panic!("{}: {e}", sc.name),
        };
        let expect = sc.expect.as_ref().expect("[expect]");
        eprintln!(
            "{:<36} {:<14} {:>3} steps  {:?}  ({} ms, {} ms on the server)",
            sc.name,
            r.property.name(),
            r.trace_steps,
            r.outcome,
            began.elapsed().as_millis(),
            r.elapsed.as_millis()
        );
        // The headline, or (where the headline is the resource's, which
        // only the model shows) the next violated property.
        let steps = if Some(r.property) == expect.property {
            expect.steps
        } else {
            expect
                .violated
                .iter()
                .find(|(p, _)| *p == r.property)
                .map(|(_, n)| *n)
        };
        assert_eq!(Some(r.trace_steps), steps, "{}: {}", sc.name, r.property);
        assert!(r.cleanup.is_ok(), "{}: {:?}", sc.name, r.cleanup);
        if !matches!(r.outcome, Outcome::Confirmed(_)) {
            failed.push(format!("{}: {:?}", sc.name, r.outcome));
        }
    }
    eprintln!(
        "{} scenarios re-enacted in {:.1} s",
        all.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failed.is_empty(), "not confirmed:\n{}", failed.join("\n"));
    // Every session the runs opened has ended (kills are synchronous).
    assert_eq!(global_sessions(&addr), sessions_before);
}

#[test]
fn a_simulation_scenario_is_refused_before_any_exploration() {
    let (code, _, err) = locksmith(&[
        "confirm",
        "scenarios/herd-children-sim.toml",
        "--zk",
        "127.0.0.1:1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a simulation scenario"), "{err}");
}

#[test]
fn a_scenario_that_holds_has_nothing_to_confirm() {
    let (code, out, err) =
        locksmith(&["confirm", "scenarios/try-once.toml", "--zk", "127.0.0.1:1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("no counterexample to confirm"), "{err}");
}

#[test]
fn no_server_exits_2_and_a_bad_address_is_refused() {
    let (code, out, err) =
        locksmith(&["confirm", "scenarios/racy-wait.toml", "--zk", "127.0.0.1:1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("127.0.0.1:1"), "{err}");
    let (code, _, err) = locksmith(&[
        "confirm",
        "scenarios/racy-wait.toml",
        "--zk",
        "127.0.0.1:2181/chroot",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("without a path"), "{err}");
}

#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test confirm -- --ignored"]
fn the_command_prints_confirmed_and_its_json_exits_0() {
    let _one = one_at_a_time();
    let addr = zk_addr();
    let (code, out, err) = locksmith(&["confirm", "scenarios/racy-wait.toml", "--zk", &addr]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\nconfirmed: deadlock on the real server"),
        "{out}"
    );
    assert!(out.contains("every session ended"), "{out}");
    let (code, out, err) = locksmith(&[
        "confirm",
        "scenarios/predecessor-holder-expiry.toml",
        "--zk",
        &addr,
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["verdict"], "confirmed");
    assert_eq!(v["property"], "mutual exclusion");
    assert_eq!(
        v["trace_steps"],
        v["transcript"].as_array().map_or(0, Vec::len)
    );
    assert!(v["nodes_deleted"].is_u64(), "{v}");
    assert_eq!(v["cleanup_error"], serde_json::Value::Null);
}

/// The server's version as `srvr` names it: `ZooKeeper 3.8.0`.
fn server_name(addr: &str) -> String {
    let srvr = common::four_letter(addr, "srvr");
    let version = srvr
        .lines()
        .find_map(|l| l.strip_prefix("Zookeeper version: "))
        .map(|v| v.split(['-', ',']).next().unwrap_or(v).trim().to_string())
        .unwrap_or_else(|| panic!("no version in {srvr:?}"));
    format!("ZooKeeper {version}")
}

/// Every checker cell of the committed comparison that carries a trace
/// (`reports/compare.json`, held to `locksmith compare` by
/// compare_reports.rs) is confirmed on the server, and every cell the
/// committed record (`sim/src/zk/compare/confirmed.toml`, the report's
/// "✔ ZK" marks) lists is confirmed again with the same trace. With
/// `LOCKSMITH_RECORD_CONFIRMED=1` it writes the record instead.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test confirm -- --ignored"]
fn every_violated_comparison_cell_is_confirmed_and_the_record_holds() {
    use locksmith::matrix::confirmed;
    use locksmith::zk::compare::CONFIRMED;
    let _one = one_at_a_time();
    let addr = zk_addr();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("reports/compare.json")).expect("reports/compare.json"),
    )
    .expect("JSON");
    let start = Instant::now();
    let mut found = std::collections::BTreeMap::new();
    let mut failed = Vec::new();
    let mut clients_side = Vec::new();
    for cell in report["cells"].as_array().expect("cells") {
        // A cell with a checker trace: its headline's, or (where fencing
        // or guarded writes kept the resource safe) its clients' belief's.
        if cell["trace"].is_null() || cell["source"]["driver"] != "check" {
            continue;
        }
        let id = format!(
            "{}--{}",
            cell["recipe"].as_str().expect("recipe"),
            cell["fault"].as_str().expect("fault")
        );
        let file = root
            .join("reports")
            .join(cell["scenario"].as_str().expect("scenario"));
        let sc = Scenario::load(&file).unwrap_or_else(|e| panic!("{e}"));
        let mut cfg = ConfirmConfig::new(sc.check.clone(), &addr);
        // A trace of the protected resource (curator-listener's plain
        // writes) is the model's to show: the server confirms the clients'
        // side of the same cell, its first violated property it can show.
        let shown = cell["trace"]["property"].as_str().and_then(Property::parse);
        cfg.property = shown.filter(|&p| on_the_server(p));
        let r = run(&cfg).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(r.cleanup.is_ok(), "{id}: {:?}", r.cleanup);
        if cfg.property.is_some() {
            assert_eq!(
                Some(r.property.name()),
                cell["trace"]["property"].as_str(),
                "{id}"
            );
        }
        if !matches!(r.outcome, Outcome::Confirmed(_)) {
            failed.push(format!("{id}: {:?}", r.outcome));
            continue;
        }
        // The record's mark is for the trace the cell shows.
        if cfg.property.is_none() {
            clients_side.push(id);
            continue;
        }
        let steps = r
            .transcript
            .iter()
            .take(r.trace_steps)
            .map(|s| (s.actor.as_str(), s.model.as_str()));
        found.insert(id, confirmed::fingerprint(steps));
    }
    eprintln!(
        "{} violated checker cells re-enacted in {:.1} s, {} confirmed, {} on the clients' side ({})",
        found.len() + failed.len() + clients_side.len(),
        start.elapsed().as_secs_f64(),
        found.len(),
        clients_side.len(),
        clients_side.join(", ")
    );
    assert!(failed.is_empty(), "not confirmed:\n{}", failed.join("\n"));
    let path = root.join(CONFIRMED.path);
    if std::env::var_os("LOCKSMITH_RECORD_CONFIRMED").is_some() {
        std::fs::write(
            &path,
            confirmed::render(&server_name(&addr), "confirm", &found),
        )
        .expect("the record");
        eprintln!("wrote {}", path.display());
        return;
    }
    let record: confirmed::Record =
        toml::from_str(CONFIRMED.text).expect("the committed record parses");
    assert_eq!(record.server, server_name(&addr), "the record's server");
    for (id, f) in &record.cells {
        assert_eq!(
            found.get(id),
            Some(f),
            "{id}: recorded as confirmed, but its trace is now another or gone; re-record with LOCKSMITH_RECORD_CONFIRMED=1"
        );
    }
    let unrecorded: Vec<&String> = found
        .keys()
        .filter(|id| !record.cells.contains_key(*id))
        .collect();
    if !unrecorded.is_empty() {
        eprintln!("confirmed but not in the record (no mark yet): {unrecorded:?}");
    }
}
