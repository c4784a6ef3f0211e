//! One client on the real side: its recipe machine (fed only what the real
//! server sent), the requests it sent that the trace has not yet served,
//! the replies and notifications the server sent that the trace has not yet
//! delivered, and its real session behind its own proxy.

use super::proxy::Proxy;
use crate::zk::real::{CallOutcome, Detached, Notification, RawReply, Refusal, Session};
use locksmith_model::zk::check::{Message, Request};
use locksmith_model::zk::client::Client;
use locksmith_model::zk::recipes::AnyRecipe;
use locksmith_model::zk::Op;
use std::collections::VecDeque;
use std::time::Duration;

/// Where the client's session stands on the server.
pub enum Line {
    /// A client library is attached (through the proxy).
    Attached(Session),
    /// Alive on the server with no client attached: the process went away
    /// (crashed, or ended by an uncaught exception).
    Away(Detached),
    /// Ended on the server: expired, timed out or closed.
    Ended(Detached),
}

pub struct RealPeer {
    pub client: Client<AnyRecipe>,
    /// Requests the recipe sent that the server has not handled yet.
    pub outbox: VecDeque<Request>,
    /// What the server sent that the client has not been handed yet.
    pub inbox: VecDeque<Message>,
    /// The trace's connection is down (lost or dropped, not yet back).
    pub disconnected: bool,
    /// Index in `inbox` of a reply the proxy withholds (the trace loses it
    /// to a connection loss); the slot holds the model's reply, which the
    /// client is never handed.
    pub withheld: Option<usize>,
    pub line: Line,
    pub proxy: Proxy,
    /// The server's id of the session.
    pub id: i64,
    /// Sessions the client's library gave up on (a client-side expiry)
    /// that the server may still hold, oldest first.
    pub abandoned: Vec<Detached>,
    /// The server with the run's root as chroot, for the calls that do not
    /// go through the proxy: killing the session, asking whether it ended.
    direct: String,
    /// The proxy with the run's root as chroot: where a new handle of the
    /// client's library connects.
    proxied: String,
    timeout: Duration,
}

impl RealPeer {
    /// Opens the client's session through a new proxy to `server`,
    /// chrooted to `root`.
    pub async fn open(
        server: &str,
        root: &str,
        client: Client<AnyRecipe>,
        timeout: Duration,
    ) -> Result<RealPeer, String> {
        let proxy = Proxy::start(server).await?;
        let proxied = format!("{}{root}", proxy.addr);
        let session = Session::connect_detachable(&proxied, timeout).await?;
        let id = session
            .id()
            .ok_or_else(|| format!("a new session with {server} has no id"))?;
        Ok(RealPeer {
            client,
            outbox: VecDeque::new(),
            inbox: VecDeque::new(),
            disconnected: false,
            withheld: None,
            line: Line::Attached(session),
            proxy,
            id,
            abandoned: Vec::new(),
            direct: format!("{server}{root}"),
            proxied,
            timeout,
        })
    }

    /// The client's session ids as the tree names owners: the current
    /// one first, then those its library gave up on, oldest first.
    pub fn sessions(&self) -> Vec<i64> {
        std::iter::once(self.id)
            .chain(self.abandoned.iter().map(Detached::id))
            .collect()
    }

    /// The library gives up on its session (a client-side expiry): the
    /// old handle lets go of it without ending it — the server keeps it,
    /// and its ephemeral nodes, until it is ended — and a new handle
    /// connects through the proxy on a new session. Returns the old
    /// session's id and the new one's.
    pub async fn give_up(&mut self) -> Result<(i64, i64), String> {
        let Line::Attached(s) = &mut self.line else {
            return Err("giving up a session with no client attached".into());
        };
        let old = s
            .detach()
            .ok_or_else(|| "the session cannot be detached".to_string())?;
        let old_id = old.id();
        self.abandoned.push(old);
        self.proxy.open();
        let session = Session::connect_detachable(&self.proxied, self.timeout).await?;
        self.id = session
            .id()
            .ok_or_else(|| "the new session has no id".to_string())?;
        self.line = Line::Attached(session);
        Ok((old_id, self.id))
    }

    /// Ends the oldest session the library gave up on, as [`Self::kill`]
    /// ends the current one; its id, or `None` if there is none.
    pub async fn end_abandoned(&mut self) -> Result<Option<i64>, String> {
        if self.abandoned.is_empty() {
            return Ok(None);
        }
        let d = self.abandoned.remove(0);
        let id = d.id();
        d.via(&self.direct).expire().await?;
        Ok(Some(id))
    }

    pub fn session(&mut self) -> Option<&mut Session> {
        match &mut self.line {
            Line::Attached(s) => Some(s),
            _ => None,
        }
    }

    /// The client's process went away: its connection closes, its session
    /// lives on the server until it times out.
    pub fn leave(&mut self) {
        if let Line::Attached(s) = &mut self.line {
            if let Some(d) = s.detach() {
                self.line = Line::Away(d);
            }
        }
    }

    /// Ends the session on the server now, the way ZooKeeper's own tests
    /// kill one: a second client attaches with its id and password and
    /// closes it. The server deletes its ephemeral nodes in one transaction.
    pub async fn kill(&mut self) -> Result<(), String> {
        let d = match &mut self.line {
            Line::Attached(s) => s
                .detach()
                .ok_or_else(|| "the session cannot be detached".to_string())?,
            Line::Away(d) => d.clone(),
            Line::Ended(_) => return Ok(()),
        };
        let d = d.via(&self.direct);
        self.line = Line::Ended(d.clone());
        d.expire().await
    }

    /// Asks the server whether the session has ended, as a client library
    /// learns it: by attaching to it again. A session that is still alive
    /// is left as it was.
    pub async fn ended_on_server(&mut self) -> Result<bool, String> {
        let d = match &self.line {
            Line::Attached(_) => return Ok(false),
            Line::Away(d) | Line::Ended(d) => d.clone().via(&self.direct),
        };
        match d.reattach(self.timeout).await {
            Err(Refusal::Expired) => Ok(true),
            Err(Refusal::Failed(e)) => Err(e),
            Ok(mut s) => {
                // Detach again: a process that went away stays away.
                let _ = s.detach();
                Ok(false)
            }
        }
    }

    /// Sends `op` on a session whose process went away (a request it sent
    /// before it did): attaches to the session directly, sends it, leaves.
    pub async fn call_away(&mut self, op: &Op) -> Result<CallOutcome<RawReply>, String> {
        let Line::Away(d) = &self.line else {
            return Err("the session is not away".into());
        };
        let d = d.clone().via(&self.direct);
        let mut s = d.reattach(self.timeout).await.map_err(|r| match r {
            Refusal::Expired => "the server says the session has ended".to_string(),
            Refusal::Failed(e) => e,
        })?;
        let out = s.call_raw(op).await;
        let _ = s.detach();
        Ok(out)
    }

    /// A read round trip on the session: the server answers it only after
    /// every notification it queued for the session before, so afterwards
    /// every notification of every transaction committed so far has
    /// arrived. Nothing for a session with no client attached, or whose
    /// connection is down or withheld.
    pub async fn barrier(&mut self) -> Result<Vec<Notification>, String> {
        if self.disconnected || self.proxy.holding() {
            return Ok(Vec::new());
        }
        let Line::Attached(s) = &mut self.line else {
            return Ok(Vec::new());
        };
        let op = Op::Exists {
            path: "/".into(),
            watch: false,
        };
        let out = s.call_raw(&op).await;
        if !out.answered {
            return Err(format!(
                "no answer to a read round trip ({:?})",
                out.reply.err()
            ));
        }
        let mut heard = out.before;
        heard.extend(out.after);
        heard.extend(s.take_notifications());
        Ok(heard)
    }

    /// Ends whatever is left of the session, and of those the library
    /// gave up on. Closing one of those fails only when the server has
    /// ended it already; a node one left behind would show when the run's
    /// root is deleted.
    pub async fn close(&mut self) -> Result<(), String> {
        while !self.abandoned.is_empty() {
            let _ = self.abandoned.remove(0).via(&self.direct).expire().await;
        }
        self.kill().await
    }
}
