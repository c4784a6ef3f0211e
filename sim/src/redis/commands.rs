//! What Redis declares to the commands beyond its space: its real-server
//! run and its re-enactment (the rest is the command backends' shared
//! answer, `crate::command_backend`).

use crate::command_backend::CommandBackend;
use crate::commands::Planned;
use crate::confirm::flags::ConfirmArgs;
use crate::redis::scenario::RedisScenario;
use locksmith_model::redis::check::RedisSpace;

/// Its `[redis]` settings size the faults (a pause's length, a jump's
/// skew) but break nothing by themselves: its pins are its budgets.
impl CommandBackend for RedisSpace {
    type Real = super::real::command::Redis;

    fn confirm(a: &ConfirmArgs, sc: RedisScenario) -> Result<Planned<'_>, String> {
        super::confirm::command::plan(a, sc)
    }
}
