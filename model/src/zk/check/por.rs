//! Partial-order reduction: in a state where one client's next steps touch
//! only that client, take only them (an *ample set*) and leave the other
//! clients' steps for the states that follow. Off by default
//! (`[check] por = true`, `--por`): it can lengthen a counterexample, and a
//! reduction that can lengthen a trace stays off (docs/checker.md).
//!
//! The ample set of a state is every enabled step of the lowest-numbered
//! client `c` for which all of these hold (the conditions C0–C3 of Peled's
//! ample sets, in this model's terms):
//!
//! - **C1, independence.** Each enabled action of `c` other than the
//!   server serving its session is a thread's step or a delivery to it,
//!   and each changes nothing but `c`'s part ([`own_step`]: not the server,
//!   not the fault budgets, no protected resource, no release, nobody
//!   woken). Another client's step changes another part; the server
//!   serving a session pops from the front of its requests while `c`'s
//!   thread pushes at the back, and pushes a reply or event at the back of
//!   `c`'s incoming queue while a delivery pops at the front; so they
//!   commute and neither disables the other. What else could touch `c`
//!   must be impossible until `c` moves: its session is alive and
//!   connected, it gave up no session, and none of its faults is enabled
//!   (a fault's budget only ever shrinks, so one disabled now stays
//!   disabled until `c`'s own steps change its role). A delivery that is
//!   not enabled now must not become enabled before `c` moves (it would
//!   not commute with `c`'s thread): so either a delivery is enabled
//!   already (and is in the set), or `c` has no request on its way and no
//!   watch on the server that another session's transaction could fire.
//!   A timed wait or a deadline of `c` that could run out makes `c`
//!   ineligible, and so does a delivery while the unsafe overtaking fault
//!   has budget left (a second message arriving would enable it). No
//!   client is eligible while a server stop has budget left or the server
//!   is stopped: the stop drops every connection and the start lets every
//!   client reconnect, each touching `c` without being `c`'s. Nor while
//!   the clients are threads of one process on one session
//!   (`shared_session`): a fault or a reconnect through one touches all.
//! - **C2, invisibility.** No step of the set changes what a property
//!   reads: the state properties violated, whether `c` holds, whether `c`
//!   waits (the herd, deadlock and starvation read who waits).
//! - **C0** (the set is empty only if nothing is enabled) holds since a
//!   state without an eligible client is expanded whole, and **C3, the
//!   cycle proviso**, is the search's ([`expand`](crate::engine::expand)): a state
//!   one of whose ample successors an earlier level found is expanded
//!   whole. Every cycle of the reduced graph returns to a state found at
//!   its own level or earlier, so each has a state expanded whole, and no
//!   step stays postponed around a cycle.
//!
//! The starvation analysis judges fairness by who could move in each
//! state: a reduced state keeps the steps it did not take as edges to
//! nowhere ([`NOT_TAKEN`](crate::engine::graph::NOT_TAKEN)), so an agent that
//! could always move and never does still makes a cycle unfair.
//!
//! The ample set is judged in the state it is taken from: a step invisible
//! there is assumed invisible after the other clients' independent steps
//! too (true of every property here but the orphaned node, whose owner's
//! step is judged against the server's nodes as they stand). The test
//! `por::<scenario>` (sim/tests/scenarios.rs) holds the reduction to every
//! verdict of every scenario, with the lengths it finds beside the
//! shortest ones.

use super::own_step::{own_step, Known};
use super::property;
use super::system::{Action, Downtime, System};
use crate::zk::Service;

/// The ample set of `s` (a bit per position of `actions`, its enabled
/// actions in order), or `0` when no client's steps make one.
pub fn ample(s: &System<'static>, actions: &[Action], known: Known) -> u64 {
    // A server stop drops every client's connection, and a stopped
    // server's start lets each reconnect: neither is one client's, and
    // both touch every client.
    // Mates on one session share their connection's fate: a fault of one
    // touches every other, so no client's steps are its own alone.
    // The conditions above were proved without the protected resource
    // (C1 says "no protected resource"): with one, a state is expanded
    // whole.
    if actions.len() > 64
        || s.down != Downtime::Up
        || s.faults.restarts() > 0
        || s.one_session()
        || s.resource.is_some()
    {
        return 0;
    }
    let mut before: Option<u8> = None;
    for c in 0..s.peers.len() {
        let mask = eligible(s, actions, c, &mut before, known);
        if mask != 0 {
            return mask;
        }
    }
    0
}

/// Client `c`'s steps as an ample set, or `0`. `before` caches the state
/// properties `s` violates.
fn eligible(
    s: &System<'static>,
    actions: &[Action],
    c: usize,
    before: &mut Option<u8>,
    known: Known,
) -> u64 {
    let p = &s.peers[c];
    // A client whose connection is down, stranded, or holding a session it
    // gave up on has an action of its own that is neither a thread's step
    // nor a delivery (reconnect, give up, the old session's end), and a
    // crashed one has no step at all: the list below turns them away.
    if !s.server.is_alive(p.session) {
        return 0;
    }
    let (mut mask, mut delivers) = (0u64, false);
    for (k, &a) in actions.iter().enumerate() {
        if a.client() != Some(c as u8) {
            continue;
        }
        match a {
            Action::Run(..) => {}
            Action::Deliver(_) => delivers = true,
            Action::Serve(_) => continue,
            _ => return 0,
        }
        mask |= 1 << k;
    }
    if mask == 0 || !delivers && (!p.outbox.is_empty() || s.server.watches_any(p.session)) {
        return 0;
    }
    // A second message arriving behind the one to deliver would enable
    // the overtaking fault, which does not commute with the delivery.
    if delivers && s.faults.reorders > 0 {
        return 0;
    }
    let violated = |t: &System| {
        property::STATE_PROPERTIES
            .iter()
            .enumerate()
            .filter(|(_, &q)| property::violated_in(q, t))
            .fold(0u8, |bits, (i, _)| bits | 1 << i)
    };
    for (k, &a) in actions.iter().enumerate() {
        if mask >> k & 1 == 0 {
            continue;
        }
        let Some((_, part)) = own_step(s, a, known) else {
            return 0;
        };
        if part.client.holds() != p.client.holds()
            || part.client.is_waiting() != p.client.is_waiting()
        {
            return 0;
        }
        let mut next = s.lend();
        next.peers[c] = part;
        let was = *before.get_or_insert_with(|| violated(&s.lend()));
        if violated(&next) != was {
            return 0;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::check::own_step::itself;
    use crate::zk::check::CheckConfig;
    use crate::zk::client::Thread;
    use crate::zk::recipes::RecipeId;

    /// The ample set is a bit per enabled action: a state with more than
    /// 64 of them is expanded in full, never reduced on a mask that cannot
    /// name them all. (No catalogue state has so many; the list here is
    /// c1's first step, repeated.)
    #[test]
    fn more_actions_than_a_mask_has_bits_are_expanded_in_full() {
        let mut cfg = CheckConfig::new(RecipeId::FixedWait, 1, 1);
        cfg.por = true;
        let s = System::initial(&cfg);
        let step = Action::Run(0, Thread::Main);
        assert_eq!(ample(&s, &[step; 64], &itself), u64::MAX, "c1's own steps");
        assert_eq!(ample(&s, &[step; 65], &itself), 0);
    }
}
