//! `reports/compare.json`, and what `--json` prints: the matrices for
//! machines, with the same names as every other `--json` (property names,
//! verdicts `holds` / `violated` / `incomplete` / `n/a`): the headline
//! order, then each backend's part as its pages put it (ZooKeeper's at
//! the top level, each other backend's under its key).

use super::Matrix;
use locksmith_model::engine::harness::Property;
use serde_json::{Map, Value};

/// The matrices as one JSON value.
pub fn value(m: &Matrix) -> Value {
    let mut top = Map::new();
    top.insert(
        "regenerate".into(),
        Value::from("cargo run --release -- compare"),
    );
    let properties: Vec<Value> = Property::ALL.iter().map(|p| p.name().into()).collect();
    top.insert("properties".into(), Value::Array(properties));
    for b in &m.matrices {
        b.backend.pages.json(b, &mut top);
    }
    Value::Object(top)
}

/// `compare.json`'s text: pretty, with a final newline.
pub fn text(m: &Matrix) -> String {
    let mut s = serde_json::to_string_pretty(&value(m)).unwrap_or_default();
    s.push('\n');
    s
}
