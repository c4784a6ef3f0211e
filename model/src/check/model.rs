//! The system as a stateright [`Model`], so stateright's own checkers and
//! its Explorer web UI (`checker().serve(..)`) work on any configuration.
//! The shortest-trace verdicts come from [`explore`](super::explore); this
//! exists for stepping through states by hand and for cross-checking.

use super::config::CheckConfig;
use super::property;
use super::system::{Action, System};
use stateright::{Model, Property};

pub struct LockModel {
    pub cfg: CheckConfig,
}

impl Model for LockModel {
    type State = System;
    type Action = Action;

    fn init_states(&self) -> Vec<System> {
        vec![System::initial(&self.cfg)]
    }

    fn actions(&self, state: &System, actions: &mut Vec<Action>) {
        state.actions(actions);
    }

    fn next_state(&self, state: &System, action: Action) -> Option<System> {
        let mut next = state.clone();
        next.apply(action, false);
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("mutual exclusion", |_, s: &System| {
                !property::two_holders(s)
            }),
            Property::always("no deadlock", |_, s: &System| {
                let mut a = Vec::new();
                s.actions(&mut a);
                !property::stuck(s, a.iter().any(|x| !x.is_fault()))
            }),
        ]
    }
}
