//! One case: a sequence run step by step on the model and on the real
//! server, with the transcript printed if they disagree.

use crate::compare::Segment;
use crate::harness::{global_sessions, Harness};
use crate::ops::{Action, Sequence, Step};
use crate::peer::{Peer, EXPIRING_SESSION_TIMEOUT};
use crate::view::{model_view, Normalizer, View};
use locksmith::zk::real::RawResult;
use locksmith_model::zk::{
    CreateMode, Name, Op, OpResult, Reply, Service, SessionId, TxnOp, ZkServer,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// One case in progress: the model, the real sessions and the transcript
/// printed if they disagree.
pub struct Case<'h> {
    pub h: &'h Harness,
    pub root: String,
    pub model: ZkServer,
    pub ids: Vec<SessionId>,
    pub real: Vec<Peer>,
    /// The harness's observer, for the length of the case.
    pub observer: Peer,
    /// Containers the observer holds an `exists` watch on, each with the
    /// model's czxid of the node watched: their `NodeDeleted` tells the
    /// order in which the real reaper took them. The czxid tells a reap from
    /// a step that deleted the container and created its path again (a
    /// multi): the watch fires for both, and only the first leaves the
    /// model's watched node in place.
    pub observed: BTreeMap<String, i64>,
    /// Containers the real server deleted that the model still has, in the
    /// order the real server deleted them.
    pub real_reaped: Vec<String>,
    pub norm: Normalizer,
    pub transcript: String,
    /// Lines about the current step, printed after its head line.
    pub pending: Vec<String>,
    /// Sessions whose connection is cut: the model's zxid when it was cut
    /// (what the client last saw) and the watches its library will send
    /// back (data, exist, child).
    away: BTreeMap<usize, (i64, [Vec<Name>; 3])>,
}

impl<'h> Case<'h> {
    /// Opens the case: its root, then `sessions` sessions, those whose index
    /// `detached` lists opened detached (so that they can expire), those
    /// `proxied` lists through a proxy (so that their connection can be cut).
    async fn start(
        h: &'h Harness,
        sessions: usize,
        (detached, proxied): (&[usize], &[usize]),
    ) -> Result<Case<'h>, String> {
        let root = h.fresh_root();
        let mut model = ZkServer::new();
        model
            .seed_node(&root, CreateMode::Persistent)
            .map_err(|e| format!("model cannot create the root {root}: {e}"))?;
        let model_czxid = model
            .node(&root)
            .ok_or_else(|| format!("the model has no root {root} right after seeding it"))?
            .stat
            .czxid;
        let mut observer = h.observer.borrow_mut().take().expect("observer session");
        let create_root = Op::Create {
            path: root.as_str().into(),
            data: Vec::new(),
            mode: CreateMode::Persistent,
        };
        let real_root = match observer.run(&create_root).await {
            Ok(Ok(RawResult::Created { stat, .. })) => stat,
            other => {
                *h.observer.borrow_mut() = Some(observer);
                return Err(format!(
                    "real server cannot create the root {root}: {other:?}"
                ));
            }
        };
        let zxid_offset = real_root.czxid - model_czxid;
        let mut case = Case {
            h,
            root,
            model,
            ids: Vec::new(),
            real: Vec::new(),
            observer,
            observed: BTreeMap::new(),
            real_reaped: Vec::new(),
            norm: Normalizer {
                zxid_offset,
                owners: BTreeMap::new(),
            },
            transcript: String::new(),
            pending: Vec::new(),
            away: BTreeMap::new(),
        };
        for k in 0..sessions {
            let id = case.model.open_session();
            match Peer::open(&h.addr, detached.contains(&k), proxied.contains(&k)).await {
                Ok(session) => {
                    case.norm.owners.insert(session.id, id.0 as i64);
                    case.ids.push(id);
                    case.real.push(session);
                }
                Err(e) => {
                    // The connect failure is the news, not a failed drain.
                    let _ = case.finish().await;
                    return Err(e);
                }
            }
        }
        let _ = writeln!(
            case.transcript,
            "root {} (real zxid = model zxid + {zxid_offset}); sessions {}",
            case.root,
            case.real
                .iter()
                .zip(&case.ids)
                .map(|(r, m)| format!("s{} = model {m} = real {:#x}", m.0, r.id))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(case)
    }

    /// Gives the observer back to the harness.
    async fn finish(self) -> Result<(), String> {
        let mut observer = self.observer;
        // Leftover notifications (from watches on this case's containers)
        // must not be read as the next case's.
        let synced = observer.sync().await;
        observer.take_events();
        *self.h.observer.borrow_mut() = Some(observer);
        synced
    }

    pub fn line(&mut self, s: impl AsRef<str>) {
        self.transcript.push_str(s.as_ref());
        self.transcript.push('\n');
    }

    pub fn in_case(&self, path: &str) -> bool {
        path == self.root
            || path
                .strip_prefix(self.root.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }

    /// The case's nodes in the model (the root included), in path order.
    fn live(&self) -> Vec<String> {
        self.model
            .nodes()
            .map(|(p, _)| p)
            .filter(|p| self.in_case(p))
            .map(|p| p.to_string())
            .collect()
    }

    /// Runs one step on both sides and compares. `Ok(false)` if skipped (its
    /// session is closed).
    async fn step(&mut self, label: &str, step: &Step) -> Result<bool, String> {
        let k = step.session % self.ids.len();
        let sid = self.ids[k];
        if !self.model.is_alive(sid) {
            self.line(format!("{label} {step:?}: skipped (session closed)"));
            return Ok(false);
        }
        if step.action == Action::Cut {
            if self.away.contains_key(&k) {
                self.line(format!("{label} {step:?}: skipped (cut already)"));
                return Ok(false);
            }
            return self.cut(label, k).await.map(|()| true);
        }
        self.rejoin(label, k).await?;
        let Some(op) = step.action.to_op(&self.root, &self.live()) else {
            return self.expire(label, k).await.map(|()| true);
        };
        // What a close deletes, for the documented simplification below.
        let own_ephemerals: Vec<String> = if op == Op::CloseSession {
            self.model
                .nodes()
                .filter(|(_, n)| n.mode.is_ephemeral() && n.stat.ephemeral_owner == sid.0 as i64)
                .map(|(p, _)| p.to_string())
                .collect()
        } else {
            Vec::new()
        };
        let head = format!("{label} s{} {op}", sid.0);
        let dry = match &op {
            Op::Multi(ops) => self.model.multi_results(sid, ops),
            _ => Vec::new(),
        };
        let outcome = self.model.handle(sid, &op);
        let model_reply = model_view(&outcome.reply, &self.model, &dry);
        let real_view = match self.real[k].run(&op).await {
            Ok(real_reply) => self.norm.view(&real_reply),
            Err(e) => return Err(self.fail(&head, format!("      {e}\n"))),
        };
        let mut segments = vec![Segment {
            events: outcome.events,
            unordered: op == Op::CloseSession,
        }];
        self.settle(&head, &mut segments).await?;
        let closing = (op == Op::CloseSession).then_some((sid, own_ephemerals.as_slice()));
        self.compare(&head, &model_reply, &real_view, &segments, closing)?;
        self.h
            .totals
            .cover(format!("{}: {}", op_kind(&op), reply_kind(&outcome.reply)));
        Ok(true)
    }

    /// Session `k`'s client goes away without closing; once the real server
    /// has expired the session, the model expires it too.
    async fn expire(&mut self, label: &str, k: usize) -> Result<(), String> {
        let sid = self.ids[k];
        let head = format!("{label} s{} (session expires)", sid.0);
        self.real[k].vanish();
        // The observer and every client still there.
        let expected = 1 + self.real.iter().filter(|s| s.is_open()).count() as u64;
        let limit = EXPIRING_SESSION_TIMEOUT * 4;
        let since = Instant::now();
        loop {
            let n = global_sessions(&self.h.addr)?;
            if n <= expected {
                break;
            }
            if since.elapsed() > limit {
                return Err(self.fail(
                    &head,
                    format!(
                        "      the real server has not expired s{} after {limit:?}\n",
                        sid.0
                    ),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let events = self.model.expire(sid);
        let mut segments = vec![Segment {
            events,
            unordered: true,
        }];
        self.settle(&head, &mut segments).await?;
        self.compare(&head, &View::Closed, &View::Closed, &segments, None)?;
        self.h.totals.cover("session expiry".into());
        Ok(())
    }

    /// Session `k`'s connection drops: the real server forgets the watches
    /// that were on it (`NIOServerCnxn` is the watcher), and so does the
    /// model; the session, its nodes and its library's watch table stay.
    async fn cut(&mut self, label: &str, k: usize) -> Result<(), String> {
        let sid = self.ids[k];
        let head = format!("{label} s{} (connection cut)", sid.0);
        let watches = self.model.client_watches(sid);
        self.model.forget_watches(sid);
        self.away.insert(k, (self.model.zxid(), watches));
        if let Err(e) = self.real[k].cut().await {
            return Err(self.fail(&head, format!("      {e}\n")));
        }
        let mut segments = Vec::new();
        self.settle(&head, &mut segments).await?;
        self.compare(&head, &View::Ok, &View::Ok, &segments, None)?;
        self.h.totals.cover("connection cut".into());
        Ok(())
    }

    /// If session `k` is cut, its library reconnects and sends its watches
    /// back; the model answers the same `SetWatches` (`DataTree.setWatches`'
    /// rule against the zxid it last saw), and the notifications it fires
    /// are compared (as a multiset: the library lists its paths in an order
    /// of its own).
    async fn rejoin(&mut self, label: &str, k: usize) -> Result<(), String> {
        let Some((zxid, [data, exist, child])) = self.away.remove(&k) else {
            return Ok(());
        };
        let sid = self.ids[k];
        let list = |v: &[Name]| v.iter().map(Name::as_str).collect::<Vec<_>>().join(" ");
        let head = format!(
            "{label} s{} (reconnects: setWatches({zxid}; data {}; exist {}; child {}))",
            sid.0,
            list(&data),
            list(&exist),
            list(&child)
        );
        if let Err(e) = self.real[k].rejoin().await {
            return Err(self.fail(&head, format!("      {e}\n")));
        }
        let fired = self.model.set_watches(sid, zxid, &data, &exist, &child);
        for e in &fired {
            self.h
                .totals
                .cover(format!("SetWatches fired {:?}", e.kind));
        }
        let mut segments = vec![Segment {
            events: fired.into_iter().map(|e| (sid, e)).collect(),
            unordered: true,
        }];
        self.settle(&head, &mut segments).await?;
        self.compare(&head, &View::Ok, &View::Ok, &segments, None)?;
        self.h.totals.cover("reconnect with SetWatches".into());
        Ok(())
    }

    /// Closes every session still open, on both sides, as compared steps.
    async fn close_all(&mut self) -> Result<u64, String> {
        let mut closes = 0;
        for k in 0..self.ids.len() {
            if self.model.is_alive(self.ids[k]) {
                let step = Step {
                    session: k,
                    action: Action::Close,
                };
                self.step("end.", &step).await?;
                closes += 1;
            }
        }
        Ok(closes)
    }

    /// After a disagreement: closes the real sessions and gives the real
    /// reaper time to finish with this case's containers, so that the next
    /// case (a shrinking step) starts on a quiet server.
    async fn abandon(&mut self) {
        for s in self.real.iter_mut().filter(|s| s.away) {
            let _ = s.rejoin().await;
        }
        for s in &mut self.real {
            // Best effort: the case has already failed.
            let _ = s.close().await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

fn op_kind(op: &Op) -> String {
    let w = |watch: &bool| if *watch { " watch" } else { "" };
    match op {
        Op::Create { mode, .. } => format!("create {mode:?}"),
        Op::Delete { version: -1, .. } => "delete any-version".into(),
        Op::Delete { .. } => "delete versioned".into(),
        Op::SetData { version: -1, .. } => "setData any-version".into(),
        Op::SetData { .. } => "setData versioned".into(),
        Op::Exists { watch, .. } => format!("exists{}", w(watch)),
        Op::GetData { watch, .. } => format!("getData{}", w(watch)),
        Op::GetChildren { watch, .. } => format!("getChildren{}", w(watch)),
        Op::CloseSession => "close".into(),
        Op::Multi(ops) => {
            let check = ops.iter().any(|o| matches!(o, TxnOp::Check { .. }));
            format!(
                "multi of {}{}",
                ops.len(),
                if check { ", with check" } else { "" }
            )
        }
        Op::RemoveWatches { kind, .. } => format!("removeWatches {kind:?}"),
        Op::CheckWatches { kind, .. } => format!("checkWatches {kind:?}"),
    }
}

fn reply_kind(reply: &Reply) -> String {
    match reply {
        Ok(OpResult::Exists(None)) => "null".to_string(),
        Ok(_) => "ok".to_string(),
        Err(e) => format!("{e:?}"),
    }
}

/// Runs one sequence; its transcript if the two sides agree, else the
/// transcript up to and including the disagreement.
pub async fn run_case(h: &Harness, seq: &Sequence) -> Result<String, String> {
    let sessions_that = |a: Action| -> Vec<usize> {
        seq.steps
            .iter()
            .filter(|s| s.action == a)
            .map(|s| s.session % seq.sessions)
            .collect()
    };
    let (detached, proxied) = (sessions_that(Action::Expire), sessions_that(Action::Cut));
    let mut case = Case::start(h, seq.sessions, (&detached, &proxied)).await?;
    let mut ops = 0;
    let mut result = Ok(());
    for (i, step) in seq.steps.iter().enumerate() {
        match case.step(&format!("{:>3}.", i + 1), step).await {
            Ok(ran) => ops += ran as u64,
            Err(report) => {
                result = Err(report);
                break;
            }
        }
    }
    let result = match result {
        Ok(()) => case.close_all().await,
        Err(e) => Err(e),
    };
    if result.is_err() {
        case.abandon().await;
    }
    let transcript = std::mem::take(&mut case.transcript);
    let finished = case.finish().await;
    let closes = result?;
    finished?;
    let t = &h.totals;
    t.sequences.fetch_add(1, Ordering::Relaxed);
    t.ops.fetch_add(ops, Ordering::Relaxed);
    t.closes_at_end.fetch_add(closes, Ordering::Relaxed);
    Ok(transcript)
}
