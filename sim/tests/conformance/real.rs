//! The real side: one ZooKeeper session per model session, through the
//! `zookeeper-client` crate over plain tokio (outside any simulation).
//!
//! The crate hands out one `OneshotWatcher` per watching call instead of a
//! single event stream, so the order in which a session *received* its
//! notifications is recovered here: every watcher future is polled once with
//! a waker that appends the watcher's number to the session's log when the
//! client's connection task delivers its event. The client delivers each
//! notification to its watchers synchronously, in arrival order, so the log
//! is the arrival order. (A notification that several of the session's
//! watchers wait for — `exists` and `getData` on one path — wakes each of
//! them; those copies are one server event and are merged.)

use locksmith_model::zk::{CreateMode, EventType, Op, WatchedEvent};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use zookeeper_client as zk;

/// How long any single call to the server may take before the test gives up.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// What a successful real call returned, before normalisation.
#[derive(Debug)]
pub enum RealResult {
    Created {
        path: String,
        stat: zk::Stat,
    },
    Deleted,
    SetData(zk::Stat),
    Exists(Option<zk::Stat>),
    GetData {
        data: Vec<u8>,
        stat: zk::Stat,
    },
    GetChildren {
        children: Vec<String>,
        stat: zk::Stat,
    },
    Closed,
}

pub type RealReply = Result<RealResult, zk::Error>;

/// The sessions' timeout: short, so that a session left behind by a killed
/// run is gone soon, and long enough that a busy machine never expires one
/// by accident.
pub const SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// The timeout of a session that a case lets expire: the server's minimum
/// (2 ticks of 2 s).
pub const EXPIRING_SESSION_TIMEOUT: Duration = Duration::from_secs(4);

/// Connects a new session, failing (not hanging) when nothing answers. A
/// detached session is not closed when its client goes: it expires.
pub async fn connect(addr: &str, detached: bool) -> Result<zk::Client, String> {
    let timeout = if detached {
        EXPIRING_SESSION_TIMEOUT
    } else {
        SESSION_TIMEOUT
    };
    let mut connector = zk::Client::connector()
        .with_session_timeout(timeout)
        .with_connection_timeout(Duration::from_secs(5))
        .with_fail_eagerly();
    if detached {
        connector = connector.with_detached();
    }
    let connecting = connector.connect(addr);
    match tokio::time::timeout(CALL_TIMEOUT, connecting).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(format!("cannot connect to ZooKeeper at {addr}: {e}")),
        Err(_) => Err(format!(
            "cannot connect to ZooKeeper at {addr}: no session after {CALL_TIMEOUT:?}"
        )),
    }
}

async fn timed<T>(what: &str, f: impl Future<Output = T>) -> T {
    match tokio::time::timeout(CALL_TIMEOUT, f).await {
        Ok(v) => v,
        Err(_) => panic!("real ZooKeeper: {what} took longer than {CALL_TIMEOUT:?}"),
    }
}

fn acls() -> zk::Acls<'static> {
    zk::Acls::anyone_all()
}

fn real_mode(mode: CreateMode) -> zk::CreateMode {
    match mode {
        CreateMode::Persistent => zk::CreateMode::Persistent,
        CreateMode::PersistentSequential => zk::CreateMode::PersistentSequential,
        CreateMode::Ephemeral => zk::CreateMode::Ephemeral,
        CreateMode::EphemeralSequential => zk::CreateMode::EphemeralSequential,
        CreateMode::Container => zk::CreateMode::Container,
    }
}

/// A create outside any model session (the case's root, by the observer).
pub async fn create_persistent(client: &zk::Client, path: &str) -> Result<zk::Stat, zk::Error> {
    let options = zk::CreateMode::Persistent.with_acls(acls());
    timed("create", client.create(path, b"", &options))
        .await
        .map(|(stat, _)| stat)
}

/// Drops the client, which sends `closeSession`, and waits until the
/// server has answered it.
pub async fn close(client: zk::Client) {
    let mut state = client.state_watcher();
    drop(client);
    timed("close", async {
        while !state.peek_state().is_terminated() {
            state.changed().await;
        }
    })
    .await;
}

/// Records which watcher was woken, in wake order.
struct Recorder {
    id: u64,
    log: Arc<Mutex<Vec<u64>>>,
}

impl Wake for Recorder {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.log.lock().unwrap().push(self.id);
    }
}

type EventFuture = Pin<Box<dyn Future<Output = zk::WatchedEvent> + Send>>;

/// The outstanding one-shot watchers of one session and the order in which
/// they fired.
#[derive(Default)]
struct EventLog {
    woken: Arc<Mutex<Vec<u64>>>,
    pending: BTreeMap<u64, (EventFuture, Waker)>,
    next: u64,
    /// Events found ready when first polled (none expected).
    ready: Vec<zk::WatchedEvent>,
}

impl EventLog {
    fn add(&mut self, watcher: zk::OneshotWatcher) {
        let id = self.next;
        self.next += 1;
        let waker = Waker::from(Arc::new(Recorder {
            id,
            log: self.woken.clone(),
        }));
        let mut fut: EventFuture = Box::pin(watcher.changed());
        match fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            Poll::Ready(event) => self.ready.push(event),
            Poll::Pending => {
                self.pending.insert(id, (fut, waker));
            }
        }
    }

    /// The events delivered since the last call, in arrival order.
    fn drain(&mut self) -> Vec<zk::WatchedEvent> {
        let mut out = std::mem::take(&mut self.ready);
        let woken = std::mem::take(&mut *self.woken.lock().unwrap());
        for id in woken {
            let Some((fut, waker)) = self.pending.get_mut(&id) else {
                continue;
            };
            if let Poll::Ready(event) = fut.as_mut().poll(&mut Context::from_waker(waker)) {
                self.pending.remove(&id);
                out.push(event);
            }
        }
        out
    }
}

/// One real session standing for one model session.
pub struct RealSession {
    client: Option<zk::Client>,
    pub id: i64,
    events: EventLog,
}

impl RealSession {
    pub async fn open(addr: &str, detached: bool) -> Result<Self, String> {
        let client = connect(addr, detached).await?;
        let id = client.session_id().0;
        Ok(RealSession {
            client: Some(client),
            id,
            events: EventLog::default(),
        })
    }

    /// The client, while the session is open.
    pub fn client(&self) -> &zk::Client {
        self.client.as_ref().expect("session closed")
    }

    /// Runs one request. `CloseSession` drops the client, which sends
    /// `closeSession`, and waits until the server has answered it.
    pub async fn run(&mut self, op: &Op) -> RealReply {
        let Some(c) = self.client.as_ref() else {
            return Err(zk::Error::ClientClosed);
        };
        match op {
            Op::Create { path, data, mode } => {
                let options = real_mode(*mode).with_acls(acls());
                let (stat, seq) = timed("create", c.create(path, data, &options)).await?;
                let path = if mode.is_sequential() {
                    format!("{path}{seq}")
                } else {
                    path.clone()
                };
                Ok(RealResult::Created { path, stat })
            }
            Op::Delete { path, version } => {
                let v = (*version != -1).then_some(*version);
                timed("delete", c.delete(path, v)).await?;
                Ok(RealResult::Deleted)
            }
            Op::SetData {
                path,
                data,
                version,
            } => {
                let v = (*version != -1).then_some(*version);
                let stat = timed("setData", c.set_data(path, data, v)).await?;
                Ok(RealResult::SetData(stat))
            }
            Op::Exists { path, watch: false } => Ok(RealResult::Exists(
                timed("exists", c.check_stat(path)).await?,
            )),
            Op::Exists { path, watch: true } => {
                let (stat, w) = timed("exists", c.check_and_watch_stat(path)).await?;
                self.events.add(w);
                Ok(RealResult::Exists(stat))
            }
            Op::GetData { path, watch: false } => {
                let (data, stat) = timed("getData", c.get_data(path)).await?;
                Ok(RealResult::GetData { data, stat })
            }
            Op::GetData { path, watch: true } => {
                let (data, stat, w) = timed("getData", c.get_and_watch_data(path)).await?;
                self.events.add(w);
                Ok(RealResult::GetData { data, stat })
            }
            Op::GetChildren { path, watch: false } => {
                let (children, stat) = timed("getChildren", c.get_children(path)).await?;
                Ok(RealResult::GetChildren { children, stat })
            }
            Op::GetChildren { path, watch: true } => {
                let (children, stat, w) =
                    timed("getChildren", c.get_and_watch_children(path)).await?;
                self.events.add(w);
                Ok(RealResult::GetChildren { children, stat })
            }
            Op::CloseSession => {
                self.close().await;
                Ok(RealResult::Closed)
            }
        }
    }

    /// A read round trip: the server answers it after every notification it
    /// queued for this session earlier, so afterwards [`take_events`] sees
    /// every event of every transaction committed before this call.
    ///
    /// [`take_events`]: Self::take_events
    pub async fn sync(&self) {
        if let Some(c) = self.client.as_ref() {
            timed("sync read", c.check_stat("/"))
                .await
                .expect("sync read of / failed");
        }
    }

    /// Whether the client is still there (not closed, not gone).
    pub fn is_open(&self) -> bool {
        self.client.is_some()
    }

    /// Drops the client of a detached session without closing the session:
    /// the connection goes, and the server expires the session once its
    /// timeout runs out.
    pub fn vanish(&mut self) {
        self.client = None;
    }

    /// Closes the session (if open) and waits for the server's answer.
    pub async fn close(&mut self) {
        if let Some(c) = self.client.take() {
            close(c).await;
        }
    }

    /// The node events delivered since the last call, in arrival order, as
    /// the model writes them. Session-state notifications (the client's own
    /// "closed" to its remaining watchers) are not server events and are
    /// left out; so are copies of one notification delivered to several
    /// watchers of this session.
    pub fn take_events(&mut self) -> Vec<WatchedEvent> {
        let mut out: Vec<WatchedEvent> = Vec::new();
        for e in self.events.drain() {
            let kind = match e.event_type {
                zk::EventType::Session => continue,
                zk::EventType::NodeCreated => EventType::NodeCreated,
                zk::EventType::NodeDeleted => EventType::NodeDeleted,
                zk::EventType::NodeDataChanged => EventType::NodeDataChanged,
                zk::EventType::NodeChildrenChanged => EventType::NodeChildrenChanged,
            };
            let event = WatchedEvent { kind, path: e.path };
            if !out.contains(&event) {
                out.push(event);
            }
        }
        out
    }
}
