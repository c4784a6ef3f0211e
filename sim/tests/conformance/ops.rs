//! The generated operation sequences: what proptest draws and shrinks.
//!
//! A sequence names nodes relative to its own fresh root (`/t<run>_<n>`), so
//! every case starts from the same empty subtree on the real server and in
//! the model. A target is either a fixed name from a small set (so that
//! requests meet missing nodes, existing ones and each other) or "the k-th
//! node that exists now" (so that most requests hit something: children of
//! sequential nodes, deep paths, nodes about to be reaped).

use locksmith_model::zk::{CreateMode, Op, TxnOp, WatcherType};
use proptest::prelude::*;
use std::fmt;

/// Fixed node names under the case's root; `""` is the root itself. Three
/// levels, so containers can hold containers and ephemerals can be asked
/// for children.
pub const NAMES: &[&str] = &["", "a", "b", "a/x", "a/y", "b/x", "a/x/z", "x"];

/// Names of created children (under any parent).
/// `a-0000000001` is also what a sequential create under the same parent
/// may pick: the sequential create then fails with `NodeExists`.
pub const CHILD_NAMES: &[&str] = &["a", "b", "x", "a-0000000001"];

/// Prefixes of sequential children, to which the server appends `%010d`.
/// The empty one makes the path end in `/` (the name is the bare suffix).
/// All of them share the parent's counter.
pub const SEQ_PREFIXES: &[&str] = &["a-", "b-", ""];

/// Where an operation points.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `NAMES[i]` under the root, whether it exists or not.
    Name(usize),
    /// The `k`-th (mod their number) node that exists under the root now,
    /// the root included, in path order.
    Live(usize),
}

#[derive(Clone, PartialEq, Eq)]
pub enum Action {
    /// Creates `CHILD_NAMES[name]` (with a sequential mode:
    /// `SEQ_PREFIXES[name]` plus the suffix) under `parent`.
    Create {
        parent: Target,
        name: usize,
        mode: CreateMode,
        data: Vec<u8>,
    },
    Delete {
        at: Target,
        version: i32,
    },
    SetData {
        at: Target,
        data: Vec<u8>,
        version: i32,
    },
    Exists {
        at: Target,
        watch: bool,
    },
    GetData {
        at: Target,
        watch: bool,
    },
    GetChildren {
        at: Target,
        watch: bool,
    },
    /// `multi` of these ops, resolved against the nodes live before it.
    Multi(Vec<TxnAction>),
    /// `removeWatches(at, kind)`.
    RemoveWatches {
        at: Target,
        kind: WatcherType,
    },
    Close,
    /// Not generated (each costs a session timeout): the client goes away
    /// without closing, and the server expires its session. Only for
    /// sessions opened detached (see conformance/fixed.rs).
    Expire,
    /// The session's connection drops (a proxy cuts it) and stays down
    /// while the other sessions go on; before the session's next request
    /// its library reconnects and sends its watches back (`SetWatches`).
    Cut,
}

/// One op of a multi.
#[derive(Clone, PartialEq, Eq)]
pub enum TxnAction {
    Check {
        at: Target,
        version: i32,
    },
    Create {
        parent: Target,
        name: usize,
        mode: CreateMode,
        data: Vec<u8>,
    },
    Delete {
        at: Target,
        version: i32,
    },
    SetData {
        at: Target,
        data: Vec<u8>,
        version: i32,
    },
}

impl TxnAction {
    fn to_op(&self, root: &str, live: &[String]) -> TxnOp {
        match self {
            TxnAction::Check { at, version } => TxnOp::Check {
                path: at.resolve(root, live).into(),
                version: *version,
            },
            TxnAction::Create {
                parent,
                name,
                mode,
                data,
            } => TxnOp::Create {
                path: format!(
                    "{}/{}",
                    parent.resolve(root, live),
                    child_name(*name, *mode)
                )
                .into(),
                data: data.clone(),
                mode: *mode,
            },
            TxnAction::Delete { at, version } => TxnOp::Delete {
                path: at.resolve(root, live).into(),
                version: *version,
            },
            TxnAction::SetData { at, data, version } => TxnOp::SetData {
                path: at.resolve(root, live).into(),
                data: data.clone(),
                version: *version,
            },
        }
    }
}

impl fmt::Debug for TxnAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnAction::Check { at, version } => write!(f, "check({at:?}, {version})"),
            TxnAction::Create {
                parent,
                name,
                mode,
                data,
            } => write!(
                f,
                "create({parent:?} + {}, {mode:?}, {data:?})",
                child_name(*name, *mode)
            ),
            TxnAction::Delete { at, version } => write!(f, "delete({at:?}, {version})"),
            TxnAction::SetData { at, data, version } => {
                write!(f, "setData({at:?}, {data:?}, {version})")
            }
        }
    }
}

/// One request of one session (an index into the case's sessions, taken
/// modulo their number so shrinking the session count keeps it valid).
#[derive(Clone, PartialEq, Eq)]
pub struct Step {
    pub session: usize,
    pub action: Action,
}

/// A whole generated case.
#[derive(Clone, PartialEq, Eq)]
pub struct Sequence {
    /// 2 or 3 client sessions.
    pub sessions: usize,
    pub steps: Vec<Step>,
}

impl Target {
    /// The absolute path under `root`, given the nodes that exist under it
    /// now (`live`, never empty while the root exists).
    pub fn resolve(self, root: &str, live: &[String]) -> String {
        match self {
            Target::Name(i) => under(root, NAMES[i % NAMES.len()]),
            Target::Live(k) if !live.is_empty() => live[k % live.len()].clone(),
            Target::Live(_) => root.to_string(),
        }
    }
}

pub fn under(root: &str, name: &str) -> String {
    if name.is_empty() {
        root.to_string()
    } else {
        format!("{root}/{name}")
    }
}

fn child_name(name: usize, mode: CreateMode) -> &'static str {
    if mode.is_sequential() {
        SEQ_PREFIXES[name % SEQ_PREFIXES.len()]
    } else {
        CHILD_NAMES[name % CHILD_NAMES.len()]
    }
}

impl Action {
    /// The model request this action is, under `root` with the nodes `live`
    /// (`None` for an expiry or a cut, which are no request).
    pub fn to_op(&self, root: &str, live: &[String]) -> Option<Op> {
        Some(match self {
            Action::Create {
                parent,
                name,
                mode,
                data,
            } => Op::Create {
                path: format!(
                    "{}/{}",
                    parent.resolve(root, live),
                    child_name(*name, *mode)
                )
                .into(),
                data: data.clone(),
                mode: *mode,
            },
            Action::Delete { at, version } => Op::Delete {
                path: at.resolve(root, live).into(),
                version: *version,
            },
            Action::SetData { at, data, version } => Op::SetData {
                path: at.resolve(root, live).into(),
                data: data.clone(),
                version: *version,
            },
            Action::Exists { at, watch } => Op::Exists {
                path: at.resolve(root, live).into(),
                watch: *watch,
            },
            Action::GetData { at, watch } => Op::GetData {
                path: at.resolve(root, live).into(),
                watch: *watch,
            },
            Action::GetChildren { at, watch } => Op::GetChildren {
                path: at.resolve(root, live).into(),
                watch: *watch,
            },
            Action::Multi(ops) => Op::Multi(ops.iter().map(|o| o.to_op(root, live)).collect()),
            Action::RemoveWatches { at, kind } => Op::RemoveWatches {
                path: at.resolve(root, live).into(),
                kind: *kind,
            },
            Action::Close => Op::CloseSession,
            Action::Expire | Action::Cut => return None,
        })
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Name(i) => match NAMES[i % NAMES.len()] {
                "" => write!(f, "/"),
                n => write!(f, "/{n}"),
            },
            Target::Live(k) => write!(f, "live#{k}"),
        }
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = |watch: &bool| if *watch { ", watch" } else { "" };
        match self {
            Action::Create {
                parent,
                name,
                mode,
                data,
            } => write!(
                f,
                "create({parent:?} + {}, {mode:?}, {data:?})",
                child_name(*name, *mode)
            ),
            Action::Delete { at, version } => write!(f, "delete({at:?}, {version})"),
            Action::SetData { at, data, version } => {
                write!(f, "setData({at:?}, {data:?}, {version})")
            }
            Action::Exists { at, watch } => write!(f, "exists({at:?}{})", w(watch)),
            Action::GetData { at, watch } => write!(f, "getData({at:?}{})", w(watch)),
            Action::GetChildren { at, watch } => write!(f, "getChildren({at:?}{})", w(watch)),
            Action::Multi(ops) => write!(f, "multi({ops:?})"),
            Action::RemoveWatches { at, kind } => write!(f, "removeWatches({at:?}, {kind:?})"),
            Action::Close => write!(f, "close()"),
            Action::Expire => write!(f, "(session expires)"),
            Action::Cut => write!(f, "(connection cut until its next request)"),
        }
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{} {:?}", self.session + 1, self.action)
    }
}

impl fmt::Debug for Sequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} sessions, {} steps (paths relative to the case's root):",
            self.sessions,
            self.steps.len()
        )?;
        for (i, s) in self.steps.iter().enumerate() {
            let session = s.session % self.sessions.max(1);
            writeln!(f, "  {:>3}. s{} {:?}", i + 1, session + 1, s.action)?;
        }
        Ok(())
    }
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        1 => (0..NAMES.len()).prop_map(Target::Name),
        3 => (0..16usize).prop_map(Target::Live),
    ]
}

/// For `exists`, which also watches missing nodes (for `NodeCreated`).
fn probe() -> impl Strategy<Value = Target> {
    prop_oneof![
        2 => (0..NAMES.len()).prop_map(Target::Name),
        1 => (0..16usize).prop_map(Target::Live),
    ]
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..3)
}

fn version() -> impl Strategy<Value = i32> {
    prop_oneof![2 => Just(-1), 1 => 0..3i32]
}

fn watch() -> impl Strategy<Value = bool> {
    prop::bool::weighted(0.75)
}

fn mode() -> impl Strategy<Value = CreateMode> {
    prop::sample::select(&CreateMode::ALL[..])
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => (target(), 0..CHILD_NAMES.len(), mode(), data()).prop_map(
            |(parent, name, mode, data)| Action::Create { parent, name, mode, data }
        ),
        4 => (target(), version()).prop_map(|(at, version)| Action::Delete { at, version }),
        3 => (target(), data(), version())
            .prop_map(|(at, data, version)| Action::SetData { at, data, version }),
        3 => (probe(), watch()).prop_map(|(at, watch)| Action::Exists { at, watch }),
        3 => (target(), watch()).prop_map(|(at, watch)| Action::GetData { at, watch }),
        3 => (target(), watch()).prop_map(|(at, watch)| Action::GetChildren { at, watch }),
        3 => prop::collection::vec(txn_action(), 1..=3).prop_map(Action::Multi),
        2 => (target(), prop::sample::select(&WATCHER_TYPES[..]))
            .prop_map(|(at, kind)| Action::RemoveWatches { at, kind }),
        1 => Just(Action::Close),
        1 => Just(Action::Cut),
    ]
}

const WATCHER_TYPES: [WatcherType; 3] =
    [WatcherType::Children, WatcherType::Data, WatcherType::Any];

/// A multi's op: mostly a check or a write of a node that exists, so that
/// multis both commit and fail part-way.
fn txn_action() -> impl Strategy<Value = TxnAction> {
    prop_oneof![
        3 => (target(), version()).prop_map(|(at, version)| TxnAction::Check { at, version }),
        2 => (target(), 0..CHILD_NAMES.len(), mode(), data()).prop_map(
            |(parent, name, mode, data)| TxnAction::Create { parent, name, mode, data }
        ),
        2 => (target(), version()).prop_map(|(at, version)| TxnAction::Delete { at, version }),
        3 => (target(), data(), version())
            .prop_map(|(at, data, version)| TxnAction::SetData { at, data, version }),
    ]
}

/// 2–3 sessions and up to `max_steps` requests among them.
pub fn sequence(max_steps: usize) -> impl Strategy<Value = Sequence> {
    (
        2..=3usize,
        prop::collection::vec(
            (0..3usize, action()).prop_map(|(session, action)| Step { session, action }),
            1..=max_steps,
        ),
    )
        .prop_map(|(sessions, steps)| Sequence { sessions, steps })
}
