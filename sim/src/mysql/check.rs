//! `locksmith check` on a MySQL scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's and Redis's, with the MySQL trace (each
//! statement with its reply or its lock wait, the lock row after every
//! step, ticks and faults). What the MySQL configuration says of itself;
//! the rest is `check_backend.rs`.

use crate::check::command::CommandCheck;
use locksmith_model::mysql::check::MysqlSpace;
use serde_json::json;

impl CommandCheck for MysqlSpace {
    fn settings_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let settings = json!({
            "critical_section": self.work,
            "pause": self.pause,
            "lock_wait_timeout": self.lock_wait_timeout,
            "found_rows": self.found_rows,
            "cleanup_after": self.cleanup_after,
            "lock_row": self.lock_row,
        });
        settings.as_object().cloned().unwrap_or_default()
    }

    fn how(&self) -> String {
        let found_rows = if self.found_rows {
            ", CLIENT_FOUND_ROWS"
        } else {
            ""
        };
        let cleanup = self
            .cleanup_after
            .map_or(String::new(), |t| format!(", a cleanup job after {t}"));
        format!(
            " × {} acquisitions on MySQL: critical section {} ticks, pause {}, lock wait timeout {}{found_rows}{cleanup}",
            self.acquisitions, self.work, self.pause, self.lock_wait_timeout
        )
    }
}
