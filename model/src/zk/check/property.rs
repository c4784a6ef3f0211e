//! How the checker reads each property ([`Property`], defined once in the
//! harness) off a state or a transition of the explored graph. Mutual
//! exclusion, thread died and herd use the harness's own definitions;
//! deadlock and starvation are the checker's own way of judging liveness
//! (a state, and a cycle analysis in [`starvation`](crate::engine::starvation)).

use super::config::CheckConfig;
use super::system::{Effect, Message, Peer, System};
use crate::engine::harness::judge;
pub use crate::engine::harness::Property;
use crate::engine::harness::{Phase, Writes};
use crate::engine::resource;
use crate::zk::client::{Client, Recipe, Resume, Status};
use crate::zk::OpResult;

/// Whether the checker judges `p` on a system without a protected
/// resource and without re-entrant calls (the others are `n/a`).
pub fn judged(p: Property) -> bool {
    judged_with(p, Writes::Off) && p != Property::Reentrancy
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
            Some(match writes {
                Writes::Guarded => "guarded writes carry no fencing token",
                Writes::Plain => "plain writes carry no fencing token (`fencing = true` adds one)",
                _ => "no protected resource in this run (`fencing = true` or `guarded = true` adds it)",
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

/// Whether the checker judges `p` on the configuration `cfg`: as
/// [`judged_with`] says, and re-entrancy only where the holders re-enter
/// (`reentries > 0`: a loop without a re-entrant call shows nothing of it).
pub fn judged_in(p: Property, cfg: &CheckConfig) -> bool {
    not_judged_in(p, cfg).is_none()
}

/// Why the checker does not judge `p` on the configuration `cfg` (`None`:
/// it judges it): [`not_judged`]'s reasons, and re-entrancy where no holder
/// re-enters.
pub fn not_judged_in(p: Property, cfg: &CheckConfig) -> Option<&'static str> {
    match p {
        Property::Reentrancy if cfg.reentries == 0 => {
            Some("no holder re-enters in this run (`reentries = 0`)")
        }
        // The herd counts the sessions a release wakes: mutexes of one
        // process on one session are one session.
        Property::Herd if cfg.shared_session => Some(
            "the herd counts the sessions a release wakes, and every client is on one session (`shared_session = true`)",
        ),
        _ => not_judged(p, cfg.writes),
    }
}

/// The properties a single state can violate, judged on every new state.
pub const STATE_PROPERTIES: [Property; 6] = [
    Property::MutualExclusion,
    Property::ThreadDied,
    Property::OrphanedNode,
    Property::MutualExclusionAtResource,
    Property::FencedSafety,
    Property::Reentrancy,
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
        Property::Reentrancy => reentrancy_broken(s),
        _ => false,
    }
}

/// Re-entrancy fails in this state: a holder waits inside its re-entrant
/// `lock()` — in `wait()` or `await()`, for the lock it holds (the seeds'
/// locks queue a second node behind their first) — or its recipe's state
/// breaks it ([`Recipe::reentrancy_broken`]: an inner `unlock()` released,
/// or one `unlock()` too many would not throw).
pub fn reentrancy_broken(s: &System) -> bool {
    s.peers.iter().any(|p| breaks_reentrancy(&p.client))
}

/// [`reentrancy_broken`] for one client: what `locksmith confirm` reads
/// off a client driven by a real server too.
pub fn breaks_reentrancy<R: Recipe>(c: &Client<R>) -> bool {
    let parked = matches!(
        c.main,
        Status::Waiting(_) | Status::TimedWaiting { .. } | Status::Awaiting(_)
    );
    matches!(c.phase, Phase::Reacquiring(_)) && parked || c.recipe.reentrancy_broken()
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
        node.is_ephemeral() && node.mode.is_sequential() && {
            // Mates on one session own its nodes together: the node is
            // orphaned when none of them names it.
            let mut owners = s
                .peers
                .iter()
                .filter(|p| i64::from(p.session.0) == node.stat.ephemeral_owner)
                .peekable();
            owners.peek().is_some() && owners.all(|p| forgotten(p, path))
        }
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
