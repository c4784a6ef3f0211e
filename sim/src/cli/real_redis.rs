//! `locksmith real SCENARIO --redis HOST:PORT`: a Redis scenario's recipe
//! against a real redis-server (sim/src/real/redis).

use super::real::RealArgs;
use crate::real::redis::{run as run_redis, RedisRealConfig, RedisRealReport};
use crate::scenario::AnyScenario;
use serde_json::json;

/// The run the flags ask for, checked before any connection.
pub fn plan(a: &RealArgs) -> Result<RedisRealConfig, String> {
    let sc = match AnyScenario::load(&a.scenario).map_err(|e| e.to_string())? {
        AnyScenario::Redis(sc) => sc,
        AnyScenario::ZooKeeper(_) | AnyScenario::Mysql(_) => {
            return Err(format!("{}: not a Redis scenario", a.scenario.display()))
        }
    };
    if a.mysql.is_some() {
        return Err(format!(
            "{}: --mysql: recipe `{}` runs on Redis (pass --redis HOST:PORT)",
            a.scenario.display(),
            sc.recipe()
        ));
    }
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
        addr: addr.clone(),
        lease_ms: i64::from(a.lease_ms),
        plan: super::real_threads::plan(a, clients),
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
    cfg.plan.interrupt = Some(crate::interrupt::shared());
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
            super::real_threads::exit_code(&r.run)
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

pub fn to_json(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> serde_json::Value {
    let mut m = super::real_threads::json_fields(a, cfg.recipe.id(), &cfg.plan, &r.run);
    m.insert("server".into(), json!(cfg.addr));
    m.insert("backend".into(), json!("redis"));
    m.insert("lease_ms".into(), json!(cfg.lease_ms));
    m.insert("key".into(), json!(r.key));
    m.insert("key_deleted".into(), json!(r.cleanup.as_ref().ok()));
    serde_json::Value::Object(m)
}

pub fn to_text(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> String {
    use std::fmt::Write;
    let p = &cfg.plan;
    let how = format!(
        " against Redis at {} for {:.1} s (lease {} ms, hold {}, think {}, seed {})",
        cfg.addr,
        r.run.elapsed.as_secs_f64(),
        cfg.lease_ms,
        p.hold,
        p.think,
        p.seed
    );
    let mut out = super::title(a.scenario.display(), cfg.recipe, p.clients, &how);
    super::real_threads::text(&mut out, &r.run);
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
