//! How the checker reads each property ([`Property`], defined once in the
//! harness) off a state or a transition of the explored graph. Mutual
//! exclusion, thread died and herd use the harness's own definitions;
//! deadlock and starvation are the checker's own way of judging liveness
//! (a state, and a cycle analysis in [`starvation`](super::starvation)).

use super::resource;
use super::system::{Effect, Message, Peer, System};
use crate::harness::judge;
pub use crate::harness::Property;
use crate::harness::Writes;
use crate::runtime::{Recipe, Resume, Status};
use crate::zk::OpResult;

/// Whether the checker judges `p` on a system without a protected
/// resource (the others are `n/a`).
pub fn judged(p: Property) -> bool {
    judged_with(p, Writes::Off)
}

/// Whether the checker judges `p` when the critical sections write to the
/// resource as `writes` says: mutual exclusion at the resource with either
/// setting, fenced safety with fencing only.
pub fn judged_with(p: Property, writes: Writes) -> bool {
    not_judged(p, writes).is_none()
}

/// Why the ZooKeeper checker does not judge `p` when the critical sections
/// write as `writes` says (`None`: it judges it). What an `n/a` reports.
pub fn not_judged(p: Property, writes: Writes) -> Option<&'static str> {
    match p {
        Property::MutualExclusionAtResource | Property::FencedSafety
            if !resource::judges(p, writes) =>
        {
            Some(if writes.is_on() {
                "guarded writes carry no fencing token"
            } else {
                "no protected resource in this run (`fencing = true` or `guarded = true` adds it)"
            })
        }
        // Not judged rather than "holds": the ZooKeeper system marks no
        // transition with whose lock node a delete or setData touched.
        Property::UnlockByNonOwner => Some(
            "the ZooKeeper checker does not yet track whose lock node a delete or setData \
             takes from whom",
        ),
        // Stuck lock is reachability of a state where the lock is free by
        // the recipe's own rule; ZooKeeper recipes do not state that rule.
        Property::StuckLock => Some(
            "the ZooKeeper recipes do not state when their lock is free; a lock node that \
             outlives its owner's grip is judged as orphaned node, a waiter that never gets \
             the lock as deadlock or starvation",
        ),
        _ => None,
    }
}

/// The properties a single state can violate, judged on every new state.
pub const STATE_PROPERTIES: [Property; 5] = [
    Property::MutualExclusion,
    Property::ThreadDied,
    Property::OrphanedNode,
    Property::MutualExclusionAtResource,
    Property::FencedSafety,
];

/// Whether the state `s` violates the state property `p`.
pub fn violated_in(p: Property, s: &System) -> bool {
    match p {
        Property::MutualExclusion => two_holders(s),
        Property::ThreadDied => thread_died(s),
        Property::OrphanedNode => orphaned_node(s),
        Property::MutualExclusionAtResource | Property::FencedSafety => {
            s.resource.is_some_and(|r| r.violates(p))
        }
        _ => false,
    }
}

/// Mutual exclusion fails in this state.
pub fn two_holders(s: &System) -> bool {
    judge::two_holders(s.peers.iter().map(|p| p.client.phase))
}

/// A thread of some client ended on an uncaught exception. Reported even
/// when nobody else is left waiting: the seeds have no `catch`, and a dead
/// thread is a liveness failure of its own.
pub fn thread_died(s: &System) -> bool {
    // The event thread never dies: its EventThread catches what `process`
    // throws.
    s.peers
        .iter()
        .any(|p| matches!(p.client.main, Status::Dead(_)))
}

/// Orphaned node: a sequential ephemeral node whose owner's process is
/// alive and whose library is open — nothing will end its session — while
/// nothing the owner holds names it: no field of its recipe, no reply on
/// its way to a thread. Judged once the owner has read every reply it got
/// (a thread resuming with an unread reply may be about to take the name).
/// A fixed-name node is left out: every client's code knows its name.
pub fn orphaned_node(s: &System) -> bool {
    s.server.nodes().any(|(path, node)| {
        node.is_ephemeral()
            && node.mode.is_sequential()
            && s.peers
                .iter()
                .find(|p| i64::from(p.session.0) == node.stat.ephemeral_owner)
                .is_some_and(|p| forgotten(p, path))
    })
}

/// Whether `owner`, alive and with every reply read, holds nothing that
/// names `path`.
fn forgotten(owner: &Peer, path: &str) -> bool {
    let c = &owner.client;
    let unread = |t: &Status| matches!(t, Status::Ready(Resume::Reply(_)));
    if c.abandoned_session() || c.statuses().any(unread) {
        return false;
    }
    let on_its_way = owner
        .inbox
        .iter()
        .any(|m| matches!(m, Message::Reply(_, Ok(OpResult::Created(p))) if p == path));
    let mut named = on_its_way;
    c.recipe.paths(&mut |p| named |= p == path);
    named |= c.recipe.claims(path);
    !named
}

/// The clients that hold the lock in `s`, one bit each: the checker
/// records them so that a `holds` can say every client acquired on some
/// path (a harness in which nobody acquires must not hold).
pub fn holders(s: &System) -> u8 {
    s.peers
        .iter()
        .enumerate()
        .filter(|(_, p)| p.client.holds())
        .fold(0, |m, (c, _)| m | 1 << c)
}

/// Deadlock: given the state's enabled non-fault actions.
pub fn stuck(s: &System, progress_possible: bool) -> bool {
    !progress_possible && s.peers.iter().any(|p| p.client.is_waiting())
}

/// Herd: the transition `fx`, taken from `before`, was a recipe's release
/// that notified more than one waiting client.
pub fn herd(before: &System, fx: &Effect) -> bool {
    fx.release
        && judge::herd(
            fx.woken
                .iter()
                .filter(|s| {
                    before
                        .peers
                        .iter()
                        .any(|p| p.session == **s && p.client.is_waiting())
                })
                .count(),
        )
}
