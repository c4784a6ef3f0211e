//! A state of the Redis system: the engine's command state
//! ([`crate::engine::command::State`]) over the Redis server, with what
//! Redis keeps of its own: who set the lock's key, and each client's clock.
//! As the engine reads it ([`Backend`]): the state, the server a run
//! begins with.

use super::config::{RedisFaults, RedisSpace};
use crate::engine::command;
use crate::engine::command::{command_fields, Backend, ClientOwn, Fence};
use crate::redis::recipes::Locals;
use crate::redis::{Command, RedisServer, Reply};

pub type State = command::State<RedisServer, Client, RedisFaults, KeyOwner>;

/// One client process with its one connection.
pub type Client = command::Client<Locals, Command, Reply, Clock>;

pub type Channel = command::Channel<Command, Reply>;

/// A client's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Clock {
    /// How many ticks the client's clock reads ahead of the reference
    /// time (0: no clock fault modelled yet).
    pub clock: i8,
}

impl ClientOwn for Clock {}

/// Who set the lock's key, while it exists: for unlock by non-owner (a
/// timestamp recipe's value does not name its writer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyOwner {
    pub owner: Option<u8>,
}

impl Client {
    /// The client's lock operation succeeded at the server and it has not
    /// begun its release: its tenure is current (whether it has read the
    /// reply yet or not).
    pub fn in_tenure(&self) -> bool {
        self.phase.holds()
            || self.fence == Fence::AwaitToken
            || matches!(&self.channel, command::Channel::Replied(r) if self.locals.won(r, i64::from(self.own.clock)))
    }
}

impl Backend for RedisSpace {
    type State = State;

    command_fields!();

    fn server(&self) -> RedisServer {
        if self.replica {
            RedisServer::with_replica()
        } else {
            RedisServer::new()
        }
    }
}
