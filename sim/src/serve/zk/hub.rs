//! The served ZooKeeper: the model's server, the sessions as the wire sees
//! them (password, connection, when last heard from) and what went out.
//!
//! Everything a request changes happens under one lock, and every frame it
//! causes is queued to its connection before the lock is let go, so a
//! session's notifications reach it before the reply to any request it
//! sends afterwards, and the requester's own before this reply: the
//! ordering [`locksmith_model::zk::Outcome`] promises, kept on the wire.
//!
//! Session ids on the wire are the model's (1, 2, …), so an ephemeral
//! node's owner in a `Stat` needs no translation.

use super::super::record::Record;
use super::outage::Outage;
use super::wire::{self, Connect, Request, Shape};
use super::zxid_times::{unix_ms_now, ZxidTimes};
use locksmith_model::zk::{CreateMode, Op, Service, SessionId, Stat, WatchedEvent, ZkServer};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Notify};

/// What a connection's writer is handed.
pub enum Out {
    Frame(Vec<u8>),
    /// Send nothing more for this long (what was queued after waits, in
    /// order): a reply held, and every later one with it.
    Hold(Duration),
    /// Close the connection once what was queued before is written.
    Close,
}

/// One connection, as the hub reaches it.
#[derive(Clone)]
pub struct Conn {
    pub id: u64,
    pub tx: mpsc::UnboundedSender<Out>,
    /// Tells the connection's reader to stop reading.
    pub closed: Arc<Notify>,
}

impl Conn {
    fn send(&self, frame: Vec<u8>) {
        // A connection whose writer is gone is being torn down; what it
        // would have got is lost, as on a real socket.
        let _ = self.tx.send(Out::Frame(frame));
    }

    fn close(&self) {
        let _ = self.tx.send(Out::Close);
        self.closed.notify_one();
    }
}

struct Session {
    password: [u8; 16],
    /// Until then nothing the server sends reaches the client (a one-way
    /// partition), while the server still hears it.
    muted_until: Option<Instant>,
    opened: Instant,
    last_heard: Instant,
    conn: Option<Conn>,
}

pub struct Hub {
    server: ZkServer,
    sessions: BTreeMap<u32, Session>,
    timeout: Duration,
    next_conn: u64,
    /// The counts, the log and the `--verbose` lines.
    pub record: Record,
    /// Re-enacting a trace (`serve --trace`): what the server sends a
    /// session waits here, in order, until the trace delivers it.
    pub held: Option<BTreeMap<u32, VecDeque<Out>>>,
    /// When each transaction was applied: the stats' `ctime` and `mtime`.
    times: ZxidTimes,
    /// The sessions the last request's transaction notified (the herd
    /// judge counts them).
    pub notified: Vec<u32>,
    /// Connections a re-enacted trace keeps down.
    pub outage: Outage,
}

/// How a request's reply goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Send,
    /// Queued for the trace's delivery (`serve --trace`).
    Hold,
    /// Applied, never answered: the connection goes next.
    Lose,
}

/// Where a frame came from: the session and the connection it is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct From {
    pub session: u32,
    pub conn: u64,
}

impl Hub {
    /// A server with the nodes a real one starts with (`/zookeeper`, its
    /// `quota` and `config`: Curator's ensemble tracker reads the config on
    /// every connect) and `timeout` as every session's negotiated timeout.
    pub fn new(timeout: Duration, started: Instant) -> Hub {
        let mut server = ZkServer::new();
        for at in ["/zookeeper", "/zookeeper/quota", "/zookeeper/config"] {
            // A fresh tree has none of them, so this cannot fail.
            let _ = server.seed_node(at, CreateMode::Persistent);
        }
        Hub::with_server(server, timeout, started)
    }

    /// A server that starts as `server` (a checker scenario's first state,
    /// its sessions already open: connecting clients claim them).
    pub fn with_server(server: ZkServer, timeout: Duration, started: Instant) -> Hub {
        let mut times = ZxidTimes::default();
        times.note(server.zxid(), unix_ms_now());
        Hub {
            server,
            times,
            sessions: BTreeMap::new(),
            timeout,
            next_conn: 0,
            record: Record::new(started),
            held: None,
            notified: Vec::new(),
            outage: Outage::default(),
        }
    }

    /// A password a client must show to take its session over a new
    /// connection; any fixed function of the id does for one loopback
    /// server.
    fn password(session: u32) -> [u8; 16] {
        let half = (u64::from(session) ^ 0x6c6f_636b_736d_6974).to_be_bytes();
        let mut p = [0u8; 16];
        p[..8].copy_from_slice(&half);
        p[8..].copy_from_slice(&half);
        p
    }

    /// A new connection's handle.
    pub fn conn(&mut self, tx: mpsc::UnboundedSender<Out>) -> Conn {
        self.next_conn += 1;
        self.record.counts.connections += 1;
        Conn {
            id: self.next_conn,
            tx,
            closed: Arc::new(Notify::new()),
        }
    }

    /// A connect request on `conn`: a new session, or an old one taken
    /// over (its previous connection closed). An expired, closed or
    /// unknown session, or a wrong password, is answered with timeout 0 and
    /// session 0 (the client's "session expired") and the connection closed.
    pub fn connect(
        &mut self,
        req: &Connect,
        conn: &Conn,
        now: Instant,
        claim: Option<u32>,
    ) -> Option<From> {
        let timeout_ms = self.timeout.as_millis() as i32;
        self.trace(
            now,
            u32::try_from(req.session_id).unwrap_or(0),
            &format!("connect request (session 0x{:x})", req.session_id),
        );
        if req.last_zxid_seen > self.server.zxid() {
            // `ZooKeeperServer.processConnectRequest`: a client that has
            // seen a newer zxid belongs to another server's history.
            conn.close();
            return None;
        }
        if self.outage.refuses(req.session_id) {
            let why = if self.outage.stopped {
                "the server is stopped"
            } else {
                "the trace keeps its connection down"
            };
            self.trace(
                now,
                u32::try_from(req.session_id).unwrap_or(0),
                &format!("connect refused: {why}"),
            );
            conn.close();
            return None;
        }
        if req.session_id == 0 {
            // A re-enacted trace's clients start with their sessions open:
            // a new client takes the next one.
            let id = match claim {
                Some(id) => id,
                None => self.server.open_session().0,
            };
            let password = Hub::password(id);
            self.sessions.insert(
                id,
                Session {
                    password,
                    muted_until: None,
                    opened: now,
                    last_heard: now,
                    conn: Some(conn.clone()),
                },
            );
            self.record.counts.sessions += 1;
            conn.send(wire::connect_response(timeout_ms, i64::from(id), &password));
            return Some(From {
                session: id,
                conn: conn.id,
            });
        }
        let id = u32::try_from(req.session_id).ok();
        let alive = id.is_some_and(|id| self.server.is_alive(SessionId(id)));
        let known = id.and_then(|id| self.sessions.get_mut(&id).map(|s| (id, s)));
        match known {
            Some((id, s)) if alive && req.password == s.password => {
                if let Some(old) = s.conn.replace(conn.clone()) {
                    old.close();
                }
                s.last_heard = now;
                let muted = s.muted_until.is_some_and(|t| now < t);
                let password = s.password;
                let answer = if muted { " (muted: no answer)" } else { "" };
                self.trace(now, id, &format!("reconnected{answer}"));
                if !muted {
                    conn.send(wire::connect_response(timeout_ms, i64::from(id), &password));
                }
                Some(From {
                    session: id,
                    conn: conn.id,
                })
            }
            _ => {
                conn.send(wire::connect_response(0, 0, &[0; 16]));
                conn.close();
                None
            }
        }
    }

    fn conn_of(&self, session: u32) -> Option<&Conn> {
        self.sessions.get(&session).and_then(|s| s.conn.as_ref())
    }

    fn is_muted(&self, session: u32, now: Instant) -> bool {
        self.sessions
            .get(&session)
            .and_then(|s| s.muted_until)
            .is_some_and(|t| now < t)
    }

    /// From now until `until`, nothing the server sends reaches `session`'s
    /// client (replies, notifications, the answer to its reconnects),
    /// while the server still hears its requests and pings: a one-way
    /// partition, or a client whose server seems paused.
    pub fn mute(&mut self, session: u32, until: Instant, now: Instant) {
        if let Some(s) = self.sessions.get_mut(&session) {
            s.muted_until = Some(until);
            let ms = until.duration_since(now).as_millis();
            self.record
                .note(now, format!("session 0x{session:x}: muted for {ms} ms"));
            self.trace(now, session, &format!("muted for {ms} ms"));
        }
    }

    fn deliver(&mut self, events: Vec<(SessionId, WatchedEvent)>) {
        let now = Instant::now();
        for (to, event) in events {
            let sent = match self.conn_of(to.0) {
                Some(_) if self.is_muted(to.0, now) => "muted: lost",
                Some(c) => {
                    let c = c.clone();
                    self.record.counts.notifications += 1;
                    self.out(to.0, &c, wire::notification(&event))
                }
                // Its watches went with its connection; a watch set
                // since then would have a connection to go to.
                None => "not connected: lost",
            };
            self.trace(now, to.0, &format!("<- {event} ({sent})"));
        }
    }

    /// A frame for `session`: sent, or held for the trace's delivery.
    fn out(&mut self, session: u32, conn: &Conn, frame: Vec<u8>) -> &'static str {
        match &mut self.held {
            Some(held) => {
                held.entry(session)
                    .or_default()
                    .push_back(Out::Frame(frame));
                "held for the trace"
            }
            None => {
                conn.send(frame);
                "notified"
            }
        }
    }

    /// Sends the oldest frame held for `session`; `None` if none is.
    pub fn release(&mut self, session: u32) -> Option<&'static str> {
        let out = self.held.as_mut()?.get_mut(&session)?.pop_front()?;
        let conn = self.conn_of(session).cloned();
        Some(match (out, conn) {
            (Out::Frame(f), Some(c)) => {
                c.send(f);
                "sent"
            }
            (Out::Close, Some(c)) => {
                self.drop_connection(session, Instant::now());
                c.close();
                "connection closed"
            }
            // Only a fault by schedule holds a connection's frames.
            (Out::Hold(_), Some(_)) => "nothing",
            (_, None) => "nobody connected: lost",
        })
    }

    /// The replies held for `session` are lost with its connection (a
    /// connection loss re-enacted); its notifications stay held for the
    /// trace's delivery, as the model keeps them (the reconnecting
    /// client's `SetWatches` would bring them back). How many were lost.
    pub fn lose_held_replies(&mut self, session: u32) -> usize {
        let Some(queue) = self.held.as_mut().and_then(|h| h.get_mut(&session)) else {
            return 0;
        };
        let before = queue.len();
        queue.retain(|out| match out {
            Out::Frame(f) => wire::is_notification(f),
            Out::Hold(_) | Out::Close => true,
        });
        before - queue.len()
    }

    /// Closes `session`'s connection once what is held for it before now
    /// has gone (an expiry re-enacted: the client hears of it after the
    /// frames already on their way).
    pub fn hold_close(&mut self, session: u32) {
        if let Some(held) = &mut self.held {
            held.entry(session).or_default().push_back(Out::Close);
        }
    }

    /// Stops holding: everything held goes out, in order, and the server
    /// answers as it goes from now on.
    pub fn unhold(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        for (session, frames) in held {
            for out in frames {
                match (out, self.conn_of(session).cloned()) {
                    (Out::Frame(f), Some(c)) => c.send(f),
                    (Out::Hold(_), _) => {}
                    (Out::Close, Some(c)) => {
                        self.drop_connection(session, Instant::now());
                        c.close();
                    }
                    (_, None) => {}
                }
            }
        }
    }

    /// One line of `--verbose` output about a session.
    fn trace(&self, now: Instant, session: u32, what: &str) {
        self.record
            .trace_line(now, &format!("0x{session:x}  {what}"));
    }

    fn stat_of(&self, path: &str) -> Stat {
        self.server.node(path).map(|n| n.stat).unwrap_or_default()
    }

    /// One request from `from`: handled, its notifications and its reply
    /// queued; with `lose_reply` the request is applied and its reply is
    /// never sent (the caller then drops the connection or expires the
    /// session: a request in flight when the connection went). A frame
    /// from a connection the session has since left is dropped (the real
    /// server has closed that connection).
    pub fn request(
        &mut self,
        from: From,
        (xid, kind): (i32, i32),
        req: Request,
        now: Instant,
        answer: Answer,
    ) {
        let Some(s) = self.sessions.get_mut(&from.session) else {
            return;
        };
        let Some(conn) = s.conn.clone().filter(|c| c.id == from.conn) else {
            return;
        };
        s.last_heard = now;
        let lose_reply = answer == Answer::Lose || s.muted_until.is_some_and(|t| now < t);
        let mut reply: Option<Vec<u8>> = None;
        let mut close_after = false;
        let mut answer_with = |frame: Vec<u8>| reply = Some(frame);
        self.record.counts.requests += 1;
        *self
            .record
            .counts
            .by_op
            .entry(wire::opcode::name(kind))
            .or_default() += 1;
        let session = SessionId(from.session);
        match req {
            Request::Ping => {
                self.trace(now, from.session, "ping");
                answer_with(wire::header(xid, self.server.zxid(), 0));
            }
            Request::Model { op, shape } => {
                let rolled = match (&op, &shape) {
                    (Op::Multi(ops), Shape::Multi(_)) => {
                        Some(self.server.multi_results(session, ops))
                    }
                    _ => None,
                };
                let closing = op == Op::CloseSession;
                // What the clock and the reaper applied since the last
                // request is noted at the latest now, then this request.
                self.times.note(self.server.zxid(), unix_ms_now());
                let out = self.server.handle(session, &op);
                self.times.note(self.server.zxid(), unix_ms_now());
                let lost = if lose_reply { " (reply lost)" } else { "" };
                let said = match &out.reply {
                    Ok(r) => r.to_string(),
                    Err(e) => e.name().to_string(),
                };
                self.trace(now, from.session, &format!("{op} -> {said}{lost}"));
                self.notified = out.events.iter().map(|(to, _)| to.0).collect();
                self.notified.dedup();
                self.deliver(out.events);
                let failed_multi = rolled.filter(|_| out.reply.is_err());
                let frame = wire::reply(
                    xid,
                    self.server.zxid(),
                    &shape,
                    &out.reply,
                    &wire::Stats {
                        created: &|p| self.stat_of(p),
                        time: &|z| self.times.at(z),
                    },
                    failed_multi.as_deref(),
                );
                answer_with(frame);
                close_after = closing;
            }
            Request::SetWatches {
                relative_zxid,
                data,
                exist,
                child,
            } => {
                let fired = self
                    .server
                    .set_watches(session, relative_zxid, &data, &exist, &child);
                let names = |v: &[locksmith_model::zk::Name]| {
                    v.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(" ")
                };
                self.trace(
                    now,
                    from.session,
                    &format!(
                        "setWatches(zxid {relative_zxid}; data {}; exist {}; child {}) -> {} fired",
                        names(&data),
                        names(&exist),
                        names(&child),
                        fired.len()
                    ),
                );
                for event in fired.iter().filter(|_| !lose_reply) {
                    conn.send(wire::notification(event));
                    self.record.counts.notifications += 1;
                }
                answer_with(wire::header(xid, self.server.zxid(), 0));
            }
            Request::Sync(path) => answer_with(wire::sync_reply(xid, self.server.zxid(), &path)),
            Request::GetAcl(path) => match self.server.node(&path) {
                Some(n) => answer_with(wire::acl_reply(xid, self.server.zxid(), &n.stat, &|z| {
                    self.times.at(z)
                })),
                None => answer_with(wire::header(xid, self.server.zxid(), -101)),
            },
            Request::Unsupported { opcode, why } => {
                let entry = self
                    .record
                    .counts
                    .unsupported
                    .entry(wire::opcode::name(opcode))
                    .or_insert((0, why));
                entry.0 += 1;
                answer_with(wire::header(xid, self.server.zxid(), wire::UNIMPLEMENTED));
            }
        }
        if let Some(frame) = reply.filter(|_| !lose_reply) {
            match answer {
                Answer::Hold => {
                    self.out(from.session, &conn, frame);
                }
                Answer::Send | Answer::Lose => conn.send(frame),
            }
        }
        if close_after {
            self.record.note(
                now,
                format!("session 0x{:x} closed by its client", from.session),
            );
            // A held close reply goes first (`release` closes after it).
            match &mut self.held {
                Some(held) => held.entry(from.session).or_default().push_back(Out::Close),
                None => {
                    if let Some(s) = self.sessions.get_mut(&from.session) {
                        s.conn = None;
                    }
                    conn.close();
                }
            }
        }
    }

    /// A body the server could not read: answered `MARSHALLINGERROR`, and
    /// the connection closed, as the real server does.
    pub fn unreadable(&mut self, from: From, xid: i32, why: &str, now: Instant) {
        self.record.note(
            now,
            format!(
                "session 0x{:x}: unreadable request ({why}); connection closed",
                from.session
            ),
        );
        if let Some(c) = self.conn_of(from.session).filter(|c| c.id == from.conn) {
            let c = c.clone();
            c.send(wire::header(
                xid,
                self.server.zxid(),
                wire::MARSHALLING_ERROR,
            ));
            c.close();
        }
    }

    /// The connection `from` is on has closed. The session lives on until
    /// its timeout; its watches go with the connection.
    pub fn disconnected(&mut self, from: From) {
        let Some(s) = self.sessions.get_mut(&from.session) else {
            return;
        };
        if s.conn.as_ref().is_some_and(|c| c.id == from.conn) {
            s.conn = None;
            self.trace(Instant::now(), from.session, "connection closed");
            let Some(s) = self.sessions.get_mut(&from.session) else {
                return;
            };
            s.conn = None;
            self.server.forget_watches(SessionId(from.session));
        }
    }

    /// Ends `session` on the server now (its timeout ran out, or a fault
    /// says so): its ephemerals go, their watches fire, its connection is
    /// closed.
    pub fn expire(&mut self, session: u32, why: &str, now: Instant) {
        if !self.server.is_alive(SessionId(session)) {
            return;
        }
        let events = self.server.expire(SessionId(session));
        self.record.counts.expiries += 1;
        self.trace(now, session, &format!("expired: {why}"));
        self.record
            .note(now, format!("session 0x{session:x} expired: {why}"));
        self.deliver(events);
        if self.held.is_some() {
            // Re-enacting: the client hears of it after what is on its way.
            self.hold_close(session);
        } else if let Some(c) = self.sessions.get_mut(&session).and_then(|s| s.conn.take()) {
            c.close();
        }
    }

    /// The served model server.
    pub fn model(&self) -> &ZkServer {
        &self.server
    }

    /// Whether `session` has a connection now.
    pub fn connected(&self, session: u32) -> bool {
        self.conn_of(session).is_some()
    }

    /// Every session hears the server again.
    pub fn unmute_all(&mut self) {
        for s in self.sessions.values_mut() {
            s.muted_until = None;
        }
    }

    /// Closes `session`'s connection (the client will reconnect, within
    /// its timeout, to the same session).
    pub fn drop_connection(&mut self, session: u32, now: Instant) {
        let conn = self.sessions.get(&session).and_then(|s| s.conn.clone());
        if let Some(c) = conn {
            self.trace(now, session, "connection dropped");
            self.record
                .note(now, format!("session 0x{session:x}: connection dropped"));
            self.disconnected(From {
                session,
                conn: c.id,
            });
            c.close();
        }
    }

    /// The server's clock runs again, every session heard from now (a
    /// re-enacted trace has ended).
    pub fn thaw_clock(&mut self, now: Instant) {
        self.outage.clock_frozen = false;
        for s in self.sessions.values_mut() {
            s.last_heard = now;
        }
    }

    /// The sessions that have a connection now, in id order.
    pub fn connected_sessions(&self) -> Vec<u32> {
        self.sessions
            .iter()
            .filter(|(_, s)| s.conn.is_some())
            .map(|(id, _)| *id)
            .collect()
    }

    /// For `for_`, the session's connection sends nothing (what the server
    /// sends it waits, in order), while the server still hears it: a reply
    /// held, and every later one with it, as a client that checks reply
    /// order needs (a reconnect is a new connection, not held).
    pub fn hold(&mut self, session: u32, for_: Duration, now: Instant) {
        if let Some(c) = self.conn_of(session).cloned() {
            let _ = c.tx.send(Out::Hold(for_));
            let ms = for_.as_millis();
            self.record.note(
                now,
                format!("session 0x{session:x}: replies held for {ms} ms"),
            );
            self.trace(now, session, &format!("replies held for {ms} ms"));
        }
    }

    /// A two-way partition for `for_`: the connection drops and the
    /// session's reconnects are refused; the server hears nothing from it,
    /// so its timeout runs as usual.
    pub fn cut(&mut self, session: u32, for_: Duration, now: Instant) {
        self.drop_connection(session, now);
        self.outage.refuse(session, Some(now + for_));
        let ms = for_.as_millis();
        self.record
            .note(now, format!("session 0x{session:x}: cut off for {ms} ms"));
        self.trace(now, session, &format!("cut off for {ms} ms"));
    }

    /// The clock's work: sessions not heard from for their timeout expire
    /// (not while a re-enacted trace freezes the clock); a cut ends.
    pub fn tick(&mut self, now: Instant) {
        self.outage.tick(now);
        if self.outage.clock_frozen {
            return;
        }
        let timeout = self.timeout;
        let late: Vec<u32> = self
            .sessions
            .iter()
            .filter(|(id, s)| {
                self.server.is_alive(SessionId(**id)) && now.duration_since(s.last_heard) > timeout
            })
            .map(|(id, _)| *id)
            .collect();
        for id in late {
            self.expire(id, "not heard from for its timeout", now);
        }
    }

    /// The container reaper's pass: each emptied container in a
    /// transaction of its own.
    pub fn reap(&mut self) {
        for at in self.server.reapable_containers() {
            let events = self.server.reap_container(&at);
            self.trace(Instant::now(), 0, &format!("reaper: delete({at})"));
            self.deliver(events);
        }
    }

    /// A four-letter word's answer, in the real server's `key\tvalue`
    /// lines: `mntr`'s live session count is what the conformance suite
    /// waits on.
    pub fn four_letter(&self, word: &str) -> String {
        let alive = self
            .server
            .sessions()
            .filter(|(id, _)| self.server.is_alive(*id))
            .count();
        let connected = self.sessions.values().filter(|s| s.conn.is_some()).count();
        match word {
            "ruok" => "imok".to_string(),
            "srvr" => format!(
                "Zookeeper version: locksmith serve (the ZooKeeper 3.8 model)\n\
                 Zxid: 0x{:x}\nMode: standalone\nNode count: {}\n",
                self.server.zxid(),
                self.server.nodes().count()
            ),
            _ => format!(
                "zk_version\tlocksmith serve (the ZooKeeper 3.8 model)\n\
                 zk_server_state\tstandalone\n\
                 zk_znode_count\t{}\n\
                 zk_watch_count\t{}\n\
                 zk_global_sessions\t{alive}\n\
                 zk_num_alive_connections\t{connected}\n",
                self.server.nodes().count(),
                self.server.watch_count()
            ),
        }
    }

    /// When `session` was opened, if it was.
    pub fn opened(&self, session: u32) -> Option<Instant> {
        self.sessions.get(&session).map(|s| s.opened)
    }
}
