//! A state of the MySQL system: the server, and each client's place in its
//! recipe and in the harness loop, its connection and its timers.

use super::config::MysqlFaults;
use crate::engine::command_space::command_sections;
use crate::engine::harness::Phase;
use crate::engine::resource::{Resource, Section};
use crate::mysql::recipes::Locals;
use crate::mysql::{MysqlServer, Reply, Statement};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub server: MysqlServer,
    pub clients: Vec<Client>,
    /// The faults still allowed.
    pub left: MysqlFaults,
    /// The action that made this state changed the lock row while another
    /// client's tenure was current (a mark of the last transition only).
    pub foreign_unlock: bool,
    /// Who took the lock row, while it is taken (for unlock by non-owner).
    pub owner: Option<u8>,
    /// Ticks the lock row has been taken, up to the cleanup job's age
    /// (kept only with a cleanup job).
    pub row_age: u8,
    /// The protected resource, with fencing on.
    pub resource: Option<Resource>,
}

/// One client process with its one connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub locals: Locals,
    pub phase: Phase,
    pub channel: Channel,
    /// Ticks of work, of a retry loop's sleep, or of thinking left.
    pub timer: u8,
    /// Ticks of a pause left.
    pub paused: u8,
    /// Rounds not begun yet.
    pub rounds: u8,
    /// The connection is open (neither the server nor the network has
    /// dropped it).
    pub connected: bool,
    /// The network dropped the connection and the server has not noticed:
    /// it still holds the session's transaction and locks.
    pub orphaned: bool,
    /// Fencing: the writes to the resource done in the current tenure.
    pub wrote: u8,
    /// Fencing: the client's tenure at the resource.
    pub section: Section,
}

/// The connection: a statement on its way to the server, one the server
/// holds waiting for a row lock, or the reply waiting to be read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Idle,
    Sent(Statement),
    /// The server has the statement waiting for a lock
    /// ([`MysqlServer::blocked`]); its reply comes when the wait ends.
    Waiting,
    Replied(Reply),
}

impl Client {
    /// The client's lock operation succeeded at the server and it has not
    /// begun its release (whether it has read the reply yet or not).
    pub fn in_tenure(&self) -> bool {
        self.phase.holds() || matches!(&self.channel, Channel::Replied(r) if self.locals.won(r))
    }

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
                Channel::Replied(_) => true,
                Channel::Idle => !self.locals.awaits_reply(),
            }
    }
}

command_sections!(State);
