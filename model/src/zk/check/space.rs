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
            super::por::ample(s, actions)
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
        let own = own_step(s, a);
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
                kept.peers.intern(p, |p| {
                    let mut h = FoldHasher::default();
                    h.write_u64(p.digest(peer_facts).digest);
                    p.session.hash(&mut h);
                    p.abandoned.hash(&mut h);
                    h.finish()
                });
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

impl ZkSpace<'_> {
    fn violations_lent(&self, s: &System) -> u8 {
        property::STATE_PROPERTIES
            .iter()
            .enumerate()
            .filter(|(_, &p)| property::violated_in(p, s))
            .fold(0, |bits, (i, _)| bits | 1 << i)
    }
}
