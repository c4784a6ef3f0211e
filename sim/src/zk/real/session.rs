//! One real session, seen the way the model's client library sees a
//! session: requests in, replies and watch notifications out, in the order
//! the server sent them.
//!
//! The order matters because the model registers a watch when the reply of
//! the call that set it arrives: a notification that arrived before a
//! reply must be delivered before it, and one that arrived after, after.

use super::arrivals::{marked, Arrivals, Mark, Watchers};
use super::convert::{merge, real_mode, Notification};
use super::raw::{normalise, RawReply, RawResult, RawTxn};
use super::CALL_TIMEOUT;
use locksmith_model::zk::{Op, Reply, TxnOp, WatcherType};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use zookeeper_client as zkc;

/// How long the crate tries one connection attempt.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(3);
/// How long opening a session may take before the server counts as
/// unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What a call returned, with the notifications that arrived while it was
/// outstanding: those before its reply and those after.
#[derive(Debug)]
pub struct CallOutcome<R = Reply> {
    pub before: Vec<Notification>,
    pub reply: R,
    /// The reply is the server's (false: the call timed out locally, the
    /// session was already closed, or the server did not confirm a close).
    pub answered: bool,
    pub after: Vec<Notification>,
}

/// A real session standing for one model client's session.
pub struct Session {
    client: Option<zkc::Client>,
    addr: String,
    /// Opened detached: dropping the client leaves the session on the
    /// server (see [`Session::detach`]).
    detachable: bool,
    arrivals: Arc<Arrivals>,
    watchers: Watchers,
}

/// A session kept open on the server with no client attached: it expires
/// once its timeout runs out, or at once through [`Detached::expire`].
#[derive(Clone)]
pub struct Detached {
    addr: String,
    info: zkc::SessionInfo,
}

/// The message for a server that does not answer.
pub fn unreachable(addr: &str, why: &str) -> String {
    format!(
        "cannot connect to ZooKeeper at {addr}: {why}. Start one with `scripts/zookeeper.sh start` \
         (a private ZooKeeper 3.8 on 127.0.0.1:2181; `apt-get install -y zookeeper` first if \
         /usr/share/java/zookeeper.jar is missing), or pass --zk HOST:PORT"
    )
}

/// Opens a session with `connector`, failing (not hanging) when nothing
/// answers.
async fn open(connector: zkc::Connector, addr: &str) -> Result<zkc::Client, String> {
    let connecting = connector
        .with_connection_timeout(CONNECTION_TIMEOUT)
        .with_fail_eagerly()
        .connect(addr);
    match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(e)) => Err(unreachable(addr, &e.to_string())),
        Err(_) => Err(unreachable(
            addr,
            &format!("no session after {CONNECT_TIMEOUT:?}"),
        )),
    }
}

/// Drops `client`, which ends its session unless it was opened detached,
/// and waits until the client has finished with the server.
async fn shut(client: zkc::Client) -> Result<(), String> {
    let mut state = client.state_watcher();
    drop(client);
    tokio::time::timeout(CALL_TIMEOUT, async {
        while !state.peek_state().is_terminated() {
            state.changed().await;
        }
    })
    .await
    .map_err(|_| format!("the server did not confirm a close within {CALL_TIMEOUT:?}"))
}

impl Session {
    /// Opens a session that ends when it is closed or dropped.
    pub async fn connect(addr: &str, session_timeout: Duration) -> Result<Session, String> {
        Self::start(addr, session_timeout, false).await
    }

    /// Opens a session that [`Session::detach`] can leave open on the
    /// server without a client.
    pub async fn connect_detachable(
        addr: &str,
        session_timeout: Duration,
    ) -> Result<Session, String> {
        Self::start(addr, session_timeout, true).await
    }

    async fn start(
        addr: &str,
        session_timeout: Duration,
        detachable: bool,
    ) -> Result<Session, String> {
        let mut connector = zkc::Client::connector().with_session_timeout(session_timeout);
        if detachable {
            connector = connector.with_detached();
        }
        Ok(Session {
            client: Some(open(connector, addr).await?),
            addr: addr.to_string(),
            detachable,
            arrivals: Arc::new(Arrivals::default()),
            watchers: Watchers::default(),
        })
    }

    /// The server's id of this session, while a client is attached.
    pub fn id(&self) -> Option<i64> {
        self.client.as_ref().map(|c| c.session_id().0)
    }

    /// Whether a client is still attached (not closed, not detached).
    pub fn is_open(&self) -> bool {
        self.client.is_some()
    }

    /// Waits (at most `at_most`) until the client library is connected to
    /// the server (`connected`) or has lost its connection (`!connected`);
    /// whether it got there. False at once for a closed or detached session.
    pub async fn until_connected(&self, connected: bool, at_most: Duration) -> bool {
        let Some(c) = &self.client else {
            return false;
        };
        let mut state = c.state_watcher();
        let reached = async move {
            loop {
                let s = state.peek_state();
                let up = matches!(
                    s,
                    zkc::SessionState::SyncConnected | zkc::SessionState::ConnectedReadOnly
                );
                if up == connected {
                    return true;
                }
                if s.is_terminated() {
                    return false;
                }
                state.changed().await;
            }
        };
        tokio::time::timeout(at_most, reached)
            .await
            .unwrap_or(false)
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
        merge(&self.watchers.resolve(&marks), &mut out);
        out
    }

    /// Sends `op` and waits for its reply (at most [`CALL_TIMEOUT`]), in
    /// the model's terms.
    pub async fn call(&mut self, op: &Op) -> CallOutcome<Reply> {
        let out = self.call_raw(op).await;
        CallOutcome {
            before: out.before,
            reply: normalise(out.reply),
            answered: out.answered,
            after: out.after,
        }
    }

    /// `removeWatches` and `checkWatches`, answered from the adapter's
    /// table of unfired watchers (docs/conformance.md: the crate has no call
    /// for either).
    fn answer_watch_removal(&mut self, op: &Op) -> RawReply {
        let (found, ok) = match op {
            Op::RemoveWatches { path, kind } => {
                (self.watchers.remove(path, *kind), RawResult::WatchesRemoved)
            }
            Op::CheckWatches { path, kind } => (
                self.watchers.contains(path, *kind),
                RawResult::WatchesChecked,
            ),
            _ => unreachable!("only a watch removal is answered here"),
        };
        if found {
            Ok(ok)
        } else {
            Err(zkc::Error::NoWatcher)
        }
    }

    /// Sends `op` and waits for its reply (at most [`CALL_TIMEOUT`]), as
    /// the server gave it. `CloseSession` closes the session and waits
    /// until the server has confirmed it.
    pub async fn call_raw(&mut self, op: &Op) -> CallOutcome<RawReply> {
        let arrivals = self.arrivals.clone();
        let (raw, answered) = match self.client.clone() {
            None => (Err(zkc::Error::SessionExpired), false),
            Some(_) if matches!(op, Op::RemoveWatches { .. } | Op::CheckWatches { .. }) => {
                (self.answer_watch_removal(op).map(|r| (r, None)), true)
            }
            Some(c) => match tokio::time::timeout(CALL_TIMEOUT, send(&arrivals, &c, op)).await {
                Ok(r) => (r, true),
                Err(_) => (Err(zkc::Error::ConnectionLoss), false),
            },
        };
        let marks = self.arrivals.take();
        let cut = marks
            .iter()
            .rposition(|m| *m == Mark::Reply)
            .unwrap_or(marks.len());
        let mut before = Vec::new();
        merge(&self.watchers.resolve(&marks[..cut]), &mut before);
        let mut after = Vec::new();
        merge(&self.watchers.resolve(&marks[cut..]), &mut after);
        let reply = raw.map(|(result, watcher)| {
            if let Some(w) = watcher {
                self.watchers.add(&self.arrivals, w, watched(op));
            }
            result
        });
        // The model's close has no failure: an unconfirmed one still
        // replies `Closed`, and only `answered` tells.
        let answered = match op {
            Op::CloseSession => self.close().await.is_ok() && answered,
            _ => answered,
        };
        CallOutcome {
            before,
            reply,
            answered,
            after,
        }
    }

    /// Closes the session (if a client is attached) and waits until the
    /// server has confirmed it, so that its ephemeral nodes are gone.
    pub async fn close(&mut self) -> Result<(), String> {
        if self.detachable {
            return match self.detach() {
                Some(d) => d.expire().await,
                None => Ok(()),
            };
        }
        match self.client.take() {
            Some(c) => shut(c).await,
            None => Ok(()),
        }
    }

    /// Lets go of the session without ending it (a client that goes away
    /// without closing): the server drops the session's watches with the
    /// connection and keeps the session, and its ephemeral nodes, until it
    /// expires. `None` unless the session was opened detachable and a
    /// client is attached.
    pub fn detach(&mut self) -> Option<Detached> {
        if !self.detachable {
            return None;
        }
        let client = self.client.take()?;
        Some(Detached {
            addr: self.addr.clone(),
            info: client.into_session(),
        })
    }
}

/// Why a client could not attach to a session again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The server answered that the session has ended (expired or closed).
    Expired,
    /// No answer, or another error.
    Failed(String),
}

impl Detached {
    /// The server's id of the session.
    pub fn id(&self) -> i64 {
        self.info.id().0
    }

    /// The same session, reached through `addr` (`host:port[/chroot]`)
    /// from now on.
    pub fn via(mut self, addr: &str) -> Detached {
        self.addr = addr.to_string();
        self
    }

    /// Attaches a client to the session again, detachable: the session, or
    /// the server's refusal — [`Refusal::Expired`] once the session has
    /// ended, which is how a client library learns of an expiry.
    pub async fn reattach(&self, session_timeout: Duration) -> Result<Session, Refusal> {
        let connecting = zkc::Client::connector()
            .with_session(self.info.clone())
            .with_session_timeout(session_timeout)
            .with_detached()
            .with_connection_timeout(CONNECTION_TIMEOUT)
            .with_fail_eagerly()
            .connect(&self.addr);
        match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok(c)) => Ok(Session {
                client: Some(c),
                addr: self.addr.clone(),
                detachable: true,
                arrivals: Arc::new(Arrivals::default()),
                watchers: Watchers::default(),
            }),
            Ok(Err(zkc::Error::SessionExpired)) => Err(Refusal::Expired),
            Ok(Err(e)) => Err(Refusal::Failed(unreachable(&self.addr, &e.to_string()))),
            Err(_) => Err(Refusal::Failed(unreachable(
                &self.addr,
                &format!("no session after {CONNECT_TIMEOUT:?}"),
            ))),
        }
    }

    /// Ends the session now, the way ZooKeeper's own tests kill one:
    /// attaches a second client with the session's id and password and
    /// closes it. The server deletes the session's ephemeral nodes in one
    /// transaction, as when the session expires.
    pub async fn expire(self) -> Result<(), String> {
        let connector = zkc::Client::connector().with_session(self.info);
        shut(open(connector, &self.addr).await?).await
    }
}

/// The path and kind of the watch a watching call sets.
fn watched(op: &Op) -> (String, WatcherType) {
    match op {
        Op::GetChildren { path, .. } => (path.to_string(), WatcherType::Children),
        _ => (op.path().unwrap_or("").to_string(), WatcherType::Data),
    }
}

/// Runs one request as the matching `zookeeper-client` call; a watching
/// call also hands back its watcher.
async fn send(
    a: &Arc<Arrivals>,
    c: &zkc::Client,
    op: &Op,
) -> Result<(RawResult, Option<zkc::OneshotWatcher>), zkc::Error> {
    Ok(match op {
        Op::Create { path, data, mode } => {
            let options = real_mode(*mode).with_acls(zkc::Acls::anyone_all());
            let (stat, seq) = marked(a, c.create(path, data, &options)).await?;
            let path = if mode.is_sequential() {
                format!("{path}{seq}")
            } else {
                path.to_string()
            };
            (RawResult::Created { path, stat }, None)
        }
        Op::Delete { path, version } => {
            let v = (*version != -1).then_some(*version);
            marked(a, c.delete(path, v)).await?;
            (RawResult::Deleted, None)
        }
        Op::SetData {
            path,
            data,
            version,
        } => {
            let v = (*version != -1).then_some(*version);
            let stat = marked(a, c.set_data(path, data, v)).await?;
            (RawResult::SetData(stat), None)
        }
        Op::Exists { path, watch: false } => {
            let stat = marked(a, c.check_stat(path)).await?;
            (RawResult::Exists(stat), None)
        }
        Op::Exists { path, watch: true } => {
            let (stat, w) = marked(a, c.check_and_watch_stat(path)).await?;
            (RawResult::Exists(stat), Some(w))
        }
        Op::GetData { path, watch: false } => {
            let (data, stat) = marked(a, c.get_data(path)).await?;
            (RawResult::GetData { data, stat }, None)
        }
        Op::GetData { path, watch: true } => {
            let (data, stat, w) = marked(a, c.get_and_watch_data(path)).await?;
            (RawResult::GetData { data, stat }, Some(w))
        }
        Op::GetChildren { path, watch: false } => {
            let (children, stat) = marked(a, c.get_children(path)).await?;
            (RawResult::GetChildren { children, stat }, None)
        }
        Op::GetChildren { path, watch: true } => {
            let (children, stat, w) = marked(a, c.get_and_watch_children(path)).await?;
            (RawResult::GetChildren { children, stat }, Some(w))
        }
        Op::CloseSession => (RawResult::Closed, None),
        Op::Multi(ops) => (multi(a, c, ops).await?, None),
        Op::RemoveWatches { .. } | Op::CheckWatches { .. } => {
            unreachable!("removeWatches is answered by Session::call_raw")
        }
    })
}

/// Runs a multi through the crate's `MultiWriter`.
async fn multi(a: &Arc<Arrivals>, c: &zkc::Client, ops: &[TxnOp]) -> Result<RawResult, zkc::Error> {
    let mut w = c.new_multi_writer();
    for op in ops {
        match op {
            TxnOp::Check { path, version } => w.add_check_version(path, *version)?,
            TxnOp::Create { path, data, mode } => {
                let options = real_mode(*mode).with_acls(zkc::Acls::anyone_all());
                w.add_create(path, data, &options)?
            }
            TxnOp::Delete { path, version } => {
                w.add_delete(path, (*version != -1).then_some(*version))?
            }
            TxnOp::SetData {
                path,
                data,
                version,
            } => w.add_set_data(path, data, (*version != -1).then_some(*version))?,
        }
    }
    match marked(a, w.commit()).await {
        Ok(results) => results
            .into_iter()
            .map(|r| match r {
                zkc::MultiWriteResult::Check => Ok(RawTxn::Checked),
                zkc::MultiWriteResult::Delete => Ok(RawTxn::Deleted),
                zkc::MultiWriteResult::Create { path, .. } => Ok(RawTxn::Created(path)),
                zkc::MultiWriteResult::SetData { stat } => Ok(RawTxn::SetData(stat)),
                other => Err(zkc::Error::UnexpectedError(format!(
                    "a multi result the adapter does not know: {other:?}"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(RawResult::Multi),
        Err(zkc::MultiWriteError::OperationFailed { index, source }) => {
            Ok(RawResult::MultiFailed {
                index,
                error: source,
            })
        }
        Err(zkc::MultiWriteError::RequestFailed { source }) => Err(source),
    }
}
