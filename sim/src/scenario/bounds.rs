//! `[check]`'s bounds on an exploration, the same three keys on every
//! backend: read, refused at 0 (a bound of 0 explores nothing), and
//! applied to the backend's limits.

use serde::Deserialize;

/// `max_states`, `max_depth`, `max_memory_mb` as a file gives them.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub max_states: Option<usize>,
    pub max_depth: Option<usize>,
    pub max_memory_mb: Option<usize>,
}

impl Bounds {
    /// The first bound set to 0, and why it is refused.
    pub fn zero(&self) -> Option<(&'static str, String)> {
        [
            ("max_states", self.max_states),
            ("max_depth", self.max_depth),
            ("max_memory_mb", self.max_memory_mb),
        ]
        .into_iter()
        .find(|(_, v)| *v == Some(0))
        .map(|(key, _)| {
            (
                key,
                format!("{key} = 0: expected at least 1 (a bound of 0 explores nothing)"),
            )
        })
    }

    /// The memory bound in bytes, if any.
    pub fn max_memory(&self) -> Option<usize> {
        self.max_memory_mb.map(|mb| mb.saturating_mul(1 << 20))
    }

    /// Sets what the file bounds in an engine's limits.
    pub fn apply(&self, limits: &mut locksmith_model::engine::Limits) {
        if let Some(n) = self.max_states {
            limits.max_states = n;
        }
        if let Some(d) = self.max_depth {
            limits.max_depth = d;
        }
        if let Some(m) = self.max_memory() {
            limits.max_memory = m;
        }
    }
}
