//! `locksmith compare`: every recipe of the catalogue under every fault
//! class, each cell judged in the same run by the checker or the simulator,
//! with the simulator's costs beside the verdicts, written as the report in
//! `reports/`.
//!
//! - [`answer`]: which lock to use, read off the cells (first in every page);
//! - [`faults`]: the registry of fault classes (the matrix's columns);
//! - [`recipes`]: each recipe's comparison configuration and prose (rows);
//! - [`cell`]: one cell, as a scenario file, judged;
//! - [`backend_pages`]: the matrices of the other backends, each its
//!   recipes × its fault classes judged by its own checker, drawn in the
//!   same pages; each backend declares its matrix in its own folder
//!   (`crate::redis::compare`, ...) on the shared types of
//!   [`crate::matrix`], and [`crate::backends::MATRICES`] lists them;
//! - [`costs`], [`charts`]: the cost figures and their SVG charts;
//! - [`markdown`], [`html`], [`json`]: the report's pages; [`tables`]: the
//!   matrix and a recipe's cells, as every matrix's pages draw them; [`trace_html`]: each
//!   trace's own HTML page;
//! - [`files`]: the report as a set of files, written or compared.
//!
//! Everything written is a function of the catalogue, the registry, the
//! committed record of confirmed cells ([`confirmed`]) and the
//! model: no timestamps, no timings (those go to stderr), so `cargo test`
//! can hold the committed report to what this run produces.

pub mod answer;
pub mod backend_pages;
pub mod cell_html;
pub mod cell_lines;
pub mod cell_markdown;
pub mod charts;
pub mod confirmed;
pub mod files;
pub mod html;
pub mod json;
pub mod markdown;
pub mod sequence_svg;
pub mod tables;
pub mod trace_html;

use crate::matrix::backend::{cell_id, Backend, BackendMatrix, Fault, Row};
use crate::matrix::cell::CellResult;
use crate::zk::compare::cell;
use crate::zk::compare::costs::{self, CostPoint};
use crate::zk::compare::faults::FaultClass;
use crate::zk::compare::recipes::RecipeRow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What to compare.
pub struct Options {
    pub recipes: Vec<RecipeRow>,
    pub faults: Vec<&'static FaultClass>,
    /// The other backends' matrices: the rows and columns picked of each
    /// (a backend with none is left out).
    pub backends: Vec<Picked>,
    /// The report folder as commands in the report name it (`reports`).
    pub out: String,
    /// Parallel workers (OS threads).
    pub jobs: usize,
}

/// The judged matrix and the costs.
pub struct Matrix {
    pub recipes: Vec<RecipeRow>,
    pub faults: Vec<&'static FaultClass>,
    /// Row-major: recipe by recipe, fault by fault.
    pub cells: Vec<CellResult>,
    /// Per recipe, its cost series.
    pub costs: Vec<(String, Vec<CostPoint>)>,
    /// The other backends' matrices, in [`crate::backends::MATRICES`]'
    /// order.
    pub backends: Vec<BackendMatrix>,
    /// The report folder as the commands name it.
    pub out: String,
}

impl Matrix {
    pub fn cell(&self, recipe: usize, fault: usize) -> &CellResult {
        &self.cells[recipe * self.faults.len() + fault]
    }
}

/// A backend's rows and columns, as picked for a run.
pub struct Picked {
    pub backend: &'static Backend,
    pub recipes: Vec<Row>,
    pub faults: Vec<Fault>,
}

/// One unit of work: a cell, or a recipe's cost series.
enum Job {
    Cell(usize, usize),
    Costs(usize),
    /// Backend, recipe, fault.
    Backend(usize, usize, usize),
}

/// What a finished job reports to the progress display.
pub struct Done<'a> {
    pub name: String,
    pub elapsed_ms: u128,
    pub summary: &'a str,
}

enum Output {
    Cell(Box<CellResult>),
    Costs(Vec<CostPoint>),
}

/// Runs every cell and every cost series over `opts.jobs` threads; the
/// result's order is the matrix's, whatever the threads' order. `done` is
/// called after each job.
pub fn run(opts: &Options, done: &(dyn Fn(Done) + Sync)) -> Result<Matrix, String> {
    let mut jobs = Vec::new();
    for r in 0..opts.recipes.len() {
        for f in 0..opts.faults.len() {
            jobs.push(Job::Cell(r, f));
        }
    }
    jobs.extend((0..opts.recipes.len()).map(Job::Costs));
    for (b, p) in opts.backends.iter().enumerate() {
        for r in 0..p.recipes.len() {
            for f in 0..p.faults.len() {
                jobs.push(Job::Backend(b, r, f));
            }
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Output, String>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let work = || loop {
        if crate::interrupt::requested() {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.get(i) else { break };
        let started = std::time::Instant::now();
        let (name, out) = match *job {
            Job::Cell(r, f) => {
                let (row, fault) = (&opts.recipes[r], opts.faults[f]);
                let name = cell::cell_id(row.id, fault);
                (
                    name,
                    cell::run(row, fault, &opts.out).map(|c| Output::Cell(Box::new(c))),
                )
            }
            Job::Costs(r) => {
                let row = &opts.recipes[r];
                (
                    format!("costs of {}", row.id),
                    costs::run(row, &opts.out).map(Output::Costs),
                )
            }
            Job::Backend(b, r, f) => {
                let p = &opts.backends[b];
                let (recipe, fault) = (p.recipes[r].recipe, p.faults[f].id);
                (
                    cell_id(recipe, fault),
                    (p.backend.run)(recipe, fault, &opts.out).map(|c| Output::Cell(Box::new(c))),
                )
            }
        };
        let summary = match &out {
            Ok(Output::Cell(c)) => match c.property {
                Some(p) => format!("{}: {}", c.verdict, p),
                None => c.verdict.to_string(),
            },
            Ok(Output::Costs(_)) => "done".into(),
            Err(e) => format!("error: {e}"),
        };
        done(Done {
            name,
            elapsed_ms: started.elapsed().as_millis(),
            summary: &summary,
        });
        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(out);
    };
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(work);
        }
    });
    let mut cells = Vec::new();
    let mut costs = Vec::new();
    let mut backend_cells: Vec<Vec<CellResult>> =
        opts.backends.iter().map(|_| Vec::new()).collect();
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    for (job, out) in jobs.iter().zip(results) {
        let mut out = out.ok_or("a worker thread stopped early")??;
        if let Output::Cell(c) = &mut out {
            confirmed::mark_cell(c);
        }
        match (job, out) {
            (Job::Cell(..), Output::Cell(c)) => cells.push(*c),
            (Job::Backend(b, ..), Output::Cell(c)) => backend_cells[*b].push(*c),
            (Job::Costs(r), Output::Costs(ps)) => {
                costs.push((opts.recipes[*r].id.name().to_string(), ps))
            }
            _ => return Err("a job returned the wrong kind of result".into()),
        }
    }
    Ok(Matrix {
        recipes: opts.recipes.clone(),
        faults: opts.faults.clone(),
        cells,
        costs,
        backends: opts
            .backends
            .iter()
            .zip(backend_cells)
            .map(|(p, cells)| BackendMatrix {
                backend: p.backend,
                recipes: p.recipes.clone(),
                faults: p.faults.clone(),
                cells,
            })
            .collect(),
        out: opts.out.clone(),
    })
}

/// Every job's count, for a progress bar.
pub fn job_count(opts: &Options) -> usize {
    opts.recipes.len() * (opts.faults.len() + 1)
        + opts
            .backends
            .iter()
            .map(|p| p.recipes.len() * p.faults.len())
            .sum::<usize>()
}
