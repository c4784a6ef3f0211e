//! The requests a client sends and the replies it gets.

use super::{Name, Stat, ZkError};
use serde::Serialize;
use std::fmt;

/// `org.apache.zookeeper.CreateMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CreateMode {
    Persistent,
    PersistentSequential,
    Ephemeral,
    EphemeralSequential,
    /// Reaped by the server some time after its last child goes.
    Container,
}

impl CreateMode {
    /// Every mode, for generators that pick one.
    pub const ALL: [CreateMode; 5] = [
        CreateMode::Persistent,
        CreateMode::PersistentSequential,
        CreateMode::Ephemeral,
        CreateMode::EphemeralSequential,
        CreateMode::Container,
    ];

    pub fn is_ephemeral(self) -> bool {
        matches!(
            self,
            CreateMode::Ephemeral | CreateMode::EphemeralSequential
        )
    }
    pub fn is_sequential(self) -> bool {
        matches!(
            self,
            CreateMode::PersistentSequential | CreateMode::EphemeralSequential
        )
    }
}

/// One client request. `version: -1` matches any version, as in the Java API.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    Create {
        path: Name,
        data: Vec<u8>,
        mode: CreateMode,
    },
    Delete {
        path: Name,
        version: i32,
    },
    SetData {
        path: Name,
        data: Vec<u8>,
        version: i32,
    },
    Exists {
        path: Name,
        watch: bool,
    },
    GetData {
        path: Name,
        watch: bool,
    },
    GetChildren {
        path: Name,
        watch: bool,
    },
    /// `ZooKeeper.close()`: ends the session as expiry would.
    CloseSession,
    /// `multi(ops)`: one transaction, all or nothing. Every op runs against
    /// the tree as the ops before it left it; if one fails none is applied
    /// (see [`TxnResult`] for what each op answers then).
    Multi(Vec<TxnOp>),
    /// `removeWatches(path, watcher, type, false)` as the server sees it:
    /// removes this session's watches of `kind` on `path`; `NoWatcher` if it
    /// has none. No transaction (it changes no node).
    RemoveWatches {
        path: Name,
        kind: WatcherType,
    },
    /// `removeWatches(path, watcher, type, false)` for one `Watcher`
    /// object — opcode `checkWatches`: the server only checks that this
    /// session has a watch of `kind` on `path` (`NoWatcher` if not) and
    /// keeps it; the client then drops that one watcher from its own table
    /// (`ZKWatchManager.removeWatcher`), so a later notification of the
    /// kept server watch reaches nobody. Curator's `removeWatchers()`
    /// sends it.
    CheckWatches {
        path: Name,
        kind: WatcherType,
    },
}

/// One operation inside a [`Op::Multi`] (`org.apache.zookeeper.Op`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TxnOp {
    /// `Op.check(path, version)`: the node exists and (unless `-1`) has
    /// this version. Only inside a multi: the Java client has no bare
    /// `check`.
    Check {
        path: Name,
        version: i32,
    },
    Create {
        path: Name,
        data: Vec<u8>,
        mode: CreateMode,
    },
    Delete {
        path: Name,
        version: i32,
    },
    SetData {
        path: Name,
        data: Vec<u8>,
        version: i32,
    },
}

impl TxnOp {
    pub fn path(&self) -> &Name {
        match self {
            TxnOp::Check { path, .. }
            | TxnOp::Create { path, .. }
            | TxnOp::Delete { path, .. }
            | TxnOp::SetData { path, .. } => path,
        }
    }

    pub fn path_mut(&mut self) -> &mut Name {
        match self {
            TxnOp::Check { path, .. }
            | TxnOp::Create { path, .. }
            | TxnOp::Delete { path, .. }
            | TxnOp::SetData { path, .. } => path,
        }
    }
}

impl fmt::Display for TxnOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnOp::Check { path, version } => write!(f, "check({path}, {version})"),
            TxnOp::Create { path, mode, .. } => write!(f, "create({path}, {mode:?})"),
            TxnOp::Delete { path, version } => write!(f, "delete({path}, {version})"),
            TxnOp::SetData {
                path,
                data,
                version,
            } => write!(
                f,
                "setData({path}, {:?}, {version})",
                String::from_utf8_lossy(data)
            ),
        }
    }
}

/// `Watcher.WatcherType`: which of a session's watches on a path
/// `removeWatches` takes away. `Data` covers `exists` and `getData`
/// watches (the server keeps them in one table), `Children` the
/// `getChildren` ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum WatcherType {
    Children,
    Data,
    Any,
}

/// What one op of a multi answered.
///
/// On success every op has its result. On failure (ZooKeeper 3.8's
/// `DataTree.processTxn` for a failed multi) the ops before the failing
/// one answer `ErrorResult(OK)` ([`TxnResult::RolledBack`]: valid, undone),
/// the failing one its error, and every op after it
/// `RuntimeInconsistency`; the caller's `multi` throws the failing op's
/// error, which is the [`Reply`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum TxnResult {
    Checked,
    Created(Name),
    Deleted,
    SetData(Stat),
    RolledBack,
    Failed(ZkError),
}

impl Op {
    /// `create(path, new byte[0], OPEN_ACL_UNSAFE, mode)`.
    pub fn create(path: impl Into<Name>, mode: CreateMode) -> Op {
        Op::create_with(path, Vec::new(), mode)
    }

    /// `create(path, data, OPEN_ACL_UNSAFE, mode)`.
    pub fn create_with(path: impl Into<Name>, data: Vec<u8>, mode: CreateMode) -> Op {
        Op::Create {
            path: path.into(),
            data,
            mode,
        }
    }

    /// `delete(path, version)`; `-1` matches any version.
    pub fn delete(path: impl Into<Name>, version: i32) -> Op {
        Op::Delete {
            path: path.into(),
            version,
        }
    }

    /// `setData(path, data, version)`; `-1` matches any version.
    pub fn set_data(path: impl Into<Name>, data: Vec<u8>, version: i32) -> Op {
        Op::SetData {
            path: path.into(),
            data,
            version,
        }
    }

    /// `removeWatches(path, watcher, kind, false)` for one watcher
    /// (opcode `checkWatches`).
    pub fn check_watches(path: impl Into<Name>, kind: WatcherType) -> Op {
        Op::CheckWatches {
            path: path.into(),
            kind,
        }
    }

    /// `exists(path, watch)`.
    pub fn exists(path: impl Into<Name>, watch: bool) -> Op {
        Op::Exists {
            path: path.into(),
            watch,
        }
    }

    /// `getData(path, watch, stat)`.
    pub fn get_data(path: impl Into<Name>, watch: bool) -> Op {
        Op::GetData {
            path: path.into(),
            watch,
        }
    }

    /// `getChildren(path, watch)`.
    pub fn get_children(path: impl Into<Name>, watch: bool) -> Op {
        Op::GetChildren {
            path: path.into(),
            watch,
        }
    }

    /// The path the request is about, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            Op::Create { path, .. }
            | Op::Delete { path, .. }
            | Op::SetData { path, .. }
            | Op::Exists { path, .. }
            | Op::GetData { path, .. }
            | Op::GetChildren { path, .. } => Some(path),
            Op::RemoveWatches { path, .. } | Op::CheckWatches { path, .. } => Some(path),
            Op::CloseSession | Op::Multi(_) => None,
        }
    }

    /// Every path the request names (a multi's ops' in order).
    pub fn paths(&self) -> Vec<&Name> {
        match self {
            Op::Multi(ops) => ops.iter().map(TxnOp::path).collect(),
            Op::Create { path, .. }
            | Op::Delete { path, .. }
            | Op::SetData { path, .. }
            | Op::Exists { path, .. }
            | Op::GetData { path, .. }
            | Op::GetChildren { path, .. }
            | Op::RemoveWatches { path, .. }
            | Op::CheckWatches { path, .. } => vec![path],
            Op::CloseSession => Vec::new(),
        }
    }

    /// Every path the request names, to rewrite.
    pub fn paths_mut(&mut self) -> Vec<&mut Name> {
        match self {
            Op::Multi(ops) => ops.iter_mut().map(TxnOp::path_mut).collect(),
            Op::Create { path, .. }
            | Op::Delete { path, .. }
            | Op::SetData { path, .. }
            | Op::Exists { path, .. }
            | Op::GetData { path, .. }
            | Op::GetChildren { path, .. }
            | Op::RemoveWatches { path, .. }
            | Op::CheckWatches { path, .. } => vec![path],
            Op::CloseSession => Vec::new(),
        }
    }

    /// Whether the request is a transaction (it goes through the server's
    /// log and takes a zxid, failed or not).
    pub fn is_write(&self) -> bool {
        matches!(
            self,
            Op::Create { .. }
                | Op::Delete { .. }
                | Op::SetData { .. }
                | Op::CloseSession
                | Op::Multi(_)
        )
    }

    /// Whether the request would leave a watch behind on success.
    pub fn watches(&self) -> bool {
        matches!(
            self,
            Op::Exists { watch: true, .. }
                | Op::GetData { watch: true, .. }
                | Op::GetChildren { watch: true, .. }
        )
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = |watch: &bool| if *watch { ", watch" } else { "" };
        match self {
            Op::Create { path, mode, .. } => write!(f, "create({path}, {mode:?})"),
            Op::Delete { path, version } => write!(f, "delete({path}, {version})"),
            Op::SetData {
                path,
                data,
                version,
            } => write!(
                f,
                "setData({path}, {:?}, {version})",
                String::from_utf8_lossy(data)
            ),
            Op::Exists { path, watch } => write!(f, "exists({path}{})", w(watch)),
            Op::GetData { path, watch } => write!(f, "getData({path}{})", w(watch)),
            Op::GetChildren { path, watch } => write!(f, "getChildren({path}{})", w(watch)),
            Op::CloseSession => write!(f, "close()"),
            Op::Multi(ops) => {
                let ops: Vec<String> = ops.iter().map(ToString::to_string).collect();
                write!(f, "multi({})", ops.join(", "))
            }
            Op::RemoveWatches { path, kind } => write!(f, "removeWatches({path}, {kind:?})"),
            Op::CheckWatches { path, kind } => {
                write!(f, "removeWatches({path}, watcher, {kind:?})")
            }
        }
    }
}

/// A successful reply.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum OpResult {
    /// The created node's full path (with its sequential suffix, if any).
    Created(Name),
    Deleted,
    SetData(Stat),
    /// `exists` succeeds on a missing node, with no stat.
    Exists(Option<Stat>),
    GetData {
        data: Vec<u8>,
        stat: Stat,
    },
    /// Children names in the server's order (sorted; the Java client makes
    /// no promise, so recipes sort them themselves as the seeds do).
    GetChildren {
        children: Vec<Name>,
        stat: Stat,
    },
    Closed,
    /// A multi that was applied: every op's result, in order.
    Multi(Vec<TxnResult>),
    /// `removeWatches` removed at least one watch.
    WatchesRemoved,
    /// `checkWatches` found the watch (and kept it).
    WatchesChecked,
}

pub type Reply = Result<OpResult, ZkError>;

impl fmt::Display for OpResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpResult::Created(p) => write!(f, "{p}"),
            OpResult::Deleted => write!(f, "ok"),
            OpResult::SetData(s) => write!(f, "version {}", s.version),
            OpResult::Exists(None) => write!(f, "null"),
            OpResult::Exists(Some(_)) => write!(f, "stat"),
            OpResult::GetData { data, stat } => write!(
                f,
                "data {:?}, version {}",
                String::from_utf8_lossy(data),
                stat.version
            ),
            OpResult::GetChildren { children, .. } => {
                let names: Vec<&str> = children.iter().map(Name::as_str).collect();
                write!(f, "[{}]", names.join(", "))
            }
            OpResult::Closed => write!(f, "closed"),
            OpResult::Multi(results) => write!(f, "{} results", results.len()),
            OpResult::WatchesRemoved => write!(f, "removed"),
            OpResult::WatchesChecked => write!(f, "ok"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_the_path_it_is_about() {
        let ops = [
            Op::create("/locks/a", CreateMode::Ephemeral),
            Op::delete("/locks/a", -1),
            Op::set_data("/locks/a", Vec::new(), -1),
            Op::exists("/locks/a", true),
            Op::get_data("/locks/a", true),
            Op::get_children("/locks/a", true),
        ];
        for op in &ops {
            assert_eq!(op.path(), Some("/locks/a"), "{op}");
            let paths: Vec<&str> = op.paths().into_iter().map(Name::as_str).collect();
            assert_eq!(paths, ["/locks/a"], "{op}");
        }
    }

    /// Each reply reads in traces as what the Java call returned.
    #[test]
    fn each_reply_reads_as_what_the_call_returned() {
        let stat = Stat {
            version: 2,
            ..Stat::default()
        };
        let replies = [
            (OpResult::Created("/locks/a".into()), "/locks/a"),
            (OpResult::Deleted, "ok"),
            (OpResult::SetData(stat), "version 2"),
            (OpResult::Exists(None), "null"),
            (OpResult::Exists(Some(stat)), "stat"),
            (
                OpResult::GetData {
                    data: b"x".to_vec(),
                    stat,
                },
                "data \"x\", version 2",
            ),
            (
                OpResult::GetChildren {
                    children: vec!["a".into(), "b".into()],
                    stat,
                },
                "[a, b]",
            ),
            (OpResult::Closed, "closed"),
            (
                OpResult::Multi(vec![TxnResult::Checked, TxnResult::Deleted]),
                "2 results",
            ),
            (OpResult::WatchesRemoved, "removed"),
            (OpResult::WatchesChecked, "ok"),
        ];
        for (reply, text) in replies {
            assert_eq!(reply.to_string(), text, "{reply:?}");
        }
    }

    /// A multi reads in traces as its ops, each as the Java `Op` call.
    #[test]
    fn a_multi_reads_as_its_ops() {
        let multi = Op::Multi(vec![
            TxnOp::Check {
                path: "/locks".into(),
                version: 3,
            },
            TxnOp::Create {
                path: "/locks/a".into(),
                data: Vec::new(),
                mode: CreateMode::Ephemeral,
            },
            TxnOp::SetData {
                path: "/locks/a".into(),
                data: b"x".to_vec(),
                version: -1,
            },
            TxnOp::Delete {
                path: "/locks/a".into(),
                version: 0,
            },
        ]);
        assert_eq!(
            multi.to_string(),
            "multi(check(/locks, 3), create(/locks/a, Ephemeral), \
             setData(/locks/a, \"x\", -1), delete(/locks/a, 0))"
        );
        let paths: Vec<&str> = multi.paths().into_iter().map(Name::as_str).collect();
        assert_eq!(paths, ["/locks", "/locks/a", "/locks/a", "/locks/a"]);
    }
}
