//! `locksmith real SCENARIO --etcd HOST:PORT`: an etcd scenario's recipe
//! against a real etcd (sim/src/real/etcd).

use super::{run as run_etcd, EtcdRealConfig, EtcdRealReport};
use crate::etcd::scenario::EtcdScenario;
use crate::real::flags::RealArgs;
use crate::real::per;
use crate::real::report::RealBackend;
use crate::real::threads::{Plan, Tally};
use serde_json::json;

/// The run the flags ask for, checked before any connection.
fn plan(a: &RealArgs, sc: EtcdScenario) -> Result<EtcdRealConfig, String> {
    let path = a.scenario.display();
    a.only_servers_of(
        locksmith_model::catalogue::Backend::Etcd,
        sc.recipe().id(),
        "--etcd HOST:PORT",
    )?;
    if a.cleanup_ms.is_some() {
        return Err(format!(
            "{path}: --cleanup-ms: the cleanup job is a MySQL recipe's (recipe `{}` runs on etcd)",
            sc.recipe()
        ));
    }
    let Some(addr) = &a.etcd else {
        return Err(format!(
            "{path}: recipe `{}` runs on etcd: pass --etcd HOST:PORT (`scripts/etcd.sh start` runs one on 127.0.0.1:2390)",
            sc.recipe()
        ));
    };
    crate::real::flags::host_port("--etcd", addr)?;
    let clients = a.clients.map_or(usize::from(sc.space.clients), usize::from);
    Ok(EtcdRealConfig {
        recipe: sc.recipe(),
        addr: addr.clone(),
        ttl_seconds: a.ttl_seconds,
        plan: Plan {
            fencing: sc.space.fencing,
            ..crate::real::report::plan(a, clients)
        },
    })
}

fn to_json(a: &RealArgs, cfg: &EtcdRealConfig, r: &EtcdRealReport) -> serde_json::Value {
    let mut m = crate::real::report::json_fields(a, cfg.recipe.id(), &cfg.plan, &r.run);
    let acq = r.run.acquisitions as f64;
    m.insert("server".into(), json!(cfg.addr));
    m.insert("backend".into(), json!("etcd"));
    m.insert("server_version".into(), json!(r.version));
    m.insert("ttl_seconds".into(), json!(cfg.ttl_seconds));
    m.insert("notifications".into(), json!(r.notifications));
    m.insert(
        "notifications_per_acquisition".into(),
        json!(per(r.notifications, acq)),
    );
    m.insert("wakeups".into(), json!(r.wakeups));
    m.insert("wakeups_per_acquisition".into(), json!(per(r.wakeups, acq)));
    m.insert("keep_alives".into(), json!(r.keep_alives));
    m.insert("leases".into(), json!(r.leases));
    m.insert("key_prefix".into(), json!(r.prefix));
    m.insert("keys_deleted".into(), json!(r.cleanup.as_ref().ok()));
    serde_json::Value::Object(m)
}

fn to_text(a: &RealArgs, cfg: &EtcdRealConfig, r: &EtcdRealReport) -> String {
    use std::fmt::Write;
    let p = &cfg.plan;
    let how = format!(
        " against etcd {} at {} for {:.1} s (TTL {} s, hold {}, think {}, seed {})",
        r.version,
        cfg.addr,
        r.run.elapsed.as_secs_f64(),
        cfg.ttl_seconds,
        p.hold,
        p.think,
        p.seed
    );
    let mut out = crate::title::title(a.scenario.display(), cfg.recipe, p.clients, &how);
    crate::real::report::text(&mut out, &r.run);
    let acq = r.run.acquisitions as f64;
    let _ = writeln!(
        out,
        "watch events: {} ({:.2} per acquisition), {} of them ending a wait ({:.2} per acquisition)",
        r.notifications,
        per(r.notifications, acq),
        r.wakeups,
        per(r.wakeups, acq)
    );
    let _ = writeln!(
        out,
        "keep-alives: {} (not counted as commands)",
        r.keep_alives
    );
    match &r.cleanup {
        Ok(n) => {
            let _ = writeln!(
                out,
                "run prefix {}: {} lease(s) revoked, {n} key(s) left and deleted",
                r.prefix, r.leases
            );
        }
        Err(e) => {
            let _ = writeln!(out, "run prefix {}: NOT cleaned up: {e}", r.prefix);
        }
    }
    out
}

/// `locksmith real --etcd`.
pub struct Etcd;

impl RealBackend for Etcd {
    type Config = EtcdRealConfig;
    type Report = EtcdRealReport;
    type Scenario = EtcdScenario;

    fn plan(a: &RealArgs, sc: EtcdScenario) -> Result<EtcdRealConfig, String> {
        plan(a, sc)
    }

    fn plan_mut(cfg: &mut EtcdRealConfig) -> &mut Plan {
        &mut cfg.plan
    }

    fn run(cfg: &EtcdRealConfig) -> Result<EtcdRealReport, String> {
        run_etcd(cfg)
    }

    fn tally(r: &EtcdRealReport) -> &Tally {
        &r.run
    }

    fn leftover(r: &EtcdRealReport) -> Option<String> {
        r.cleanup.as_ref().err().map(|e| {
            format!(
                "the run's leases and keys under {} could not be removed: {e}",
                r.prefix
            )
        })
    }

    fn json(a: &RealArgs, cfg: &EtcdRealConfig, r: &EtcdRealReport) -> serde_json::Value {
        to_json(a, cfg, r)
    }

    fn text(a: &RealArgs, cfg: &EtcdRealConfig, r: &EtcdRealReport) -> String {
        to_text(a, cfg, r)
    }
}
