//! The client library's watch table (`ZKWatchManager`): which `Watcher`
//! objects a notification is handed to.
//!
//! A watch is registered when the reply of the call that set it arrives, and
//! only if the server set one: `exists` always does, `getData` and
//! `getChildren` only on success. A notification removes and returns every
//! watcher it triggers, once each even if registered by several calls:
//! `NodeCreated`/`NodeDataChanged` take the data (and exists) watchers,
//! `NodeChildrenChanged` the child watchers, `NodeDeleted` both.

use super::step::WatcherId;
use crate::zk::{EventType, Name, Op, Reply, WatchedEvent, ZkError};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Watchers {
    data: BTreeMap<Name, BTreeSet<WatcherId>>,
    child: BTreeMap<Name, BTreeSet<WatcherId>>,
}

impl Watchers {
    /// Registers `watcher` for `op` given its reply.
    pub fn register(&mut self, op: &Op, watcher: WatcherId, reply: &Reply) {
        let (table, path) = match (op, reply) {
            (Op::Exists { path, .. }, Ok(_)) => (&mut self.data, path),
            (Op::GetData { path, .. }, Ok(_)) => (&mut self.data, path),
            (Op::GetChildren { path, .. }, Ok(_)) => (&mut self.child, path),
            _ => return,
        };
        table.entry(path.clone()).or_default().insert(watcher);
    }

    /// The watchers `event` triggers, removed from the table, in id order.
    pub fn materialize(&mut self, event: &WatchedEvent) -> BTreeSet<WatcherId> {
        let mut out = BTreeSet::new();
        let mut take = |table: &mut BTreeMap<Name, BTreeSet<WatcherId>>| {
            if let Some(ws) = table.remove(&event.path) {
                out.extend(ws);
            }
        };
        match event.kind {
            EventType::NodeCreated | EventType::NodeDataChanged => take(&mut self.data),
            EventType::NodeChildrenChanged => take(&mut self.child),
            EventType::NodeDeleted => {
                take(&mut self.data);
                take(&mut self.child);
            }
        }
        out
    }

    /// Every registered watcher plus the default one: a connection-state
    /// change is handed to all of them.
    pub fn everyone(&self) -> BTreeSet<WatcherId> {
        let mut out: BTreeSet<WatcherId> = self
            .data
            .values()
            .chain(self.child.values())
            .flatten()
            .copied()
            .collect();
        out.insert(super::step::DEFAULT_WATCHER);
        out
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.child.clear();
    }

    /// Every path a watcher is registered on.
    pub fn paths(&self) -> impl Iterator<Item = &Name> {
        self.data.keys().chain(self.child.keys())
    }

    /// Every path a watcher is registered on, each one to rewrite in place
    /// (the checker's sequence-suffix abstraction).
    pub fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        for table in [&mut self.data, &mut self.child] {
            let mut moved = Vec::new();
            for old in table.keys() {
                let mut new = old.clone();
                f(&mut new);
                if new != *old {
                    moved.push((old.clone(), new));
                }
            }
            // All out before any goes back in: a renaming may swap names.
            let back: Vec<_> = moved
                .into_iter()
                .filter_map(|(old, new)| table.remove(&old).map(|w| (new, w)))
                .collect();
            table.extend(back);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty() && self.child.is_empty()
    }
}

/// Whether an error means the session is gone.
pub fn is_expiry(reply: &Reply) -> bool {
    matches!(reply, Err(ZkError::SessionExpired))
}
