//! The state of one simulated run, shared by the tasks of every node.
//!
//! madsim runs every task on one OS thread, so one mutex around the world
//! costs nothing and makes each task step atomic. The fields are grouped by
//! the node that owns them — the server node touches `server` and
//! `sessions`, client *i*'s node touches `clients[i]`, the resource node
//! `resource` — and the nodes talk only through the [`Link`]s. The
//! observer reads everything (it is the checker, not a participant).

pub use super::clock::{bind_clock, now, sleep_ns, wake_at, wake_in, with_rng, SCALE};
use super::link::{Link, Next};
use super::trace::Trace;
use crate::zk::metrics::Metrics;
use crate::zk::sim_settings::{LatencyDist, SimSettings};
use crate::zk::timeline::Timeline;
use locksmith_model::engine::harness::{Property, Violations};
use locksmith_model::zk::client::{Client, Thread};
use locksmith_model::zk::recipes::AnyRecipe;
use locksmith_model::zk::{Op, Reply, SessionId, WatchedEvent, ZkServer};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

pub type Shared = Arc<Mutex<World>>;

pub use crate::simulate::seed_run::lock;

pub fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// A client → server packet. `epoch` numbers the client's connections.
#[derive(Debug, Clone)]
pub enum ToServer {
    Request {
        epoch: u32,
        thread: Thread,
        op: Op,
        /// The recipe's release operation.
        release: bool,
    },
    Ping {
        epoch: u32,
        seen: u64,
    },
    /// A new connection for the session; `seen` is the last notification the
    /// client received (what `SetWatches` re-registers from).
    Connect {
        epoch: u32,
        seen: u64,
    },
}

/// A server → client packet.
#[derive(Debug, Clone)]
pub enum ToClient {
    Reply {
        epoch: u32,
        thread: Thread,
        reply: Reply,
        /// An ephemeral create's `Stat` (create2): the new node's `czxid`,
        /// the holder's fencing token once it is its lock node.
        czxid: Option<i64>,
    },
    /// A notification, numbered per session.
    Event {
        epoch: u32,
        seq: u64,
        event: WatchedEvent,
    },
    Pong {
        epoch: u32,
    },
    Connected {
        epoch: u32,
    },
    /// The server refuses the session: it expired.
    Expired {
        epoch: u32,
    },
    /// The server closed the connection (the session expired under it).
    Closed {
        epoch: u32,
    },
}

impl ToClient {
    pub fn epoch(&self) -> u32 {
        match self {
            ToClient::Reply { epoch, .. }
            | ToClient::Event { epoch, .. }
            | ToClient::Pong { epoch }
            | ToClient::Connected { epoch }
            | ToClient::Expired { epoch }
            | ToClient::Closed { epoch } => *epoch,
        }
    }
}

pub use locksmith_model::engine::harness::resource::Write;

/// The server's view of one session's connection.
#[derive(Debug, Clone)]
pub struct ServerSession {
    pub id: SessionId,
    pub epoch: u32,
    pub connected: bool,
    pub last_heard: u64,
    /// Notifications sent, with their numbers, not yet acknowledged.
    pub sent_events: Vec<(u64, WatchedEvent)>,
    pub next_seq: u64,
}

/// The client library's connection state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conn {
    Connected,
    /// Waiting for the answer to a `Connect` sent at this instant.
    Connecting(u64),
}

/// One client process: the recipe runtime and its library state.
#[derive(Debug)]
pub struct ClientProc {
    pub client: Client<AnyRecipe>,
    pub session: SessionId,
    pub epoch: u32,
    pub conn: Conn,
    /// When the library last read a packet of this connection, and last
    /// wrote one (`ClientCnxnSocket`'s `lastHeard` and `lastSend`).
    pub last_heard: u64,
    pub last_sent: u64,
    /// The heartbeat task, asleep until its next deadline; a new
    /// connection wakes it (its ping deadline may come first).
    pub heartbeat: Option<std::task::Waker>,
    pub seen_event: u64,
    /// Each thread's task, parked until the thread can step (by
    /// [`Thread::ALL`]'s order).
    pub wakers: [Option<std::task::Waker>; 5],
    /// The `czxid` of the last ephemeral node this client created, as the
    /// create's `Stat` told it: its fencing token (the checker's).
    pub own_czxid: Option<i64>,
    /// In an attempt: lock() called, not returned yet.
    pub attempt_since: Option<u64>,
    /// When this client arrived: its first `lock()` since its last
    /// acquisition (a poller's new attempts keep it), for FIFO fairness.
    pub arrived_at: Option<u64>,
    /// A watch notification reached this client during its current attempt
    /// (the attempt is a contended one, as `locksmith real` counts them).
    pub notified_in_attempt: bool,
    pub node: Option<madsim::task::NodeId>,
    pub paused: bool,
    /// How many timed `wait`s each thread has begun: a timer only ends the
    /// wait it was set for.
    pub timed_waits: [u64; 5],
    /// How many deadlines of `acquire(time, unit)` this client has started,
    /// and whether the latest one has its timer: a timer only passes the
    /// deadline it was set for.
    pub deadlines: u64,
    pub deadline_timed: bool,
    /// Since when the connection has been down (Curator: SUSPENDED); a
    /// library that renews sessions gives up on the session after a
    /// session timeout of it, by the client's clock.
    pub suspended_since: Option<u64>,
}

/// Run-level parameters in nanoseconds.
#[derive(Debug, Clone)]
pub struct Params {
    /// The negotiated session timeout.
    pub timeout: u64,
    /// The server's tickTime: session expiries fall on its multiples.
    pub tick: u64,
    pub latency: (u64, u64),
    pub latency_dist: LatencyDist,
    /// To the protected resource and back; `None`: `latency`.
    pub resource_latency: Option<(u64, u64)>,
    pub think: (u64, u64),
    pub hold: (u64, u64),
    pub wake: (u64, u64),
    /// The server's service time per read and per write.
    pub read: u64,
    pub write: u64,
    /// The client library's delay in handing a notification on.
    pub event: u64,
    pub fencing: bool,
    /// `acquire(time, unit)`'s time (the scenario's `acquire_timeout_ms`).
    pub acquire_timeout: Option<u64>,
    pub container_check: u64,
    pub deadlock: u64,
    pub limit: u64,
}

impl Params {
    pub fn from(s: &SimSettings, acquisitions_total: u64) -> Params {
        let ns = |x: f64| (x * 1e6) as u64;
        Params {
            timeout: ns(s.negotiated_timeout_ms()),
            tick: ns(s.tick_ms),
            latency: (ns(s.latency_ms[0]), ns(s.latency_ms[1])),
            latency_dist: s.latency_dist,
            resource_latency: s.resource_latency_ms.map(|[lo, hi]| (ns(lo), ns(hi))),
            think: (ns(s.think_ms[0]), ns(s.think_ms[1])),
            hold: (ns(s.hold_ms[0]), ns(s.hold_ms[1])),
            wake: (ns(s.wake_ms[0]), ns(s.wake_ms[1])),
            read: ns(s.server_read_ms),
            write: ns(s.server_write_ms),
            event: ns(s.event_ms),
            fencing: s.fencing,
            acquire_timeout: None,
            container_check: ns(s.container_check_ms),
            deadlock: ns(s.deadlock_ms.unwrap_or(3.0 * s.negotiated_timeout_ms())),
            limit: ns(s
                .limit_ms
                .unwrap_or(60_000.0 + 2_000.0 * acquisitions_total as f64)),
        }
    }
}

pub struct World {
    pub p: Params,
    pub reorder_within_session: bool,
    pub server: ZkServer,
    pub sessions: Vec<ServerSession>,
    /// Sessions a client's library gave up on while the server still held
    /// them (Curator), with when the server last heard from each: the
    /// server expires them a session timeout after that.
    pub abandoned: Vec<(SessionId, u64)>,
    pub clients: Vec<ClientProc>,
    pub to_server: Vec<Link<ToServer>>,
    pub to_client: Vec<Link<ToClient>>,
    pub to_resource: Vec<Link<Write>>,
    /// The resource's acknowledgements (accepted or rejected).
    pub from_resource: Vec<Link<bool>>,
    pub resource: locksmith_model::engine::harness::resource::Resource,
    pub metrics: Metrics,
    pub trace: Trace,
    /// `locksmith replay --timeline`: every client's requests, replies and
    /// notifications.
    pub timeline: Timeline,
    /// The first violation of each property.
    pub violations: Violations,
    /// A violation that ends the run happened.
    pub ended: bool,
    pub last_progress: u64,
    /// Connection losses armed to strike when the server serves the
    /// client's next request (applied, reply lost).
    pub cut_after_serve: Vec<bool>,
    /// When the server's pipeline has served every request it has taken
    /// so far: the next one starts no earlier.
    pub server_free_at: u64,
    /// The observer, parked until something ends the run or a tick is due.
    pub observer_waker: Option<std::task::Waker>,
    pub tick_due: bool,
}

impl World {
    /// A random duration in `[lo, hi]`.
    pub fn draw(&self, (lo, hi): (u64, u64)) -> u64 {
        use madsim::rand::Rng;
        if hi <= lo {
            lo
        } else {
            with_rng(|r| r.gen_range(lo..=hi))
        }
    }

    /// A packet's latency between a client and the server.
    pub fn latency(&self) -> u64 {
        self.latency_in(self.p.latency)
    }

    /// A write's (or its acknowledgement's) latency between a client and
    /// the protected resource.
    pub fn resource_latency(&self) -> u64 {
        self.latency_in(self.p.resource_latency.unwrap_or(self.p.latency))
    }

    fn latency_in(&self, (lo, hi): (u64, u64)) -> u64 {
        use madsim::rand::Rng;
        match self.p.latency_dist {
            LatencyDist::Uniform => self.draw((lo, hi)),
            LatencyDist::Exponential => {
                let mean = hi.saturating_sub(lo) as f64 / 2.0;
                let u: f64 = with_rng(|r| r.gen_range(f64::EPSILON..1.0));
                lo + (-u.ln() * mean) as u64
            }
        }
    }

    /// Records a violation. Every violation but mutual exclusion by belief
    /// and herd ends the run: those two are watched on to see whether the
    /// harm reaches the resource, or a client.
    pub fn violate(&mut self, p: Property, why: String) {
        if self.violations.record(p, why.clone()) {
            self.trace
                .note(now(), None, format!("VIOLATION {}: {why}", p.name()));
        }
        if !matches!(p, Property::MutualExclusion | Property::Herd) && !self.ended {
            self.ended = true;
            self.wake_observer();
        }
    }

    /// Wakes the observer (a violation, or a client finished).
    pub fn wake_observer(&mut self) {
        if let Some(w) = self.observer_waker.take() {
            w.wake();
        }
    }

    /// Wakes client `c`'s threads that can step.
    pub fn wake_threads(&mut self, c: usize) {
        // A woken thread is scheduled after a random delay (the OS and the
        // JVM do not run it at once): the other thread, and every other
        // node, may act in between — the interleavings the checker explores
        // (a notification sent while the main thread is still on its way
        // from `exists` to `wait()` is racy-wait's lost wake-up). The timer
        // is armed here, so the thread is polled once, when it runs. A
        // wake-up changes no client state, so each thread's is drawn as
        // soon as it is found able to step, in thread order.
        for t in Thread::ALL {
            let cp = &mut self.clients[c];
            if !cp.client.can_step(t) {
                continue;
            }
            let Some(w) = cp.wakers[t as usize].take() else {
                continue;
            };
            let d = self.draw(self.p.wake);
            if d == 0 {
                w.wake();
            } else {
                wake_in(d, &w);
            }
        }
    }

    /// Sends a packet to client `c` on its current connection.
    pub fn send_to_client(&mut self, c: usize, packet: ToClient) {
        let at = now() + self.latency();
        self.to_client[c].send(at, packet);
    }

    /// Wakes client `c`'s heartbeat to reckon its deadlines again (a new
    /// connection's ping deadline may come before the one it sleeps to).
    pub fn wake_heartbeat(&mut self, c: usize) {
        if let Some(waker) = self.clients[c].heartbeat.take() {
            waker.wake();
        }
    }

    pub fn send_to_server(&mut self, c: usize, packet: ToServer) {
        let t = now();
        self.clients[c].last_sent = t;
        let at = t + self.latency();
        self.to_server[c].send(at, packet);
    }
}

/// Which link a receiver reads.
#[derive(Clone, Copy, Debug)]
pub enum Inbox {
    Server(usize),
    Client(usize),
    Resource(usize),
}

/// Receives the next packet of a link, in simulated time.
pub async fn recv<T>(
    shared: &Shared,
    which: Inbox,
    pick: fn(&mut World, Inbox) -> &mut Link<T>,
) -> T {
    loop {
        let next = {
            let mut w = lock(shared);
            let t = now();
            pick(&mut w, which).next(t)
        };
        match next {
            Next::Packet(p) => return p,
            Next::SleepUntil(at) => sleep_ns(at.saturating_sub(now())).await,
            Next::Park => {
                park(shared, move |w, waker: &std::task::Waker| {
                    let link = pick(w, which);
                    // Re-check under the lock: a packet may have come.
                    if !link.clogged && !link.is_empty() {
                        return true;
                    }
                    link.waker = Some(waker.clone());
                    false
                })
                .await;
            }
        }
    }
}

pub fn server_link(w: &mut World, i: Inbox) -> &mut Link<ToServer> {
    match i {
        Inbox::Server(c) | Inbox::Client(c) | Inbox::Resource(c) => &mut w.to_server[c],
    }
}
pub fn client_link(w: &mut World, i: Inbox) -> &mut Link<ToClient> {
    match i {
        Inbox::Server(c) | Inbox::Client(c) | Inbox::Resource(c) => &mut w.to_client[c],
    }
}
pub fn ack_link(w: &mut World, i: Inbox) -> &mut Link<bool> {
    match i {
        Inbox::Server(c) | Inbox::Client(c) | Inbox::Resource(c) => &mut w.from_resource[c],
    }
}
pub fn resource_link(w: &mut World, i: Inbox) -> &mut Link<Write> {
    match i {
        Inbox::Server(c) | Inbox::Client(c) | Inbox::Resource(c) => &mut w.to_resource[c],
    }
}

/// Waits until `ready` says so. `ready` runs under the lock and, when it
/// returns false, must have stored the waker where a state change finds it.
pub fn park<F>(shared: &Shared, ready: F) -> Park<'_, F>
where
    F: FnMut(&mut World, &std::task::Waker) -> bool,
{
    Park {
        shared,
        ready,
        parked: false,
    }
}

pub struct Park<'a, F> {
    shared: &'a Shared,
    ready: F,
    parked: bool,
}

impl<F> Future for Park<'_, F>
where
    F: FnMut(&mut World, &std::task::Waker) -> bool + Unpin,
{
    /// Whether the task had to sleep.
    type Output = bool;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        if self.parked {
            return Poll::Ready(true);
        }
        let shared = self.shared;
        let ready = {
            let mut w = lock(shared);
            (self.ready)(&mut w, cx.waker())
        };
        if ready {
            Poll::Ready(false)
        } else {
            self.parked = true;
            Poll::Pending
        }
    }
}

/// Gives the other runnable tasks (madsim picks among them at random) a
/// chance to run before this one continues.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await
}
