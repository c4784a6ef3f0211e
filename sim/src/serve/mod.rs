//! `locksmith serve`: a backend's model behind its own client protocol, so
//! that unmodified client libraries (Curator, kazoo, the Rust
//! `zookeeper-client`, redis-py, a user's own code) run against the same
//! model the checker explores, with faults under the tool's control and the
//! harness's judge over the lock events the clients report.
//!
//! One folder per protocol, as the backends have one each:
//!
//! - [`zk`]: ZooKeeper's client protocol in front of the ZooKeeper model,
//!   with faults by schedule and `--trace`;
//! - [`redis`]: RESP in front of the Redis model (`--protocol resp`).
//!
//! What every protocol shares is here: the options, the lock events and
//! their judge ([`lock_events`]), the counts and log ([`record`]), the
//! report ([`summary`]), the run's clock and its end.
//!
//! Time here is the wall clock's: the clients are real programs with their
//! own threads and timers, so a run is not replayable from a seed (the
//! checker's and the simulator's are); what it shows is what the real
//! library does against the model's rules.

pub mod lock_events;
pub mod record;
pub mod redis;
mod summary;
pub mod zk;

pub use summary::Summary;
pub use zk::{faults, replay, wire};

use faults::Fault;
use lock_events::Judge;
use locksmith_model::zk::check::{CheckConfig, Property};
use record::Record;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpListener;

/// Which protocol clients speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Protocol {
    /// ZooKeeper's client protocol, the ZooKeeper model behind it.
    #[default]
    ZooKeeper,
    /// RESP2, the Redis model behind it.
    Resp,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::ZooKeeper => "zookeeper",
            Protocol::Resp => "resp",
        }
    }

    /// Accepts the protocol's clients on `listener`.
    fn accept(
        self,
        runtime: &tokio::runtime::Runtime,
        listener: TcpListener,
        state: Arc<Mutex<State>>,
    ) {
        match self {
            Protocol::ZooKeeper => runtime.spawn(zk::accept(listener, state)),
            Protocol::Resp => runtime.spawn(redis::accept(listener, state)),
        };
    }

    /// The clock's work for the protocol's server (Redis keys age as
    /// they are read: nothing to do).
    fn tick(self, s: &mut State, now: Instant) {
        if self == Protocol::ZooKeeper {
            zk::tick(s, now);
        }
    }

    /// The container reaper's pass (ZooKeeper's alone).
    fn reap(self, s: &mut State) {
        if self == Protocol::ZooKeeper {
            zk::reap(s);
        }
    }

    /// The counts and log of the protocol's server.
    fn record(self, s: &State) -> &Record {
        match self {
            Protocol::ZooKeeper => &s.zk.hub.record,
            Protocol::Resp => &s.redis.record,
        }
    }
}

/// What a served run is asked for.
#[derive(Clone, Debug)]
pub struct Options {
    pub protocol: Protocol,
    /// The ZooKeeper port on 127.0.0.1 (0: any free one).
    pub port: u16,
    /// The lock-events port on 127.0.0.1 (0: any free one).
    pub events_port: u16,
    /// Every session's negotiated timeout: clients adopt the server's.
    pub session_timeout: Duration,
    pub faults: Vec<Fault>,
    /// A client waiting this long with nobody holding and no progress is
    /// a deadlock.
    pub stuck: Duration,
    /// How often the container reaper runs (a real server's
    /// `znode.container.checkIntervalMs`; `scripts/zookeeper.sh` sets 100 ms).
    pub reap_every: Duration,
    /// Print every request, reply, notification and fault to stderr.
    pub verbose: bool,
    /// Re-enact this scenario's shortest counterexample (of this property,
    /// or the headline's) on the clients that connect.
    pub trace: Option<(CheckConfig, Option<Property>)>,
}

/// The shared state: the served server and the judge, under one lock so
/// that a fault aimed at the holder sees the holder the events say.
pub(crate) struct State {
    zk: zk::Served,
    redis: redis::Store,
    judge: Judge,
    event_lines: u64,
    event_errors: Vec<String>,
}

/// A served run in progress.
pub struct Running {
    runtime: tokio::runtime::Runtime,
    state: Arc<Mutex<State>>,
    zk: SocketAddr,
    events: SocketAddr,
    options: Options,
    started: Instant,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic in one task must not hide the run's results from the rest.
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts serving on 127.0.0.1. Fails if a port cannot be bound.
pub fn start(options: Options) -> Result<Running, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    // The trace is explored first: the run's clock starts when it serves.
    let (zk, started) = zk::Served::new(&options)?;
    let state = Arc::new(Mutex::new(State {
        zk,
        redis: redis::Store::new(started, options.verbose),
        judge: Judge::new(started),
        event_lines: 0,
        event_errors: Vec::new(),
    }));
    let bind = |port: u16, what: &str| {
        runtime
            .block_on(TcpListener::bind(("127.0.0.1", port)))
            .map_err(|e| format!("cannot listen for {what} on 127.0.0.1:{port}: {e}"))
    };
    let zk_listener = bind(options.port, "clients")?;
    let events_listener = bind(options.events_port, "lock events")?;
    let local = |l: &TcpListener| l.local_addr().map_err(|e| e.to_string());
    let zk = local(&zk_listener)?;
    let events = local(&events_listener)?;
    let protocol = options.protocol;
    protocol.accept(&runtime, zk_listener, state.clone());
    runtime.spawn(accept_events(events_listener, state.clone()));
    runtime.spawn(clock(state.clone(), protocol, options.stuck));
    runtime.spawn(reaper(state.clone(), protocol, options.reap_every));
    Ok(Running {
        runtime,
        state,
        zk,
        events,
        options,
        started,
    })
}

async fn accept_events(listener: TcpListener, state: Arc<Mutex<State>>) {
    while let Ok((stream, peer)) = listener.accept().await {
        let state = state.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stream).lines();
            let mut n = 0u64;
            while let Ok(Some(line)) = lines.next_line().await {
                n += 1;
                feed_line(&state, &line, &format!("{peer}"), n);
            }
        });
    }
}

fn feed_line(state: &Mutex<State>, line: &str, from: &str, n: u64) {
    if line.trim().is_empty() {
        return;
    }
    let now = Instant::now();
    let mut s = lock(state);
    s.event_lines += 1;
    match lock_events::parse(line) {
        Ok(l) => s.judge.event(&l, now),
        Err(e) => s
            .event_errors
            .push(format!("events from {from}, line {n}: {e}")),
    }
}

/// The container reaper: emptied containers go, one transaction each.
async fn reaper(state: Arc<Mutex<State>>, protocol: Protocol, every: Duration) {
    let mut every = tokio::time::interval(every);
    loop {
        every.tick().await;
        protocol.reap(&mut lock(&state));
    }
}

/// The clock: the server's timeouts and faults, and the deadlock bound,
/// every 10 ms.
async fn clock(state: Arc<Mutex<State>>, protocol: Protocol, stuck: Duration) {
    let mut every = tokio::time::interval(Duration::from_millis(10));
    loop {
        every.tick().await;
        let now = Instant::now();
        let mut s = lock(&state);
        protocol.tick(&mut s, now);
        s.judge.check_stuck(now, stuck.as_millis() as u64);
    }
}

/// How a run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedBy {
    /// Every client the run waited for reported `finished`.
    ClientsFinished,
    /// The time bound.
    Bound,
    /// SIGINT or SIGTERM.
    Signal,
}

impl Running {
    /// Where ZooKeeper clients connect.
    pub fn zk_addr(&self) -> SocketAddr {
        self.zk
    }

    /// Where clients report lock events.
    pub fn events_addr(&self) -> SocketAddr {
        self.events
    }

    /// Feeds one lock-event line as if it came on the events port.
    pub fn feed(&self, line: &str) {
        feed_line(&self.state, line, "the caller", 0);
    }

    /// Waits until `clients` clients have finished (if given), `bound`
    /// has passed, or a signal came; then stops serving and says what
    /// happened.
    pub fn wait(self, clients: Option<usize>, bound: Duration) -> Summary {
        let deadline = self.started + bound;
        let stopped_by = loop {
            if crate::interrupt::requested() {
                break StoppedBy::Signal;
            }
            if clients.is_some_and(|n| lock(&self.state).judge.finished() >= n) {
                break StoppedBy::ClientsFinished;
            }
            if Instant::now() >= deadline {
                break StoppedBy::Bound;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let elapsed = self.started.elapsed();
        let s = lock(&self.state);
        let out = summary::of(
            &s,
            &self.options,
            self.zk,
            self.events,
            stopped_by,
            clients,
            elapsed,
        );
        drop(s);
        self.runtime.shutdown_background();
        out
    }
}
