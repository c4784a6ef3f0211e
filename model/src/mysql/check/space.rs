//! [`MysqlSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::MysqlSpace;
use super::state::{Client, State};
use crate::engine::agent::Agent;
use crate::engine::command_space::{command_space_methods, PROCESS, SERVER};
use crate::engine::space::{GrowthWords, Space, NO_AGENT};

impl Space for MysqlSpace {
    type State = State;
    type Action = Action;

    command_space_methods!();

    fn agent(&self, a: Action) -> u8 {
        match a {
            Action::Step(c) | Action::Think(c) => c << 3 | PROCESS,
            // The server owes a connection the network dropped its notice
            // (wait_timeout), as it owes a statement its run.
            Action::Serve(c) | Action::ServerNotices(c) => c << 3 | SERVER,
            // The cleanup job runs on its schedule: weak fairness owes it a
            // step, as the reaper's, a periodic job of no client's.
            Action::Cleanup => Agent::REAPER.pack(),
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::DropConnection(_)
            | Action::NetworkDrop(_)
            | Action::Restart => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::DropConnection(c) => Action::DropConnection(f(c)),
            Action::NetworkDrop(c) => Action::NetworkDrop(f(c)),
            Action::ServerNotices(c) => Action::ServerNotices(f(c)),
            Action::Tick | Action::Cleanup | Action::Restart => a,
        }
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<Client>()
            + s.server.table().rows.len() * 96
            + s.server.locks().iter().count() * 64
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        let next = i64::try_from(s.server.table().next_id).unwrap_or(i64::MAX);
        (next, s.server.table().rows.len())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "AUTO_INCREMENT id",
            size: "lock table",
            unit: "rows",
        }
    }

    /// Time is relative and ids are renumbered: nothing grows without
    /// bound.
    fn abstracted(&self) -> bool {
        true
    }
}
