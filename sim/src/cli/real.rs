//! `locksmith real`: a scenario's recipe against a real ZooKeeper server,
//! with the figures `locksmith sim` prints, under the same names.

use crate::real::times::Between;
use crate::real::{root, run, RealConfig, RealError, RealReport};
use crate::simulate::{SimConfig, Totals};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct RealArgs {
    /// The scenario file (TOML), e.g. scenarios/predecessor.toml; only its
    /// recipe, client count, `reentries`, `acquire_timeout_ms` and `root`
    /// are used (faults are the real world's).
    pub scenario: PathBuf,
    /// The ZooKeeper server, host:port (`scripts/zookeeper.sh start` runs
    /// one on 127.0.0.1:2181).
    #[arg(long, default_value = "127.0.0.1:2181")]
    pub zk: String,
    /// An existing path on the server under which the run creates its own
    /// root, `locksmith-<seed>-<session id>`, and deletes it at the end.
    /// Nothing outside that root is created, changed or deleted.
    #[arg(long, default_value = "/")]
    pub root: String,
    /// Seeds the think and hold times (the same seed draws the same
    /// schedule for each client) and names the run's root.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// How many clients compete, each with its own session (default: the
    /// scenario's `[sim] clients`, else its `clients`).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=255))]
    pub clients: Option<u16>,
    /// How long the clients compete, in seconds.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    pub seconds: f64,
    /// How long a client stays in its critical section, in milliseconds:
    /// N, or MIN,MAX to draw it uniformly per acquisition from --seed.
    #[arg(long, default_value = "0", value_parser = Between::parse_ms)]
    pub hold_ms: Between,
    /// How long a client pauses after unlock() before its next lock(), in
    /// milliseconds: N, or MIN,MAX to draw it per round from --seed
    /// (`locksmith sim` defaults: hold 0.5,1.5, think 0,2).
    #[arg(long, default_value = "0", value_parser = Between::parse_ms)]
    pub think_ms: Between,
    /// A client waiting this many seconds with no acquisition by anyone is
    /// a stall (exit 1).
    #[arg(long, default_value_t = 5.0, value_parser = positive_seconds)]
    pub stall_seconds: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The redis-server for a Redis scenario, host:port
    /// (`scripts/redis.sh start` runs one on 127.0.0.1:6390); required
    /// for a Redis recipe, refused for a ZooKeeper one.
    #[arg(long)]
    pub redis: Option<String>,
    /// The MariaDB (or MySQL) server for a MySQL scenario, as
    /// mysql://USER[:PASSWORD]@HOST:PORT/DATABASE (`scripts/mariadb.sh
    /// start` runs one: mysql://locksmith@127.0.0.1:3390/locksmith); the
    /// run creates its own table there and drops it at the end. Required
    /// for a MySQL recipe, refused for the others.
    #[arg(long)]
    pub mysql: Option<String>,
    /// A Redis recipe's lease (`PX`, or a timestamp recipe's timeout), in
    /// milliseconds: a holder whose `--hold-ms` is longer overruns it.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=86_400_000))]
    pub lease_ms: u32,
    /// A MySQL recipe's cleanup job (seed 002): it frees a lock row it has
    /// seen taken this many milliseconds. Default: the scenario's `[mysql]
    /// cleanup_after`, a tick being the real driver's millisecond; none
    /// without it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=86_400_000))]
    pub cleanup_ms: Option<u32>,
    /// Write every request, reply and notification of every client, with
    /// its time, to this file (ZooKeeper only; the lines `locksmith replay
    /// --timeline` writes for a simulated run; scripts/timeline.py sums
    /// one up).
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 86_400.0 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a number of seconds between 0 and 86400"
        )),
    }
}

/// `--zk`: host:port pairs, and no path (the run roots its sessions
/// itself).
pub(super) fn check_server(zk: &str) -> Result<(), String> {
    let bad =
        || format!("--zk {zk:?}: expected HOST:PORT (or several, comma-separated), without a path");
    if zk.is_empty() || zk.contains('/') || zk.chars().any(char::is_whitespace) {
        return Err(bad());
    }
    for hp in zk.split(',') {
        let (host, port) = hp.rsplit_once(':').ok_or_else(bad)?;
        if host.is_empty() || port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(bad());
        }
    }
    Ok(())
}

/// The run the flags ask for, checked before any connection: the
/// configuration, or the error `run_real` exits 2 with.
pub fn plan(a: &RealArgs) -> Result<RealPlan, String> {
    use super::real_threads::RealBackend;
    use crate::scenario::AnyScenario;
    Ok(
        match AnyScenario::load(&a.scenario).map_err(|e| e.to_string())? {
            AnyScenario::ZooKeeper(sc) => RealPlan::ZooKeeper(plan_zookeeper(a, *sc)?),
            AnyScenario::Redis(sc) => RealPlan::Redis(super::real_redis::Redis::plan(a, *sc)?),
            AnyScenario::Mysql(sc) => RealPlan::Mysql(super::real_mysql::Mysql::plan(a, *sc)?),
        },
    )
}

/// What `locksmith real` runs: the scenario file read once, planned for
/// its backend.
pub enum RealPlan {
    ZooKeeper(RealConfig),
    Redis(crate::real::redis::RedisRealConfig),
    Mysql(crate::real::mysql::MysqlRealConfig),
}

fn plan_zookeeper(a: &RealArgs, sc: crate::scenario::Scenario) -> Result<RealConfig, String> {
    if a.redis.is_some() || a.mysql.is_some() {
        return Err(format!(
            "{}: --redis/--mysql: recipe `{}` runs on ZooKeeper (pass --zk)",
            a.scenario.display(),
            sc.recipe().name()
        ));
    }
    if a.cleanup_ms.is_some() {
        return Err(format!(
            "{}: --cleanup-ms: the cleanup job is a MySQL recipe's (recipe `{}` runs on ZooKeeper)",
            a.scenario.display(),
            sc.recipe().name()
        ));
    }
    if sc.check.shared_session {
        return Err(format!(
            "{}: shared_session = true: expected false: locksmith real gives every client its own session (the setting is the checker's)",
            a.scenario.display()
        ));
    }
    check_server(&a.zk)?;
    root::check_base(&a.root)?;
    let sim = SimConfig::of(&sc);
    let clients = a.clients.map(usize::from).unwrap_or(sim.clients);
    if !(1..=255).contains(&clients) {
        return Err(format!(
            "{}: {clients} clients: expected 1 to 255 (pass --clients)",
            a.scenario.display()
        ));
    }
    let mut cfg = RealConfig::new(sim.recipe, clients, a.seconds, &a.zk);
    cfg.base = a.root.clone();
    cfg.seed = a.seed;
    cfg.hold = a.hold_ms;
    cfg.think = a.think_ms;
    cfg.stall_after = Duration::from_secs_f64(a.stall_seconds);
    cfg.reentries = sim.reentries;
    cfg.acquire_timeout_ms = sim.acquire_timeout_ms;
    cfg.recipe_root = sim.recipe_root;
    cfg.timeline = a.timeline.is_some();
    Ok(cfg)
}

/// Runs the command; exit code 0 clean, 1 violated (overlap or stall), 2
/// error (no server, bad scenario, the run's root not deleted), 130 Ctrl-C.
pub fn run_real(a: &RealArgs) -> i32 {
    let mut cfg = match plan(a) {
        Ok(RealPlan::ZooKeeper(c)) => c,
        Ok(RealPlan::Redis(c)) => {
            return super::real_threads::run::<super::real_redis::Redis>(a, c)
        }
        Ok(RealPlan::Mysql(c)) => {
            return super::real_threads::run::<super::real_mysql::Mysql>(a, c)
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    crate::interrupt::install();
    cfg.interrupt = Some(crate::interrupt::shared());
    match run(&cfg) {
        Ok(r) => {
            if let Some(path) = &a.timeline {
                if let Err(e) = r.timeline.write(path) {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
            if a.json {
                println!("{}", to_json(a, &cfg, &r));
            } else {
                print!("{}", to_text(a, &cfg, &r));
            }
            if let Err(e) = &r.cleanup {
                eprintln!(
                    "error: the run's root {} is still on the server: {e}",
                    r.root
                );
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
            let what = match e {
                RealError::Connect(_) => "error",
                RealError::Setup(_) => "error: setting up the run",
            };
            eprintln!("{what}: {e}");
            2
        }
    }
}

/// The simulator's summary of the run's metrics (with the driver's own
/// count of contended acquisitions, which its metrics do not keep).
fn summary(r: &RealReport) -> crate::simulate::Summary {
    let mut t = Totals::default();
    let mut m = r.metrics.clone();
    m.contended_acquisitions = r.contended_acquisitions;
    t.add(&m);
    t.summary()
}

pub fn to_json(a: &RealArgs, cfg: &RealConfig, r: &RealReport) -> serde_json::Value {
    let s = summary(r);
    let m = &r.metrics;
    let acq = m.acquisitions as f64;
    json!({
        "scenario": a.scenario.display().to_string(),
        "recipe": cfg.recipe.name(),
        "server": cfg.addr,
        "clients": cfg.clients,
        "seconds": cfg.seconds,
        "hold_ms": ms(cfg.hold),
        "think_ms": ms(cfg.think),
        "acquire_timeout_ms": cfg.acquire_timeout_ms,
        "seed": cfg.seed,
        "root": r.root,
        "nodes_deleted": r.cleanup.as_ref().ok(),
        "interrupted": r.interrupted,
        "verdict": if r.violation.is_some() {
            "violated"
        } else if r.interrupted {
            "incomplete"
        } else {
            "holds"
        },
        "property": r.violation.as_ref().map(|v| v.0.name()),
        "why": r.violation.as_ref().map(|v| v.1.clone()),
        "elapsed_ms": r.elapsed.as_secs_f64() * 1e3,
        "acquisitions_per_second": r.acquisitions_per_second(),
        "overlapping_holders": r.overlapping_holders(),
        "max_holders": r.max_holders,
        "contended_acquisitions": r.contended_acquisitions,
        "requests_per_acquisition": per(m.requests, acq),
        "replies_per_acquisition": per(m.replies, acq),
        "notifications_per_contended_acquisition": r.notifications_per_contended_acquisition(),
        "exceptions": r.exceptions,
        "metrics": s,
    })
}

/// A fixed time as a number, a drawn one as `[min, max]`, in ms.
pub(super) fn ms(b: Between) -> serde_json::Value {
    let f = |d: Duration| d.as_secs_f64() * 1e3;
    if b.min == b.max {
        json!(f(b.min))
    } else {
        json!([f(b.min), f(b.max)])
    }
}

fn per(x: u64, n: f64) -> f64 {
    crate::real::driver::per(x, n)
}

pub fn to_text(a: &RealArgs, cfg: &RealConfig, r: &RealReport) -> String {
    use std::fmt::Write;
    let s = summary(r);
    let m = &r.metrics;
    let acq = m.acquisitions as f64;
    let how = format!(
        " against ZooKeeper at {} for {:.1} s",
        cfg.addr,
        r.elapsed.as_secs_f64()
    );
    let mut out = super::title(a.scenario.display(), cfg.recipe, cfg.clients, &how);
    super::real_threads::verdict_lines(
        &mut out,
        r.violation.as_ref(),
        r.interrupted.then_some(r.elapsed),
        r.overlapping_holders(),
        r.max_holders,
    );
    let _ = writeln!(
        out,
        "acquisitions: {} ({:.1}/s), {} contended (waited for a notification)",
        m.acquisitions,
        r.acquisitions_per_second(),
        r.contended_acquisitions
    );
    let _ = writeln!(
        out,
        "per acquisition: {:.2} requests, {:.2} replies, {:.2} notifications, {:.2} packets",
        per(m.requests, acq),
        per(m.replies, acq),
        s.notifications_per_acquisition,
        s.packets_per_acquisition
    );
    let _ = writeln!(
        out,
        "notifications per contended acquisition: {:.2}",
        r.notifications_per_contended_acquisition()
    );
    let _ = writeln!(
        out,
        "wake-ups per contended release: {:.2} ({} releases)",
        s.wakeups_per_release, m.contended_releases
    );
    let _ = writeln!(
        out,
        "latency lock() → acquired: p50 {:.2} ms, p99 {:.2} ms",
        s.latency_p50_ms, s.latency_p99_ms
    );
    let _ = writeln!(
        out,
        "totals: {} requests, {} replies, {} notifications (heartbeats not counted)",
        m.requests, m.replies, m.notifications
    );
    if let Some(ms) = cfg.acquire_timeout_ms {
        let _ = writeln!(
            out,
            "acquire({ms} ms): {} deadline(s) passed, lock() gave up {} time(s)",
            m.deadlines_passed, m.gave_up
        );
    }
    if !r.exceptions.is_empty() {
        let _ = writeln!(
            out,
            "exceptions ({}; each client got a new session): {}",
            r.exceptions.len(),
            r.exceptions.join("; ")
        );
    }
    let times = if cfg.hold.is_zero() && cfg.think.is_zero() {
        String::new()
    } else {
        format!(
            "; hold {}, think {}, drawn from seed {}",
            cfg.hold, cfg.think, cfg.seed
        )
    };
    match &r.cleanup {
        Ok(n) => {
            let _ = writeln!(
                out,
                "run root {}: {n} node(s), deleted with it{times}",
                r.root
            );
        }
        Err(e) => {
            let _ = writeln!(out, "run root {}: NOT deleted: {e}{times}", r.root);
        }
    }
    out
}
