//! [`EtcdSpace`] as the explorer walks it: the engine's command space
//! ([`Explored`]) with etcd's answers — the network owes a held-up unlock
//! its arrival, the lock is free by the recipe's rule, the store is its
//! size and its revision its id, and a release that wakes two waiters is a
//! herd.

use super::action::{Action, Own};
use super::config::EtcdSpace;
use super::state::{Channel, State};
use crate::engine::command::{Explored, SERVER};
use crate::engine::harness::judge;
use crate::engine::space::{GrowthWords, Space, NO_AGENT};
use crate::etcd::Request;

impl Explored for EtcdSpace {
    const GROWTH_WORDS: GrowthWords = GrowthWords {
        id: "revision",
        size: "store",
        unit: "keys",
    };
    /// Revisions are kept as they are: every write makes a new one, so
    /// states that differ only in revisions are told apart.
    const ABSTRACTED: bool = false;

    fn own_agent(&self, a: Own) -> u8 {
        match a {
            // The network owes a held-up request its arrival, as the
            // server owes a sent one its serving.
            Own::LateUnlock(c) => c << 3 | SERVER,
            Own::Revoke(_)
            | Own::WaiterExpires(_)
            | Own::Compact
            | Own::DelayUnlock(_)
            | Own::Partition(_) => NO_AGENT,
        }
    }

    fn lock_free(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn server_bytes(&self, s: &State) -> usize {
        s.server.with_prefix("").count() * 96
    }

    fn server_growth(&self, s: &State) -> (i64, usize) {
        (s.server.revision(), s.server.with_prefix("").count())
    }

    /// `a`, taken in `s`, is a client's release (its unlock's delete,
    /// served) that fires the watches of two or more clients waiting in
    /// `lock()`.
    fn herd(&self, s: &State, a: Action) -> bool {
        let Action::Serve(c) = a else {
            return false;
        };
        let releases = matches!(
            &s.clients[c as usize].channel,
            Channel::Sent(Request::Delete { .. })
        );
        if !releases {
            return false;
        }
        let mut t = s.clone();
        self.apply(&mut t, a);
        let woken = (0..s.clients.len())
            .filter(|&d| d != c as usize)
            .filter(|&d| {
                let (b, n) = (&s.clients[d], &t.clients[d]);
                b.channel == Channel::Waiting && n.channel != Channel::Waiting && b.phase.locking()
            })
            .count();
        judge::herd(woken)
    }
}
