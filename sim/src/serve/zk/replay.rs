//! `serve --trace`: the checker's shortest counterexample of a scenario,
//! re-enacted on a real client library. The server applies requests and
//! hands out replies, notifications and faults in the trace's order,
//! waiting at each step for the real client to send what the trace says
//! it sends next; the first step where it does something else is a
//! divergence, reported with the step.
//!
//! The rules:
//!
//! - **Clients.** The trace's client `c` is the `c`-th session to connect
//!   (the scenario's clients start alike, so any order will do); they
//!   claim the sessions the scenario's first state has open.
//! - **Requests** wait, per session, in the order they came, until a
//!   `server<-c` step takes the oldest; it must be the port's request
//!   (the same operation, mode, watch and path, where a path compares
//!   with Curator's protection GUID and sequence numbers left out: they
//!   are random in the real client and renamed in the checker).
//! - **Requests outside the trace** are answered at once and not
//!   matched: pings, `SetWatches`, `sync`, `getACL`, anything unsupported,
//!   and every request on a path under `/zookeeper` (Curator's ensemble
//!   tracker reads `/zookeeper/config` on every connect).
//! - **Replies and notifications** wait, per session, until a
//!   `server->c` step sends the oldest.
//! - **Faults**: an expiry is applied at its step, and the client hears of
//!   it (its connection closes) after what was on its way; a client-side
//!   expiry mutes the session (the server still hears it) until the real
//!   library gives up by its own clock and opens a new session, which the
//!   trace's give-up step waits for; the old session's end is applied at
//!   its step (the new session's "reconnect" is the real library's own).
//!   A connection loss (or a disconnect) waits until the real client has
//!   sent the requests the model's drop loses, then drops them unapplied,
//!   loses the replies held for the session, keeps its notifications held,
//!   and closes the connection; the library's reconnects are refused
//!   until the trace's reconnect step, which then waits for the next one
//!   (its `SetWatches` is answered at once). A connection timeout is the
//!   library's own clock running out while it is kept disconnected. A
//!   server stop drops every connection so and refuses every connect,
//!   new sessions' too, until the trace's start; a library that gives up
//!   its session meanwhile is seen by the refused connect of its new
//!   handle, whose session opens once the server is up. The server's clock
//!   expires no session while the trace runs (an expiry is a step), and a
//!   connection the trace leaves down stays down after its end until the
//!   client reports `died` or `finished`. Crashes and reorderings are not
//!   served: the run stops there and says so.
//! - **Thread steps, timed waits, a timed call's deadline, noticing an
//!   expiry** are the real client's own: nothing to do but follow (noticing
//!   an expiry releases what is held for the session, the close last; a
//!   deadline is the client's own clock, so its next steps wait for its
//!   `maxWait` to run out).
//!
//! After every step the served tree must be the trace's (paths compared as
//! above, ephemeral owners exactly). Once the trace ends (or stops), the
//! server answers as it goes, and the clients run to their end; the
//! lock events decide the verdict as in any served run.

use super::super::State;
use super::hub::{Answer, From};
use super::wire::Request;
use locksmith_model::zk::check::{shortest, CheckerTrace};
use locksmith_model::zk::check::{trace, CheckConfig, Property};
use locksmith_model::zk::check::{Action, System};
use locksmith_model::zk::{Op, ZkServer};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// How a re-enactment ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Every step of the trace happened as the trace says.
    Followed { steps: usize },
    /// At `step` the real client did something else.
    Diverged {
        step: usize,
        expected: String,
        actual: String,
    },
    /// At `step` the trace needs something `serve` cannot do yet.
    Unserved { step: usize, action: String },
}

struct Waiting {
    seq: u64,
    from: From,
    head: (i32, i32),
    req: Request,
}

pub struct Replay {
    pub property: Property,
    pub steps: usize,
    actions: Vec<Action>,
    system: System<'static>,
    next: usize,
    /// Each trace client's sessions on the served server, newest last.
    sessions: Vec<Vec<u32>>,
    /// The sessions of the scenario's first state, in the clients' order,
    /// not yet claimed by a connection.
    unclaimed: VecDeque<(usize, u32)>,
    /// The client whose library is giving up its session: its next new
    /// session is that client's.
    giving_up: Option<usize>,
    /// Each trace client's sessions its library gave up, oldest first,
    /// until the server ends them.
    abandoned: Vec<VecDeque<u32>>,
    /// New sessions' connects refused before the server stopped (a
    /// give-up during a stop is seen by one more).
    fresh_refused_at_stop: u64,
    /// New sessions no trace client was expected to open (a library that
    /// gave up a session the trace keeps), and how many there were when
    /// the last step was taken.
    strays: Vec<u32>,
    strays_before: usize,
    pending: BTreeMap<u32, VecDeque<Waiting>>,
    arrivals: u64,
    /// Since when the current step has waited for the real client.
    blocked_since: Option<Instant>,
    patience: Duration,
    pub records: Vec<String>,
    pub outcome: Option<Outcome>,
}

impl Replay {
    /// The trace of `cfg`'s headline property (or `property`), and the
    /// server the run starts from: the scenario's first state's.
    pub fn new(
        cfg: &CheckConfig,
        property: Option<Property>,
        session_timeout: Duration,
    ) -> Result<(Replay, ZkServer), String> {
        let CheckerTrace {
            property, actions, ..
        } = shortest(cfg, property)?;
        let system = System::initial(cfg);
        let server: ZkServer = (*system.server).clone();
        let unclaimed = system
            .peers
            .iter()
            .enumerate()
            .map(|(c, p)| (c, p.session.0))
            .collect();
        Ok((
            Replay {
                property,
                steps: actions.len(),
                sessions: vec![Vec::new(); system.peers.len()],
                abandoned: vec![VecDeque::new(); system.peers.len()],
                fresh_refused_at_stop: 0,
                strays: Vec::new(),
                strays_before: 0,
                actions,
                system,
                next: 0,
                unclaimed,
                giving_up: None,
                pending: BTreeMap::new(),
                arrivals: 0,
                blocked_since: None,
                // A library gives up on a muted session by its own clock
                // (a session timeout after it noticed, plus its
                // reconnects), and a holder's release comes when its
                // critical section ends (the driver's hold).
                patience: session_timeout * 3 + Duration::from_secs(30),
                records: Vec::new(),
                outcome: None,
            },
            server,
        ))
    }

    pub fn running(&self) -> bool {
        self.outcome.is_none()
    }

    /// The session a new connection claims, if the trace still has one.
    pub fn claim(&mut self) -> Option<u32> {
        self.unclaimed.front().map(|(_, id)| *id)
    }

    /// A new session connected (`claimed`: it took one of the first
    /// state's): which trace client it is.
    pub fn connected(&mut self, session: u32, claimed: bool) {
        if claimed {
            if let Some((c, _)) = self.unclaimed.pop_front() {
                self.sessions[c].push(session);
            }
        } else if let Some(c) = self.giving_up.take() {
            self.sessions[c].push(session);
        } else {
            self.strays.push(session);
        }
    }

    /// Whether the trace decides when `req` is applied.
    pub fn traces(&self, req: &Request) -> bool {
        match req {
            Request::Model { op, .. } => !op.paths().iter().all(|p| p.starts_with("/zookeeper")),
            _ => false,
        }
    }

    /// A request the trace will take at its step.
    pub fn wait(&mut self, from: From, head: (i32, i32), req: Request) {
        self.arrivals += 1;
        self.pending
            .entry(from.session)
            .or_default()
            .push_back(Waiting {
                seq: self.arrivals,
                from,
                head,
                req,
            });
    }

    /// A dropped connection loses the requests the model's client has
    /// queued and not had served (its session's, shared or not): the drop
    /// waits until the real client, connected on `id`, has sent as many.
    fn unsent_blocks(&self, connected: bool, c: usize, id: u32) -> Option<Step> {
        let own = self.system.peers[c].session;
        let unsent: usize = self
            .system
            .peers
            .iter()
            .filter(|p| p.session == own)
            .map(|p| p.outbox.len())
            .sum();
        let sent = self.pending.get(&id).map_or(0, VecDeque::len);
        (!connected || sent < unsent).then(|| {
            Step::Blocked(format!(
                "c{} to be connected with {unsent} request(s) sent",
                c + 1
            ))
        })
    }

    fn client_session(&self, c: usize) -> Option<u32> {
        self.sessions.get(c).and_then(|s| s.last().copied())
    }
}

/// A path as the trace and the real client can both name it: Curator's
/// protection prefix (`_c_<uuid>-`), kazoo's uuid (`<uuid>__lock__`) and a
/// sequential suffix left out.
fn normal(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let curator = seg
                .strip_prefix("_c_")
                .and_then(|r| r.rfind("-lock-").map(|i| (r, i)));
            let seg = match (curator, seg.rfind("__lock__")) {
                (Some((rest, i)), _) => format!("_c_*{}", &rest[i..]),
                (None, Some(i)) => format!("*{}", &seg[i..]),
                (None, None) => seg.to_string(),
            };
            let stem = seg.trim_end_matches(|c: char| c.is_ascii_digit());
            if seg.len() - stem.len() == 10 {
                format!("{stem}#")
            } else {
                seg
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn normal_op(op: &Op) -> String {
    let mut op = op.clone();
    for p in op.paths_mut() {
        *p = normal(p).into();
    }
    op.to_string()
}

fn tree(server: &ZkServer) -> Vec<(String, i64)> {
    let mut t: Vec<(String, i64)> = server
        .nodes()
        .map(|(p, n)| (normal(p), n.stat.ephemeral_owner))
        .collect();
    t.sort();
    t
}

enum Step {
    Took(String),
    Blocked(String),
}

/// Takes every step that can be taken now; stops the run at a
/// divergence, an unserved step or the trace's end (then the server
/// answers as it goes).
pub(super) fn advance(s: &mut State, now: Instant) {
    loop {
        let Some(r) = s.zk.replay.as_mut() else {
            return;
        };
        if !r.running() {
            return;
        }
        if r.next == r.actions.len() {
            let steps = r.steps;
            finish(s, Outcome::Followed { steps }, now);
            return;
        }
        match take(s, now) {
            Ok(Step::Took(note)) => {
                let Some(r) = s.zk.replay.as_mut() else {
                    return;
                };
                let a = r.actions[r.next];
                let n = r.next + 1;
                let told = trace::step(&mut r.system, a, n);
                r.records.push(format!(
                    "{n:>3}. {}: {}  [served: {note}]",
                    told.actor, told.text
                ));
                r.next += 1;
                r.blocked_since = None;
                r.strays_before = r.strays.len();
                let served = tree(s.zk.hub.model());
                let Some(r) = s.zk.replay.as_mut() else {
                    return;
                };
                let traced = tree(&r.system.server);
                if served != traced {
                    let outcome = Outcome::Diverged {
                        step: n,
                        expected: format!("the tree {traced:?}"),
                        actual: format!("the served tree {served:?}"),
                    };
                    finish(s, outcome, now);
                    return;
                }
            }
            Ok(Step::Blocked(what)) => {
                let Some(r) = s.zk.replay.as_mut() else {
                    return;
                };
                let since = *r.blocked_since.get_or_insert(now);
                if now.duration_since(since) > r.patience {
                    let outcome = Outcome::Diverged {
                        step: r.next + 1,
                        expected: what,
                        actual: format!("nothing came in {} s", r.patience.as_secs()),
                    };
                    finish(s, outcome, now);
                }
                return;
            }
            Err(outcome) => {
                finish(s, outcome, now);
                return;
            }
        }
    }
}

fn take(s: &mut State, now: Instant) -> Result<Step, Outcome> {
    let Some(r) = s.zk.replay.as_mut() else {
        return Ok(Step::Blocked("no trace".into()));
    };
    let a = r.actions[r.next];
    let n = r.next + 1;
    let mut enabled = Vec::new();
    r.system.actions(&mut enabled);
    if !enabled.contains(&a) {
        return Err(Outcome::Unserved {
            step: n,
            action: format!("{a} is not enabled in the model: the trace does not replay"),
        });
    }
    let unserved = || Outcome::Unserved {
        step: n,
        action: trace::describe(a),
    };
    let session = |r: &Replay, c: u8| r.client_session(c as usize);
    Ok(match a {
        Action::Run(..) | Action::TimeOut(..) => Step::Took("the real client's own step".into()),
        // The deadline of a timed acquire is the real client's own clock:
        // the trace's next steps of that client wait until it has run out
        // (a driver whose maxWait is shorter than the trace's run follows).
        Action::Deadline(_) => Step::Took("the real client's own clock".into()),
        Action::NoticeExpiry(c) => {
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
            };
            while s.zk.hub.release(id).is_some() {}
            Step::Took("what was held for it went out, its connection closed".into())
        }
        Action::Serve(c) => {
            let expected = r.system.peers[c as usize]
                .outbox
                .front()
                .map(|q| normal_op(&q.op))
                .unwrap_or_default();
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!(
                    "c{} to connect and send {expected}",
                    c + 1
                )));
            };
            let Some(front) = r.pending.get(&id).and_then(|q| q.front()) else {
                return Ok(Step::Blocked(format!("c{} to send {expected}", c + 1)));
            };
            let actual = match &front.req {
                Request::Model { op, .. } => normal_op(op),
                other => format!("{other:?}"),
            };
            if actual != expected {
                return Err(Outcome::Diverged {
                    step: n,
                    expected: format!("c{} sends {expected}", c + 1),
                    actual: format!("it sent {actual}"),
                });
            }
            let Some(w) = r.pending.get_mut(&id).and_then(|q| q.pop_front()) else {
                return Ok(Step::Blocked(format!("c{} to send {expected}", c + 1)));
            };
            let session = w.from.session;
            s.zk.hub.request(w.from, w.head, w.req, now, Answer::Hold);
            let notified = std::mem::take(&mut s.zk.hub.notified);
            s.judge.release_woke(session, &notified, now);
            Step::Took(format!("applied {actual}, its reply held"))
        }
        Action::Deliver(c) => {
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
            };
            match s.zk.hub.release(id) {
                Some(what) => Step::Took(what.to_string()),
                None => {
                    return Err(Outcome::Diverged {
                        step: n,
                        expected: format!("a reply or notification on its way to c{}", c + 1),
                        actual: "nothing is held for it".into(),
                    })
                }
            }
        }
        Action::Expire(c) | Action::TimeOutSession(c) => {
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
            };
            s.zk.hub.expire(id, "the trace's step", now);
            Step::Took(format!("session 0x{id:x} expired"))
        }
        Action::Reap => {
            s.zk.hub.reap();
            Step::Took("the reaper ran".into())
        }
        Action::ClientExpire(c) => {
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
            };
            r.giving_up = Some(c as usize);
            s.zk.hub.mute(id, now + Duration::from_secs(3600), now);
            Step::Took(format!("session 0x{id:x} muted until its library gives up"))
        }
        // While the server is stopped the new handle's connect is refused:
        // that refusal is the give-up (its session opens at the start).
        Action::GiveUp(c) if s.zk.hub.outage.stopped => {
            if s.zk.hub.outage.fresh_refused <= r.fresh_refused_at_stop {
                return Ok(Step::Blocked(format!(
                    "c{}'s library to give up and try a new session",
                    c + 1
                )));
            }
            r.fresh_refused_at_stop = s.zk.hub.outage.fresh_refused;
            if let Some(old) = r.client_session(c as usize) {
                r.abandoned[c as usize].push_back(old);
            }
            r.giving_up = Some(c as usize);
            Step::Took("a new session's connect came, refused while the server is stopped".into())
        }
        Action::GiveUp(c) => {
            if r.sessions[c as usize].len() < 2 {
                return Ok(Step::Blocked(format!(
                    "c{}'s library to give up and open a new session",
                    c + 1
                )));
            }
            let ids = &r.sessions[c as usize];
            let old = ids[ids.len() - 2];
            r.abandoned[c as usize].push_back(old);
            r.giving_up = None;
            Step::Took("the real library opened a new session".into())
        }
        // After a give-up during a stop, the new handle connects once the
        // server is up.
        Action::Reconnect(c) if r.giving_up == Some(c as usize) => {
            Step::Blocked(format!("c{}'s new session to connect", c + 1))
        }
        // A connection loss: the requests the trace never applies are the
        // ones the real client has sent and the trace has not served (the
        // step waits until as many have come as the model's lose), and
        // the replies held for it are lost; the real library reconnects on
        // its own, and the trace's reconnect step waits for it.
        Action::LoseConnection(c) | Action::Disconnect(c) => {
            let Some(id) = session(r, c) else {
                return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
            };
            if let Some(blocked) = r.unsent_blocks(s.zk.hub.connected(id), c as usize, id) {
                return Ok(blocked);
            }
            let sent = r.pending.remove(&id).map_or(0, |q| q.len());
            let lost = s.zk.hub.lose_held_replies(id);
            s.zk.hub.drop_connection(id, now);
            s.zk.hub.outage.refuse(id, None);
            Step::Took(format!(
                "connection dropped: {sent} request(s) never applied, {lost} reply(ies) lost; its reconnects refused"
            ))
        }
        Action::Reconnect(c) => {
            let Some(id) = session(r, c) else {
                return Err(unserved());
            };
            s.zk.hub.outage.admit(id);
            if !s.zk.hub.connected(id) {
                if let Some(new) = r.strays.get(r.strays_before) {
                    return Err(Outcome::Diverged {
                        step: n,
                        expected: format!("c{}'s library to reconnect on session 0x{id:x}", c + 1),
                        actual: format!(
                            "a library opened a new session, 0x{new:x}: it gave up a session the trace keeps"
                        ),
                    });
                }
                return Ok(Step::Blocked(format!("c{}'s library to reconnect", c + 1)));
            }
            if !r.abandoned[c as usize].is_empty() {
                // A library that gave up connected its new session itself.
                return Ok(Step::Took(
                    "the real library's new session is connected".into(),
                ));
            }
            Step::Took("the real library reconnected (its SetWatches answered as it came)".into())
        }
        // Curator's `checkTimeouts()` is the library's own clock: the step
        // only needs the connection still down.
        Action::ConnectTimeout(c) => {
            let Some(id) = session(r, c) else {
                return Err(unserved());
            };
            if s.zk.hub.connected(id) {
                return Err(Outcome::Diverged {
                    step: n,
                    expected: format!("c{} still disconnected", c + 1),
                    actual: "it is connected".into(),
                });
            }
            Step::Took("the real library's own clock (its connects refused meanwhile)".into())
        }
        Action::StopServer(_) => {
            let mut dropped = Vec::new();
            for c in 0..r.system.peers.len() {
                let Some(id) = r.client_session(c) else {
                    return Ok(Step::Blocked(format!("c{} to connect", c + 1)));
                };
                if dropped.contains(&id) {
                    continue;
                }
                if let Some(blocked) = r.unsent_blocks(s.zk.hub.connected(id), c, id) {
                    return Ok(blocked);
                }
                dropped.push(id);
            }
            let mut sent = 0;
            let mut lost = 0;
            for id in s.zk.hub.connected_sessions() {
                sent += r.pending.remove(&id).map_or(0, |q| q.len());
                lost += s.zk.hub.lose_held_replies(id);
                s.zk.hub.drop_connection(id, now);
            }
            s.zk.hub.outage.stopped = true;
            r.fresh_refused_at_stop = s.zk.hub.outage.fresh_refused;
            Step::Took(format!(
                "the server stopped: every connection dropped, {sent} request(s) never applied, {lost} reply(ies) lost; every connect refused"
            ))
        }
        Action::StartServer => {
            s.zk.hub.outage.stopped = false;
            Step::Took("the server started: connects are answered again".into())
        }
        Action::ExpireOld(c) => {
            let Some(old) = r.abandoned[c as usize].pop_front() else {
                return Err(unserved());
            };
            s.zk.hub.expire(
                old,
                "the trace's step (the session its library gave up)",
                now,
            );
            Step::Took(format!("the old session 0x{old:x} expired"))
        }
        _ => return Err(unserved()),
    })
}

/// Ends the re-enactment: what is held goes out, muted sessions hear the
/// server again, a stopped server starts, its clock runs again, waiting
/// requests are answered in the order they came, and from now on the
/// server answers as it goes (a connection the trace left down stays down
/// until its client ends: [`admit_ended`]).
fn finish(s: &mut State, outcome: Outcome, now: Instant) {
    let Some(r) = s.zk.replay.as_mut() else {
        return;
    };
    r.outcome = Some(outcome);
    let mut waiting: Vec<Waiting> = std::mem::take(&mut r.pending)
        .into_values()
        .flatten()
        .collect();
    waiting.sort_by_key(|w| w.seq);
    s.zk.hub.unhold();
    s.zk.hub.unmute_all();
    s.zk.hub.outage.stopped = false;
    s.zk.hub.thaw_clock(now);
    for w in waiting {
        let session = w.from.session;
        s.zk.hub.request(w.from, w.head, w.req, now, Answer::Send);
        let notified = std::mem::take(&mut s.zk.hub.notified);
        s.judge.release_woke(session, &notified, now);
    }
}

/// After the trace: a connection it left down comes back once its
/// client's thread has ended (died, or finished its rounds), so what the
/// library does while disconnected is its own, as in the trace.
pub(super) fn admit_ended(s: &mut State) {
    if s.zk.replay.as_ref().is_none_or(|r| r.running()) {
        return;
    }
    for id in s.zk.hub.outage.refused() {
        if s.judge.ended(id) {
            s.zk.hub.outage.admit(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curators_guid_and_sequence_numbers_are_left_out_of_a_path() {
        assert_eq!(
            normal("/locks/_c_67ad2eea-55f7-46f5-a001-262342547a01-lock-0000000003"),
            "/locks/_c_*-lock-#"
        );
        assert_eq!(normal("/locks/_c_a1-lock-0000000000"), "/locks/_c_*-lock-#");
        assert_eq!(normal("/locks/_c_a1-lock-"), "/locks/_c_*-lock-");
        assert_eq!(normal("/locks"), "/locks");
        assert_eq!(normal("/_locknode_/lock-0000000012"), "/_locknode_/lock-#");
        assert_eq!(
            normal("/locks/d7545ab1f4764ecebf914be2db72515a__lock__0000000002"),
            "/locks/*__lock__#"
        );
        assert_eq!(normal("/locks/a__lock__"), "/locks/*__lock__");
    }
}
