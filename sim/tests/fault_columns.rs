//! Every fault column of the committed report is non-vacuous: its fault
//! struck where the column says.
//!
//! - A checker cell spent its fault budget on at least one explored path:
//!   every fault transition takes one from the budget, which is part of the
//!   state, so the cell's exploration reaches more states than the same
//!   file with its budget zeroed. (Each budgeted fault is enabled only
//!   where its class says — a holder expiry only inside a critical
//!   section, a waiter expiry only while parked — so a spent budget struck
//!   there.) The report says so per cell (`fault_struck`), and a cell
//!   whose budget was never spent is n/a. Cells that change a setting
//!   rather than a budget (MySQL's cleanup job) are counted apart.
//! - A simulator cell aimed at the holder says in how many seeds a
//!   holder's session expired inside its critical section
//!   (`struck_seeds`), and a cell where that never happened is n/a.
//!
//! Heavy tier (about a minute: every checker cell explored once more,
//! without its faults): `bash scripts/heavy-tests.sh`.

use locksmith::backends::AnyScenario;
use locksmith_model::engine::Judged;
use std::path::Path;

/// The states of `file` explored with its fault budget zeroed, and whether
/// it had a budget at all.
fn without_faults(file: &Path) -> (usize, bool) {
    match AnyScenario::load(file).unwrap_or_else(|e| panic!("{e}")) {
        AnyScenario::ZooKeeper(sc) => {
            let mut cfg = sc.check.clone();
            let had = cfg.faults != Default::default();
            cfg.faults = Default::default();
            (locksmith_model::zk::check::check(&cfg).states, had)
        }
        AnyScenario::Redis(sc) => {
            let mut space = sc.space.clone();
            let had = space.faults != Default::default();
            space.faults = Default::default();
            (space.check().states, had)
        }
        AnyScenario::Mysql(sc) => {
            let mut space = sc.space.clone();
            let had = space.faults != Default::default();
            space.faults = Default::default();
            (space.check().states, had)
        }
        AnyScenario::Etcd(sc) => {
            let mut space = sc.space.clone();
            let had = space.faults != Default::default();
            space.faults = Default::default();
            (space.check().states, had)
        }
    }
}

#[test]
#[ignore = "heavy tier (~1 min, every checker cell once more): bash scripts/heavy-tests.sh"]
fn every_fault_column_struck_where_it_says() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../reports"));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("compare.json")).expect("reports/compare.json"),
    )
    .expect("JSON");
    let cells: Vec<&serde_json::Value> = ["cells", "redis", "mysql", "etcd"]
        .iter()
        .flat_map(|k| {
            let v = if *k == "cells" {
                &report[*k]
            } else {
                &report[*k]["cells"]
            };
            v.as_array().expect("cells").iter()
        })
        .collect();
    let (mut budgets, mut settings, mut sims, mut never) = (0, Vec::new(), 0, 0);
    let mut vacuous = Vec::new();
    for c in cells {
        let id = format!(
            "{}--{}",
            c["recipe"].as_str().unwrap_or("?"),
            c["fault"].as_str().unwrap_or("?")
        );
        let source = &c["source"];
        if source["driver"] == "sim" {
            let Some(struck) = source["struck_seeds"].as_u64() else {
                continue;
            };
            sims += 1;
            if struck == 0 && c["verdict"] != "n/a" {
                vacuous.push(format!("{id}: struck in no seed, yet {}", c["verdict"]));
            }
            continue;
        }
        if c["fault"] == "none" {
            continue;
        }
        let with = source["states"].as_u64().expect("states") as usize;
        let (without, had) = without_faults(&root.join(c["scenario"].as_str().expect("scenario")));
        if !had {
            settings.push(id);
            continue;
        }
        budgets += 1;
        // The report's own audit says the same, and a cell whose budget
        // was never spent is n/a.
        assert_eq!(source["fault_struck"], with > without, "{id}");
        if with <= without && c["verdict"] != "n/a" {
            vacuous.push(format!(
                "{id}: {with} states with its faults, {without} without, yet {}",
                c["verdict"]
            ));
        }
        never += usize::from(with <= without);
    }
    eprintln!(
        "{budgets} checker cells with a budget, {never} of them never spent it (n/a); \
         {sims} simulator holder cells counted; {} cells change a setting, not a budget: {}",
        settings.len(),
        settings.join(" ")
    );
    assert!(budgets > 100 && sims > 50, "{budgets} {sims}");
    assert!(vacuous.is_empty(), "vacuous cells:\n{}", vacuous.join("\n"));
}
