//! `confirm` on etcd: the checker's shortest counterexample of an etcd
//! scenario re-enacted step for step on a real etcd — `confirmed` when
//! every reply, every watch event and the lock's keys after every step
//! were the model's, `diverged at step N` with what the model expected and
//! what the server did, or `not confirmed` at a step that cannot be
//! forced.
//!
//! The recipes are the checker's sans-IO machines, stepped by the trace
//! with the model's replies; the server is real, and each of its replies
//! must equal the model's (keys under the run's own prefix, revisions
//! counted from the store's when the run began: [`Rebase`]). Equal replies
//! feed equal recipe machines, so where the model's clients end, the real
//! replies lead too. How each action is forced:
//!
//! - **a client step, a think, a pause**: the harness's own; nothing
//!   reaches the server;
//! - **the server serving a request**: the request at that point of the
//!   trace; a watch opens a real watch stream, and its first answer (an
//!   event at once, or silence) must be the model's;
//! - **a tick**: nothing waits (real time is not the model's ticks); the
//!   leases the model expires at that tick are revoked on the server, which
//!   is what etcd's lessor does to an expired lease;
//! - **a lease revoked, a waiter's lease expiring**: the lease revoked;
//! - **a crash**: the client's watch closes; its lease stays until the
//!   model expires it;
//! - **a partition**: the client's keep-alives stop; the model serves
//!   nothing of its until the link heals, and neither does the run.
//!
//! After every action, every running client's lease gets a keep-alive (a
//! session's TTL is seconds on the real server: the re-enactment takes
//! well under one), every watch event the model delivered must arrive, and
//! the lock's keys must be the model's. A deadlock ends with the waiters'
//! watches silent. Whatever happens, the run's leases are revoked and its
//! keys deleted. The leases carry the model's ids (a client's n-th session
//! asks for `(client + 1) << 8 | n`, and a run revokes them before it
//! begins), so one run at a time per server.

pub mod command;

use crate::confirm::StepRecord;
use crate::confirm::{ConfirmReport, Outcome};
use crate::etcd::real::wire::{Gateway, Rebase, Watch};
use locksmith_model::engine::explore_space;
use locksmith_model::engine::harness::Property;
use locksmith_model::engine::Space;
use locksmith_model::etcd::check::{Action, Channel, EtcdSpace, State};
use locksmith_model::etcd::recipes::LOCK;
use locksmith_model::etcd::{KeyValue, LeaseId, Range, Reply, Request};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// How long an event the model delivered may take to arrive, and how long
/// a watch the model keeps silent is given to prove it wrong.
const DELIVERY: Duration = Duration::from_secs(5);
const SILENCE: Duration = Duration::from_millis(200);

/// Explores `space`, takes the shortest trace of `property` (`None`: the
/// first property violated, in [`Property::ALL`]'s order) and re-enacts
/// it on the etcd at `addr`. The report's `root` is the run's key prefix,
/// its `cleanup` the keys deleted at the end.
pub fn confirm(
    space: &EtcdSpace,
    property: Option<Property>,
    addr: &str,
) -> Result<ConfirmReport, String> {
    let started = Instant::now();
    let x = explore_space(space, &mut |_| ControlFlow::Continue(()));
    let property = property
        .or_else(|| Property::ALL.into_iter().find(|p| x.found.contains_key(p)))
        .ok_or("the checker finds no violation here: nothing to confirm")?;
    let cx = x
        .found
        .get(&property)
        .ok_or_else(|| format!("the checker finds no violation of {property} here"))?;
    let (g, _) = Gateway::connect(addr)?;
    let mut run = Run::begin(g, space)?;
    let outcome = run.reenact(space, &cx.actions, property, cx.cycle_start.is_some());
    let cleanup = run.end();
    Ok(ConfirmReport {
        property,
        trace_steps: cx.actions.len(),
        states: x.states,
        cycle_start: cx.cycle_start.map(|c| c + 1),
        outcome: outcome?,
        transcript: std::mem::take(&mut run.transcript),
        root: run.rebase.prefix.clone(),
        cleanup,
        elapsed: started.elapsed(),
        interrupted: false,
    })
}

struct Run {
    g: Gateway,
    rebase: Rebase,
    /// Every lease id the run's clients can ask for.
    leases: Vec<LeaseId>,
    watches: BTreeMap<u8, Watch>,
    transcript: Vec<StepRecord>,
}

impl Run {
    fn begin(g: Gateway, space: &EtcdSpace) -> Result<Run, String> {
        // A client's n-th session asks for id (client + 1) << 8 | n: at
        // most one per round and per fault.
        let sessions = u16::from(space.acquisitions) + 8;
        let leases: Vec<LeaseId> = (1..=u16::from(space.clients))
            .flat_map(|c| (1..=sessions).map(move |n| LeaseId(c << 8 | n)))
            .collect();
        // Leases an earlier run left (ids are the model's) go first.
        for &id in &leases {
            g.call(&Request::Revoke(id))?;
        }
        let base = match g.call(&Request::Range(Range::key("\0")))? {
            Reply::Range { revision, .. } => revision,
            other => return Err(format!("the store's revision: {other}")),
        };
        Ok(Run {
            rebase: Rebase {
                prefix: format!("locksmith-confirm-{base}/"),
                base,
            },
            g,
            leases,
            watches: BTreeMap::new(),
            transcript: Vec::new(),
        })
    }

    /// Revokes the run's leases and deletes its keys: how many keys were
    /// left to delete.
    fn end(&mut self) -> Result<usize, String> {
        self.watches.clear();
        for &id in &self.leases {
            self.g.call(&Request::Revoke(id))?;
        }
        match self.g.call(&Request::Delete {
            key: self.rebase.prefix.clone(),
            prefix: true,
        })? {
            Reply::Deleted { deleted, .. } => Ok(usize::from(deleted)),
            other => Err(format!("deleting the run's keys: {other}")),
        }
    }

    fn reenact(
        &mut self,
        space: &EtcdSpace,
        actions: &[Action],
        property: Property,
        cycle: bool,
    ) -> Result<Outcome, String> {
        if cycle {
            return Ok(Outcome::Unforced {
                step: 1,
                why: format!(
                    "{property}'s trace ends in a cycle, which a real run cannot repeat for ever"
                ),
            });
        }
        let mut s = space.initial();
        for (i, &a) in actions.iter().enumerate() {
            let step = i + 1;
            let before = s.clone();
            space.apply(&mut s, a);
            let mut real = Vec::new();
            let transition = Transition {
                before: &before,
                after: &s,
                a,
            };
            let check = match self.force(transition, &mut real)? {
                Ok(()) => self.settle(transition, &mut real)?,
                diverged => diverged,
            };
            if let Err((expected, actual)) = check {
                return Ok(Outcome::Diverged {
                    step,
                    expected,
                    actual,
                });
            }
            self.transcript.push(StepRecord {
                step,
                actor: format!("{a}"),
                model: space.what(&before, &s, a),
                real: if real.is_empty() {
                    "—".into()
                } else {
                    real.join("; ")
                },
            });
        }
        // A waiter the model leaves waiting hears nothing on the server.
        for (c, w) in &mut self.watches {
            if let Some(e) = w.next_delete(SILENCE)? {
                return Ok(Outcome::Diverged {
                    step: actions.len(),
                    expected: format!("c{}'s watch silent", c + 1),
                    actual: format!("{e}"),
                });
            }
        }
        Ok(Outcome::Confirmed(format!(
            "{property} on the real etcd: each of the {} steps' replies, watch events and lock keys were the model's, so the recipes fed the real replies end where the model's do{}",
            actions.len(),
            if self.watches.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} still waiting on a watch the server keeps silent)",
                    self.watches.len()
                )
            }
        )))
    }

    /// Does on the server what `a` did in the model.
    fn force(&mut self, transition: Transition, real: &mut Vec<String>) -> Result<Check, String> {
        let Transition { before, after, a } = transition;
        match a {
            Action::Serve(c) => {
                let Channel::Sent(req) = &before.clients[c as usize].channel else {
                    return Ok(Ok(()));
                };
                let want = match &after.clients[c as usize].channel {
                    Channel::Replied(r) => Some(self.rebase.reply(r)),
                    _ => None,
                };
                let sent = self.rebase.request(req);
                let got = if let Request::Watch { key, from } = &sent {
                    let mut w = self.g.watch(key, *from)?;
                    let first = w.next_delete(if want.is_some() { DELIVERY } else { SILENCE })?;
                    if first.is_none() {
                        self.watches.insert(c, w);
                    }
                    first
                } else {
                    Some(self.g.call(&sent)?)
                };
                if got != want {
                    return Ok(Err((describe(&want), describe(&got))));
                }
                real.push(format!("{sent} → {}", describe(&got)));
            }
            Action::Tick => {
                for (id, _) in before.server.leases() {
                    if after.server.lease(id).is_none() {
                        self.g.call(&Request::Revoke(id))?;
                        real.push(format!("lease {id} revoked (the model's expiry)"));
                    }
                }
            }
            Action::Revoke(c) | Action::WaiterExpires(c) => {
                if let Some(id) = before.clients[c as usize].locals.session {
                    self.g.call(&Request::Revoke(id))?;
                    real.push(format!("lease {id} revoked"));
                }
            }
            Action::Crash(c) => {
                self.watches.remove(&c);
                real.push(format!("c{}'s watch closed", c + 1));
            }
            Action::Compact => {
                let to = self.rebase.revision(after.server.compacted());
                self.g.call(&Request::Compact(to))?;
                real.push(format!("compaction {to}"));
            }
            // The held-up request is held here: it is sent when it arrives.
            Action::DelayUnlock(c) => {
                real.push(format!("c{}'s unlock held back", c + 1));
            }
            Action::LateUnlock(c) => {
                if let Some(req) = &before.clients[c as usize].own.late {
                    let sent = self.rebase.request(req);
                    let got = self.g.call(&sent)?;
                    real.push(format!("{sent} → {got}"));
                }
            }
            // The cut is the re-enactment's: it sends no keep-alive for
            // the client and serves none of its requests until the model
            // heals the link (the server's watch events are read as the
            // model delivers them into the link).
            Action::Partition(c) => {
                real.push(format!("c{}'s link cut: no keep-alives", c + 1));
            }
            Action::Step(_) | Action::Think(_) | Action::Pause(_) => {}
        }
        Ok(Ok(()))
    }

    /// After `a`: the events the model delivered arrive, running clients'
    /// leases are kept alive, and the lock's keys are the model's.
    fn settle(&mut self, transition: Transition, real: &mut Vec<String>) -> Result<Check, String> {
        let Transition { before, after, a } = transition;
        for (c, (b, t)) in (0u8..).zip(before.clients.iter().zip(&after.clients)) {
            let fired = b.channel == Channel::Waiting && t.channel != Channel::Waiting;
            if !fired || a == Action::Crash(c) {
                continue;
            }
            let Channel::Replied(r) = &t.channel else {
                continue;
            };
            let want = Some(self.rebase.reply(r));
            let got = match self.watches.get_mut(&c) {
                Some(w) => w.next_delete(DELIVERY)?,
                None => None,
            };
            if got != want {
                return Ok(Err((
                    format!("c{}'s watch: {}", c + 1, describe(&want)),
                    format!("c{}'s watch: {}", c + 1, describe(&got)),
                )));
            }
            self.watches.remove(&c);
            real.push(format!("c{}'s watch: {}", c + 1, describe(&got)));
        }
        let alive: Vec<LeaseId> = after
            .clients
            .iter()
            .filter(|cl| cl.keeps_alive())
            .filter_map(|cl| cl.locals.session)
            .filter(|&id| after.server.lease(id).is_some())
            .collect();
        for id in alive {
            if let Reply::KeptAlive { ttl, .. } = self.g.call(&Request::KeepAlive(id))? {
                if ttl <= 0 {
                    return Ok(Err((
                        format!("lease {id} alive"),
                        format!("lease {id} gone (keep-alive TTL {ttl})"),
                    )));
                }
            }
        }
        let want: Vec<KeyValue> = after
            .server
            .with_prefix(LOCK)
            .map(|kv| self.rebase.kv(kv))
            .collect();
        let got = self.g.call(&Request::Range(Range {
            prefix: true,
            ..Range::key(&self.rebase.key(LOCK))
        }))?;
        if want != got.kvs() {
            return Ok(Err((keys(&want), keys(got.kvs()))));
        }
        Ok(Ok(()))
    }
}

/// One step of the trace: the model's state before and after action `a`.
/// Forcing it and settling after it both read all three.
#[derive(Clone, Copy)]
struct Transition<'a> {
    before: &'a State,
    after: &'a State,
    a: Action,
}

/// `Err((expected, actual))` where the server did not do what the model
/// did.
type Check = Result<(), (String, String)>;

fn describe(r: &Option<Reply>) -> String {
    r.as_ref()
        .map_or("no answer yet (watching)".into(), |r| r.to_string())
}

fn keys(kvs: &[KeyValue]) -> String {
    let all: Vec<String> = kvs.iter().map(KeyValue::to_string).collect();
    if all.is_empty() {
        "no lock keys".into()
    } else {
        all.join(", ")
    }
}
