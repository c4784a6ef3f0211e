//! The re-enactment: the checker's trace, one action at a time, on the
//! model (what should happen) and on the real server (what does), and the
//! first step where they part.
//!
//! Each real client runs the same recipe machine as the model's, fed only
//! what the real server sent. Its requests go to the server at the trace's
//! `server<-c` steps — one at a time, each answered before the next step —
//! and what the server sends back is held here until the trace's
//! `server->c` steps hand it over. After every step the two sides must
//! agree: every client's whole state (threads, monitors, watch tables,
//! the recipe's fields), what is on its way to each client, and — after a
//! step that may change the server — the tree.

use super::peer::{Line, RealPeer};
use super::trace::reply_lost;
use super::tree::{differ, model_tree, real_tree};
use super::{StepRecord, Stop};
use crate::zk::real::{normalise, CallOutcome, Notification, RawReply, Session};
use locksmith_model::engine::harness::Phase;
use locksmith_model::zk::check::trace;
use locksmith_model::zk::check::{Action, Message, Request, System};
use locksmith_model::zk::client::{Client, Output, Recipe, Thread};
use locksmith_model::zk::recipes::AnyRecipe;
use locksmith_model::zk::{Op, OpResult, Reply, WatchedEvent, ZkError};
use std::time::{Duration, Instant};

/// How long a step may wait for the server to show what it must show (a
/// reply held at the proxy, a dropped connection noticed, a reconnect, a
/// reap).
const PATIENCE: Duration = Duration::from_secs(5);

/// What the last step's transaction did, for the herd property.
#[derive(Clone, Debug, Default)]
pub struct Transaction {
    /// The recipe's release operation, and the server accepted it.
    pub release: bool,
    /// What was sent, for the account.
    pub op: Option<Op>,
    /// Other clients the server notified in this step.
    pub woken: Vec<usize>,
    /// Clients waiting for the lock before the step.
    pub waiting_before: Vec<bool>,
}

pub struct Stage {
    pub model: System<'static>,
    pub peers: Vec<RealPeer>,
    /// The run's own session, not chrooted: reads the tree.
    pub observer: Session,
    pub root: String,
    pub records: Vec<StepRecord>,
    pub last: Transaction,
    /// Steps taken so far (a starvation cycle is taken more than once).
    pub taken: usize,
    /// Every client is a thread of one process on one session
    /// (`shared_session`): client 0's real session and proxy are every
    /// client's, and each other client's own stay idle.
    pub shared: bool,
}

fn diverged(step: usize, expected: impl Into<String>, actual: impl Into<String>) -> Stop {
    Stop::Diverged {
        step,
        expected: expected.into(),
        actual: actual.into(),
    }
}

/// A call and the server's answer, as a step's account reads it.
fn answered(op: &Op, reply: &Reply) -> String {
    match reply {
        Ok(r) => format!("{op} → {r}"),
        Err(e) => format!("{op} → {e}"),
    }
}

/// Step `n` diverged: the server did not answer `op`, which the model
/// answered with the last message it queued.
fn unanswered(
    n: usize,
    op: &Op,
    model_inbox: &std::collections::VecDeque<Message>,
    err: Option<impl std::fmt::Debug>,
) -> Stop {
    diverged(
        n,
        format!(
            "the server answers {op}: {}",
            model_inbox.back().map_or("—".into(), describe_message)
        ),
        format!("no answer ({err:?})"),
    )
}

pub fn describe_message(m: &Message) -> String {
    match m {
        Message::Reply(t, Ok(r)) => format!("reply to {t}: {r}"),
        Message::Reply(t, Err(e)) => format!("reply to {t}: {e}"),
        Message::Event(e) => format!("event {e}"),
    }
}

fn describe_queue<'a>(ms: impl Iterator<Item = &'a Message>) -> String {
    let all: Vec<String> = ms.map(describe_message).collect();
    if all.is_empty() {
        "nothing".into()
    } else {
        all.join("; ")
    }
}

/// A client as a divergence shows it.
pub fn describe_client(c: &Client<AnyRecipe>) -> String {
    format!(
        "phase {:?}; main thread {:?}; event thread {:?}; {} notice(s) queued; session known lost: {}",
        c.phase,
        c.main,
        c.event,
        c.notices.len(),
        c.session_lost
    )
}

/// The server's reply as the recipe reads it: the model's terms, the
/// children sorted (ZooKeeper lists them in no particular order; the model
/// answers sorted, and every recipe sorts), only the `Stat` fields the
/// recipe reads — an `ephemeralOwner` as whether it is the client's
/// `session` (the model's terms: no session id in a recipe's state).
fn as_read(raw: RawReply, client: &Client<AnyRecipe>, session: i64) -> Reply {
    let mut reply = normalise(raw);
    if let Ok(OpResult::GetChildren { children, .. }) = &mut reply {
        children.sort();
    }
    let fields = client.recipe.reads_stat();
    fields.own_session(&mut reply, session);
    fields.mask_reply(&mut reply);
    reply
}

fn node_events(ns: Vec<Notification>) -> Vec<WatchedEvent> {
    ns.into_iter()
        .filter_map(|n| match n {
            Notification::Node(e) => Some(e),
            Notification::Expired => None,
        })
        .collect()
}

/// Whether an action may change the server's tree.
fn writes(a: Action) -> bool {
    matches!(
        a,
        Action::Serve(_)
            | Action::Expire(_)
            | Action::TimeOutSession(_)
            | Action::Reap
            | Action::LoseConnection(_)
            | Action::Reconnect(_)
            | Action::GiveUp(_)
            | Action::ExpireOld(_)
    )
}

impl Stage {
    /// The client whose real session and connection client `c` uses.
    fn host(&self, c: usize) -> usize {
        if self.shared {
            0
        } else {
            c
        }
    }

    /// The clients on client `c`'s session: every client when they share
    /// one, else `c` alone.
    fn mates(&self, c: usize) -> std::ops::Range<usize> {
        if self.shared {
            0..self.peers.len()
        } else {
            c..c + 1
        }
    }

    /// Each client's session ids as the tree names owners (its host's).
    pub fn owner_ids(&self) -> Vec<Vec<i64>> {
        (0..self.peers.len())
            .map(|c| self.peers[self.host(c)].sessions())
            .collect()
    }

    /// A step `confirm` does not force on one shared session yet.
    fn not_shared(&self, n: usize, what: &str) -> Result<(), Stop> {
        if self.shared {
            return Err(Stop::Unforced {
                step: n,
                why: format!("{what} on a session the clients share (shared_session)"),
            });
        }
        Ok(())
    }

    /// Takes action `actions[i]` on both sides (the trace's step `n`,
    /// 1-based, counting a repeated cycle on), then checks they agree.
    pub async fn step(&mut self, actions: &[Action], i: usize) -> Result<(), Stop> {
        let a = actions[i];
        self.taken += 1;
        let n = self.taken;
        let mut enabled = Vec::new();
        self.model.actions(&mut enabled);
        if !enabled.contains(&a) {
            return Err(Stop::Failed(format!(
                "step {n} ({a}) is not enabled in the model: the checker's trace does not replay"
            )));
        }
        let waiting_before: Vec<bool> = self.peers.iter().map(|p| p.client.is_waiting()).collect();
        let handed = match a {
            Action::Deliver(c) => self.model.peers[c as usize].inbox.front().cloned(),
            Action::Overtake(c) => self.model.peers[c as usize].inbox.get(1).cloned(),
            _ => None,
        };
        let before = self
            .model
            .peers
            .iter()
            .map(|p| p.inbox.len())
            .collect::<Vec<_>>();
        let told = trace::step(&mut self.model, a, n);
        self.last = Transaction {
            waiting_before,
            ..Transaction::default()
        };
        let real = match a {
            Action::Run(c, t) => self.run(n, c as usize, t)?,
            Action::TimeOut(c, t) => {
                self.peers[c as usize].client.time_out(t);
                "the timed wait runs out (in the client)".into()
            }
            Action::Serve(c) => self.serve(n, actions, i, c as usize, &before).await?,
            Action::Deliver(c) => self.deliver(n, c as usize, handed, false)?,
            Action::Overtake(c) => self.deliver(n, c as usize, handed, true)?,
            Action::NoticeExpiry(c) => self.notice_expiry(n, c as usize).await?,
            Action::Reap => self.reap(n, &told.tree).await?,
            Action::Expire(c) | Action::TimeOutSession(c) => self.end(c as usize).await?,
            Action::LoseConnection(c) => self.lose_connection(n, c as usize).await?,
            Action::Disconnect(c) => self.disconnect(c as usize).await?,
            Action::Reconnect(c) => self.reconnect(c as usize).await?,
            Action::ClientExpire(c) => self.client_expire(c as usize).await?,
            Action::GiveUp(c) => self.give_up(c as usize).await?,
            Action::ExpireOld(c) => self.expire_old(c as usize).await?,
            Action::StopServer(_) => self.stop_server().await?,
            Action::StartServer => {
                "the server is back: each client's proxy opens at its reconnect step".into()
            }
            // The connection timeout too: the request never left the
            // client, which fails the call itself.
            Action::ConnectTimeout(c) => {
                let p = &mut self.peers[c as usize];
                let Some(req) = p.outbox.pop_front() else {
                    return Err(diverged(
                        n,
                        format!("c{} has a call waiting for the connection", c + 1),
                        "the real client has none",
                    ));
                };
                p.client.on_reply(req.thread, Err(ZkError::ConnectionLoss));
                format!(
                    "{} fails with ConnectionLoss after the connection timeout (in the client; never sent)",
                    req.op
                )
            }
            // The deadline is the client's own clock, as a timed wait is.
            Action::Deadline(c) => {
                self.peers[c as usize].client.pass_deadline();
                "acquire(time, unit)'s deadline passes (in the client)".into()
            }
            Action::Crash(c) => {
                for m in self.mates(c as usize) {
                    let p = &mut self.peers[m];
                    p.client.crash();
                    p.inbox.clear();
                    p.withheld = None;
                }
                let h = self.host(c as usize);
                self.peers[h].leave();
                "the process stops: its connection closes, its session lives on the server".into()
            }
        };
        self.agree(n, a).await?;
        self.records.push(StepRecord {
            step: n,
            model: crate::confirm::line_of(&told),
            actor: told.actor,
            real,
        });
        Ok(())
    }

    fn run(&mut self, n: usize, c: usize, t: Thread) -> Result<String, Stop> {
        let p = &mut self.peers[c];
        let Some(stepped) = p.client.step(t) else {
            return Err(diverged(
                n,
                format!("c{}'s {t} thread takes a step", c + 1),
                format!("it cannot: {}", describe_client(&p.client)),
            ));
        };
        let mut text = match &stepped.output {
            Output::Send(op) => format!("sends {op} (held until the server's step)"),
            Output::Nothing => "(in the client)".to_string(),
            Output::Write => "writes to the resource (not on the server)".to_string(),
        };
        let release = stepped.sent_release();
        if let Output::Send(op) = stepped.output {
            p.outbox.push_back(Request {
                thread: t,
                op,
                release,
            });
        }
        if p.client.phase == Phase::Crashed && matches!(p.line, Line::Attached(_)) {
            p.leave();
            text.push_str("; the process ends: its connection closes, its session lives");
        }
        Ok(text)
    }

    /// The server handles client `c`'s next request.
    async fn serve(
        &mut self,
        n: usize,
        actions: &[Action],
        i: usize,
        c: usize,
        before: &[usize],
    ) -> Result<String, Stop> {
        let model_inbox = self.model.peers[c].inbox.clone();
        let p = &mut self.peers[c];
        let Some(req) = p.outbox.pop_front() else {
            return Err(diverged(
                n,
                format!("c{} has a request on its way", c + 1),
                "the real client sent none",
            ));
        };
        let crashed = p.client.phase == Phase::Crashed;
        // Where the reply lands in the client's queue: after the events its
        // own transaction fired at it.
        let lost = !crashed
            && model_inbox.len() > before[c]
            && reply_lost(actions, i + 1, c as u8, model_inbox.len() - 1);
        let op = req.op.clone();
        let attached = matches!(p.line, Line::Attached(_));
        let (text, reply) = if attached && lost && op != Op::CloseSession {
            self.not_shared(n, "a reply withheld for a connection loss")?;
            (self.serve_withheld(n, c, &op, &model_inbox).await?, None)
        } else {
            self.serve_now(n, c, &req, &model_inbox).await?
        };
        self.last.release = req.release && reply.as_ref().is_some_and(|r| r.is_ok());
        self.last.op = Some(op);
        let woken = self.settle(Some(c)).await?;
        self.last.woken = woken;
        Ok(text)
    }

    /// Client `c`'s request `req` reaches the server now and is answered;
    /// the answer waits here for the trace's delivery. The reply, unless
    /// nobody is left to read it. On the session every client shares, the
    /// request goes out on client 0's connection and the reply is client
    /// `c`'s ([`Self::hear`]).
    async fn serve_now(
        &mut self,
        n: usize,
        c: usize,
        req: &Request,
        model_inbox: &std::collections::VecDeque<Message>,
    ) -> Result<(String, Option<Reply>), Stop> {
        let op = &req.op;
        if self.shared {
            if *op == Op::CloseSession {
                self.not_shared(n, "closing the session")?;
            }
            if !matches!(self.peers[0].line, Line::Attached(_)) {
                self.not_shared(n, "a request with the process gone")?;
            }
        }
        let on = if self.shared { 0 } else { c };
        let crashed = self.peers[c].client.phase == Phase::Crashed;
        let p = &mut self.peers[on];
        let (text, reply) = match &mut p.line {
            Line::Attached(_) if *op == Op::CloseSession => {
                p.kill().await.map_err(Stop::Failed)?;
                let r: Reply = Ok(OpResult::Closed);
                ("closes the session: the server confirms it".to_string(), r)
            }
            Line::Attached(s) => {
                let session = s.id().unwrap_or(0);
                let out = s.call_raw(op).await;
                if !out.answered {
                    return Err(unanswered(n, op, model_inbox, out.reply.err()));
                }
                let CallOutcome {
                    before,
                    reply,
                    after,
                    ..
                } = out;
                let reply = as_read(reply, &self.peers[c].client, session);
                let mut shown = answered(op, &reply);
                if self.shared {
                    shown.push_str(" (on the session every client shares)");
                }
                self.hear(c, req, &reply, node_events(before), node_events(after));
                return Ok((shown, Some(reply)));
            }
            Line::Away(_) => {
                let session = match &p.line {
                    Line::Away(d) => d.id(),
                    _ => 0,
                };
                let out = p.call_away(op).await.map_err(Stop::Failed)?;
                let reply = as_read(out.reply, &p.client, session);
                return Ok((
                    format!(
                        "{}: sent before the process went away; the server applies it, nobody reads the reply",
                        answered(op, &reply)
                    ),
                    Some(reply),
                ));
            }
            Line::Ended(_) => {
                if !p.ended_on_server().await.map_err(Stop::Failed)? {
                    return Err(diverged(
                        n,
                        format!("the server answers {op} with SessionExpired"),
                        "the server still has the session",
                    ));
                }
                (
                    format!("{op} → SessionExpired (the server refuses the ended session)"),
                    Err(ZkError::SessionExpired),
                )
            }
        };
        if !crashed {
            p.inbox.push_back(Message::Reply(req.thread, reply.clone()));
        }
        Ok((text, Some(reply)))
    }

    /// Hands the clients on the session what the server sent for client
    /// `c`'s request `req`: the events its transaction fired before the
    /// reply, the reply (unless `c`'s process crashed), the events after.
    /// On its own session a crashed client's queue still takes the events;
    /// on the session every client shares, only the mates not crashed hear
    /// them.
    fn hear(
        &mut self,
        c: usize,
        req: &Request,
        reply: &Reply,
        before: Vec<WatchedEvent>,
        after: Vec<WatchedEvent>,
    ) {
        let shared = self.shared;
        for (m, p) in self.peers.iter_mut().enumerate() {
            let crashed = p.client.phase == Phase::Crashed;
            let hears = if shared { !crashed } else { m == c };
            if !hears {
                continue;
            }
            p.inbox.extend(before.iter().cloned().map(Message::Event));
            if m == c && !crashed {
                p.inbox.push_back(Message::Reply(req.thread, reply.clone()));
            }
            p.inbox.extend(after.iter().cloned().map(Message::Event));
        }
    }

    /// Sends `op` through the proxy, which lets the request reach the
    /// server and withholds its reply: the trace loses it to a connection
    /// loss before delivering it.
    async fn serve_withheld(
        &mut self,
        n: usize,
        c: usize,
        op: &Op,
        model_inbox: &std::collections::VecDeque<Message>,
    ) -> Result<String, Stop> {
        let p = &mut self.peers[c];
        p.proxy.hold_reply_of_next();
        let Line::Attached(s) = &mut p.line else {
            return Err(Stop::Failed("no session".into()));
        };
        let held = {
            let call = s.call_raw(op);
            tokio::pin!(call);
            tokio::select! {
                out = &mut call => Err(out),
                held = p.proxy.reply_held(PATIENCE) => Ok(held),
            }
        };
        match held {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(Stop::Failed(format!(
                    "the server did not answer {op} within {PATIENCE:?}"
                )))
            }
            Err(out) => {
                return Err(Stop::Failed(format!(
                    "the proxy let the reply to {op} through: {:?}",
                    out.reply.err()
                )))
            }
        }
        // Events the transaction fired at the client itself came before
        // its reply; give them a moment to be read off the socket.
        let expected = model_inbox.len().saturating_sub(p.inbox.len() + 1);
        let since = Instant::now();
        let mut heard = Vec::new();
        while heard.len() < expected && since.elapsed() < Duration::from_millis(500) {
            heard.extend(node_events(s.take_notifications()));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for e in heard {
            p.inbox.push_back(Message::Event(e));
        }
        let Some(slot) = model_inbox.back().cloned() else {
            return Err(diverged(n, "a reply", "none"));
        };
        p.withheld = Some(p.inbox.len());
        p.inbox.push_back(slot);
        Ok(format!(
            "{op} reaches the server, which applies it and answers; the proxy withholds the answer"
        ))
    }

    /// After a transaction: a round trip on every session, so that every
    /// notification it caused has arrived; queues them. Returns the
    /// clients other than `actor` that were notified.
    async fn settle(&mut self, actor: Option<usize>) -> Result<Vec<usize>, Stop> {
        let mut woken = Vec::new();
        if self.shared {
            // One session: what it hears, every mate not crashed hears; no
            // other session is woken (the herd is n/a on one session).
            let heard = node_events(self.peers[0].barrier().await.map_err(Stop::Failed)?);
            for p in self.peers.iter_mut() {
                if p.client.phase != Phase::Crashed {
                    p.inbox.extend(heard.iter().cloned().map(Message::Event));
                }
            }
            return Ok(woken);
        }
        for (d, p) in self.peers.iter_mut().enumerate() {
            let heard = node_events(p.barrier().await.map_err(Stop::Failed)?);
            if heard.is_empty() {
                continue;
            }
            if Some(d) != actor {
                woken.push(d);
            }
            if p.client.phase == Phase::Crashed {
                continue;
            }
            for e in heard {
                p.inbox.push_back(Message::Event(e));
            }
        }
        Ok(woken)
    }

    fn deliver(
        &mut self,
        n: usize,
        c: usize,
        expected: Option<Message>,
        overtake: bool,
    ) -> Result<String, Stop> {
        let p = &mut self.peers[c];
        if overtake {
            if p.inbox.len() < 2 {
                return Err(diverged(
                    n,
                    format!("two messages on their way to c{}", c + 1),
                    describe_queue(p.inbox.iter()),
                ));
            }
            p.inbox.swap(0, 1);
            p.withheld = match p.withheld {
                Some(0) => Some(1),
                Some(1) => Some(0),
                w => w,
            };
        }
        if p.withheld == Some(0) {
            return Err(Stop::Failed(format!(
                "step {n} hands c{} a reply the proxy withheld",
                c + 1
            )));
        }
        let Some(m) = p.inbox.pop_front() else {
            return Err(diverged(
                n,
                expected
                    .as_ref()
                    .map_or("a message".into(), describe_message),
                format!("nothing has arrived for c{}", c + 1),
            ));
        };
        p.withheld = p.withheld.map(|h| h - 1);
        if expected.as_ref() != Some(&m) {
            return Err(diverged(
                n,
                expected.as_ref().map_or("nothing".into(), describe_message),
                describe_message(&m),
            ));
        }
        let text = describe_message(&m);
        match m {
            Message::Reply(t, r) => p.client.on_reply(t, r),
            Message::Event(e) => {
                p.client.on_event(&e);
            }
        }
        Ok(if overtake {
            format!("{text} (handed over out of order by confirm: ZooKeeper never reorders)")
        } else {
            text
        })
    }

    async fn notice_expiry(&mut self, n: usize, c: usize) -> Result<String, Stop> {
        self.not_shared(n, "learning of an expiry")?;
        let p = &mut self.peers[c];
        if !p.ended_on_server().await.map_err(Stop::Failed)? {
            return Err(diverged(
                n,
                format!("c{}'s session has ended", c + 1),
                "the server still has it",
            ));
        }
        p.client.learn_expiry();
        Ok("the server refuses the session (SessionExpired)".into())
    }

    /// The server's container reaper: waits until the real one has taken
    /// what the model's took.
    async fn reap(&mut self, n: usize, changes: &[String]) -> Result<String, Stop> {
        let gone: Vec<&str> = changes.iter().filter_map(|c| c.strip_prefix('-')).collect();
        let since = Instant::now();
        for path in &gone {
            let full = super::root_path(&self.root, path);
            loop {
                let op = Op::Exists {
                    path: full.as_str().into(),
                    watch: false,
                };
                let out = self.observer.call_raw(&op).await;
                if matches!(out.reply, Ok(crate::zk::real::RawResult::Exists(None))) {
                    break;
                }
                if since.elapsed() > PATIENCE {
                    // The reaper runs on the server's own timer, which
                    // confirm cannot drive: a slow one is no divergence.
                    return Err(Stop::Unforced {
                        step: n,
                        why: format!(
                            "the server's container reaper had not deleted {path} after {PATIENCE:?}: its period is the server's znode.container.checkIntervalMs (60 s by default; scripts/zookeeper.sh sets 100 ms)"
                        ),
                    });
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        self.settle(None).await?;
        Ok(format!(
            "the real reaper deleted {} (waited {} ms)",
            gone.join(", "),
            since.elapsed().as_millis()
        ))
    }

    /// The server ends client `c`'s session (expiry, or the time-out of a
    /// session nothing keeps alive).
    async fn end(&mut self, c: usize) -> Result<String, Stop> {
        let h = self.host(c);
        let p = &mut self.peers[h];
        let was = match p.line {
            Line::Attached(_) => "its client detached, ",
            _ => "",
        };
        p.kill().await.map_err(Stop::Failed)?;
        self.settle(Some(c)).await?;
        Ok(format!(
            "{was}a second client attaches to the session with its id and password and closes it"
        ))
    }

    async fn lose_connection(&mut self, n: usize, c: usize) -> Result<String, Stop> {
        self.not_shared(n, "a connection loss with a request in flight")?;
        let p = &mut self.peers[c];
        let text = if p.withheld.is_some() {
            p.proxy.cut();
            "the proxy drops the connection: the server applied the request, its reply is lost"
                .to_string()
        } else if let Some(req) = p.outbox.front().cloned() {
            p.proxy.swallow_next();
            let Line::Attached(s) = &mut p.line else {
                return Err(Stop::Unforced {
                    step: n,
                    why: "a connection loss on a session with no client attached".into(),
                });
            };
            let out = s.call_raw(&req.op).await;
            if p.proxy.swallowed(PATIENCE).await.is_none() {
                return Err(Stop::Failed(format!(
                    "the proxy did not see {} to swallow",
                    req.op
                )));
            }
            format!(
                "the proxy swallows {} and drops the connection: never applied; the library's call fails: {:?}",
                req.op,
                out.reply.err().map(|e| e.to_string()).unwrap_or_default()
            )
        } else {
            return Err(Stop::Unforced {
                step: n,
                why: "a connection loss with no request of the real client in flight".into(),
            });
        };
        p.outbox.clear();
        p.inbox.retain(|m| !matches!(m, Message::Reply(..)));
        p.withheld = None;
        p.client.on_connection_loss();
        p.disconnected = true;
        self.noticed_down(c).await?;
        Ok(text)
    }

    async fn disconnect(&mut self, c: usize) -> Result<String, Stop> {
        let h = self.host(c);
        self.peers[h].proxy.cut();
        for m in self.mates(c) {
            let p = &mut self.peers[m];
            p.client.on_connection_loss();
            p.disconnected = true;
        }
        self.noticed_down(h).await?;
        Ok("the proxy drops the connection (nothing in flight)".into())
    }

    /// A client-side expiry begins: client `c`'s connection stops
    /// answering for good. The proxy drops it and keeps the library from
    /// reconnecting, while the server keeps the session (it times a silent
    /// session out only after the session timeout, longer than any
    /// confirmation); what was on its way is lost, as with a connection
    /// loss.
    async fn client_expire(&mut self, c: usize) -> Result<String, Stop> {
        let (unsent, lost) = self.cut_line(c).await?;
        Ok(format!(
            "the proxy drops the connection and lets no new one through; the server still holds the session: {unsent} request(s) never sent, {lost} reply(ies) lost"
        ))
    }

    /// Client `c`'s proxy drops its connection and lets no new one through
    /// until the model's reconnect step: what was on its way is lost, as
    /// with a connection loss. Returns the requests never sent and the
    /// replies lost.
    async fn cut_line(&mut self, c: usize) -> Result<(usize, usize), Stop> {
        let h = self.host(c);
        self.peers[h].proxy.cut();
        let (mut unsent, mut lost) = (0, 0);
        for m in self.mates(c) {
            let p = &mut self.peers[m];
            unsent += p.outbox.len();
            p.outbox.clear();
            let before = p.inbox.len();
            p.inbox.retain(|m| !matches!(m, Message::Reply(..)));
            p.withheld = None;
            lost += before - p.inbox.len();
            p.client.on_connection_loss();
            p.disconnected = true;
        }
        self.noticed_down(h).await?;
        Ok((unsent, lost))
    }

    /// The server "stops": every client's proxy drops its connection at
    /// once and lets no new one through until that client's reconnect
    /// step, which the model enables only after the start. The server
    /// itself runs on (confirm does not own it); a session it would time
    /// out is longer than any confirmation, so the clients cannot tell.
    async fn stop_server(&mut self) -> Result<String, Stop> {
        let (mut unsent, mut lost) = (0, 0);
        for c in 0..self.peers.len() {
            let p = &mut self.peers[c];
            if p.disconnected {
                continue;
            }
            if p.client.phase == Phase::Crashed {
                p.outbox.clear();
                p.disconnected = true;
                continue;
            }
            let (u, l) = self.cut_line(c).await?;
            unsent += u;
            lost += l;
        }
        Ok(format!(
            "every client's proxy drops its connection and lets no new one through (the server, as the clients see it, is down): {unsent} request(s) never sent, {lost} reply(ies) lost"
        ))
    }

    /// Client `c`'s library gives up on its session and opens a new one.
    /// The new handle is connected at once; the model's reconnect step
    /// (RECONNECTED) follows, and nothing moves on the session until then.
    async fn give_up(&mut self, c: usize) -> Result<String, Stop> {
        let h = self.host(c);
        let (old, new) = self.peers[h].give_up().await.map_err(Stop::Failed)?;
        for m in self.mates(c) {
            let p = &mut self.peers[m];
            p.client.give_up_session();
            p.outbox.clear();
            p.inbox.clear();
        }
        Ok(format!(
            "the library lets go of session {old:#x} without closing it (the server keeps it) and a new handle connects on session {new:#x}"
        ))
    }

    /// The server ends the oldest session client `c` gave up on: forced as
    /// an expiry is, by attaching to it and closing it.
    async fn expire_old(&mut self, c: usize) -> Result<String, Stop> {
        let h = self.host(c);
        let Some(old) = self.peers[h].end_abandoned().await.map_err(Stop::Failed)? else {
            return Ok("no session given up on is left".into());
        };
        self.settle(None).await?;
        Ok(format!(
            "a second client attaches to session {old:#x}, which c{} gave up on, and closes it: its ephemeral nodes go",
            c + 1
        ))
    }

    /// Waits until client `c`'s library has seen its connection drop.
    async fn noticed_down(&mut self, c: usize) -> Result<(), Stop> {
        if let Line::Attached(s) = &self.peers[c].line {
            if !s.until_connected(false, PATIENCE).await {
                return Err(Stop::Failed(format!(
                    "c{}'s client library did not notice its connection drop",
                    c + 1
                )));
            }
        }
        Ok(())
    }

    async fn reconnect(&mut self, c: usize) -> Result<String, Stop> {
        let h = self.host(c);
        let p = &mut self.peers[h];
        p.proxy.open();
        if let Line::Attached(s) = &p.line {
            if !s.until_connected(true, PATIENCE).await {
                return Err(Stop::Failed(format!(
                    "c{}'s client library did not reconnect within {PATIENCE:?}",
                    c + 1
                )));
            }
        }
        // The mates the model let back on the connection (all of them on a
        // shared session, but a closed library's).
        for m in self.mates(c) {
            if self.peers[m].disconnected && !self.model.peers[m].disconnected {
                let p = &mut self.peers[m];
                p.client.on_reconnect();
                p.disconnected = false;
            }
        }
        self.settle(Some(c)).await?;
        Ok("the proxy lets the library reconnect; it re-registers its watches".into())
    }

    /// The two sides agree after step `n`.
    async fn agree(&mut self, n: usize, a: Action) -> Result<(), Stop> {
        for (d, (rp, mp)) in self.peers.iter().zip(self.model.peers.iter()).enumerate() {
            if rp.client != mp.client {
                return Err(diverged(
                    n,
                    format!("c{}: {}", d + 1, describe_client(&mp.client)),
                    format!("c{}: {}", d + 1, describe_client(&rp.client)),
                ));
            }
            if rp.outbox != mp.outbox {
                return Err(diverged(
                    n,
                    format!("c{}'s requests on their way: {:?}", d + 1, mp.outbox),
                    format!("{:?}", rp.outbox),
                ));
            }
            let partial = rp.disconnected || rp.withheld.is_some();
            let agrees = if partial {
                rp.inbox.len() <= mp.inbox.len()
                    && rp.inbox.iter().zip(mp.inbox.iter()).all(|(r, m)| r == m)
            } else {
                rp.inbox == mp.inbox
            };
            if !agrees {
                return Err(diverged(
                    n,
                    format!(
                        "on its way to c{}: {}",
                        d + 1,
                        describe_queue(mp.inbox.iter())
                    ),
                    format!("the server sent: {}", describe_queue(rp.inbox.iter())),
                ));
            }
        }
        if writes(a) {
            let ids = self.owner_ids();
            let real = real_tree(&mut self.observer, &self.root, &ids)
                .await
                .map_err(Stop::Failed)?;
            let expected = model_tree(&self.model);
            if let Some((m, r)) = differ(&self.model, &expected, &real) {
                return Err(diverged(
                    n,
                    format!("the tree has {m}"),
                    format!("the server has {r}"),
                ));
            }
        }
        Ok(())
    }
}
