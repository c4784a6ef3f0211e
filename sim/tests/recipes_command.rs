//! `locksmith recipes`: every recipe of every backend's catalogue is
//! listed, with its backend, its claim and the breaks its scenario files
//! pin — and only those.

mod binary;

use binary::locksmith;
use locksmith_model::catalogue::{self, Backend};
use serde_json::Value;

fn listing() -> Vec<Value> {
    let (code, out, err) = locksmith(&["recipes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("one JSON array");
    v.as_array().expect("an array").clone()
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed"))
}

#[test]
fn every_catalogue_recipe_is_listed_in_order_with_its_fields() {
    let rows = listing();
    let ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    let all = catalogue::all();
    let want: Vec<&str> = all.iter().map(|e| e.id).collect();
    assert_eq!(ids, want);
    for (r, e) in rows.iter().zip(&all) {
        assert_eq!(r["backend"], e.backend.name());
        assert_eq!(r["origin"], e.origin);
        assert_eq!(r["claim"], e.claim);
        for b in r["broken_by"].as_array().expect("broken_by is an array") {
            assert!(
                b["scenario"].is_string() && b["property"].is_string(),
                "{b}"
            );
            assert!(b["faults"].is_array(), "{b}");
        }
    }
}

#[test]
fn all_34_recipes_of_the_four_backends_are_listed_once_with_an_origin_and_a_claim() {
    let rows = listing();
    assert_eq!(rows.len(), 34);
    let count = |b: Backend| rows.iter().filter(|r| r["backend"] == b.name()).count();
    assert_eq!(
        (
            count(Backend::ZooKeeper),
            count(Backend::Redis),
            count(Backend::Mysql),
            count(Backend::Etcd)
        ),
        (17, 9, 5, 3)
    );
    let mut ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 34, "an id is listed twice");
    for r in &rows {
        for key in ["origin", "claim"] {
            assert!(
                r[key].as_str().is_some_and(|s| !s.trim().is_empty()),
                "{} has no {key}",
                r["id"]
            );
        }
    }
}

#[test]
fn redis_and_mysql_recipes_show_the_breaks_their_scenarios_pin() {
    let rows = listing();
    let by = |id: &str| {
        row(&rows, id)["broken_by"]
            .as_array()
            .expect("array")
            .clone()
    };
    let redis = by("redis-set-px-del");
    assert!(
        redis
            .iter()
            .any(|b| b["scenario"] == "redis-set-px-del-pause"
                && b["driver"] == "check"
                && b["faults"] == serde_json::json!(["pauses"])
                && b["property"] == "mutual exclusion"),
        "{redis:?}"
    );
    // Its fault-free scenario holds: it is no break.
    assert!(
        !redis.iter().any(|b| b["scenario"] == "redis-set-px-del"),
        "{redis:?}"
    );
    let mysql = by("mysql-unique-key");
    assert!(
        mysql
            .iter()
            .any(|b| b["scenario"] == "mysql-unique-key-crash"
                && b["faults"] == serde_json::json!(["crashes"])
                && b["property"] == "stuck lock"),
        "{mysql:?}"
    );
    // The seeds' cleanup job breaks it as a fault does.
    assert!(
        mysql
            .iter()
            .any(|b| b["scenario"] == "mysql-unique-key-cleanup"
                && b["faults"] == serde_json::json!(["mysql.cleanup_after = 3"])
                && b["property"] == "mutual exclusion"),
        "{mysql:?}"
    );
    let missing_row = by("mysql-for-update");
    assert!(
        missing_row
            .iter()
            .any(|b| b["faults"] == serde_json::json!(["mysql.lock_row = false"])),
        "{missing_row:?}"
    );
}

#[test]
fn predecessor_is_broken_by_holder_expiry_and_herd_lowest_by_nothing_but_a_herd() {
    let rows = listing();
    let by = row(&rows, "predecessor")["broken_by"]
        .as_array()
        .expect("array")
        .clone();
    assert!(
        by.iter()
            .any(|b| b["scenario"] == "predecessor-holder-expiry"
                && b["driver"] == "check"
                && b["faults"] == serde_json::json!(["holder_expiries"])
                && b["property"] == "mutual exclusion"),
        "{by:?}"
    );
    // The fault-free predecessor scenario holds: it is no break.
    assert!(!by.iter().any(|b| b["scenario"] == "predecessor"), "{by:?}");
    let herd = row(&rows, "herd-lowest")["broken_by"]
        .as_array()
        .expect("array")
        .clone();
    assert!(!herd.is_empty());
    assert!(
        herd.iter()
            .all(|b| b["faults"] == serde_json::json!([]) && b["property"] == "herd"),
        "{herd:?}"
    );
}

#[test]
fn text_names_each_recipe_with_its_backend_and_says_none_for_fault_free_breaks() {
    let (code, out, err) = locksmith(&["recipes"]);
    assert_eq!(code, 0, "{err}");
    for e in catalogue::all() {
        let first = format!(" {} — {}", e.backend.name(), e.origin);
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("{} ", e.id)) && l.ends_with(&first)),
            "{} missing:\n{out}",
            e.id
        );
    }
    assert!(out.contains("holder_expiries → mutual exclusion"), "{out}");
    assert!(out.contains("none (no faults) → deadlock"), "{out}");
    assert!(out.contains("pauses → mutual exclusion"), "{out}");
    assert!(out.contains("crashes → stuck lock"), "{out}");
}

#[test]
fn a_missing_scenario_folder_exits_2_and_says_so() {
    let (code, _, err) = locksmith(&["recipes", "--scenarios", "no/such/folder"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/folder"), "{err}");
}
