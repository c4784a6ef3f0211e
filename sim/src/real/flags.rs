//! `locksmith real`'s flags, the same for every backend, and how a drawn
//! time among them reads back in `--json`.

use super::times::Between;
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
    #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..=255))]
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
    /// The etcd for an etcd scenario, host:port of its client port
    /// (`scripts/etcd.sh start` runs one on 127.0.0.1:2390); the run's keys
    /// and leases are its own, revoked and deleted at the end. Required for
    /// an etcd recipe, refused for the others.
    #[arg(long)]
    pub etcd: Option<String>,
    /// An etcd recipe's session TTL (`concurrency.WithTTL`), in seconds;
    /// each client keeps its lease alive every TTL / 3, and etcd raises a
    /// TTL below its minimum (2 s with the default election timeout).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u8).range(1..=120))]
    pub ttl_seconds: u8,
    /// A Redis recipe's lease (`PX`, or a timestamp recipe's timeout), in
    /// milliseconds: a holder whose `--hold-ms` is longer overruns it.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=86_400_000))]
    pub lease_ms: u32,
    /// A MySQL recipe's cleanup job (source 002): it frees a lock row it has
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

impl RealArgs {
    /// Refuses a server flag of another backend than `backend`'s, the
    /// scenario's (`pass`: the flag its own server takes, as typed).
    pub fn only_servers_of(
        &self,
        backend: locksmith_model::catalogue::Backend,
        recipe: &str,
        pass: &str,
    ) -> Result<(), String> {
        use locksmith_model::catalogue::Backend as B;
        let given = [
            (B::Redis, "--redis", self.redis.is_some()),
            (B::Mysql, "--mysql", self.mysql.is_some()),
            (B::Etcd, "--etcd", self.etcd.is_some()),
        ];
        match given.into_iter().find(|&(b, _, on)| on && b != backend) {
            Some((_, flag, _)) => Err(format!(
                "{}: {flag}: recipe `{recipe}` runs on {} (pass {pass})",
                self.scenario.display(),
                backend.name()
            )),
            None => Ok(()),
        }
    }
}

/// A server flag's HOST:PORT (`flag` as typed), checked before any
/// connection.
pub fn host_port(flag: &str, addr: &str) -> Result<(), String> {
    let bad = || format!("{flag} {addr:?}: expected HOST:PORT");
    let (host, port) = addr.rsplit_once(':').ok_or_else(bad)?;
    if host.is_empty()
        || host.contains('/')
        || host.chars().any(char::is_whitespace)
        || port.parse::<u16>().map_or(true, |p| p == 0)
    {
        return Err(bad());
    }
    Ok(())
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 86_400.0 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a number of seconds between 0 and 86400"
        )),
    }
}

/// A fixed time as a number, a drawn one as `[min, max]`, in ms.
pub fn ms(b: Between) -> serde_json::Value {
    let f = |d: Duration| d.as_secs_f64() * 1e3;
    if b.min == b.max {
        json!(f(b.min))
    } else {
        json!([f(b.min), f(b.max)])
    }
}
