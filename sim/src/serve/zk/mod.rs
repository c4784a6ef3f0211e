//! ZooKeeper's client protocol in front of the ZooKeeper model: what
//! `locksmith serve` (the default `--protocol zookeeper`) runs.
//!
//! - [`jute`] and [`wire`]: the protocol's records, read into the model's
//!   requests and written back from its answers;
//! - [`hub`]: the served server: the model, the sessions as the wire sees
//!   them, their connections and timeouts; [`zxid_times`], when each
//!   transaction was applied (`ctime`, `mtime`);
//! - [`connection`]: one client connection's reader and writer;
//! - [`outage`]: the connections a re-enacted trace keeps down, and a
//!   stopped server;
//! - [`faults`]: expiries, dropped connections, one-way and two-way
//!   partitions and held replies by schedule, aimed here at sessions,
//!   holders and waiters;
//! - [`replay`]: `--trace`, a checker counterexample re-enacted on the
//!   clients that connect.

mod connection;
pub mod faults;
pub(super) mod hub;
mod jute;
mod outage;
pub mod replay;
pub mod wire;
mod zxid_times;

use super::{Options, State};
use faults::{Action, Fault, Target, When};
use hub::Hub;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// The ZooKeeper side of a served run.
pub(crate) struct Served {
    pub(super) hub: Hub,
    pub(super) replay: Option<replay::Replay>,
    /// Each fault by schedule, and whether it has struck.
    pub(super) faults: Vec<(Fault, bool)>,
    pub(super) struck: Vec<super::summary::Struck>,
}

impl Served {
    /// The served server: a fresh one, or (`--trace`) the scenario's first
    /// state, its trace explored first; and the instant the run starts,
    /// once that exploration is done.
    pub(super) fn new(options: &Options) -> Result<(Served, Instant), String> {
        let traced = match &options.trace {
            None => None,
            Some((cfg, property)) => Some(replay::Replay::new(
                cfg,
                *property,
                options.session_timeout,
            )?),
        };
        let started = Instant::now();
        let (mut hub, replay) = match traced {
            None => (Hub::new(options.session_timeout, started), None),
            Some((replay, server)) => {
                let mut hub = Hub::with_server(server, options.session_timeout, started);
                hub.held = Some(Default::default());
                hub.outage.clock_frozen = true;
                (hub, Some(replay))
            }
        };
        hub.record.verbose = options.verbose;
        let served = Served {
            hub,
            replay,
            faults: options.faults.iter().map(|f| (f.clone(), false)).collect(),
            struck: Vec::new(),
        };
        Ok((served, started))
    }
}

pub(super) async fn accept(listener: TcpListener, state: Arc<Mutex<State>>) {
    while let Ok((stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection::serve(stream, state.clone()));
    }
}

/// The clock's work: session timeouts, faults by schedule, the trace's
/// next steps.
pub(super) fn tick(s: &mut State, now: Instant) {
    s.zk.hub.tick(now);
    strike(s, now);
    replay::advance(s, now);
    replay::admit_ended(s);
}

/// The container reaper's pass (a re-enacted trace reaps at its own steps).
pub(super) fn reap(s: &mut State) {
    if !s.zk.replay.as_ref().is_some_and(|r| r.running()) {
        s.zk.hub.reap();
    }
}

/// A connect request: a new session claims one of a re-enacted trace's
/// first sessions while there are any.
fn connect(
    s: &mut State,
    req: &wire::Connect,
    conn: &hub::Conn,
    now: Instant,
) -> Option<hub::From> {
    let fresh = req.session_id == 0;
    let zk = &mut s.zk;
    let claim = zk.replay.as_mut().filter(|_| fresh).and_then(|r| r.claim());
    let from = zk.hub.connect(req, conn, now, claim)?;
    if fresh {
        if let Some(r) = zk.replay.as_mut() {
            r.connected(from.session, claim.is_some());
        }
    }
    Some(from)
}

fn strike(s: &mut State, now: Instant) {
    for i in 0..s.zk.faults.len() {
        let (fault, done) = &s.zk.faults[i];
        let When::AfterMs(after_ms) = fault.when else {
            continue;
        };
        if *done {
            continue;
        }
        let aim = match fault.target {
            Target::Session(id) => {
                s.zk.hub
                    .opened(id)
                    .filter(|t| now.duration_since(*t) >= Duration::from_millis(after_ms))
                    .map(|_| (format!("session 0x{id:x}"), id))
            }
            Target::Holder => s
                .judge
                .holder_for(now, after_ms)
                .map(|(name, id)| (format!("{name} (session 0x{id:x})"), id)),
            Target::Waiter => s
                .judge
                .waiter_for(now, after_ms)
                .map(|(name, id)| (format!("{name} (session 0x{id:x})"), id)),
            Target::Any => None,
        };
        if let Some((on, session)) = aim {
            act(&mut s.zk, i, on, session, now);
        }
    }
}

/// Fault `i` strikes `session` now.
fn act(zk: &mut Served, i: usize, on: String, session: u32, now: Instant) {
    let fault = zk.faults[i].0.clone();
    zk.faults[i].1 = true;
    match fault.action {
        Action::Expire => zk.hub.expire(session, &format!("fault {fault}"), now),
        Action::Drop => zk.hub.drop_connection(session, now),
        Action::Mute(ms) => zk.hub.mute(session, now + Duration::from_millis(ms), now),
        Action::Hold(ms) => zk.hub.hold(session, Duration::from_millis(ms), now),
        Action::Cut(ms) => zk.hub.cut(session, Duration::from_millis(ms), now),
    }
    zk.struck.push(super::summary::Struck {
        fault: fault.to_string(),
        on,
        at_ms: zk.hub.record.ms(now),
    });
}

/// One request: a fault waiting for it (by opcode and path, on its
/// session) lets it be applied, loses its reply, and strikes.
fn request(s: &mut State, from: hub::From, head: (i32, i32), req: wire::Request, now: Instant) {
    let path = match &req {
        wire::Request::Model { op, .. } => op.path().map(str::to_string),
        _ => None,
    };
    let holder = s.judge.holder_for(now, 0).map(|(_, id)| id);
    let waiter = s.judge.waiter_for(now, 0).map(|(_, id)| id);
    let waiting = s.zk.faults.iter().position(|(f, done)| {
        let When::On {
            opcode,
            path: prefix,
        } = &f.when
        else {
            return false;
        };
        let aimed = match f.target {
            Target::Session(id) => id == from.session,
            Target::Holder => holder == Some(from.session),
            Target::Waiter => waiter == Some(from.session),
            Target::Any => true,
        };
        let on_path = match (prefix, &path) {
            (None, _) => true,
            (Some(p), Some(at)) => at.starts_with(p.as_str()),
            (Some(_), None) => false,
        };
        !done && aimed && *opcode == head.1 && on_path
    });
    if let Some(r) =
        s.zk.replay
            .as_mut()
            .filter(|r| r.running() && r.traces(&req))
    {
        r.wait(from, head, req);
        replay::advance(s, now);
        return;
    }
    let answer = if waiting.is_some() {
        hub::Answer::Lose
    } else {
        hub::Answer::Send
    };
    s.zk.hub.request(from, head, req, now, answer);
    let notified = std::mem::take(&mut s.zk.hub.notified);
    s.judge.release_woke(from.session, &notified, now);
    if let Some(i) = waiting {
        let what = wire::opcode::name(head.1);
        let on = match path {
            Some(p) => format!(
                "session 0x{:x}'s {what}({p}), applied, reply lost",
                from.session
            ),
            None => format!("session 0x{:x}'s {what}, applied, reply lost", from.session),
        };
        act(&mut s.zk, i, on, from.session, now);
    }
}
