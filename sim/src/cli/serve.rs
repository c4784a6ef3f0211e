//! `locksmith serve`: the ZooKeeper model on a loopback port, for real
//! client libraries, with faults by schedule and a judge over the lock
//! events the clients report.

use crate::backend::Capability;
use crate::backends::AnyScenario;
use crate::serve::{self, faults};
use clap::Args;
use locksmith_model::zk::check::{CheckConfig, Property};
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The protocol served: `zookeeper` (the ZooKeeper model) or `resp`
    /// (the Redis model, RESP2: redis-py and other Redis clients).
    #[arg(long, default_value = "zookeeper", value_parser = ["zookeeper", "resp"])]
    pub protocol: String,
    /// The ZooKeeper port on 127.0.0.1 (0: any free one; the line printed
    /// at start says which).
    #[arg(long, default_value_t = 2281)]
    pub port: u16,
    /// The port on 127.0.0.1 where clients report lock events, one line
    /// each: `CLIENT EVENT [SESSION]`, EVENT one of acquiring, acquired,
    /// begin, end, released, gave-up, finished (see docs/serve.md).
    #[arg(long, default_value_t = 2282)]
    pub events_port: u16,
    /// Every session's timeout, which the server negotiates and clients
    /// adopt (a short one makes expiry cases fast).
    #[arg(long, default_value_t = 4000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub session_timeout_ms: u64,
    /// A fault by schedule, ACTION:TARGET@MS (repeatable): `expire:2@1500`
    /// ends session 2 1,500 ms after it opened; `drop:holder@300` closes
    /// the connection of the first client to hold the lock for 300 ms;
    /// `mute`, `hold` and `cut` last `+MS` (a one-way partition, replies
    /// held, a two-way partition: docs/serve.md).
    #[arg(long = "fault", value_name = "ACTION:TARGET@MS", value_parser = faults::parse)]
    pub faults: Vec<faults::Fault>,
    /// Stop once this many clients have reported `finished`.
    #[arg(long)]
    pub clients: Option<usize>,
    /// Stop after this many seconds at most (with --clients: a run the
    /// bound stops first is incomplete, exit 3).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub seconds: u64,
    /// A client waiting this long (ms) with nobody holding the lock and no
    /// acquisition or release is a deadlock.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub stuck_ms: u64,
    /// How often (ms) the container reaper runs: a real server's
    /// `znode.container.checkIntervalMs` (60,000 by default;
    /// scripts/zookeeper.sh runs 100, as here).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub reap_ms: u64,
    /// Print every request with its answer, every notification, expiry,
    /// dropped connection and reap to stderr as it happens.
    #[arg(long)]
    pub verbose: bool,
    /// Re-enact this ZooKeeper scenario's shortest counterexample on the
    /// clients that connect (one per scenario client): requests applied,
    /// replies, notifications and faults handed out in the trace's order;
    /// the first step where the real client does something else is
    /// reported (see docs/serve.md).
    #[arg(long, value_name = "SCENARIO")]
    pub trace: Option<PathBuf>,
    /// With --trace: the property whose trace is re-enacted (default: the
    /// headline's).
    #[arg(long, requires = "trace")]
    pub property: Option<String>,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Exit codes: 0 holds, 1 violated, 2 a port cannot be bound, 3
/// incomplete (the time bound came before `--clients` finished), 130 / 143
/// a signal stopped it.
/// The scenario `--trace` names, read as `locksmith check` reads it.
pub fn plan(a: &ServeArgs) -> Result<Option<(CheckConfig, Option<Property>)>, String> {
    if a.protocol == "resp" && (a.trace.is_some() || !a.faults.is_empty()) {
        return Err(
            "--trace and --fault act on ZooKeeper sessions: with --protocol resp, serve runs the Redis model without them".into(),
        );
    }
    let Some(file) = &a.trace else {
        return Ok(None);
    };
    let path = file.display();
    let property =
        match &a.property {
            None => None,
            Some(p) => Some(Property::parse(p).ok_or_else(|| {
                format!("--property {p:?}: expected one of {}", Property::names())
            })?),
        };
    match AnyScenario::load_for(file, &[("serve --trace", Capability::Confirm)])
        .map_err(|e| e.to_string())?
    {
        AnyScenario::ZooKeeper(mut sc) => {
            if sc.expect.is_none() {
                return Err(format!(
                    "{path}: a simulation scenario (no [expect]): serve --trace re-enacts the checker's trace; give it a checker scenario"
                ));
            }
            sc.check.jobs = crate::machine::cores();
            sc.check.validate().map_err(|e| format!("{path}: {e}"))?;
            Ok(Some((sc.check, property)))
        }
        other => Err(format!(
            "{path}: recipe `{}` runs on {}: serve speaks ZooKeeper's protocol only",
            other.recipe_id(),
            other.backend().name()
        )),
    }
}

pub fn run(a: &ServeArgs) -> i32 {
    crate::interrupt::install();
    let trace = match plan(a) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let options = serve::Options {
        protocol: if a.protocol == "resp" {
            serve::Protocol::Resp
        } else {
            serve::Protocol::ZooKeeper
        },
        port: a.port,
        events_port: a.events_port,
        session_timeout: Duration::from_millis(a.session_timeout_ms),
        faults: a.faults.clone(),
        stuck: Duration::from_millis(a.stuck_ms),
        reap_every: Duration::from_millis(a.reap_ms),
        verbose: a.verbose,
        trace,
    };
    let running = match serve::start(options) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // The first line says where to connect: scripts read it (on stderr
    // with --json, so that stdout is one JSON object).
    let start = if a.protocol == "resp" {
        format!(
            "locksmith serve: Redis (RESP) on {}, lock events on {}",
            running.zk_addr(),
            running.events_addr()
        )
    } else {
        format!(
            "locksmith serve: ZooKeeper on {}, lock events on {}, session timeout {} ms",
            running.zk_addr(),
            running.events_addr(),
            a.session_timeout_ms
        )
    };
    if a.json {
        eprintln!("{start}");
    } else {
        println!("{start}");
        let _ = std::io::stdout().flush();
    }
    let summary = running.wait(a.clients, Duration::from_secs(a.seconds));
    if a.json {
        match serde_json::to_string_pretty(&summary) {
            Ok(j) => println!("{j}"),
            Err(e) => eprintln!("error: {e}"),
        }
    } else {
        print!("{}", summary.to_text());
    }
    if crate::interrupt::requested() {
        return crate::interrupt::exit_code();
    }
    summary.exit_code()
}
