//! What the commands ask of a ZooKeeper scenario, each answered by
//! ZooKeeper's own part of the app.

use super::scenario::Scenario;
use crate::commands::{Commands, Planned};
use crate::confirm::flags::ConfirmArgs;
use crate::real::flags::RealArgs;

impl Commands for Scenario {
    fn recipe_id(&self) -> &'static str {
        self.recipe().name()
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        let cfg = super::real::command::plan(a, *self)?;
        Ok(Box::new(move || super::real::command::execute(a, cfg)))
    }

    fn confirm<'a>(self: Box<Self>, a: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        super::confirm::command::plan(a, *self)
    }
}
