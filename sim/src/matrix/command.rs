//! A command backend's matrix (Redis, MySQL, etcd): its registry declares
//! the rows, the columns as [`FaultClass`]es over its checker space and
//! its own table of the cell file ([`CommandMatrix`]); the rest of a
//! cell's run is the same for every command backend ([`run`]): its row's
//! space under its column's fault, written as the backend's scenario file
//! and judged by loading that very file as `locksmith check` does.

use super::axes::{Fault, Row};
use super::cell::CellResult;
use super::cell_file::{toml_faults, toml_head};
use super::checked::{interruptible, run_cell, Checked};
use crate::scenario::CommandSpace;
use std::path::Path;

/// One column of a command backend's matrix: its fault class, and how it
/// turns a row's configuration into the cell's.
pub struct FaultClass<S> {
    pub fault: Fault,
    pub apply: fn(&mut S),
}

/// A command backend's matrix, declared in its folder (the columns in
/// its fault table, `<backend>/faults.rs`; the rows in `compare/rows.rs`,
/// this impl in `compare/cell.rs`): the rest of a cell's run is the same for every command
/// backend ([`run`]).
pub trait CommandMatrix: CommandSpace {
    /// The rows, in order.
    const ROWS: &'static [Row];
    /// The columns, in order.
    const FAULTS: &'static [FaultClass<Self>];
    /// A row's configuration before its column's fault (`None`: not one of
    /// this backend's recipes).
    fn row_space(row: &Row) -> Option<Self>;
    /// The cell file's table of the backend's own settings (`[redis]` and
    /// its times).
    fn table(&self) -> String;
}

/// The rows of `S`'s matrix.
pub fn rows<S: CommandMatrix>() -> Result<Vec<Row>, String> {
    Ok(S::ROWS.to_vec())
}

/// The columns of `S`'s matrix.
pub fn columns<S: CommandMatrix>() -> Vec<Fault> {
    S::FAULTS.iter().map(|f| f.fault.clone()).collect()
}

/// Runs the cell `recipe` × `fault` of `S`'s matrix (ids of its rows and
/// columns): its row's configuration under its column's fault, written as
/// the backend's scenario file ([`cell_toml`]) and judged by loading that
/// very file. `out` is the report folder as the commands name it.
pub fn run<S: CommandMatrix>(recipe: &str, fault: &str, out: &str) -> Result<CellResult, String> {
    let class = S::FAULTS
        .iter()
        .find(|f| f.fault.id == fault)
        .ok_or_else(|| format!("no {} fault class `{fault}`", S::BACKEND.name()))?;
    let mut s = S::ROWS
        .iter()
        .find(|r| r.recipe == recipe)
        .and_then(S::row_space)
        .ok_or_else(|| format!("no {} recipe `{recipe}`", S::BACKEND.name()))?;
    (class.apply)(&mut s);
    let text = cell_toml(&s, &class.fault, &s.table());
    run_cell(recipe, fault, out, text, check_file::<S>)
}

/// A command backend's cell file: the head, `fencing`, the backend's own
/// table (`table`, e.g. `[redis]` with its settings), the fault budgets
/// and the checker's bound.
pub fn cell_toml<S: CommandSpace>(s: &S, fault: &Fault, table: &str) -> String {
    let size = (s.clients(), s.acquisitions());
    let mut out = toml_head(s.recipe_id(), fault.label, fault.about, size);
    if s.fencing() {
        out.push_str("fencing = true\n");
    }
    out.push_str(table);
    out.push_str(&toml_faults(&s.fault_budgets()));
    out.push_str(&format!(
        "\n[check]\nmax_states = {}\n",
        s.limits().max_states
    ));
    out
}

/// Reads a command backend's cell file as `locksmith check` reads it and
/// explores it, with the same file without its fault budget beside it.
pub fn check_file<S: CommandSpace>(path: &Path, text: &str) -> Result<Checked, String> {
    let sc = S::parse(path, text).map_err(|e| e.to_string())?;
    let space = sc.space.clone();
    Ok(Checked {
        report: sc.space.check_with_progress(&mut interruptible),
        unfaulted: sc.space.unfaulted().map(|none| none.check().states),
        clients: sc.space.clients(),
        acquisitions: sc.space.acquisitions(),
        mermaid: Box::new(move |t| space.mermaid(t)),
    })
}
