//! What a command backend's configuration brings to the engine: its state
//! (the engine reads its parts off its type), the settings every one has
//! ([`Harness`]), its server and its recipe's place as a run begins.

use super::state::{Client, Parts, State};
use crate::engine::space::Limits;

/// A part of backend `B`'s state, read off its type.
pub type ServerOf<B> = <<B as Backend>::State as Parts>::Server;
pub type LocalsOf<B> = <<B as Backend>::State as Parts>::Locals;
pub type RequestOf<B> = <<B as Backend>::State as Parts>::Request;
pub type ReplyOf<B> = <<B as Backend>::State as Parts>::Reply;
pub type FaultsOf<B> = <<B as Backend>::State as Parts>::Faults;
pub type OwnOf<B> = <<B as Backend>::State as Parts>::Own;
pub type ClientOwnOf<B> = <<B as Backend>::State as Parts>::ClientOwn;

/// A command backend's client, as the engine names it.
pub type ClientOf<B> = Client<LocalsOf<B>, RequestOf<B>, ReplyOf<B>, ClientOwnOf<B>>;

/// A command backend's state, as the engine names it: the same type as
/// [`Backend::State`], spelled out of its parts so that the engine can
/// reach into it.
pub type StateOf<B> = State<ServerOf<B>, ClientOf<B>, FaultsOf<B>, OwnOf<B>>;

/// The configuration every command backend has: its clients and their
/// rounds, the critical section and a pause in ticks, fencing, the fault
/// budgets and the bounds (its space's fields of these names, read by
/// `command_fields!`).
#[derive(Clone, Copy, Debug)]
pub struct Harness<Faults> {
    pub clients: u8,
    pub acquisitions: u8,
    pub work: u8,
    pub pause: u8,
    pub fencing: bool,
    pub faults: Faults,
    pub limits: Limits,
}

/// A command backend's configuration, as the engine reads it.
pub trait Backend: Sync + Sized {
    /// The backend's state: the engine's [`State`] over the backend's
    /// server, clients, budgets and own ([`Parts`]).
    type State: Parts;

    /// The configuration every command backend has (`command_fields!`).
    fn harness(&self) -> Harness<FaultsOf<Self>>;
    /// The server as a run begins.
    fn server(&self) -> ServerOf<Self>;
    /// A client's place in its recipe as a run begins (`command_fields!`).
    fn start(&self) -> LocalsOf<Self>;
}

/// `command_fields!()`, in a space's `impl Backend`: [`Backend::harness`]
/// from the space's fields of [`Harness`]'s names, and [`Backend::start`]
/// from its `recipe`'s.
macro_rules! command_fields {
    () => {
        fn harness(
            &self,
        ) -> $crate::engine::command::Harness<$crate::engine::command::backend::FaultsOf<Self>> {
            $crate::engine::command::Harness {
                clients: self.clients,
                acquisitions: self.acquisitions,
                work: self.work,
                pause: self.pause,
                fencing: self.fencing,
                faults: self.faults,
                limits: self.limits,
            }
        }

        fn start(&self) -> $crate::engine::command::backend::LocalsOf<Self> {
            self.recipe.start()
        }
    };
}

pub(crate) use command_fields;
