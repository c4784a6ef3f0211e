//! ZooKeeper's [`System`] as a [`Space`]: the checker's first backend.

use super::config::CheckConfig;
use super::local::{peer_facts, PeerFacts};
use super::own_step::own_step;
use super::property::{self, Property};
use super::symmetry::{canonical, canonical_with, server_digest, ServerDigest};
use super::system::{Action, Peer, SharedPeer, System, PEER_MEMO};
use crate::engine::agent::Agent;
use crate::engine::fingerprint::FoldHasher;
use crate::engine::padded::Padded;
use crate::engine::shared::Interner;
use crate::engine::space::{Canonical, GrowthWords, Limits, Next, Space, NO_AGENT};
use crate::zk::ZkServer;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// One configuration of the ZooKeeper system, explorable.
pub struct ZkSpace<'c> {
    cfg: &'c CheckConfig,
    /// The distinct parts of the states kept so far ([`Space::keep`]):
    /// locked for every kept state, so kept off the line of `cfg`, which
    /// workers read for every transition.
    kept: Padded<Mutex<KeptParts>>,
}

#[derive(Default)]
struct KeptParts {
    servers: Interner<ZkServer, ServerDigest, 0>,
    peers: Interner<Peer, PeerFacts, PEER_MEMO>,
}

impl<'c> ZkSpace<'c> {
    pub fn new(cfg: &'c CheckConfig) -> ZkSpace<'c> {
        ZkSpace {
            cfg,
            kept: Padded::default(),
        }
    }
}

impl CheckConfig {
    pub fn limits(&self) -> Limits {
        Limits {
            max_states: self.max_states,
            max_memory: self.max_memory,
            max_depth: self.max_depth,
            max_time: self.max_time,
            starvation: self.starvation,
            jobs: self.jobs,
        }
    }
}

impl Space for ZkSpace<'_> {
    type State = System<'static>;
    type Action = Action;

    fn limits(&self) -> Limits {
        self.cfg.limits()
    }

    fn initial(&self) -> System<'static> {
        System::initial(self.cfg)
    }

    fn actions(&self, s: &System<'static>, out: &mut Vec<Action>) {
        s.actions(out);
    }

    fn ample(&self, s: &System<'static>, actions: &[Action]) -> u64 {
        if self.cfg.por {
            super::por::ample(s, actions, &|p| self.known(p))
        } else {
            0
        }
    }

    fn apply(&self, s: &mut System<'static>, a: Action) {
        s.apply(a, false);
    }

    fn next(
        &self,
        s: &System<'static>,
        a: Action,
        wanted: &mut dyn FnMut(u64) -> bool,
    ) -> Next<System<'static>> {
        let own = own_step(s, a, &|p| self.known(p));
        // A client's own step that leaves the state its own image under
        // the sequence abstraction (no suffix moves, no stat changes) is
        // the state the abstraction would make of it.
        let is_image = |(c, part): &(usize, SharedPeer)| {
            !self.cfg.abstract_sequences || super::sequences::is_image_with(s, (*c, part))
        };
        if let Some((c, part)) = own.as_ref().filter(|own| is_image(own)) {
            // Judged before it is built: most successors were seen before.
            let canon = canonical_with(s, (*c, part), self.cfg.symmetry);
            let fresh = wanted(canon.fingerprint).then(|| {
                let mut next = s.lend();
                next.peers[*c] = part.clone();
                let violated = self.violations_lent(&next);
                (next.into_held(), violated)
            });
            return Next {
                canonical: canon,
                actor: self.agent(a),
                herd: false,
                fresh,
            };
        }
        // The successor borrows what the action left alone from `s`, and
        // is made whole only if the explorer keeps it.
        let (mut next, herd) = match own {
            Some((c, part)) => {
                let mut next = s.lend();
                next.peers[c] = part;
                (next, false)
            }
            None => {
                let mut next = s.lend();
                let fx = next.apply(a, false);
                let herd = property::herd(s, &fx);
                (next, herd)
            }
        };
        if self.cfg.abstract_sequences {
            super::sequences::abstract_state(&mut next);
        }
        let canon = canonical(&next, self.cfg.symmetry);
        let fresh = wanted(canon.fingerprint).then(|| {
            let violated = self.violations_lent(&next);
            (next.into_held(), violated)
        });
        Next {
            canonical: canon,
            actor: self.agent(a),
            herd,
            fresh,
        }
    }

    fn keep(&self, states: &mut [System<'static>]) {
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        let kept = &mut *kept;
        for s in states {
            kept.servers.intern(&mut s.server, |server| {
                server.digest(server_digest).content()
            });
            for p in &mut s.peers {
                kept.peers.intern(p, peer_key);
            }
        }
    }

    fn canonical(&self, s: &System<'static>) -> Canonical {
        canonical(s, self.cfg.symmetry)
    }

    fn exact_fingerprint(&self, s: &System<'static>) -> u64 {
        let mut t = s.lend();
        if self.cfg.abstract_sequences {
            super::sequences::abstract_state(&mut t);
        }
        canonical(&t, false).fingerprint
    }

    fn is_fault(&self, a: Action) -> bool {
        a.is_fault()
    }

    fn agent(&self, a: Action) -> u8 {
        a.agent().map_or(NO_AGENT, Agent::pack)
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        a.relabel(f)
    }

    fn state_properties(&self) -> &'static [Property] {
        &property::STATE_PROPERTIES
    }

    fn violated_in(&self, p: Property, s: &System<'static>) -> bool {
        property::violated_in(p, s)
    }

    fn stuck(&self, s: &System<'static>, progress: bool) -> bool {
        property::stuck(s, progress)
    }

    fn waiting(&self, s: &System<'static>) -> u8 {
        let mut w = 0u8;
        for (c, p) in s.peers.iter().enumerate() {
            if p.client.is_waiting() {
                w |= 1 << c;
            }
        }
        w
    }

    fn holders(&self, s: &System<'static>) -> u8 {
        property::holders(s)
    }

    fn state_bytes(&self, _: &System<'static>) -> usize {
        // The struct, its clients' pointers in place: the parts themselves
        // are the interner's, shared by every kept state with equal ones
        // (`keep`).
        std::mem::size_of::<System>()
    }

    fn kept_bytes(&self) -> usize {
        // A distinct server or client with its version's digest and memo
        // and the heap it points to, roughly.
        self.kept
            .lock()
            .map_or(0, |k| k.servers.len() * 1024 + k.peers.len() * 1024)
    }

    fn growth_marks(&self, s: &System<'static>) -> (i64, usize) {
        (s.server.zxid(), s.server.nodes().count())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords::ZOOKEEPER
    }

    fn abstracted(&self) -> bool {
        self.cfg.abstract_sequences
    }
}

/// A client's key in the interner: a digest of its whole value.
fn peer_key(p: &SharedPeer) -> u64 {
    let mut h = FoldHasher::default();
    h.write_u64(p.digest(peer_facts).digest);
    p.session.hash(&mut h);
    p.abandoned.hash(&mut h);
    h.finish()
}

impl ZkSpace<'_> {
    /// What a client's own step remembers of a new part (`own_step`): the
    /// interner's version for its value, `part` itself made that version
    /// if there is none yet. A busy interner (the merger keeping a batch)
    /// is not waited for: the part is remembered as it is, and may stay a
    /// copy of an interned one as long as the version that remembers it.
    ///
    /// Interning what the memo makes before any state holds it is what
    /// makes the memo share: two versions that step to one value (often,
    /// in one level, before either successor is kept) remember one part,
    /// not one each. 4,250,000 states into `curator-604`, 331,000 versions
    /// were alive, 213,000 of them client versions only a memo held and
    /// 197,000 of those copies of an interned one; interned here, 179,000
    /// and 9,900 and 9,100 (the interner was busy), and the run peaks at
    /// 560 MB instead of 827.
    fn known(&self, mut part: SharedPeer<'static>) -> SharedPeer<'static> {
        let key = peer_key(&part);
        let Ok(mut kept) = self.kept.try_lock() else {
            return part;
        };
        kept.peers.intern(&mut part, |_| key);
        part
    }

    fn violations_lent(&self, s: &System) -> u8 {
        property::STATE_PROPERTIES
            .iter()
            .enumerate()
            .filter(|(_, &p)| property::violated_in(p, s))
            .fold(0, |bits, (i, _)| bits | 1 << i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::harness::Writes;
    use crate::engine::shared::Shared;
    use crate::zk::check::own_step::walk_own_steps;
    use crate::zk::recipes::RecipeId;

    /// What a client's own step remembers is the interner's version for
    /// its value, and is still what the step makes of the whole state: the
    /// versions that step to one value share one part.
    #[test]
    fn a_remembered_step_is_the_interned_version_of_what_the_step_makes() {
        let mut remembered = 0;
        for writes in [Writes::Guarded, Writes::Plain] {
            let mut cfg = CheckConfig::new(RecipeId::Curator, 2, 2);
            cfg.writes = writes;
            cfg.faults.client_expiries = 1;
            let space = ZkSpace::new(&cfg);
            let known = |p| space.known(p);
            let seed = 0x2545_f491_4f6c_dd1d;
            walk_own_steps(
                &cfg,
                (50, 60),
                seed,
                |_| {},
                &known,
                &mut |s, a, c, part| {
                    let mut taken = s.clone();
                    taken.apply(a, false);
                    let mut used = s.lend();
                    used.peers[c] = part.clone();
                    assert_eq!(used.into_held(), taken, "{a:?} in {s:?}");
                    let mut equal = Shared::new((*part).clone());
                    space
                        .kept
                        .lock()
                        .unwrap()
                        .peers
                        .intern(&mut equal, peer_key);
                    assert!(
                        equal.same(&part),
                        "{a:?} in {s:?}: not the interned version"
                    );
                    remembered += 1;
                },
            );
        }
        assert!(remembered > 5_000, "{remembered} remembered steps");
    }
}
