//! What every sequential-node recipe does: create its own node, and with a
//! `getChildren` reply sort the names and find its own.
//!
//! Two sorts, as the code being modelled has them: the seeds sort whole
//! names (`Collections.sort`, a `TreeSet`: [`rank`]), which is the creation
//! order only while every name has one prefix (sequence suffixes are
//! zero-padded to ten digits); Curator (`StandardLockInternalsDriver
//! .fixForSorting`) and kazoo (`Lock._get_sorted_children`) sort on the
//! sequence number alone ([`rank_by_sequence`]), because their names begin
//! with a per-client part (`_c_<uuid>-lock-`, `<uuid>__lock__`).

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
    Some(rank_in(&sorted, root, own))
}

/// Where `own` stands in `sorted`.
fn rank_in(sorted: &[&Name], root: &str, own: &str) -> Rank {
    let me = path::name(own).as_bytes();
    match sorted.iter().position(|c| c.as_bytes() == me) {
        None => Rank::Missing,
        Some(0) => Rank::First,
        Some(i) => Rank::After(path::join(root, sorted[i - 1])),
    }
}

/// [`rank`] by sequence number: the children ordered by their last ten
/// characters (the suffix ZooKeeper appends), whole names breaking ties.
/// For names like `<uuid>__lock__0000000003`, whose prefixes differ, this
/// is the order the lock is granted in and [`rank`]'s is not.
pub fn rank_by_sequence(reply: &Reply, root: &str, own: &str) -> Option<Rank> {
    let Ok(OpResult::GetChildren { children, .. }) = reply else {
        return None;
    };
    let mut sorted: Vec<&Name> = children.iter().collect();
    sorted.sort_by_key(|c| (sequence(c), c.as_str()));
    Some(rank_in(&sorted, root, own))
}

/// A child's sequence suffix: its last ten characters (all of a shorter
/// name).
fn sequence(name: &str) -> &str {
    let cut = name.len().saturating_sub(10);
    name.get(cut..).unwrap_or(name)
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

    /// kazoo's names begin with each client's uuid: by whole names the
    /// later node of client "a…" sorts first, by sequence it is second.
    #[test]
    fn rank_by_sequence_orders_names_with_different_prefixes_by_their_suffix() {
        let r = children(&["b1__lock__0000000000", "a7__lock__0000000001"]);
        let own = "/locks/a7__lock__0000000001";
        assert_eq!(rank(&r, "/locks", own), Some(Rank::First));
        assert_eq!(
            rank_by_sequence(&r, "/locks", own),
            Some(Rank::After("/locks/b1__lock__0000000000".into()))
        );
        assert_eq!(
            rank_by_sequence(&r, "/locks", "/locks/b1__lock__0000000000"),
            Some(Rank::First)
        );
        assert_eq!(
            rank_by_sequence(&children(&UNSORTED), "/locks", "/locks/lock_0000000002"),
            Some(Rank::After("/locks/lock_0000000001".into()))
        );
        assert_eq!(
            rank_by_sequence(&r, "/locks", "/locks/gone__lock__0000000009"),
            Some(Rank::Missing)
        );
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
