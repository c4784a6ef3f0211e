//! A state of the MySQL system: the engine's command state
//! ([`crate::engine::command::State`]) over the InnoDB model, with what
//! MySQL keeps of its own: who took the lock row and how long ago, and
//! each client's connection.
//! As the engine reads it ([`Backend`]): the state, the server a run
//! begins with.

use super::config::{MysqlFaults, MysqlSpace};
use crate::engine::command;
use crate::engine::command::{command_fields, Backend, ClientOwn};
use crate::mysql::recipes::{lock_name, Locals};
use crate::mysql::{MysqlServer, Reply, Session, Statement};

pub type State = command::State<MysqlServer, Client, MysqlFaults, RowOwner>;

/// One client process with its one connection.
pub type Client = command::Client<Locals, Statement, Reply, Connection>;

/// The connection: a statement on its way to the server, one the server
/// holds waiting for a row lock ([`MysqlServer::blocked`]), or the reply
/// waiting to be read.
pub type Channel = command::Channel<Statement, Reply>;

/// A client's connection to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Connection {
    /// The connection is open (neither the server nor the network has
    /// dropped it).
    pub connected: bool,
    /// The network dropped the connection and the server has not noticed:
    /// it still holds the session's transaction and locks.
    pub orphaned: bool,
}

/// Each client's connection is opened when the run begins.
impl Default for Connection {
    fn default() -> Connection {
        Connection {
            connected: true,
            orphaned: false,
        }
    }
}

impl ClientOwn for Connection {}

/// The lock row's taker, for unlock by non-owner and the cleanup job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowOwner {
    /// Who took the lock row, while it is taken.
    pub owner: Option<u8>,
    /// Ticks the lock row has been taken, up to the cleanup job's age
    /// (kept only with a cleanup job).
    pub row_age: u8,
}

impl Client {
    /// The client's lock operation succeeded at the server and it has not
    /// begun its release (whether it has read the reply yet or not).
    pub fn in_tenure(&self) -> bool {
        self.phase.holds()
            || matches!(&self.channel, command::Channel::Replied(r) if self.locals.won(r))
    }
}

impl Backend for MysqlSpace {
    type State = State;

    command_fields!();

    /// One connection per client, and the cleanup job's after them; the
    /// recipe's lock row, unless the configuration forgot it.
    fn server(&self) -> MysqlServer {
        let session = Session {
            found_rows: self.found_rows,
            lock_wait_timeout_ms: u64::from(self.lock_wait_timeout),
        };
        let conns = self.clients as usize + usize::from(self.cleanup_after.is_some());
        let mut server = MysqlServer::new(&vec![session; conns]);
        if let Some(status) = self.recipe.lock_row().filter(|_| self.lock_row) {
            server.preload(&lock_name(), status);
        }
        server
    }
}
