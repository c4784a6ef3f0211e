//! `locksmith compare`: every recipe of the catalogue under every fault
//! class of its backend, each cell judged in the same run by the checker
//! or the simulator, with the simulator's costs beside the verdicts,
//! written as the report in `reports/`.
//!
//! Each backend declares its matrix in its own folder
//! (`crate::zk::compare`, `crate::redis::compare`, ...) on the shared types
//! of [`crate::matrix`] — its rows, its fault classes, how a cell is
//! judged, what else it measures, how its part of each page is drawn —
//! and [`crate::backends::MATRICES`] lists them. This folder names no
//! backend: [`run`] judges every picked matrix alike, and the pages put
//! them together:
//!
//! - [`answer`]: which lock to use, read off the cells (first in every page);
//! - [`markdown`], [`html`], [`json`]: the report's pages, each backend's
//!   part drawn by its pages; [`trace_html`] and [`sequence_svg`]: each
//!   trace's own HTML page and its diagram;
//! - [`files`]: the report as a set of files, written or compared.
//!
//! Everything written is a function of the catalogue, the registries, the
//! committed records of confirmed cells and the model: no timestamps, no
//! timings (those go to stderr), so `cargo test` can hold the committed
//! report to what this run produces.

pub mod answer;
pub mod files;
pub mod html;
pub mod json;
pub mod markdown;
pub mod sequence_svg;
pub mod trace_html;

use crate::matrix::axes::{Fault, Row};
use crate::matrix::backend::{Backend, BackendMatrix};
use crate::matrix::cell::{cell_id, CellResult};
use crate::matrix::costs::CostSeries;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What to compare.
pub struct Options {
    /// Every backend's matrix, in [`crate::backends::MATRICES`]' order:
    /// the rows and columns picked of each (none: the backend is left out).
    pub matrices: Vec<Picked>,
    /// The report folder as commands in the report name it (`reports`).
    pub out: String,
    /// Parallel workers (OS threads).
    pub jobs: usize,
}

/// A backend's rows and columns, as picked for a run.
pub struct Picked {
    pub backend: &'static Backend,
    pub recipes: Vec<Row>,
    pub faults: Vec<Fault>,
}

/// Every backend's matrix, judged, in the options' order.
pub struct Matrix {
    pub matrices: Vec<BackendMatrix>,
    /// The report folder as the commands name it.
    pub out: String,
}

impl Matrix {
    /// Every cell of every matrix.
    pub fn cells(&self) -> impl Iterator<Item = &CellResult> {
        self.matrices.iter().flat_map(|b| &b.cells)
    }
}

/// One unit of work: a cell (matrix, recipe, fault), or a recipe's cost
/// series (matrix, recipe).
enum Job {
    Cell(usize, usize, usize),
    Costs(usize, usize),
}

/// What a finished job reports to the progress display.
pub struct Done<'a> {
    pub name: String,
    pub elapsed_ms: u128,
    pub summary: &'a str,
}

enum Output {
    Cell(Box<CellResult>),
    Costs(CostSeries),
}

/// Every job of `opts`, in the matrices' order: each matrix's cells row by
/// row, then its cost series.
fn jobs(opts: &Options) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (b, p) in opts.matrices.iter().enumerate() {
        for r in 0..p.recipes.len() {
            for f in 0..p.faults.len() {
                jobs.push(Job::Cell(b, r, f));
            }
        }
        if p.backend.costs.is_some() {
            jobs.extend((0..p.recipes.len()).map(|r| Job::Costs(b, r)));
        }
    }
    jobs
}

/// Runs one job: its name for the progress display, and its output.
fn run_job(opts: &Options, job: &Job) -> (String, Result<Output, String>) {
    match *job {
        Job::Cell(b, r, f) => {
            let p = &opts.matrices[b];
            let (recipe, fault) = (p.recipes[r].recipe, p.faults[f].id);
            (
                cell_id(recipe, fault),
                (p.backend.run)(recipe, fault, &opts.out).map(|c| Output::Cell(Box::new(c))),
            )
        }
        Job::Costs(b, r) => {
            let p = &opts.matrices[b];
            let recipe = p.recipes[r].recipe;
            let out = match p.backend.costs {
                Some(costs) => costs(recipe, &opts.out).map(Output::Costs),
                None => Err(format!("{} has no cost series", p.backend.name)),
            };
            (format!("costs of {recipe}"), out)
        }
    }
}

/// Runs every cell and every cost series over `opts.jobs` threads; the
/// result's order is the matrices', whatever the threads' order. `done`
/// is called after each job.
pub fn run(opts: &Options, done: &(dyn Fn(Done) + Sync)) -> Result<Matrix, String> {
    let jobs = jobs(opts);
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
        let (name, out) = run_job(opts, job);
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
    let mut matrices: Vec<BackendMatrix> = opts
        .matrices
        .iter()
        .map(|p| BackendMatrix {
            backend: p.backend,
            recipes: p.recipes.clone(),
            faults: p.faults.clone(),
            cells: Vec::new(),
            costs: Vec::new(),
        })
        .collect();
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    for (job, out) in jobs.iter().zip(results) {
        match (job, out.ok_or("a worker thread stopped early")??) {
            (Job::Cell(b, ..), Output::Cell(mut c)) => {
                let m = &mut matrices[*b];
                if let Some(committed) = m.backend.record {
                    committed.record().mark_cell(&mut c);
                }
                m.cells.push(*c);
            }
            (Job::Costs(b, _), Output::Costs(series)) => matrices[*b].costs.push(series),
            _ => return Err("a job returned the wrong kind of result".into()),
        }
    }
    Ok(Matrix {
        matrices,
        out: opts.out.clone(),
    })
}

/// Every job's count, for a progress bar.
pub fn job_count(opts: &Options) -> usize {
    jobs(opts).len()
}

#[cfg(test)]
mod tests {
    use crate::backends::MATRICES;
    use crate::matrix::confirmed::{short, Record};

    #[test]
    fn every_backends_record_parses() {
        let marks: Vec<&str> = MATRICES
            .iter()
            .filter_map(|b| b.record)
            .map(|c| {
                let r: Record = toml::from_str(c.text).expect(c.path);
                assert!(r.cells.values().all(|f| f.len() == 16), "{}", c.path);
                short(&c.record().server)
            })
            .collect();
        assert_eq!(marks, ["ZK", "Redis"]);
    }
}
