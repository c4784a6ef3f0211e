//! Every `scenarios/*.toml` as named tests, one per driver it expects
//! something of: `check::<name>` runs the exhaustive checker against the
//! `[expect]` table, `sim::<name>` sweeps the simulator's seeds against
//! `[sim.expect]` (`cargo test racy` runs both of racy-wait's). A failure
//! prints what differs, the whole report, and the command that replays it.
//!
//! A starvation verdict's lasso is also replayed and judged on its own
//! (it closes, a client waits all along, every agent able to move all along
//! moves): the fairness analysis runs on the symmetry-reduced graph, the
//! replay on concrete states.
//!
//! A Redis scenario (its recipe is one of the Redis backend's) is a
//! `check::<name>` test too, explored by the Redis checker.
//!
//! `abstract::<name>` holds the sequence-suffix abstraction to its promise
//! on every checked scenario that does not turn it on itself: with it on,
//! the verdict, the property, every property's verdict and shortest-trace
//! length are those of the run without it, and the states explored never
//! exceed the pinned count (`check::<name>` pins the count without it)
//! unless the run stopped at its `max_states` bound.
//!
//! `por::<name>` holds the partial-order reduction (`--por`, off by
//! default) to its promise on every checked ZooKeeper scenario: with it on,
//! the verdict, the property and every property's verdict are those of the
//! run without it, never more states, no trace shorter than the shortest,
//! and a starvation lasso it finds is fair when replayed. The lengths it
//! finds may be longer: that is why it is off by default.
//!
//! `dead::<name>` holds Curator's dead values (`Curator::forget_dead`,
//! always on) to theirs on every checked Curator scenario: explored with
//! them kept, the verdict, the property, every property's verdict and
//! shortest-trace length are the same, and never fewer states.
//!
//! The four share one run without the optional reductions per scenario.
//!
//! **Tiers.** A scenario whose `[expect]` pins more than
//! [`HEAVY_STATES`] states (the eight longest explorations: seven Curator
//! ones and the textbook lock at 3 clients, 6 s to minutes each) is the
//! heavy tier: its `check::`, `abstract::`, `por::` and `dead::` trials
//! are ignored by a plain `cargo test` and run, two at a time, by
//! `cargo test -p locksmith --test scenarios -- --ignored` (CI runs it
//! after the README's command, less the heavy `dead::` trials:
//! `scripts/heavy-tests.sh`). Its `sim::` trial stays in the
//! default tier.

use libtest_mimic::{Arguments, Failed, Trial};
use locksmith::backends::AnyScenario;
use locksmith::check::command::to_text as backend_check_report_text;
use locksmith::expect::{Expectation, Found};
use locksmith::scenario::{all_in, CommandScenario, CommandSpace};
use locksmith::simulate::sweep::SweepOptions;
use locksmith::zk::check::to_text as check_report_text;
use locksmith::zk::scenario::Scenario;
use locksmith::zk::sim::sweep::sweep;
use locksmith::zk::sim::SimConfig;
use locksmith_model::engine::harness::{Property, Verdict};
use locksmith_model::zk::check::explore::explore;
use locksmith_model::zk::client::{Library, Recipe, RecipeConfig};
use locksmith_model::{engine::judge_in, zk::check::check, zk::check::explore as zk_explore};
use locksmith_model::{zk::check::CheckConfig, zk::check::Report};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Above this many pinned states a scenario's explorations are the heavy
/// tier (the next largest pins 543,650; the three between 1,000,000 and
/// 2,000,000 took ~80 CPU-seconds of the default tier's ~170).
const HEAVY_STATES: usize = 1_000_000;

/// The report of a scenario's own configuration, explored once for every
/// trial that compares against it.
fn plain(path: &Path, cfg: &CheckConfig) -> Arc<Report> {
    type Runs = Mutex<BTreeMap<PathBuf, Arc<OnceLock<Arc<Report>>>>>;
    static RUNS: OnceLock<Runs> = OnceLock::new();
    let cell = {
        let mut runs = RUNS
            .get_or_init(Runs::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        runs.entry(path.to_path_buf()).or_default().clone()
    };
    cell.get_or_init(|| Arc::new(check(cfg))).clone()
}

fn load(path: &Path) -> Result<Scenario, Failed> {
    Scenario::load(path).map_err(|e| Failed::from(e.to_string()))
}

fn judge_check(path: &Path) -> Result<(), Failed> {
    let sc = load(path)?;
    let Some(expect) = sc.expect.clone() else {
        return Ok(());
    };
    let report = plain(path, &sc.check);
    let steps = report.property.and_then(|p| {
        report
            .properties
            .iter()
            .find(|r| r.property == p)
            .and_then(|r| r.trace.as_ref())
            .map(|t| t.steps.len())
    });
    let of = |p| report.of(p);
    let steps_of = |p| report.trace_of(p).map(|t| t.steps.len());
    let found = Found {
        verdict: report.verdict,
        property: report.property,
        of: &of,
        steps,
        states: Some(report.states),
        steps_of: &steps_of,
    };
    let mut problems = expect.problems(&found);
    if report.of(Property::Starvation) == Verdict::Violated {
        problems.extend(unfair_lasso(&sc.check));
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failed::from(format!(
        "{}\n\n{}\nreplay: cargo run --release -- check {}",
        problems.join("\n"),
        check_report_text(&sc, &report),
        path.display()
    )))
}

/// A Redis or MySQL scenario against its `[expect]`, as [`judge_check`]
/// does ZooKeeper's (`text`: the report printed with a failure).
fn judge_command<S: CommandSpace>(
    sc: &CommandScenario<S>,
    text: impl Fn(&Report) -> String,
) -> Result<(), Failed> {
    let Some(expect) = sc.expect.clone() else {
        return Ok(());
    };
    let report = sc.space.check();
    let of = |p| report.of(p);
    let steps_of = |p| report.trace_of(p).map(|t| t.steps.len());
    let found = Found {
        verdict: report.verdict,
        property: report.property,
        of: &of,
        steps: report.property.and_then(steps_of),
        states: Some(report.states),
        steps_of: &steps_of,
    };
    let mut problems = expect.problems(&found);
    if report.of(Property::Starvation) == Verdict::Violated {
        let x = locksmith_model::engine::explore_space(&sc.space, &mut |_| {
            std::ops::ControlFlow::Continue(())
        });
        if let Some(cx) = x.found.get(&Property::Starvation) {
            if let Err(e) = judge_in(&sc.space, cx) {
                problems.push(format!("starvation lasso: {e}"));
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failed::from(format!(
        "{}\n\n{}\nreplay: cargo run --release -- check {}",
        problems.join("\n"),
        text(&report),
        sc.path.display()
    )))
}

/// A starvation verdict's lasso, replayed apart from the search: it must
/// close, keep a client waiting, and be weakly fair to every agent.
fn unfair_lasso(cfg: &CheckConfig) -> Option<String> {
    let x = explore(cfg);
    let cx = x.found.get(&Property::Starvation)?;
    zk_explore::judge(cfg, cx)
        .err()
        .map(|e| format!("starvation lasso: {e}"))
}

/// The abstraction on and off: same verdicts and trace lengths, no more
/// states than pinned.
fn judge_abstraction(path: &Path) -> Result<(), Failed> {
    let sc = load(path)?;
    let Some(pinned) = sc.expect.as_ref().and_then(|e| e.states) else {
        return Ok(());
    };
    let plain = plain(path, &sc.check);
    let mut cfg = sc.check.clone();
    cfg.abstract_sequences = true;
    let reduced = check(&cfg);
    let lengths = |r: &locksmith_model::zk::check::Report| -> Vec<String> {
        r.properties
            .iter()
            .map(|p| {
                let steps = p.trace.as_ref().map(|t| t.steps.len());
                format!("{}: {} {steps:?}", p.property, p.verdict)
            })
            .collect()
    };
    let mut problems = Vec::new();
    problems.extend(other_verdict(
        (&reduced, "with the abstraction"),
        (&plain, "without"),
    ));
    if lengths(&reduced) != lengths(&plain) {
        problems.push(format!(
            "per property, with the abstraction: {:?}\nwithout: {:?}",
            lengths(&reduced),
            lengths(&plain)
        ));
    }
    // A run stopped at `max_states` counts the bound and whatever the step
    // that passed it added (`curator-long-server-restart`: 1,000,001
    // without the abstraction, 1,000,004 with it): no size of the space
    // to compare.
    if reduced.states > pinned && reduced.bound.is_none() {
        problems.push(format!(
            "{} states with the abstraction, more than the {pinned} pinned",
            reduced.states
        ));
    }
    with_reduction(problems, path, "--abstract-sequences")
}

/// A run's verdict and headline property against those of the run it is
/// held to, each named by how it ran: the problem, if they differ.
fn other_verdict((a, how_a): (&Report, &str), (b, how_b): (&Report, &str)) -> Option<String> {
    ((a.verdict, a.property) != (b.verdict, b.property)).then(|| {
        format!(
            "verdict {} {:?} {how_a}, {} {:?} {how_b}",
            a.verdict, a.property, b.verdict, b.property
        )
    })
}

/// A reduction's trial: passed, or its problems and the command that
/// replays the run with the reduction (`flag`).
fn with_reduction(problems: Vec<String>, path: &Path, flag: &str) -> Result<(), Failed> {
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failed::from(format!(
        "{}\nreplay: cargo run --release -- check {} {flag}",
        problems.join("\n"),
        path.display()
    )))
}

/// The partial-order reduction on and off: same verdicts, no more states,
/// no trace shorter than the shortest, a fair lasso.
fn judge_por(path: &Path) -> Result<(), Failed> {
    let sc = load(path)?;
    let plain = plain(path, &sc.check);
    let mut cfg = sc.check.clone();
    cfg.por = true;
    let reduced = check(&cfg);
    let mut problems = Vec::new();
    problems.extend(other_verdict(
        (&reduced, "with the reduction"),
        (&plain, "without"),
    ));
    for p in Property::ALL {
        let (with, without) = (reduced.of(p), plain.of(p));
        if with != without {
            problems.push(format!("{p}: {with} with the reduction, {without} without"));
        }
        let len = |r: &Report| r.trace_of(p).map(|t| t.steps.len());
        if let (Some(a), Some(b)) = (len(&reduced), len(&plain)) {
            if a < b {
                problems.push(format!(
                    "{p}: a {a}-step trace with the reduction, shorter than the shortest ({b})"
                ));
            }
        }
    }
    // A run stopped by a bound stops at a batch's end: its count says
    // where the bound fell, not how large the space is.
    if reduced.states > plain.states && plain.bound.is_none() {
        problems.push(format!(
            "{} states with the reduction, {} without",
            reduced.states, plain.states
        ));
    }
    if reduced.of(Property::Starvation) == Verdict::Violated {
        problems.extend(unfair_lasso(&cfg).map(|e| format!("{e} (with the reduction)")));
    }
    with_reduction(problems, path, "--por")
}

/// Curator's dead values kept and cleared (`Curator::forget_dead`, always
/// on): the same verdicts and shortest-trace lengths, never more states
/// with them cleared.
fn judge_dead_values(path: &Path) -> Result<(), Failed> {
    let sc = load(path)?;
    let cleared = plain(path, &sc.check);
    let mut cfg = sc.check.clone();
    cfg.keep_dead_values = true;
    let kept = check(&cfg);
    let mut problems = Vec::new();
    problems.extend(other_verdict(
        (&kept, "with dead values kept"),
        (&cleared, "cleared"),
    ));
    for p in Property::ALL {
        let len = |r: &Report| r.trace_of(p).map(|t| t.steps.len());
        let (with, without) = ((kept.of(p), len(&kept)), (cleared.of(p), len(&cleared)));
        if with != without {
            problems.push(format!(
                "{p}: {with:?} with dead values kept, {without:?} cleared"
            ));
        }
    }
    if cleared.states > kept.states && kept.bound.is_none() {
        problems.push(format!(
            "{} states with dead values cleared, {} kept",
            cleared.states, kept.states
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failed::from(format!(
        "{}\nagain: cargo test --release -p locksmith --test scenarios -- --include-ignored --exact dead::{}",
        problems.join("\n"),
        path.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default()
    )))
}

fn jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(2)
}

fn judge_sim(path: &Path) -> Result<(), Failed> {
    let sc = load(path)?;
    let Some(expect): Option<Expectation> = sc.sim_expect.clone() else {
        return Ok(());
    };
    let cfg = SimConfig::of(&sc);
    let opts = SweepOptions {
        first: 0,
        count: sc.sim.seeds,
        keep_going: false,
        jobs: jobs(),
    };
    let r = sweep(&cfg, &opts, &|| {});
    let failure = r.first_failure();
    let violations = failure.map(|f| f.violations.clone()).unwrap_or_default();
    let of = |p: Property| {
        if !cfg.judges(p) {
            Verdict::NotApplicable
        } else if violations.contains(p) {
            Verdict::Violated
        } else {
            Verdict::Holds
        }
    };
    let found = Found {
        verdict: if failure.is_some() {
            Verdict::Violated
        } else {
            Verdict::Holds
        },
        property: violations.headline().map(|(p, _)| p),
        of: &of,
        steps: None,
        states: None,
        steps_of: &|_| None,
    };
    let problems = expect.problems(&found);
    if problems.is_empty() {
        return Ok(());
    }
    let seen: Vec<String> = violations
        .iter()
        .map(|(p, why)| format!("  {p}: {why}"))
        .collect();
    Err(Failed::from(format!(
        "{}\nover {} seed(s); violations of the first failing seed:\n{}\nreplay: cargo run --release -- replay {} --seed {}",
        problems.join("\n"),
        sc.sim.seeds,
        seen.join("\n"),
        path.display(),
        failure.map_or(0, |f| f.seed)
    )))
}

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let files = match all_in(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot list {}: {e}", dir.display());
            std::process::exit(2);
        }
    };
    let mut trials = Vec::new();
    // The heavy tier's trials, run first and in the order that keeps both
    // threads busy: every plain exploration, largest first, then the runs
    // with a reduction, which reuse them (in file order a `por::` trial
    // waited beside its own `check::` for the run they share).
    let mut heavy_trials: Vec<((u8, std::cmp::Reverse<usize>), Trial)> = Vec::new();
    for f in files {
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A file that does not load fails as its own test.
        let (check, abstracted, sim, shared, curator, heavy) = match AnyScenario::load(&f) {
            Ok(AnyScenario::ZooKeeper(s)) => (
                s.expect.is_some(),
                s.check.abstract_sequences,
                s.sim_expect.is_some(),
                s.check.shared_session,
                s.check
                    .recipe
                    .instantiate(RecipeConfig::new(1, 0))
                    .library()
                    == Library::CURATOR,
                s.expect
                    .as_ref()
                    .and_then(|e| e.states)
                    .filter(|&n| n > HEAVY_STATES),
            ),
            Ok(AnyScenario::Redis(s)) => {
                if s.expect.is_some() {
                    trials.push(Trial::test(format!("check::{name}"), move || {
                        judge_command(&s, |r| backend_check_report_text(&*s, r))
                    }));
                }
                continue;
            }
            Ok(AnyScenario::Mysql(s)) => {
                if s.expect.is_some() {
                    trials.push(Trial::test(format!("check::{name}"), move || {
                        judge_command(&s, |r| backend_check_report_text(&*s, r))
                    }));
                }
                continue;
            }
            Ok(AnyScenario::Etcd(s)) => {
                if s.expect.is_some() {
                    trials.push(Trial::test(format!("check::{name}"), move || {
                        judge_command(&s, |r| backend_check_report_text(&*s, r))
                    }));
                }
                continue;
            }
            Err(_) => (true, false, false, false, false, None),
        };
        let mut push = |first: u8, trial: Trial| match heavy {
            Some(states) => heavy_trials.push((
                (first, std::cmp::Reverse(states)),
                trial.with_ignored_flag(true),
            )),
            None => trials.push(trial),
        };
        if check {
            let f = f.clone();
            push(
                0,
                Trial::test(format!("check::{name}"), move || judge_check(&f)),
            );
        }
        // A scenario that turns the abstraction on is pinned with it (its
        // run without it may never end).
        if check && !abstracted {
            let f = f.clone();
            push(
                1,
                Trial::test(format!("abstract::{name}"), move || judge_abstraction(&f)),
            );
        }
        // The reduction stands aside on a shared session (one client's
        // fault strikes its mates): the reduced run would be the plain one.
        if check && !shared {
            let f = f.clone();
            push(
                1,
                Trial::test(format!("por::{name}"), move || judge_por(&f)),
            );
        }
        if check && curator {
            let f = f.clone();
            push(
                1,
                Trial::test(format!("dead::{name}"), move || judge_dead_values(&f)),
            );
        }
        // The simulator's sweep of a heavy scenario is as quick as any.
        if sim {
            trials.push(Trial::test(format!("sim::{name}"), move || judge_sim(&f)));
        }
    }
    heavy_trials.sort_by_key(|(key, _)| *key);
    let trials: Vec<Trial> = heavy_trials
        .into_iter()
        .map(|(_, t)| t)
        .chain(trials)
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
