//! A Redis counterexample as a reader follows it: each action with what it
//! did — the command a step sent, the reply the server made, the lease left.

use super::action::Action;
use super::config::RedisSpace;
use super::state::{Channel, State};
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
                format!("{a}{sent}{phase}")
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
