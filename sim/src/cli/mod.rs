//! The command line. Exit codes are a contract, the same in every
//! command: 0 holds, 1 violated, 2 bad input or an error, 3 incomplete
//! (a bound stopped the run first), 130 and 143 a run SIGINT (Ctrl-C) or
//! SIGTERM stopped, after printing what it covered. `confirm` keeps its
//! own 0 confirmed / 1 diverged / 2 not confirmed.

mod calibrate;
mod check;
mod compare;
mod confirm;

mod explorer;
mod real;
mod recipes;
mod serve;
mod simulate;

pub use compare::options as compare_options;

use clap::{Parser, Subcommand};
use locksmith_model::catalogue::{self, Backend};

// The help's first paragraph counts and names the catalogue's backends
// (see `about`), so it is not a doc comment.
#[derive(Parser, Debug)]
#[command(name = "locksmith", version, about = about(), long_about = long_about())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explore every interleaving of a scenario (exhaustive, shortest traces).
    ///
    /// Prints the verdict (holds / violated / incomplete), the property it is
    /// about, how many states were explored, the depth, the time, and for a
    /// violation the shortest trace as text and as a Mermaid sequence
    /// diagram. Example: `locksmith check scenarios/racy-wait.toml`. Exit
    /// codes: 0 holds, 1 violated, 2 bad input, 3 incomplete (a bound was
    /// hit first: it is named), 130 / 143 stopped by SIGINT / SIGTERM.
    Check(check::CheckArgs),
    /// Print checker figures on ZooKeeper recipes: time to the lost wake-up (racy-wait, N=2 and
    /// N=3), states, states/s, bytes/state and peak memory for fixed-wait at
    /// N=3 and N=4 and predecessor 3 × 2 (`--large`: also fixed-wait N=5 and
    /// N=6 and predecessor 4 × 2).
    Bench(crate::zk::bench::BenchArgs),
    /// Serve stateright's Explorer web UI on a ZooKeeper scenario, to step
    /// through states by hand (http://127.0.0.1:3000 by default; Redis and
    /// MySQL scenarios are refused: the capability is ZooKeeper's).
    Explorer(explorer::ExplorerArgs),
    /// Simulate a scenario of any backend over many seeds (madsim): real
    /// timers, heartbeats, leases, lock waits, faults. Stops at the first failing seed and prints one
    /// command that replays it. Example: `locksmith sim
    /// scenarios/racy-wait.toml --seeds 100 --clients 5`. Exit codes: 0 no
    /// seed failed, 1 a seed failed, 2 bad input, 3 fewer seeds run than
    /// asked, 130 / 143 stopped by SIGINT / SIGTERM.
    Sim(simulate::SimArgs),
    /// Replay one simulation seed and print its whole trace (text and
    /// Mermaid). The same seed gives the same trace, byte for byte. Exit
    /// codes: 0 no violation, 1 violated, 2 bad input.
    Replay(simulate::ReplayArgs),
    /// Print simulator figures on ZooKeeper recipes: simulated acquisitions and seeds per wall
    /// second, packets per acquisition, wall time of a 10,000-seed sweep.
    BenchSim(simulate::BenchSimArgs),
    /// Run a scenario's recipe against a real ZooKeeper server, each client
    /// with its own session: checks mutual exclusion and stalls, and prints
    /// the figures `locksmith sim` prints (same JSON names). Example:
    /// `locksmith real scenarios/predecessor.toml --zk 127.0.0.1:2181
    /// --clients 5 --seconds 10`. A Redis scenario runs against a
    /// redis-server instead, one connection per client, on a key of its
    /// own: `locksmith real scenarios/redis-set-px-del-pause.toml --redis
    /// 127.0.0.1:6390 --lease-ms 100 --hold-ms 150`; a MySQL scenario
    /// against a MariaDB or MySQL server, on a table of its own:
    /// `locksmith real scenarios/mysql-status-cas.toml --mysql
    /// mysql://locksmith@127.0.0.1:3390/locksmith`; an etcd scenario
    /// against an etcd, on keys and leases of its own: `locksmith real
    /// scenarios/etcd-mutex.toml --etcd 127.0.0.1:2390`.
    ///
    /// A contended acquisition is one during whose attempt (lock() called →
    /// returned) the client received at least one watch notification;
    /// notifications per contended acquisition = all notifications ÷
    /// contended acquisitions (1 for the textbook lock). A stall: no
    /// acquisition for --stall-seconds while a client waits. Exit codes: 0 no
    /// violation, 1 overlapping holders or a stall, 2 no server or bad
    /// input, 130 / 143 stopped by SIGINT / SIGTERM (its nodes and
    /// sessions cleaned up). See docs/real.md.
    Real(real::RealArgs),
    /// Re-enact the checker's shortest counterexample of a scenario, step
    /// for step, on a real ZooKeeper (a Redis scenario: on a redis-server,
    /// `--redis`; an etcd scenario: on an etcd, `--etcd`; MySQL has no
    /// re-enactment yet and is refused): one real
    /// session per client under a fresh root, requests sent and replies and notifications handed over
    /// in the trace's order, expiries and connection losses forced for
    /// real. Prints `confirmed` with the same violation on the real server,
    /// or `diverged at step N` with what the model expected and what the
    /// server did; cleans up its nodes and sessions either way. Example:
    /// `locksmith confirm scenarios/racy-wait.toml --zk 127.0.0.1:2181`.
    /// Exit codes: 0 confirmed, 1 diverged, 2 error (no violation to
    /// confirm, no server, a step confirm cannot force). See docs/real.md.
    Confirm(confirm::ConfirmArgs),
    /// ZooKeeper only: measure a real ZooKeeper's service times (a read's and a write's
    /// round trip; the server's time per read and per write, kept busy)
    /// and print them as a `[sim]` profile (`latency_ms`, `server_read_ms`,
    /// `server_write_ms`). Example: `locksmith calibrate --zk
    /// 127.0.0.1:2181 --out profiles/zookeeper-3.8.toml`. Exit codes: 0
    /// measured, 2 error. See docs/real.md.
    Calibrate(calibrate::CalibrateArgs),
    /// ZooKeeper only: serve the ZooKeeper model on a loopback port, over
    /// ZooKeeper's own client protocol, so that real client libraries
    /// (Curator, kazoo, your own code) run against the model the checker
    /// explores, with session expiries and dropped connections by schedule
    /// (`--fault expire:holder@500`). Clients report their lock's events on
    /// a second port; the harness's judge decides mutual exclusion (by
    /// belief and at the resource) and deadlock. `--trace SCENARIO`
    /// re-enacts the scenario's shortest counterexample on the clients
    /// that connect, step by step, and reports the first divergence;
    /// `--protocol resp` serves the Redis model to Redis clients instead.
    /// Example: `locksmith serve --port 2281 --clients 2 --fault
    /// expire:holder@300`. Exit codes: 0
    /// holds, 1 violated, 2 bad input, 3 incomplete (the time bound came
    /// first), 130 / 143 stopped by a signal. See docs/serve.md.
    Serve(serve::ServeArgs),
    /// Every recipe under every fault class: the matrix, written to
    /// reports/ (README.md, index.html, compare.json, traces/, charts/).
    ///
    /// Each cell is judged in this run by the exhaustive checker or the
    /// simulator; the costs (notifications, packets, wake-ups, latency at
    /// 2, 5, 10, 20 clients) come from the simulator. Prints the matrix and
    /// where the report went. Exit codes: 0 every cell reached a verdict, 2
    /// an input is wrong, 3 a cell is incomplete. Example: `locksmith
    /// compare --recipes predecessor,no-recheck --faults none,waiter-expiry`.
    Compare(compare::CompareArgs),
    // `locksmith recipes`: its help names the backends it lists
    // (`recipes_about`).
    #[command(about = recipes_about(), long_about = recipes_long_about())]
    Recipes(recipes::RecipesArgs),
}

/// The catalogue's backends as prose: "ZooKeeper, Redis and MySQL".
fn backend_names() -> String {
    let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// How many recipes each backend has: "15 on ZooKeeper, 9 on Redis, 3 on
/// MySQL".
fn recipes_per_backend() -> String {
    let all = catalogue::all();
    let per: Vec<String> = Backend::ALL
        .iter()
        .map(|&b| {
            let n = all.iter().filter(|e| e.backend == b).count();
            format!("{n} on {}", b.name())
        })
        .collect();
    per.join(", ")
}

/// The help's first paragraph.
fn about() -> String {
    format!(
        "locksmith finds the bugs in distributed lock recipes before production does: it runs the {} recipes engineers copy from blog posts ({}) against in-memory models of {} under faults (session expiry, lost connections, process pauses and crashes, clock jumps) and every interleaving, and returns the shortest trace that breaks them.",
        catalogue::all().len(),
        recipes_per_backend(),
        backend_names()
    )
}

fn long_about() -> String {
    format!(
        "{}\n\nExit codes: 0 = holds, 1 = violated, 2 = bad input or error, 3 = incomplete (a bound stopped the run first: it says which and what it covered), 130 / 143 = interrupted by SIGINT (Ctrl-C) / SIGTERM (what it covered is printed). `confirm`: 0 confirmed, 1 diverged, 2 not confirmed or error.",
        about()
    )
}

fn recipes_about() -> String {
    format!(
        "List every backend's recipes ({}): each one's id, backend, where it comes from, what it claims, and the faults known to break it",
        backend_names()
    )
}

fn recipes_long_about() -> String {
    format!(
        "List every backend's recipes ({}; {} in all): each one's id, backend, where it comes from, what it claims, and the faults known to break it — read from the scenario files whose pinned expectation (`[expect]` or `[sim.expect]`, held by `cargo test`) is a violation. Example: `locksmith recipes --json`.",
        recipes_per_backend(),
        catalogue::all().len()
    )
}

/// Parses the arguments, runs the command, returns the exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Bench(args) => crate::zk::bench::run(&args),
        Command::Explorer(args) => explorer::run(&args),
        Command::Sim(args) => simulate::run_sim(&args),
        Command::Replay(args) => simulate::run_replay(&args),
        Command::BenchSim(args) => simulate::run_bench(&args),
        Command::Real(args) => real::run_real(&args),
        Command::Confirm(args) => confirm::run_confirm(&args),
        Command::Calibrate(args) => calibrate::run_calibrate(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Recipes(args) => recipes::run(&args),
    }
}

/// What a command line would run, checked without running it: the flags
/// and every file they name are read and validated exactly as the command
/// does before it starts (nothing is explored, simulated, connected to or
/// served). `Ok` for a line the command would start on (or that asks for
/// `--help`); `Err` with the message the command exits 2 with.
pub fn validate<I, T>(args: I) -> Result<(), String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) if e.exit_code() == 0 => return Ok(()),
        Err(e) => return Err(e.to_string()),
    };
    match &cli.command {
        Command::Check(a) => check::plan(a).map(drop),
        Command::Explorer(a) => explorer::plan(a).map(drop),
        Command::Sim(a) => simulate::plan(a).map(drop),
        Command::Replay(a) => simulate::plan_replay(a).map(drop),
        Command::Real(a) => real::plan(a).map(drop),
        Command::Confirm(a) => confirm::plan(a).map(drop),
        Command::Calibrate(a) => calibrate::plan(a),
        Command::Compare(a) => compare::plan(a).map(drop),
        Command::Recipes(a) => recipes::breaks_in(&a.scenarios).map(drop),
        Command::Serve(a) => serve::plan(a).map(drop),
        Command::Bench(_) | Command::BenchSim(_) => Ok(()),
    }
}
