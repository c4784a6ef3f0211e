//! What the commands ask of a MySQL scenario: the command backends'
//! shared runs, with MySQL's own parts.

use crate::commands::{Commands, Planned};
use crate::real::flags::RealArgs;
use crate::scenario::MysqlScenario;

impl Commands for MysqlScenario {
    fn recipe_id(&self) -> &'static str {
        self.recipe().id()
    }

    fn real<'a>(self: Box<Self>, a: &'a RealArgs) -> Result<Planned<'a>, String> {
        crate::real::report::planned::<super::real::command::Mysql>(a, *self)
    }
}
