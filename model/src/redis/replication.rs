//! Asynchronous replication to one replica, and the failover that promotes
//! it.
//!
//! A Redis primary answers a write before the replica has it: the write
//! joins the replication stream and is shipped later. The model keeps that
//! stream as a queue of key states (each write's effect on its key: the new
//! value and TTL, or the key's removal); Redis 7 propagates effects too
//! (`SET … PX` as `PXAT`, an expiry as `DEL`), so shipping an effect is
//! what the replica does with the command. A write that changes nothing
//! (a failed `SET NX`, a `DEL` of a missing key) is not queued, as Redis
//! does not propagate it.
//!
//! The replica's clock is the reference time: it ages with
//! [`super::RedisServer::advance`] and ignores the primary's clock jumps.
//! Queued effects age too, as their absolute deadlines would: one whose
//! key's TTL ran out before it shipped removes the key.

use super::keyspace::{Entry, Keyspace};
use super::Key;
use serde::Serialize;
use std::collections::VecDeque;

/// The replica and the writes it has not received yet.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Replication {
    pub replica: Keyspace,
    /// Oldest first: each write's resulting state of its key.
    pub backlog: VecDeque<(Key, Option<Entry>)>,
}

impl Replication {
    /// A replica that has every write of `primary` (after a full sync).
    pub fn synced(primary: &Keyspace) -> Replication {
        Replication {
            replica: primary.clone(),
            backlog: VecDeque::new(),
        }
    }

    /// Queues a write's effect on its key.
    pub fn record(&mut self, key: Key, entry: Option<Entry>) {
        self.backlog.push_back((key, entry));
    }

    /// Ships the oldest queued write; false if there was none.
    pub fn ship_one(&mut self) -> bool {
        match self.backlog.pop_front() {
            Some((key, entry)) => {
                self.replica.put(key, entry);
                true
            }
            None => false,
        }
    }

    /// Every stamp below `floor` is raised to it, queued writes included.
    pub fn clamp_stamps(&mut self, floor: i64) {
        self.replica.clamp_stamps(floor);
        for e in self.backlog.iter_mut().filter_map(|(_, e)| e.as_mut()) {
            e.value = e.value.clamped(floor);
        }
    }

    /// Real time passes for the replica and the queued writes.
    pub fn advance(&mut self, ms: u64) {
        self.replica.advance(ms);
        for (_, entry) in &mut self.backlog {
            if let Some(e) = entry {
                match e.ttl {
                    Some(t) if t < ms => *entry = None,
                    _ => {
                        e.ttl = e.ttl.map(|t| t - ms);
                        e.value = e.value.aged(ms);
                    }
                }
            }
        }
    }
}
