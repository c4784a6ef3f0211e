//! A small TCP proxy between one client's session and the server, so that
//! `confirm` can drop a connection for real, with the request in flight
//! applied or not.
//!
//! It forwards ZooKeeper's frames (a 4-byte length, then the body) both
//! ways and reads just enough of them to act on one request:
//!
//! - [`Proxy::swallow_next`]: the next request the client sends never
//!   reaches the server; the proxy drops the connection instead (connection
//!   loss, request **not applied**) and keeps new ones waiting, as a cut.
//! - [`Proxy::hold_reply_of_next`]: the next request reaches the server,
//!   which applies it and answers; the proxy withholds the answer, and
//!   everything the server sends after it, from the client: it is lost
//!   with the connection when [`Proxy::cut`] drops it (connection loss,
//!   request **applied, reply lost**). Only ping replies go on, so that the client
//!   library does not give up on a connection the trace still uses.
//! - [`Proxy::cut`] drops the connection; until [`Proxy::open`] the client
//!   library's attempts to reconnect wait at the proxy (the trace's
//!   "reconnects" step opens it).
//!
//! A request frame is `xid, type, …` and a reply frame `xid, zxid, err, …`
//! (ZooKeeper's `RequestHeader` and `ReplyHeader`); the first frame each
//! way is the session's connect request and response. Requests of the
//! recipe have positive xids; pings (-2), watch re-registration (-8) and
//! notifications (-1) have their own.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;

/// The xid of a ping and of its reply.
const PING_XID: i32 = -2;
/// The largest frame the proxy forwards (the server's own limit is 1 MB).
const MAX_FRAME: usize = 16 << 20;

/// What the proxy does to the next request of the recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Forward,
    SwallowNext,
    /// Waiting for the next request (`None`), then for its reply.
    HoldReplyOfNext(Option<i32>),
}

#[derive(Debug)]
struct State {
    /// New connections are let through (closed: they wait).
    open: bool,
    mode: Mode,
    /// The server's frames are being kept from the client.
    holding: bool,
    /// The xid of the request swallowed, once it was.
    swallowed: Option<i32>,
    /// The xid whose reply is held, once it arrived.
    held: Option<i32>,
    /// Connections the proxy has let through to the server.
    connections: u64,
}

struct Control {
    state: Mutex<State>,
    /// Rung on every change of `state`.
    changed: Notify,
    /// Bumped by [`Proxy::cut`]: every live connection ends.
    cut: watch::Sender<u64>,
}

impl Control {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state());
        self.changed.notify_waiters();
    }

    /// Waits (at most `at_most`) until `ready` holds; whether it did.
    async fn until(&self, at_most: Duration, ready: impl Fn(&State) -> bool) -> bool {
        let waiting = async {
            loop {
                let notified = self.changed.notified();
                if ready(&self.state()) {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(at_most, waiting).await.is_ok()
    }
}

/// One client's proxy, listening on 127.0.0.1.
pub struct Proxy {
    /// Where the client connects instead of the server.
    pub addr: SocketAddr,
    control: Arc<Control>,
    tasks: JoinSet<()>,
}

impl Proxy {
    /// Starts a proxy to `server` (`host:port`), open.
    pub async fn start(server: &str) -> Result<Proxy, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot start a proxy on 127.0.0.1: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("the proxy's address: {e}"))?;
        let control = Arc::new(Control {
            state: Mutex::new(State {
                open: true,
                mode: Mode::Forward,
                holding: false,
                swallowed: None,
                held: None,
                connections: 0,
            }),
            changed: Notify::new(),
            cut: watch::channel(0).0,
        });
        let mut tasks = JoinSet::new();
        tasks.spawn(accept(listener, server.to_string(), control.clone()));
        Ok(Proxy {
            addr,
            control,
            tasks,
        })
    }

    /// The next request of the recipe never reaches the server; the
    /// connection drops instead.
    pub fn swallow_next(&self) {
        self.control.update(|s| {
            s.mode = Mode::SwallowNext;
            s.swallowed = None;
        });
    }

    /// Waits until a request was swallowed; its xid.
    pub async fn swallowed(&self, at_most: Duration) -> Option<i32> {
        self.control.until(at_most, |s| s.swallowed.is_some()).await;
        self.control.state().swallowed
    }

    /// The next request of the recipe reaches the server; its reply (and
    /// all after it but pings) is kept from the client until [`cut`].
    ///
    /// [`cut`]: Self::cut
    pub fn hold_reply_of_next(&self) {
        self.control.update(|s| {
            s.mode = Mode::HoldReplyOfNext(None);
            s.held = None;
        });
    }

    /// Waits until the server's reply to the held request arrived; its xid.
    pub async fn reply_held(&self, at_most: Duration) -> Option<i32> {
        self.control.until(at_most, |s| s.held.is_some()).await;
        self.control.state().held
    }

    /// Whether the proxy keeps the server's frames from the client now.
    pub fn holding(&self) -> bool {
        self.control.state().holding
    }

    /// Drops the client's connection (what the proxy held goes with it)
    /// and keeps new ones waiting until [`open`](Self::open).
    pub fn cut(&self) {
        self.control.update(|s| {
            s.open = false;
            s.mode = Mode::Forward;
            s.holding = false;
        });
        self.control.cut.send_modify(|g| *g += 1);
    }

    /// Lets the client library reconnect.
    pub fn open(&self) {
        self.control.update(|s| s.open = true);
    }

    /// Connections let through to the server so far.
    pub fn connections(&self) -> u64 {
        self.control.state().connections
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.tasks.abort_all();
    }
}

async fn accept(listener: TcpListener, server: String, control: Arc<Control>) {
    let mut connections = JoinSet::new();
    while let Ok((client, _)) = listener.accept().await {
        let _ = client.set_nodelay(true);
        connections.spawn(relay(client, server.clone(), control.clone()));
        // Forget the ones that ended.
        while connections.try_join_next().is_some() {}
    }
}

/// One client connection: waits until the proxy is open, then forwards
/// both ways until either side closes or the proxy cuts it.
async fn relay(client: TcpStream, server: String, control: Arc<Control>) {
    let mut cut = control.cut.subscribe();
    cut.borrow_and_update();
    let opened = async {
        loop {
            let notified = control.changed.notified();
            if control.state().open {
                return;
            }
            notified.await;
        }
    };
    tokio::select! {
        _ = opened => {}
        _ = cut.changed() => return,
    }
    let Ok(upstream) = TcpStream::connect(&server).await else {
        return;
    };
    let _ = upstream.set_nodelay(true);
    control.update(|s| s.connections += 1);
    let (client_rx, client_tx) = client.into_split();
    let (server_rx, server_tx) = upstream.into_split();
    tokio::select! {
        _ = requests(client_rx, server_tx, &control) => {}
        _ = replies(server_rx, client_tx, &control) => {}
        _ = cut.changed() => {}
    }
    // Both halves of both streams drop here: the connections close.
}

/// Reads one frame (its length prefix included); `None` at the end of the
/// stream or on a frame no server would send.
async fn frame(rx: &mut tokio::net::tcp::OwnedReadHalf) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    rx.read_exact(&mut len).await.ok()?;
    let n = usize::try_from(i32::from_be_bytes(len)).ok()?;
    if n > MAX_FRAME {
        return None;
    }
    let mut buf = vec![0u8; 4 + n];
    buf[..4].copy_from_slice(&len);
    rx.read_exact(&mut buf[4..]).await.ok()?;
    Some(buf)
}

/// The frame's first field after the length: a request's or a reply's xid.
fn xid(frame: &[u8]) -> Option<i32> {
    frame
        .get(4..8)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Client → server.
async fn requests(
    mut rx: tokio::net::tcp::OwnedReadHalf,
    mut tx: tokio::net::tcp::OwnedWriteHalf,
    control: &Control,
) {
    // The connect request has no header.
    let Some(connect) = frame(&mut rx).await else {
        return;
    };
    if tx.write_all(&connect).await.is_err() {
        return;
    }
    while let Some(f) = frame(&mut rx).await {
        let id = xid(&f).unwrap_or(0);
        if id > 0 {
            let mut swallow = false;
            control.update(|s| match s.mode {
                Mode::SwallowNext => {
                    s.mode = Mode::Forward;
                    s.swallowed = Some(id);
                    // As a cut: the library's reconnect waits for the
                    // trace's step.
                    s.open = false;
                    swallow = true;
                }
                Mode::HoldReplyOfNext(None) => s.mode = Mode::HoldReplyOfNext(Some(id)),
                _ => {}
            });
            if swallow {
                // The request goes nowhere, and neither does the connection.
                return;
            }
        }
        if tx.write_all(&f).await.is_err() {
            return;
        }
    }
}

/// Server → client.
async fn replies(
    mut rx: tokio::net::tcp::OwnedReadHalf,
    mut tx: tokio::net::tcp::OwnedWriteHalf,
    control: &Control,
) {
    let Some(response) = frame(&mut rx).await else {
        return;
    };
    if tx.write_all(&response).await.is_err() {
        return;
    }
    while let Some(f) = frame(&mut rx).await {
        let id = xid(&f).unwrap_or(0);
        let mut keep = false;
        control.update(|s| {
            if let Mode::HoldReplyOfNext(Some(x)) = s.mode {
                if x == id {
                    s.mode = Mode::Forward;
                    s.holding = true;
                    s.held = Some(id);
                }
            }
            keep = s.holding && id != PING_XID;
        });
        // A held frame is lost with the connection when it is cut.
        if keep {
            continue;
        }
        if tx.write_all(&f).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex as StdMutex;

    /// A stand-in server: answers the connect frame, then every request
    /// frame with a reply of the same xid; records the xids it saw.
    async fn fake_server() -> (String, Arc<StdMutex<Vec<i32>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let seen = Arc::new(StdMutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let log = log.clone();
                tokio::spawn(async move {
                    let (mut rx, mut tx) = conn.into_split();
                    let Some(_) = frame(&mut rx).await else {
                        return;
                    };
                    let _ = tx.write_all(&[0, 0, 0, 4, 0, 0, 0, 0]).await;
                    while let Some(f) = frame(&mut rx).await {
                        let id = xid(&f).unwrap_or(0);
                        log.lock().expect("log").push(id);
                        let mut reply = vec![0, 0, 0, 16];
                        reply.extend(id.to_be_bytes());
                        reply.extend([0u8; 12]);
                        if tx.write_all(&reply).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        (addr, seen)
    }

    fn request(id: i32) -> Vec<u8> {
        let mut f = vec![0, 0, 0, 8];
        f.extend(id.to_be_bytes());
        f.extend([0u8; 4]);
        f
    }

    /// A client connection through the proxy, past the handshake.
    async fn client(
        proxy: &Proxy,
    ) -> (
        tokio::net::tcp::OwnedReadHalf,
        tokio::net::tcp::OwnedWriteHalf,
    ) {
        let conn = TcpStream::connect(proxy.addr).await.expect("connect");
        let (mut rx, mut tx) = conn.into_split();
        tx.write_all(&[0, 0, 0, 4, 0, 0, 0, 0])
            .await
            .expect("hello");
        frame(&mut rx).await.expect("the server's answer");
        (rx, tx)
    }

    async fn next_reply(rx: &mut tokio::net::tcp::OwnedReadHalf) -> Option<Option<i32>> {
        tokio::time::timeout(Duration::from_millis(200), frame(rx))
            .await
            .ok()
            .map(|f| f.and_then(|f| xid(&f)))
    }

    #[test]
    fn the_proxy_withholds_a_reply_swallows_a_request_and_cuts_for_real() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let (server, seen) = fake_server().await;
            let proxy = Proxy::start(&server).await.expect("proxy");
            let (mut rx, mut tx) = client(&proxy).await;
            tx.write_all(&request(1)).await.expect("send");
            assert_eq!(next_reply(&mut rx).await, Some(Some(1)));

            // Applied, reply lost: the server sees the request, the client
            // never gets its reply; pings still pass.
            proxy.hold_reply_of_next();
            tx.write_all(&request(2)).await.expect("send");
            assert_eq!(proxy.reply_held(Duration::from_secs(2)).await, Some(2));
            assert_eq!(
                next_reply(&mut rx).await,
                None,
                "the held reply came through"
            );
            tx.write_all(&request(PING_XID)).await.expect("ping");
            assert_eq!(next_reply(&mut rx).await, Some(Some(PING_XID)));
            proxy.cut();
            assert_eq!(
                next_reply(&mut rx).await,
                Some(None),
                "the connection stays up"
            );

            // A reconnect waits until the proxy opens.
            let waiting = tokio::spawn(async move {
                let conn = TcpStream::connect(proxy.addr).await.expect("connect");
                (proxy, conn)
            });
            let (proxy, conn) = waiting.await.expect("task");
            let connections = proxy.connections();
            tokio::time::sleep(Duration::from_millis(100)).await;
            assert_eq!(proxy.connections(), connections, "let through while cut");
            proxy.open();
            drop(conn);
            let (mut rx, mut tx) = client(&proxy).await;

            // Not applied: the request never reaches the server and the
            // connection drops.
            proxy.swallow_next();
            tx.write_all(&request(3)).await.expect("send");
            assert_eq!(proxy.swallowed(Duration::from_secs(2)).await, Some(3));
            assert_eq!(next_reply(&mut rx).await, Some(None));
            assert_eq!(*seen.lock().expect("log"), vec![1, 2, PING_XID]);
        });
    }

    #[test]
    fn a_frames_xid_is_its_first_field() {
        let f = [0, 0, 0, 8, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 11];
        assert_eq!(xid(&f), Some(PING_XID));
        assert_eq!(xid(&[0, 0, 0, 4, 0, 0, 0, 7]), Some(7));
        assert_eq!(xid(&[0, 0, 0]), None);
    }
}
