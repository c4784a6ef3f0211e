//! The server's watch table: one-shot data and child watches per session.
//!
//! Rules kept from ZooKeeper's `DataTree` and `WatchManager`:
//! - `exists` registers a data watch whether or not the node exists (a watch
//!   on a missing node fires `NodeCreated`); `getData` registers one only if
//!   the node exists; `getChildren` registers a child watch.
//! - create fires `NodeCreated` on the node's data watches and
//!   `NodeChildrenChanged` on the parent's child watches; setData fires
//!   `NodeDataChanged`; delete fires `NodeDeleted` on the node's data *and*
//!   child watches — once per session even if it had both — and
//!   `NodeChildrenChanged` on the parent's child watches.
//! - a watch fires at most once; a session that set the same watch twice
//!   gets one event (the server keeps a set of sessions per path).

use super::small_map::SmallMap;
use super::{EventType, Name, SessionId, WatchedEvent, WatcherType};
use std::collections::BTreeSet;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Watches {
    data: SmallMap<Name, BTreeSet<SessionId>>,
    child: SmallMap<Name, BTreeSet<SessionId>>,
}

impl Watches {
    pub fn add_data(&mut self, path: &str, session: SessionId) {
        self.data.entry_or_default(path.into()).insert(session);
    }

    pub fn add_child(&mut self, path: &str, session: SessionId) {
        self.child.entry_or_default(path.into()).insert(session);
    }

    /// `removeWatches`: takes `session`'s watches of `kind` on `path` away;
    /// whether there was one (the server's `DataTree.removeWatch`: `Any`
    /// succeeds if either table had one).
    pub fn remove(&mut self, path: &str, session: SessionId, kind: WatcherType) -> bool {
        let mut removed = false;
        let tables: &mut [&mut SmallMap<Name, BTreeSet<SessionId>>] = match kind {
            WatcherType::Data => &mut [&mut self.data],
            WatcherType::Children => &mut [&mut self.child],
            WatcherType::Any => &mut [&mut self.data, &mut self.child],
        };
        for table in tables.iter_mut() {
            let mut emptied = false;
            if let Some(sessions) = table.get_mut(path) {
                removed |= sessions.remove(&session);
                emptied = sessions.is_empty();
            }
            if emptied {
                table.remove(path);
            }
        }
        removed
    }

    /// `checkWatches`: whether `session` has a watch of `kind` on `path`
    /// (`DataTree.containsWatcher`: `Any` if either table has one).
    pub fn contains(&self, path: &str, session: SessionId, kind: WatcherType) -> bool {
        let has = |table: &SmallMap<Name, BTreeSet<SessionId>>| {
            table.get(path).is_some_and(|s| s.contains(&session))
        };
        match kind {
            WatcherType::Data => has(&self.data),
            WatcherType::Children => has(&self.child),
            WatcherType::Any => has(&self.data) || has(&self.child),
        }
    }

    /// A session that ends takes its watches with it.
    pub fn drop_session(&mut self, session: SessionId) {
        for table in [&mut self.data, &mut self.child] {
            table.retain(|_, sessions| {
                sessions.remove(&session);
                !sessions.is_empty()
            });
        }
    }

    /// Number of (path, session) watches outstanding, data and child.
    pub fn count(&self) -> usize {
        self.data
            .values()
            .chain(self.child.values())
            .map(BTreeSet::len)
            .sum()
    }

    /// Whether `session` holds any watch at all: whether some transaction
    /// of another session could send it an event.
    pub fn any_of(&self, session: SessionId) -> bool {
        self.data
            .values()
            .chain(self.child.values())
            .any(|sessions| sessions.contains(&session))
    }

    pub fn has_data(&self, path: &str, session: SessionId) -> bool {
        self.data.get(path).is_some_and(|s| s.contains(&session))
    }

    pub fn has_child(&self, path: &str, session: SessionId) -> bool {
        self.child.get(path).is_some_and(|s| s.contains(&session))
    }

    fn fire(
        table: &mut SmallMap<Name, BTreeSet<SessionId>>,
        path: &str,
        kind: EventType,
        skip: &BTreeSet<SessionId>,
        out: &mut Vec<(SessionId, WatchedEvent)>,
    ) -> BTreeSet<SessionId> {
        let sessions = table.remove(path).unwrap_or_default();
        for s in &sessions {
            if !skip.contains(s) {
                out.push((
                    *s,
                    WatchedEvent {
                        kind,
                        path: path.into(),
                    },
                ));
            }
        }
        sessions
    }

    pub fn node_created(
        &mut self,
        path: &str,
        parent: &str,
        out: &mut Vec<(SessionId, WatchedEvent)>,
    ) {
        let none = BTreeSet::new();
        Self::fire(&mut self.data, path, EventType::NodeCreated, &none, out);
        self.children_changed(parent, out);
    }

    pub fn node_deleted(
        &mut self,
        path: &str,
        parent: &str,
        out: &mut Vec<(SessionId, WatchedEvent)>,
    ) {
        let none = BTreeSet::new();
        let processed = Self::fire(&mut self.data, path, EventType::NodeDeleted, &none, out);
        Self::fire(
            &mut self.child,
            path,
            EventType::NodeDeleted,
            &processed,
            out,
        );
        self.children_changed(parent, out);
    }

    /// A create and a delete both fire `NodeChildrenChanged` on the
    /// parent's child watches.
    fn children_changed(&mut self, parent: &str, out: &mut Vec<(SessionId, WatchedEvent)>) {
        let none = BTreeSet::new();
        Self::fire(
            &mut self.child,
            parent,
            EventType::NodeChildrenChanged,
            &none,
            out,
        );
    }

    pub fn data_changed(&mut self, path: &str, out: &mut Vec<(SessionId, WatchedEvent)>) {
        let none = BTreeSet::new();
        Self::fire(&mut self.data, path, EventType::NodeDataChanged, &none, out);
    }
}

impl Watches {
    /// The data (and exists) watches: each path with the sessions holding
    /// one, in path order.
    pub fn data(&self) -> impl Iterator<Item = (&Name, &BTreeSet<SessionId>)> + '_ {
        self.data.iter()
    }

    /// Every watched path, data and child.
    pub fn paths(&self) -> impl Iterator<Item = &Name> {
        self.data.keys().chain(self.child.keys())
    }

    /// Renames every path `rename` gives a new name (the checker's
    /// sequence-suffix abstraction).
    pub fn rename(&mut self, rename: &dyn Fn(&str) -> Option<String>) {
        for table in [&mut self.data, &mut self.child] {
            *table = std::mem::take(table)
                .into_iter()
                .map(|(p, s)| (rename(&p).map(Name::from).unwrap_or(p), s))
                .collect();
        }
    }

    /// The child watches: each path with the sessions holding one, in path
    /// order.
    pub fn child(&self) -> impl Iterator<Item = (&Name, &BTreeSet<SessionId>)> + '_ {
        self.child.iter()
    }
}
