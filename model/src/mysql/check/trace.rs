//! A MySQL counterexample as a reader follows it: each action with what it
//! did — the statement a step sent, the server's reply or wait, the lock
//! row after it.

use super::action::Action;
use super::config::MysqlSpace;
use super::state::{Channel, State};
use crate::engine::harness::Writes;
use crate::engine::path::Counterexample;
use crate::engine::replay::{client_step_words, replay_trace, Described};
use crate::engine::resource;
use crate::engine::trace::Trace;
use crate::mysql::recipes::lock_name;
use std::fmt::Write;

impl MysqlSpace {
    /// Replays `cx` and describes every step as the CLI and JSON show a
    /// trace. `None` if an action is not enabled where the trace takes it.
    pub fn render_trace(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        replay_trace(self, cx, |before, after, a| Described {
            actor: actor(a),
            text: self.what(before, after, a),
            tree: vec![row_state(after)],
        })
    }

    fn what(&self, before: &State, after: &State, a: Action) -> String {
        let mut parts = Vec::new();
        match a {
            Action::Step(c) => {
                let (b, t) = (&before.clients[c as usize], &after.clients[c as usize]);
                let read = match &b.channel {
                    Channel::Replied(r) => Some(r.to_string()),
                    _ => None,
                };
                let sent = match &t.channel {
                    Channel::Sent(stmt) => Some(stmt.to_string()),
                    _ => None,
                };
                let mut then = Vec::new();
                if t.timer > 0 && b.timer == 0 && !t.phase.holds() {
                    then.push("sleeps a tick".to_string());
                }
                if t.phase.holds() && b.phase != t.phase && self.fencing {
                    then.push(format!("its token is {}", t.section.token));
                }
                if t.wrote > b.wrote {
                    then.push(self.resource_write(before, c));
                }
                parts = client_step_words(read, b.phase, t.phase, sent, then);
            }
            Action::Think(_) => parts.push("thinks a tick before its next round".into()),
            Action::Serve(c) => {
                let stmt = match &before.clients[c as usize].channel {
                    Channel::Sent(stmt) => stmt.to_string(),
                    _ => String::new(),
                };
                match &after.clients[c as usize].channel {
                    Channel::Replied(r) => parts.push(format!("{stmt} → {r}")),
                    _ => parts.push(format!("{stmt} waits for a row lock")),
                }
                parts.extend(others_answered(before, after, c));
            }
            Action::Tick => {
                parts.push("a tick passes".into());
                parts.extend(others_answered(before, after, u8::MAX));
            }
            Action::Cleanup => parts.push(format!(
                "the cleanup job finds the lock row {} ticks old and releases it",
                self.cleanup_after.unwrap_or(0)
            )),
            Action::Pause(c) => parts.push(format!("c{} pauses for {} ticks", c + 1, self.pause)),
            Action::DropConnection(c) => {
                parts.push(format!(
                    "the server drops c{}'s connection (KILL): its transaction rolls back, its row locks go; its process goes on",
                    c + 1
                ));
                parts.extend(others_answered(before, after, c));
            }
            Action::Crash(c) => {
                parts.push(format!(
                    "c{} crashes: its connection closes, its transaction rolls back",
                    c + 1
                ));
                parts.extend(others_answered(before, after, c));
            }
            Action::NetworkDrop(c) => parts.push(format!(
                "the network drops c{}'s connection: its process goes on; the server keeps its transaction and row locks until it notices",
                c + 1
            )),
            Action::ServerNotices(c) => {
                parts.push(format!(
                    "the server notices c{}'s connection is gone: its transaction rolls back, its row locks go",
                    c + 1
                ));
                parts.extend(others_answered(before, after, c));
            }
            Action::Restart => {
                parts.push(
                    "the server restarts: every connection is gone, uncommitted transactions roll back, committed rows and the AUTO_INCREMENT counter stay".into(),
                );
            }
        }
        if after.foreign_unlock {
            parts.push("— unlock by non-owner".into());
        }
        parts.join("; ")
    }
}

/// The waiting statements of other clients that the action let finish.
fn others_answered(before: &State, after: &State, actor: u8) -> Vec<String> {
    (0u8..)
        .zip(before.clients.iter().zip(&after.clients))
        .filter(|(c, (b, t))| {
            *c != actor
                && matches!(b.channel, Channel::Waiting)
                && matches!(t.channel, Channel::Replied(_))
        })
        .filter_map(|(c, (_, t))| match &t.channel {
            Channel::Replied(r) => Some(format!("c{}'s waiting statement → {r}", c + 1)),
            _ => None,
        })
        .collect()
}

fn actor(a: Action) -> String {
    match a {
        Action::Step(c) | Action::Think(c) => format!("c{}", c + 1),
        Action::Serve(c) => format!("mysql<-c{}", c + 1),
        Action::Tick => "time".into(),
        Action::Cleanup => "cleanup".into(),
        Action::ServerNotices(_) => "mysql".into(),
        _ => "FAULT".into(),
    }
}

impl MysqlSpace {
    /// What client `c`'s write from `before` did at the resource (replayed
    /// on a copy: the state keeps no mark of it).
    fn resource_write(&self, before: &State, c: u8) -> String {
        let cl = &before.clients[c as usize];
        let mut probe = before.clone();
        let accepted = resource::write(&mut probe, c as usize);
        let which = if cl.wrote == 0 { "opening" } else { "closing" };
        format!(
            "writes its {which} write to the resource{}",
            resource::describe(&cl.section, accepted, Writes::Fenced)
        )
    }
}

/// The lock row after a step, committed and pending.
fn row_state(s: &State) -> String {
    let e = s.server.table().entry(&lock_name());
    let show = |r: Option<crate::mysql::table::RowData>| match r {
        None => "no row".to_string(),
        Some(r) => format!("row (status {}, version {})", r.status, r.version),
    };
    let mut out = format!("lock: {}", show(e.committed));
    if let Some((c, r)) = &e.pending {
        let _ = write!(out, ", c{} uncommitted: {}", c + 1, show(*r));
    }
    out
}

/// A MySQL trace as a Mermaid `sequenceDiagram`.
pub fn mermaid(trace: &Trace, clients: u8) -> String {
    crate::engine::trace::one_server_mermaid(trace, clients, "MySQL", "mysql<-")
}
