//! `locksmith serve`: the ZooKeeper model behind ZooKeeper's own client
//! protocol, so that unmodified client libraries (Curator, kazoo, the
//! Rust `zookeeper-client`, a user's own code) run against the same model
//! the checker explores, with session faults under the tool's control and
//! the harness's judge over the lock events the clients report.
//!
//! - [`jute`] and [`wire`]: the protocol's records, read into the model's
//!   requests and written back from its answers;
//! - [`hub`]: the served server: the model, the sessions as the wire sees
//!   them, their connections and timeouts;
//! - [`faults`]: expiries and dropped connections by schedule;
//! - [`lock_events`]: the line protocol clients report their lock's events
//!   on, and the judge over them;
//! - [`replay`]: `--trace`, a checker counterexample re-enacted on the
//!   clients that connect.
//!
//! Time here is the wall clock's: the clients are real programs with their
//! own threads and timers, so a run is not replayable from a seed (the
//! checker's and the simulator's are); what it shows is what the real
//! library does against the model's rules.

mod connection;
pub mod faults;
mod hub;
mod jute;
pub mod lock_events;
pub mod replay;
pub mod resp;
mod summary;
pub mod wire;
mod zxid_times;

pub use summary::Summary;

use faults::{Action, Fault, Target, When};
use hub::Hub;
use lock_events::Judge;
use locksmith_model::zk::check::{CheckConfig, Property};
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
    hub: Hub,
    judge: Judge,
    faults: Vec<(Fault, bool)>,
    struck: Vec<summary::Struck>,
    event_lines: u64,
    event_errors: Vec<String>,
    started: Instant,
    replay: Option<replay::Replay>,
    redis: resp::Store,
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
    let traced = match &options.trace {
        None => None,
        Some((cfg, property)) => Some(replay::Replay::new(
            cfg,
            *property,
            options.session_timeout,
        )?),
    };
    let started = Instant::now();
    let (mut hub, replay) = match traced {
        None => (Hub::new(options.session_timeout, started), None),
        Some((replay, server)) => {
            let mut hub = Hub::with_server(server, options.session_timeout, started);
            hub.held = Some(Default::default());
            (hub, Some(replay))
        }
    };
    hub.verbose = options.verbose;
    let state = Arc::new(Mutex::new(State {
        hub,
        judge: Judge::new(started),
        faults: options.faults.iter().map(|f| (f.clone(), false)).collect(),
        struck: Vec::new(),
        event_lines: 0,
        event_errors: Vec::new(),
        started,
        replay,
        redis: resp::Store::new(started),
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
    match options.protocol {
        Protocol::ZooKeeper => runtime.spawn(accept_clients(zk_listener, state.clone())),
        Protocol::Resp => runtime.spawn(resp::accept(zk_listener, state.clone())),
    };
    runtime.spawn(accept_events(events_listener, state.clone()));
    runtime.spawn(clock(state.clone(), options.stuck));
    runtime.spawn(reaper(state.clone(), options.reap_every));
    Ok(Running {
        runtime,
        state,
        zk,
        events,
        options,
        started,
    })
}

async fn accept_clients(listener: TcpListener, state: Arc<Mutex<State>>) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection::serve(stream, state.clone()));
    }
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
async fn reaper(state: Arc<Mutex<State>>, every: Duration) {
    let mut every = tokio::time::interval(every);
    loop {
        every.tick().await;
        let mut s = lock(&state);
        // A re-enacted trace reaps at its own steps.
        if !s.replay.as_ref().is_some_and(|r| r.running()) {
            s.hub.reap();
        }
    }
}

/// The clock: session timeouts, faults by schedule and the deadlock bound,
/// every 10 ms.
async fn clock(state: Arc<Mutex<State>>, stuck: Duration) {
    let mut every = tokio::time::interval(Duration::from_millis(10));
    loop {
        every.tick().await;
        let now = Instant::now();
        let mut s = lock(&state);
        s.hub.tick(now);
        strike(&mut s, now);
        s.judge.check_stuck(now, stuck.as_millis() as u64);
        replay::advance(&mut s, now);
    }
}

/// A connect request: a new session claims one of a re-enacted trace's
/// first sessions while there are any.
fn connect(
    s: &mut State,
    req: &wire::Connect,
    conn: &hub::Conn,
    now: Instant,
) -> Option<hub::From> {
    let fresh = req.session_id == 0;
    let claim = s.replay.as_mut().filter(|_| fresh).and_then(|r| r.claim());
    let from = s.hub.connect(req, conn, now, claim)?;
    if fresh {
        if let Some(r) = s.replay.as_mut() {
            r.connected(from.session, claim.is_some());
        }
    }
    Some(from)
}

fn strike(s: &mut State, now: Instant) {
    for i in 0..s.faults.len() {
        let (fault, done) = &s.faults[i];
        let When::AfterMs(after_ms) = fault.when else {
            continue;
        };
        if *done {
            continue;
        }
        let aim = match fault.target {
            Target::Session(id) => s
                .hub
                .opened(id)
                .filter(|t| now.duration_since(*t) >= Duration::from_millis(after_ms))
                .map(|_| (format!("session 0x{id:x}"), id)),
            Target::Holder => s
                .judge
                .holder_for(now, after_ms)
                .map(|(name, id)| (format!("{name} (session 0x{id:x})"), id)),
            Target::Waiter => s
                .judge
                .waiter_for(now, after_ms)
                .map(|(name, id)| (format!("{name} (session 0x{id:x})"), id)),
            Target::Any => None,
        };
        if let Some((on, session)) = aim {
            act(s, i, on, session, now);
        }
    }
}

/// Fault `i` strikes `session` now.
fn act(s: &mut State, i: usize, on: String, session: u32, now: Instant) {
    let fault = s.faults[i].0.clone();
    s.faults[i].1 = true;
    match fault.action {
        Action::Expire => s.hub.expire(session, &format!("fault {fault}"), now),
        Action::Drop => s.hub.drop_connection(session, now),
        Action::Mute(ms) => s.hub.mute(session, now + Duration::from_millis(ms), now),
    }
    s.struck.push(summary::Struck {
        fault: fault.to_string(),
        on,
        at_ms: now.duration_since(s.started).as_millis() as u64,
    });
}

/// One request: a fault waiting for it (by opcode and path, on its
/// session) lets it be applied, loses its reply, and strikes.
fn request(s: &mut State, from: hub::From, head: (i32, i32), req: wire::Request, now: Instant) {
    let path = match &req {
        wire::Request::Model { op, .. } => op.path().map(str::to_string),
        _ => None,
    };
    let holder = s.judge.holder_for(now, 0).map(|(_, id)| id);
    let waiter = s.judge.waiter_for(now, 0).map(|(_, id)| id);
    let waiting = s.faults.iter().position(|(f, done)| {
        let When::On {
            opcode,
            path: prefix,
        } = &f.when
        else {
            return false;
        };
        let aimed = match f.target {
            Target::Session(id) => id == from.session,
            Target::Holder => holder == Some(from.session),
            Target::Waiter => waiter == Some(from.session),
            Target::Any => true,
        };
        let on_path = match (prefix, &path) {
            (None, _) => true,
            (Some(p), Some(at)) => at.starts_with(p.as_str()),
            (Some(_), None) => false,
        };
        !done && aimed && *opcode == head.1 && on_path
    });
    if let Some(r) = s.replay.as_mut().filter(|r| r.running() && r.traces(&req)) {
        r.wait(from, head, req);
        replay::advance(s, now);
        return;
    }
    let answer = if waiting.is_some() {
        hub::Answer::Lose
    } else {
        hub::Answer::Send
    };
    s.hub.request(from, head, req, now, answer);
    if let Some(i) = waiting {
        let what = wire::opcode::name(head.1);
        let on = match path {
            Some(p) => format!(
                "session 0x{:x}'s {what}({p}), applied, reply lost",
                from.session
            ),
            None => format!("session 0x{:x}'s {what}, applied, reply lost", from.session),
        };
        act(s, i, on, from.session, now);
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
