//! The interface between a coordination service and the drivers.
//!
//! The checker and the simulator only need to hand a session's request to a
//! server and learn the reply and the notifications it caused; they never
//! look inside. A Redis or SQL backend implements the same trait with its own
//! request, reply and event types.

use serde::Serialize;
use std::fmt;
use std::hash::Hash;

/// A client session, numbered from 1 in the order sessions were opened.
/// (Real servers hand out 64-bit ids; conformance tests map between them.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SessionId(pub u32);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:x}", self.0)
    }
}

/// What handling one request produced: the reply for the requester, and the
/// notifications for every session (the requester's own included), in the
/// order the server sends them. Each session must see its notifications
/// before the reply to any request it sends afterwards, and the requester
/// sees its notifications before this reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<R, E> {
    pub reply: R,
    pub events: Vec<(SessionId, E)>,
}

/// A coordination service as a deterministic state machine:
/// (state, request) → (state, reply, events).
pub trait Service: Clone + Eq + Hash + fmt::Debug {
    type Request: Clone + Eq + Hash + fmt::Debug;
    type Reply: Clone + Eq + Hash + fmt::Debug;
    type Event: Clone + Eq + Hash + fmt::Debug;

    /// Opens a new session.
    fn open_session(&mut self) -> SessionId;
    /// Handles one request of `session`.
    fn handle(
        &mut self,
        session: SessionId,
        request: &Self::Request,
    ) -> Outcome<Self::Reply, Self::Event>;
    /// The session's timeout ran out on the server: it ends, and everything
    /// tied to it goes, at once. Returns the notifications that caused.
    fn expire(&mut self, session: SessionId) -> Vec<(SessionId, Self::Event)>;
    /// Whether the session is still alive on the server.
    fn is_alive(&self, session: SessionId) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_reads_in_hex_as_zookeeper_logs_it() {
        assert_eq!(SessionId(26).to_string(), "0x1a");
    }
}
