//! The server: the primary's keys, time, restarts, and (optionally) a
//! replica behind an asynchronous replication stream.

use super::keyspace::{Entry, Keyspace};
use super::replication::Replication;
use super::{Command, Key, Reply};
use serde::Serialize;
use std::sync::Arc;

/// A Redis 7.0 server as a pure state machine:
/// (state, command) → (state, reply), plus the time and fault steps a
/// driver decides on.
///
/// The state sits behind an `Arc` and is copied on the first write, as
/// [`crate::zk::ZkServer`] does: the checker clones whole systems per
/// transition and most transitions leave the server alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct RedisServer {
    inner: Arc<State>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
struct State {
    primary: Keyspace,
    replication: Option<Replication>,
}

impl RedisServer {
    /// A lone server without persistence and without a replica.
    pub fn new() -> Self {
        Self::default()
    }

    /// A primary with one replica, both empty.
    pub fn with_replica() -> Self {
        RedisServer {
            inner: Arc::new(State {
                primary: Keyspace::default(),
                replication: Some(Replication::default()),
            }),
        }
    }

    fn m(&mut self) -> &mut State {
        Arc::make_mut(&mut self.inner)
    }

    /// Handles one command on the primary; a write that changed its key
    /// joins the replication stream.
    pub fn apply(&mut self, cmd: &Command) -> Reply {
        // Reads never copy the shared state.
        if let Some(reply) = self.inner.primary.answer(cmd) {
            return reply;
        }
        let s = self.m();
        let key = cmd.key();
        let before = s.primary.get(key).cloned();
        let reply = s.primary.apply(cmd);
        if let Some(r) = &mut s.replication {
            let after = s.primary.get(key).cloned();
            if after != before {
                r.record(key.clone(), after);
            }
        }
        reply
    }

    /// The primary's keys (what a client of the primary can observe).
    pub fn keys(&self) -> &Keyspace {
        &self.inner.primary
    }

    /// A key's value and remaining TTL on the primary.
    pub fn entry(&self, key: &Key) -> Option<&Entry> {
        self.inner.primary.get(key)
    }

    /// Real time passes by `ms` for the server and its replica: every TTL
    /// shrinks (a key past its deadline is gone) and every stamp moves.
    pub fn advance(&mut self, ms: u64) {
        if ms == 0 {
            return;
        }
        let s = self.m();
        s.primary.advance(ms);
        if let Some(r) = &mut s.replication {
            r.advance(ms);
        }
    }

    /// Every stamp below `floor`, on the primary and the replica, is raised
    /// to it: a checker's horizon (its recipes read every stamp below
    /// `floor` alike), not anything Redis does. Copies the state only if a
    /// stamp changes.
    pub fn clamp_stamps(&mut self, floor: i64) {
        let below = |ks: &Keyspace| {
            ks.iter()
                .any(|(_, e)| matches!(e.value, super::Value::Stamp(k) if k < floor))
        };
        let s = &self.inner;
        let replica = s.replication.as_ref().is_some_and(|r| {
            below(&r.replica)
                || r.backlog
                    .iter()
                    .flat_map(|(_, e)| e)
                    .any(|e| matches!(e.value, super::Value::Stamp(k) if k < floor))
        });
        if below(&s.primary) || replica {
            let s = self.m();
            s.primary.clamp_stamps(floor);
            if let Some(r) = &mut s.replication {
                r.clamp_stamps(floor);
            }
        }
    }

    /// The primary's clock jumps `ms` forward (real time does not move):
    /// its TTLs shrink and keys past their deadline go; stamps stay.
    pub fn jump_forward(&mut self, ms: u64) {
        if ms > 0 {
            self.m().primary.jump_forward(ms);
        }
    }

    /// The primary's clock jumps `ms` backward. Redis 7 stores each TTL as
    /// an absolute unix-ms deadline and compares it with its wall clock, so
    /// every TTL on the primary grows by `ms`: leases last longer.
    pub fn jump_back(&mut self, ms: u64) {
        if ms > 0 {
            self.m().primary.jump_back(ms);
        }
    }

    /// The primary restarts without persistence (`--save "" --appendonly
    /// no`): every key is gone. A replica then resyncs from the empty
    /// primary and loses its keys too (the hazard Redis's replication
    /// documentation warns about); queued writes are dropped.
    pub fn restart(&mut self) {
        let s = self.m();
        s.primary = Keyspace::default();
        if let Some(r) = &mut s.replication {
            *r = Replication::default();
        }
    }

    /// Whether the server has a replica.
    pub fn has_replica(&self) -> bool {
        self.inner.replication.is_some()
    }

    /// How many writes the replica has not received yet (0 without one).
    pub fn unreplicated(&self) -> usize {
        self.inner
            .replication
            .as_ref()
            .map_or(0, |r| r.backlog.len())
    }

    /// The replica's keys, if there is a replica.
    pub fn replica_keys(&self) -> Option<&Keyspace> {
        self.inner.replication.as_ref().map(|r| &r.replica)
    }

    /// Ships the oldest unreplicated write to the replica; false if there
    /// was none (or no replica).
    pub fn replicate_one(&mut self) -> bool {
        if self.unreplicated() == 0 {
            return false;
        }
        self.m()
            .replication
            .as_mut()
            .is_some_and(Replication::ship_one)
    }

    /// The primary fails and the replica is promoted: the writes it had not
    /// received are lost. The old primary comes back as the new primary's
    /// replica after a full sync, so another failover can follow. Returns
    /// how many writes were lost; does nothing (and returns `None`) without
    /// a replica.
    pub fn failover(&mut self) -> Option<usize> {
        let s = self.m();
        let r = s.replication.take()?;
        let lost = r.backlog.len();
        s.primary = r.replica;
        s.replication = Some(Replication::synced(&s.primary));
        Some(lost)
    }
}
