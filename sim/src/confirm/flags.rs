//! `locksmith confirm`'s flags, the same for every backend.

use clap::Args;
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

impl ConfirmArgs {
    /// The server flag the scenario's backend needs (`given`), or the error
    /// that says which to pass (`pass`: the flag and how to start a server).
    pub fn server<'a>(
        &self,
        given: &'a Option<String>,
        recipe: impl std::fmt::Display,
        backend: &str,
        pass: &str,
    ) -> Result<&'a str, String> {
        given.as_deref().ok_or_else(|| {
            format!(
                "{}: recipe `{recipe}` runs on {backend}: pass {pass}",
                self.scenario.display()
            )
        })
    }

    /// The error for a scenario with no `[expect]`: nothing to re-enact.
    pub fn no_expect(&self) -> String {
        format!(
            "{}: no [expect]: confirm re-enacts a checker scenario's trace",
            self.scenario.display()
        )
    }
}
