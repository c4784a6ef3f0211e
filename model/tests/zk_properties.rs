//! Properties of the ZooKeeper model over random operation sequences.
//!
//! A script opens 2–3 sessions and runs up to 40 actions: every `Op`
//! variant (all create modes, deletes and setData with and without a
//! version, reads with and without watches, close), session expiry, a
//! container-reaper pass, and opening another session. Paths come from a
//! small fixed set (`/a`, `/a/b`, `/lock`, `/lock/n-`, …), from the nodes
//! that exist at that moment (so sequential nodes get deleted and watched
//! too), or are a `n-` child of an existing node (so deeper trees and
//! children of ephemerals are tried).
//!
//! Each property replays the script step by step and checks one rule on
//! every step, against the state before and after it. Failures persist in
//! `tests/zk_properties.proptest-regressions`.

use locksmith_model::zk::{
    path, CreateMode, EventType, Name, Node, Op, OpResult, Reply, Service, SessionId, WatchedEvent,
    ZkError, ZkServer,
};
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};
use std::collections::{BTreeMap, BTreeSet};

// ---------------------------------------------------------------------------
// Scripts
// ---------------------------------------------------------------------------

const PATHS: &[&str] = &["/a", "/a/b", "/lock", "/lock/n-", "/lock/x", "/c"];

/// Where a request goes, resolved against the tree when it runs.
#[derive(Clone, Debug)]
enum Target {
    /// One of `PATHS`.
    Fixed(usize),
    /// The i-th existing node (modulo their number, `/` included).
    Existing(usize),
    /// `<i-th existing node>/n-`.
    ChildOf(usize),
}

#[derive(Clone, Debug)]
enum Action {
    /// The request of the i-th live session (modulo their number), or with
    /// `any` of the i-th session opened, dead or alive.
    Request {
        i: usize,
        any: bool,
        req: Req,
    },
    Expire(usize),
    Reap,
    Open,
}

#[derive(Clone, Debug)]
enum Req {
    Create(Target, CreateMode, Vec<u8>),
    Delete(Target, i32),
    SetData(Target, Vec<u8>, i32),
    Exists(Target, bool),
    GetData(Target, bool),
    GetChildren(Target, bool),
    Close,
}

#[derive(Clone, Debug)]
struct Script {
    /// `/lock`, made before the sessions open (as a seed's `main` does), if
    /// at all.
    lock: Option<CreateMode>,
    sessions: usize,
    actions: Vec<Action>,
}

/// Where a create goes: mostly a fixed path or a child of an existing node.
fn create_target() -> impl Strategy<Value = Target> {
    prop_oneof![
        3 => (0..PATHS.len()).prop_map(Target::Fixed),
        2 => (0..16usize).prop_map(Target::ChildOf),
        1 => (0..16usize).prop_map(Target::Existing),
    ]
}

/// Where any other request goes: mostly an existing node.
fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        3 => (0..16usize).prop_map(Target::Existing),
        2 => (0..PATHS.len()).prop_map(Target::Fixed),
    ]
}

fn mode() -> impl Strategy<Value = CreateMode> {
    prop::sample::select(&CreateMode::ALL[..])
}

fn version() -> impl Strategy<Value = i32> {
    prop_oneof![2 => Just(-1), 1 => 0..3i32]
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..3)
}

fn watch() -> impl Strategy<Value = bool> {
    prop::bool::weighted(0.75)
}

fn req() -> impl Strategy<Value = Req> {
    prop_oneof![
        10 => (create_target(), mode(), data()).prop_map(|(t, m, d)| Req::Create(t, m, d)),
        5 => (target(), version()).prop_map(|(t, v)| Req::Delete(t, v)),
        3 => (target(), data(), version()).prop_map(|(t, d, v)| Req::SetData(t, d, v)),
        4 => (target(), watch()).prop_map(|(t, w)| Req::Exists(t, w)),
        3 => (target(), watch()).prop_map(|(t, w)| Req::GetData(t, w)),
        5 => (target(), watch()).prop_map(|(t, w)| Req::GetChildren(t, w)),
        1 => Just(Req::Close),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        30 => (0..4usize, prop::bool::weighted(0.1), req())
            .prop_map(|(i, any, req)| Action::Request { i, any, req }),
        1 => (0..4usize).prop_map(Action::Expire),
        3 => Just(Action::Reap),
        2 => Just(Action::Open),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    let lock = prop_oneof![
        Just(None),
        Just(Some(CreateMode::Persistent)),
        Just(Some(CreateMode::Container)),
    ];
    (
        lock,
        2..=3usize,
        proptest::collection::vec(action(), 0..=40),
    )
        .prop_map(|(lock, sessions, actions)| Script {
            lock,
            sessions,
            actions,
        })
}

// ---------------------------------------------------------------------------
// Replaying a script
// ---------------------------------------------------------------------------

/// One executed action, with the server before and after it.
struct Step<'a> {
    /// The session that sent the request, or that was expired.
    session: Option<SessionId>,
    /// The request as sent, if the action was one.
    op: Option<&'a Op>,
    reply: Option<&'a Reply>,
    events: &'a [(SessionId, WatchedEvent)],
    before: &'a ZkServer,
    after: &'a ZkServer,
    /// A session that was alive before this step and is not after it.
    ended: Option<SessionId>,
    /// Whether the step was a transaction (takes a zxid): a write request
    /// of a live session (failed or not), expiry of a live session, a
    /// reaper pass that deletes something, opening a session.
    is_txn: bool,
    is_reap: bool,
}

fn resolve(zk: &ZkServer, t: &Target) -> Name {
    let existing = || {
        let all: Vec<&Name> = zk.nodes().map(|(p, _)| p).collect();
        move |i: usize| all[i % all.len()].clone()
    };
    match t {
        Target::Fixed(i) => PATHS[*i].into(),
        Target::Existing(i) => existing()(*i),
        Target::ChildOf(i) => path::join(&existing()(*i), "n-"),
    }
}

fn to_op(zk: &ZkServer, r: &Req) -> Op {
    match r {
        Req::Create(t, mode, data) => Op::Create {
            path: resolve(zk, t),
            data: data.clone(),
            mode: *mode,
        },
        Req::Delete(t, version) => Op::Delete {
            path: resolve(zk, t),
            version: *version,
        },
        Req::SetData(t, data, version) => Op::SetData {
            path: resolve(zk, t),
            data: data.clone(),
            version: *version,
        },
        Req::Exists(t, watch) => Op::Exists {
            path: resolve(zk, t),
            watch: *watch,
        },
        Req::GetData(t, watch) => Op::GetData {
            path: resolve(zk, t),
            watch: *watch,
        },
        Req::GetChildren(t, watch) => Op::GetChildren {
            path: resolve(zk, t),
            watch: *watch,
        },
        Req::Close => Op::CloseSession,
    }
}

fn is_write(op: &Op) -> bool {
    matches!(
        op,
        Op::Create { .. } | Op::Delete { .. } | Op::SetData { .. } | Op::CloseSession
    )
}

/// Replays `script`, calling `check` after every action.
fn run(
    script: &Script,
    mut check: impl FnMut(&Step) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut zk = ZkServer::new();
    if let Some(mode) = script.lock {
        let before = zk.clone();
        zk.seed_node("/lock", mode).unwrap();
        check(&Step {
            session: None,
            op: None,
            reply: None,
            events: &[],
            before: &before,
            after: &zk,
            ended: None,
            is_txn: true,
            is_reap: false,
        })?;
    }
    let mut sessions: Vec<SessionId> = (0..script.sessions).map(|_| zk.open_session()).collect();
    for action in &script.actions {
        let before = zk.clone();
        let pick = |i: usize| sessions[i % sessions.len()];
        let (session, op, reply, events, is_txn, is_reap) = match action {
            Action::Request { i, any, req } => {
                let alive: Vec<SessionId> = sessions
                    .iter()
                    .copied()
                    .filter(|s| zk.is_alive(*s))
                    .collect();
                let s = if *any || alive.is_empty() {
                    pick(*i)
                } else {
                    alive[i % alive.len()]
                };
                let o = to_op(&zk, req);
                let is_txn = zk.is_alive(s) && is_write(&o);
                let out = zk.handle(s, &o);
                (Some(s), Some(o), Some(out.reply), out.events, is_txn, false)
            }
            Action::Expire(i) => {
                let s = pick(*i);
                let is_txn = zk.is_alive(s);
                (Some(s), None, None, zk.expire(s), is_txn, false)
            }
            Action::Reap => {
                let is_txn = zk.has_reapable_containers();
                (None, None, None, zk.reap_containers(), is_txn, true)
            }
            Action::Open => {
                sessions.push(zk.open_session());
                (None, None, None, Vec::new(), true, false)
            }
        };
        let ended = session.filter(|s| before.is_alive(*s) && !zk.is_alive(*s));
        check(&Step {
            session,
            op: op.as_ref(),
            reply: reply.as_ref(),
            events: &events,
            before: &before,
            after: &zk,
            ended,
            is_txn,
            is_reap,
        })?;
    }
    Ok(())
}

/// A node's identity: a path re-created later is another node.
type Incarnation = (Name, i64);

fn incarnations(zk: &ZkServer) -> BTreeMap<Incarnation, Node> {
    zk.nodes()
        .map(|(p, n)| ((p.clone(), n.stat.czxid), n.clone()))
        .collect()
}

fn parent_of(p: &str) -> Option<&str> {
    path::parent(p)
}

/// The sequence number at the end of a sequential node's name.
fn suffix(created: &str) -> i32 {
    let digits = &created[created.len() - 10..];
    assert!(digits.bytes().all(|b| b.is_ascii_digit()), "{created}");
    digits.parse().unwrap()
}

/// Per node incarnation: how many children were ever created under it, and
/// how many removed. Kept by diffing the tree across every step.
#[derive(Default)]
struct ChildChanges {
    created: BTreeMap<Incarnation, i32>,
    removed: BTreeMap<Incarnation, i32>,
}

impl ChildChanges {
    /// Counts the children added and removed in `step`; returns, per parent
    /// incarnation, (added, removed) in this step.
    fn update(&mut self, step: &Step) -> BTreeMap<Incarnation, (i32, i32)> {
        let before = incarnations(step.before);
        let after = incarnations(step.after);
        let key_of = |tree: &BTreeMap<Incarnation, Node>, child: &str| -> Option<Incarnation> {
            let parent = parent_of(child)?;
            tree.keys().find(|(p, _)| p == parent).cloned()
        };
        let mut delta: BTreeMap<Incarnation, (i32, i32)> = BTreeMap::new();
        for (p, _) in after.keys().filter(|k| !before.contains_key(*k)) {
            if let Some(k) = key_of(&after, p) {
                delta.entry(k).or_default().0 += 1;
            }
        }
        for (p, _) in before.keys().filter(|k| !after.contains_key(*k)) {
            if let Some(k) = key_of(&before, p) {
                delta.entry(k).or_default().1 += 1;
            }
        }
        for (k, (added, removed)) in &delta {
            *self.created.entry(k.clone()).or_default() += added;
            *self.removed.entry(k.clone()).or_default() += removed;
        }
        delta
    }
}

// ---------------------------------------------------------------------------
// A reference table of watch registrations
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Data,
    Child,
}

/// Every (session, path, kind) watch a request registered and that has
/// neither fired nor been dropped with its session.
#[derive(Default)]
struct Registrations {
    live: BTreeSet<(SessionId, Name, Kind)>,
}

impl Registrations {
    /// Consumes one registration per event; fails if an event has none to
    /// consume (a watch fired twice, or fired that nobody set). Then adds
    /// the registration this step's read made, if any.
    fn step(&mut self, st: &Step) -> Result<(), TestCaseError> {
        if let Some(s) = st.ended {
            self.live.retain(|(x, _, _)| *x != s);
        }
        for (s, e) in st.events {
            let p = e.path.clone();
            let fired = match e.kind {
                EventType::NodeCreated | EventType::NodeDataChanged => {
                    self.live.remove(&(*s, p.clone(), Kind::Data))
                }
                EventType::NodeChildrenChanged => self.live.remove(&(*s, p.clone(), Kind::Child)),
                EventType::NodeDeleted => {
                    let d = self.live.remove(&(*s, p.clone(), Kind::Data));
                    let c = self.live.remove(&(*s, p.clone(), Kind::Child));
                    d || c
                }
            };
            prop_assert!(
                fired,
                "{s} got {e} without a live registration (events {:?})",
                st.events
            );
        }
        if let (Some(s), Some(op), Some(Ok(_))) = (st.session, st.op, st.reply) {
            match op {
                Op::Exists { path, watch: true } | Op::GetData { path, watch: true } => {
                    self.live.insert((s, path.clone(), Kind::Data));
                }
                Op::GetChildren { path, watch: true } => {
                    self.live.insert((s, path.clone(), Kind::Child));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// proptest's default number of cases (256; `PROPTEST_CASES` overrides
/// it). Failures go to `tests/zk_properties.proptest-regressions`, named
/// explicitly: the default, `SourceParallel`, looks for a `lib.rs` beside an
/// integration test, warns, and falls back to that same file.
fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(proptest_config())]

    /// Under one parent (one incarnation of it), each sequential create gets
    /// a larger suffix than the one before.
    #[test]
    fn sequence_suffixes_strictly_increase_per_parent(script in script()) {
        let mut last: BTreeMap<Incarnation, i32> = BTreeMap::new();
        run(&script, |st| {
            if let (Some(Op::Create { mode, .. }), Some(Ok(OpResult::Created(p)))) = (st.op, st.reply) {
                if mode.is_sequential() {
                    let parent = parent_of(p).unwrap();
                    let key = (Name::from(parent), st.before.node(parent).unwrap().stat.czxid);
                    let n = suffix(p);
                    if let Some(prev) = last.get(&key) {
                        prop_assert!(n > *prev, "{p} after suffix {prev}");
                    }
                    last.insert(key, n);
                }
            }
            Ok(())
        })?;
    }

    /// The suffix is the number of children ever created under the parent,
    /// deletes not counted (ZooKeeper's persisted cversion).
    #[test]
    fn sequence_suffix_is_the_number_of_children_created_before(script in script()) {
        let mut changes = ChildChanges::default();
        run(&script, |st| {
            let created_before = changes.created.clone();
            changes.update(st);
            if let (Some(Op::Create { path: asked, mode, .. }), Some(Ok(OpResult::Created(p)))) = (st.op, st.reply) {
                let parent = parent_of(p).unwrap();
                let key = (Name::from(parent), st.before.node(parent).unwrap().stat.czxid);
                if mode.is_sequential() {
                    prop_assert!(p.starts_with(asked.as_str()) && p.len() == asked.len() + 10);
                    prop_assert_eq!(suffix(p), created_before.get(&key).copied().unwrap_or(0), "{}", p);
                } else {
                    prop_assert_eq!(p, asked);
                }
            }
            for (p, n) in st.after.nodes() {
                let key = (p.clone(), n.stat.czxid);
                prop_assert_eq!(n.next_sequence(), changes.created.get(&key).copied().unwrap_or(0), "{}", p);
            }
            Ok(())
        })?;
    }

    #[test]
    fn no_ephemeral_outlives_its_session(script in script()) {
        run(&script, |st| {
            for (p, n) in st.after.nodes() {
                if n.is_ephemeral() {
                    let owner = SessionId(u32::try_from(n.stat.ephemeral_owner).unwrap());
                    prop_assert!(st.after.is_alive(owner), "{} outlived {}", p, owner);
                } else {
                    prop_assert_eq!(n.stat.ephemeral_owner, 0, "{}", p);
                }
            }
            if let Some(s) = st.ended {
                let owner = i64::from(s.0);
                prop_assert!(st.after.nodes().all(|(_, n)| n.stat.ephemeral_owner != owner));
            }
            Ok(())
        })?;
    }

    #[test]
    fn ephemerals_never_have_children(script in script()) {
        run(&script, |st| {
            for (p, _) in st.after.nodes() {
                if let Some(parent) = parent_of(p) {
                    prop_assert!(!st.after.node(parent).unwrap().is_ephemeral(), "{} under an ephemeral", p);
                }
            }
            Ok(())
        })?;
    }

    /// Every event consumes a registration that a successful watching read
    /// made and that has not fired yet; none reaches a session that ended.
    #[test]
    fn a_watch_fires_at_most_once_per_registration(script in script()) {
        let mut regs = Registrations::default();
        run(&script, |st| {
            for (s, _) in st.events {
                prop_assert!(st.after.is_alive(*s), "event for dead session {}", s);
            }
            regs.step(st)
        })?;
    }

    /// The converse: a registration that did not fire in a step watched a
    /// node the step left alone; and the server's watch table holds exactly
    /// the live registrations.
    #[test]
    fn a_watch_fires_when_its_node_changes(script in script()) {
        let mut regs = Registrations::default();
        run(&script, |st| {
            let earlier = regs.live.clone();
            regs.step(st)?;
            for (s, p, kind) in earlier.intersection(&regs.live) {
                let view = |zk: &ZkServer| zk.node(p).map(|n| match kind {
                    Kind::Data => (n.stat.czxid, n.stat.mzxid),
                    Kind::Child => (n.stat.czxid, n.stat.pzxid),
                });
                prop_assert_eq!(view(st.before), view(st.after), "{}'s {:?} watch on {} did not fire", s, kind, p);
            }
            prop_assert_eq!(st.after.watch_count(), regs.live.len());
            for (s, p, kind) in &regs.live {
                let held = match kind {
                    Kind::Data => st.after.has_data_watch(p, *s),
                    Kind::Child => st.after.has_child_watch(p, *s),
                };
                prop_assert!(held, "{} lost its {:?} watch on {}", s, kind, p);
            }
            Ok(())
        })?;
    }

    #[test]
    fn every_nodes_parent_exists(script in script()) {
        run(&script, |st| {
            prop_assert!(st.after.node("/").is_some());
            for (p, _) in st.after.nodes() {
                prop_assert!(path::is_valid(p), "{}", p);
                if let Some(parent) = parent_of(p) {
                    prop_assert!(st.after.node(parent).is_some(), "{} has no parent", p);
                }
            }
            Ok(())
        })?;
    }

    #[test]
    fn num_children_equals_the_real_child_count(script in script()) {
        run(&script, |st| {
            let mut count: BTreeMap<&str, i32> = BTreeMap::new();
            for (p, _) in st.after.nodes() {
                if let Some(parent) = parent_of(p) {
                    *count.entry(parent).or_default() += 1;
                }
            }
            for (p, n) in st.after.nodes() {
                let real = count.get(p.as_str()).copied().unwrap_or(0);
                prop_assert_eq!(n.stat.num_children, real, "{}", p);
                prop_assert_eq!(st.after.children(p).len(), usize::try_from(real).unwrap(), "{}", p);
            }
            Ok(())
        })?;
    }

    #[test]
    fn cversion_never_decreases(script in script()) {
        run(&script, |st| {
            let before = incarnations(st.before);
            for (key, n) in incarnations(st.after) {
                if let Some(old) = before.get(&key) {
                    prop_assert!(n.stat.cversion >= old.stat.cversion, "{:?}", key);
                }
            }
            Ok(())
        })?;
    }

    /// cversion counts every child change, creates and deletes, and pzxid
    /// moves exactly when cversion does.
    #[test]
    fn cversion_counts_child_creates_and_deletes(script in script()) {
        let mut changes = ChildChanges::default();
        run(&script, |st| {
            let delta = changes.update(st);
            let before = incarnations(st.before);
            for (key, n) in incarnations(st.after) {
                let total = changes.created.get(&key).copied().unwrap_or(0)
                    + changes.removed.get(&key).copied().unwrap_or(0);
                prop_assert_eq!(n.stat.cversion, total, "{:?}", key);
                if let Some(old) = before.get(&key) {
                    let moved = delta.get(&key).is_some_and(|(a, r)| a + r > 0);
                    prop_assert_eq!(n.stat.pzxid != old.stat.pzxid, moved, "{:?}", key);
                }
            }
            Ok(())
        })?;
    }

    /// Every transaction takes a new zxid, all of its changes carry it, and
    /// a read or a dead session's request changes nothing.
    #[test]
    fn zxid_strictly_increases_across_writes(script in script()) {
        run(&script, |st| {
            let (z0, z1) = (st.before.zxid(), st.after.zxid());
            let before = incarnations(st.before);
            let after = incarnations(st.after);
            if !st.is_txn {
                prop_assert_eq!(z1, z0);
                prop_assert_eq!(&before, &after);
                return Ok(());
            }
            prop_assert!(z1 > z0);
            if st.is_reap {
                let reaped = before.keys().filter(|k| !after.contains_key(*k)).count();
                prop_assert_eq!(z1 - z0, i64::try_from(reaped).unwrap());
            } else {
                prop_assert_eq!(z1, z0 + 1, "one transaction, one zxid");
            }
            for (key, n) in &after {
                let s = n.stat;
                match before.get(key) {
                    None => {
                        prop_assert!(s.czxid > z0 && s.czxid <= z1, "{:?}", key);
                        prop_assert!(s.mzxid == s.czxid && s.pzxid == s.czxid, "{:?}", key);
                    }
                    Some(old) => {
                        for (was, now) in [(old.stat.mzxid, s.mzxid), (old.stat.pzxid, s.pzxid)] {
                            prop_assert!(now == was || (now > z0 && now <= z1), "{:?}", key);
                            if now != was && !st.is_reap {
                                prop_assert_eq!(now, z1, "{:?}", key);
                            }
                        }
                        prop_assert_eq!(old.stat.czxid, s.czxid);
                    }
                }
            }
            Ok(())
        })?;
    }

    /// The reaper deletes exactly the containers that have had a child and
    /// have none (`ContainerManager.getCandidates`), nothing else, and says
    /// beforehand whether it would.
    #[test]
    fn reaping_deletes_exactly_the_used_empty_containers(script in script()) {
        run(&script, |st| {
            let reapable = |zk: &ZkServer| -> BTreeSet<Name> {
                zk.nodes()
                    .filter(|(_, n)| {
                        n.mode == CreateMode::Container && n.stat.cversion > 0 && n.stat.num_children == 0
                    })
                    .map(|(p, _)| p.clone())
                    .collect()
            };
            prop_assert_eq!(st.after.has_reapable_containers(), !reapable(st.after).is_empty());
            if st.is_reap {
                let before: BTreeSet<Name> = st.before.nodes().map(|(p, _)| p.clone()).collect();
                let after: BTreeSet<Name> = st.after.nodes().map(|(p, _)| p.clone()).collect();
                let gone: BTreeSet<Name> = before.difference(&after).cloned().collect();
                prop_assert!(after.is_subset(&before));
                prop_assert_eq!(gone, reapable(st.before));
            }
            Ok(())
        })?;
    }

    /// Once a session has ended, everything it asks gets SessionExpired and
    /// changes nothing.
    #[test]
    fn a_dead_sessions_requests_get_session_expired(script in script()) {
        run(&script, |st| {
            if let (Some(s), Some(reply)) = (st.session, st.reply) {
                if !st.before.is_alive(s) {
                    prop_assert_eq!(reply, &Err(ZkError::SessionExpired));
                    prop_assert!(st.events.is_empty());
                    prop_assert_eq!(st.before, st.after);
                }
            }
            Ok(())
        })?;
    }

    /// Replies agree with ZooKeeper's checks, in ZooKeeper's order, applied
    /// to the tree before the request.
    #[test]
    fn replies_agree_with_zookeepers_checks(script in script()) {
        run(&script, |st| {
            let (Some(s), Some(op), Some(reply)) = (st.session, st.op, st.reply) else {
                return Ok(());
            };
            if !st.before.is_alive(s) {
                return Ok(());
            }
            let zk = st.before;
            let version_ok = |n: &Node, v: i32| v == -1 || v == n.stat.version;
            match op {
                Op::Create { path: p, mode, data } => {
                    let parent = if p == "/" && mode.is_sequential() { Some("/") } else { parent_of(p) };
                    let expected_err = match parent.map(|q| zk.node(q)) {
                        None => Some(ZkError::BadArguments),
                        Some(None) => Some(ZkError::NoNode),
                        Some(Some(_)) if !mode.is_sequential() && zk.node(p).is_some() => Some(ZkError::NodeExists),
                        Some(Some(q)) if q.is_ephemeral() => Some(ZkError::NoChildrenForEphemerals),
                        Some(Some(_)) => None,
                    };
                    match (expected_err, reply) {
                        (Some(e), _) => prop_assert_eq!(reply, &Err(e)),
                        (None, Ok(OpResult::Created(full))) => {
                            let n = st.after.node(full).unwrap();
                            prop_assert!(zk.node(full).is_none());
                            prop_assert_eq!(&n.data, data);
                            prop_assert_eq!(n.mode, *mode);
                            prop_assert_eq!(n.stat.data_length, i32::try_from(data.len()).unwrap());
                            let owner = if mode.is_ephemeral() { i64::from(s.0) } else { 0 };
                            prop_assert_eq!(n.stat.ephemeral_owner, owner);
                        }
                        (None, Err(ZkError::NodeExists)) => {
                            prop_assert!(mode.is_sequential(), "{} NodeExists", op);
                        }
                        (None, other) => prop_assert!(false, "{} replied {:?}", op, other),
                    }
                }
                Op::Delete { path: p, version } => {
                    let expected = match zk.node(p) {
                        _ if p == "/" => Err(ZkError::BadArguments),
                        None => Err(ZkError::NoNode),
                        Some(n) if !version_ok(n, *version) => Err(ZkError::BadVersion),
                        Some(n) if n.stat.num_children > 0 => Err(ZkError::NotEmpty),
                        Some(_) => Ok(OpResult::Deleted),
                    };
                    prop_assert_eq!(reply, &expected);
                    prop_assert_eq!(st.after.node(p).is_some(), zk.node(p).is_some() && expected.is_err());
                }
                Op::SetData { path: p, data, version } => {
                    let expected = match zk.node(p) {
                        None => Err(ZkError::NoNode),
                        Some(n) if !version_ok(n, *version) => Err(ZkError::BadVersion),
                        Some(n) => {
                            let now = st.after.node(p).unwrap();
                            prop_assert_eq!(&now.data, data);
                            prop_assert_eq!(now.stat.version, n.stat.version + 1);
                            Ok(OpResult::SetData(now.stat))
                        }
                    };
                    prop_assert_eq!(reply, &expected);
                }
                Op::Exists { path: p, .. } => {
                    prop_assert_eq!(reply, &Ok(OpResult::Exists(zk.node(p).map(|n| n.stat))));
                }
                Op::GetData { path: p, .. } => {
                    let expected = match zk.node(p) {
                        None => Err(ZkError::NoNode),
                        Some(n) => Ok(OpResult::GetData { data: n.data.clone(), stat: n.stat }),
                    };
                    prop_assert_eq!(reply, &expected);
                }
                Op::GetChildren { path: p, .. } => {
                    let expected = match zk.node(p) {
                        None => Err(ZkError::NoNode),
                        Some(n) => {
                            let mut children: Vec<Name> = zk
                                .nodes()
                                .filter(|(c, _)| parent_of(c) == Some(p.as_str()))
                                .map(|(c, _)| Name::from(path::name(c)))
                                .collect();
                            children.sort();
                            Ok(OpResult::GetChildren { children, stat: n.stat })
                        }
                    };
                    prop_assert_eq!(reply, &expected);
                }
                Op::CloseSession => prop_assert_eq!(reply, &Ok(OpResult::Closed)),
                // Not drawn by `script()`: held by model/tests/zk_rules.rs
                // and the conformance test against a real server.
                Op::Multi(_) | Op::RemoveWatches { .. } | Op::CheckWatches { .. } => {}
            }
            Ok(())
        })?;
    }
}

/// The generator reaches the cases the properties are about; without this
/// the properties above could pass vacuously after a change to it.
#[test]
fn scripts_reach_the_interesting_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut runner = TestRunner::deterministic();
    for _ in 0..256 {
        let script = script().new_tree(&mut runner).unwrap().current();
        run(&script, |st| {
            let mut saw = |what: &'static str| *seen.entry(what).or_default() += 1;
            match (st.op, st.reply) {
                (Some(Op::Create { mode, .. }), Some(Ok(OpResult::Created(p))))
                    if mode.is_sequential() =>
                {
                    let parent = st.before.node(parent_of(p).unwrap()).unwrap();
                    if parent.stat.cversion > suffix(p) {
                        saw("sequential create after a delete");
                    }
                }
                (_, Some(Err(ZkError::NoChildrenForEphemerals))) => saw("NoChildrenForEphemerals"),
                (_, Some(Err(ZkError::BadVersion))) => saw("BadVersion"),
                (_, Some(Err(ZkError::NotEmpty))) => saw("NotEmpty"),
                (_, Some(Err(ZkError::NodeExists))) => saw("NodeExists"),
                (_, Some(Err(ZkError::NoNode))) => saw("NoNode"),
                (_, Some(Err(ZkError::SessionExpired))) => saw("SessionExpired"),
                (Some(Op::Delete { version, .. }), Some(Ok(_))) if *version != -1 => {
                    saw("delete with a matching version")
                }
                _ => {}
            }
            for (_, e) in st.events {
                saw(match e.kind {
                    EventType::NodeCreated => "NodeCreated",
                    EventType::NodeDeleted => "NodeDeleted",
                    EventType::NodeDataChanged => "NodeDataChanged",
                    EventType::NodeChildrenChanged => "NodeChildrenChanged",
                });
            }
            let gone = st.before.nodes().count() > st.after.nodes().count();
            if st.ended.is_some() && gone {
                saw("session end deleting ephemerals");
            }
            if st.ended.is_some() && gone && !st.events.is_empty() {
                saw("session end firing watches");
            }
            if st.is_reap && gone {
                saw("container reaped");
            }
            Ok(())
        })
        .unwrap();
    }
    let wanted = [
        "sequential create after a delete",
        "NoChildrenForEphemerals",
        "BadVersion",
        "NotEmpty",
        "NodeExists",
        "NoNode",
        "SessionExpired",
        "delete with a matching version",
        "NodeCreated",
        "NodeDeleted",
        "NodeDataChanged",
        "NodeChildrenChanged",
        "session end deleting ephemerals",
        "session end firing watches",
        "container reaped",
    ];
    for w in wanted {
        assert!(
            seen.get(w).copied().unwrap_or(0) > 0,
            "never saw {w}: {seen:?}"
        );
    }
    eprintln!("{seen:#?}");
}
