//! `locksmith confirm`: the checker's shortest trace of a scenario,
//! re-enacted step for step on a real ZooKeeper or redis-server.

use crate::backend::Capability;
use crate::backends::AnyScenario;
use crate::confirm::redis::{self, RedisConfirmConfig};
use crate::confirm::{ConfirmReport, Outcome};
use crate::scenario::{EtcdScenario, RedisScenario};
use crate::zk::confirm::{run, ConfirmConfig};
use crate::zk::real::root;
use crate::zk::scenario::Scenario;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ConfirmArgs {
    /// The scenario file (TOML) whose checker counterexample is re-enacted,
    /// e.g. scenarios/racy-wait.toml or scenarios/redis-set-px-del-pause.toml.
    pub scenario: PathBuf,
    /// The ZooKeeper server, HOST:PORT (`scripts/zookeeper.sh start` runs
    /// one), for a ZooKeeper scenario.
    #[arg(long, conflicts_with = "redis")]
    pub zk: Option<String>,
    /// The redis-server, HOST:PORT (`scripts/redis.sh start` runs one), for
    /// a Redis scenario. The run's keys are its own,
    /// `locksmith-confirm-<connection id>:*`, deleted at the end.
    #[arg(long)]
    pub redis: Option<String>,
    /// The etcd's client port, HOST:PORT (`scripts/etcd.sh start` runs one
    /// on 127.0.0.1:2390), for an etcd scenario. The run's keys are its
    /// own, `locksmith-confirm-<revision>/*`, deleted at the end, and its
    /// leases revoked.
    #[arg(long)]
    pub etcd: Option<String>,
    /// Redis: real milliseconds per tick of the model (TTLs run on the
    /// server's clock, so the trace is re-enacted in real time).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(20..=10_000))]
    pub tick_ms: u32,
    /// An existing path on the server under which the run creates its own
    /// root, `locksmith-0-<session id>`, and deletes it at the end
    /// (ZooKeeper).
    #[arg(long, default_value = "/")]
    pub root: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What a confirmation re-enacts, on which server.
pub enum Plan {
    ZooKeeper(Box<Scenario>, ConfirmConfig),
    Redis(Box<RedisScenario>, RedisConfirmConfig),
    Etcd(Box<EtcdScenario>, String),
}

/// The confirmation the flags ask for, checked before any connection.
pub fn plan(a: &ConfirmArgs) -> Result<Plan, String> {
    let path = a.scenario.display();
    match AnyScenario::load_for(&a.scenario, &[("confirm", Capability::Confirm)])
        .map_err(|e| e.to_string())?
    {
        AnyScenario::Mysql(_) => Err(format!(
            "{path}: confirm re-enacts ZooKeeper, Redis and etcd traces"
        )),
        AnyScenario::Etcd(mut sc) => {
            let Some(addr) = &a.etcd else {
                return Err(format!(
                    "{path}: recipe `{}` runs on etcd: pass --etcd HOST:PORT (`scripts/etcd.sh start` runs one on 127.0.0.1:2390)",
                    sc.recipe()
                ));
            };
            super::real_args::host_port("--etcd", addr)?;
            if sc.expect.is_none() {
                return Err(format!(
                    "{path}: no [expect]: confirm re-enacts a checker scenario's trace"
                ));
            }
            sc.space.limits.jobs = super::cores();
            sc.space.validate().map_err(|e| format!("{path}: {e}"))?;
            Ok(Plan::Etcd(sc, addr.clone()))
        }
        AnyScenario::Redis(mut sc) => {
            let Some(addr) = &a.redis else {
                return Err(format!(
                    "{path}: recipe `{}` runs on Redis: pass --redis HOST:PORT (`scripts/redis.sh start` runs one on 127.0.0.1:6390)",
                    sc.recipe()
                ));
            };
            super::real_redis::check_addr(addr)?;
            if sc.expect.is_none() {
                return Err(format!(
                    "{path}: no [expect]: confirm re-enacts a checker scenario's trace"
                ));
            }
            sc.space.limits.jobs = super::cores();
            sc.space.validate().map_err(|e| format!("{path}: {e}"))?;
            let mut cfg = RedisConfirmConfig::new(sc.space.clone(), addr);
            cfg.tick_ms = a.tick_ms;
            Ok(Plan::Redis(sc, cfg))
        }
        AnyScenario::ZooKeeper(mut sc) => {
            let Some(zk) = &a.zk else {
                return Err(format!(
                    "{path}: recipe `{}` runs on ZooKeeper: pass --zk HOST:PORT (`scripts/zookeeper.sh start` runs one)",
                    sc.recipe()
                ));
            };
            if sc.expect.is_none() && sc.sim_expect.is_some() {
                // Its clients and acquisitions are sized for the simulator:
                // the checker would explore far beyond any reasonable run.
                return Err(format!(
                    "{path}: a simulation scenario ([sim.expect], no [expect]): confirm re-enacts the checker's trace; give it a checker scenario (one with [expect])"
                ));
            }
            super::real::check_server(zk)?;
            root::check_base(&a.root)?;
            sc.check.jobs = super::cores();
            sc.check.validate().map_err(|e| format!("{path}: {e}"))?;
            let mut cfg = ConfirmConfig::new(sc.check.clone(), zk);
            cfg.base = a.root.clone();
            Ok(Plan::ZooKeeper(sc, cfg))
        }
    }
}

/// Exit codes: 0 confirmed, 1 diverged, 2 error (no violation to confirm,
/// no server, a step confirm cannot force), 130 Ctrl-C.
pub fn run_confirm(a: &ConfirmArgs) -> i32 {
    let plan = match plan(a) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    let interrupt = Some(crate::interrupt::shared());
    let (shown, r) = match plan {
        Plan::ZooKeeper(sc, mut cfg) => {
            cfg.interrupt = interrupt;
            (Shown::zookeeper(&sc, &cfg.addr), run(&cfg))
        }
        Plan::Redis(sc, mut cfg) => {
            cfg.interrupt = interrupt;
            (Shown::redis(&sc, &cfg), redis::run(&cfg))
        }
        Plan::Etcd(sc, addr) => {
            let property = sc.expect.as_ref().and_then(|e| e.property);
            (
                Shown::etcd(&sc, &addr),
                crate::confirm::etcd::confirm(&sc.space, property, &addr),
            )
        }
    };
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if a.json {
        println!("{}", to_json(&shown, &r));
    } else {
        print!("{}", to_text(&shown, &r));
    }
    if r.interrupted {
        return crate::interrupt::exit_code();
    }
    if r.cleanup.is_err() {
        return 2;
    }
    exit_code(&r.outcome)
}

/// What a report says of the scenario and the server.
pub struct Shown {
    pub scenario: String,
    pub recipe: String,
    pub clients: u8,
    pub acquisitions: u8,
    pub backend: &'static str,
    pub server: String,
    /// Redis: real milliseconds per tick.
    pub tick_ms: Option<u32>,
}

impl Shown {
    pub fn zookeeper(sc: &Scenario, addr: &str) -> Shown {
        Shown {
            scenario: sc.name.clone(),
            recipe: sc.recipe().name().to_string(),
            clients: sc.check.clients,
            acquisitions: sc.check.acquisitions,
            backend: "zookeeper",
            server: addr.to_string(),
            tick_ms: None,
        }
    }

    pub fn etcd(sc: &EtcdScenario, addr: &str) -> Shown {
        Shown {
            scenario: sc.name.clone(),
            recipe: sc.recipe().id().to_string(),
            clients: sc.space.clients,
            acquisitions: sc.space.acquisitions,
            backend: "etcd",
            server: addr.to_string(),
            tick_ms: None,
        }
    }

    pub fn redis(sc: &RedisScenario, cfg: &RedisConfirmConfig) -> Shown {
        Shown {
            scenario: sc.name.clone(),
            recipe: sc.recipe().id().to_string(),
            clients: sc.space.clients,
            acquisitions: sc.space.acquisitions,
            backend: "redis",
            server: cfg.addr.clone(),
            tick_ms: Some(cfg.tick_ms),
        }
    }
}

pub fn exit_code(o: &Outcome) -> i32 {
    match o {
        Outcome::Confirmed(_) => 0,
        Outcome::Diverged { .. } => 1,
        Outcome::Unforced { .. } => 2,
    }
}

/// The verdict's word: `confirmed`, `diverged`, or `not confirmed`.
pub fn verdict_word(o: &Outcome) -> &'static str {
    match o {
        Outcome::Confirmed(_) => "confirmed",
        Outcome::Diverged { .. } => "diverged",
        Outcome::Unforced { .. } => "not confirmed",
    }
}

pub fn to_text(sc: &Shown, r: &ConfirmReport) -> String {
    use std::fmt::Write;
    let how = match (sc.tick_ms, sc.backend) {
        (None, "etcd") => format!(" re-enacted on etcd at {}", sc.server),
        (None, _) => format!(" re-enacted on ZooKeeper at {}", sc.server),
        (Some(t), _) => format!(" re-enacted on Redis at {}, a tick = {t} ms", sc.server),
    };
    let mut out = super::title(&sc.scenario, &sc.recipe, sc.clients, &how);
    let _ = writeln!(
        out,
        "the checker's shortest trace: {}, {} steps ({} states explored){}",
        r.property,
        r.trace_steps,
        r.states,
        r.cycle_start
            .map(|c| format!("; the cycle starts at step {c}"))
            .unwrap_or_default()
    );
    for s in &r.transcript {
        let _ = writeln!(out, "{:>4}. {:<22} model: {}", s.step, s.actor, s.model);
        let _ = writeln!(out, "      {:<22} real:  {}", "", s.real);
    }
    match &r.outcome {
        Outcome::Confirmed(why) => {
            let _ = writeln!(out, "confirmed: {} on the real server — {why}", r.property);
        }
        Outcome::Diverged {
            step,
            expected,
            actual,
        } => {
            let _ = writeln!(out, "diverged at step {step}");
            let _ = writeln!(out, "  the model expected: {expected}");
            let _ = writeln!(out, "  the server did:     {actual}");
        }
        Outcome::Unforced { step, why } => {
            let _ = writeln!(
                out,
                "not confirmed: step {step}: {why} — neither confirmed nor diverged"
            );
        }
    }
    match (&r.cleanup, sc.backend) {
        (Ok(n), "etcd") => {
            let _ = writeln!(
                out,
                "run keys {}*: {n} deleted; its leases revoked ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        (Ok(n), "redis") => {
            let _ = writeln!(
                out,
                "run keys {}*: {n} deleted; every connection closed ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        (Ok(n), _) => {
            let _ = writeln!(
                out,
                "run root {}: {n} node(s), deleted with it; every session ended ({} ms in all)",
                r.root,
                r.elapsed.as_millis()
            );
        }
        (Err(e), _) => {
            let _ = writeln!(out, "run root {}: NOT cleaned up: {e}", r.root);
        }
    }
    out
}

pub fn to_json(sc: &Shown, r: &ConfirmReport) -> serde_json::Value {
    let (step, expected, actual, why) = match &r.outcome {
        Outcome::Confirmed(why) => (None, None, None, Some(why.clone())),
        Outcome::Diverged {
            step,
            expected,
            actual,
        } => (
            Some(*step),
            Some(expected.clone()),
            Some(actual.clone()),
            None,
        ),
        Outcome::Unforced { step, why } => (Some(*step), None, None, Some(why.clone())),
    };
    let mut v = json!({
        "scenario": sc.scenario,
        "backend": sc.backend,
        "recipe": sc.recipe,
        "clients": sc.clients,
        "acquisitions": sc.acquisitions,
        "server": sc.server,
        "tick_ms": sc.tick_ms,
        "property": r.property.name(),
        "trace_steps": r.trace_steps,
        "states": r.states,
        "cycle_start": r.cycle_start,
        "verdict": verdict_word(&r.outcome),
        "step": step,
        "expected": expected,
        "actual": actual,
        "why": why,
        "transcript": r.transcript,
        "cleanup_error": r.cleanup.as_ref().err(),
        "elapsed_ms": r.elapsed.as_millis() as u64,
        "interrupted": r.interrupted,
    });
    // Where the run kept its state on the server, and how much of it was
    // deleted at the end: a root and its nodes, or a key prefix and keys.
    let (place, count) = match sc.backend {
        "redis" | "etcd" => ("key_prefix", "keys_deleted"),
        _ => ("root", "nodes_deleted"),
    };
    v[place] = json!(r.root);
    v[count] = json!(r.cleanup.as_ref().ok());
    v
}
