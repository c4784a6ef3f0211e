//! `locksmith real SCENARIO --redis HOST:PORT`: a Redis scenario's recipe
//! against a real redis-server (sim/src/real/redis).

use super::real::RealArgs;
use crate::real::redis::{run as run_redis, RedisRealConfig, RedisRealReport};
use crate::scenario::AnyScenario;
use serde_json::json;
use std::time::Duration;

/// The run the flags ask for, checked before any connection.
pub fn plan(a: &RealArgs) -> Result<RedisRealConfig, String> {
    let sc = match AnyScenario::load(&a.scenario).map_err(|e| e.to_string())? {
        AnyScenario::Redis(sc) => sc,
        AnyScenario::ZooKeeper(_) | AnyScenario::Mysql(_) => {
            return Err(format!("{}: not a Redis scenario", a.scenario.display()))
        }
    };
    let Some(addr) = &a.redis else {
        return Err(format!(
            "{}: recipe `{}` runs on Redis: pass --redis HOST:PORT (`scripts/redis.sh start` runs one on 127.0.0.1:6390)",
            a.scenario.display(),
            sc.recipe()
        ));
    };
    let bad = || format!("--redis {addr:?}: expected HOST:PORT");
    let (host, port) = addr.rsplit_once(':').ok_or_else(bad)?;
    if host.is_empty()
        || host.contains('/')
        || host.chars().any(char::is_whitespace)
        || port.parse::<u16>().map_or(true, |p| p == 0)
    {
        return Err(bad());
    }
    let clients = a.clients.map_or(usize::from(sc.space.clients), usize::from);
    Ok(RedisRealConfig {
        recipe: sc.recipe(),
        clients,
        seconds: a.seconds,
        addr: addr.clone(),
        seed: a.seed,
        lease_ms: i64::from(a.lease_ms),
        hold: a.hold_ms,
        think: a.think_ms,
        stall_after: Duration::from_secs_f64(a.stall_seconds),
        interrupt: None,
    })
}

/// Exit codes as for ZooKeeper: 0 clean, 1 violated, 2 error, 130 Ctrl-C.
pub fn run(a: &RealArgs) -> i32 {
    let mut cfg = match plan(a) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    cfg.interrupt = Some(crate::interrupt::shared());
    match run_redis(&cfg) {
        Ok(r) => {
            if a.json {
                println!("{}", to_json(a, &cfg, &r));
            } else {
                print!("{}", to_text(a, &cfg, &r));
            }
            if let Err(e) = &r.cleanup {
                eprintln!("error: the run's key {} could not be deleted: {e}", r.key);
                return 2;
            }
            if r.violation.is_some() {
                1
            } else if r.interrupted {
                crate::interrupt::EXIT
            } else {
                0
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn verdict(r: &RedisRealReport) -> &'static str {
    if r.violation.is_some() {
        "violated"
    } else if r.interrupted {
        "incomplete"
    } else {
        "holds"
    }
}

pub fn to_json(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> serde_json::Value {
    json!({
        "scenario": a.scenario.display().to_string(),
        "recipe": cfg.recipe.id(),
        "server": cfg.addr,
        "backend": "redis",
        "clients": cfg.clients,
        "seconds": cfg.seconds,
        "lease_ms": cfg.lease_ms,
        "hold_ms": super::real::ms(cfg.hold),
        "think_ms": super::real::ms(cfg.think),
        "seed": cfg.seed,
        "key": r.key,
        "key_deleted": r.cleanup.as_ref().ok(),
        "interrupted": r.interrupted,
        "verdict": verdict(r),
        "property": r.violation.as_ref().map(|v| v.0.name()),
        "why": r.violation.as_ref().map(|v| v.1.clone()),
        "elapsed_ms": r.elapsed.as_secs_f64() * 1e3,
        "acquisitions": r.acquisitions,
        "acquisitions_per_second": r.acquisitions_per_second(),
        "gave_up": r.gave_up,
        "commands": r.commands,
        "commands_per_acquisition": r.commands_per_acquisition(),
        "overlapping_holders": r.overlapping_holders,
        "max_holders": r.max_holders,
        "exceptions": r.exceptions,
    })
}

pub fn to_text(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> String {
    use std::fmt::Write;
    let how = format!(
        " against Redis at {} for {:.1} s (lease {} ms, hold {}, think {}, seed {})",
        cfg.addr,
        r.elapsed.as_secs_f64(),
        cfg.lease_ms,
        cfg.hold,
        cfg.think,
        cfg.seed
    );
    let mut out = super::title(a.scenario.display(), cfg.recipe, cfg.clients, &how);
    match &r.violation {
        Some((p, why)) => {
            let _ = writeln!(out, "verdict: violated: {p}");
            let _ = writeln!(out, "  {why}");
        }
        None if r.interrupted => {
            let _ = writeln!(
                out,
                "verdict: incomplete: interrupted (Ctrl-C) after {:.1} s, no overlapping holders and no stall until then",
                r.elapsed.as_secs_f64()
            );
        }
        None => {
            let _ = writeln!(
                out,
                "verdict: holds (no overlapping holders, no stall) over this run"
            );
        }
    }
    let _ = writeln!(
        out,
        "overlapping holders: {} (most at once: {})",
        r.overlapping_holders, r.max_holders
    );
    let _ = writeln!(
        out,
        "acquisitions: {} ({:.1}/s), {} lock() calls gave up",
        r.acquisitions,
        r.acquisitions_per_second(),
        r.gave_up
    );
    let _ = writeln!(
        out,
        "commands: {} ({:.2} per acquisition)",
        r.commands,
        r.commands_per_acquisition()
    );
    if !r.exceptions.is_empty() {
        let _ = writeln!(out, "exceptions: {}", r.exceptions.join("; "));
    }
    match &r.cleanup {
        Ok(_) => {
            let _ = writeln!(out, "run key {}: deleted", r.key);
        }
        Err(e) => {
            let _ = writeln!(out, "run key {}: NOT deleted: {e}", r.key);
        }
    }
    out
}
