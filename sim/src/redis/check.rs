//! `locksmith check` on a Redis scenario: the same flags, verdicts, figures
//! and exit codes as ZooKeeper's, with the Redis trace (each command with
//! its reply, the lock's key after every step, ticks and faults). What the
//! Redis configuration says of itself; the rest is `check_backend.rs`.

use crate::check::command::CommandCheck;
use locksmith_model::redis::check::RedisSpace;
use serde_json::json;

impl CommandCheck for RedisSpace {
    fn settings_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let settings = json!({
            "lease": self.lease,
            "critical_section": self.work,
            "pause": self.pause,
            "skew": self.skew,
            "replica": self.replica,
            "fencing": self.fencing,
        });
        settings.as_object().cloned().unwrap_or_default()
    }

    fn how(&self) -> String {
        let replica = if self.replica { ", a replica" } else { "" };
        let fenced = match (self.fencing, self.recipe.token_in_reply()) {
            (false, _) => "",
            (true, false) => ", fenced writes (token from INCR)",
            (true, true) => ", fenced writes (token from the lock script)",
        };
        format!(
            " × {} acquisitions on Redis: lease {} ticks, critical section {}, pause {}, clock skew {}{replica}{fenced}",
            self.acquisitions, self.lease, self.work, self.pause, self.skew
        )
    }
}
