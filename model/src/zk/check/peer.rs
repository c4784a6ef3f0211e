//! A client as the checker's state holds it: its process, its session, both
//! directions of its connection, and its side of the protected resource.

use crate::engine::resource::Section;
use crate::zk::client::{Client, Thread};
use crate::zk::recipes::AnyRecipe;
use crate::zk::{Op, Reply, SessionId, WatchedEvent};
use std::collections::VecDeque;

/// A message from the server to one client, in its session's FIFO order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    Reply(Thread, Reply),
    Event(WatchedEvent),
}

/// A request on its way to the server.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    pub thread: Thread,
    pub op: Op,
    /// The recipe's release operation (for the herd property).
    pub release: bool,
}

/// A client process with its session and both directions of its connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Peer {
    pub session: SessionId,
    pub client: Client<AnyRecipe>,
    /// Requests on the way to the server.
    pub outbox: VecDeque<Request>,
    /// Replies and events on the way to the client.
    pub inbox: VecDeque<Message>,
    /// The connection dropped and the library has not reconnected yet:
    /// nothing moves on it.
    pub disconnected: bool,
    /// The connection stopped answering for good (a client-side expiry is
    /// under way): the library will not reconnect on this session, it
    /// gives up on it ([`Action::GiveUp`]).
    pub stranded: bool,
    /// Sessions this client's library gave up on ([`Action::GiveUp`])
    /// that the server still holds, oldest first. Kept with the client so
    /// that the symmetry reduction renumbers them with it, and
    /// [`Action::ExpireOld`] names one by its client.
    pub abandoned: Vec<SessionId>,
    /// Its side of the protected resource, when the scenario has one.
    pub section: Section,
}
