//! [`RedisSpace`] as the explorer walks it: the engine's command space
//! ([`Explored`]) with Redis's answers — nothing of its own is owed a
//! step, the lock is free by the recipe's rule, the keyspace is its size.

use super::action::Own;
use super::config::RedisSpace;
use super::state::State;
use crate::engine::command::Explored;
use crate::engine::space::{GrowthWords, NO_AGENT};

impl Explored for RedisSpace {
    const GROWTH_WORDS: GrowthWords = GrowthWords {
        id: "id",
        size: "keyspace",
        unit: "keys",
    };
    /// Nothing in a state grows without bound: no counter, no id.
    const ABSTRACTED: bool = true;

    /// Faults, replication: nobody's.
    fn own_agent(&self, _: Own) -> u8 {
        NO_AGENT
    }

    fn lock_free(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server, i64::from(self.lease))
    }

    fn server_bytes(&self, s: &State) -> usize {
        s.server.keys().len() * 96
    }

    fn server_growth(&self, s: &State) -> (i64, usize) {
        (0, s.server.keys().len())
    }
}
