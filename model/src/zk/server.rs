//! The request handler: ZooKeeper's `PrepRequestProcessor` checks and
//! `FinalRequestProcessor` effects, applied in one step per request.
//!
//! Ordering rules the drivers rely on: every request is one transaction with
//! its own zxid (failed writes consume one too, as the real server's error
//! transactions do; reads consume none); the events a transaction fires come
//! out before its reply.

use super::path;
use super::sessions::{SessionState, Sessions};
use super::tree::Tree;
use super::watches::Watches;
use super::{
    CreateMode, EventType, Name, Node, Op, OpResult, Outcome, Reply, Service, SessionId, TxnOp,
    TxnResult, WatchedEvent, ZkError,
};
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// The whole server: tree, sessions, watches and the last zxid.
///
/// The state sits behind an `Arc` and is copied on the first write
/// (`Arc::make_mut`): the checker clones the whole system for every
/// transition, and most transitions (a client thread's step, a delivery)
/// leave the server alone, so their successors share it with their parent.
/// Reads never copy.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct ZkServer {
    inner: Arc<ServerState>,
}

impl fmt::Debug for ZkServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZkServer")
            .field("tree", &self.inner.tree)
            .field("sessions", &self.inner.sessions)
            .field("watches", &self.inner.watches)
            .field("zxid", &self.inner.zxid)
            .finish()
    }
}

impl ZkServer {
    fn m(&mut self) -> &mut ServerState {
        Arc::make_mut(&mut self.inner)
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// Creates a node directly, outside any session (test and scenario set-up:
    /// the lock's parent that a seed's `main` creates before its threads run).
    pub fn seed_node(&mut self, at: &str, mode: CreateMode) -> Result<(), ZkError> {
        self.m().seed_node(at, mode)
    }

    /// The container reaper's pass: deletes every container that has had a
    /// child and has none left. On the real server this runs every
    /// `znode.container.checkIntervalMs` (a minute by default); drivers decide
    /// when.
    pub fn reap_containers(&mut self) -> Events {
        if !self.inner.has_reapable_containers() {
            return Vec::new();
        }
        self.m().reap_containers()
    }

    /// Reaps one container, if it is reapable now, in a transaction of its
    /// own: the real `ContainerManager` takes its candidates in the order of
    /// its container set, not in path order, so a driver that has to follow
    /// a real server (the conformance test) reaps one at a time.
    pub fn reap_container(&mut self, at: &str) -> Events {
        if !self
            .inner
            .tree
            .reapable_containers()
            .iter()
            .any(|p| p == at)
        {
            return Vec::new();
        }
        self.m().reap_container(at)
    }

    /// The reply to `op` if handling it changes nothing (a read that
    /// leaves no watch, or any request of an ended session), without
    /// needing the server mutably: what [`Service::handle`] would answer.
    pub fn answer_unchanged(
        &self,
        session: SessionId,
        op: &Op,
    ) -> Option<Outcome<Reply, WatchedEvent>> {
        self.inner.read_only(session, op)
    }

    /// Renames every node and watched path `rename` gives a new name: the
    /// checker's sequence-suffix abstraction (`check::sequences`), which
    /// makes states that differ only in what no recipe observes one state.
    pub fn rename_paths(&mut self, rename: &dyn Fn(&str) -> Option<String>) {
        let s = self.m();
        s.tree.rename(rename);
        s.watches.rename(rename);
    }

    /// Replaces every node's stat by `restat` of it, and the last zxid by
    /// `zxid` (the same abstraction: sequence counters and unread zxids).
    pub fn restat(&mut self, restat: &dyn Fn(&Node) -> super::Stat, zxid: i64) {
        let s = self.m();
        s.tree.restat(restat);
        s.zxid = zxid;
    }
}

/// What a server with connections does that the checker never needs: the
/// wire driver (`locksmith serve`) calls these; the checker's state never
/// goes through them.
impl ZkServer {
    /// The client's connection closed: the real server keeps a session's
    /// watches on its connection (`NIOServerCnxn` is the `Watcher`), so they
    /// go with it while the session lives on; the client sends them back in
    /// `SetWatches` when it reconnects.
    pub fn forget_watches(&mut self, session: SessionId) {
        if self.inner.watches.any_of(session) {
            self.m().watches.drop_session(session);
        }
    }

    /// The watches `session` holds, as its client library lists them in
    /// `SetWatches` (data, exist, child; each in path order): a data watch
    /// on a node that exists is a data watch, one on a missing node is an
    /// `exists` that found nothing (the client's exist watch); child
    /// watches as they are. Exact between requests, when every watch that
    /// fired has been delivered (the conformance suite's reconnects).
    pub fn client_watches(&self, session: SessionId) -> [Vec<Name>; 3] {
        let mut lists: [Vec<Name>; 3] = Default::default();
        let w = &self.inner.watches;
        for (path, _) in w.data().filter(|(_, s)| s.contains(&session)) {
            let kind = if self.inner.tree.get(path).is_some() {
                0
            } else {
                1
            };
            lists[kind].push(path.clone());
        }
        for (path, _) in w.child().filter(|(_, s)| s.contains(&session)) {
            lists[2].push(path.clone());
        }
        lists
    }

    /// `SetWatches` after a reconnect, as `DataTree.setWatches` answers it:
    /// a watch whose node changed after `relative_zxid` (the last zxid the
    /// client saw) fires at once, the others are set again. Returns the
    /// events for `session`, in the real server's order (data, exist, child).
    pub fn set_watches(
        &mut self,
        session: SessionId,
        relative_zxid: i64,
        data: &[Name],
        exist: &[Name],
        child: &[Name],
    ) -> Vec<WatchedEvent> {
        let mut fired = Vec::new();
        if !self.inner.sessions.is_alive(session) {
            return fired;
        }
        let s = self.m();
        let event = |kind, path: &Name| WatchedEvent {
            kind,
            path: path.clone(),
        };
        for path in data {
            match s.tree.get(path) {
                None => fired.push(event(EventType::NodeDeleted, path)),
                Some(n) if n.stat.mzxid > relative_zxid => {
                    fired.push(event(EventType::NodeDataChanged, path))
                }
                Some(_) => s.watches.add_data(path, session),
            }
        }
        for path in exist {
            match s.tree.get(path) {
                Some(_) => fired.push(event(EventType::NodeCreated, path)),
                None => s.watches.add_data(path, session),
            }
        }
        for path in child {
            match s.tree.get(path) {
                None => fired.push(event(EventType::NodeDeleted, path)),
                Some(n) if n.stat.pzxid > relative_zxid => {
                    fired.push(event(EventType::NodeChildrenChanged, path))
                }
                Some(_) => s.watches.add_child(path, session),
            }
        }
        fired
    }

    /// The paths of every container the reaper would delete now, in path
    /// order (the real reaper takes them one transaction at a time).
    pub fn reapable_containers(&self) -> Vec<Name> {
        self.inner.tree.reapable_containers()
    }
}

/// Reads go straight to the shared state (they never copy it); only the
/// methods above that change the server copy it first.
impl std::ops::Deref for ZkServer {
    type Target = ServerState;
    fn deref(&self) -> &ServerState {
        &self.inner
    }
}

impl Service for ZkServer {
    type Request = Op;
    type Reply = Reply;
    type Event = WatchedEvent;

    fn open_session(&mut self) -> SessionId {
        self.m().open_session()
    }

    fn handle(&mut self, session: SessionId, op: &Op) -> Outcome<Reply, WatchedEvent> {
        if let Some(out) = self.inner.read_only(session, op) {
            return out;
        }
        self.m().handle(session, op)
    }

    fn expire(&mut self, session: SessionId) -> Vec<(SessionId, WatchedEvent)> {
        if !self.inner.sessions.is_alive(session) {
            return Vec::new();
        }
        self.m().expire(session)
    }

    fn is_alive(&self, session: SessionId) -> bool {
        self.inner.is_alive(session)
    }
}

/// The server's state: what [`ZkServer`] shares between copies. Its read
/// methods are the server's (through `Deref`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ServerState {
    tree: Tree,
    sessions: Sessions,
    watches: Watches,
    zxid: i64,
}

type Events = Vec<(SessionId, WatchedEvent)>;

impl ServerState {
    /// The reply to a request that changes nothing (a read that leaves no
    /// watch, or any request of an ended session), if `op` is one; `None`
    /// if handling it may write. Must answer as [`Service::handle`] does.
    fn read_only(&self, session: SessionId, op: &Op) -> Option<Outcome<Reply, WatchedEvent>> {
        let reply = if !self.sessions.is_alive(session) {
            Err(ZkError::SessionExpired)
        } else {
            match op {
                Op::Exists { path, watch: false } => {
                    Ok(OpResult::Exists(self.tree.get(path).map(|n| n.stat)))
                }
                Op::GetData { path, watch: false } => match self.tree.get(path) {
                    None => Err(ZkError::NoNode),
                    Some(n) => Ok(OpResult::GetData {
                        data: n.data.clone(),
                        stat: n.stat,
                    }),
                },
                Op::GetChildren { path, watch: false } => match self.tree.get(path) {
                    None => Err(ZkError::NoNode),
                    Some(n) => Ok(OpResult::GetChildren {
                        children: self.tree.children(path),
                        stat: n.stat,
                    }),
                },
                _ => return None,
            }
        };
        Some(Outcome {
            reply,
            events: Vec::new(),
        })
    }

    /// The node at `path`, if any.
    pub fn node(&self, path: &str) -> Option<&Node> {
        self.tree.get(path)
    }

    /// The sorted child names of `path`.
    pub fn children(&self, path: &str) -> Vec<Name> {
        self.tree.children(path)
    }

    /// Every node, in path order.
    pub fn nodes(&self) -> impl Iterator<Item = (&Name, &Node)> {
        self.tree.iter()
    }

    pub fn zxid(&self) -> i64 {
        self.zxid
    }

    pub fn sessions(&self) -> impl Iterator<Item = (SessionId, SessionState)> + '_ {
        self.sessions.iter()
    }

    /// Whether `session` holds a data (or exists) watch on `path`.
    pub fn has_data_watch(&self, path: &str, session: SessionId) -> bool {
        self.watches.has_data(path, session)
    }

    /// Whether `session` holds a child watch on `path`.
    pub fn has_child_watch(&self, path: &str, session: SessionId) -> bool {
        self.watches.has_child(path, session)
    }

    /// Whether `session` holds any watch (an event may still come to it).
    pub fn watches_any(&self, session: SessionId) -> bool {
        self.watches.any_of(session)
    }

    pub fn watch_count(&self) -> usize {
        self.watches.count()
    }

    /// Every watched path (data and child), once per table.
    pub fn watched_paths(&self) -> impl Iterator<Item = &Name> {
        self.watches.paths()
    }

    /// Creates a node directly, outside any session (test and scenario set-up:
    /// the lock's parent that a seed's `main` creates before its threads run).
    pub fn seed_node(&mut self, at: &str, mode: CreateMode) -> Result<(), ZkError> {
        let out = self.create(SessionId(0), at, Vec::new(), mode, &mut Vec::new())?;
        debug_assert_eq!(out, at);
        Ok(())
    }

    fn next_zxid(&mut self) -> i64 {
        self.zxid += 1;
        self.zxid
    }

    fn create(
        &mut self,
        session: SessionId,
        at: &str,
        data: Vec<u8>,
        mode: CreateMode,
        events: &mut Events,
    ) -> Result<Name, ZkError> {
        let zxid = self.next_zxid();
        // A sequential path may end in `/` (the suffix is then the whole
        // name), `/` itself included: `create("/", PERSISTENT_SEQUENTIAL)`
        // makes `/0000000000` on a real server.
        let parent = match path::parent(at) {
            _ if at == "/" && mode.is_sequential() => "/",
            Some(p) if path::is_valid(at) || (mode.is_sequential() && at.ends_with('/')) => p,
            _ => return Err(ZkError::BadArguments),
        };
        let parent_node = self.tree.get(parent).ok_or(ZkError::NoNode)?;
        let full = if mode.is_sequential() {
            path::sequential(at, parent_node.next_sequence())
        } else {
            Name::from(at)
        };
        if !path::is_valid(&full) {
            return Err(ZkError::BadArguments);
        }
        if self.tree.contains(&full) {
            return Err(ZkError::NodeExists);
        }
        if parent_node.is_ephemeral() {
            return Err(ZkError::NoChildrenForEphemerals);
        }
        self.tree.insert(&full, data, mode, session.0 as i64, zxid);
        self.watches.node_created(&full, parent, events);
        Ok(full)
    }

    fn delete(&mut self, at: &str, version: i32, events: &mut Events) -> Result<(), ZkError> {
        self.next_zxid();
        let parent = match path::parent(at) {
            Some(p) if path::is_valid(at) => p.to_string(),
            _ => return Err(ZkError::BadArguments),
        };
        let node = self.tree.get(at).ok_or(ZkError::NoNode)?;
        if version != -1 && node.stat.version != version {
            return Err(ZkError::BadVersion);
        }
        if node.stat.num_children > 0 {
            return Err(ZkError::NotEmpty);
        }
        self.remove(at, &parent, events);
        Ok(())
    }

    /// Removes a checked node under the current zxid and fires its watches.
    fn remove(&mut self, at: &str, parent: &str, events: &mut Events) {
        self.tree.remove(at, self.zxid);
        self.watches.node_deleted(at, parent, events);
    }

    fn set_data(
        &mut self,
        at: &str,
        data: Vec<u8>,
        version: i32,
        events: &mut Events,
    ) -> Result<OpResult, ZkError> {
        let zxid = self.next_zxid();
        let node = self.tree.get_mut(at).ok_or(ZkError::NoNode)?;
        if version != -1 && node.stat.version != version {
            return Err(ZkError::BadVersion);
        }
        node.stat.version += 1;
        node.stat.mzxid = zxid;
        node.stat.data_length = data.len() as i32;
        node.data = data;
        let stat = node.stat;
        self.watches.data_changed(at, events);
        Ok(OpResult::SetData(stat))
    }

    /// A multi: one transaction (one zxid, every op's changes stamped with
    /// it), all or nothing. Each op sees the tree as the ops before it left
    /// it; on the first failure the state goes back to what it was, the
    /// zxid still advances (the error transaction is logged, as a failed
    /// single write's is) and no watch fires. Every op's result, and the
    /// events of an applied multi, in op order.
    fn multi(&mut self, session: SessionId, ops: &[TxnOp]) -> (Vec<TxnResult>, Events) {
        let before = self.clone();
        let zxid = self.zxid;
        let mut events = Vec::new();
        let mut results = Vec::with_capacity(ops.len());
        let mut failed = None;
        for (i, op) in ops.iter().enumerate() {
            // Every op takes the multi's one zxid.
            self.zxid = zxid;
            let result = match op {
                TxnOp::Check { path, version } => self.check(path, *version),
                TxnOp::Create { path, data, mode } => self
                    .create(session, path, data.clone(), *mode, &mut events)
                    .map(TxnResult::Created),
                TxnOp::Delete { path, version } => self
                    .delete(path, *version, &mut events)
                    .map(|()| TxnResult::Deleted),
                TxnOp::SetData {
                    path,
                    data,
                    version,
                } => self
                    .set_data(path, data.clone(), *version, &mut events)
                    .map(|r| match r {
                        OpResult::SetData(stat) => TxnResult::SetData(stat),
                        _ => unreachable!("set_data answers SetData"),
                    }),
            };
            match result {
                Ok(r) => results.push(r),
                Err(e) => {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        self.zxid = zxid + 1;
        let Some((at, error)) = failed else {
            return (results, events);
        };
        *self = before;
        self.zxid = zxid + 1;
        let results = (0..ops.len())
            .map(|i| match i.cmp(&at) {
                std::cmp::Ordering::Less => TxnResult::RolledBack,
                std::cmp::Ordering::Equal => TxnResult::Failed(error),
                std::cmp::Ordering::Greater => TxnResult::Failed(ZkError::RuntimeInconsistency),
            })
            .collect();
        (results, Vec::new())
    }

    /// `Op.check(path, version)` inside a multi.
    fn check(&self, at: &str, version: i32) -> Result<TxnResult, ZkError> {
        if !path::is_valid(at) {
            return Err(ZkError::BadArguments);
        }
        let node = self.tree.get(at).ok_or(ZkError::NoNode)?;
        if version != -1 && node.stat.version != version {
            return Err(ZkError::BadVersion);
        }
        Ok(TxnResult::Checked)
    }

    /// What every op of a multi would answer now, without applying it: a
    /// failed multi's [`Reply`] is only the failing op's error, as the
    /// Java client throws it; the per-op answers (`getResults()`) are here.
    pub fn multi_results(&self, session: SessionId, ops: &[TxnOp]) -> Vec<TxnResult> {
        self.clone().multi(session, ops).0
    }

    /// Ends a session: one transaction deletes every ephemeral it owns.
    fn end_session(&mut self, session: SessionId, how: SessionState) -> Events {
        let mut events = Vec::new();
        self.next_zxid();
        self.sessions.end(session, how);
        self.watches.drop_session(session);
        for at in self.tree.ephemerals_of(session.0 as i64) {
            let parent = path::parent(&at).unwrap_or("/").to_string();
            self.remove(&at, &parent, &mut events);
        }
        events
    }

    /// The container reaper's pass: deletes every container that has had a
    /// child and has none left. On the real server this runs every
    /// `znode.container.checkIntervalMs` (a minute by default); drivers decide
    /// when.
    pub fn reap_containers(&mut self) -> Events {
        let mut events = Vec::new();
        for at in self.tree.reapable_containers() {
            self.next_zxid();
            let parent = path::parent(&at).unwrap_or("/").to_string();
            self.remove(&at, &parent, &mut events);
        }
        events
    }

    /// Reaps one container, if it is reapable now, in a transaction of its
    /// own: the real `ContainerManager` takes its candidates in the order of
    /// its container set, not in path order, so a driver that has to follow
    /// a real server (the conformance test) reaps one at a time.
    pub fn reap_container(&mut self, at: &str) -> Events {
        let mut events = Vec::new();
        if self.tree.reapable_containers().iter().any(|p| p == at) {
            self.next_zxid();
            let parent = path::parent(at).unwrap_or("/").to_string();
            self.remove(at, &parent, &mut events);
        }
        events
    }

    /// Whether a reaper pass would delete anything.
    pub fn has_reapable_containers(&self) -> bool {
        self.tree.has_reapable()
    }
}

impl Service for ServerState {
    type Request = Op;
    type Reply = Reply;
    type Event = WatchedEvent;

    fn open_session(&mut self) -> SessionId {
        self.next_zxid();
        self.sessions.open()
    }

    fn handle(&mut self, session: SessionId, op: &Op) -> Outcome<Reply, WatchedEvent> {
        let mut events = Vec::new();
        if !self.sessions.is_alive(session) {
            return Outcome {
                reply: Err(ZkError::SessionExpired),
                events,
            };
        }
        let reply = match op {
            Op::Create { path, data, mode } => self
                .create(session, path, data.clone(), *mode, &mut events)
                .map(OpResult::Created),
            Op::Delete { path, version } => self
                .delete(path, *version, &mut events)
                .map(|()| OpResult::Deleted),
            Op::SetData {
                path,
                data,
                version,
            } => self.set_data(path, data.clone(), *version, &mut events),
            Op::Exists { path, watch } => {
                if *watch {
                    self.watches.add_data(path, session);
                }
                Ok(OpResult::Exists(self.tree.get(path).map(|n| n.stat)))
            }
            Op::GetData { path, watch } => match self.tree.get(path) {
                None => Err(ZkError::NoNode),
                Some(n) => {
                    let out = OpResult::GetData {
                        data: n.data.clone(),
                        stat: n.stat,
                    };
                    if *watch {
                        self.watches.add_data(path, session);
                    }
                    Ok(out)
                }
            },
            Op::GetChildren { path, watch } => match self.tree.get(path) {
                None => Err(ZkError::NoNode),
                Some(n) => {
                    let stat = n.stat;
                    if *watch {
                        self.watches.add_child(path, session);
                    }
                    Ok(OpResult::GetChildren {
                        children: self.tree.children(path),
                        stat,
                    })
                }
            },
            Op::CloseSession => {
                events = self.end_session(session, SessionState::Closed);
                Ok(OpResult::Closed)
            }
            Op::Multi(ops) => {
                let (results, fired) = self.multi(session, ops);
                events = fired;
                match results.iter().find_map(|r| match r {
                    TxnResult::Failed(e) => Some(*e),
                    _ => None,
                }) {
                    Some(e) => Err(e),
                    None => Ok(OpResult::Multi(results)),
                }
            }
            Op::RemoveWatches { path, kind } => {
                if self.watches.remove(path, session, *kind) {
                    Ok(OpResult::WatchesRemoved)
                } else {
                    Err(ZkError::NoWatcher)
                }
            }
            // FinalRequestProcessor's checkWatches: the watch stays.
            Op::CheckWatches { path, kind } => {
                if self.watches.contains(path, session, *kind) {
                    Ok(OpResult::WatchesChecked)
                } else {
                    Err(ZkError::NoWatcher)
                }
            }
        };
        Outcome { reply, events }
    }

    fn expire(&mut self, session: SessionId) -> Vec<(SessionId, WatchedEvent)> {
        if !self.sessions.is_alive(session) {
            return Vec::new();
        }
        self.end_session(session, SessionState::Expired)
    }

    fn is_alive(&self, session: SessionId) -> bool {
        self.sessions.is_alive(session)
    }
}

/// What the checker's symmetry reduction reads: who owns and who watches
/// what, to tell sessions apart by their facts rather than their ids.
impl ServerState {
    /// The data (and exists) watches: each path with the sessions holding
    /// one, in path order.
    pub fn data_watches(&self) -> impl Iterator<Item = (&Name, &BTreeSet<SessionId>)> + '_ {
        self.watches.data()
    }

    /// The child watches, as [`data_watches`](Self::data_watches).
    pub fn child_watches(&self) -> impl Iterator<Item = (&Name, &BTreeSet<SessionId>)> + '_ {
        self.watches.child()
    }
}
