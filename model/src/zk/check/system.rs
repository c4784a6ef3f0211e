//! The whole system the checker explores: one ZooKeeper server, N clients
//! each on its own session, the two FIFO channels of every session, and the
//! faults still allowed.
//!
//! With [`CheckConfig::shared_session`] the N clients are N acquiring
//! threads of one process, each with its own mutex object, on the
//! process's one session: its *mates*, the clients with the same session
//! id. A connection drop, a crash, a reconnect, learning of an expiry,
//! giving up a session and opening the next one strike every mate at once;
//! an event the server fires for the session reaches every mate, and each
//! hands it to the watchers its own mutex registered (the Java client's
//! `ZKWatchManager` keeps every watcher of a path, whichever object set
//! it). Each mate keeps its own queues in both directions: the process's
//! one FIFO connection is over-approximated by one per mutex (the server
//! may serve one mutex's later request before another's earlier one), and
//! each mutex has its own event and executor threads where the process has
//! one of each (callbacks of two mutexes may run side by side). Both only
//! add interleavings.
//!
//! Every [`Action`] is one atomic, separately schedulable event: a client
//! thread's step, the server handling the next request of one session, one
//! message reaching a client, or a fault. Cross-session order is free; within
//! a session, requests and replies-plus-events stay FIFO, and the events a
//! transaction fires are queued before its reply — ZooKeeper's ordering
//! guarantees, nothing more.

use super::config::{CheckConfig, FaultBudget, MAX_CLIENTS};
use super::local::{peer_facts, Local, PeerFacts};
pub use super::peer::{Message, Peer, Request};
use super::server_digest::ServerDigest;
use crate::engine::agent::Agent;
use crate::engine::harness::{LockEvent, Phase, Writes};
use crate::engine::resource::{Resource, Section};
use crate::engine::shared::Shared;
use crate::zk::client::guarded::{is_guarded_write, RESOURCE_NODE};
use crate::zk::client::{
    Client, KeeperState, Library, Output, Recipe, RecipeConfig, Status, Thread,
};
use crate::zk::{
    CreateMode, Op, OpResult, Reply, Service, SessionId, WatchedEvent, ZkError, ZkServer,
};
use smallvec::SmallVec;
use std::collections::{BTreeSet, VecDeque};
use std::fmt;

/// The steps a client's part remembers the outcome of
/// ([`own_step`](super::own_step::own_step)): a step of each of its
/// threads, and a delivery to it.
pub const PEER_MEMO: usize = Thread::ALL.len() + 1;

/// A client as a state holds it: shared with the states around it until an
/// action changes it, with its digest (see [`symmetry`](super::symmetry))
/// and what its own steps make of it (see [`ZkSpace`](crate::zk::check::space::ZkSpace)).
pub type SharedPeer<'a> = Shared<'a, Peer, PeerFacts, PEER_MEMO>;
/// The server as a state holds it, likewise.
pub type SharedServer<'a> = Shared<'a, ZkServer, ServerDigest>;
/// The clients of a state, in place: listing a state's actions reads every
/// client, and a list on the heap of its own was a cache miss per state
/// expanded (and an allocation per state kept).
pub type Peers<'a> = SmallVec<[SharedPeer<'a>; MAX_CLIENTS as usize]>;

/// The whole system. A state the explorer keeps is a `System<'static>`
/// (it holds its parts); a successor being judged borrows the parts it
/// shares with the state it came from ([`System::lend`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct System<'a> {
    pub server: SharedServer<'a>,
    pub peers: Peers<'a>,
    /// Faults still allowed.
    pub faults: FaultBudget,
    /// The protected resource, when the scenario writes to one
    /// (`fencing`, `guarded`).
    pub resource: Option<Resource>,
    /// Whether the server is stopped ([`Action::StopServer`]) and has not
    /// started again ([`Action::StartServer`]).
    pub down: Downtime,
}

/// Whether the server runs, and how long a stop lasts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Downtime {
    #[default]
    Up,
    /// Stopped, back within the clients' session timeout.
    Short,
    /// Stopped past a session timeout: a library that gives up on a
    /// suspended session by its own clock does so meanwhile.
    Long,
}

/// One step of the system. Client numbers are 0-based indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// A client thread takes one step.
    Run(u8, Thread),
    /// The server handles the next request of the client's session.
    Serve(u8),
    /// The next reply or event reaches the client.
    Deliver(u8),
    /// A heartbeat tells the client library its session has expired.
    NoticeExpiry(u8),
    /// The server's container reaper runs.
    Reap,
    /// A thread's timed `wait(millis)` runs out. Not a fault: time passes
    /// whatever else happens, and the checker lets it run out at any moment.
    TimeOut(u8, Thread),
    /// Fault: the server expires the client's session.
    Expire(u8),
    /// Fault: the client's connection drops with a request in flight.
    LoseConnection(u8),
    /// Fault: the client's connection drops with nothing in flight.
    Disconnect(u8),
    /// Fault: the client's process crashes.
    Crash(u8),
    /// Fault, UNSAFE (ZooKeeper never does it): the client's second queued
    /// reply or event reaches it before the first.
    Overtake(u8),
    /// The server times out a session nothing keeps alive (a crashed or
    /// exited process, a closed library). Not a fault: it follows, at any
    /// moment.
    TimeOutSession(u8),
    /// The client library reconnects within the session timeout. Not a
    /// fault: it follows a disconnect, at any moment.
    Reconnect(u8),
    /// Fault: the client's connection stops answering, and stays silent
    /// until its library gives up on the session (a one-way partition, a
    /// paused server): the start of a client-side expiry.
    ClientExpire(u8),
    /// The library, suspended for a session timeout by the client's own
    /// clock, gives up on its session and opens a new one (Curator's
    /// injected expiry). Not a fault: it follows [`Action::ClientExpire`].
    GiveUp(u8),
    /// The server ends the oldest session client `c` gave up on (it
    /// expires, or the old handle's close reaches it). Not a fault: it
    /// follows a client-side expiry, at any moment.
    ExpireOld(u8),
    /// The deadline of the client's timed call passes. Not a fault: time
    /// passes whatever else happens.
    Deadline(u8),
    /// Fault: the client's library has been disconnected for its
    /// connection timeout: the oldest call waiting for the connection fails
    /// with `ConnectionLoss` before it is sent (Curator's
    /// `checkTimeouts()`; see [`Recipe::times_out_connecting`]). Budgeted,
    /// as a client-side expiry is: it is how long the outage lasts.
    ///
    /// [`Recipe::times_out_connecting`]: crate::zk::client::Recipe::times_out_connecting
    ConnectTimeout(u8),
    /// Fault: the server stops, for longer than a session timeout if
    /// `true`. Every connection drops at once: requests not yet applied
    /// never are, replies not yet read are lost, every watcher hears
    /// `Disconnected`. Nothing reaches the server, and no session ends,
    /// until it starts again.
    StopServer(bool),
    /// The stopped server starts again with its state: its tree, sessions
    /// and ephemeral nodes are restored from its log and snapshot
    /// (ZooKeeper's standalone restart), and the clients may reconnect.
    /// Not a fault: it follows a stop, at any moment.
    StartServer,
}

impl Action {
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Action::Expire(_)
                | Action::LoseConnection(_)
                | Action::Disconnect(_)
                | Action::Crash(_)
                | Action::Overtake(_)
                | Action::ClientExpire(_)
                | Action::ConnectTimeout(_)
                | Action::StopServer(_)
        )
    }

    /// The client the action belongs to, if any.
    /// The same action with its client renamed by `f`.
    pub fn relabel(self, f: impl Fn(u8) -> u8) -> Action {
        match self {
            Action::Run(c, t) => Action::Run(f(c), t),
            Action::TimeOut(c, t) => Action::TimeOut(f(c), t),
            Action::Serve(c) => Action::Serve(f(c)),
            Action::Deliver(c) => Action::Deliver(f(c)),
            Action::NoticeExpiry(c) => Action::NoticeExpiry(f(c)),
            Action::Expire(c) => Action::Expire(f(c)),
            Action::LoseConnection(c) => Action::LoseConnection(f(c)),
            Action::Disconnect(c) => Action::Disconnect(f(c)),
            Action::Crash(c) => Action::Crash(f(c)),
            Action::Overtake(c) => Action::Overtake(f(c)),
            Action::TimeOutSession(c) => Action::TimeOutSession(f(c)),
            Action::Reconnect(c) => Action::Reconnect(f(c)),
            Action::ClientExpire(c) => Action::ClientExpire(f(c)),
            Action::GiveUp(c) => Action::GiveUp(f(c)),
            Action::Deadline(c) => Action::Deadline(f(c)),
            Action::ConnectTimeout(c) => Action::ConnectTimeout(f(c)),
            Action::Reap => Action::Reap,
            Action::StopServer(long) => Action::StopServer(long),
            Action::StartServer => Action::StartServer,
            Action::ExpireOld(c) => Action::ExpireOld(f(c)),
        }
    }

    /// Who takes the action, for weak fairness: the client and which of
    /// its agents — a thread of its process, the server serving its
    /// session, or its connection delivering to it — packed as
    /// [`Agent::pack`]s; or the server's container reaper, a timer that
    /// runs whatever else happens ([`Agent::REAPER`]). A fault has no agent:
    /// nobody is owed it.
    pub fn agent(self) -> Option<Agent> {
        let (client, kind) = match self {
            Action::Run(c, t) | Action::TimeOut(c, t) => (c, Agent::thread(t)),
            Action::Serve(c) | Action::TimeOutSession(c) => (c, Agent::SERVER),
            Action::Deliver(c) | Action::NoticeExpiry(c) | Action::Reconnect(c) => {
                (c, Agent::CONNECTION)
            }
            Action::GiveUp(c) | Action::ExpireOld(c) | Action::Deadline(c) => (c, Agent::CLOCK),
            Action::Reap | Action::StartServer => return Some(Agent::REAPER),
            Action::Expire(_)
            | Action::StopServer(_)
            | Action::LoseConnection(_)
            | Action::Disconnect(_)
            | Action::Crash(_)
            | Action::Overtake(_)
            | Action::ClientExpire(_)
            | Action::ConnectTimeout(_) => return None,
        };
        Some(Agent { client, kind })
    }

    pub fn client(self) -> Option<u8> {
        match self {
            Action::Run(c, _)
            | Action::TimeOut(c, _)
            | Action::Serve(c)
            | Action::Deliver(c)
            | Action::NoticeExpiry(c)
            | Action::Expire(c)
            | Action::LoseConnection(c)
            | Action::Disconnect(c)
            | Action::Reconnect(c)
            | Action::Crash(c)
            | Action::Overtake(c)
            | Action::TimeOutSession(c)
            | Action::ClientExpire(c)
            | Action::GiveUp(c)
            | Action::Deadline(c)
            | Action::ConnectTimeout(c)
            | Action::ExpireOld(c) => Some(c),
            Action::Reap | Action::StopServer(_) | Action::StartServer => None,
        }
    }
}

// ZooKeeper's agents: a client's threads (kinds 0-3), its clock, the
// server's handling of its session and its connection (the engine's
// [`Agent`] packs them; its `REAPER` is the server's own timers: the
// container reaper and the start of a stopped server, one agent for the
// two — a stopped server reaps nothing, so they are never enabled
// together and neither hides the other's fairness).
impl Agent {
    /// The timers that follow a client-side expiry: the library giving up
    /// on the suspended session, the server ending the session given up
    /// on, and a timed call's deadline. One agent for the three (the
    /// agent's three bits have no kind left). Giving up and the old
    /// session's end are never enabled together (giving up ends the
    /// suspension before an abandoned session exists). A deadline can be:
    /// Curator's `acquire(time, unit)` running while its client is
    /// stranded or holds a session it gave up on. A cycle in which only
    /// one of them steps then passes as fair to the other, so a starvation
    /// found there may be a false one (never a missed violation); no
    /// scenario of the catalogue combines a timed acquire with a
    /// client-side expiry.
    const CLOCK: u8 = 4;
    const SERVER: u8 = 6;
    const CONNECTION: u8 = 7;

    fn thread(t: Thread) -> u8 {
        match t {
            Thread::Main => 0,
            Thread::Event => 1,
            Thread::SafeNotify => 2,
            Thread::Background => 3,
            // Curator's `ConnectionStateManager` runs the listeners and
            // gives up on a suspended session on one thread: the clock's
            // agent (the kinds are all taken).
            Thread::Listener => Self::CLOCK,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Run(c, t) | Action::TimeOut(c, t) => write!(f, "c{}.{t}", c + 1),
            Action::Serve(c) => write!(f, "server<-c{}", c + 1),
            Action::Deliver(c) => write!(f, "server->c{}", c + 1),
            Action::NoticeExpiry(c) => write!(f, "c{} heartbeat", c + 1),
            Action::Reap => write!(f, "reaper"),
            Action::Expire(c) => write!(f, "FAULT expire c{}", c + 1),
            Action::LoseConnection(c) => write!(f, "FAULT connection loss c{}", c + 1),
            Action::Disconnect(c) => write!(f, "FAULT disconnect c{}", c + 1),
            Action::Crash(c) => write!(f, "FAULT crash c{}", c + 1),
            Action::Overtake(c) => write!(f, "UNSAFE server->c{} out of order", c + 1),
            Action::TimeOutSession(c) => write!(f, "server times out c{}", c + 1),
            Action::Reconnect(c) => write!(f, "c{} reconnects", c + 1),
            Action::ClientExpire(c) => write!(f, "FAULT client-side expiry c{}", c + 1),
            Action::GiveUp(c) => write!(f, "c{} gives up its session", c + 1),
            Action::ExpireOld(c) => write!(f, "server ends c{}'s abandoned session", c + 1),
            Action::Deadline(c) => write!(f, "c{} deadline", c + 1),
            Action::ConnectTimeout(c) => write!(f, "FAULT connection timeout c{}", c + 1),
            Action::StopServer(false) => write!(f, "FAULT server stops"),
            Action::StopServer(true) => write!(f, "FAULT server stops, past the session timeout"),
            Action::StartServer => write!(f, "server starts again"),
        }
    }
}

/// What an action did, beyond the new state: for properties over
/// transitions and for traces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effect {
    /// Sessions other than the actor's that the transaction notified.
    pub woken: BTreeSet<SessionId>,
    /// The transaction was a recipe's release operation, and it succeeded.
    pub release: bool,
    /// The recipe code a client step ran, if any.
    pub code: Option<&'static str>,
    /// A client's step reached the protected resource, in a system with
    /// one (a write, a tenure begun or ended): what it did there depends on
    /// more than its client.
    pub at_resource: bool,
    /// A human-readable account of what happened.
    pub text: String,
}

impl System<'static> {
    /// The initial state: the lock root exists (created by the seed's
    /// `main` before its threads start), every client has a session and has
    /// not yet run.
    pub fn initial(cfg: &CheckConfig) -> System<'static> {
        let mut server = ZkServer::new();
        let mut peers = Peers::new();
        let shared = cfg.shared_session.then(|| server.open_session());
        for c in 0..cfg.clients {
            let session = shared.unwrap_or_else(|| server.open_session());
            let rcfg = RecipeConfig::new(cfg.acquisitions, c)
                .with_reentries(cfg.reentries)
                .with_writes(cfg.writes)
                .with_acquire_timeout(cfg.acquire_timeout_ms)
                .with_dead_values_kept(cfg.keep_dead_values);
            peers.push(Shared::new(Peer {
                session,
                client: Client::new(cfg.recipe.instantiate(rcfg)),
                outbox: VecDeque::new(),
                inbox: VecDeque::new(),
                disconnected: false,
                stranded: false,
                abandoned: Vec::new(),
                section: Section::default(),
            }));
        }
        let root = peers
            .first()
            .map(|p| p.client.recipe.lock_root())
            .unwrap_or("/");
        if !cfg.recipe_root && server.node(root).is_none() {
            // The roots are fixed, valid paths under `/`.
            let _ = server.seed_node(root, CreateMode::Persistent);
        }
        if cfg.writes == Writes::Guarded {
            let _ = server.seed_node(RESOURCE_NODE, CreateMode::Persistent);
        }
        System {
            server: Shared::new(server),
            peers,
            faults: cfg.faults,
            resource: cfg.writes.is_on().then(|| Resource::new(cfg.writes)),
            down: Downtime::Up,
        }
    }
}

impl<'a> System<'a> {
    /// The same state, its parts lent rather than held: the start of a
    /// successor that may be thrown away (see [`Shared`]).
    pub fn lend(&self) -> System<'_> {
        System {
            server: self.server.lend(),
            peers: self.peers.iter().map(Shared::lend).collect(),
            faults: self.faults,
            resource: self.resource,
            down: self.down,
        }
    }

    /// The state with every part held: one the explorer keeps.
    pub fn into_held(self) -> System<'static> {
        System {
            server: self.server.into_held(),
            peers: self.peers.into_iter().map(Shared::into_held).collect(),
            faults: self.faults,
            resource: self.resource,
            down: self.down,
        }
    }

    /// Client `c` and its mates (see the module's documentation), in
    /// client order: the clients on `c`'s session.
    fn mates(&self, c: usize) -> Vec<usize> {
        let s = self.peers[c].session;
        (0..self.peers.len())
            .filter(|&i| self.peers[i].session == s)
            .collect()
    }

    /// Whether the clients are mates on one session
    /// ([`CheckConfig::shared_session`]).
    pub fn one_session(&self) -> bool {
        self.peers.len() > 1
            && self
                .peers
                .iter()
                .all(|p| p.session == self.peers[0].session)
    }

    /// Every action enabled now, in a fixed order (deterministic traces).
    pub fn actions(&self, out: &mut Vec<Action>) {
        out.clear();
        for (i, p) in self.peers.iter().enumerate() {
            let c = i as u8;
            let l = p.digest(peer_facts).local;
            for (k, &t) in Thread::ALL.iter().enumerate() {
                if l.runs(k) {
                    out.push(Action::Run(c, t));
                }
                if l.times_out(k) {
                    out.push(Action::TimeOut(c, t));
                }
            }
            if l.has(Local::DEADLINE) {
                out.push(Action::Deadline(c));
            }
            if l.has(Local::DELIVER) {
                out.push(Action::Deliver(c));
            }
            if l.has(Local::SERVE) {
                out.push(Action::Serve(c));
            }
            // A stopped server takes no connection, ends no session and
            // answers no heartbeat; a library's own clock still runs.
            let up = self.down == Downtime::Up;
            if up && l.has(Local::RECONNECT_IF_ALIVE) && self.server.is_alive(p.session) {
                out.push(Action::Reconnect(c));
            }
            if l.has(Local::GIVE_UP) || self.down == Downtime::Long && l.has(Local::GIVE_UP_IF_DOWN)
            {
                out.push(Action::GiveUp(c));
            }
            if up && l.has(Local::EXPIRE_OLD) {
                out.push(Action::ExpireOld(c));
            }
            if up && l.has(Local::NOTICE_IF_GONE) && !self.server.is_alive(p.session) {
                out.push(Action::NoticeExpiry(c));
            }
        }
        if self.down != Downtime::Up {
            out.push(Action::StartServer);
        } else if self.server.has_reapable_containers() {
            out.push(Action::Reap);
        }
        let f = &self.faults;
        for (i, p) in self.peers.iter().enumerate() {
            let c = i as u8;
            let l = p.digest(peer_facts).local;
            let session_alive = self.server.is_alive(p.session);
            let alive = session_alive && !l.has(Local::DONE);
            if alive && self.down == Downtime::Up && expiry_budget(f, l) > 0 {
                out.push(Action::Expire(c));
            }
            if alive && f.crashes > 0 {
                out.push(Action::Crash(c));
            }
            if l.has(Local::ABANDONED_SESSION) && session_alive && self.down == Downtime::Up {
                out.push(Action::TimeOutSession(c));
            }
            if f.connection_losses > 0 && l.has(Local::LOSABLE) {
                out.push(Action::LoseConnection(c));
            }
            if f.reorders > 0 && l.has(Local::OVERTAKABLE) {
                out.push(Action::Overtake(c));
            }
            if f.disconnects > 0 && l.has(Local::DISCONNECTABLE) {
                out.push(Action::Disconnect(c));
            }
            if alive && l.has(Local::CLIENT_EXPIRABLE) && client_expiry_budget(f, l) > 0 {
                out.push(Action::ClientExpire(c));
            }
            if f.connection_timeouts > 0 && l.has(Local::CONNECT_TIMEOUT) {
                out.push(Action::ConnectTimeout(c));
            }
        }
        if self.down == Downtime::Up
            && self
                .peers
                .iter()
                .any(|p| !p.digest(peer_facts).local.has(Local::DONE))
        {
            if f.server_restarts > 0 {
                out.push(Action::StopServer(false));
            }
            if f.long_server_restarts > 0 {
                out.push(Action::StopServer(true));
            }
        }
    }

    /// Applies `a`. With `describe`, fills [`Effect::text`] (costly; only
    /// for traces).
    pub fn apply(&mut self, a: Action, describe: bool) -> Effect {
        let mut fx = Effect::default();
        match a {
            Action::Run(c, t) => self.run(c as usize, t, describe, &mut fx),
            Action::Serve(c) => self.serve(c as usize, describe, &mut fx),
            Action::Deliver(c) => self.deliver(c as usize, describe, &mut fx),
            Action::NoticeExpiry(c) => {
                for m in self.mates(c as usize) {
                    if self.peers[m].client.phase != Phase::Crashed {
                        self.peers[m].get_mut().client.learn_expiry();
                    }
                }
                if describe {
                    let tells = self.library(c as usize).tells(KeeperState::Expired);
                    fx.text = format!("heartbeat answered SessionExpired: {tells}");
                }
                self.renew(c as usize, describe, &mut fx);
            }
            Action::Reap => {
                let events = self.server.get_mut().reap_containers();
                if describe {
                    fx.text = "container reaper deletes empty containers".into();
                }
                self.route(SessionId(0), events, &mut fx);
            }
            Action::TimeOut(c, t) => {
                let p = self.peers[c as usize].get_mut();
                if let Some(ms) = p.client.timed_wait(t) {
                    p.client.time_out(t);
                    if describe {
                        fx.text =
                            format!("wait({ms}) times out: the thread must win the monitor back");
                    }
                }
            }
            Action::Expire(c) => self.expire(c as usize, describe, &mut fx),
            Action::LoseConnection(c) => self.lose_connection(c as usize, describe, &mut fx),
            Action::Disconnect(c) => {
                self.faults.disconnects -= 1;
                self.drop_shared_connection(c as usize);
                if describe {
                    let tells = self.library(c as usize).tells(KeeperState::Disconnected);
                    fx.text = format!("connection drops with nothing in flight: {tells}");
                }
            }
            Action::Crash(c) => self.crash(c as usize, describe, &mut fx),
            Action::Overtake(c) => {
                self.faults.reorders -= 1;
                self.peers[c as usize].get_mut().inbox.swap(0, 1);
                self.deliver(c as usize, describe, &mut fx);
            }
            Action::TimeOutSession(c) => {
                self.end_session(c as usize, "times out after the crash", describe, &mut fx)
            }
            Action::Reconnect(c) => self.reconnect(c as usize, describe, &mut fx),
            Action::ClientExpire(c) => self.client_expire(c as usize, describe, &mut fx),
            Action::GiveUp(c) => self.give_up(c as usize, describe, &mut fx),
            Action::ExpireOld(c) => self.expire_old(c as usize, describe, &mut fx),
            Action::Deadline(c) => {
                self.peers[c as usize].get_mut().client.pass_deadline();
                if describe {
                    fx.text = "the timed call's deadline passes: a wait(millisToWait) ends".into();
                }
            }
            Action::ConnectTimeout(c) => self.connect_timeout(c as usize, describe, &mut fx),
            Action::StopServer(long) => self.stop_server(long, describe, &mut fx),
            Action::StartServer => {
                self.down = Downtime::Up;
                if describe {
                    fx.text = "the server starts again with its tree and sessions restored: the clients may reconnect".into();
                }
            }
        }
        let whole_process = matches!(
            a,
            Action::Disconnect(_)
                | Action::LoseConnection(_)
                | Action::Crash(_)
                | Action::Reconnect(_)
                | Action::ClientExpire(_)
                | Action::GiveUp(_)
                | Action::ExpireOld(_)
                | Action::NoticeExpiry(_)
        );
        if describe && whole_process && self.one_session() {
            fx.text
                .push_str(" [every client: threads of one process on one session]");
        }
        fx
    }

    /// Fault: the server stops; every connection still up drops at once.
    fn stop_server(&mut self, long: bool, describe: bool, fx: &mut Effect) {
        if long {
            self.faults.long_server_restarts -= 1;
            self.down = Downtime::Long;
        } else {
            self.faults.server_restarts -= 1;
            self.down = Downtime::Short;
        }
        let (mut unsent, mut applied) = (0, 0);
        for c in 0..self.peers.len() {
            let p = &self.peers[c];
            if p.disconnected {
                continue;
            }
            if p.client.phase == Phase::Crashed {
                // Its requests in flight die with the server's end of the
                // connection; nobody is left to hear of it.
                let p = self.peers[c].get_mut();
                unsent += p.outbox.len();
                p.outbox.clear();
                p.disconnected = true;
                continue;
            }
            let (u, a) = self.drop_connection(c);
            unsent += u;
            applied += a;
        }
        if describe {
            let tells = self.library(0).tells(KeeperState::Disconnected);
            fx.text = format!(
                "the server stops: every connection drops, {unsent} request(s) never applied, {applied} applied with the reply lost; pending calls fail with ConnectionLoss, {tells}"
            );
        }
    }

    /// A client thread takes one step; a call it makes joins the outbox.
    fn run(&mut self, c: usize, t: Thread, describe: bool, fx: &mut Effect) {
        let p = self.peers[c].get_mut();
        let won = matches!(p.client.status(t), Status::Entering(_));
        let Some(stepped) = p.client.step(t) else {
            return;
        };
        fx.code = Some(stepped.action.code);
        if describe {
            fx.text = stepped.describe(won, p.client.status(t));
        }
        let release = stepped.sent_release();
        match stepped.output {
            Output::Send(op) => p.outbox.push_back(Request {
                thread: t,
                op,
                release,
            }),
            Output::Write => {
                fx.at_resource |= self.resource.is_some();
                let accepted = self.write(c);
                if describe {
                    let writes = self.resource.map_or(Writes::Off, |r| r.writes);
                    fx.text.push_str(&crate::engine::resource::describe(
                        &self.peers[c].section,
                        accepted,
                        writes,
                    ));
                }
            }
            Output::Nothing => {}
        }
        for e in &stepped.events {
            match e {
                LockEvent::Acquired => {
                    fx.at_resource |= self.resource.is_some();
                    self.tenure_begins(c)
                }
                LockEvent::Released | LockEvent::ThreadDied(_) | LockEvent::Finished => {
                    fx.at_resource |= self.resource.is_some();
                    self.tenure_ends(c)
                }
                _ => {}
            }
        }
    }

    /// The server handles the next request of client `c`'s session.
    fn serve(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let session = self.peers[c].session;
        let Some(Request {
            thread,
            op,
            release,
        }) = self.peers[c].get_mut().outbox.pop_front()
        else {
            return;
        };
        // A read leaves the server as it is, shared with the parent state.
        let outcome = match self.server.answer_unchanged(session, &op) {
            Some(outcome) => outcome,
            None => self.server.get_mut().handle(session, &op),
        };
        fx.release = release && outcome.reply.is_ok();
        if self.resource.is_some() {
            self.judge_at_resource(c, &op, &outcome.reply);
        }
        if describe {
            fx.text = match &outcome.reply {
                Ok(r) => format!("{op} → {r}"),
                Err(e) => format!("{op} → {e}"),
            };
        }
        self.route(session, outcome.events, fx);
        // The recipe will only see the fields it reads (the client masks
        // every reply): masking here too keeps the zxids nobody reads out of
        // the state.
        let mut reply = outcome.reply;
        if self.peers[c].client.phase == Phase::Crashed {
            return;
        }
        let p = self.peers[c].get_mut();
        let fields = p.client.recipe.reads_stat();
        // `ephemeralOwner` only as "mine or not": no session id enters a
        // client's state (the symmetry reduction relies on it).
        fields.own_session(&mut reply, i64::from(session.0));
        fields.mask_reply(&mut reply);
        p.inbox.push_back(Message::Reply(thread, reply));
    }

    /// What a request served for client `c` did to the protected
    /// resource: a guarded write ZooKeeper applied reaches it; an
    /// ephemeral node created gives the client its fencing token.
    fn judge_at_resource(&mut self, c: usize, op: &Op, reply: &Reply) {
        match (op, reply) {
            (_, Ok(_)) if is_guarded_write(op) => {
                self.write(c);
            }
            (Op::Create { mode, .. }, Ok(OpResult::Created(path))) if mode.is_ephemeral() => {
                if let Some(node) = self.server.node(path) {
                    let czxid = node.stat.czxid;
                    self.created(c, czxid);
                }
            }
            _ => {}
        }
    }

    /// The next reply or event reaches client `c`.
    fn deliver(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let p = self.peers[c].get_mut();
        match p.inbox.pop_front() {
            Some(Message::Reply(t, reply)) => {
                if describe {
                    fx.text = match &reply {
                        Ok(r) => format!("reply to {t}: {r}"),
                        Err(e) => format!("reply to {t}: {e}"),
                    };
                }
                p.client.on_reply(t, reply);
                self.renew(c, describe, fx);
            }
            Some(Message::Event(e)) => {
                let n = p.client.on_event(&e);
                if describe {
                    fx.text = format!("event {e} → {n} watcher(s) queued for the event thread");
                }
            }
            None => {}
        }
    }

    /// Fault: the server expires client `c`'s session. The role's budget
    /// goes first, so an any-step expiry stays for a step no role covers.
    fn expire(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let p = &self.peers[c];
        let role = if p.client.holds() {
            &mut self.faults.holder_expiries
        } else if p.client.is_parked() {
            &mut self.faults.waiter_expiries
        } else {
            &mut self.faults.expiries
        };
        if *role > 0 {
            *role -= 1;
        } else {
            self.faults.expiries -= 1;
        }
        self.end_session(c, "expires", describe, fx);
    }

    /// The server ends client `c`'s session (expiry or time-out after a
    /// crash): its ephemeral nodes go, its watchers are told.
    fn end_session(&mut self, c: usize, how: &str, describe: bool, fx: &mut Effect) {
        let session = self.peers[c].session;
        let events = if self.server.is_alive(session) {
            self.server.get_mut().expire(session)
        } else {
            Vec::new()
        };
        if describe {
            fx.text = format!("session {session} {how}: its ephemeral nodes are deleted");
        }
        self.route(session, events, fx);
    }

    /// Fault: client `c`'s connection drops: requests not yet served are
    /// never applied, replies not yet delivered are lost.
    fn lose_connection(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        self.faults.connection_losses -= 1;
        let (unsent, applied) = self.drop_shared_connection(c);
        if describe {
            let tells = self.library(c).tells(KeeperState::Disconnected);
            fx.text = format!(
                "connection drops: {unsent} request(s) never applied, {applied} applied with the reply lost; pending calls fail with ConnectionLoss, {tells}"
            );
        }
    }

    /// Client `c`'s connection drops, and with it every mate's (one
    /// process, one connection). Returns how many requests and replies
    /// were lost.
    fn drop_shared_connection(&mut self, c: usize) -> (usize, usize) {
        let (mut unsent, mut applied) = (0, 0);
        for m in self.mates(c) {
            let (u, a) = self.drop_connection(m);
            unsent += u;
            applied += a;
        }
        (unsent, applied)
    }

    /// Client `c`'s connection drops (a connection loss or a disconnect):
    /// requests not yet served are never applied, replies not yet
    /// delivered are lost, and nothing moves until the library reconnects.
    /// Returns how many requests and replies were lost.
    fn drop_connection(&mut self, c: usize) -> (usize, usize) {
        let p = self.peers[c].get_mut();
        let unsent = p.outbox.len();
        p.outbox.clear();
        let before = p.inbox.len();
        p.inbox.retain(|m| !matches!(m, Message::Reply(..)));
        p.client.on_connection_loss();
        p.disconnected = true;
        (unsent, before - p.inbox.len())
    }

    /// Client `c`'s library has been disconnected for its connection
    /// timeout: the oldest call waiting for the connection never goes out
    /// and fails with `ConnectionLoss`.
    fn connect_timeout(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        self.faults.connection_timeouts -= 1;
        let p = self.peers[c].get_mut();
        let Some(req) = p.outbox.pop_front() else {
            return;
        };
        p.client.on_reply(req.thread, Err(ZkError::ConnectionLoss));
        if describe {
            fx.text = format!(
                "still disconnected after the connection timeout: {} fails with ConnectionLoss before it is sent",
                req.op
            );
        }
    }

    /// The library reconnects within the session timeout.
    fn reconnect(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        for m in self.mates(c) {
            let p = &self.peers[m];
            if !p.disconnected || p.stranded || p.client.abandoned_session() {
                continue;
            }
            let p = self.peers[m].get_mut();
            p.disconnected = false;
            p.client.on_reconnect();
        }
        if describe {
            let tells = self.library(c).tells(KeeperState::SyncConnected);
            fx.text = format!("reconnected within the session timeout: {tells}");
        }
    }

    /// Client `c`'s library.
    fn library(&self, c: usize) -> Library {
        self.peers[c].client.recipe.library()
    }

    /// A library that renews sessions and has just learned that its
    /// session expired opens a new one (Curator's `ConnectionState.reset()`
    /// on `Expired`: LOST); calls pending on the old handle fail, and the
    /// new connection comes up later ([`Action::Reconnect`]: RECONNECTED).
    fn renew(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let p = &self.peers[c];
        let renews = p.client.session_lost && p.client.recipe.library().renews_session;
        if !renews || p.client.closed || p.client.is_done() {
            return;
        }
        let session = self.server.get_mut().open_session();
        // Every mate moves to the new session, a done one too: which
        // clients share a session stays the same whatever they did, and
        // so does what this step touches (see `own_step`).
        for m in self.mates(c) {
            let p = self.peers[m].get_mut();
            if !p.client.is_done() {
                p.client.learn_expiry();
                p.client.renew_session();
            } else {
                // A mate done with the lock is a thread of the process whose
                // library has just renewed: it holds no lost session any
                // more, or the server would time the new one out on its
                // behalf (`TimeOutSession`) under the mates still at work.
                p.client.session_lost = false;
            }
            p.session = session;
            p.outbox.clear();
            p.inbox.clear();
            p.disconnected = true;
        }
        if describe {
            let library = self.library(c).name;
            fx.text.push_str(&format!(
                "; {library}: LOST, a new handle connects on session {session}"
            ));
        }
    }

    /// Fault: client `c`'s connection stops answering for good: pending
    /// calls fail with `ConnectionLoss`, every watcher hears
    /// `Disconnected` (Curator: SUSPENDED), and nothing moves until the
    /// library gives up on the session.
    fn client_expire(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let p = &self.peers[c];
        let role = if p.client.is_parked() && !p.client.holds() {
            &mut self.faults.waiter_client_expiries
        } else {
            &mut self.faults.client_expiries
        };
        if *role > 0 {
            *role -= 1;
        } else {
            self.faults.client_expiries -= 1;
        }
        let (unsent, applied) = self.drop_shared_connection(c);
        for m in self.mates(c) {
            self.peers[m].get_mut().stranded = true;
        }
        if describe {
            let library = self.library(c).name;
            fx.text = format!(
                "c{}'s connection stops answering (a one-way partition, a paused server): {unsent} request(s) never applied, {applied} applied with the reply lost; pending calls fail with ConnectionLoss, every watcher hears Disconnected ({library}: SUSPENDED)",
                c + 1
            );
        }
    }

    /// Client `c`'s library, suspended for a session timeout by its own
    /// clock, gives up on the session the server still holds and opens a
    /// new one.
    fn give_up(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let old = self.peers[c].session;
        let session = self.server.get_mut().open_session();
        for m in self.mates(c) {
            let p = self.peers[m].get_mut();
            p.stranded = false;
            p.abandoned.push(old);
            p.client.give_up_session();
            p.session = session;
            p.outbox.clear();
            p.inbox.clear();
        }
        if describe {
            let library = self.library(c).name;
            fx.text = format!(
                "{library} gives up: SUSPENDED for a session timeout by the client's clock, it injects an expiry (pending calls fail with SessionExpired, every watcher hears Expired: LOST) and a new handle connects on session {session}; the server still holds session {old}"
            );
        }
    }

    /// The server ends the oldest session client `c` gave up on: its
    /// ephemeral nodes go (whoever watched them hears it), and the client,
    /// on its new session, hears nothing of it.
    fn expire_old(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        let Some(&old) = self.peers[c].abandoned.first() else {
            return;
        };
        for m in self.mates(c) {
            let p = self.peers[m].get_mut();
            if p.abandoned.first() == Some(&old) {
                p.abandoned.remove(0);
            }
        }
        let events = if self.server.is_alive(old) {
            self.server.get_mut().expire(old)
        } else {
            Vec::new()
        };
        if describe {
            fx.text = format!(
                "session {old}, given up by c{} on its side, ends on the server (it expires, or the old handle's close arrives): its ephemeral nodes are deleted",
                c + 1
            );
        }
        self.route(old, events, fx);
    }

    /// Fault: client `c`'s process crashes.
    fn crash(&mut self, c: usize, describe: bool, fx: &mut Effect) {
        self.faults.crashes -= 1;
        for m in self.mates(c) {
            let p = self.peers[m].get_mut();
            p.client.crash();
            p.inbox.clear();
            self.tenure_ends(m);
        }
        if describe {
            fx.text = "the process crashes: its threads stop; its session lives until the server times it out".into();
        }
    }

    fn route(&mut self, actor: SessionId, events: Vec<(SessionId, WatchedEvent)>, fx: &mut Effect) {
        for (s, e) in events {
            if s != actor {
                fx.woken.insert(s);
            }
            // Every mate on the session hears it: each one's watchers
            // decide whether it matters to them.
            for i in 0..self.peers.len() {
                let p = &self.peers[i];
                if p.session == s && p.client.phase != Phase::Crashed {
                    self.peers[i]
                        .get_mut()
                        .inbox
                        .push_back(Message::Event(e.clone()));
                }
            }
        }
    }

    /// Clients that believe they hold the lock.
    pub fn holders(&self) -> Vec<u8> {
        (0..self.peers.len() as u8)
            .filter(|&c| self.peers[c as usize].client.holds())
            .collect()
    }

    /// Clients that still want the lock and do not hold it.
    pub fn waiting(&self) -> Vec<u8> {
        (0..self.peers.len() as u8)
            .filter(|&c| self.peers[c as usize].client.is_waiting())
            .collect()
    }
}

/// The expiries a client with facts `l` may still suffer: its role's
/// budget (holder, parked waiter), then the any-step one.
fn expiry_budget(f: &FaultBudget, l: Local) -> u8 {
    let role = if l.has(Local::HOLDS) {
        f.holder_expiries
    } else if l.has(Local::PARKED) {
        f.waiter_expiries
    } else {
        0
    };
    role.saturating_add(f.expiries)
}

/// The client-side expiries a client with facts `l` may still suffer: a
/// parked waiter's budget, then the any-step one.
fn client_expiry_budget(f: &FaultBudget, l: Local) -> u8 {
    let role = if l.has(Local::PARKED) && !l.has(Local::HOLDS) {
        f.waiter_client_expiries
    } else {
        0
    };
    role.saturating_add(f.client_expiries)
}
