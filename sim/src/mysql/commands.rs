//! What MySQL declares to the commands beyond its space: its real-server
//! run, and the settings that break a lock as a fault does (the rest is
//! the command backends' shared answer, `crate::command_backend`; MySQL
//! has no re-enactment).

use crate::command_backend::CommandBackend;
use crate::commands::nonzero;
use locksmith_model::mysql::check::MysqlSpace;

impl CommandBackend for MysqlSpace {
    type Real = super::real::command::Mysql;

    /// Its `[faults]` budgets, and the `[mysql]` settings that break a lock
    /// as a fault does: the seeds' cleanup job, which frees a row that is
    /// only old, and a lock row that is not there.
    fn pinned_faults(&self) -> Vec<String> {
        let mut keys = nonzero(&self.faults.by_key());
        if let Some(ticks) = self.cleanup_after {
            keys.push(format!("mysql.cleanup_after = {ticks}"));
        }
        if !self.lock_row {
            keys.push("mysql.lock_row = false".into());
        }
        keys
    }
}
