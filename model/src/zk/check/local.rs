//! What a version of a client allows by itself, read once per version.
//!
//! Every expanded state lists its enabled actions, and most of what that
//! reads is one client's own: whether each thread can step or is in a
//! timed wait, whether anything is queued either way on its connection,
//! whether it holds, waits, is done. A version of a client is shared by
//! the many states that differ only in the others ([`Shared`]), so these
//! facts are computed once per version, with its digest, and
//! [`System::actions`] combines them with what the server and the fault
//! budgets say. The order of the actions, and so every recorded path, is
//! the one `actions` always had.
//!
//! [`Shared`]: crate::engine::shared::Shared
//! [`System::actions`]: super::system::System::actions

use super::peer::Peer;
use super::suffixes::Suffixes;
use crate::engine::fingerprint::FoldHasher;
use crate::zk::client::process::Deadline;
use crate::zk::client::{Recipe, Thread};
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// A client's process and both directions of its connection: everything
/// about it but its session id.
pub fn peer_digest(p: &Peer) -> u64 {
    let mut h = FoldHasher::default();
    p.client.hash(&mut h);
    p.outbox.hash(&mut h);
    p.inbox.hash(&mut h);
    p.disconnected.hash(&mut h);
    p.stranded.hash(&mut h);
    p.section.hash(&mut h);
    h.finish()
}

/// What a client version's part of a state keeps about it, computed the
/// first time a state with it is fingerprinted or expanded.
pub struct PeerFacts {
    /// Its digest for the fingerprint ([`peer_digest`]).
    pub digest: u64,
    pub local: Local,
    /// The sequence suffixes it names, read the first time the sequence
    /// abstraction asks ([`super::sequences`]).
    pub suffixes: OnceLock<Suffixes>,
}

pub fn peer_facts(p: &Peer) -> PeerFacts {
    PeerFacts {
        digest: peer_digest(p),
        local: Local::of(p),
        suffixes: OnceLock::new(),
    }
}

/// A client version's facts, a bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Local(u32);

impl Local {
    /// `Run` of `Thread::ALL[i]` at bit `RUN + i`.
    const RUN: u32 = 0;
    /// `TimeOut` of `Thread::ALL[i]` at bit `TIME_OUT + i`.
    const TIME_OUT: u32 = Thread::ALL.len() as u32;
    pub const DEADLINE: u32 = 10;
    pub const DELIVER: u32 = 11;
    pub const SERVE: u32 = 12;
    /// Reconnects if the server still holds its session.
    pub const RECONNECT_IF_ALIVE: u32 = 13;
    pub const GIVE_UP: u32 = 14;
    pub const EXPIRE_OLD: u32 = 15;
    /// Notices an expiry if the server no longer holds its session.
    pub const NOTICE_IF_GONE: u32 = 16;
    pub const DONE: u32 = 17;
    pub const ABANDONED_SESSION: u32 = 18;
    /// A connection loss can strike (with the budget for it).
    pub const LOSABLE: u32 = 19;
    /// A reply or event can overtake another (with the budget for it).
    pub const OVERTAKABLE: u32 = 20;
    /// A disconnect can strike (with the budget for it).
    pub const DISCONNECTABLE: u32 = 21;
    /// A client-side expiry can strike (with the budget for it).
    pub const CLIENT_EXPIRABLE: u32 = 22;
    pub const HOLDS: u32 = 23;
    pub const PARKED: u32 = 24;
    /// A call waits for the connection, and the library gives up waiting
    /// after its connection timeout.
    pub const CONNECT_TIMEOUT: u32 = 25;
    /// Disconnected, and a library that gives up on a suspended session:
    /// it gives up if the server stays down past the session timeout —
    /// once: its new handle is LOST, not SUSPENDED, until it connects (so
    /// not with a session it gave up on still held by the server, which
    /// keeps a client that gave up before the stop from giving up again
    /// during it: a narrower choice than Curator's, in a rare case).
    pub const GIVE_UP_IF_DOWN: u32 = 26;

    pub fn of(p: &Peer) -> Local {
        let c = &p.client;
        let mut bits = 0u32;
        let mut set = |bit: u32, on: bool| bits |= u32::from(on) << bit;
        for (i, &t) in Thread::ALL.iter().enumerate() {
            set(Self::RUN + i as u32, c.can_step(t));
            set(Self::TIME_OUT + i as u32, c.timed_wait(t).is_some());
        }
        set(Self::DEADLINE, c.deadline == Deadline::Running);
        set(Self::DELIVER, !p.inbox.is_empty() && !p.disconnected);
        set(Self::SERVE, !p.outbox.is_empty() && !p.disconnected);
        // The library of a client whose thread died still reconnects; a
        // gone process's, or a closed library, does not.
        set(
            Self::RECONNECT_IF_ALIVE,
            p.disconnected && !p.stranded && !c.abandoned_session(),
        );
        set(Self::GIVE_UP, p.stranded);
        set(Self::EXPIRE_OLD, !p.abandoned.is_empty());
        set(
            Self::NOTICE_IF_GONE,
            !c.session_lost && !c.is_done() && !c.has_pending_call(),
        );
        set(Self::DONE, c.is_done());
        set(Self::ABANDONED_SESSION, c.abandoned_session());
        set(
            Self::LOSABLE,
            c.has_pending_call() && !c.session_lost && !p.disconnected,
        );
        set(Self::OVERTAKABLE, p.inbox.len() >= 2 && !p.disconnected);
        set(
            Self::DISCONNECTABLE,
            !c.has_pending_call() && !c.session_lost && !c.is_done() && !p.disconnected,
        );
        set(
            Self::CLIENT_EXPIRABLE,
            c.recipe.library().gives_up_on_session && !c.session_lost && !p.disconnected,
        );
        set(
            Self::GIVE_UP_IF_DOWN,
            c.recipe.library().gives_up_on_session
                && !c.session_lost
                && p.disconnected
                && !p.stranded
                && p.abandoned.is_empty()
                && !c.abandoned_session(),
        );
        set(
            Self::CONNECT_TIMEOUT,
            p.disconnected && !p.outbox.is_empty() && c.recipe.library().times_out_connecting,
        );
        set(Self::HOLDS, c.holds());
        set(Self::PARKED, c.is_parked());
        Local(bits)
    }

    pub fn has(self, bit: u32) -> bool {
        self.0 >> bit & 1 != 0
    }

    /// Thread `Thread::ALL[i]` can step.
    pub fn runs(self, i: usize) -> bool {
        self.has(Self::RUN + i as u32)
    }

    /// Thread `Thread::ALL[i]` is in a timed wait.
    pub fn times_out(self, i: usize) -> bool {
        self.has(Self::TIME_OUT + i as u32)
    }
}
