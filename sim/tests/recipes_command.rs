//! `locksmith recipes`: every recipe of the catalogue is listed, with its
//! claim and the breaks its scenario files pin — and only those.

mod binary;

use binary::locksmith;
use locksmith_model::zk::recipes::RecipeId;
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
    let want: Vec<&str> = RecipeId::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(ids, want);
    for (r, id) in rows.iter().zip(RecipeId::ALL) {
        assert_eq!(r["origin"], id.origin());
        assert_eq!(r["claim"], id.claim());
        assert!(!id.claim().is_empty(), "{id} claims nothing");
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
fn text_names_each_recipe_and_says_none_for_fault_free_breaks() {
    let (code, out, err) = locksmith(&["recipes"]);
    assert_eq!(code, 0, "{err}");
    for r in RecipeId::ALL {
        assert!(
            out.lines().any(|l| l.starts_with(r.name())),
            "{r} missing:\n{out}"
        );
    }
    assert!(out.contains("holder_expiries → mutual exclusion"), "{out}");
    assert!(out.contains("none (no faults) → deadlock"), "{out}");
}

#[test]
fn a_missing_scenario_folder_exits_2_and_says_so() {
    let (code, _, err) = locksmith(&["recipes", "--scenarios", "no/such/folder"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/folder"), "{err}");
}
