//! [`RedisSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::RedisSpace;
use super::state::State;
use crate::engine::command_space::{command_space_methods, PROCESS, SERVER};
use crate::engine::space::{GrowthWords, Space, NO_AGENT};

impl Space for RedisSpace {
    type State = State;
    type Action = Action;

    command_space_methods!();

    fn agent(&self, a: Action) -> u8 {
        match a {
            Action::Step(c) | Action::Think(c) => c << 3 | PROCESS,
            Action::Serve(c) => c << 3 | SERVER,
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::ClockAhead(_)
            | Action::ClockBack(_)
            | Action::ServerClockAhead
            | Action::ServerClockBack
            | Action::Replicate
            | Action::Restart
            | Action::Failover => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::ClockAhead(c) => Action::ClockAhead(f(c)),
            Action::ClockBack(c) => Action::ClockBack(f(c)),
            Action::Tick
            | Action::ServerClockAhead
            | Action::ServerClockBack
            | Action::Replicate
            | Action::Restart
            | Action::Failover => a,
        }
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server, i64::from(self.lease))
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<super::state::Client>()
            + s.server.keys().len() * 96
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        (0, s.server.keys().len())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "id",
            size: "keyspace",
            unit: "keys",
        }
    }

    /// Nothing in a state grows without bound: no counter, no id.
    fn abstracted(&self) -> bool {
        true
    }
}
