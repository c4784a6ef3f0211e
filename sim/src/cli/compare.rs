//! `locksmith compare`: the recipe × fault matrix of the whole catalogue,
//! written to `reports/` (README.md, index.html, compare.json, traces/,
//! charts/, scenarios/). Exit codes: 0 every cell reached a verdict (holds
//! or violated), 2 an input is wrong, 3 a cell is incomplete.

use crate::backends::MATRICES;
use crate::compare::{self, files, Matrix, Options, Picked};
use crate::matrix::cell::{CellResult, Counts};
use crate::matrix::cell_markdown;
use clap::Args;
use locksmith_model::catalogue;
use locksmith_model::engine::harness::Verdict;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Only these recipes (comma-separated ids; default: the whole catalogue).
    #[arg(long, value_delimiter = ',')]
    pub recipes: Vec<String>,
    /// Only these fault classes (comma-separated ids; default: all).
    #[arg(long, value_delimiter = ',')]
    pub faults: Vec<String>,
    /// The report folder.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Print the matrix as one JSON object (the report is written too).
    #[arg(long)]
    pub json: bool,
    /// Parallel workers (OS threads; default: the machine's cores).
    #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
}

/// Picks the rows or columns named in `wanted` (all when empty), or says
/// which name is unknown and lists the valid ones.
fn select<T: Clone>(
    what: &str,
    wanted: &[String],
    all: &[T],
    name: impl Fn(&T) -> &str,
) -> Result<Vec<T>, String> {
    if wanted.is_empty() {
        return Ok(all.to_vec());
    }
    wanted
        .iter()
        .map(|w| {
            all.iter()
                .find(|x| name(x) == w.trim())
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = all.iter().map(&name).collect();
                    format!("unknown {what} `{w}`: expected one of {}", names.join(", "))
                })
        })
        .collect()
}

/// The options for these recipe and fault-class names (all when empty),
/// writing to `out`, on one thread; an unknown name is an error that lists
/// the valid ones. A name picks from every backend's matrix (`none` and
/// `crash` are columns of several); a matrix none of whose rows or columns
/// is named is left out.
pub fn options(recipes: &[String], faults: &[String], out: &str) -> Result<Options, String> {
    let all = MATRICES
        .iter()
        .map(|&b| {
            Ok(Picked {
                backend: b,
                recipes: (b.rows)()?,
                faults: (b.faults)(),
            })
        })
        .collect::<Result<Vec<Picked>, String>>()?;
    let its_recipe = |p: &Picked, n: &str| p.recipes.iter().any(|r| r.recipe == n);
    let its_fault = |p: &Picked, n: &str| p.faults.iter().any(|f| f.id == n);
    // Names of every matrix are checked together, so an unknown one lists
    // every valid name (a recipe's, every backend's: the catalogue's).
    let unknown = |wanted: &[String], is: &dyn Fn(&str) -> bool| {
        wanted.iter().find(|w| !is(w.trim())).cloned()
    };
    let mut fault_names: Vec<&str> = Vec::new();
    for f in all.iter().flat_map(|p| &p.faults) {
        if !fault_names.contains(&f.id) {
            fault_names.push(f.id);
        }
    }
    let any_recipe = |n: &str| all.iter().any(|p| its_recipe(p, n));
    let any_fault = |n: &str| all.iter().any(|p| its_fault(p, n));
    if let Some(w) = unknown(recipes, &any_recipe) {
        return Err(catalogue::unknown_recipe(&w));
    }
    if let Some(w) = unknown(faults, &any_fault) {
        return Err(format!(
            "unknown fault class `{w}`: expected one of {}",
            fault_names.join(", ")
        ));
    }
    let only = |wanted: &[String], is: &dyn Fn(&str) -> bool| -> Vec<String> {
        wanted.iter().filter(|w| is(w.trim())).cloned().collect()
    };
    // Named recipes or faults of other matrices only: this one is out.
    let left_out = |wanted: &[String], is: &dyn Fn(&str) -> bool| {
        !wanted.is_empty() && !wanted.iter().any(|w| is(w.trim()))
    };
    let mut matrices = Vec::new();
    for p in &all {
        let is_recipe = |n: &str| its_recipe(p, n);
        let is_fault = |n: &str| its_fault(p, n);
        let out = left_out(recipes, &is_recipe) || left_out(faults, &is_fault);
        matrices.push(Picked {
            backend: p.backend,
            recipes: pick(
                out,
                select("recipe", &only(recipes, &is_recipe), &p.recipes, |r| {
                    r.recipe
                }),
            )?,
            faults: pick(
                out,
                select("fault class", &only(faults, &is_fault), &p.faults, |f| f.id),
            )?,
        });
    }
    Ok(Options {
        matrices,
        out: out.to_string(),
        jobs: 1,
    })
}

/// `v`, or nothing when its matrix is left out.
fn pick<T>(out: bool, v: Result<Vec<T>, String>) -> Result<Vec<T>, String> {
    if out {
        Ok(Vec::new())
    } else {
        v
    }
}

/// The options the flags ask for, or the error `run` exits 2 with.
pub fn plan(a: &CompareArgs) -> Result<Options, String> {
    let mut o = options(&a.recipes, &a.faults, &a.out.display().to_string())?;
    if a.out.as_os_str().is_empty() {
        return Err("--out is empty: expected the report folder (default: reports)".into());
    }
    o.jobs = a
        .jobs
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(o)
}

pub fn run(a: &CompareArgs) -> i32 {
    let opts = match plan(a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    let started = Instant::now();
    let bar = crate::progress::Progress::counter(
        compare::job_count(&opts) as u64,
        "jobs",
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}",
    );
    let timings = std::sync::Mutex::new(Vec::new());
    let done = |d: compare::Done| {
        bar.set_message(format!("{}: {}", d.name, d.summary));
        bar.inc(1);
        timings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((d.elapsed_ms, format!("{}: {}", d.name, d.summary)));
    };
    let matrix = compare::run(&opts, &done);
    bar.finish_and_clear();
    if crate::interrupt::requested() {
        // What it covered, and nothing written: a half matrix is no report.
        let t = timings.into_inner().unwrap_or_else(|e| e.into_inner());
        for (_, line) in &t {
            println!("{line}");
        }
        println!(
            "interrupted ({}) after {} of {} jobs: no report written ({} unchanged)",
            crate::interrupt::what(),
            t.len(),
            compare::job_count(&opts),
            a.out.display()
        );
        return crate::interrupt::exit_code();
    }
    let m = match matrix {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let report = match files::build(&m) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot draw the report: {e}");
            return 2;
        }
    };
    if let Err(e) = files::write(&a.out, &report) {
        eprintln!("error: cannot write {}: {e}", a.out.display());
        return 2;
    }
    let full = a.recipes.is_empty() && a.faults.is_empty();
    let readme = a.out.parent().unwrap_or(Path::new("")).join("README.md");
    if full {
        if let Ok(text) = std::fs::read_to_string(&readme) {
            if let Some(new) = files::with_excerpt(&text, &files::excerpt(&m)) {
                if new != text {
                    if let Err(e) = files::write_atomic(&readme, &new) {
                        eprintln!("error: cannot update {}: {e}", readme.display());
                        return 2;
                    }
                }
            }
        }
    }
    let mut t = timings.into_inner().unwrap_or_else(|e| e.into_inner());
    t.sort_by(|a, b| b.cmp(a));
    let slow: Vec<String> = t
        .iter()
        .take(5)
        .map(|(ms, n)| {
            let name = n.split(':').next().unwrap_or(n);
            format!("{name} {:.1} s", *ms as f64 / 1000.0)
        })
        .collect();
    eprintln!(
        "compare: {} jobs on {} threads in {:.1} s wall; slowest: {}",
        t.len(),
        opts.jobs,
        started.elapsed().as_secs_f64(),
        slow.join(", ")
    );
    if a.json {
        println!("{}", compare::json::value(&m));
    } else {
        print!("{}", text(&m, &a.out, report.len()));
    }
    if m.cells().any(|c| c.verdict == Verdict::Incomplete) {
        crate::exit::INCOMPLETE
    } else {
        0
    }
}

/// What the command prints: the counts, the matrix in the terminal, where
/// the report went. The first matrix's counts head it (even with no
/// cells); each further matrix with cells follows under its name.
fn text(m: &Matrix, out: &Path, files: usize) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for (i, b) in m.matrices.iter().enumerate() {
        let counts = format!(
            "{} recipes × {} fault classes = {} cells: {}",
            b.recipes.len(),
            b.faults.len(),
            b.cells.len(),
            Counts::of(&b.cells)
        );
        if i == 0 {
            let _ = writeln!(o, "locksmith compare: {counts}\n");
        } else if !b.cells.is_empty() {
            let _ = writeln!(o, "\n{}: {counts}\n", b.backend.name);
        } else {
            continue;
        }
        let faults: Vec<&str> = b.faults.iter().map(|f| f.id).collect();
        let rows: Vec<&str> = b.recipes.iter().map(|x| x.recipe).collect();
        let first = b.backend.pages.terminal_width(b);
        grid(&mut o, first, &faults, &rows, &|r, f| b.cell(r, f));
    }
    let _ = writeln!(
        o,
        "\n✓ holds (✓ at res.: fenced, guarded or listening, the resource accepted no write out of turn), ✗ violated (property, shortest trace length), ? incomplete, – n/a (the holder fault never struck inside a critical section); check columns explored exhaustively, sim columns over seeds.\nreport: {dir}/README.md (matrix, legend, charts, recipes), {dir}/index.html (one offline page), {dir}/compare.json, {dir}/traces/ — {files} files",
        dir = out.display()
    );
    o
}

/// One matrix as terminal columns.
/// The first column is `first` wide.
fn grid<'m>(
    o: &mut String,
    first: usize,
    faults: &[&str],
    rows: &[&str],
    cell: &dyn Fn(usize, usize) -> &'m CellResult,
) {
    use std::fmt::Write;
    let width = 14;
    let _ = write!(o, "{:<first$}", "");
    for f in faults {
        let id: String = f.chars().take(width - 1).collect();
        let _ = write!(o, "{id:<width$}");
    }
    o.push('\n');
    for (r, name) in rows.iter().enumerate() {
        let _ = write!(o, "{name:<first$}");
        for f in 0..faults.len() {
            let c = cell(r, f);
            let s = match (c.verdict, c.property) {
                (Verdict::Violated, Some(p)) => format!(
                    "✗ {}{}",
                    cell_markdown::short(p),
                    c.trace
                        .as_ref()
                        .map(|t| format!(" {}", t.steps))
                        .unwrap_or_default()
                ),
                (Verdict::Incomplete, Some(p)) => format!("? {}", cell_markdown::short(p)),
                (Verdict::NotApplicable, _) => "– n/a".into(),
                _ if c.belief.is_some() => "✓ at res.".into(),
                _ => "✓ holds".into(),
            };
            let _ = write!(o, "{s:<width$}");
        }
        o.push('\n');
    }
}
