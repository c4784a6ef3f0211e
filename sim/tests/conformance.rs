//! Differential conformance: the ZooKeeper model against a real ZooKeeper 3.8.
//!
//! proptest generates sequences of requests from 2–3 sessions over a small
//! set of paths (every create mode, deletes and setData with and without
//! versions, exists/getData/getChildren with and without watches, session
//! close) and runs each one, step by step, against the model
//! (`locksmith_model::zk::ZkServer`) and a real server, comparing after every
//! step:
//!
//! - the reply: result or error code; a created node's name with its
//!   sequential suffix and the stat the server returns for it; data;
//!   sorted children lists; every `Stat` field but `ctime`/`mtime` (the
//!   model has no clock): czxid, mzxid, pzxid, version, cversion,
//!   ephemeralOwner, dataLength, numChildren (and `aversion` is 0);
//! - each session's watch notifications, in the order it received them;
//! - container reaping: when the model says a container is reapable, the
//!   real server must delete it (the test waits for its reaper, which
//!   `scripts/zookeeper.sh` runs every 100 ms), with the same notifications.
//!
//! **zxids.** The real server's zxids count its whole history (earlier
//! cases, the observer session), so they are compared through one offset per
//! case: the real minus the model czxid of the case's root. Every later zxid
//! must be exactly `model + offset`. That is sound because nothing else writes
//! to the server while a case runs (one test thread; every session of the
//! previous case closed and every container it emptied reaped before the next
//! starts), and it is strict: it checks that session creation and close,
//! failed writes and reaps consume zxids exactly as the model says.
//!
//! **Session ids** are mapped by opening order: the model's session `k` is
//! the `k`-th real session of the case, and ephemeral owners are compared
//! through that map.
//!
//! These tests need a server and are ignored by a plain `cargo test`:
//!
//! ```text
//! scripts/zookeeper.sh start
//! cargo test -p locksmith --test conformance -- --ignored --nocapture
//! scripts/zookeeper.sh stop
//! ```
//!
//! `PROPTEST_CASES` sets the number of sequences; `LOCKSMITH_ZK_ADDR` the
//! server (default 127.0.0.1:2181); `LOCKSMITH_CONFORMANCE_MIN_OPS` makes
//! the run fail if fewer operations were compared. See docs/conformance.md.

#[path = "conformance/ops.rs"]
mod ops;
#[path = "conformance/real.rs"]
mod real;

use locksmith_model::zk::{
    CreateMode, EventType, Op, OpResult, Reply, Service, SessionId, Stat, WatchedEvent, ZkServer,
};
use ops::{Action, Sequence, Step, Target};
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use real::{RealReply, RealResult, RealSession};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use zookeeper_client as zk;

const DEFAULT_ADDR: &str = "127.0.0.1:2181";
const HOW_TO_START: &str = "start one with `scripts/zookeeper.sh start` (after \
     `apt-get update && apt-get install -y zookeeper`), then run \
     `cargo test -p locksmith --test conformance -- --ignored`";
/// Longest sequence proptest draws.
const MAX_STEPS: usize = 40;
/// How long the real container reaper may take to delete a container the
/// model says is reapable (the script runs it every 100 ms).
const REAP_TIMEOUT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// The harness: a runtime, an observer session and the run's figures.

/// The tests take turns: the zxid check needs the server to themselves.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Harness {
    _turn: std::sync::MutexGuard<'static, ()>,
    rt: tokio::runtime::Runtime,
    addr: String,
    /// A session of the test's own, outside the model: creates each case's
    /// root and watches for container reaps. It never watches anything.
    observer: std::cell::RefCell<Option<RealSession>>,
    /// Unique per process, so roots never collide with earlier runs.
    run: String,
    next_root: AtomicU64,
    totals: Totals,
}

#[derive(Default)]
struct Totals {
    sequences: AtomicU64,
    ops: AtomicU64,
    closes_at_end: AtomicU64,
    events: AtomicU64,
    reaps: AtomicU64,
    close_self_events: AtomicU64,
    /// What the compared steps exercised: "create Container ok",
    /// "delete BadVersion", "event NodeDeleted", ...
    coverage: std::sync::Mutex<BTreeMap<String, u64>>,
}

impl Totals {
    fn cover(&self, what: String) {
        *self.coverage.lock().unwrap().entry(what).or_default() += 1;
    }
}

impl Harness {
    fn connect() -> Harness {
        let turn = SERVER.lock().unwrap_or_else(|e| e.into_inner());
        let addr = std::env::var("LOCKSMITH_ZK_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.into());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let observer = match rt.block_on(RealSession::open(&addr, false)) {
            Ok(c) => c,
            Err(e) => panic!(
                "\n\nNo ZooKeeper answers at {addr}: {e}.\nThis test needs a real server: \
                 {HOW_TO_START}.\n\n"
            ),
        };
        let run = format!(
            "{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis()
        );
        Harness {
            _turn: turn,
            rt,
            addr,
            observer: std::cell::RefCell::new(Some(observer)),
            run,
            next_root: AtomicU64::new(0),
            totals: Totals::default(),
        }
    }

    /// Waits until the observer is the server's only session: sessions left
    /// by an earlier, killed run expire within their timeout, and each would
    /// consume a zxid at a random moment of a case.
    fn wait_until_alone(&self) -> Result<(), String> {
        let limit = real::SESSION_TIMEOUT * 3;
        let since = Instant::now();
        loop {
            let sessions = global_sessions(&self.addr)?;
            if sessions <= 1 {
                return Ok(());
            }
            if since.elapsed() > limit {
                return Err(format!(
                    "the server at {} has {sessions} sessions besides none expected but the \
                     observer, still after {limit:?}: the conformance test needs a ZooKeeper of \
                     its own (scripts/zookeeper.sh start)",
                    self.addr
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn fresh_root(&self) -> String {
        let n = self.next_root.fetch_add(1, Ordering::Relaxed);
        format!("/t{}_{n}", self.run)
    }

    fn coverage(&self) -> String {
        self.totals
            .coverage
            .lock()
            .unwrap()
            .iter()
            .map(|(k, n)| format!("  {n:>7}  {k}\n"))
            .collect()
    }

    fn figures(&self) -> String {
        let t = &self.totals;
        format!(
            "{} sequences, {} generated operations compared (+ {} end-of-sequence closes), \
             {} watch events and {} container reaps matched; {} events to a closing session \
             set aside (documented simplification)",
            t.sequences.load(Ordering::Relaxed),
            t.ops.load(Ordering::Relaxed),
            t.closes_at_end.load(Ordering::Relaxed),
            t.events.load(Ordering::Relaxed),
            t.reaps.load(Ordering::Relaxed),
            t.close_self_events.load(Ordering::Relaxed),
        )
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(mut observer) = self.observer.get_mut().take() {
            self.rt.block_on(observer.close());
        }
    }
}

/// The server's live session count, from the `mntr` four-letter word
/// (whitelisted by scripts/zookeeper.sh).
fn global_sessions(addr: &str) -> Result<u64, String> {
    use std::io::{Read, Write};
    let fail = |e: std::io::Error| format!("mntr on {addr}: {e}");
    let mut conn = std::net::TcpStream::connect(addr).map_err(fail)?;
    conn.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(fail)?;
    conn.write_all(b"mntr").map_err(fail)?;
    let mut out = String::new();
    conn.read_to_string(&mut out).map_err(fail)?;
    out.lines()
        .find_map(|l| l.strip_prefix("zk_global_sessions"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "mntr on {addr} has no zk_global_sessions (is `mntr` in 4lw.commands.whitelist? \
                 scripts/zookeeper.sh sets it): {out:?}"
            )
        })
}

// ---------------------------------------------------------------------------
// Normalising the real side into the model's terms.

/// Maps real zxids and session ids to the model's.
struct Normalizer {
    zxid_offset: i64,
    owners: BTreeMap<i64, i64>,
}

impl Normalizer {
    fn stat(&self, s: &zk::Stat) -> Stat {
        let z = |x: i64| x - self.zxid_offset;
        Stat {
            czxid: z(s.czxid),
            mzxid: z(s.mzxid),
            pzxid: z(s.pzxid),
            version: s.version,
            cversion: s.cversion,
            ephemeral_owner: self
                .owners
                .get(&s.ephemeral_owner)
                .copied()
                .unwrap_or(s.ephemeral_owner),
            data_length: s.data_length,
            num_children: s.num_children,
        }
    }

    fn view(&self, reply: &RealReply) -> View {
        let checked = |s: &zk::Stat| {
            if s.aversion != 0 {
                View::Err(format!("aversion {} (expected 0)", s.aversion))
            } else {
                View::Ok
            }
        };
        match reply {
            Err(e) => View::Err(real_error(e)),
            Ok(r) => {
                let stat = match r {
                    RealResult::Created { stat, .. }
                    | RealResult::SetData(stat)
                    | RealResult::Exists(Some(stat))
                    | RealResult::GetData { stat, .. }
                    | RealResult::GetChildren { stat, .. } => Some(stat),
                    _ => None,
                };
                if let Some(View::Err(e)) = stat.map(checked) {
                    return View::Err(e);
                }
                match r {
                    RealResult::Created { path, stat } => View::Created {
                        path: path.clone(),
                        stat: Some(self.stat(stat)),
                    },
                    RealResult::Deleted => View::Deleted,
                    RealResult::SetData(stat) => View::SetData(self.stat(stat)),
                    RealResult::Exists(stat) => View::Exists(stat.as_ref().map(|s| self.stat(s))),
                    RealResult::GetData { data, stat } => View::GetData {
                        data: data.clone(),
                        stat: self.stat(stat),
                    },
                    RealResult::GetChildren { children, stat } => {
                        let mut children = children.clone();
                        children.sort();
                        View::GetChildren {
                            children,
                            stat: self.stat(stat),
                        }
                    }
                    RealResult::Closed => View::Closed,
                }
            }
        }
    }
}

/// The real client's error as the model's `ZkError` name (or as itself when
/// the model has no such code, which is then a disagreement).
fn real_error(e: &zk::Error) -> String {
    let name = match e {
        zk::Error::NoNode => "NoNode",
        zk::Error::NodeExists => "NodeExists",
        zk::Error::BadVersion => "BadVersion",
        zk::Error::NotEmpty => "NotEmpty",
        zk::Error::NoChildrenForEphemerals => "NoChildrenForEphemerals",
        zk::Error::SessionExpired => "SessionExpired",
        zk::Error::ConnectionLoss => "ConnectionLoss",
        zk::Error::BadArguments(_) => "BadArguments",
        other => return format!("client error: {other}"),
    };
    name.to_string()
}

/// One reply in comparable form: the model's reply, or the real one
/// normalised. A create also carries the created node's stat (the real
/// server returns it; the model's reply has only the name, so its stat is
/// read from the model's tree right after the create).
#[derive(Clone, Debug, PartialEq, Eq)]
enum View {
    Ok,
    Err(String),
    Created { path: String, stat: Option<Stat> },
    Deleted,
    SetData(Stat),
    Exists(Option<Stat>),
    GetData { data: Vec<u8>, stat: Stat },
    GetChildren { children: Vec<String>, stat: Stat },
    Closed,
}

fn model_view(reply: &Reply, model: &ZkServer) -> View {
    match reply {
        Err(e) => View::Err(format!("{e:?}")),
        Ok(OpResult::Created(path)) => View::Created {
            path: path.clone(),
            stat: model.node(path).map(|n| n.stat),
        },
        Ok(OpResult::Deleted) => View::Deleted,
        Ok(OpResult::SetData(s)) => View::SetData(*s),
        Ok(OpResult::Exists(s)) => View::Exists(*s),
        Ok(OpResult::GetData { data, stat }) => View::GetData {
            data: data.clone(),
            stat: *stat,
        },
        Ok(OpResult::GetChildren { children, stat }) => View::GetChildren {
            children: children.clone(),
            stat: *stat,
        },
        Ok(OpResult::Closed) => View::Closed,
    }
}

/// Whether deleting the nodes `deleted` can fire `e` (their own watches, or
/// a child watch on a parent).
fn fired_by_deleting(e: &WatchedEvent, deleted: &[String]) -> bool {
    deleted.iter().any(|d| match e.kind {
        EventType::NodeDeleted => e.path == *d,
        EventType::NodeChildrenChanged => {
            locksmith_model::zk::path::parent(d) == Some(e.path.as_str())
        }
        _ => false,
    })
}

fn events(list: &[WatchedEvent]) -> String {
    if list.is_empty() {
        return "none".into();
    }
    list.iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------
// Running one sequence on both sides.

/// The notifications one transaction (or one request) caused, as the model
/// predicts them.
struct Segment {
    events: Vec<(SessionId, WatchedEvent)>,
    /// The real server fires these in an order of its own (the ephemerals of
    /// one closing session are deleted in hash-set order): compared as a
    /// multiset. See docs/conformance.md, "Simplifications".
    unordered: bool,
}

/// One case in progress: the model, the real sessions and the transcript
/// printed if they disagree.
struct Case<'h> {
    h: &'h Harness,
    root: String,
    model: ZkServer,
    ids: Vec<SessionId>,
    real: Vec<RealSession>,
    /// The harness's observer, for the length of the case.
    observer: RealSession,
    /// Containers the observer holds an `exists` watch on: their
    /// `NodeDeleted` tells the order in which the real reaper took them.
    observed: BTreeSet<String>,
    /// Containers the real server deleted that the model still has, in the
    /// order the real server deleted them.
    real_reaped: Vec<String>,
    norm: Normalizer,
    transcript: String,
    /// Lines about the current step, printed after its head line.
    pending: Vec<String>,
}

impl<'h> Case<'h> {
    /// Opens the case: its root, then `sessions` sessions, those whose index
    /// `detached` lists opened detached (so that they can expire).
    async fn start(
        h: &'h Harness,
        sessions: usize,
        detached: &[usize],
    ) -> Result<Case<'h>, String> {
        let root = h.fresh_root();
        let mut model = ZkServer::new();
        model
            .seed_node(&root, CreateMode::Persistent)
            .map_err(|e| format!("model cannot create the root {root}: {e}"))?;
        let observer = h.observer.borrow_mut().take().expect("observer session");
        let real_root = real::create_persistent(observer.client(), &root).await;
        let real_root = match real_root {
            Ok(stat) => stat,
            Err(e) => {
                *h.observer.borrow_mut() = Some(observer);
                return Err(format!("real server cannot create the root {root}: {e}"));
            }
        };
        let zxid_offset = real_root.czxid - model.node(&root).unwrap().stat.czxid;
        let mut case = Case {
            h,
            root,
            model,
            ids: Vec::new(),
            real: Vec::new(),
            observer,
            observed: BTreeSet::new(),
            real_reaped: Vec::new(),
            norm: Normalizer {
                zxid_offset,
                owners: BTreeMap::new(),
            },
            transcript: String::new(),
            pending: Vec::new(),
        };
        for k in 0..sessions {
            let id = case.model.open_session();
            match RealSession::open(&h.addr, detached.contains(&k)).await {
                Ok(session) => {
                    case.norm.owners.insert(session.id, id.0 as i64);
                    case.ids.push(id);
                    case.real.push(session);
                }
                Err(e) => {
                    case.finish().await;
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
    async fn finish(self) {
        let mut observer = self.observer;
        // Leftover notifications (from watches on this case's containers)
        // must not be read as the next case's.
        observer.sync().await;
        observer.take_events();
        *self.h.observer.borrow_mut() = Some(observer);
    }

    fn line(&mut self, s: impl AsRef<str>) {
        self.transcript.push_str(s.as_ref());
        self.transcript.push('\n');
    }

    fn in_case(&self, path: &str) -> bool {
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
            .cloned()
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
        let Some(op) = step.action.to_op(&self.root, &self.live()) else {
            return self.expire(label, k).await.map(|()| true);
        };
        // What a close deletes, for the documented simplification below.
        let own_ephemerals: Vec<String> = if op == Op::CloseSession {
            self.model
                .nodes()
                .filter(|(_, n)| n.mode.is_ephemeral() && n.stat.ephemeral_owner == sid.0 as i64)
                .map(|(p, _)| p.clone())
                .collect()
        } else {
            Vec::new()
        };
        let outcome = self.model.handle(sid, &op);
        let model_reply = model_view(&outcome.reply, &self.model);
        let real_reply = self.real[k].run(&op).await;
        let real_view = self.norm.view(&real_reply);
        let mut segments = vec![Segment {
            events: outcome.events,
            unordered: op == Op::CloseSession,
        }];
        let head = format!("{label} s{} {op}", sid.0);
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
        let limit = real::EXPIRING_SESSION_TIMEOUT * 4;
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

    /// Reads the observer's notifications: a `NodeDeleted` of a container
    /// the model still has is a real deletion the model has yet to explain
    /// (a reap, or a disagreement).
    async fn observe(&mut self) {
        self.observer.sync().await;
        for e in self.observer.take_events() {
            if !self.in_case(&e.path) {
                continue;
            }
            self.observed.remove(&e.path);
            if e.kind == EventType::NodeDeleted && self.model.node(&e.path).is_some() {
                self.real_reaped.push(e.path);
            }
        }
    }

    /// After a step: the real container reaper's deletions, applied to the
    /// model in the real order once the model agrees they are due; then a
    /// round trip on every session so that every notification has arrived.
    async fn settle(&mut self, head: &str, segments: &mut Vec<Segment>) -> Result<(), String> {
        self.observe().await;
        loop {
            let reapable = reapable(&self.model, |p| self.in_case(p));
            if reapable.is_empty() && self.real_reaped.is_empty() {
                break;
            }
            // Wait for the real reaper to take what the model says is due.
            for path in &reapable {
                let since = Instant::now();
                loop {
                    let stat = tokio::time::timeout(
                        real::CALL_TIMEOUT,
                        self.observer.client().check_stat(path),
                    )
                    .await
                    .map_err(|_| "observer: exists timed out".to_string())?
                    .map_err(|e| format!("observer: exists({path}): {e}"))?;
                    if stat.is_none() {
                        break;
                    }
                    if since.elapsed() > REAP_TIMEOUT {
                        return Err(self.fail(
                            head,
                            format!(
                                "      the model reaps the empty container {path}; the real \
                                 server still has it after {REAP_TIMEOUT:?}: {stat:?}\n"
                            ),
                        ));
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            self.observe().await;
            // Reap in the real order, each as its own transaction.
            let order = std::mem::take(&mut self.real_reaped);
            let mut progressed = false;
            for path in order {
                if !reapable.contains(&path) {
                    let node = self.model.node(&path).cloned();
                    return Err(self.fail(
                        head,
                        format!(
                            "      the real server deleted {path}; the model keeps it \
                             (not reapable now): {node:?}\n"
                        ),
                    ));
                }
                let events = self.model.reap_container(&path);
                self.h.totals.reaps.fetch_add(1, Ordering::Relaxed);
                self.h.totals.cover("container reaped".into());
                self.pending.push(format!(
                    "      (then the reaper deletes the container {path})"
                ));
                segments.push(Segment {
                    events,
                    unordered: false,
                });
                progressed = true;
            }
            if !progressed {
                return Err(self.fail(
                    head,
                    format!(
                        "      the real server deleted the containers {reapable:?} but the \
                         observer's watches did not see it\n"
                    ),
                ));
            }
        }
        // Watch every container (the observer's own watches change nothing
        // the sessions see, and cost no zxid).
        let containers: Vec<String> = self
            .model
            .nodes()
            .filter(|(p, n)| n.mode == CreateMode::Container && self.in_case(p))
            .map(|(p, _)| p.clone())
            .filter(|p| !self.observed.contains(p))
            .collect();
        for path in containers {
            let op = Op::Exists {
                path: path.clone(),
                watch: true,
            };
            match self.observer.run(&op).await {
                Ok(RealResult::Exists(Some(_))) => {
                    self.observed.insert(path);
                }
                other => {
                    return Err(self.fail(
                        head,
                        format!(
                            "      the model has the container {path}; the real server \
                             answers the observer's exists with {other:?}\n"
                        ),
                    ))
                }
            }
        }
        for s in &self.real {
            s.sync().await;
        }
        Ok(())
    }

    fn fail(&mut self, head: &str, diffs: String) -> String {
        self.line(format!("{head}   <-- DISAGREEMENT"));
        for l in std::mem::take(&mut self.pending) {
            self.line(l);
        }
        self.transcript.push_str(&diffs);
        std::mem::take(&mut self.transcript)
    }

    fn compare(
        &mut self,
        head: &str,
        model_reply: &View,
        real_reply: &View,
        segments: &[Segment],
        closing: Option<(SessionId, &[String])>,
    ) -> Result<(), String> {
        let mut diffs = String::new();
        if model_reply != real_reply {
            let _ = writeln!(diffs, "      reply  model: {model_reply:?}");
            let _ = writeln!(diffs, "      reply  real : {real_reply:?}");
        }
        let mut agreed_events = Vec::new();
        let mut matched = 0;
        for (k, sid) in self.ids.clone().into_iter().enumerate() {
            let mut real = self.real[k].take_events();
            if let Some((closer, deleted)) = closing.filter(|(c, _)| *c == sid) {
                // Simplification (model/src/zk/sessions.rs): the model drops a
                // closing session's watches before its close deletes the
                // session's ephemerals; the real server still delivers to the
                // closing client what those deletes fire. Exactly those, and
                // nothing else, are set aside here.
                let (own, rest): (Vec<_>, Vec<_>) = real
                    .into_iter()
                    .partition(|e| fired_by_deleting(e, deleted));
                if !own.is_empty() {
                    self.h
                        .totals
                        .close_self_events
                        .fetch_add(own.len() as u64, Ordering::Relaxed);
                    agreed_events.push(format!(
                        "s{} (closing; real only, simplification): {}",
                        closer.0,
                        events(&own)
                    ));
                }
                real = rest;
            }
            // The model's events for this session, one slice per segment;
            // the real ones cut to the same lengths.
            let mut model_all = Vec::new();
            let mut same = true;
            let mut at = 0;
            for seg in segments {
                let mut model: Vec<WatchedEvent> = seg
                    .events
                    .iter()
                    .filter(|(s, _)| *s == sid)
                    .map(|(_, e)| e.clone())
                    .collect();
                model_all.extend(model.iter().cloned());
                let end = (at + model.len()).min(real.len());
                let mut got = real[at..end].to_vec();
                at = end;
                if seg.unordered {
                    model.sort();
                    got.sort();
                }
                same &= model == got;
            }
            same &= at == real.len();
            if !same {
                let _ = writeln!(
                    diffs,
                    "      events of s{} model: {}",
                    sid.0,
                    events(&model_all)
                );
                let _ = writeln!(diffs, "      events of s{} real : {}", sid.0, events(&real));
            } else if !model_all.is_empty() {
                matched += model_all.len();
                agreed_events.push(format!("s{}: {}", sid.0, events(&model_all)));
            }
        }
        let stray: Vec<_> = segments
            .iter()
            .flat_map(|seg| &seg.events)
            .filter(|(s, _)| !self.ids.contains(s))
            .collect();
        if !stray.is_empty() {
            let _ = writeln!(diffs, "      model events for unknown sessions: {stray:?}");
        }
        if !diffs.is_empty() {
            return Err(self.fail(head, diffs));
        }
        let t = &self.h.totals;
        t.events.fetch_add(matched as u64, Ordering::Relaxed);
        for (_, e) in segments.iter().flat_map(|seg| &seg.events) {
            t.cover(format!("event {:?}", e.kind));
        }
        self.line(format!("{head} -> {model_reply:?}"));
        for l in std::mem::take(&mut self.pending) {
            self.line(l);
        }
        if !agreed_events.is_empty() {
            self.line(format!("      events {}", agreed_events.join("; ")));
        }
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
        for s in &mut self.real {
            s.close().await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// The containers a reaper pass would take now (as `ZkServer` decides it:
/// had a child, has none), among the paths `keep` accepts.
fn reapable(model: &ZkServer, keep: impl Fn(&str) -> bool) -> Vec<String> {
    model
        .nodes()
        .filter(|(p, n)| {
            n.mode == CreateMode::Container
                && n.stat.cversion > 0
                && n.stat.num_children == 0
                && keep(p)
        })
        .map(|(p, _)| p.clone())
        .collect()
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
async fn run_case(h: &Harness, seq: &Sequence) -> Result<String, String> {
    let detached: Vec<usize> = seq
        .steps
        .iter()
        .filter(|s| s.action == Action::Expire)
        .map(|s| s.session % seq.sessions)
        .collect();
    let mut case = Case::start(h, seq.sessions, &detached).await?;
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
    case.finish().await;
    let closes = result?;
    let t = &h.totals;
    t.sequences.fetch_add(1, Ordering::Relaxed);
    t.ops.fetch_add(ops, Ordering::Relaxed);
    t.closes_at_end.fetch_add(closes, Ordering::Relaxed);
    Ok(transcript)
}

// ---------------------------------------------------------------------------
// The tests.

/// The measured figure: proptest's sequences against the real server.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: run scripts/zookeeper.sh start, then cargo test -p locksmith --test conformance -- --ignored"]
fn model_agrees_with_real_zookeeper() {
    let h = Harness::connect();
    let mut config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/conformance.proptest-regressions"
        )))),
        max_shrink_time: 180_000,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 64;
    }
    let cases = config.cases;
    let started = Instant::now();
    let mut runner = TestRunner::new(config);
    let result = runner.run(&ops::sequence(MAX_STEPS), |seq| {
        h.wait_until_alone().map_err(TestCaseError::fail)?;
        h.rt.block_on(run_case(&h, &seq))
            .map(|_| ())
            .map_err(TestCaseError::fail)
    });
    let figures = h.figures();
    match result {
        Ok(()) => {
            println!(
                "conformance: {figures}; 0 disagreements ({cases} cases in {:.1?}, server {})\n\
                 what the agreeing steps exercised:\n{}",
                started.elapsed(),
                h.addr,
                h.coverage()
            );
        }
        Err(TestError::Fail(why, seq)) => panic!(
            "\n\nThe model and the real ZooKeeper disagree. Minimal sequence:\n{seq:?}\n\
             Step by step (model vs real):\n{why}\n(figures before shrinking ended: {figures})\n"
        ),
        Err(TestError::Abort(why)) => panic!("conformance run aborted: {why}"),
    }
    if let Some(min) = std::env::var("LOCKSMITH_CONFORMANCE_MIN_OPS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        let ops = h.totals.ops.load(Ordering::Relaxed);
        assert!(
            ops >= min,
            "only {ops} operations compared, fewer than LOCKSMITH_CONFORMANCE_MIN_OPS={min}: \
             raise PROPTEST_CASES"
        );
    }
}

// ---------------------------------------------------------------------------
// Fixed cases: the points the model was least sure of, each run on both
// sides exactly like a generated sequence, so that every run checks them
// whatever proptest draws. With --nocapture each prints its transcript.

fn name(path: &str) -> Target {
    Target::Name(
        ops::NAMES
            .iter()
            .position(|n| *n == path)
            .unwrap_or_else(|| panic!("{path:?} is not in ops::NAMES")),
    )
}

fn at(session: usize, action: Action) -> Step {
    Step { session, action }
}

/// `create(parent + child)`: `child` from ops::CHILD_NAMES, or for a
/// sequential mode from ops::SEQ_PREFIXES.
fn create(session: usize, parent: &str, child: &str, mode: CreateMode) -> Step {
    let names = if mode.is_sequential() {
        ops::SEQ_PREFIXES
    } else {
        ops::CHILD_NAMES
    };
    let name = names
        .iter()
        .position(|n| *n == child)
        .unwrap_or_else(|| panic!("{child:?} is not a child name for {mode:?}"));
    at(
        session,
        Action::Create {
            parent: self::name(parent),
            name,
            mode,
            data: b"d".to_vec(),
        },
    )
}

fn delete(session: usize, path: &str) -> Step {
    at(
        session,
        Action::Delete {
            at: name(path),
            version: -1,
        },
    )
}

fn exists(session: usize, path: &str) -> Step {
    at(
        session,
        Action::Exists {
            at: name(path),
            watch: true,
        },
    )
}

fn get_data(session: usize, path: &str) -> Step {
    at(
        session,
        Action::GetData {
            at: name(path),
            watch: true,
        },
    )
}

fn children(session: usize, path: &str) -> Step {
    at(
        session,
        Action::GetChildren {
            at: name(path),
            watch: true,
        },
    )
}

fn set_data(session: usize, target: Target, version: i32) -> Step {
    at(
        session,
        Action::SetData {
            at: target,
            data: b"new".to_vec(),
            version,
        },
    )
}

/// The fixed cases, each with what it shows. Session numbers are 0-based
/// here (s1 is 0).
fn fixed_cases() -> Vec<(&'static str, Sequence)> {
    use CreateMode::*;
    let seq = |sessions, steps| Sequence { sessions, steps };
    vec![
        (
            "a delete bumps the parent's cversion; the next sequential suffix does not skip",
            seq(2, vec![
                create(0, "", "a-", PersistentSequential),
                create(0, "", "a-", EphemeralSequential),
                // live#1 is the first child, a-0000000000
                at(0, Action::Delete { at: Target::Live(1), version: -1 }),
                create(0, "", "", PersistentSequential),
                children(1, ""),
                at(1, Action::GetData { at: name(""), watch: false }),
            ]),
        ),
        (
            "a sequential create whose name is taken fails with NodeExists; the counter stays",
            seq(2, vec![
                create(0, "", "a-0000000001", Persistent),
                create(0, "", "a-", PersistentSequential),
                create(0, "", "a-", PersistentSequential),
                children(1, ""),
            ]),
        ),
        (
            "failed writes, session creation and close each consume a zxid",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "", "a", Persistent),                     // NodeExists
                delete(0, "b"),                                     // NoNode
                set_data(0, name("a"), 7),                          // BadVersion
                create(0, "a/x", "x", Persistent),                  // NoNode (no parent)
                at(2, Action::Close),
                create(1, "", "b", Persistent),
                at(1, Action::GetData { at: name("b"), watch: false }),
            ]),
        ),
        (
            "containers: ephemeralOwner 0, read like any node, reaped once emptied",
            seq(2, vec![
                create(0, "", "a", Container),
                at(0, Action::Exists { at: name("a"), watch: false }),
                at(0, Action::GetData { at: name("a"), watch: false }),
                at(0, Action::GetChildren { at: name("a"), watch: false }),
                create(0, "a", "x", Ephemeral),
                exists(1, "a"),
                children(1, "a"),
                children(1, ""),
                delete(0, "a/x"),
                exists(1, "a"),
            ]),
        ),
        (
            "a container inside a container: the outer one goes in a later reaper pass",
            seq(2, vec![
                create(0, "", "a", Container),
                create(0, "a", "x", Container),
                create(0, "a/x", "x", Persistent),
                exists(1, "a"),
                exists(1, "a/x"),
                delete(0, "a/x"), // NotEmpty: a/x has a child
                at(0, Action::Delete { at: Target::Live(3), version: -1 }), // a/x/x
            ]),
        ),
        (
            "one delete, several watches: NodeDeleted (data and child watch, once) before the parent's NodeChildrenChanged",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "a", "x", Persistent),
                exists(1, "a/x"),
                get_data(1, "a/x"),
                children(1, "a/x"),
                children(1, "a"),
                children(2, "a"),
                exists(2, "a/x"),
                delete(0, "a/x"),
            ]),
        ),
        (
            "exists on a missing node watches for NodeCreated; getData on one sets no watch",
            seq(2, vec![
                exists(1, "a"),
                exists(1, "a"),
                get_data(1, "b"),
                create(0, "", "a", Persistent),
                create(0, "", "b", Persistent),
                exists(1, "a"),
                get_data(1, "a"),
                set_data(0, name("a"), -1),
            ]),
        ),
        (
            "a close deletes all the session's ephemerals in one transaction",
            seq(3, vec![
                create(0, "", "a", Persistent),
                create(0, "", "b", Persistent),
                create(1, "a", "x", Ephemeral),
                create(1, "b", "x", Ephemeral),
                create(1, "", "x", Ephemeral),
                exists(0, "a/x"),
                exists(0, "b/x"),
                children(0, "a"),
                children(0, ""),
                exists(2, "b/x"),
                at(1, Action::Close),
                at(0, Action::GetChildren { at: name(""), watch: false }),
            ]),
        ),
        (
            "a closing client still gets what its own close fires (set aside: simplification)",
            seq(2, vec![
                create(0, "", "a", Persistent),
                create(0, "a", "x", Ephemeral),
                exists(0, "a/x"),
                children(0, "a"),
                exists(1, "a/x"),
                at(0, Action::Close),
            ]),
        ),
        (
            "expiry: the session's ephemerals go in one transaction, watchers are told",
            seq(2, vec![
                create(0, "", "a", Container),
                create(0, "a", "x", Ephemeral),
                create(0, "", "x", Ephemeral),
                exists(1, "a/x"),
                children(1, ""),
                exists(1, "a"),
                exists(0, "x"),
                at(0, Action::Expire),
                create(1, "", "x", Ephemeral),
                at(1, Action::GetData { at: name(""), watch: false }),
            ]),
        ),
    ]
}

/// The points the model was least sure of, as fixed sequences.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: run scripts/zookeeper.sh start, then cargo test -p locksmith --test conformance -- --ignored"]
fn fixed_cases_agree_with_real_zookeeper() {
    let h = Harness::connect();
    let mut failures = Vec::new();
    for (what, seq) in fixed_cases() {
        if let Err(e) = h.wait_until_alone() {
            panic!("{e}");
        }
        match h.rt.block_on(run_case(&h, &seq)) {
            Ok(transcript) => println!("--- {what}: agree\n{transcript}"),
            Err(report) => failures.push(format!("--- {what}: DISAGREE\n{seq:?}{report}")),
        }
    }
    println!("conformance (fixed cases): {}", h.figures());
    assert!(
        failures.is_empty(),
        "\n\nThe model and the real ZooKeeper disagree:\n{}",
        failures.join("\n")
    );
}
