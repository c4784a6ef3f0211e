//! A state of the etcd system: the server, and each client's place in its
//! recipe and in the harness loop, its connection and its timers.

use super::config::EtcdFaults;
use crate::engine::command_space::command_sections;
use crate::engine::harness::Phase;
use crate::engine::resource::{Resource, Section};
use crate::etcd::recipes::Locals;
use crate::etcd::{EtcdServer, LeaseId, Reply, Request};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub server: EtcdServer,
    pub clients: Vec<Client>,
    /// The faults still allowed.
    pub left: EtcdFaults,
    /// The action that made this state deleted the key of another client
    /// whose tenure is current (a mark of the last transition only).
    pub foreign_unlock: bool,
    /// The protected resource, with fencing on.
    pub resource: Option<Resource>,
}

/// One client process with its one connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    pub locals: Locals,
    pub phase: Phase,
    pub channel: Channel,
    /// Ticks of work (the critical section) or of thinking left.
    pub timer: u8,
    /// Ticks of a pause left.
    pub paused: u8,
    /// Ticks of a partition left: the process runs, its link does not.
    pub cut: u8,
    /// Rounds not begun yet.
    pub rounds: u8,
    /// Fencing: the critical section's writes done in the current tenure
    /// (`None`: no tenure under way, or no fencing).
    pub wrote: Option<u8>,
    /// Fencing: the client's tenure at the resource.
    pub section: Section,
    /// An unlock the client gave up on, still on its way to the server.
    pub late: Option<Request>,
}

/// The connection: a request on its way, a watch the server holds, or the
/// reply (or the watch's event) waiting to be read. Serving is
/// instantaneous, so a reply is delivered as it is made; reading it is the
/// client's next step (a paused client's reply waits in its socket).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Idle,
    Sent(Request),
    /// The server holds the client's watch until its key is deleted.
    Watching,
    Replied(Reply),
}

/// The client whose session lease `id` is (ids carry their client's
/// number plus one in their high byte: [`crate::etcd::recipes::session::lease_id`]).
pub fn client_of(id: LeaseId) -> usize {
    usize::from(id.0 >> 8).saturating_sub(1)
}

impl Client {
    /// The process still runs its loop.
    pub fn alive(&self) -> bool {
        !matches!(self.phase, Phase::Finished | Phase::Died | Phase::Crashed)
    }

    /// Its keep-alives reach the server: the process is up and not
    /// paused, and its link is not cut (a finished program's session stays
    /// open).
    pub fn keeps_alive(&self) -> bool {
        !matches!(self.phase, Phase::Died | Phase::Crashed) && self.paused == 0 && self.cut == 0
    }

    /// The client can take a step now (no time has to pass first).
    pub fn can_step(&self) -> bool {
        self.alive()
            && self.paused == 0
            && self.timer == 0
            && match self.channel {
                Channel::Sent(_) | Channel::Watching => false,
                // A reply not read when the link was cut is still in it.
                Channel::Replied(_) => self.cut == 0,
                Channel::Idle => !self.locals.awaits_reply(),
            }
    }
}

command_sections!(State);
