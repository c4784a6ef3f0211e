//! A MySQL counterexample as a reader follows it: each action with what it
//! did — the statement a step sent, the server's reply or wait, the lock
//! row after it. The engine says what every command backend says alike
//! ([`crate::engine::command::trace`]); MySQL says its own ([`Narrated`]).

use super::action::{Action, Own};
use super::config::MysqlSpace;
use super::state::{Channel, Client, State};
use crate::engine::command::{Actor, Narrated};
use crate::engine::trace::Trace;
use crate::mysql::recipes::lock_name;
use std::fmt::Write;

impl Narrated for MysqlSpace {
    const PEER: &'static str = "mysql";

    fn own_actor(&self, a: Own) -> Actor {
        match a {
            Own::Cleanup => Actor::Named("cleanup"),
            Own::ServerNotices(_) => Actor::Named("mysql"),
            Own::DropConnection(_) | Own::NetworkDrop(_) | Own::Restart => Actor::Fault,
        }
    }

    fn words(&self, before: &State, after: &State, a: Action) -> Vec<String> {
        let mut parts = Vec::new();
        match a {
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
            Action::Step(_) | Action::Think(_) => parts.push(a.to_string()),
        }
        parts
    }

    /// A retry loop's sleep, and the token `lock()` returned with.
    fn step_notes(&self, b: &Client, t: &Client) -> Vec<String> {
        let mut notes = Vec::new();
        if t.timer > 0 && b.timer == 0 && !t.phase.holds() {
            notes.push("sleeps a tick".to_string());
        }
        if t.phase.holds() && b.phase != t.phase && self.fencing {
            notes.push(format!("its token is {}", t.section.token));
        }
        notes
    }

    /// The lock row after a step, committed and pending.
    fn lock_state(&self, s: &State) -> String {
        row_state(s)
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
