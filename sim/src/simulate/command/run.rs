//! `locksmith sim` and `locksmith replay` on a command backend's scenario
//! (Redis, MySQL, etcd): that backend's simulator (its `sim/` folder, on
//! this core) over many seeds, one seed's trace, and what each prints.

use super::super::flags::{ReplayArgs, SimArgs};
use super::super::replay_json;
use super::{BackendTotals, CommandWorld, Simulated};
use crate::commands::Planned;
use crate::scenario::CommandScenario;
use serde_json::json;

/// Seeds a scenario sweeps when neither `--seeds` nor `--seed` says.
pub const DEFAULT_SEEDS: u64 = 500;

/// A scenario's `clients` and `acquisitions` are sized for the exhaustive
/// checker (two clients, one round); at random, a fault must find someone
/// contending, so the simulator runs at least this many unless
/// `--clients` / `--acquisitions` say otherwise.
pub const MIN_CLIENTS: u8 = 5;
pub const MIN_ACQUISITIONS: u8 = 10;

/// A command backend as `sim` and `replay` print it.
struct Shown {
    /// Its name in text (`Redis`) and its key in `--json` (`redis`).
    name: &'static str,
    key: &'static str,
    /// Simulated milliseconds per checker tick.
    tick_ms: u64,
    /// Its runs count watch events ([`CommandWorld::NOTIFIES`]).
    notifies: bool,
}

fn shown<S: Simulated>() -> Shown {
    Shown {
        name: S::BACKEND.name(),
        key: crate::backend::key(S::BACKEND),
        tick_ms: <S::World as CommandWorld>::TICK_MS,
        notifies: <S::World as CommandWorld>::NOTIFIES,
    }
}

/// The clients and rounds of `sc`, to override.
fn sizes<S: Simulated>(sc: &mut CommandScenario<S>) -> (&mut u8, &mut u8) {
    let (clients, rounds, _) = sc.space.sizes();
    (clients, rounds)
}

/// The scenario with the overrides applied.
pub fn with_overrides<S: Simulated>(
    mut sc: CommandScenario<S>,
    clients: Option<u8>,
    acquisitions: Option<u8>,
) -> CommandScenario<S> {
    // The file's own configuration was validated as it loaded; the
    // simulator takes any number of clients and rounds (the checker's
    // limit on clients is its state space's, not the simulator's).
    let (c, k) = sizes(&mut sc);
    *c = clients.unwrap_or((*c).max(MIN_CLIENTS));
    *k = acquisitions.unwrap_or((*k).max(MIN_ACQUISITIONS));
    sc
}

/// The sweep the flags ask for on `sc` (its seeds `first .. first +
/// count`), and its run.
pub fn planned<S: Simulated + Sync>(
    a: &SimArgs,
    sc: CommandScenario<S>,
) -> Result<Planned<'_>, String> {
    let (first, count) = a.seed_range(DEFAULT_SEEDS)?;
    let sc = with_overrides(sc, a.clients, a.acquisitions);
    Ok(Box::new(move || run_sim(a, (sc, first, count))))
}

fn replay_command(a: &SimArgs, seed: u64) -> String {
    let mut cmd = format!("locksmith replay {} --seed {seed}", a.scenario.display());
    if let Some(n) = a.clients {
        cmd.push_str(&format!(" --clients {n}"));
    }
    if let Some(k) = a.acquisitions {
        cmd.push_str(&format!(" --acquisitions {k}"));
    }
    cmd
}

/// Seeds until the first violation (all of them with `--keep-going`),
/// over `--jobs` threads, folded in seed order; 0 none, 1 violated, 130
/// Ctrl-C.
fn run_sim<S: Simulated>(
    a: &SimArgs,
    (mut sc, first, count): (CommandScenario<S>, u64, u64),
) -> i32 {
    let shown = shown::<S>();
    let swept = a.sweep(first, count, &|seed| sc.space.run_seed(seed, false));
    let (run, failures, interrupted) = (swept.seeds_run, swept.failures, swept.interrupted);
    let BackendTotals {
        acquisitions,
        commands,
        notifications,
    } = swept.totals;
    let per = |n: u64| crate::real::per(n, acquisitions as f64);
    let elapsed_ms = swept.elapsed_ms as u64;
    let (clients, acquisitions_per_client) = {
        let (c, k) = sizes(&mut sc);
        (*c, *k)
    };
    let first_failure = failures.first();
    let verdict = if first_failure.is_some() {
        "violated"
    } else if interrupted {
        "incomplete"
    } else {
        "holds"
    };
    if a.json {
        let out = json!({
            "scenario": a.scenario.display().to_string(),
            "recipe": sc.space.recipe_id(),
            "backend": shown.key,
            "clients": clients,
            "acquisitions": acquisitions_per_client,
            "tick_ms": shown.tick_ms,
            "verdict": verdict,
            "interrupted": interrupted,
            "property": first_failure.and_then(|f| f.violation.as_ref()).map(|v| v.0.name()),
            "why": first_failure.and_then(|f| f.violation.as_ref()).map(|v| v.1.clone()),
            "seed": first_failure.map(|f| f.seed),
            "failing_seeds": failures.iter().map(|f| f.seed).collect::<Vec<_>>(),
            "replay": first_failure.map(|f| replay_command(a, f.seed)),
            "seeds_run": run,
            "elapsed_ms": elapsed_ms,
            "simulated_acquisitions": acquisitions,
            "commands": commands,
        });
        let out = match out {
            serde_json::Value::Object(mut m) if shown.notifies => {
                m.insert("notifications".into(), json!(notifications));
                m.insert("commands_per_acquisition".into(), json!(per(commands)));
                m.insert(
                    "notifications_per_acquisition".into(),
                    json!(per(notifications)),
                );
                serde_json::Value::Object(m)
            }
            out => out,
        };
        println!("{out}");
    } else {
        let how = format!(
            " × {acquisitions_per_client} acquisitions, simulated on {} (a tick is {} ms)",
            shown.name, shown.tick_ms
        );
        print!(
            "{}",
            crate::title::title(a.scenario.display(), sc.space.recipe_id(), clients, &how)
        );
        match first_failure {
            Some(f) => {
                if let Some((p, why)) = &f.violation {
                    println!("verdict: violated: {p}");
                    println!("  seed {}: {why}", f.seed);
                }
                if failures.len() > 1 {
                    let seeds: Vec<String> = failures.iter().map(|f| f.seed.to_string()).collect();
                    println!("  {} failing seeds: {}", failures.len(), seeds.join(" "));
                }
                println!("replay: {}", replay_command(a, f.seed));
            }
            None if interrupted => println!(
                "verdict: incomplete: interrupted ({}) after {run} of {count} seeds, no violation in those",
                crate::interrupt::what()
            ),
            None => println!("verdict: no violation in {run} seeds"),
        }
        println!(
            "{run} seeds in {elapsed_ms} ms; {acquisitions} simulated acquisitions, {commands} commands"
        );
        if shown.notifies {
            println!(
                "per acquisition: {:.2} requests, {:.2} watch events ({notifications} in all; keep-alives not counted)",
                per(commands),
                per(notifications)
            );
        }
    }
    if first_failure.is_some() {
        1
    } else if interrupted {
        crate::interrupt::exit_code()
    } else {
        0
    }
}

/// The replay the flags ask for on `sc` (`--timeline` was refused as the
/// file loaded: no command backend declares it), and its run.
pub fn planned_replay<S: Simulated>(
    a: &ReplayArgs,
    sc: CommandScenario<S>,
) -> Result<Planned<'_>, String> {
    let sc = with_overrides(sc, a.clients, a.acquisitions);
    Ok(Box::new(move || run_replay(a, sc)))
}

fn run_replay<S: Simulated>(a: &ReplayArgs, sc: CommandScenario<S>) -> i32 {
    let shown = shown::<S>();
    let r = sc.space.run_seed(a.seed, true);
    if a.json {
        let lines: Vec<&str> = r.trace.iter().map(String::as_str).collect();
        let mut metrics = json!({ "acquisitions": r.acquisitions, "commands": r.commands });
        if shown.notifies {
            metrics["notifications"] = json!(r.notifications);
        }
        let out = replay_json(
            a,
            shown.key,
            sc.space.recipe_id(),
            r.violation.as_ref(),
            &lines,
            metrics,
        );
        println!("{out}");
        return i32::from(r.violation.is_some());
    }
    for line in &r.trace {
        println!("{line}");
    }
    match &r.violation {
        Some((p, why)) => println!("verdict: violated: {} (seed {}): {why}", p.name(), a.seed),
        None => println!("verdict: no violation (seed {})", a.seed),
    }
    if shown.notifies {
        println!(
            "acquisitions {}, commands {}, watch events {}",
            r.acquisitions, r.commands, r.notifications
        );
    } else {
        println!("acquisitions {}, commands {}", r.acquisitions, r.commands);
    }
    if r.violation.is_some() {
        1
    } else {
        0
    }
}
