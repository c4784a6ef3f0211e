//! A client node: ZooKeeper's Java client library around one recipe.
//!
//! Four tasks share the node, as the Java process has its threads:
//! - the recipe's **main** and **event** threads, each a task that takes one
//!   recipe step at a time through [`Client::step`] whenever it can run,
//!   then yields, so madsim's random scheduler interleaves the two threads
//!   (and every other node) with the freedom the checker explores: a reply
//!   and an event that arrive together may be acted on in either order;
//! - the **receiver** (the library's `SendThread` reading the socket):
//!   replies wake their calling thread ([`Client::on_reply`]), notifications
//!   go to the event thread's queue ([`Client::on_event`]);
//! - the **heartbeat** task ([`super::heartbeat`]): a ping after a third of the session timeout
//!   without sending; after two thirds of the timeout without hearing from
//!   the server the connection is declared lost ([`Client::on_connection_loss`]: pending
//!   calls fail with `ConnectionLoss`, watchers hear `Disconnected`) and a
//!   new connection is opened for the same session; the server either
//!   resumes it (missed notifications follow) or answers that it expired
//!   ([`Client::learn_expiry`]: watchers hear `Expired`, later calls fail).
//!
//! The main thread also plays the application around the recipe: it
//! thinks before each `lock()`, and inside the critical section it writes
//! to the protected resource, holds, and writes again.
//!
//! [`Client::step`]: locksmith_model::zk::client::Client::step
//! [`Client::on_reply`]: locksmith_model::zk::client::Client::on_reply
//! [`Client::on_event`]: locksmith_model::zk::client::Client::on_event
//! [`Client::on_connection_loss`]: locksmith_model::zk::client::Client::on_connection_loss
//! [`Client::learn_expiry`]: locksmith_model::zk::client::Client::learn_expiry

use super::trace::Party;
use super::world::{
    ack_link, client_link, lock, now, park, recv, yield_now, Conn, Inbox, ServerSession, Shared,
    ToClient, ToServer, World, Write,
};
use crate::zk::timeline::{Seen, SessionExpired};
use locksmith_model::engine::harness::{judge, LockEvent, Property};
use locksmith_model::zk::client::{Deadline, KeeperState, Output, Recipe, Status, Thread};
use locksmith_model::zk::Service;

/// The connection dropped (reset, read timeout, or the server closed it):
/// packets in flight on it are lost, pending calls fail, and the library
/// opens a new connection for the same session.
pub fn lose_connection(w: &mut World, c: usize, why: &str) {
    let t = now();
    let lost_requests = w.to_server[c].drain().len();
    let lost_replies = w.to_client[c].drain().len();
    let cp = &mut w.clients[c];
    if cp.client.session_lost {
        return;
    }
    cp.client.on_connection_loss();
    cp.suspended_since.get_or_insert(t);
    cp.epoch += 1;
    cp.conn = Conn::Connecting(t);
    let (epoch, seen) = (cp.epoch, cp.seen_event);
    let library = cp.client.recipe.library();
    let tells = if library.states_reach_watchers {
        "watchers hear Disconnected".to_string()
    } else {
        library.tells(KeeperState::Disconnected)
    };
    w.trace.note(
        t,
        Some(Party::Client(c)),
        format!(
            "connection lost ({why}): {lost_requests} request(s) never reached the server, {lost_replies} packet(s) to the client lost; pending calls fail with ConnectionLoss, {tells}; reconnecting"
        ),
    );
    w.metrics.heartbeats += 1;
    w.send_to_server(c, ToServer::Connect { epoch, seen });
    w.wake_threads(c);
}

/// A library that renews sessions (Curator's `ConnectionState.reset()`)
/// and has just learned that its session expired opens a new one: LOST,
/// then RECONNECTED when the server answers the new connection.
fn renew(w: &mut World, c: usize) {
    let cp = &w.clients[c];
    let renews = cp.client.session_lost && cp.client.recipe.library().renews_session;
    if !renews || cp.client.closed || cp.client.is_done() {
        return;
    }
    w.clients[c].client.renew_session();
    let library = w.clients[c].client.recipe.library().name;
    open_new_session(w, c, &format!("{library}: LOST"));
}

/// Curator's `ConnectionStateManager`: SUSPENDED for a session timeout by
/// the client's own clock, it injects an expiry — pending calls fail with
/// `SessionExpired`, every watcher hears `Expired` — and opens a new
/// session, while the server may still hold the old one (it expires it
/// later, when its own timeout runs out).
pub(super) fn give_up(w: &mut World, c: usize) {
    let old = &w.sessions[c];
    w.abandoned.push((old.id, old.last_heard));
    w.clients[c].client.give_up_session();
    let library = w.clients[c].client.recipe.library().name;
    open_new_session(
        w,
        c,
        &format!(
            "{library} gives up: SUSPENDED for a session timeout, it injects an expiry (LOST)"
        ),
    );
}

/// A new handle connects on a new session.
fn open_new_session(w: &mut World, c: usize, why: &str) {
    let t = now();
    let id = w.server.open_session();
    let epoch = w.clients[c].epoch + 1;
    w.sessions[c] = ServerSession {
        id,
        epoch,
        connected: false,
        last_heard: t,
        sent_events: Vec::new(),
        next_seq: 0,
    };
    let cp = &mut w.clients[c];
    cp.session = id;
    cp.suspended_since = None;
    cp.epoch = epoch;
    cp.seen_event = 0;
    cp.conn = Conn::Connecting(t);
    w.trace.note(
        t,
        Some(Party::Client(c)),
        format!("{why}; a new handle connects on session {id}"),
    );
    w.metrics.heartbeats += 1;
    w.send_to_server(c, ToServer::Connect { epoch, seen: 0 });
    w.wake_threads(c);
    w.wake_heartbeat(c);
}

fn on_packet(w: &mut World, c: usize, pkt: ToClient) {
    let t = now();
    let cp = &mut w.clients[c];
    if pkt.epoch() != cp.epoch || cp.client.session_lost {
        return;
    }
    cp.last_heard = t;
    match pkt {
        ToClient::Reply {
            thread,
            reply,
            czxid,
            ..
        } => {
            if czxid.is_some() {
                cp.own_czxid = czxid;
            }
            w.timeline.record(t, c, Seen::Reply, &reply);
            if w.trace.wants() {
                let r = match &reply {
                    Ok(r) => r.to_string(),
                    Err(e) => e.to_string(),
                };
                w.trace
                    .note(t, Some(Party::Client(c)), format!("reply to {thread}: {r}"));
            }
            let mut reply = reply;
            let cp = &mut w.clients[c];
            // `ephemeralOwner` reaches a recipe only as "mine or not".
            let session = i64::from(cp.session.0);
            cp.client
                .recipe
                .reads_stat()
                .own_session(&mut reply, session);
            cp.client.on_reply(thread, reply);
        }
        ToClient::Event { seq, event, .. } => {
            if seq <= cp.seen_event {
                return;
            }
            cp.seen_event = seq;
            w.timeline.record(t, c, Seen::Event, &event);
            let cp = &mut w.clients[c];
            if cp.attempt_since.is_some() {
                cp.notified_in_attempt = true;
            }
            let n = cp.client.on_event(&event);
            if w.trace.wants() {
                w.trace.note(
                    t,
                    Some(Party::Client(c)),
                    format!("event {event} → {n} watcher(s) queued for the event thread"),
                );
            }
        }
        ToClient::Pong { .. } => {}
        ToClient::Connected { .. } => {
            cp.conn = Conn::Connected;
            cp.suspended_since = None;
            cp.client.on_reconnect();
            let tells = cp.client.recipe.library().tells(KeeperState::SyncConnected);
            w.wake_heartbeat(c);
            w.trace.note(
                t,
                Some(Party::Client(c)),
                format!("reconnected: session resumed; {tells}"),
            );
        }
        ToClient::Expired { .. } => {
            w.timeline.record(t, c, Seen::Event, &SessionExpired);
            let cp = &mut w.clients[c];
            cp.conn = Conn::Connected;
            // The library fails every call still pending with
            // SessionExpired, then closes: nothing more is read.
            for t in [Thread::Main, Thread::Event] {
                if cp.client.caller(t) {
                    cp.client
                        .on_reply(t, Err(locksmith_model::zk::ZkError::SessionExpired));
                }
            }
            cp.client.learn_expiry();
            let tells = cp.client.recipe.library().tells(KeeperState::Expired);
            w.trace.note(
                t,
                Some(Party::Client(c)),
                format!("the server says the session expired: {tells}"),
            );
        }
        ToClient::Closed { .. } => lose_connection(w, c, "the server closed it"),
    }
    w.wake_threads(c);
}

/// The library's socket reader.
pub async fn receiver(shared: Shared, c: usize) {
    loop {
        let pkt = recv(&shared, Inbox::Client(c), client_link).await;
        if matches!(pkt, ToClient::Event { .. }) {
            let event = lock(&shared).p.event;
            if event > 0 {
                super::world::sleep_ns(event).await;
            }
        }
        let mut w = lock(&shared);
        on_packet(&mut w, c, pkt);
        renew(&mut w, c);
    }
}

/// Runs one step of `t`. Returns the tenure when the step entered the
/// critical section.
fn step(w: &mut World, c: usize, t: Thread) -> Option<Tenure> {
    let now_ns = now();
    let won = matches!(w.clients[c].client.status(t), Status::Entering(_));
    let stepped = w.clients[c].client.step(t)?;
    if w.trace.wants() {
        let text = stepped.describe(won, w.clients[c].client.status(t));
        w.trace
            .note(now_ns, Some(Party::Client(c)), format!("{t}: {text}"));
    }
    // From the moment its listener's flag is set, a holder that reads the
    // flag before every write writes no more in this critical section: for
    // the resource its section is over (a write already on its way still
    // lands, and is judged).
    let cl = &w.clients[c].client;
    if t == Thread::Listener && cl.holds() && cl.recipe.distrusts() {
        w.resource.writer_gone(c);
    }
    let mut entered = None;
    for ev in &stepped.events {
        match ev {
            LockEvent::AcquireStarted => {
                w.clients[c].attempt_since = Some(now_ns);
                w.clients[c].arrived_at.get_or_insert(now_ns);
                w.clients[c].notified_in_attempt = false;
            }
            LockEvent::Acquired => entered = Some(acquired(w, c, now_ns)),
            LockEvent::GaveUp => {
                w.metrics.gave_up += 1;
                w.last_progress = now_ns;
            }
            LockEvent::Released | LockEvent::Reentered | LockEvent::Unlocked => {
                w.last_progress = now_ns
            }
            LockEvent::ReleaseSent => {}
            LockEvent::Finished | LockEvent::ThreadDied(_) => {
                w.last_progress = now_ns;
                w.clients[c].attempt_since = None;
                w.clients[c].arrived_at = None;
                if let LockEvent::ThreadDied(e) = ev {
                    let done = w.clients[c].client.acquired;
                    w.violate(
                        Property::ThreadDied,
                        format!("c{} died ({e}) after {done} acquisition(s)", c + 1),
                    );
                }
                w.wake_observer();
            }
        }
    }
    let release = stepped.sent_release();
    if let Output::Send(op) = stepped.output {
        let epoch = w.clients[c].epoch;
        w.metrics.requests += 1;
        w.timeline.record(now_ns, c, Seen::Send, &op);
        if w.trace.wants() {
            w.trace.packet(
                now_ns,
                Party::Client(c),
                Party::Server,
                format!("{t}: {op}"),
            );
        }
        w.send_to_server(
            c,
            ToServer::Request {
                epoch,
                thread: t,
                op,
                release,
            },
        );
    }
    w.wake_threads(c);
    entered
}

/// If `t`'s last step began a timed `wait(ms)`, a timer on the client's
/// node ends that wait after `ms` of simulated time, unless a notification
/// ended it first. (A thread in a timed wait takes no step until it is
/// woken, so a timed wait seen right after its step is a new one.)
fn start_timer(shared: &Shared, c: usize, t: Thread) {
    let i = t as usize;
    let (ms, nth) = {
        let mut w = lock(shared);
        let cp = &mut w.clients[c];
        let Some(ms) = cp.client.timed_wait(t) else {
            return;
        };
        cp.timed_waits[i] += 1;
        (ms, cp.timed_waits[i])
    };
    let shared = shared.clone();
    madsim::task::spawn(async move {
        super::world::sleep_ns(u64::from(ms) * 1_000_000).await;
        let mut w = lock(&shared);
        if w.clients[c].timed_waits[i] == nth && w.clients[c].client.time_out(t) {
            w.metrics.wait_timeouts += 1;
            if w.trace.wants() {
                w.trace.note(
                    now(),
                    Some(Party::Client(c)),
                    format!("{t}: wait({ms}) times out: must win the monitor back"),
                );
            }
            w.wake_threads(c);
        }
    });
}

/// If the main thread's last step started `acquire(time, unit)`'s clock, a
/// timer on the client's node passes the deadline after the scenario's
/// `acquire_timeout_ms`, unless the call returned first. The checker lets
/// the deadline pass at any moment; here it passes on time.
fn start_deadline(shared: &Shared, c: usize) {
    let (timeout, nth) = {
        let mut w = lock(shared);
        let Some(timeout) = w.p.acquire_timeout else {
            return;
        };
        let cp = &mut w.clients[c];
        if cp.client.deadline != Deadline::Running {
            cp.deadline_timed = false;
            return;
        }
        if std::mem::replace(&mut cp.deadline_timed, true) {
            return;
        }
        cp.deadlines += 1;
        (timeout, cp.deadlines)
    };
    let shared = shared.clone();
    madsim::task::spawn(async move {
        super::world::sleep_ns(timeout).await;
        let mut w = lock(&shared);
        let cp = &mut w.clients[c];
        if cp.deadlines == nth && cp.deadline_timed && cp.client.pass_deadline() {
            cp.deadline_timed = false;
            w.metrics.deadlines_passed += 1;
            if w.trace.wants() {
                w.trace.note(
                    now(),
                    Some(Party::Client(c)),
                    format!(
                        "main: acquire({} ms)'s deadline passes",
                        timeout / 1_000_000
                    ),
                );
            }
            w.wake_threads(c);
        }
    });
}

/// An acquisition's writes: its number in the run, and the fencing token
/// (`None` without fencing, or before the client created an ephemeral node).
#[derive(Clone, Copy, Debug)]
pub struct Tenure {
    pub number: u64,
    pub token: Option<u64>,
}

/// Client `c`'s `lock()` returned: judges mutual exclusion by belief,
/// counts the acquisition, and returns the tenure it writes with.
fn acquired(w: &mut World, c: usize, now_ns: u64) -> Tenure {
    if judge::two_holders(w.clients.iter().map(|cp| cp.client.phase)) {
        let other = (0..w.clients.len())
            .find(|&o| o != c && w.clients[o].client.holds())
            .unwrap_or(c);
        w.metrics.belief_overlaps += 1;
        w.violate(
            Property::MutualExclusion,
            format!(
                "c{} believes it holds the lock while c{} still does",
                c + 1,
                other + 1
            ),
        );
    }
    w.metrics.acquisitions += 1;
    if let Some(mine) = w.clients[c].arrived_at.take() {
        let waiting = w.clients.iter().filter_map(|cp| cp.arrived_at);
        if judge::out_of_order(mine, waiting) {
            w.metrics.out_of_order_acquisitions += 1;
        }
    }
    if std::mem::take(&mut w.clients[c].notified_in_attempt) {
        w.metrics.contended_acquisitions += 1;
    }
    let cp = &mut w.clients[c];
    if let Some(since) = cp.attempt_since.take() {
        w.metrics.latencies.push(now_ns - since);
    }
    w.last_progress = now_ns;
    let token = if w.p.fencing {
        cp.own_czxid.and_then(|z| u64::try_from(z).ok())
    } else {
        None
    };
    Tenure {
        number: w.metrics.acquisitions,
        token,
    }
}

fn can_run(w: &mut World, c: usize, t: Thread, waker: &std::task::Waker) -> bool {
    let cp = &mut w.clients[c];
    if cp.client.can_step(t) || (t == Thread::Main && cp.client.is_done()) {
        return true;
    }
    cp.wakers[t as usize] = Some(waker.clone());
    false
}

async fn think(shared: &Shared) {
    let d = {
        let w = lock(shared);
        w.draw(w.p.think)
    };
    if d > 0 {
        super::world::sleep_ns(d).await;
    }
}

/// Lets the other threads of the client run first, if one can.
async fn maybe_yield(shared: &Shared, c: usize, t: Thread) {
    let yield_ = {
        let w = lock(shared);
        let client = &w.clients[c].client;
        Thread::ALL
            .into_iter()
            .any(|other| other != t && client.can_step(other))
    };
    if yield_ {
        yield_now().await;
    }
}

/// The application's thread: lock(), critical section, unlock(), K times.
pub async fn main_thread(shared: Shared, c: usize) {
    loop {
        park(&shared, move |w, waker| can_run(w, c, Thread::Main, waker)).await;
        let think_now = {
            let mut w = lock(&shared);
            let cp = &mut w.clients[c];
            if cp.client.is_done() {
                break;
            }
            if !cp.client.can_step(Thread::Main) {
                continue;
            }
            cp.client.phase.thinks_next()
        };
        if think_now {
            think(&shared).await;
        }
        let entered = {
            let mut w = lock(&shared);
            step(&mut w, c, Thread::Main)
        };
        start_timer(&shared, c, Thread::Main);
        start_deadline(&shared, c);
        if let Some(tenure) = entered {
            critical_section(&shared, c, tenure).await;
        }
        maybe_yield(&shared, c, Thread::Main).await;
    }
}

async fn critical_section(shared: &Shared, c: usize, tenure: Tenure) {
    if lock(shared).clients[c].client.recipe.guards_writes() {
        return guarded_section(shared, c, tenure).await;
    }
    let hold = {
        let mut w = lock(shared);
        write(&mut w, c, tenure, true);
        w.draw(w.p.hold)
    };
    // The opening write is not waited for: the closing one follows it on
    // the same FIFO link, and *it* is acknowledged before unlock() runs, so
    // a correct recipe's next holder can never be seen overlapping.
    super::world::sleep_ns(hold).await;
    write(&mut lock(shared), c, tenure, false);
    recv(shared, Inbox::Client(c), ack_link).await;
}

/// Writes of a critical section whose holder reads its listener's flag
/// before each one (`curator-listener`), spread evenly over the hold: a
/// holder cut off in the middle of it reads the flag again within a
/// seventh of its hold.
const GUARDED_WRITES: u64 = 8;

/// A critical section that reads the listener's flag before every write
/// and leaves without writing once it is set. The resource sees one
/// section, as for every recipe: the first write opens it, the last closes
/// it (and is acknowledged before unlock() runs); the writes between keep
/// it open. The section ends early when the listener sets the flag (the
/// holder will write no more), and a write after trust came back
/// (RECONNECTED, no LOST) opens it again.
async fn guarded_section(shared: &Shared, c: usize, tenure: Tenure) {
    let hold = {
        let w = lock(shared);
        w.draw(w.p.hold)
    };
    for i in 0..GUARDED_WRITES {
        if i > 0 {
            super::world::sleep_ns(hold / (GUARDED_WRITES - 1)).await;
        }
        let mut w = lock(shared);
        if w.clients[c].client.recipe.distrusts() {
            w.resource.writer_gone(c);
            w.metrics.flagged_exits += 1;
            w.trace.note(
                now(),
                Some(Party::Client(c)),
                "main: the listener's flag is set (SUSPENDED or LOST): leaves the critical section without writing".into(),
            );
            return;
        }
        write(&mut w, c, tenure, i + 1 < GUARDED_WRITES);
    }
    recv(shared, Inbox::Client(c), ack_link).await;
}

/// Sends the critical section's opening (`begin`) or closing write.
fn write(w: &mut World, client: usize, tenure: Tenure, begin: bool) {
    let at = now() + w.resource_latency();
    w.to_resource[client].send(
        at,
        Write {
            client,
            tenure: tenure.number,
            token: tenure.token,
            begin,
        },
    );
}

/// ZooKeeper's event thread: runs the watchers' callbacks.
pub async fn event_thread(shared: Shared, c: usize) {
    loop {
        park(&shared, move |w, waker| can_run(w, c, Thread::Event, waker)).await;
        let entered = {
            let mut w = lock(&shared);
            step(&mut w, c, Thread::Event)
        };
        start_timer(&shared, c, Thread::Event);
        // A recipe that takes the lock inside a callback (source 001) holds
        // it on the event thread.
        if let Some(tenure) = entered {
            critical_section(&shared, c, tenure).await;
        }
        maybe_yield(&shared, c, Thread::Event).await;
    }
}

/// A thread of the client library's executors (Curator's safe-notify and
/// background threads): runs the tasks the other threads submit.
pub async fn executor_thread(shared: Shared, c: usize, t: Thread) {
    loop {
        park(&shared, move |w, waker| can_run(w, c, t, waker)).await;
        {
            let mut w = lock(&shared);
            if w.clients[c].client.is_done() && !w.clients[c].client.can_step(t) {
                continue;
            }
            step(&mut w, c, t);
        }
        maybe_yield(&shared, c, t).await;
    }
}
