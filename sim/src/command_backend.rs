//! The command backends' answer to every command (Redis, MySQL, etcd),
//! written once: their scenarios share a shape ([`CommandScenario`]), and
//! each command's shared run takes them as they are. A command backend
//! declares only what differs ([`CommandBackend`], in its own folder): its
//! real-server run, its re-enactment if it has one, and the settings that
//! break a lock as a fault does.

use crate::check::command::CommandCheck;
use crate::check::flags::CheckArgs;
use crate::commands::{nonzero, undeclared, Commands, Pinned, Planned};
use crate::confirm::flags::ConfirmArgs;
use crate::real::flags::RealArgs;
use crate::real::report::RealBackend;
use crate::scenario::CommandScenario;
use crate::simulate::command::run::{planned, planned_replay};
use crate::simulate::command::Simulated;
use crate::simulate::flags::{ReplayArgs, SimArgs};

/// What a command backend's space declares beyond what `check` and `sim`
/// ask of it.
pub trait CommandBackend: CommandCheck + Simulated + Sync {
    /// Its run against a real server (`locksmith real`).
    type Real: RealBackend<Scenario = CommandScenario<Self>> + 'static;

    /// The faults a scenario injects, by the file's keys: its `[faults]`
    /// budgets that are not 0, and any setting that breaks a lock as a
    /// fault does.
    fn pinned_faults(&self) -> Vec<String> {
        nonzero(&self.fault_budgets())
    }

    /// `locksmith confirm` on a scenario of this backend, where it has a
    /// re-enactment.
    fn confirm(_: &ConfirmArgs, sc: CommandScenario<Self>) -> Result<Planned<'_>, String> {
        Err(undeclared(
            sc.space.recipe_id(),
            "confirm",
            crate::backend::Capability::Confirm,
        ))
    }
}

impl<S: CommandBackend> Commands for CommandScenario<S> {
    fn recipe_id(&self) -> &'static str {
        self.space.recipe_id()
    }

    fn pinned(&self) -> Pinned {
        Pinned {
            name: self.name.clone(),
            drivers: vec![("check", self.expect.clone(), self.space.pinned_faults())],
        }
    }

    fn check<'a>(self: Box<Self>, a: &'a CheckArgs) -> Result<Planned<'a>, String> {
        crate::check::planned(a, *self)
    }

    fn sim<'a>(self: Box<Self>, a: &'a SimArgs) -> Result<Planned<'a>, String> {
        planned(a, *self)
    }

    fn replay<'a>(self: Box<Self>, a: &'a ReplayArgs) -> Result<Planned<'a>, String> {
        planned_replay(a, *self)
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        crate::real::report::planned::<S::Real>(a, *self)
    }

    fn confirm<'a>(self: Box<Self>, a: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        S::confirm(a, *self)
    }
}
