//! [`MysqlSpace`] as the explorer walks it: the engine's command space
//! ([`Explored`]) with MySQL's answers — the server owes a dropped
//! connection its notice, the cleanup job is owed its run, the lock is
//! free by the recipe's rule, the lock table is its size.

use super::action::Own;
use super::config::MysqlSpace;
use super::state::State;
use crate::engine::agent::Agent;
use crate::engine::command::{Explored, SERVER};
use crate::engine::space::{GrowthWords, NO_AGENT};

impl Explored for MysqlSpace {
    const GROWTH_WORDS: GrowthWords = GrowthWords {
        id: "AUTO_INCREMENT id",
        size: "lock table",
        unit: "rows",
    };
    /// Time is relative and ids are renumbered: nothing grows without
    /// bound.
    const ABSTRACTED: bool = true;

    fn own_agent(&self, a: Own) -> u8 {
        match a {
            // The server owes a connection the network dropped its notice
            // (wait_timeout), as it owes a statement its run.
            Own::ServerNotices(c) => c << 3 | SERVER,
            // The cleanup job runs on its schedule: weak fairness owes it a
            // step, as the reaper's, a periodic job of no client's.
            Own::Cleanup => Agent::REAPER.pack(),
            Own::DropConnection(_) | Own::NetworkDrop(_) | Own::Restart => NO_AGENT,
        }
    }

    fn lock_free(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn server_bytes(&self, s: &State) -> usize {
        s.server.table().rows.len() * 96 + s.server.locks().iter().count() * 64
    }

    fn server_growth(&self, s: &State) -> (i64, usize) {
        let next = i64::try_from(s.server.table().next_id).unwrap_or(i64::MAX);
        (next, s.server.table().rows.len())
    }
}
