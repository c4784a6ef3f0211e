//! What the commands ask of a Redis scenario: the command backends'
//! shared runs, with Redis's own parts.

use crate::check::flags::CheckArgs;
use crate::commands::{nonzero, Commands, Pinned, Planned};
use crate::confirm::flags::ConfirmArgs;
use crate::real::flags::RealArgs;
use crate::redis::scenario::RedisScenario;
use crate::simulate::flags::{ReplayArgs, SimArgs};

impl Commands for RedisScenario {
    fn recipe_id(&self) -> &'static str {
        self.recipe().id()
    }

    fn pinned(&self) -> Pinned {
        Pinned {
            name: self.name.clone(),
            drivers: vec![("check", self.expect.clone(), faults(self))],
        }
    }

    fn check<'a>(self: Box<Self>, a: &'a CheckArgs) -> Result<Planned<'a>, String> {
        crate::check::planned(a, *self)
    }

    fn sim<'a>(self: Box<Self>, a: &'a SimArgs) -> Result<Planned<'a>, String> {
        crate::simulate::command::run::planned(a, *self)
    }

    fn replay<'a>(self: Box<Self>, a: &'a ReplayArgs) -> Result<Planned<'a>, String> {
        crate::simulate::command::run::planned_replay(a, *self)
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        crate::real::report::planned::<super::real::command::Redis>(a, *self)
    }

    fn confirm<'a>(self: Box<Self>, a: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        super::confirm::command::plan(a, *self)
    }
}

/// A Redis scenario's `[faults]` budgets, by their keys (its `[redis]`
/// settings size the faults — a pause's length, a jump's skew — but break
/// nothing by themselves).
fn faults(sc: &RedisScenario) -> Vec<String> {
    nonzero(&sc.space.faults.by_key())
}
