//! A client's own step, memoized: what a step of one of its threads, or a
//! delivery to it, makes of a client version, computed once per version
//! (the partial-order reduction and the explorer's expansion both ask).

use super::system::{Action, SharedPeer, System};
use crate::zk::client::Thread;

/// What [`own_step`] remembers instead of a new part: an equal part, or
/// the part itself.
pub type Known<'k> = &'k dyn Fn(SharedPeer<'static>) -> SharedPeer<'static>;

/// Remembers each new part as it is made.
#[cfg(test)]
pub fn itself(part: SharedPeer<'static>) -> SharedPeer<'static> {
    part
}

/// The client `a` changes and its new part, if `a` is a client's own step — a thread's step or a
/// delivery to it, changing that client and nothing else — with the
/// client's new part taken from what its current part remembers: a version
/// of a client is shared by every state that differs only in the others,
/// and each of them would otherwise copy, step and digest it again. The
/// first time, the step is taken on the whole state and kept only if it
/// changed nothing but the client (a delivery that makes Curator open a
/// new session changes the server: never memoized). Such a step reads
/// nothing but its client (`System::run`, `System::deliver`), so what it
/// makes of one version is what it makes of it in every state.
///
/// `known` is handed each new part before it is remembered, and returns a
/// part equal to it to remember instead (the checker's interner: one
/// version per value, `ZkSpace::known`). Without it, a remembered part
/// equal to one the kept states hold stays beside it as long as the
/// version that remembers it.
pub fn own_step<'s>(
    s: &'s System<'static>,
    a: Action,
    known: Known,
) -> Option<(usize, SharedPeer<'s>)> {
    let (c, slot) = match a {
        Action::Run(c, t) => (usize::from(c), Thread::ALL.iter().position(|&x| x == t)?),
        Action::Deliver(c) => (usize::from(c), Thread::ALL.len()),
        _ => return None,
    };
    let part = s.peers.get(c)?.memoized(slot, || {
        let mut t = s.lend();
        let fx = t.apply(a, false);
        // Every part of the state, by name: a part added to `System` must
        // be added here (is it left alone?) before this compiles again. A
        // step that left the client as it was is not memoized either (the
        // version would hold itself).
        let System {
            server,
            mut peers,
            faults,
            resource,
            down,
        } = t;
        let alone = server.same(&s.server)
            && faults == s.faults
            && resource == s.resource
            && down == s.down
            && !fx.release
            // With the protected resource in the system, a thread's step
            // may write it, or open or close a tenure there, and what it
            // does there depends on the resource as it stands: it reads
            // more than its client. Whether a step goes there is the
            // client's own doing, so a step that did not, in one state,
            // does not in any.
            && !fx.at_resource
            && fx.woken.is_empty()
            && peers.len() == s.peers.len()
            && (0..peers.len()).all(|i| (i == c) != peers[i].same(&s.peers[i]));
        alone.then(|| known(peers.swap_remove(c).into_held()))
    })?;
    Some((c, part))
}

/// Seeded random walks from the initial state, for tests that hold a
/// claim about own steps to every one they meet: `visit` is handed each
/// own step of each state walked through, with the client it changes and
/// that client's new part; `settle` runs on the initial state and after
/// every step taken (the explorer's abstraction, or nothing); `known` is
/// [`own_step`]'s.
#[cfg(test)]
pub(super) fn walk_own_steps(
    cfg: &super::CheckConfig,
    (walks, steps): (usize, usize),
    mut seed: u64,
    settle: fn(&mut System<'static>),
    known: Known,
    visit: &mut dyn FnMut(&System<'static>, Action, usize, SharedPeer),
) {
    for _ in 0..walks {
        let mut s = System::initial(cfg);
        settle(&mut s);
        let mut actions = Vec::new();
        for _ in 0..steps {
            actions.clear();
            s.actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            for &a in &actions {
                if let Some((c, part)) = own_step(&s, a, known) {
                    visit(&s, a, c, part);
                }
            }
            // xorshift64: the walk is the same on every run.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.apply(actions[(seed % actions.len() as u64) as usize], false);
            settle(&mut s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::harness::Writes;
    use crate::zk::check::CheckConfig;
    use crate::zk::recipes::RecipeId;

    /// What a client version remembers of a step is what the step makes
    /// of every state that holds the version, the protected resource in
    /// the system or not: walked over Curator with guarded, fenced and
    /// plain writes and a client-side expiry, each remembered step is
    /// taken again on the whole state it is used in.
    #[test]
    fn a_remembered_step_is_the_step_in_every_state_it_serves() {
        let mut remembered = 0;
        for writes in [Writes::Guarded, Writes::Fenced, Writes::Plain] {
            let mut cfg = CheckConfig::new(RecipeId::Curator, 2, 2);
            cfg.writes = writes;
            cfg.faults.client_expiries = 1;
            let seed = 0x2545_f491_4f6c_dd1d;
            walk_own_steps(
                &cfg,
                (100, 60),
                seed,
                |_| {},
                &itself,
                &mut |s, a, c, part| {
                    let mut taken = s.clone();
                    taken.apply(a, false);
                    let mut used = s.lend();
                    used.peers[c] = part;
                    assert_eq!(used.into_held(), taken, "{a:?} in {s:?}");
                    remembered += 1;
                },
            );
        }
        assert!(remembered > 10_000, "{remembered} remembered steps");
    }
}
