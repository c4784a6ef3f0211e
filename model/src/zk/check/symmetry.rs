//! Symmetry reduction: every client runs the same recipe and every property
//! is symmetric in the clients, so states that differ only in how the
//! clients are numbered are one state.
//!
//! The explorer keeps each state as it first reached it — so a trace is the
//! concrete path that led there — and tells states apart by a *canonical
//! fingerprint*, the same for every renumbering of the clients:
//!
//! - each client gets a key: a digest of its process and both directions of
//!   its connection, and of what the server holds for its session (its
//!   state, its ephemeral nodes, the paths it watches) — no session id in
//!   either;
//! - the server contributes a digest of everything but who owns and who
//!   watches what (the tree with owners erased, the zxid);
//! - the fingerprint hashes the fault budgets, the server's digest and the
//!   keys in sorted order.
//!
//! The owners and watchers the server's digest leaves out are in the keys,
//! so two states with one fingerprint have the same server up to a
//! renumbering of sessions, and the same clients up to the same
//! renumbering (barring 64-bit collisions, as for any fingerprint). Clients
//! with equal keys are interchangeable, so the order among them does not
//! matter. The order the keys sort in ([`Canonical::order`]) is what the
//! starvation analysis needs to follow one client from state to state.
//!
//! Digests are kept with the parts they describe ([`Shared`]), so a
//! successor recomputes only the digests of what its action changed.
//!
//! [`Shared`]: crate::engine::shared::Shared

use super::config::MAX_CLIENTS;
use super::local::peer_facts;
pub use super::server_digest::{server_digest, ServerDigest};
use super::system::{SharedPeer, System};
use crate::engine::fingerprint::{mix, FoldHasher};
use crate::engine::graph::Renumbering;
pub use crate::engine::space::Canonical;
use std::hash::{Hash, Hasher};

/// The canonical fingerprint of `s`; with `symmetry` off, clients keep
/// their numbers and the fingerprint tells every numbering apart.
pub fn canonical(s: &System, symmetry: bool) -> Canonical {
    canonical_of(s, None, symmetry)
}

/// The canonical fingerprint of `s` with client `c`'s part replaced by
/// `part`: a successor that changed only that client, judged before it is
/// built (most successors are states seen before, never built).
pub fn canonical_with(s: &System, (c, part): (usize, &SharedPeer), symmetry: bool) -> Canonical {
    canonical_of(s, Some((c, part)), symmetry)
}

fn canonical_of(s: &System, replaced: Option<(usize, &SharedPeer)>, symmetry: bool) -> Canonical {
    let server = s.server.digest(server_digest);
    let n = s.peers.len();
    let peer = |i: usize| -> &SharedPeer {
        match replaced {
            Some((c, part)) if c == i => part,
            _ => &s.peers[i],
        }
    };
    let mut keys = [0u64; MAX_CLIENTS as usize];
    for (i, key) in keys.iter_mut().enumerate().take(n) {
        let p = peer(i);
        // Hashes of hashes, for every client of every transition: mixed
        // once, not run through a whole hasher.
        *key = mix(p.digest(peer_facts).digest, server.facts_of(p.session));
        // Sessions the client gave up on and the server still holds, in
        // the order the client left them (`Action::ExpireOld` ends the
        // oldest): renumbered with their client.
        for &old in &p.abandoned {
            *key = mix(*key, server.facts_of(old));
        }
    }
    let mut order = [0u8, 1, 2, 3, 4, 5, 6, 7];
    if symmetry {
        // An insertion sort, stable: clients with equal keys keep their
        // order (a handful of keys, sorted for every transition).
        for i in 1..n {
            let mut j = i;
            while j > 0 && keys[order[j - 1] as usize] > keys[order[j] as usize] {
                order.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    let mut h = FoldHasher::default();
    h.write_u128(s.faults.packed() | u128::from(s.down as u8) << 120);
    if let Some(r) = &s.resource {
        r.hash(&mut h);
    }
    h.write_u64(server.anonymous);
    for &i in &order[..n] {
        h.write_u64(keys[i as usize]);
    }
    if server.facts.len() > n {
        // Sessions no client has any more, as a set.
        let mut rest: Vec<u64> = server
            .facts
            .iter()
            .filter(|(id, _)| {
                !(0..n).any(|i| {
                    let p = peer(i);
                    p.session == *id || p.abandoned.contains(id)
                })
            })
            .map(|&(_, f)| f)
            .collect();
        rest.sort_unstable();
        rest.hash(&mut h);
    }
    Canonical {
        fingerprint: h.finish(),
        order: Renumbering::of(&order[..n]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::{CreateMode, Op, Service, ZkServer};

    #[test]
    fn an_ephemeral_node_is_a_fact_of_its_owner_not_of_the_anonymous_part() {
        let mut a = ZkServer::new();
        let (s1, s2) = (a.open_session(), a.open_session());
        let mut b = a.clone();
        a.handle(s1, &Op::create("/x", CreateMode::Ephemeral));
        b.handle(s2, &Op::create("/x", CreateMode::Ephemeral));
        let (da, db) = (server_digest(&a), server_digest(&b));
        // The same tree, its owner swapped: the facts move with the owner.
        assert_eq!(da.anonymous, db.anonymous);
        assert_eq!(da.facts_of(s1), db.facts_of(s2));
        assert_ne!(da.facts_of(s1), da.facts_of(s2));
    }
}
