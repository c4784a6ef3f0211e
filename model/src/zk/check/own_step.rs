//! A client's own step, memoized: what a step of one of its threads, or a
//! delivery to it, makes of a client version, computed once per version
//! (the partial-order reduction and the explorer's expansion both ask).

use super::system::{Action, SharedPeer, System};
use crate::zk::client::Thread;

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
pub fn own_step<'s>(s: &'s System<'static>, a: Action) -> Option<(usize, SharedPeer<'s>)> {
    // With the protected resource in the system, a client's step may write
    // it, or open or close a tenure there (a thread's step, or a delivery
    // that makes the client acquire or release), and what it does there
    // depends on the resource as it stands: it reads more than its client,
    // so nothing is memoized.
    if s.resource.is_some() {
        return None;
    }
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
            && fx.woken.is_empty()
            && peers.len() == s.peers.len()
            && (0..peers.len()).all(|i| (i == c) != peers[i].same(&s.peers[i]));
        alone.then(|| peers.swap_remove(c).into_held())
    })?;
    Some((c, part))
}
