//! [`EtcdSpace`] as a [`Space`]: what the explorer walks.

use super::action::Action;
use super::config::EtcdSpace;
use super::state::{Channel, Client, State};
use crate::engine::command_space::{command_space_methods, PROCESS, SERVER};
use crate::engine::harness::judge;
use crate::engine::space::{GrowthWords, Space, NO_AGENT};
use crate::etcd::Request;

impl Space for EtcdSpace {
    type State = State;
    type Action = Action;

    command_space_methods!(herd);

    fn agent(&self, a: Action) -> u8 {
        match a {
            Action::Step(c) | Action::Think(c) => c << 3 | PROCESS,
            // The network owes a held-up request its arrival, as the
            // server owes a sent one its serving.
            Action::Serve(c) | Action::LateUnlock(c) => c << 3 | SERVER,
            Action::Tick
            | Action::Pause(_)
            | Action::Crash(_)
            | Action::Revoke(_)
            | Action::WaiterExpires(_)
            | Action::Compact
            | Action::DelayUnlock(_)
            | Action::Partition(_) => NO_AGENT,
        }
    }

    fn relabel(&self, a: Action, f: &dyn Fn(u8) -> u8) -> Action {
        match a {
            Action::Step(c) => Action::Step(f(c)),
            Action::Think(c) => Action::Think(f(c)),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Pause(c) => Action::Pause(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::Revoke(c) => Action::Revoke(f(c)),
            Action::WaiterExpires(c) => Action::WaiterExpires(f(c)),
            Action::DelayUnlock(c) => Action::DelayUnlock(f(c)),
            Action::LateUnlock(c) => Action::LateUnlock(f(c)),
            Action::Partition(c) => Action::Partition(f(c)),
            Action::Tick | Action::Compact => a,
        }
    }

    fn acquirable(&self, s: &State) -> bool {
        self.recipe.acquirable(&s.server)
    }

    fn state_bytes(&self, s: &State) -> usize {
        std::mem::size_of::<State>()
            + s.clients.len() * std::mem::size_of::<Client>()
            + s.server.with_prefix("").count() * 96
    }

    fn growth_marks(&self, s: &State) -> (i64, usize) {
        (s.server.revision(), s.server.with_prefix("").count())
    }

    fn growth_words(&self) -> GrowthWords {
        GrowthWords {
            id: "revision",
            size: "store",
            unit: "keys",
        }
    }

    /// Revisions are kept as they are: every write makes a new one, so
    /// states that differ only in revisions are told apart.
    fn abstracted(&self) -> bool {
        false
    }
}

impl EtcdSpace {
    /// `a`, taken in `s`, is a client's release (its unlock's delete,
    /// served) that fires the watches of two or more clients waiting in
    /// `lock()`.
    pub fn herd(&self, s: &State, a: Action) -> bool {
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
        self.take(&mut t, a);
        let woken = (0..s.clients.len())
            .filter(|&d| d != c as usize)
            .filter(|&d| {
                let (b, n) = (&s.clients[d], &t.clients[d]);
                b.channel == Channel::Watching
                    && n.channel != Channel::Watching
                    && b.phase.locking()
            })
            .count();
        judge::herd(woken)
    }
}
