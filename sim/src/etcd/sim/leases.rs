//! Leases on etcd's own clocks. The server's lessor (`lease/lessor.go`)
//! keeps a deadline per lease — its grant or last keep-alive plus the TTL
//! — and looks for passed deadlines every 500 ms, revoking what it finds
//! (the lease's keys go in one revision, the watches on them fire). Each
//! client (clientv3 `lease.go`) sends a keep-alive every TTL / 3 and keeps
//! its own deadline, its last keep-alive *response* plus the TTL, which it
//! checks every second: past it, or on a response of TTL 0, the session's
//! `Done()` closes. The client's deadline starts later than the server's
//! (a response comes after its request arrived), so the client never
//! passes its deadline first; which of the two looks comes first depends
//! on their phases (the lessor's may come up to 500 ms after the server's
//! deadline, the client's up to a second after its own). Unlike
//! ZooKeeper, no margin is kept in the client's favour.

use super::World;
use crate::simulate::command::lock;
use crate::simulate::command::run_clock::{micros, now_ms};
use locksmith_model::etcd::{LeaseId, Reply, Request};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often etcd's lessor looks for expired leases (`lessor.go`'s
/// `revokeExpiredLeases`, every 500 ms).
pub(super) const LESSOR_MS: u64 = 500;

/// How often clientv3 looks at its keep-alives' deadlines (`lease.go`'s
/// `deadlineLoop`, every second).
pub(super) const CLIENT_CHECK_MS: u64 = 1000;

/// What the server and each client know of the leases' time.
#[derive(Debug, Default)]
pub(super) struct Clocks {
    /// The server's deadline of each lease (simulated ms).
    pub server: BTreeMap<LeaseId, u64>,
    /// Each client's session lease, its last keep-alive response (or its
    /// grant), and whether its `Done()` has closed.
    pub sessions: Vec<Session>,
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Session {
    pub lease: Option<LeaseId>,
    pub answered_ms: u64,
    pub done: bool,
}

impl Clocks {
    pub fn new(clients: usize) -> Clocks {
        Clocks {
            server: BTreeMap::new(),
            sessions: vec![Session::default(); clients],
        }
    }

    /// The server granted or kept `id` alive now.
    pub fn renewed(&mut self, id: LeaseId, ttl_ms: u64) {
        self.server.insert(id, now_ms() + ttl_ms);
    }

    /// Client `c`'s session is `lease` now, as of a grant it just read: a
    /// new one is alive from here.
    pub fn follow(&mut self, c: usize, lease: Option<LeaseId>) {
        let s = &mut self.sessions[c];
        if s.lease != lease {
            *s = Session {
                lease,
                answered_ms: now_ms(),
                done: false,
            };
        }
    }

    /// Client `c`'s session is open in its own eyes.
    pub fn alive(&self, c: usize) -> bool {
        let s = self.sessions[c];
        s.lease.is_some() && !s.done
    }
}

/// The server's lessor: every [`LESSOR_MS`], each lease whose deadline
/// has passed is revoked.
pub(super) async fn lessor(world: Arc<Mutex<World>>) {
    loop {
        madsim::time::sleep(Duration::from_millis(LESSOR_MS)).await;
        let mut w = lock(&world);
        let now = now_ms();
        let due: Vec<LeaseId> = w
            .clocks
            .server
            .iter()
            .filter(|&(_, &deadline)| deadline <= now)
            .map(|(&id, _)| id)
            .collect();
        for id in due {
            w.clocks.server.remove(&id);
            if w.server.lease(id).is_some() {
                let mut fired = Vec::new();
                w.server.revoke(id, &mut fired);
                w.core.note(|| format!("lease {id} expires: its keys go"));
                w.deliver(fired);
            }
        }
        if w.core.all_done() {
            return;
        }
    }
}

/// Client `c`'s keep-alive goroutine: `LeaseKeepAlive` every TTL / 3 for
/// its current session, on its own node (a pause stops it too; a cut link
/// loses it).
pub(super) async fn keep_alive(world: Arc<Mutex<World>>, c: usize) {
    let (every, ttl_ms) = {
        let w = lock(&world);
        ((w.ttl_ms() / 3).max(1), w.ttl_ms())
    };
    loop {
        madsim::time::sleep(Duration::from_millis(every)).await;
        let id = {
            let w = lock(&world);
            if w.core.clients[c].done() {
                return;
            }
            match (w.clocks.sessions[c].lease, w.cut(c)) {
                (Some(id), false) => id,
                _ => continue,
            }
        };
        madsim::time::sleep(micros(100, 1000)).await;
        let kept = {
            let mut w = lock(&world);
            if w.cut(c) {
                continue;
            }
            let (reply, _) = w.server.apply(c as u8, &Request::KeepAlive(id));
            let kept = matches!(reply, Reply::KeptAlive { ttl, .. } if ttl > 0);
            if kept {
                w.clocks.renewed(id, ttl_ms);
            }
            kept
        };
        madsim::time::sleep(micros(100, 1000)).await;
        let mut w = lock(&world);
        if w.cut(c) || w.clocks.sessions[c].lease != Some(id) {
            continue;
        }
        let s = &mut w.clocks.sessions[c];
        if kept {
            s.answered_ms = now_ms();
        } else {
            s.done = true;
        }
    }
}

/// Client `c`'s `deadlineLoop`: every [`CLIENT_CHECK_MS`], a session with
/// no keep-alive response for a TTL is done.
pub(super) async fn deadline_loop(world: Arc<Mutex<World>>, c: usize) {
    let ttl_ms = lock(&world).ttl_ms();
    loop {
        madsim::time::sleep(Duration::from_millis(CLIENT_CHECK_MS)).await;
        let mut w = lock(&world);
        if w.core.clients[c].done() {
            return;
        }
        let s = w.clocks.sessions[c];
        if s.lease.is_some() && !s.done && now_ms() >= s.answered_ms + ttl_ms {
            w.clocks.sessions[c].done = true;
            w.core
                .note(|| format!("c{c}'s session is done: no keep-alive answer for a TTL"));
        }
    }
}
