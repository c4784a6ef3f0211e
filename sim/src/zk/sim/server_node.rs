//! The ZooKeeper server node: the model's [`ZkServer`] behind one receiving
//! task per session connection, and the session tracker that expires a
//! session whose client has been silent for the session timeout.
//!
//! Connections: a session's requests and the server's replies and
//! notifications travel over that session's links, numbered by connection
//! (`epoch`). A packet of an older connection is dropped. Notifications are
//! numbered and kept until the client acknowledges them (in its pings and
//! its `Connect`), so the ones lost with a connection are sent again on the
//! next — the effect of the Java client's `SetWatches` on reconnect: a
//! watch that fired while the client was away fires for it once it is back,
//! and one that did not fire stays armed (the model's server keeps a
//! session's watches for the life of the session).
//!
//! [`ZkServer`]: locksmith_model::zk::ZkServer

use super::trace::Party;
use super::world::{lock, now, recv, server_link, Inbox, Shared, ToClient, ToServer, World};
use locksmith_model::engine::harness::{judge, Property};
use locksmith_model::zk::{Op, OpResult, Service, SessionId, WatchedEvent};

/// The server's task for client `c`'s session. With service times, a
/// request waits its turn in the server's one pipeline (every session's
/// requests, in the order they arrived) and is applied when served; the
/// session's later packets wait behind it, as on its TCP connection.
pub async fn serve(shared: Shared, c: usize) {
    loop {
        let pkt = recv(&shared, Inbox::Server(c), server_link).await;
        let served_at = match &pkt {
            ToServer::Request { op, .. } => {
                let mut w = lock(&shared);
                let cost = if op.is_write() { w.p.write } else { w.p.read };
                if cost == 0 {
                    None
                } else {
                    let done = w.server_free_at.max(now()) + cost;
                    w.server_free_at = done;
                    Some(done)
                }
            }
            _ => None,
        };
        if let Some(done) = served_at {
            super::world::sleep_ns(done.saturating_sub(now())).await;
        }
        handle(&mut lock(&shared), c, pkt);
    }
}

fn handle(w: &mut World, c: usize, pkt: ToServer) {
    let t = now();
    let id = w.sessions[c].id;
    match pkt {
        ToServer::Connect { epoch, seen } => {
            w.metrics.heartbeats += 1;
            if epoch < w.sessions[c].epoch {
                return;
            }
            w.sessions[c].epoch = epoch;
            if w.server.is_alive(id) {
                let s = &mut w.sessions[c];
                s.connected = true;
                s.last_heard = t;
                s.sent_events.retain(|(q, _)| *q > seen);
                let resend = s.sent_events.clone();
                w.metrics.heartbeats += 1;
                w.trace.note(
                    t,
                    Some(Party::Server),
                    format!(
                        "session {id} reconnects (connection {epoch}); {} missed notification(s) sent again",
                        resend.len()
                    ),
                );
                w.send_to_client(c, ToClient::Connected { epoch });
                for (seq, event) in resend {
                    w.metrics.notifications += 1;
                    w.send_to_client(c, ToClient::Event { epoch, seq, event });
                }
            } else {
                w.sessions[c].connected = false;
                w.metrics.heartbeats += 1;
                w.trace.note(
                    t,
                    Some(Party::Server),
                    format!("session {id} tries to reconnect: expired"),
                );
                w.send_to_client(c, ToClient::Expired { epoch });
            }
        }
        ToServer::Ping { epoch, seen } => {
            w.metrics.heartbeats += 1;
            let s = &mut w.sessions[c];
            if epoch != s.epoch || !s.connected {
                return;
            }
            s.last_heard = t;
            s.sent_events.retain(|(q, _)| *q > seen);
            w.metrics.heartbeats += 1;
            w.send_to_client(c, ToClient::Pong { epoch });
        }
        ToServer::Request {
            epoch,
            thread,
            op,
            release,
        } => {
            let alive = w.server.is_alive(id);
            let s = &mut w.sessions[c];
            if epoch != s.epoch || (alive && !s.connected) {
                return;
            }
            s.last_heard = t;
            let outcome = w.server.handle(id, &op);
            let czxid = match (&op, &outcome.reply) {
                (Op::Create { mode, .. }, Ok(OpResult::Created(path))) if mode.is_ephemeral() => {
                    w.server.node(path).map(|n| n.stat.czxid)
                }
                _ => None,
            };
            let release = release && outcome.reply.is_ok();
            if w.trace.wants() {
                let r = match &outcome.reply {
                    Ok(r) => r.to_string(),
                    Err(e) => e.to_string(),
                };
                w.trace
                    .note(t, Some(Party::Server), format!("c{}: {op} → {r}", c + 1));
            }
            route(w, Some(c), outcome.events, release);
            if std::mem::replace(&mut w.cut_after_serve[c], false) {
                w.trace.note(
                    t,
                    Some(Party::Chaos),
                    format!(
                        "c{}'s connection drops after the request was applied: the reply is lost",
                        c + 1
                    ),
                );
                super::client_lib::lose_connection(w, c, "connection reset");
                return;
            }
            w.metrics.replies += 1;
            if w.trace.wants() {
                let label = match &outcome.reply {
                    Ok(r) => format!("{thread}: {r}"),
                    Err(e) => format!("{thread}: {e}"),
                };
                w.trace.packet(t, Party::Server, Party::Client(c), label);
            }
            w.send_to_client(
                c,
                ToClient::Reply {
                    epoch,
                    thread,
                    reply: outcome.reply,
                    czxid,
                },
            );
        }
    }
}

/// Sends the notifications a transaction fired, each on its session's
/// connection (or keeps it for the session's next connection); for a
/// recipe's release, counts its wake-ups and judges herd.
pub fn route(
    w: &mut World,
    actor: Option<usize>,
    events: Vec<(SessionId, WatchedEvent)>,
    release: bool,
) {
    let t = now();
    let mut woken = std::collections::BTreeSet::new();
    for (sid, event) in events {
        let Some(c) = w.sessions.iter().position(|s| s.id == sid) else {
            continue;
        };
        if Some(c) != actor {
            woken.insert(c);
        }
        let s = &mut w.sessions[c];
        s.next_seq += 1;
        let seq = s.next_seq;
        s.sent_events.push((seq, event.clone()));
        if s.connected {
            let epoch = s.epoch;
            w.metrics.notifications += 1;
            if w.trace.wants() {
                w.trace
                    .packet(t, Party::Server, Party::Client(c), format!("event {event}"));
            }
            w.send_to_client(c, ToClient::Event { epoch, seq, event });
        }
    }
    if release {
        let contended = w
            .clients
            .iter()
            .enumerate()
            .any(|(i, cp)| Some(i) != actor && cp.attempt_since.is_some());
        if contended {
            w.metrics.contended_releases += 1;
            w.metrics.wakeups += woken.len() as u64;
        }
        let waiters = woken
            .iter()
            .filter(|&&c| w.clients[c].client.is_waiting())
            .count();
        if judge::herd(waiters) {
            let who = actor.map_or("the server".to_string(), |c| format!("c{}", c + 1));
            w.violate(
                Property::Herd,
                format!("{who}'s release notified {waiters} waiting clients"),
            );
        }
    }
}

/// Ends client `c`'s session on the server (timeout or injected expiry):
/// its ephemerals go, their watches fire, its connection is closed.
pub fn expire(w: &mut World, c: usize, why: &str) {
    let id = w.sessions[c].id;
    if !w.server.is_alive(id) {
        return;
    }
    w.metrics.expiries += 1;
    w.metrics.holder_expiries += u64::from(w.clients[c].client.holds());
    w.trace.note(
        now(),
        Some(Party::Server),
        format!(
            "session {id} of c{} expires ({why}): its ephemeral nodes are deleted",
            c + 1
        ),
    );
    let events = w.server.expire(id);
    route(w, Some(c), events, false);
    let s = &mut w.sessions[c];
    if s.connected {
        s.connected = false;
        let epoch = s.epoch;
        w.send_to_client(c, ToClient::Closed { epoch });
    }
}

/// The session tracker (ZooKeeper's `SessionTrackerImpl` over an
/// `ExpiryQueue`): a session is due at the first tick after its last
/// packet plus the timeout, and the tracker expires each tick's sessions
/// on that tick. The ticks fall on the server's clock, at a phase the
/// clients' start does not know: one per seed, taken from the seed itself
/// so that no random draw of the run moves.
pub async fn expirer(shared: Shared) {
    let tick = lock(&shared).p.tick.max(1);
    let phase = tick_phase(madsim::runtime::Handle::current().seed(), tick);
    let ticks = Ticks { tick, phase };
    loop {
        super::world::sleep_ns(ticks.next_after(now()) - now()).await;
        let mut w = lock(&shared);
        let t = now();
        let timeout = w.p.timeout;
        for c in 0..w.sessions.len() {
            let s = &w.sessions[c];
            if ticks.next_after(s.last_heard + timeout) <= t && w.server.is_alive(s.id) {
                expire(&mut w, c, "no packet for the session timeout");
            }
        }
        // Sessions their clients gave up on: nobody pings them any more.
        let (due, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut w.abandoned)
            .into_iter()
            .partition(|&(_, heard)| ticks.next_after(heard + timeout) <= t);
        w.abandoned = kept;
        for (id, _) in due {
            if w.server.is_alive(id) {
                w.metrics.expiries += 1;
                w.trace.note(
                    t,
                    Some(Party::Server),
                    format!("session {id}, given up by its client, expires: its ephemeral nodes are deleted"),
                );
                let events = w.server.expire(id);
                route(&mut w, None, events, false);
            }
        }
    }
}

/// The server's ticks: `phase`, then every `tick` after it.
#[derive(Clone, Copy)]
struct Ticks {
    tick: u64,
    phase: u64,
}

impl Ticks {
    /// The first tick strictly after `t` (`ExpiryQueue.roundToNextInterval`:
    /// a session last heard at `h` expires on `next_after(h + timeout)`).
    fn next_after(self, t: u64) -> u64 {
        if t < self.phase {
            return self.phase;
        }
        ((t - self.phase) / self.tick + 1) * self.tick + self.phase
    }
}

/// Where in `[0, tick)` a seed's ticks fall (a SplitMix64 finaliser of the
/// seed, so neighbouring seeds land far apart).
fn tick_phase(seed: u64, tick: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) % tick
}

/// ZooKeeper's `ContainerManager`: every `container_check`, deletes the
/// containers that had a child and have none left, and sends the watch
/// events the deletions fire.
pub async fn reaper(shared: Shared) {
    let tick = lock(&shared).p.container_check.max(1);
    loop {
        super::world::sleep_ns(tick).await;
        let mut w = lock(&shared);
        if !w.server.has_reapable_containers() {
            continue;
        }
        let before: Vec<String> = w.server.nodes().map(|(p, _)| p.to_string()).collect();
        let events = w.server.reap_containers();
        let gone: Vec<String> = before
            .into_iter()
            .filter(|p| w.server.node(p).is_none())
            .collect();
        w.trace.note(
            now(),
            Some(Party::Server),
            format!("the container reaper deletes {}", gone.join(", ")),
        );
        route(&mut w, None, events, false);
    }
}
