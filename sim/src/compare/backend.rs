//! The matrices of the backends that are not ZooKeeper — Redis, MySQL:
//! each has recipes and fault classes of its own (a Redis client has no
//! session to expire, a database lock has no lease), every cell judged by
//! its own exhaustive checker, drawn in the same pages with the same marks
//! ([`super::backend_pages`]).
//!
//! A backend is a [`Backend`]: its names and prose, its rows and columns,
//! and how one cell is judged — written as a scenario file of that backend
//! and checked by loading that very file, so that the command beside the
//! cell reproduces it ([`judged`] turns the checker's report into the cell).

use super::cell::{checked, CellResult};
use crate::scenario::CommandSpace;
use locksmith_model::engine::Trace;
use locksmith_model::zk::check::Report;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// A backend's matrix: what it is called, what it says, what it runs.
pub struct Backend {
    /// As headings read ("Redis").
    pub name: &'static str,
    /// `compare.json`'s key and the section's anchor (`<key>-locks`).
    pub key: &'static str,
    /// The section's opening paragraph.
    pub intro: &'static str,
    /// The paragraph after the legend: what the properties mean here.
    pub notes: &'static str,
    /// What a trace page says the search went through.
    pub explored: &'static str,
    /// The rows, in order.
    pub rows: fn() -> Vec<Row>,
    /// The columns, in order.
    pub faults: fn() -> Vec<Fault>,
    /// Judges the cell (recipe id, fault id); `out` is the report folder
    /// as the commands name it.
    pub run: fn(&str, &str, &str) -> Result<CellResult, String>,
}

/// One row: a recipe.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub recipe: &'static str,
    /// Clients in every cell of the row.
    pub clients: u8,
    /// Where the recipe comes from and what it claims.
    pub claim: &'static str,
    /// What to use instead (empty: nothing better here).
    pub instead: &'static str,
}

/// One column: a fault class.
#[derive(Clone, Debug, Serialize)]
pub struct Fault {
    /// As `--faults` and file names spell it.
    pub id: &'static str,
    /// As the column header reads.
    pub label: &'static str,
    /// The legend's sentence: what strikes, when, how often.
    pub about: &'static str,
}

/// One column of a command backend's matrix: its fault class, and how it
/// turns a row's configuration into the cell's.
pub struct FaultClass<S> {
    pub fault: Fault,
    pub apply: fn(&mut S),
}

/// A command backend's matrix, declared by its registry
/// (`<backend>_faults.rs`) and its cell file (`<backend>_cell.rs`): the
/// rest of a cell's run is the same for every command backend ([`run`]).
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
pub fn rows<S: CommandMatrix>() -> Vec<Row> {
    S::ROWS.to_vec()
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

/// A backend's recipes × its fault classes, judged.
pub struct BackendMatrix {
    pub backend: &'static Backend,
    pub recipes: Vec<Row>,
    pub faults: Vec<Fault>,
    /// Row-major, as the ZooKeeper matrix's cells.
    pub cells: Vec<CellResult>,
}

impl BackendMatrix {
    pub fn cell(&self, recipe: usize, fault: usize) -> &CellResult {
        &self.cells[recipe * self.faults.len() + fault]
    }
}

/// The cell's name, as file names and `--json` spell it.
pub fn cell_id(recipe: &str, fault: &str) -> String {
    format!("{recipe}--{fault}")
}

/// A cell's scenario file up to its backend's table: the generated-file
/// notice, the fault's sentence as the description, the recipe and sizes.
pub fn toml_head(recipe: &str, fault: &Fault, clients: u8, acquisitions: u8) -> String {
    format!(
        "# {recipe} × {}: a cell of `locksmith compare`, generated; do not edit\n\
         # (regenerate with `cargo run --release -- compare`).\n\
         description = {}\nrecipe = \"{recipe}\"\nclients = {clients}\nacquisitions = {acquisitions}\n",
        fault.label,
        toml::Value::String(fault.about.to_string()),
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

/// What a checker's `report` on the cell `recipe` × `fault` shows: its
/// verdicts, its headline and, if violated, the headline's shortest trace
/// (`mermaid` draws it). `scenario` is the cell's file as the report
/// names it, `text` the file's contents.
pub struct Judged<'a> {
    pub recipe: &'a str,
    pub fault: &'a str,
    pub scenario: String,
    pub text: String,
    pub out: &'a str,
    pub clients: u8,
    pub acquisitions: u8,
    /// The states without the file's faults (none without a budget).
    pub unfaulted: Option<usize>,
}

/// The cell, from the checker's report.
pub fn judged(j: Judged, report: &Report, mermaid: &dyn Fn(&Trace) -> String) -> CellResult {
    let id = cell_id(j.recipe, j.fault);
    let command = format!("cargo run --release -- check {}/{}", j.out, j.scenario);
    let page = format!("traces/{id}.md");
    let mut r = checked(
        report,
        (j.clients, j.acquisitions),
        j.unfaulted,
        command,
        page,
        mermaid,
        &|t| super::confirmed::of_trace(&t.steps),
    );
    r.confirmed = r
        .trace
        .as_ref()
        .and_then(|t| super::confirmed::mark(&id, &t.fingerprint));
    r.recipe = j.recipe.into();
    r.fault = j.fault.into();
    r.scenario = j.scenario;
    r.scenario_text = j.text;
    r
}

/// Runs the cell `recipe` × `fault` whose scenario file is `text`:
/// `check` loads the file as `locksmith check` does and explores it,
/// returning the report, the clients and rounds, and how its traces are
/// drawn. `out` is the report folder as the commands name it.
pub fn run_cell(
    recipe: &str,
    fault: &str,
    out: &str,
    text: String,
    check: impl FnOnce(&Path, &str) -> Result<Checked, String>,
) -> Result<CellResult, String> {
    let started = Instant::now();
    let scenario = format!("scenarios/{}.toml", cell_id(recipe, fault));
    let path = format!("{out}/{scenario}");
    let c = check(Path::new(&path), &text)?;
    let j = Judged {
        recipe,
        fault,
        scenario,
        text,
        out,
        clients: c.clients,
        acquisitions: c.acquisitions,
        unfaulted: c.unfaulted,
    };
    let mut r = judged(j, &c.report, &*c.mermaid);
    r.elapsed_ms = started.elapsed().as_millis();
    Ok(r)
}

/// A cell's scenario, explored by its backend's checker.
pub struct Checked {
    pub report: Report,
    pub clients: u8,
    pub acquisitions: u8,
    /// The states of the same file with its fault budget zeroed; none if
    /// it has no budget (see [`super::cell::Source::Check`]).
    pub unfaulted: Option<usize>,
    /// Draws one of its traces as a Mermaid sequence diagram.
    pub mermaid: Box<dyn Fn(&Trace) -> String>,
}

/// A command backend's cell file: the head, `fencing`, the backend's own
/// table (`table`, e.g. `[redis]` with its settings), the fault budgets
/// and the checker's bound.
pub fn cell_toml<S: CommandSpace>(s: &S, fault: &Fault, table: &str) -> String {
    let mut out = toml_head(s.recipe_id(), fault, s.clients(), s.acquisitions());
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

/// Breaks the checker's run when the user presses Ctrl-C.
pub fn interruptible(_: locksmith_model::engine::Progress) -> std::ops::ControlFlow<()> {
    if crate::interrupt::requested() {
        std::ops::ControlFlow::Break(())
    } else {
        std::ops::ControlFlow::Continue(())
    }
}
