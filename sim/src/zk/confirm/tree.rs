//! The run's tree on the real server against the model's: the same nodes,
//! with the same data, versions, children counts and owners.
//!
//! zxids are not compared (the real server's count its whole history) and
//! neither are times. A container the model would let the reaper take
//! (it had a child and has none) may already be gone on the real server:
//! the real reaper runs on its own timer, which `confirm` cannot hold back.

use super::root_path;
use crate::zk::real::{RawResult, Session};
use locksmith_model::zk::check::System;
use locksmith_model::zk::{CreateMode, Op};
use std::collections::BTreeMap;
use std::fmt;

/// Whose ephemeral node it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    None,
    /// Client `c` (0-based), on its current session.
    Client(usize),
    /// Client `c`, on a session its library gave up on (a client-side
    /// expiry) that the server still holds.
    Abandoned(usize),
    /// A session that is no client's.
    Other(i64),
}

/// One node as both sides are compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub data: Vec<u8>,
    pub version: i32,
    pub cversion: i32,
    pub num_children: i32,
    pub owner: Owner,
}

impl fmt::Display for NodeView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "version {}, cversion {}, {} children",
            self.version, self.cversion, self.num_children
        )?;
        if !self.data.is_empty() {
            write!(f, ", data {:?}", String::from_utf8_lossy(&self.data))?;
        }
        match self.owner {
            Owner::None => Ok(()),
            Owner::Client(c) => write!(f, ", ephemeral of c{}", c + 1),
            Owner::Abandoned(c) => write!(f, ", ephemeral of a session c{} gave up on", c + 1),
            Owner::Other(s) => write!(f, ", ephemeral of session {s:#x}"),
        }
    }
}

/// Nodes by path (as the recipes name them, inside the run's root), the
/// root itself left out.
pub type TreeView = BTreeMap<String, NodeView>;

/// The model's tree.
pub fn model_tree(s: &System) -> TreeView {
    let sessions: Vec<Vec<i64>> = s
        .peers
        .iter()
        .map(|p| {
            std::iter::once(p.session)
                .chain(p.abandoned.iter().copied())
                .map(|id| i64::from(id.0))
                .collect()
        })
        .collect();
    let owner = |o: i64| owner_of(&sessions, o);
    s.server
        .nodes()
        .filter(|(p, _)| p.as_str() != "/")
        .map(|(p, n)| {
            (
                p.to_string(),
                NodeView {
                    data: n.data.clone(),
                    version: n.stat.version,
                    cversion: n.stat.cversion,
                    num_children: n.stat.num_children,
                    owner: owner(n.stat.ephemeral_owner),
                },
            )
        })
        .collect()
}

/// Whose ephemeral node it is, given each client's sessions: its current
/// one first, then those its library gave up on.
fn owner_of(sessions: &[Vec<i64>], o: i64) -> Owner {
    if o == 0 {
        return Owner::None;
    }
    for (c, ids) in sessions.iter().enumerate() {
        match ids.iter().position(|&i| i == o) {
            Some(0) => return Owner::Client(c),
            Some(_) => return Owner::Abandoned(c),
            None => {}
        }
    }
    Owner::Other(o)
}

/// The real server's tree under `root`, read through `observer` (a session
/// of the run's own, not chrooted); `sessions` are each client's session
/// ids, its current one first.
pub async fn real_tree(
    observer: &mut Session,
    root: &str,
    sessions: &[Vec<i64>],
) -> Result<TreeView, String> {
    let mut out = TreeView::new();
    let mut stack = vec!["/".to_string()];
    while let Some(p) = stack.pop() {
        let full = root_path(root, &p);
        let list = Op::GetChildren {
            path: full.as_str().into(),
            watch: false,
        };
        let children = match observer.call_raw(&list).await {
            o if !o.answered => return Err(format!("getChildren {full}: no answer")),
            o => match o.reply {
                Ok(RawResult::GetChildren { children, .. }) => children,
                // Gone between the listing of its parent and now.
                Err(zookeeper_client::Error::NoNode) => continue,
                other => return Err(format!("getChildren {full}: {other:?}")),
            },
        };
        for c in children {
            let child = if p == "/" {
                format!("/{c}")
            } else {
                format!("{p}/{c}")
            };
            let full = root_path(root, &child);
            let get = Op::GetData {
                path: full.as_str().into(),
                watch: false,
            };
            let (data, stat) = match observer.call_raw(&get).await {
                o if !o.answered => return Err(format!("getData {full}: no answer")),
                o => match o.reply {
                    Ok(RawResult::GetData { data, stat }) => (data, stat),
                    Err(zookeeper_client::Error::NoNode) => continue,
                    other => return Err(format!("getData {full}: {other:?}")),
                },
            };
            let owner = owner_of(sessions, stat.ephemeral_owner);
            out.insert(
                child.clone(),
                NodeView {
                    data,
                    version: stat.version,
                    cversion: stat.cversion,
                    num_children: stat.num_children,
                    owner,
                },
            );
            stack.push(child);
        }
    }
    Ok(out)
}

/// Containers of the model's tree the reaper may take now.
fn reapable(s: &System, path: &str) -> bool {
    s.server.node(path).is_some_and(|n| {
        n.mode == CreateMode::Container && n.stat.num_children == 0 && n.stat.cversion > 0
    })
}

/// The first difference between the trees, as (what the model has, what
/// the server has); `None` if they agree.
pub fn differ(model: &System, expected: &TreeView, real: &TreeView) -> Option<(String, String)> {
    for (p, m) in expected {
        match real.get(p) {
            Some(r) if r == m => {}
            Some(r) => return Some((format!("{p}: {m}"), format!("{p}: {r}"))),
            None if reapable(model, p) => {}
            None => return Some((format!("{p}: {m}"), format!("no node {p}"))),
        }
    }
    for (p, r) in real {
        if !expected.contains_key(p) {
            return Some((format!("no node {p}"), format!("{p}: {r}")));
        }
    }
    None
}
