//! `locksmith check` on an etcd scenario: the same flags, verdicts, figures
//! and exit codes as the other backends', with the etcd trace (each
//! request with its reply, the lock's keys and the store's revision after
//! every step, ticks, lease expiries and faults). What the etcd
//! configuration says of itself; the rest is `check_backend.rs`.

use crate::check::command::CommandCheck;
use locksmith_model::etcd::check::EtcdSpace;
use serde_json::json;

impl CommandCheck for EtcdSpace {
    fn settings_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let settings = json!({
            "ttl": self.ttl,
            "critical_section": self.work,
            "pause": self.pause,
        });
        settings.as_object().cloned().unwrap_or_default()
    }

    fn how(&self) -> String {
        format!(
            " × {} acquisitions on etcd: session TTL {} ticks, critical section {}, pause {}",
            self.acquisitions, self.ttl, self.work, self.pause
        )
    }
}
