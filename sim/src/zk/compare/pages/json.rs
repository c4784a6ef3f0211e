//! ZooKeeper's part of `compare.json`, at its top level: its fault classes
//! (each with its driver), the classes not modelled yet, its recipes with
//! their sizes, its counts, cells and cost points.

use super::View;
use crate::matrix::axes::Driver;
use crate::matrix::cell::Counts;
use crate::matrix::costs::CostPoint;
use crate::zk::compare::faults::{NOT_MODELLED, NOT_MODELLED_ISSUE};
use crate::zk::compare::recipes::{Setup, Sizes};
use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Serialize)]
struct Fault {
    id: &'static str,
    label: &'static str,
    driver: Driver,
    about: &'static str,
}

#[derive(Serialize)]
struct NotModelled {
    fault: &'static str,
    about: &'static str,
    status: String,
}

#[derive(Serialize)]
struct Recipe<'a> {
    id: &'static str,
    origin: &'static str,
    setup: &'a Setup,
    /// Sizes that differ under some fault classes.
    per_fault: &'a std::collections::BTreeMap<String, Sizes>,
}

/// Puts ZooKeeper's keys into the top-level object.
pub(super) fn into(v: &View, top: &mut Map<String, Value>) {
    let faults: Vec<Fault> = v
        .faults
        .iter()
        .map(|f| Fault {
            id: f.id,
            label: f.label,
            driver: f.driver,
            about: f.about,
        })
        .collect();
    let not_modelled: Vec<NotModelled> = NOT_MODELLED
        .iter()
        .map(|(fault, about)| NotModelled {
            fault,
            about,
            status: format!("not modelled yet ({NOT_MODELLED_ISSUE})"),
        })
        .collect();
    let recipes: Vec<Recipe> = v
        .rows
        .iter()
        .map(|r| Recipe {
            id: r.id.name(),
            origin: r.id.origin(),
            setup: &r.setup,
            per_fault: &r.per_fault,
        })
        .collect();
    let costs: Vec<&CostPoint> = v.m.costs.iter().flat_map(|s| &s.points).collect();
    let mut put = |key: &str, value: Result<Value, serde_json::Error>| {
        top.insert(key.into(), value.unwrap_or(Value::Null));
    };
    put("faults", serde_json::to_value(faults));
    put("not_modelled", serde_json::to_value(not_modelled));
    put("recipes", serde_json::to_value(recipes));
    put("summary", serde_json::to_value(Counts::of(&v.m.cells)));
    put("cells", serde_json::to_value(&v.m.cells));
    put("costs", serde_json::to_value(costs));
}
