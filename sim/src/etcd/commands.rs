//! What etcd declares to the commands beyond its space: its real-server
//! run and its re-enactment (the rest is the command backends' shared
//! answer, `crate::command_backend`).

use crate::command_backend::CommandBackend;
use crate::commands::Planned;
use crate::confirm::flags::ConfirmArgs;
use crate::etcd::scenario::EtcdScenario;
use locksmith_model::etcd::check::EtcdSpace;

impl CommandBackend for EtcdSpace {
    type Real = super::real::command::Etcd;

    fn confirm(a: &ConfirmArgs, sc: EtcdScenario) -> Result<Planned<'_>, String> {
        super::confirm::command::plan(a, sc)
    }
}
