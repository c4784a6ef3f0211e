//! What the commands ask of an etcd scenario: the command backends'
//! shared runs, with etcd's own parts.

use crate::commands::{Commands, Planned};
use crate::confirm::flags::ConfirmArgs;
use crate::real::flags::RealArgs;
use crate::scenario::EtcdScenario;

impl Commands for EtcdScenario {
    fn recipe_id(&self) -> &'static str {
        self.recipe().id()
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        crate::real::report::planned::<super::real::command::Etcd>(a, *self)
    }

    fn confirm<'a>(self: Box<Self>, a: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        super::confirm::command::plan(a, *self)
    }
}
