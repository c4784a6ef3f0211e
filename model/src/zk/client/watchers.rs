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
use crate::zk::{EventType, Name, Op, Reply, WatchedEvent, WatcherType, ZkError};

/// A set of the recipe's `Watcher` objects (ids below 32), iterated in id
/// order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WatcherSet(u32);

impl WatcherSet {
    fn with(self, w: WatcherId) -> WatcherSet {
        debug_assert!(w < 32, "watcher ids are below 32");
        WatcherSet(self.0 | 1 << (w & 31))
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn iter(self) -> impl Iterator<Item = WatcherId> {
        (0..32u8).filter(move |w| self.0 >> w & 1 != 0)
    }
}

/// One table (data or child watches): the watched paths in path order,
/// each with its watchers. A client watches a path or two at a time, so a
/// sorted list is the smallest table to copy.
type Table = Vec<(Name, WatcherSet)>;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Watchers {
    data: Table,
    child: Table,
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
        match table.binary_search_by(|(p, _)| p.cmp(path)) {
            Ok(i) => table[i].1 = table[i].1.with(watcher),
            Err(i) => table.insert(i, (path.clone(), WatcherSet::default().with(watcher))),
        }
    }

    /// `ZKWatchManager.removeWatcher` after the server's `OK` to a
    /// `checkWatches`: takes `watcher` off `path` in the tables of `kind`;
    /// whether it was on any of them (if not, the call fails with
    /// `NoWatcher` on the client).
    pub fn deregister(&mut self, path: &str, watcher: WatcherId, kind: WatcherType) -> bool {
        let tables: &mut [&mut Table] = match kind {
            WatcherType::Data => &mut [&mut self.data],
            WatcherType::Children => &mut [&mut self.child],
            WatcherType::Any => &mut [&mut self.data, &mut self.child],
        };
        let bit = WatcherSet::default().with(watcher).0;
        let mut removed = false;
        for table in tables.iter_mut() {
            if let Ok(i) = table.binary_search_by(|(p, _)| p.as_str().cmp(path)) {
                let ws = &mut table[i].1;
                removed |= ws.0 & bit != 0;
                ws.0 &= !bit;
                if ws.is_empty() {
                    table.remove(i);
                }
            }
        }
        removed
    }

    /// The watchers `event` triggers, removed from the table.
    pub fn materialize(&mut self, event: &WatchedEvent) -> WatcherSet {
        let take = |table: &mut Table| match table.binary_search_by(|(p, _)| p.cmp(&event.path)) {
            Ok(i) => table.remove(i).1,
            Err(_) => WatcherSet::default(),
        };
        match event.kind {
            EventType::NodeCreated | EventType::NodeDataChanged => take(&mut self.data),
            EventType::NodeChildrenChanged => take(&mut self.child),
            EventType::NodeDeleted => {
                let d = take(&mut self.data);
                WatcherSet(d.0 | take(&mut self.child).0)
            }
        }
    }

    /// Every registered watcher plus the default one: a connection-state
    /// change is handed to all of them (the Java client).
    pub fn everyone(&self) -> WatcherSet {
        self.registered().with(super::step::DEFAULT_WATCHER)
    }

    /// Every watcher registered on a path.
    pub fn registered(&self) -> WatcherSet {
        self.data
            .iter()
            .chain(&self.child)
            .fold(WatcherSet::default(), |all, (_, ws)| {
                WatcherSet(all.0 | ws.0)
            })
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.child.clear();
    }

    /// Every path a watcher is registered on.
    pub fn paths(&self) -> impl Iterator<Item = &Name> {
        self.data.iter().chain(&self.child).map(|(p, _)| p)
    }

    /// Every path a watcher is registered on, each one to rewrite in place
    /// (the checker's sequence-suffix abstraction).
    pub fn paths_mut(&mut self, f: &mut dyn FnMut(&mut Name)) {
        for table in [&mut self.data, &mut self.child] {
            for (p, _) in table.iter_mut() {
                f(p);
            }
            // Back in path order; two names renamed into one share their
            // watchers.
            table.sort_by(|a, b| a.0.cmp(&b.0));
            table.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 = WatcherSet(kept.1 .0 | later.1 .0);
                }
                same
            });
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
