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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SessionState {
    Alive,
    Expired,
    Closed,
}

/// Every session the server has opened, by id: ids count up from 1, so
/// the state of session `n` is at index `n - 1`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sessions {
    states: Vec<SessionState>,
}

impl Sessions {
    pub fn open(&mut self) -> SessionId {
        self.states.push(SessionState::Alive);
        SessionId(self.states.len() as u32)
    }

    pub fn state(&self, id: SessionId) -> Option<SessionState> {
        let i = (id.0 as usize).checked_sub(1)?;
        self.states.get(i).copied()
    }

    pub fn is_alive(&self, id: SessionId) -> bool {
        self.state(id) == Some(SessionState::Alive)
    }

    pub fn end(&mut self, id: SessionId, how: SessionState) {
        if let Some(s) = (id.0 as usize)
            .checked_sub(1)
            .and_then(|i| self.states.get_mut(i))
        {
            *s = how;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (SessionId, SessionState)> + '_ {
        (1..).map(SessionId).zip(self.states.iter().copied())
    }
}
