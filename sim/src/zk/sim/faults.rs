//! The chaos node: injects the scenario's faults, at fixed times (the
//! schedule) or at random (Poisson rates per simulated second).
//!
//! - **expire**: the server expires the session at once;
//! - **pause**: the client's node stops (madsim `pause`) for the duration —
//!   a GC pause: its threads, timers and heartbeats all stop, then `resume`;
//! - **partition**: both directions between the client and the server are
//!   clogged for the duration; packets wait (TCP retransmits) until the
//!   links unclog;
//! - **one-way-partition**: only the server's packets to the client are
//!   clogged for the duration: the server keeps hearing the client's pings
//!   and reconnects, so the session lives, while the client hears nothing
//!   and is SUSPENDED; a library that gives up after a session timeout so
//!   suspended (Curator) opens a new session: the client-side expiry;
//! - **outbound-partition**: only the client's packets to the server are
//!   clogged for the duration: the server hears nothing and expires the
//!   session, while its own packets still reach the client;
//! - **connection-loss**: the client's connection drops with a request in
//!   flight, which the server either applied (the reply is lost) or never
//!   saw;
//! - **crash**: the client's process ends where it stands (madsim `pause`,
//!   never resumed: no thread, timer or heartbeat runs again); the server
//!   times its silent session out, and its ephemeral nodes go with it.

use super::client_lib::lose_connection;
use super::trace::Party;
use super::world::{lock, now, Shared, World};
use crate::zk::sim_settings::{FaultKind, ScheduledFault, Target, TargetName};
use madsim::rand::Rng;

/// A fault resolved to a client.
#[derive(Debug, Clone)]
pub struct Strike {
    pub kind: FaultKind,
    pub client: usize,
    pub duration: u64,
    pub applied: bool,
}

fn candidates(w: &World, target: Target) -> Vec<usize> {
    let n = w.clients.len();
    let live = |c: &usize| !w.clients[*c].client.is_done();
    match target {
        Target::Client(k) => {
            let c = (k as usize).saturating_sub(1);
            if c < n && live(&c) {
                vec![c]
            } else {
                vec![]
            }
        }
        Target::Named(TargetName::Holder) => (0..n)
            .filter(|c| live(c) && w.clients[*c].client.holds())
            .collect(),
        Target::Named(TargetName::Waiter) => (0..n)
            .filter(|c| live(c) && w.clients[*c].client.is_parked())
            .collect(),
        Target::Named(TargetName::Any) => (0..n).filter(live).collect(),
    }
}

/// Waits (up to a bound) for a client matching `target`, picks one.
async fn resolve(shared: &Shared, target: Target) -> Option<usize> {
    for _ in 0..20_000 {
        {
            let w = lock(shared);
            let cs = candidates(&w, target);
            if !cs.is_empty() {
                let i = super::world::with_rng(|r| r.gen_range(0..cs.len()));
                return Some(cs[i]);
            }
            if w.clients.iter().all(|c| c.client.is_done()) {
                return None;
            }
        }
        super::world::sleep_ns(500_000).await;
    }
    None
}

/// Injects `s`, waiting out its duration (run it in its own task when
/// faults may overlap).
pub async fn strike(shared: Shared, s: Strike) {
    let c = s.client;
    let t = now();
    let node = {
        let mut w = lock(&shared);
        w.metrics.faults += 1;
        let what = match s.kind {
            FaultKind::Expire => "expire the session".to_string(),
            FaultKind::Pause => format!("pause the process for {:.1} ms", s.duration as f64 / 1e6),
            FaultKind::Partition => {
                format!(
                    "partition it from the server for {:.1} ms",
                    s.duration as f64 / 1e6
                )
            }
            FaultKind::OutboundPartition => format!(
                "stop its packets to the server for {:.1} ms (it still hears the server)",
                s.duration as f64 / 1e6
            ),
            FaultKind::OneWayPartition => format!(
                "stop the server's packets to it for {:.1} ms (the server still hears it)",
                s.duration as f64 / 1e6
            ),
            FaultKind::ConnectionLoss if s.applied => {
                "drop its connection after its request is applied".into()
            }
            FaultKind::ConnectionLoss => "drop its connection before its request arrives".into(),
            FaultKind::Crash => "crash the process".into(),
        };
        w.trace
            .note(t, Some(Party::Chaos), format!("FAULT c{}: {what}", c + 1));
        match s.kind {
            FaultKind::Expire => super::server_node::expire(&mut w, c, "injected"),
            FaultKind::Pause => {}
            FaultKind::Crash => {
                w.clients[c].client.crash();
                w.resource.writer_gone(c);
                w.wake_observer();
            }
            FaultKind::Partition => {
                w.to_server[c].clog();
                w.to_client[c].clog();
            }
            FaultKind::OneWayPartition => w.to_client[c].clog(),
            FaultKind::OutboundPartition => w.to_server[c].clog(),
            FaultKind::ConnectionLoss => {
                if s.applied && !w.to_server[c].is_empty() {
                    w.cut_after_serve[c] = true;
                } else {
                    lose_connection(&mut w, c, "connection reset");
                }
            }
        }
        w.clients[c].node
    };
    match s.kind {
        FaultKind::Crash => {
            if let Some(node) = node {
                madsim::runtime::Handle::current().pause(node);
            }
        }
        FaultKind::Pause => {
            let Some(node) = node else { return };
            let h = madsim::runtime::Handle::current();
            lock(&shared).clients[c].paused = true;
            h.pause(node);
            super::world::sleep_ns(s.duration).await;
            h.resume(node);
            let mut w = lock(&shared);
            w.clients[c].paused = false;
            w.trace
                .note(now(), Some(Party::Chaos), format!("c{} resumes", c + 1));
        }
        FaultKind::Partition | FaultKind::OneWayPartition | FaultKind::OutboundPartition => {
            super::world::sleep_ns(s.duration).await;
            let mut w = lock(&shared);
            w.to_server[c].unclog();
            w.to_client[c].unclog();
            w.trace.note(
                now(),
                Some(Party::Chaos),
                format!("c{}'s partition heals", c + 1),
            );
        }
        _ => {}
    }
}

/// Runs the schedule.
pub async fn scheduled(shared: Shared, schedule: Vec<ScheduledFault>, default_duration: u64) {
    let mut schedule = schedule;
    schedule.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
    for f in schedule {
        let at = (f.at_ms * 1e6) as u64;
        super::world::sleep_ns(at.saturating_sub(now())).await;
        let Some(client) = resolve(&shared, f.target).await else {
            continue;
        };
        let s = Strike {
            kind: f.fault,
            client,
            duration: f
                .duration_ms
                .map(|d| (d * 1e6) as u64)
                .unwrap_or(default_duration),
            applied: f.applied,
        };
        madsim::task::spawn(strike(shared.clone(), s));
    }
}

/// A Poisson process of `kind` faults at `rate` per simulated second.
pub async fn random(shared: Shared, kind: FaultKind, rate: f64, default_duration: u64) {
    loop {
        let gap = {
            let u: f64 = super::world::with_rng(|r| r.gen_range(f64::EPSILON..1.0));
            (-u.ln() / rate * 1e9) as u64
        };
        super::world::sleep_ns(gap).await;
        let target = match kind {
            // A pause or partition hurts most when it strikes the holder.
            FaultKind::Pause
            | FaultKind::Partition
            | FaultKind::OneWayPartition
            | FaultKind::OutboundPartition
            | FaultKind::Expire => {
                if super::world::with_rng(|r| r.gen_bool(0.5)) {
                    Target::Named(TargetName::Holder)
                } else {
                    Target::Named(TargetName::Any)
                }
            }
            FaultKind::ConnectionLoss | FaultKind::Crash => Target::Named(TargetName::Any),
        };
        let Some(client) = resolve(&shared, target).await else {
            return;
        };
        let s = Strike {
            kind,
            client,
            duration: default_duration,
            applied: super::world::with_rng(|r| r.gen_bool(0.5)),
        };
        madsim::task::spawn(strike(shared.clone(), s));
    }
}
