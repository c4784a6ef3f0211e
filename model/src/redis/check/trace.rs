//! A Redis counterexample as a reader follows it: each action with what it
//! did — the command a step sent, the reply the server made, the lease
//! left. The engine says what every command backend says alike
//! ([`crate::engine::command::trace`]); Redis says its own ([`Narrated`]).

use super::action::{Action, Own};
use super::config::RedisSpace;
use super::state::{Channel, State};
use crate::engine::command::trace::{self, resource_write};
use crate::engine::command::{Actor, Narrated};
use crate::engine::path::Counterexample;
use crate::engine::space::Space;
use crate::engine::trace::Trace;
use crate::redis::Key;

impl RedisSpace {
    /// Replays `actions` from the initial state and says what each did;
    /// `None` if one of them is not enabled where the trace takes it.
    pub fn narrate(&self, actions: &[Action]) -> Option<Vec<String>> {
        let mut s = self.initial();
        let mut enabled = Vec::new();
        let mut lines = Vec::new();
        for &a in actions {
            self.actions(&s, &mut enabled);
            if !enabled.contains(&a) {
                return None;
            }
            let before = s.clone();
            self.apply(&mut s, a);
            lines.push(self.line(&before, &s, a));
        }
        Some(lines)
    }

    fn line(&self, before: &State, after: &State, a: Action) -> String {
        let key = Key::new(super::step::LOCK_KEY);
        let lease = match after.server.entry(&key) {
            None => "no key".to_string(),
            Some(e) => match e.ttl {
                None => format!("key {} without TTL", e.value),
                Some(t) => format!("key {} for {t} more", e.value),
            },
        };
        let what = match a {
            Action::Step(c) => {
                let (b, t) = (&before.clients[c as usize], &after.clients[c as usize]);
                let sent = match &t.channel {
                    Channel::Sent(cmd) => format!(": {cmd}"),
                    _ => String::new(),
                };
                let phase = if b.phase == t.phase {
                    String::new()
                } else {
                    format!(" [{:?}]", t.phase)
                };
                let write = resource_write(self, before, c)
                    .map(|w| format!(": {w}"))
                    .unwrap_or_default();
                format!("{a}{sent}{phase}{write}")
            }
            Action::Serve(c) => match &after.clients[c as usize].channel {
                Channel::Replied(r) => format!("{a}: {r}"),
                _ => a.to_string(),
            },
            _ => a.to_string(),
        };
        let mark = if after.foreign_unlock {
            "  <- unlock by non-owner"
        } else {
            ""
        };
        format!("{what} ({lease}){mark}")
    }

    /// Replays `cx` and describes every step as the CLI and JSON show a
    /// trace: who acted, what happened, the lock's key after it, and who
    /// holds. `None` if an action is not enabled where the trace takes it.
    pub fn render_trace(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        trace::render(self, cx)
    }

    /// What `a` did, in the recipe's and the server's words (a trace's
    /// text; `confirm` shows it beside what the real server did).
    pub fn what(&self, before: &State, after: &State, a: Action) -> String {
        trace::what(self, before, after, a)
    }
}

impl Narrated for RedisSpace {
    const PEER: &'static str = "redis";

    fn own_actor(&self, a: Own) -> Actor {
        match a {
            Own::Replicate => Actor::Named("replica"),
            _ => Actor::Fault,
        }
    }

    fn words(&self, before: &State, after: &State, a: Action) -> Vec<String> {
        vec![match a {
            Action::Serve(c) => match (
                &before.clients[c as usize].channel,
                &after.clients[c as usize].channel,
            ) {
                (Channel::Sent(cmd), Channel::Replied(r)) => format!("{cmd} → {r}"),
                _ => a.to_string(),
            },
            Action::Pause(c) => format!("c{} pauses for {} ticks", c + 1, self.pause),
            Action::ClockAhead(c) => format!("c{}'s clock jumps {} ticks ahead", c + 1, self.skew),
            Action::ClockBack(c) => format!("c{}'s clock jumps {} ticks back", c + 1, self.skew),
            Action::ServerClockAhead => format!(
                "the server's clock jumps {} ticks ahead: its TTLs shrink",
                self.skew
            ),
            Action::ServerClockBack => format!(
                "the server's clock jumps {} ticks back: its TTLs grow",
                self.skew
            ),
            _ => a.to_string(),
        }]
    }

    /// The lock's key after a step.
    fn lock_state(&self, s: &State) -> String {
        match s.server.entry(&Key::new(super::step::LOCK_KEY)) {
            None => "no key".into(),
            Some(e) => match e.ttl {
                None => format!("lock = {}, no TTL", e.value),
                Some(1) => format!("lock = {}, 1 tick left", e.value),
                Some(t) => format!("lock = {}, {t} ticks left", e.value),
            },
        }
    }
}

/// A Redis trace as a Mermaid `sequenceDiagram`: the clients and the
/// server as participants, each command with its reply on one arrow.
pub fn mermaid(trace: &Trace, clients: u8) -> String {
    crate::engine::trace::one_server_mermaid(trace, clients, "Redis", "redis<-")
}
