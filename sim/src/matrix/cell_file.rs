//! What every cell's scenario file starts with, and its `[faults]` table:
//! a cell is written as a scenario file of its backend and judged by
//! loading that very file, so that the command beside the cell reproduces
//! it.

/// A cell's scenario file up to its backend's table: the generated-file
/// notice, the fault's sentence (`about`) as the description, the recipe
/// and its `size` (clients, acquisitions). `label` is the column's.
pub fn toml_head(recipe: &str, label: &str, about: &str, size: (u8, u8)) -> String {
    let (clients, acquisitions) = size;
    format!(
        "# {recipe} × {label}: a cell of `locksmith compare`, generated; do not edit\n\
         # (regenerate with `cargo run --release -- compare`).\n\
         description = {}\nrecipe = \"{recipe}\"\nclients = {clients}\nacquisitions = {acquisitions}\n",
        toml::Value::String(about.to_string()),
    )
}

/// A scenario file's `[faults]` table: the budgets above zero, if any.
pub fn toml_faults(budgets: &[(&str, u8)]) -> String {
    let mut out = String::new();
    if budgets.iter().any(|(_, n)| *n > 0) {
        out.push_str("\n[faults]\n");
        for (k, n) in budgets.iter().filter(|(_, n)| *n > 0) {
            out.push_str(&format!("{k} = {n}\n"));
        }
    }
    out
}
