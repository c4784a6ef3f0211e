//! An etcd counterexample as a reader follows it: each action with what it
//! did — the request a step sent, the reply the server made, the lock's
//! keys after it.

use super::action::Action;
use super::config::EtcdSpace;
use super::state::{Channel, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::Writes;
use crate::engine::path::Counterexample;
use crate::engine::replay::{client_step_words, replay_trace, Described};
use crate::engine::resource;
use crate::engine::trace::Trace;
use crate::etcd::recipes::LOCK;

impl EtcdSpace {
    /// Replays `cx` and describes every step as the CLI and JSON show a
    /// trace: who acted, what happened, the lock's keys after it, and who
    /// holds. `None` if an action is not enabled where the trace takes it.
    pub fn render_trace(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        replay_trace(self, cx, |before, after, a| Described {
            actor: actor(a),
            text: self.what(before, after, a),
            tree: vec![keys(after)],
        })
    }

    /// What `a` did, in the recipe's and the server's words.
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
                    Channel::Sent(req) => Some(req.to_string()),
                    _ => None,
                };
                let then = self.resource_write(before, c);
                parts = client_step_words(read, b.phase, t.phase, sent, then);
            }
            Action::Think(_) => parts.push("thinks a tick before its next round".into()),
            Action::Serve(c) => {
                let req = match &before.clients[c as usize].channel {
                    Channel::Sent(req) => req.to_string(),
                    _ => String::new(),
                };
                match &after.clients[c as usize].channel {
                    Channel::Replied(r) => parts.push(format!("{req} → {r}")),
                    Channel::Watching => parts.push(format!("{req} → watching")),
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
        if after.foreign_unlock {
            parts.push("— unlock by non-owner".into());
        }
        parts.join("; ")
    }
}

impl EtcdSpace {
    /// What client `c`'s step from `before` did at the resource, if it
    /// wrote there (replayed on a copy: the state keeps no mark of it).
    fn resource_write(&self, before: &State, c: u8) -> Option<String> {
        let cl = &before.clients[c as usize];
        let n = cl.wrote?;
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

/// The watchers (other than `but`) whose watch event came with this step.
fn woken(before: &State, after: &State, but: u8, parts: &mut Vec<String>) {
    for (c, (b, t)) in (0u8..).zip(before.clients.iter().zip(&after.clients)) {
        if c != but && b.channel == Channel::Watching && t.channel != Channel::Watching {
            parts.push(format!("c{}'s watch fires", c + 1));
        }
    }
}

/// Who takes `a`, as a trace's actor column names it.
fn actor(a: Action) -> String {
    match a {
        Action::Step(c) | Action::Think(c) => format!("c{}", c + 1),
        Action::Serve(c) | Action::LateUnlock(c) => format!("etcd<-c{}", c + 1),
        Action::Tick => "time".into(),
        _ => "FAULT".into(),
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
