//! `locksmith sim` and `locksmith replay` on a Redis scenario: the Redis
//! simulator (sim/src/simulate/redis/) over many seeds, one seed's trace.

use super::simulate::{ReplayArgs, SimArgs};
use crate::scenario::{AnyScenario, RedisScenario};
use crate::simulate::redis::{run_seed, RedisRun, TICK_MS};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Seeds a Redis scenario sweeps when neither `--seeds` nor `--seed` says.
pub const DEFAULT_SEEDS: u64 = 500;

/// A Redis scenario's `clients` and `acquisitions` are sized for the
/// exhaustive checker (two clients, one round); at random, a fault must
/// find someone contending, so the simulator runs at least this many
/// unless `--clients` / `--acquisitions` say otherwise.
pub const MIN_CLIENTS: u8 = 5;
pub const MIN_ACQUISITIONS: u8 = 10;

/// The scenario with the overrides, or the error the command exits 2 with.
pub fn load(
    path: &Path,
    clients: Option<u8>,
    acquisitions: Option<u8>,
) -> Result<RedisScenario, String> {
    let mut sc = match AnyScenario::load(path).map_err(|e| e.to_string())? {
        AnyScenario::Redis(sc) => *sc,
        AnyScenario::ZooKeeper(_) | AnyScenario::Mysql(_) => {
            return Err(format!("{}: not a Redis scenario", path.display()))
        }
    };
    // The file's own configuration was validated as it loaded; the
    // simulator takes any number of clients and rounds (the checker's
    // limit on clients is its state space's, not the simulator's).
    sc.space.clients = clients.unwrap_or(sc.space.clients.max(MIN_CLIENTS));
    sc.space.acquisitions = acquisitions.unwrap_or(sc.space.acquisitions.max(MIN_ACQUISITIONS));
    Ok(sc)
}

/// The scenario and the seeds `first .. first + count`.
pub fn plan(a: &SimArgs) -> Result<(RedisScenario, u64, u64), String> {
    let sc = load(&a.scenario, a.clients, a.acquisitions)?;
    let first = a.seed.unwrap_or(0);
    let count = a
        .seeds
        .unwrap_or(if a.seed.is_some() { 1 } else { DEFAULT_SEEDS });
    if count == 0 {
        return Err("--seeds 0: expected at least 1 (a run of no seeds proves nothing)".into());
    }
    if first.checked_add(count - 1).is_none() {
        return Err(format!(
            "--seed {first} with {count} seeds runs past the last seed ({}): expected a smaller --seed or --seeds",
            u64::MAX
        ));
    }
    Ok((sc, first, count))
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

/// Seeds in order until the first violation (all of them with
/// `--keep-going`); 0 none, 1 violated, 130 Ctrl-C.
pub fn run_sim(a: &SimArgs) -> i32 {
    let (sc, first, count) = match plan(a) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    let started = Instant::now();
    let mut failures: Vec<RedisRun> = Vec::new();
    let (mut run, mut acquisitions, mut commands) = (0u64, 0u64, 0u64);
    let mut interrupted = false;
    for seed in first..=first + (count - 1) {
        if crate::interrupt::requested() {
            interrupted = true;
            break;
        }
        let r = run_seed(&sc.space, seed, false);
        run += 1;
        acquisitions += r.acquisitions;
        commands += r.commands;
        if r.violation.is_some() {
            failures.push(r);
            if !a.keep_going {
                break;
            }
        }
    }
    let elapsed_ms = started.elapsed().as_millis() as u64;
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
            "recipe": sc.recipe().id(),
            "backend": "redis",
            "clients": sc.space.clients,
            "acquisitions": sc.space.acquisitions,
            "tick_ms": TICK_MS,
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
        println!("{out}");
    } else {
        let how = format!(
            " × {} acquisitions, simulated on Redis (a tick is {TICK_MS} ms)",
            sc.space.acquisitions
        );
        print!(
            "{}",
            super::title(a.scenario.display(), sc.recipe(), sc.space.clients, &how)
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
                "verdict: incomplete: interrupted (Ctrl-C) after {run} of {count} seeds, no violation in those"
            ),
            None => println!("verdict: no violation in {run} seeds"),
        }
        println!(
            "{run} seeds in {elapsed_ms} ms; {acquisitions} simulated acquisitions, {commands} commands"
        );
    }
    if first_failure.is_some() {
        1
    } else if interrupted {
        crate::interrupt::EXIT
    } else {
        0
    }
}

/// One seed's whole trace; 0 no violation, 1 violated.
pub fn run_replay(a: &ReplayArgs) -> i32 {
    let sc = match load(&a.scenario, a.clients, a.acquisitions) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let r = run_seed(&sc.space, a.seed, true);
    for line in &r.trace {
        println!("{line}");
    }
    match &r.violation {
        Some((p, why)) => println!("verdict: violated: {} (seed {}): {why}", p.name(), a.seed),
        None => println!("verdict: no violation (seed {})", a.seed),
    }
    println!("acquisitions {}, commands {}", r.acquisitions, r.commands);
    if r.violation.is_some() {
        1
    } else {
        0
    }
}
