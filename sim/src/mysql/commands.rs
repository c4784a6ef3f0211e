//! What the commands ask of a MySQL scenario: the command backends'
//! shared runs, with MySQL's own parts.

use crate::check::flags::CheckArgs;
use crate::commands::{nonzero, Commands, Pinned, Planned};
use crate::mysql::scenario::MysqlScenario;
use crate::real::flags::RealArgs;
use crate::simulate::flags::{ReplayArgs, SimArgs};

impl Commands for MysqlScenario {
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
        crate::real::report::planned::<super::real::command::Mysql>(a, *self)
    }
}

/// A MySQL scenario's `[faults]` budgets, by their keys, and the `[mysql]`
/// settings that break a lock as a fault does: the seeds' cleanup job,
/// which frees a row that is only old, and a lock row that is not there.
fn faults(sc: &MysqlScenario) -> Vec<String> {
    let s = &sc.space;
    let mut keys = nonzero(&s.faults.by_key());
    if let Some(ticks) = s.cleanup_after {
        keys.push(format!("mysql.cleanup_after = {ticks}"));
    }
    if !s.lock_row {
        keys.push("mysql.lock_row = false".into());
    }
    keys
}
