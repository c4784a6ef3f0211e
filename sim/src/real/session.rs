//! One real ZooKeeper session, through the `zookeeper-client` crate, seen
//! the way the model's client library sees a session: requests in, replies
//! and watch notifications out, **in the order the server sent them**.
//!
//! The crate hands out one `OneshotWatcher` future per watching call rather
//! than one event stream, and completes each call's future separately, so
//! the arrival order of replies and notifications is recovered here: every
//! watcher future and every call future is polled with a waker that appends
//! a mark to this session's arrival log when the crate's connection task
//! wakes it. That task handles the server's packets one at a time and wakes
//! the futures concerned synchronously, so the log is the arrival order.
//! The driver needs the order because the model registers a watch when the
//! reply of the call that set it arrives: a notification that arrived
//! before a reply must be delivered before it, and one that arrived after,
//! after.
//!
//! One server notification reaches every watcher of the session that it
//! triggers (`exists` and `getData` on one path, or a node's data and child
//! watchers for `NodeDeleted`); the crate wakes those copies one after
//! another with no reply in between, and they are merged back into one.

use locksmith_model::zk::{
    CreateMode, EventType, Op, OpResult, Reply, Stat, WatchedEvent, ZkError,
};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use zookeeper_client as zkc;

/// How long one call may take before the driver treats it as a lost
/// connection.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What a session tells the recipe's client library besides replies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notification {
    /// A watch fired on the server.
    Node(WatchedEvent),
    /// The session expired (the crate tells every outstanding watcher).
    Expired,
}

/// One entry of the arrival log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// Watcher `n` was handed its event.
    Watch(u64),
    /// The outstanding call's reply arrived.
    Reply,
}

/// The arrival log and the driver's alarm clock.
#[derive(Default)]
struct Arrivals {
    log: Mutex<Vec<Mark>>,
    /// Rung whenever a notification arrives, so an idle driver wakes up.
    bell: tokio::sync::Notify,
}

impl Arrivals {
    fn push(&self, m: Mark) {
        if let Ok(mut log) = self.log.lock() {
            log.push(m);
        }
    }

    fn take(&self) -> Vec<Mark> {
        match self.log.lock() {
            Ok(mut log) => std::mem::take(&mut *log),
            Err(_) => Vec::new(),
        }
    }
}

/// The waker of one watcher future: logs that it fired and rings the bell.
struct WatchWaker {
    id: u64,
    arrivals: Arc<Arrivals>,
}

impl Wake for WatchWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.arrivals.push(Mark::Watch(self.id));
        self.arrivals.bell.notify_one();
    }
}

/// The waker of the outstanding call: logs that its reply came, then wakes
/// the driver's task.
struct ReplyWaker {
    arrivals: Arc<Arrivals>,
    task: Waker,
}

impl Wake for ReplyWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.arrivals.push(Mark::Reply);
        self.task.wake_by_ref();
    }
}

/// A call future whose wake-ups are logged as [`Mark::Reply`].
struct Marked<F> {
    call: Pin<Box<F>>,
    arrivals: Arc<Arrivals>,
}

impl<F: Future> Future for Marked<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let waker = Waker::from(Arc::new(ReplyWaker {
            arrivals: self.arrivals.clone(),
            task: cx.waker().clone(),
        }));
        self.call.as_mut().poll(&mut Context::from_waker(&waker))
    }
}

fn marked<F: Future>(arrivals: &Arc<Arrivals>, call: F) -> Marked<F> {
    Marked {
        call: Box::pin(call),
        arrivals: arrivals.clone(),
    }
}

type EventFuture = Pin<Box<dyn Future<Output = zkc::WatchedEvent> + Send>>;

/// What a call returned, with the notifications that arrived while it was
/// outstanding: those before its reply and those after.
#[derive(Debug)]
pub struct CallOutcome {
    pub before: Vec<Notification>,
    pub reply: Reply,
    /// The reply is the server's (false: the call timed out locally or the
    /// client was already closed).
    pub answered: bool,
    pub after: Vec<Notification>,
}

/// A real session standing for one model client's session.
pub struct Session {
    client: Option<zkc::Client>,
    arrivals: Arc<Arrivals>,
    /// Watchers that have not fired yet (kept alive: dropping one would
    /// make the crate send `removeWatches`).
    pending: BTreeMap<u64, (EventFuture, Waker)>,
    next: u64,
    /// Events that were ready the moment their watcher was first polled.
    ready: Vec<zkc::WatchedEvent>,
}

/// The message for a server that does not answer.
pub fn unreachable(addr: &str, why: &str) -> String {
    format!(
        "cannot connect to ZooKeeper at {addr}: {why}. Start one with `scripts/zookeeper.sh start` \
         (a private ZooKeeper 3.8 on 127.0.0.1:2181; `apt-get install -y zookeeper` first if \
         /usr/share/java/zookeeper.jar is missing), or pass --zk HOST:PORT"
    )
}

impl Session {
    /// Opens a session, failing (not hanging) when nothing answers.
    pub async fn connect(addr: &str, session_timeout: Duration) -> Result<Session, String> {
        let connecting = zkc::Client::connector()
            .with_session_timeout(session_timeout)
            .with_connection_timeout(Duration::from_secs(3))
            .with_fail_eagerly()
            .connect(addr);
        let client = match tokio::time::timeout(Duration::from_secs(5), connecting).await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(unreachable(addr, &e.to_string())),
            Err(_) => return Err(unreachable(addr, "no session after 5 s")),
        };
        Ok(Session {
            client: Some(client),
            arrivals: Arc::new(Arrivals::default()),
            pending: BTreeMap::new(),
            next: 0,
            ready: Vec::new(),
        })
    }

    /// The server's id of this session.
    pub fn id(&self) -> Option<i64> {
        self.client.as_ref().map(|c| c.session_id().0)
    }

    /// Waits until a notification may have arrived, or `at_most`.
    pub fn changed(&self, at_most: Duration) -> impl Future<Output = ()> + Send + 'static {
        let arrivals = self.arrivals.clone();
        async move {
            let _ = tokio::time::timeout(at_most, arrivals.bell.notified()).await;
        }
    }

    /// The notifications that arrived since the last look, in arrival
    /// order, copies merged.
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        let marks = self.arrivals.take();
        let mut out = Vec::new();
        self.collect(&marks, &mut out);
        out
    }

    /// Resolves the watchers named by `marks` into notifications.
    fn collect(&mut self, marks: &[Mark], out: &mut Vec<Notification>) {
        let mut events: Vec<zkc::WatchedEvent> = std::mem::take(&mut self.ready);
        for m in marks {
            let Mark::Watch(id) = m else { continue };
            let Some((fut, waker)) = self.pending.get_mut(id) else {
                continue;
            };
            if let Poll::Ready(e) = fut.as_mut().poll(&mut Context::from_waker(waker)) {
                self.pending.remove(id);
                events.push(e);
            }
        }
        for e in events {
            let n = match convert_event(&e) {
                Some(n) => n,
                None => continue,
            };
            // Copies of one notification come with no reply in between: a
            // watch that fired must be set again by a call before the same
            // notification can come a second time.
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }

    fn watch(&mut self, watcher: zkc::OneshotWatcher) {
        let id = self.next;
        self.next += 1;
        let waker = Waker::from(Arc::new(WatchWaker {
            id,
            arrivals: self.arrivals.clone(),
        }));
        let mut fut: EventFuture = Box::pin(watcher.changed());
        match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(e) => self.ready.push(e),
            Poll::Pending => {
                self.pending.insert(id, (fut, waker));
            }
        }
    }

    /// Sends `op` and waits for its reply (at most [`CALL_TIMEOUT`]).
    pub async fn call(&mut self, op: &Op) -> CallOutcome {
        let arrivals = self.arrivals.clone();
        let (raw, answered) = match self.client.clone() {
            None => (Err(ZkError::SessionExpired), false),
            Some(c) => match tokio::time::timeout(CALL_TIMEOUT, Self::run(&arrivals, &c, op)).await
            {
                Ok(r) => (r, true),
                Err(_) => (Err(ZkError::ConnectionLoss), false),
            },
        };
        let marks = self.arrivals.take();
        let cut = marks
            .iter()
            .rposition(|m| *m == Mark::Reply)
            .unwrap_or(marks.len());
        let mut before = Vec::new();
        self.collect(&marks[..cut], &mut before);
        let mut after = Vec::new();
        self.collect(&marks[cut..], &mut after);
        let reply = match raw {
            Ok(Done::Reply(r)) => Ok(r),
            Ok(Done::Watching(r, w)) => {
                self.watch(w);
                Ok(r)
            }
            Err(e) => Err(e),
        };
        if matches!(op, Op::CloseSession) {
            self.close().await;
        }
        CallOutcome {
            before,
            reply,
            answered,
            after,
        }
    }

    /// Runs one request as the matching `zookeeper-client` call.
    async fn run(a: &Arc<Arrivals>, c: &zkc::Client, op: &Op) -> Result<Done, ZkError> {
        let reply = match op {
            Op::Create { path, data, mode } => {
                let options = real_mode(*mode).with_acls(zkc::Acls::anyone_all());
                let (_, seq) = marked(a, c.create(path, data, &options))
                    .await
                    .map_err(error)?;
                Done::Reply(OpResult::Created(if mode.is_sequential() {
                    format!("{path}{seq}")
                } else {
                    path.clone()
                }))
            }
            Op::Delete { path, version } => {
                let v = (*version != -1).then_some(*version);
                marked(a, c.delete(path, v)).await.map_err(error)?;
                Done::Reply(OpResult::Deleted)
            }
            Op::SetData {
                path,
                data,
                version,
            } => {
                let v = (*version != -1).then_some(*version);
                let stat = marked(a, c.set_data(path, data, v)).await.map_err(error)?;
                Done::Reply(OpResult::SetData(stat_of(&stat)))
            }
            Op::Exists { path, watch: false } => {
                let stat = marked(a, c.check_stat(path)).await.map_err(error)?;
                Done::Reply(OpResult::Exists(stat.as_ref().map(stat_of)))
            }
            Op::Exists { path, watch: true } => {
                let (stat, w) = marked(a, c.check_and_watch_stat(path))
                    .await
                    .map_err(error)?;
                Done::Watching(OpResult::Exists(stat.as_ref().map(stat_of)), w)
            }
            Op::GetData { path, watch: false } => {
                let (data, stat) = marked(a, c.get_data(path)).await.map_err(error)?;
                Done::Reply(OpResult::GetData {
                    data,
                    stat: stat_of(&stat),
                })
            }
            Op::GetData { path, watch: true } => {
                let (data, stat, w) = marked(a, c.get_and_watch_data(path)).await.map_err(error)?;
                let r = OpResult::GetData {
                    data,
                    stat: stat_of(&stat),
                };
                Done::Watching(r, w)
            }
            Op::GetChildren { path, watch: false } => {
                let (children, stat) = marked(a, c.get_children(path)).await.map_err(error)?;
                Done::Reply(OpResult::GetChildren {
                    children,
                    stat: stat_of(&stat),
                })
            }
            Op::GetChildren { path, watch: true } => {
                let (children, stat, w) = marked(a, c.get_and_watch_children(path))
                    .await
                    .map_err(error)?;
                let r = OpResult::GetChildren {
                    children,
                    stat: stat_of(&stat),
                };
                Done::Watching(r, w)
            }
            Op::CloseSession => Done::Reply(OpResult::Closed),
        };
        Ok(reply)
    }

    /// Creates `path` as a persistent node unless it exists (the recipe's
    /// lock root), and deletes the ephemeral children left under it by
    /// sessions of an earlier run that have not expired yet.
    pub async fn prepare_root(&mut self, path: &str) -> Result<usize, String> {
        let Some(c) = self.client.as_ref() else {
            return Err("session closed".into());
        };
        let timed = |what: &'static str| move |_| format!("{what} timed out");
        if path != "/" {
            let options = zkc::CreateMode::Persistent.with_acls(zkc::Acls::anyone_all());
            match tokio::time::timeout(CALL_TIMEOUT, c.create(path, b"", &options))
                .await
                .map_err(timed("create"))?
            {
                Ok(_) | Err(zkc::Error::NodeExists) => {}
                Err(e) => return Err(format!("create {path}: {e}")),
            }
        }
        let children = tokio::time::timeout(CALL_TIMEOUT, c.list_children(path))
            .await
            .map_err(timed("getChildren"))?
            .map_err(|e| format!("getChildren {path}: {e}"))?;
        let mut deleted = 0;
        for name in children {
            let full = if path == "/" {
                format!("/{name}")
            } else {
                format!("{path}/{name}")
            };
            let stat = tokio::time::timeout(CALL_TIMEOUT, c.check_stat(&full))
                .await
                .map_err(timed("exists"))?;
            if let Ok(Some(s)) = stat {
                if s.ephemeral_owner != 0 {
                    let gone = tokio::time::timeout(CALL_TIMEOUT, c.delete(&full, None))
                        .await
                        .map_err(timed("delete"))?;
                    if gone.is_ok() {
                        deleted += 1;
                    }
                }
            }
        }
        Ok(deleted)
    }

    /// Closes the session and waits (briefly) for the server's answer, so
    /// that its ephemeral nodes are gone when this returns.
    pub async fn close(&mut self) {
        let Some(c) = self.client.take() else { return };
        let mut state = c.state_watcher();
        drop(c);
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while !state.peek_state().is_terminated() {
                state.changed().await;
            }
        })
        .await;
    }
}

/// A successful call, with the watcher it left if it set one.
enum Done {
    Reply(OpResult),
    Watching(OpResult, zkc::OneshotWatcher),
}

fn real_mode(mode: CreateMode) -> zkc::CreateMode {
    match mode {
        CreateMode::Persistent => zkc::CreateMode::Persistent,
        CreateMode::PersistentSequential => zkc::CreateMode::PersistentSequential,
        CreateMode::Ephemeral => zkc::CreateMode::Ephemeral,
        CreateMode::EphemeralSequential => zkc::CreateMode::EphemeralSequential,
        CreateMode::Container => zkc::CreateMode::Container,
    }
}

/// The crate's error as the model's `KeeperException` code. Anything the
/// model has no code for (timeouts, a closed client, throttling) is a lost
/// connection to the recipe: the call may or may not have been applied.
pub fn error(e: zkc::Error) -> ZkError {
    match e {
        zkc::Error::NoNode => ZkError::NoNode,
        zkc::Error::NodeExists => ZkError::NodeExists,
        zkc::Error::NotEmpty => ZkError::NotEmpty,
        zkc::Error::BadVersion => ZkError::BadVersion,
        zkc::Error::NoChildrenForEphemerals => ZkError::NoChildrenForEphemerals,
        zkc::Error::SessionExpired => ZkError::SessionExpired,
        zkc::Error::BadArguments(_) => ZkError::BadArguments,
        _ => ZkError::ConnectionLoss,
    }
}

/// The crate's stat as the model's (times and the ephemeral's data length
/// aside, the fields are the same).
pub fn stat_of(s: &zkc::Stat) -> Stat {
    Stat {
        czxid: s.czxid,
        mzxid: s.mzxid,
        pzxid: s.pzxid,
        version: s.version,
        cversion: s.cversion,
        ephemeral_owner: s.ephemeral_owner,
        data_length: s.data_length,
        num_children: s.num_children,
    }
}

/// A watcher's event as the model writes it; `None` for session states
/// other than expiry (a closed client tells its watchers `Closed`).
fn convert_event(e: &zkc::WatchedEvent) -> Option<Notification> {
    let kind = match e.event_type {
        zkc::EventType::Session => {
            return (e.session_state == zkc::SessionState::Expired).then_some(Notification::Expired)
        }
        zkc::EventType::NodeCreated => EventType::NodeCreated,
        zkc::EventType::NodeDeleted => EventType::NodeDeleted,
        zkc::EventType::NodeDataChanged => EventType::NodeDataChanged,
        zkc::EventType::NodeChildrenChanged => EventType::NodeChildrenChanged,
    };
    Some(Notification::Node(WatchedEvent {
        kind,
        path: e.path.clone(),
    }))
}
