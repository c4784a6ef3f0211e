//! `locksmith real SCENARIO --redis HOST:PORT`: a Redis scenario's recipe
//! against a real redis-server (sim/src/real/redis).

use super::{run as run_redis, RedisRealConfig, RedisRealReport};
use crate::real::flags::RealArgs;
use crate::real::report::RealBackend;
use crate::real::threads::{Plan, Tally};
use crate::redis::scenario::RedisScenario;
use serde_json::json;

/// `--redis`'s HOST:PORT, checked before any connection.
pub fn check_addr(addr: &str) -> Result<(), String> {
    crate::real::flags::host_port("--redis", addr)
}

/// The run the flags ask for, checked before any connection.
fn plan(a: &RealArgs, sc: RedisScenario) -> Result<RedisRealConfig, String> {
    a.only_servers_of(
        locksmith_model::catalogue::Backend::Redis,
        sc.recipe().id(),
        "--redis HOST:PORT",
    )?;
    if a.cleanup_ms.is_some() {
        return Err(format!(
            "{}: --cleanup-ms: the cleanup job is a MySQL recipe's (recipe `{}` runs on Redis)",
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
    check_addr(addr)?;
    let clients = a.clients.map_or(usize::from(sc.space.clients), usize::from);
    Ok(RedisRealConfig {
        recipe: sc.recipe(),
        addr: addr.clone(),
        lease_ms: i64::from(a.lease_ms),
        plan: Plan {
            fencing: sc.space.fencing,
            ..crate::real::report::plan(a, clients)
        },
    })
}

fn to_json(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> serde_json::Value {
    let mut m = crate::real::report::json_fields(a, cfg.recipe.id(), &cfg.plan, &r.run);
    m.insert("server".into(), json!(cfg.addr));
    m.insert("backend".into(), json!("redis"));
    m.insert("lease_ms".into(), json!(cfg.lease_ms));
    m.insert("key".into(), json!(r.key));
    m.insert("key_deleted".into(), json!(r.cleanup.as_ref().ok()));
    serde_json::Value::Object(m)
}

fn to_text(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> String {
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
    let mut out = crate::title::title(a.scenario.display(), cfg.recipe, p.clients, &how);
    crate::real::report::text(&mut out, &r.run);
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

/// `locksmith real --redis`.
pub struct Redis;

impl RealBackend for Redis {
    type Config = RedisRealConfig;
    type Report = RedisRealReport;

    type Scenario = RedisScenario;

    fn plan(a: &RealArgs, sc: RedisScenario) -> Result<RedisRealConfig, String> {
        plan(a, sc)
    }

    fn plan_mut(cfg: &mut RedisRealConfig) -> &mut Plan {
        &mut cfg.plan
    }

    fn run(cfg: &RedisRealConfig) -> Result<RedisRealReport, String> {
        run_redis(cfg)
    }

    fn tally(r: &RedisRealReport) -> &Tally {
        &r.run
    }

    fn leftover(r: &RedisRealReport) -> Option<String> {
        r.cleanup
            .as_ref()
            .err()
            .map(|e| format!("the run's key {} could not be deleted: {e}", r.key))
    }

    fn json(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> serde_json::Value {
        to_json(a, cfg, r)
    }

    fn text(a: &RealArgs, cfg: &RedisRealConfig, r: &RedisRealReport) -> String {
        to_text(a, cfg, r)
    }
}
