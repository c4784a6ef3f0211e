//! `locksmith real SCENARIO --mysql URL`: a MySQL scenario's recipe
//! against a real MariaDB (sim/src/real/mysql).

use super::{run as run_mysql, MysqlRealConfig, MysqlRealReport};
use crate::mysql::scenario::MysqlScenario;
use crate::real::flags::RealArgs;
use crate::real::report::RealBackend;
use crate::real::threads::{Plan, Tally};
use serde_json::json;

/// The run the flags ask for, checked before any connection.
fn plan(a: &RealArgs, sc: MysqlScenario) -> Result<MysqlRealConfig, String> {
    a.only_servers_of(
        locksmith_model::catalogue::Backend::Mysql,
        sc.recipe().id(),
        "--mysql URL",
    )?;
    let Some(url) = &a.mysql else {
        return Err(format!(
            "{}: recipe `{}` runs on MySQL: pass --mysql mysql://USER@HOST:PORT/DATABASE \
             (`scripts/mariadb.sh start` runs one: mysql://locksmith@127.0.0.1:3390/locksmith)",
            a.scenario.display(),
            sc.recipe()
        ));
    };
    crate::mysql::real::wire::opts(url, false)
        .map_err(|e| format!("--mysql {e}: expected mysql://USER[:PASSWORD]@HOST:PORT/DATABASE"))?;
    let clients = a.clients.map_or(usize::from(sc.space.clients), usize::from);
    let cleanup_ms = a.cleanup_ms.or(sc.space.cleanup_after.map(u32::from));
    if cleanup_ms.is_some() && sc.recipe().cleanup_statement().is_none() {
        return Err(format!(
            "{}: --cleanup-ms: recipe `{}` holds a row lock, which leaves no row to clean: expected a recipe with a lock row to free",
            a.scenario.display(),
            sc.recipe()
        ));
    }
    Ok(MysqlRealConfig {
        cleanup_after: cleanup_ms.map(|ms| std::time::Duration::from_millis(u64::from(ms))),
        recipe: sc.recipe(),
        url: url.clone(),
        found_rows: sc.space.found_rows,
        lock_row: sc.space.lock_row,
        plan: Plan {
            fencing: sc.space.fencing,
            ..crate::real::report::plan(a, clients)
        },
    })
}

fn to_json(a: &RealArgs, cfg: &MysqlRealConfig, r: &MysqlRealReport) -> serde_json::Value {
    let mut m = crate::real::report::json_fields(a, cfg.recipe.id(), &cfg.plan, &r.run);
    m.insert("server".into(), json!(cfg.url));
    m.insert("backend".into(), json!("mysql"));
    m.insert("found_rows".into(), json!(cfg.found_rows));
    m.insert("table".into(), json!(r.table));
    m.insert("table_dropped".into(), json!(r.cleanup.is_ok()));
    m.insert(
        "cleanup_ms".into(),
        json!(cfg.cleanup_after.map(|d| d.as_millis() as u64)),
    );
    m.insert("cleanup_job_freed".into(), json!(r.job_freed));
    serde_json::Value::Object(m)
}

fn to_text(a: &RealArgs, cfg: &MysqlRealConfig, r: &MysqlRealReport) -> String {
    use std::fmt::Write;
    let p = &cfg.plan;
    let how = format!(
        " against MySQL at {} for {:.1} s (hold {}, think {}, seed {}{})",
        cfg.url,
        r.run.elapsed.as_secs_f64(),
        p.hold,
        p.think,
        p.seed,
        if cfg.found_rows {
            ", CLIENT_FOUND_ROWS"
        } else {
            ""
        }
    );
    let mut out = crate::title::title(a.scenario.display(), cfg.recipe, p.clients, &how);
    crate::real::report::text(&mut out, &r.run);
    if let (Some(after), Some(freed)) = (cfg.cleanup_after, r.job_freed) {
        let _ = writeln!(
            out,
            "the cleanup job freed {freed} lock row(s) it saw taken for {} ms",
            after.as_millis()
        );
    }
    match &r.cleanup {
        Ok(()) => {
            let _ = writeln!(out, "run table {}: dropped", r.table);
        }
        Err(e) => {
            let _ = writeln!(out, "run table {}: NOT dropped: {e}", r.table);
        }
    }
    out
}

/// `locksmith real --mysql`.
pub struct Mysql;

impl RealBackend for Mysql {
    type Config = MysqlRealConfig;
    type Report = MysqlRealReport;

    type Scenario = MysqlScenario;

    fn plan(a: &RealArgs, sc: MysqlScenario) -> Result<MysqlRealConfig, String> {
        plan(a, sc)
    }

    fn plan_mut(cfg: &mut MysqlRealConfig) -> &mut Plan {
        &mut cfg.plan
    }

    fn run(cfg: &MysqlRealConfig) -> Result<MysqlRealReport, String> {
        run_mysql(cfg)
    }

    fn tally(r: &MysqlRealReport) -> &Tally {
        &r.run
    }

    fn leftover(r: &MysqlRealReport) -> Option<String> {
        r.cleanup
            .as_ref()
            .err()
            .map(|e| format!("the run's table {} could not be dropped: {e}", r.table))
    }

    fn json(a: &RealArgs, cfg: &MysqlRealConfig, r: &MysqlRealReport) -> serde_json::Value {
        to_json(a, cfg, r)
    }

    fn text(a: &RealArgs, cfg: &MysqlRealConfig, r: &MysqlRealReport) -> String {
        to_text(a, cfg, r)
    }
}
