//! What every sequential-node recipe does: create its own node, and with a
//! `getChildren` reply sort the names (`Collections.sort`, a `TreeSet`) and
//! find its own.
//! Sequence suffixes are zero-padded to ten digits, so for names with one
//! prefix the string order is the creation order.

use super::step::{call, Action};
use crate::zk::{path, CreateMode, Name, Op, OpResult, Reply};

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
    After(Name),
    /// `index == -1`: our node is not there any more.
    Missing,
}

/// Ranks `own` in a `getChildren(root)` reply; `None` if the reply is not a
/// children list.
pub fn rank(reply: &Reply, root: &str, own: &str) -> Option<Rank> {
    let Ok(OpResult::GetChildren { children, .. }) = reply else {
        return None;
    };
    let mut sorted: Vec<&Name> = children.iter().collect();
    sorted.sort();
    let me = path::name(own);
    Some(match sorted.iter().position(|c| c.as_str() == me) {
        None => Rank::Missing,
        Some(0) => Rank::First,
        Some(i) => Rank::After(path::join(root, sorted[i - 1])),
    })
}

/// The lowest child's full path, if any (source 003 compares against it).
pub fn lowest(reply: &Reply, root: &str) -> Option<Name> {
    let Ok(OpResult::GetChildren { children, .. }) = reply else {
        return None;
    };
    children.iter().min().map(|c| path::join(root, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::{Stat, ZkError};

    fn children(names: &[&str]) -> Reply {
        Ok(OpResult::GetChildren {
            children: names.iter().map(|&n| Name::from(n)).collect(),
            stat: Stat::default(),
        })
    }

    // getChildren returns names in no particular order: the answers must
    // not depend on it.
    const UNSORTED: [&str; 3] = ["lock_0000000002", "lock_0000000000", "lock_0000000001"];

    #[test]
    fn lowest_is_the_smallest_suffix_whatever_the_order() {
        let r = children(&UNSORTED);
        assert_eq!(lowest(&r, "/locks"), Some("/locks/lock_0000000000".into()));
        assert_eq!(lowest(&children(&[]), "/locks"), None);
        assert_eq!(lowest(&Err(ZkError::NoNode), "/locks"), None);
    }

    #[test]
    fn rank_names_the_node_just_below() {
        let r = children(&UNSORTED);
        assert_eq!(
            rank(&r, "/locks", "/locks/lock_0000000000"),
            Some(Rank::First)
        );
        assert_eq!(
            rank(&r, "/locks", "/locks/lock_0000000002"),
            Some(Rank::After("/locks/lock_0000000001".into()))
        );
        assert_eq!(
            rank(&r, "/locks", "/locks/lock_0000000009"),
            Some(Rank::Missing)
        );
    }
}
