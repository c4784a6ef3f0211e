//! What every sequential-node recipe does: create its own node, and with a
//! `getChildren` reply sort the names (`Collections.sort`, a `TreeSet`) and
//! find its own.
//! Sequence suffixes are zero-padded to ten digits, so for names with one
//! prefix the string order is the creation order.

use super::step::{call, Action};
use crate::zk::{path, CreateMode, Op, OpResult, Reply};

/// `create(prefix, EPHEMERAL_SEQUENTIAL)`: the client's own lock node.
pub fn create_own(prefix: &str, code: &'static str) -> Action {
    call(
        Op::create(prefix, CreateMode::EphemeralSequential),
        None,
        code,
    )
}

/// Where `own` (a full path) stands among the sorted children, and the full
/// path of the child just before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rank {
    /// `index == 0`: the lowest node.
    First,
    /// `index > 0`: the node to watch is the one just below.
    After(String),
    /// `index == -1`: our node is not there any more.
    Missing,
}

/// Ranks `own` in a `getChildren(root)` reply; `None` if the reply is not a
/// children list.
pub fn rank(reply: &Reply, root: &str, own: &str) -> Option<Rank> {
    let Ok(OpResult::GetChildren { children, .. }) = reply else {
        return None;
    };
    let mut sorted: Vec<&String> = children.iter().collect();
    sorted.sort();
    let me = path::name(own);
    Some(match sorted.iter().position(|c| c.as_str() == me) {
        None => Rank::Missing,
        Some(0) => Rank::First,
        Some(i) => Rank::After(path::join(root, sorted[i - 1])),
    })
}

/// The lowest child's full path, if any (seed 003 compares against it).
pub fn lowest(reply: &Reply, root: &str) -> Option<String> {
    let Ok(OpResult::GetChildren { children, .. }) = reply else {
        return None;
    };
    children.iter().min().map(|c| path::join(root, c))
}
