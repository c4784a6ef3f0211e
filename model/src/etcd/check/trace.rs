//! An etcd counterexample as a reader follows it: each action with what it
//! did — the request a step sent, the reply the server made, the lock's
//! keys after it. The engine says what every command backend says alike
//! ([`crate::engine::command::trace`]); etcd says its own ([`Narrated`]).

use super::action::{Action, Own};
use super::config::EtcdSpace;
use super::state::{Channel, State};
use crate::engine::command::trace;
use crate::engine::command::{Actor, Narrated};
use crate::engine::path::Counterexample;
use crate::engine::trace::Trace;
use crate::etcd::recipes::LOCK;

impl EtcdSpace {
    /// Replays `cx` and describes every step as the CLI and JSON show a
    /// trace: who acted, what happened, the lock's keys after it, and who
    /// holds. `None` if an action is not enabled where the trace takes it.
    pub fn render_trace(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        trace::render(self, cx)
    }

    /// What `a` did, in the recipe's and the server's words (`confirm`
    /// shows it beside what the real server did).
    pub fn what(&self, before: &State, after: &State, a: Action) -> String {
        trace::what(self, before, after, a)
    }
}

impl Narrated for EtcdSpace {
    const PEER: &'static str = "etcd";

    fn own_actor(&self, a: Own) -> Actor {
        match a {
            Own::LateUnlock(c) => Actor::Server(c),
            Own::Revoke(_)
            | Own::WaiterExpires(_)
            | Own::Compact
            | Own::DelayUnlock(_)
            | Own::Partition(_) => Actor::Fault,
        }
    }

    fn words(&self, before: &State, after: &State, a: Action) -> Vec<String> {
        let mut parts = Vec::new();
        match a {
            Action::Serve(c) => {
                let req = match &before.clients[c as usize].channel {
                    Channel::Sent(req) => req.to_string(),
                    _ => String::new(),
                };
                match &after.clients[c as usize].channel {
                    Channel::Replied(r) => parts.push(format!("{req} → {r}")),
                    Channel::Waiting => parts.push(format!("{req} → watching")),
                    _ => parts.push(a.to_string()),
                }
                woken(before, after, c, &mut parts);
            }
            Action::Tick => {
                let gone: Vec<String> = before
                    .server
                    .leases()
                    .filter(|(id, _)| after.server.lease(*id).is_none())
                    .map(|(id, _)| id.to_string())
                    .collect();
                parts.push("a tick passes".into());
                if !gone.is_empty() {
                    parts.push(format!(
                        "lease {} expires, its keys deleted",
                        gone.join(", ")
                    ));
                }
                woken(before, after, u8::MAX, &mut parts);
            }
            Action::Pause(c) => parts.push(format!(
                "c{} pauses for {} ticks: no steps, no keep-alives",
                c + 1,
                self.pause
            )),
            Action::Partition(c) => parts.push(format!(
                "c{}'s link to etcd is cut for {} ticks: no keep-alives, nothing served or delivered, its process runs on",
                c + 1,
                self.pause
            )),
            Action::LateUnlock(c) => {
                let req = before.clients[c as usize]
                    .own
                    .late
                    .as_ref()
                    .map_or(String::new(), |r| format!(": {r}"));
                let gone: Vec<String> = before
                    .server
                    .with_prefix("")
                    .filter(|kv| {
                        after
                            .server
                            .get(&kv.key)
                            .is_none_or(|now| now.create_revision != kv.create_revision)
                    })
                    .map(|kv| kv.to_string())
                    .collect();
                let what = if gone.is_empty() {
                    "deletes nothing".to_string()
                } else {
                    format!("deletes {}", gone.join(", "))
                };
                parts.push(format!("{a}{req} → {what}"));
                woken(before, after, u8::MAX, &mut parts);
            }
            Action::Revoke(c) | Action::WaiterExpires(c) => {
                parts.push(a.to_string());
                woken(before, after, c, &mut parts);
            }
            _ => parts.push(a.to_string()),
        }
        parts
    }

    /// The lock's keys after a step, oldest first.
    fn lock_state(&self, s: &State) -> String {
        keys(s)
    }
}

/// The watchers (other than `but`) whose watch event came with this step.
fn woken(before: &State, after: &State, but: u8, parts: &mut Vec<String>) {
    for (c, (b, t)) in (0u8..).zip(before.clients.iter().zip(&after.clients)) {
        if c != but && b.channel == Channel::Waiting && t.channel != Channel::Waiting {
            parts.push(format!("c{}'s watch fires", c + 1));
        }
    }
}

/// The lock's keys after a step, oldest first.
fn keys(s: &State) -> String {
    let mut kvs: Vec<_> = s.server.with_prefix(LOCK).collect();
    kvs.sort_by_key(|kv| kv.create_revision);
    if kvs.is_empty() {
        return format!("no lock keys (rev {})", s.server.revision());
    }
    let each: Vec<String> = kvs.iter().map(|kv| kv.to_string()).collect();
    format!("{} (rev {})", each.join(", "), s.server.revision())
}

/// An etcd trace as a Mermaid `sequenceDiagram`: the clients and the
/// server as participants, each request with its reply on one arrow.
pub fn mermaid(trace: &Trace, clients: u8) -> String {
    crate::engine::trace::one_server_mermaid(trace, clients, "etcd", "etcd<-")
}
