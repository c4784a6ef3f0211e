//! A Redis counterexample as a reader follows it: each action with what it
//! did — the command a step sent, the reply the server made, the lease left.

use super::action::Action;
use super::config::RedisSpace;
use super::state::{Channel, Fence, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::Writes;
use crate::engine::path::Counterexample;
use crate::engine::replay::{client_step_words, replay_trace, Described};
use crate::engine::resource;
use crate::engine::trace::Trace;
use crate::redis::Key;

impl RedisSpace {
    /// Replays `actions` from the initial state and says what each did;
    /// `None` if one of them is not enabled where the trace takes it.
    pub fn narrate(&self, actions: &[Action]) -> Option<Vec<String>> {
        let mut s = self.initial_state();
        let mut enabled = Vec::new();
        let mut lines = Vec::new();
        for &a in actions {
            self.enabled(&s, &mut enabled);
            if !enabled.contains(&a) {
                return None;
            }
            let before = s.clone();
            self.take(&mut s, a);
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
                let write = self
                    .resource_write(before, c)
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
}

impl RedisSpace {
    /// Replays `cx` and describes every step as the CLI and JSON show a
    /// trace: who acted, what happened, the lock's key after it, and who
    /// holds. `None` if an action is not enabled where the trace takes it.
    pub fn render_trace(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        replay_trace(self, cx, |before, after, a| Described {
            actor: actor(a),
            text: self.what(before, after, a),
            tree: vec![key_state(after)],
        })
    }

    /// What `a` did, in the recipe's and the server's words (a trace's
    /// text; `confirm` shows it beside what the real server did).
    pub fn what(&self, before: &State, after: &State, a: Action) -> String {
        let mut parts = Vec::new();
        match a {
            Action::Step(c) => {
                let (b, t) = (&before.clients[c as usize], &after.clients[c as usize]);
                let read = match &b.channel {
                    Channel::Replied(r) => Some(r.to_string()),
                    _ => None,
                };
                let sent = match &t.channel {
                    Channel::Sent(cmd) => Some(cmd.to_string()),
                    _ => None,
                };
                let then = self.resource_write(before, c);
                parts = client_step_words(read, b.phase, t.phase, sent, then);
            }
            Action::Think(_) => parts.push("thinks a tick before its next round".into()),
            Action::Serve(c) => match (
                &before.clients[c as usize].channel,
                &after.clients[c as usize].channel,
            ) {
                (Channel::Sent(cmd), Channel::Replied(r)) => parts.push(format!("{cmd} → {r}")),
                _ => parts.push(a.to_string()),
            },
            Action::Pause(c) => parts.push(format!("c{} pauses for {} ticks", c + 1, self.pause)),
            Action::ClockAhead(c) => parts.push(format!(
                "c{}'s clock jumps {} ticks ahead",
                c + 1,
                self.skew
            )),
            Action::ClockBack(c) => {
                parts.push(format!("c{}'s clock jumps {} ticks back", c + 1, self.skew))
            }
            Action::ServerClockAhead => parts.push(format!(
                "the server's clock jumps {} ticks ahead: its TTLs shrink",
                self.skew
            )),
            Action::ServerClockBack => parts.push(format!(
                "the server's clock jumps {} ticks back: its TTLs grow",
                self.skew
            )),
            _ => parts.push(a.to_string()),
        }
        if after.foreign_unlock {
            parts.push("— unlock by non-owner".into());
        }
        parts.join("; ")
    }
}

impl RedisSpace {
    /// What client `c`'s step from `before` did at the resource, if it
    /// wrote there (replayed on a copy: the state keeps no mark of it).
    fn resource_write(&self, before: &State, c: u8) -> Option<String> {
        let cl = &before.clients[c as usize];
        let Fence::Wrote(n) = cl.fence else {
            return None;
        };
        if !self.fencing || !cl.phase.holds() || n >= WRITES || !cl.can_step() {
            return None;
        }
        let mut probe = before.clone();
        let accepted = resource::write(&mut probe, c as usize);
        let which = if n == 0 { "opening" } else { "closing" };
        Some(format!(
            "writes its {which} write to the resource{}",
            resource::describe(&cl.section, accepted, Writes::Fenced)
        ))
    }
}

/// Who takes `a`, as a trace's actor column names it.
fn actor(a: Action) -> String {
    match a {
        Action::Step(c) | Action::Think(c) => format!("c{}", c + 1),
        Action::Serve(c) => format!("redis<-c{}", c + 1),
        Action::Tick => "time".into(),
        Action::Replicate => "replica".into(),
        _ => "FAULT".into(),
    }
}

/// The lock's key after a step.
fn key_state(s: &State) -> String {
    match s.server.entry(&Key::new(super::step::LOCK_KEY)) {
        None => "no key".into(),
        Some(e) => match e.ttl {
            None => format!("lock = {}, no TTL", e.value),
            Some(1) => format!("lock = {}, 1 tick left", e.value),
            Some(t) => format!("lock = {}, {t} ticks left", e.value),
        },
    }
}

/// A Redis trace as a Mermaid `sequenceDiagram`: the clients and the
/// server as participants, each command with its reply on one arrow.
pub fn mermaid(trace: &Trace, clients: u8) -> String {
    crate::engine::trace::one_server_mermaid(trace, clients, "Redis", "redis<-")
}
