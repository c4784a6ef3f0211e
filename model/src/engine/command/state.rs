//! A command backend's state: its server, and per client its place in its
//! recipe and in the harness loop, its one connection, its timers and its
//! tenure at the protected resource — generic over the server, the
//! recipe's places, the requests and replies, and what the backend keeps
//! of its own beside them (a client's clock, a connection's state, a
//! partition's ticks; who owns the lock).
//!
//! A state is hashed whole for its fingerprint: a backend's own parts sit
//! where its fields sat before they were shared, so that they are hashed in
//! the same order.

use crate::engine::harness::{AwaitsReply, Phase};
use crate::engine::resource::{Resource, Section, Sections};
use std::fmt::{Debug, Display};
use std::hash::Hash;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State<Server, Client, Faults, Own> {
    pub server: Server,
    pub clients: Vec<Client>,
    /// The faults still allowed.
    pub left: Faults,
    /// The action that made this state was an unlock by a non-owner: it
    /// deleted, overwrote or changed the lock of a client whose tenure is
    /// current. A mark of the last transition only (every action resets
    /// it), so it splits no state beyond that transition's successor.
    pub foreign_unlock: bool,
    /// What the backend keeps beside its server (who owns the lock, when
    /// the server does not say).
    pub own: Own,
    /// The protected resource, with fencing on.
    pub resource: Option<Resource>,
}

/// One client process with its one connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client<Locals, Request, Reply, Own> {
    pub locals: Locals,
    pub phase: Phase,
    pub channel: Channel<Request, Reply>,
    /// Ticks of work (the critical section), of a retry loop's sleep, or
    /// of thinking left.
    pub timer: u8,
    /// Ticks of a pause left.
    pub paused: u8,
    /// Rounds not begun yet.
    pub rounds: u8,
    /// What the backend keeps of the client's own.
    pub own: Own,
    /// Fencing: where the client is between its lock and the resource.
    pub fence: Fence,
    /// Fencing: the client's tenure at the resource.
    pub section: Section,
}

/// The connection: a request on its way to the server, one the server
/// holds waiting (for a row lock, for a watch's event), or the reply
/// waiting to be read. Serving is instantaneous, so a reply is delivered as
/// it is made; reading it is the client's next step (a paused client's
/// reply waits in its socket).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel<Request, Reply> {
    Idle,
    Sent(Request),
    /// The server holds the request; its reply comes when the wait ends.
    Waiting,
    Replied(Reply),
}

/// A fenced client's progress through its token and its two writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// No fencing, or no tenure under way.
    Off,
    /// The recipe's lock succeeded; the request for the token is on its
    /// way (`lock()` has not returned).
    AwaitToken,
    /// `lock()` returned with the token; this many of the critical
    /// section's two writes are done.
    Wrote(u8),
}

/// What a backend keeps of a client's own, as the harness reads it.
pub trait ClientOwn {
    /// The client's link to its server carries messages now.
    fn linked(&self) -> bool {
        true
    }
    /// Something of the client's own counts down with time.
    fn counting(&self) -> bool {
        false
    }
}

/// The budgets of the faults every command backend has (its `[faults]`
/// table's `pauses` and `crashes`), written by [`process_faults!`].
pub trait ProcessFaults {
    fn pauses(&self) -> u8;
    fn crashes(&self) -> u8;
    fn spend_pause(&mut self);
    fn spend_crash(&mut self);
}

/// `process_faults!(Budget)`: [`ProcessFaults`] for a budget struct with
/// `pauses` and `crashes` fields.
macro_rules! process_faults {
    ($budget:ty) => {
        impl $crate::engine::command::ProcessFaults for $budget {
            fn pauses(&self) -> u8 {
                self.pauses
            }

            fn crashes(&self) -> u8 {
                self.crashes
            }

            fn spend_pause(&mut self) {
                self.pauses -= 1;
            }

            fn spend_crash(&mut self) {
                self.crashes -= 1;
            }
        }
    };
}

pub(crate) use process_faults;

impl<Request, Reply> Channel<Request, Reply> {
    pub fn is_sent(&self) -> bool {
        matches!(self, Channel::Sent(_))
    }

    /// The request on its way, if one is.
    pub fn sent(&self) -> Option<&Request> {
        match self {
            Channel::Sent(r) => Some(r),
            _ => None,
        }
    }

    /// The reply waiting to be read, if one is.
    pub fn replied(&self) -> Option<&Reply> {
        match self {
            Channel::Replied(r) => Some(r),
            _ => None,
        }
    }

    /// Reads the channel: the reply, if one waited; the channel is idle
    /// after.
    pub fn take_reply(&mut self) -> Option<Reply> {
        match std::mem::replace(self, Channel::Idle) {
            Channel::Replied(r) => Some(r),
            _ => None,
        }
    }
}

impl<Locals: AwaitsReply, Request, Reply, Own: ClientOwn> Client<Locals, Request, Reply, Own> {
    /// The process still runs its loop.
    pub fn alive(&self) -> bool {
        !matches!(self.phase, Phase::Finished | Phase::Died | Phase::Crashed)
    }

    /// The client can take a step now (no time has to pass first).
    pub fn can_step(&self) -> bool {
        self.alive()
            && self.paused == 0
            && self.timer == 0
            && match self.channel {
                Channel::Sent(_) | Channel::Waiting => false,
                // A reply not read when the link was cut is still in it.
                Channel::Replied(_) => self.own.linked(),
                Channel::Idle => !self.locals.awaits_reply(),
            }
    }

    /// The server can serve the client's request now.
    pub fn servable(&self) -> bool {
        self.channel.is_sent() && self.own.linked()
    }

    /// Something of the running client counts down with time.
    pub fn counting(&self) -> bool {
        self.alive() && (self.timer > 0 || self.paused > 0 || self.own.counting())
    }

    /// One tick of the client's time: its pause counts down, or else its
    /// work, sleep or think (a paused process's work stands still).
    pub fn count_down(&mut self) {
        if self.paused > 0 {
            self.paused -= 1;
        } else {
            self.timer = self.timer.saturating_sub(1);
        }
    }
}

/// What a state's part is: kept, compared, hashed, shown, shared between
/// the explorer's threads.
pub trait Part: Clone + Debug + Eq + Hash + Send + Sync + 'static {}

impl<T: Clone + Debug + Eq + Hash + Send + Sync + 'static> Part for T {}

/// A command state's parts, read off its type: a backend names its state
/// (`State<its server, Client<its recipe's places, requests, replies, own>,
/// its budgets, its own>`), and the engine reads each part from it.
pub trait Parts {
    type Server: Part;
    type Locals: Part + AwaitsReply;
    type Request: Part + Display;
    type Reply: Part + Display;
    type Faults: Part + Copy + ProcessFaults;
    /// What the state keeps of the backend's own, as a run begins.
    type Own: Part + Default;
    /// What a client keeps of the backend's own, as a run begins.
    type ClientOwn: Part + Default + ClientOwn;
}

impl<Server, Locals, Request, Reply, Kept, Faults, Own> Parts
    for State<Server, Client<Locals, Request, Reply, Kept>, Faults, Own>
where
    Server: Part,
    Locals: Part + AwaitsReply,
    Request: Part + Display,
    Reply: Part + Display,
    Kept: Part + Default + ClientOwn,
    Faults: Part + Copy + ProcessFaults,
    Own: Part + Default,
{
    type Server = Server;
    type Locals = Locals;
    type Request = Request;
    type Reply = Reply;
    type Faults = Faults;
    type Own = Own;
    type ClientOwn = Kept;
}

/// The protected resource's bookkeeping: each client's section, the
/// state's resource.
impl<Server, Locals, Request, Reply, Kept, Faults, Own> Sections
    for State<Server, Client<Locals, Request, Reply, Kept>, Faults, Own>
{
    fn clients(&self) -> usize {
        self.clients.len()
    }

    fn section(&self, c: usize) -> Section {
        self.clients[c].section
    }

    fn set_section(&mut self, c: usize, s: Section) {
        self.clients[c].section = s;
    }

    fn resource(&self) -> Option<Resource> {
        self.resource
    }

    fn set_resource(&mut self, r: Resource) {
        self.resource = Some(r);
    }
}
