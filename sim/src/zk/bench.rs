//! `locksmith bench`: figures for the exhaustive checker on ZooKeeper's
//! recipes (its benchmark cases), measured here and
//! printed (never asserted in a test): states, states per second, bytes
//! per state and peak memory for each benchmark case, with one thread and
//! with two.
//!
//! Every case runs in a process of its own (this binary, `bench --case`),
//! so its peak memory is its own and not the largest of the cases before
//! it; the process stops itself at the time bound and says how far it got.

use crate::zk::scenario::Scenario;
use clap::Args;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{zk::check::check, zk::check::CheckConfig, zk::check::Property};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Also run fixed-wait with 5 and 6 clients, predecessor 4 × 2 and the
    /// Curator scenarios users wait on (curator-604, -owner-check,
    /// -guarded, curator-test-killed-session): minutes, not seconds.
    #[arg(long)]
    pub large: bool,
    /// The numbers of threads to run each case with, e.g. `1,2`.
    #[arg(short, long, value_delimiter = ',', default_value = "1,2",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Vec<u16>,
    /// Stop a case after this many seconds (it is then incomplete, and the
    /// table says how far it got).
    #[arg(long, default_value_t = 600, value_parser = crate::counts::at_least_one)]
    pub max_seconds: u64,
    /// Also run every case with partial-order reduction (rows marked
    /// `+por`; with `--case`, run that case with it).
    #[arg(long)]
    pub por: bool,
    /// Run only this case (e.g. `curator-604`), in this process, with the
    /// first number of `--jobs`, and print its figures as one JSON object
    /// (what the table's rows are made of).
    #[arg(long)]
    pub case: Option<String>,
    /// Print one JSON array instead of the table: per case and number of
    /// threads, its figures (`case`, `jobs`, `por`, and the row's fields).
    #[arg(long)]
    pub json: bool,
}

/// What a case explores: a recipe's plain configuration, or a scenario
/// file of the repository as `locksmith check` reads it (its faults,
/// settings and sizes; the text is built into the binary, so the case
/// runs from any folder).
#[derive(Clone, Copy)]
enum Source {
    Config(RecipeId, u8, u8),
    File(&'static str, &'static str),
}

/// The cases: name, what they explore; `large` ones only with `--large`.
const CASES: &[(&str, Source, bool)] = &[
    (
        "racy-wait-2",
        Source::Config(RecipeId::RacyWait, 2, 1),
        false,
    ),
    (
        "racy-wait-3",
        Source::Config(RecipeId::RacyWait, 3, 1),
        false,
    ),
    (
        "fixed-wait-3",
        Source::Config(RecipeId::FixedWait, 3, 1),
        false,
    ),
    (
        "fixed-wait-4",
        Source::Config(RecipeId::FixedWait, 4, 1),
        false,
    ),
    (
        "predecessor-3x2",
        Source::Config(RecipeId::Predecessor, 3, 2),
        false,
    ),
    (
        "fixed-wait-5",
        Source::Config(RecipeId::FixedWait, 5, 1),
        true,
    ),
    (
        "fixed-wait-6",
        Source::Config(RecipeId::FixedWait, 6, 1),
        true,
    ),
    (
        "predecessor-4x2",
        Source::Config(RecipeId::Predecessor, 4, 2),
        true,
    ),
    (
        "curator-604",
        Source::File(
            "scenarios/curator-604.toml",
            include_str!("../../../scenarios/curator-604.toml"),
        ),
        true,
    ),
    (
        "curator-604-owner-check",
        Source::File(
            "scenarios/curator-604-owner-check.toml",
            include_str!("../../../scenarios/curator-604-owner-check.toml"),
        ),
        true,
    ),
    (
        "curator-604-guarded",
        Source::File(
            "scenarios/curator-604-guarded.toml",
            include_str!("../../../scenarios/curator-604-guarded.toml"),
        ),
        true,
    ),
    (
        "curator-test-killed-session",
        Source::File(
            "scenarios/curator-test-killed-session.toml",
            include_str!("../../../scenarios/curator-test-killed-session.toml"),
        ),
        true,
    ),
];

impl Source {
    /// The configuration to explore, before the case's bounds.
    fn config(self) -> Result<CheckConfig, String> {
        match self {
            Source::Config(recipe, clients, acquisitions) => {
                Ok(CheckConfig::new(recipe, clients, acquisitions))
            }
            Source::File(path, text) => Scenario::parse(std::path::Path::new(path), text)
                .map(|sc| sc.check)
                .map_err(|e| e.to_string()),
        }
    }
}

/// Every case is bounded by these as well as the time.
const MAX_STATES: usize = 100_000_000;
const MAX_MEMORY: usize = 8 << 30;

pub fn run(args: &BenchArgs) -> i32 {
    match &args.case {
        Some(name) => run_case(name, args),
        None => run_table(args),
    }
}

fn run_table(args: &BenchArgs) -> i32 {
    let Ok(me) = std::env::current_exe() else {
        eprintln!("error: cannot find this program to run the cases");
        return 2;
    };
    let mut rows = Vec::new();
    if !args.json {
        header();
    }
    for &(name, _, large) in CASES {
        if large && !args.large {
            continue;
        }
        let reductions: &[bool] = if args.por { &[false, true] } else { &[false] };
        for &por in reductions {
            for &jobs in &args.jobs {
                let label = if por {
                    format!("{name}+por")
                } else {
                    name.to_string()
                };
                let out = Command::new(&me)
                    .args(["bench", "--case", name, "--jobs", &jobs.to_string()])
                    .args(["--max-seconds", &args.max_seconds.to_string()])
                    .args(por.then_some("--por"))
                    .output();
                let row = out
                    .ok()
                    .filter(|o| o.status.success())
                    .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok());
                match (row, args.json) {
                    (Some(r), false) => print_row(&label, jobs, &r),
                    (None, false) => println!("{label:<20} {jobs:>4} the case's process failed"),
                    (r, true) => rows.push(json!({
                        "case": name,
                        "jobs": jobs,
                        "por": por,
                        "figures": r,
                    })),
                }
            }
        }
    }
    if args.json {
        println!("{}", serde_json::Value::Array(rows));
    } else {
        footer();
    }
    0
}

fn header() {
    println!("checker benchmark (release build: cargo run --release -- bench)");
    println!(
        "{:<20} {:>4} {:>17} {:>11} {:>8} {:>10} {:>9} {:>9} {:>8}",
        "case",
        "jobs",
        "verdict",
        "states",
        "wall s",
        "states/s",
        "tables B",
        "memory B",
        "peak MB"
    );
}

fn footer() {
    println!(
        "(each row its own process. wall s: the whole exploration, an upper bound on the time to a violation. \
         tables B: the checker's tables (visited set, parents, kept graph) per state; memory B: the process's \
         peak memory per state. Verdicts and counts are the same for any number of jobs. \
         +por: with partial-order reduction, whose deadlock trace may be longer than the shortest.)"
    );
}

fn print_row(name: &str, jobs: u16, r: &serde_json::Value) {
    let states = r["states"].as_u64().unwrap_or(0);
    let secs = r["elapsed_us"].as_f64().unwrap_or(0.0) / 1e6;
    // Under a millisecond the rate says more about the clock than the checker.
    let rate = if secs >= 1e-3 {
        format!("{:.0}", states as f64 / secs)
    } else {
        "-".into()
    };
    let peak = r["peak_memory_bytes"].as_u64().unwrap_or(0);
    let tables = r["table_bytes"].as_u64().unwrap_or(0);
    println!(
        "{:<20} {:>4} {:>17} {:>11} {:>8.2} {:>10} {:>9} {:>9} {:>8.0}",
        name,
        jobs,
        r["verdict"].as_str().unwrap_or("?"),
        states,
        secs,
        rate,
        tables / states.max(1),
        peak / states.max(1),
        peak as f64 / 1e6,
    );
    if let Some(b) = r["bound"].as_str() {
        println!("{:<25} bound hit: {b} — incomplete, not holds", "");
    }
    if let (Some(n), None) = (r["headline_steps"].as_u64(), r["deadlock_steps"].as_u64()) {
        println!("{:<25} headline trace: {n} steps", "");
    }
    if let Some(n) = r["deadlock_steps"].as_u64() {
        let shortest = if r["por"].as_bool() == Some(true) {
            ""
        } else {
            "shortest "
        };
        println!("{:<25} {shortest}deadlock trace: {n} steps", "");
    }
}

fn run_case(name: &str, args: &BenchArgs) -> i32 {
    let Some(&(_, source, _)) = CASES.iter().find(|c| c.0 == name) else {
        let names: Vec<&str> = CASES.iter().map(|c| c.0).collect();
        eprintln!(
            "error: no bench case `{name}`: expected one of {}",
            names.join(", ")
        );
        return 2;
    };
    let mut cfg = match source.config() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("error: bench case `{name}`: {e}");
            return 2;
        }
    };
    cfg.max_states = MAX_STATES;
    cfg.max_memory = MAX_MEMORY;
    cfg.max_time = Some(Duration::from_secs(args.max_seconds));
    cfg.jobs = args.jobs.first().map_or(1, |&j| usize::from(j));
    cfg.por = args.por;
    let t = Instant::now();
    let r = check(&cfg);
    let us = t.elapsed().as_micros();
    let verdict = match r.property {
        Some(p) => format!("{}:{}", r.verdict, short(p)),
        None => r.verdict.to_string(),
    };
    // The headline property's shortest trace: what a speed-up must keep.
    let headline_steps = r
        .properties
        .iter()
        .find(|p| Some(p.property) == r.property)
        .and_then(|p| p.trace.as_ref())
        .map(|t| t.steps.len());
    let deadlock_steps = r
        .properties
        .iter()
        .find(|p| p.property == Property::Deadlock)
        .and_then(|p| p.trace.as_ref())
        .map(|t| t.steps.len());
    println!(
        "{}",
        json!({
            "case": name,
            "jobs": cfg.jobs,
            "por": cfg.por,
            "verdict": verdict,
            "states": r.states,
            "transitions": r.transitions,
            "elapsed_us": us,
            "bound": r.bound,
            "table_bytes": r.peak_bytes,
            "peak_memory_bytes": crate::machine::peak_memory_bytes(),
            "deadlock_steps": deadlock_steps,
            "headline_steps": headline_steps,
        })
    );
    0
}

fn short(p: Property) -> &'static str {
    match p {
        Property::MutualExclusion => "mutex",
        Property::Deadlock => "deadlock",
        Property::Starvation => "starve",
        Property::Herd => "herd",
        Property::MutualExclusionAtResource => "mutex@res",
        Property::FencedSafety => "fenced",
        Property::ThreadDied => "died",
        Property::OrphanedNode => "orphan",
        Property::UnlockByNonOwner => "non-owner",
        Property::StuckLock => "stuck",
        Property::Reentrancy => "reentry",
    }
}
