//! The real side of one model session: a session of the adapter
//! (`locksmith::zk::real`), with its replies raw and its watch
//! notifications kept, in arrival order, until the comparison asks for
//! them.

use locksmith::zk::confirm::proxy::Proxy;
use locksmith::zk::real::{CallOutcome, Notification, RawReply, Session, CALL_TIMEOUT};
use locksmith_model::zk::{Op, WatchedEvent};
use std::time::Duration;

/// The sessions' timeout: short, so that a session left behind by a killed
/// run is gone soon, and long enough that a busy machine never expires one
/// by accident.
pub const SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// The timeout of a session that a case lets expire: the server's minimum
/// (2 ticks of 2 s).
pub const EXPIRING_SESSION_TIMEOUT: Duration = Duration::from_secs(4);

/// How long a library may take to reconnect once its proxy lets it.
const RECONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// One real session standing for one model session.
pub struct Peer {
    session: Session,
    /// The server's id of the session.
    pub id: i64,
    /// Notifications that arrived during calls, not yet taken.
    heard: Vec<Notification>,
    /// Between the session and the server, for a session whose connection
    /// a case cuts.
    proxy: Option<Proxy>,
    /// Its connection is cut.
    pub away: bool,
}

impl Peer {
    /// Opens a session; a `detached` one can later go away without closing
    /// ([`Peer::vanish`]) and expire; a `proxied` one connects through a
    /// proxy, so that its connection can be cut ([`Peer::cut`]).
    pub async fn open(addr: &str, detached: bool, proxied: bool) -> Result<Peer, String> {
        let proxy = match proxied {
            true => Some(Proxy::start(addr).await?),
            false => None,
        };
        let via = proxy
            .as_ref()
            .map_or(addr.to_string(), |p| p.addr.to_string());
        let session = if detached {
            Session::connect_detachable(&via, EXPIRING_SESSION_TIMEOUT).await?
        } else {
            Session::connect(&via, SESSION_TIMEOUT).await?
        };
        let id = session
            .id()
            .ok_or_else(|| format!("a new session with {addr} has no id"))?;
        Ok(Peer {
            session,
            id,
            heard: Vec::new(),
            proxy,
            away: false,
        })
    }

    /// Drops the session's connection and keeps the library's reconnects
    /// waiting; returns once the library knows it is disconnected.
    pub async fn cut(&mut self) -> Result<(), String> {
        let proxy = self.proxy.as_ref().ok_or("a cut needs a proxied session")?;
        proxy.cut();
        self.away = true;
        if self.session.until_connected(false, CALL_TIMEOUT).await {
            Ok(())
        } else {
            Err(format!(
                "the library did not notice its cut connection within {CALL_TIMEOUT:?}"
            ))
        }
    }

    /// Lets the library reconnect; returns once it is connected again and
    /// the server has answered a read sent after its `SetWatches`, so that
    /// every notification `SetWatches` fired has arrived.
    pub async fn rejoin(&mut self) -> Result<(), String> {
        let proxy = self
            .proxy
            .as_ref()
            .ok_or("a rejoin needs a proxied session")?;
        proxy.open();
        self.away = false;
        if !self.session.until_connected(true, RECONNECT_TIMEOUT).await {
            return Err(format!(
                "the library did not reconnect within {RECONNECT_TIMEOUT:?}"
            ));
        }
        self.sync().await
    }

    /// Runs one request (`CloseSession` waits until the server has confirmed
    /// the close); an error if the server did not answer in time.
    pub async fn run(&mut self, op: &Op) -> Result<RawReply, String> {
        let out = self.session.call_raw(op).await;
        self.keep(out, op)
    }

    fn keep(&mut self, out: CallOutcome<RawReply>, op: &Op) -> Result<RawReply, String> {
        self.heard.extend(out.before);
        self.heard.extend(out.after);
        if out.answered {
            Ok(out.reply)
        } else {
            Err(format!(
                "real ZooKeeper: no answer to {op} within {CALL_TIMEOUT:?} ({:?})",
                out.reply.err()
            ))
        }
    }

    /// A read round trip: the server answers it after every notification it
    /// queued for this session earlier, so afterwards [`take_events`] sees
    /// every event of every transaction committed before this call.
    ///
    /// [`take_events`]: Self::take_events
    pub async fn sync(&mut self) -> Result<(), String> {
        // A cut session hears nothing until it reconnects.
        if !self.session.is_open() || self.away {
            return Ok(());
        }
        let op = Op::Exists {
            path: "/".into(),
            watch: false,
        };
        match self.run(&op).await? {
            Ok(_) => Ok(()),
            Err(e) => Err(format!("real ZooKeeper: sync read of / failed: {e}")),
        }
    }

    /// Whether the client is still there (not closed, not gone).
    pub fn is_open(&self) -> bool {
        self.session.is_open()
    }

    /// The client goes away without closing the (detached) session: the
    /// connection goes, and the server expires the session once its timeout
    /// runs out.
    pub fn vanish(&mut self) {
        drop(self.session.detach());
    }

    /// Closes the session (if open) and waits for the server's answer.
    pub async fn close(&mut self) -> Result<(), String> {
        self.session.close().await
    }

    /// The node events delivered since the last call, in arrival order, as
    /// the model writes them. Session states (expiry; a closed client tells
    /// its remaining watchers nothing the server sent) are left out; so are
    /// copies of one notification delivered to several watchers of this
    /// session.
    pub fn take_events(&mut self) -> Vec<WatchedEvent> {
        let mut all = std::mem::take(&mut self.heard);
        all.extend(self.session.take_notifications());
        let mut out: Vec<WatchedEvent> = Vec::new();
        for n in all {
            if let Notification::Node(e) = n {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        out
    }
}
