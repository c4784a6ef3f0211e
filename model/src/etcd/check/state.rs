//! A state of the etcd system: the engine's command state
//! ([`crate::engine::command::State`]) over the etcd server, with what etcd
//! keeps of each client's own: its link to the server (a partition's
//! ticks, an unlock held up in it). Who owns a key the server says (its
//! lease).
//! As the engine reads it ([`Backend`]): the state, the server a run
//! begins with.

use super::config::{EtcdFaults, EtcdSpace};
use crate::engine::command;
use crate::engine::command::{command_fields, Backend, ClientOwn};
use crate::engine::harness::Phase;
use crate::etcd::recipes::Locals;
use crate::etcd::{EtcdServer, LeaseId, Reply, Request};

pub type State = command::State<EtcdServer, Client, EtcdFaults, ()>;

/// One client process with its one connection.
pub type Client = command::Client<Locals, Request, Reply, Link>;

/// The connection: a request on its way, a watch the server holds
/// (`Waiting`: until its key is deleted), or the reply (or the watch's
/// event) waiting to be read.
pub type Channel = command::Channel<Request, Reply>;

/// A client's link to etcd.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Link {
    /// Ticks of a partition left: the process runs, its link does not.
    pub cut: u8,
    /// An unlock the client gave up on, still on its way to the server.
    pub late: Option<Request>,
}

/// A cut link carries nothing (a reply not read when it was cut is still
/// in it), and a partition's ticks count down.
impl ClientOwn for Link {
    fn linked(&self) -> bool {
        self.cut == 0
    }

    fn counting(&self) -> bool {
        self.cut > 0
    }
}

/// The client whose session lease `id` is (ids carry their client's
/// number plus one in their high byte: [`crate::etcd::recipes::session::lease_id`]).
pub fn client_of(id: LeaseId) -> usize {
    usize::from(id.0 >> 8).saturating_sub(1)
}

impl Client {
    /// Its keep-alives reach the server: the process is up and not
    /// paused, and its link is not cut (a finished program's session stays
    /// open).
    pub fn keeps_alive(&self) -> bool {
        !matches!(self.phase, Phase::Died | Phase::Crashed) && self.paused == 0 && self.own.cut == 0
    }
}

impl Backend for EtcdSpace {
    type State = State;

    command_fields!();

    fn server(&self) -> EtcdServer {
        EtcdServer::new()
    }
}
