//! Session liveness on the server.
//!
//! A session is alive until it expires (its timeout ran out on the server)
//! or is closed by its client. Either way every ephemeral node it owns is
//! deleted in one transaction and the watches on them fire; the session's
//! own watches are dropped. The client of an expired session learns of it
//! only when it next talks to the server: every later request gets
//! `SessionExpired`.
//!
//! One simplification: a real server still delivers to a *closing* client
//! the watches its own close transaction fires (its connection stays open
//! until the reply), e.g. an `exists` watch on its own ephemeral. The model
//! drops them with the rest of the session's watches: a client that has
//! called `close()` acts on nothing.

use super::SessionId;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SessionState {
    Alive,
    Expired,
    Closed,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sessions {
    states: BTreeMap<SessionId, SessionState>,
}

impl Sessions {
    pub fn open(&mut self) -> SessionId {
        let id = SessionId(self.states.len() as u32 + 1);
        self.states.insert(id, SessionState::Alive);
        id
    }

    pub fn state(&self, id: SessionId) -> Option<SessionState> {
        self.states.get(&id).copied()
    }

    pub fn is_alive(&self, id: SessionId) -> bool {
        self.state(id) == Some(SessionState::Alive)
    }

    pub fn end(&mut self, id: SessionId, how: SessionState) {
        if let Some(s) = self.states.get_mut(&id) {
            *s = how;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (SessionId, SessionState)> + '_ {
        self.states.iter().map(|(k, v)| (*k, *v))
    }
}
