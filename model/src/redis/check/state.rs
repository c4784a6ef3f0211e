//! A state of the Redis system: the server, and each client's place in its
//! recipe and in the harness loop, its connection and its timers.

use super::config::RedisFaults;
use crate::engine::command_space::command_sections;
use crate::engine::harness::Phase;
use crate::engine::resource::{Resource, Section};
use crate::redis::recipes::Locals;
use crate::redis::{Command, RedisServer, Reply};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub server: RedisServer,
    pub clients: Vec<Client>,
    /// The faults still allowed.
    pub left: RedisFaults,
    /// The action that made this state was an unlock by a non-owner: it
    /// deleted or overwrote the key of a client whose tenure is current.
    /// A mark of the last transition only (every action resets it), so it
    /// splits no state beyond that transition's successor.
    pub foreign_unlock: bool,
    /// Who set the lock's key, while it exists: for unlock by non-owner
    /// (a timestamp recipe's value does not name its writer).
    pub owner: Option<u8>,
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
    /// Rounds not begun yet.
    pub rounds: u8,
    /// How many ticks the client's clock reads ahead of the reference
    /// time (0: no clock fault modelled yet).
    pub clock: i8,
    /// Fencing: where the client is between its lock and the resource.
    pub fence: Fence,
    /// Fencing: the client's tenure at the resource.
    pub section: Section,
}

/// A fenced client's progress through the token and its two writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// No fencing, or no tenure under way.
    Off,
    /// The recipe's lock succeeded; `INCR` for the token is on its way
    /// (`lock()` has not returned).
    AwaitToken,
    /// `lock()` returned with the token; this many of the critical
    /// section's two writes are done.
    Wrote(u8),
}

/// The connection: a command on its way to the server, or the server's
/// reply waiting to be read. Serving is instantaneous, so a reply is
/// delivered as it is made; reading it is the client's next step (a paused
/// client's reply waits in its socket).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Idle,
    Sent(Command),
    Replied(Reply),
}

impl Client {
    /// The client's lock operation succeeded at the server and it has not
    /// begun its release: its tenure is current (whether it has read the
    /// reply yet or not).
    pub fn in_tenure(&self) -> bool {
        self.phase.holds()
            || self.fence == Fence::AwaitToken
            || matches!(&self.channel, Channel::Replied(r) if self.locals.won(r, i64::from(self.clock)))
    }

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
                Channel::Sent(_) => false,
                Channel::Replied(_) => true,
                Channel::Idle => !self.locals.awaits_reply(),
            }
    }
}

command_sections!(State);
