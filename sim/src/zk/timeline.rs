//! `--timeline FILE` (`locksmith real` and `locksmith replay` on a
//! ZooKeeper scenario): every request a client sends and every reply and
//! notification it is handed, with its time — the same lines from the real
//! server and from the simulator, so that one run on each side can be
//! compared event by event. `scripts/timeline.py FILE` sums one up (round
//! trips, rates, the watches each change of a lock directory fired).
//!
//! One line per event:
//!
//! ```text
//! 23119102 c2 reply Ok(Deleted)
//! ```
//!
//! nanoseconds since the run began (the wall clock for `real`, simulated
//! time for `replay`), the client (1-based), `send`, `reply` or `event`,
//! and the model's value as Rust's `{:?}` prints it (a `getChildren`
//! reply with its `Stat`, so its `cversion`).

use std::fmt::{self, Write};
use std::path::Path;

/// What a client did or was handed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    Send,
    Reply,
    Event,
}

impl Seen {
    fn word(self) -> &'static str {
        match self {
            Seen::Send => "send",
            Seen::Reply => "reply",
            Seen::Event => "event",
        }
    }
}

/// A session's end as a client library learns it (the server's answer to a
/// reconnect, or its own give-up), recorded as an `event`.
#[derive(Clone, Copy, Debug)]
pub struct SessionExpired;

/// The lines of one run; records nothing unless it was asked for.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    on: bool,
    text: String,
}

impl Timeline {
    pub fn new(on: bool) -> Timeline {
        Timeline {
            on,
            text: String::new(),
        }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Client `client` (0-based) sent or was handed `value` at `at_ns`.
    pub fn record(&mut self, at_ns: u64, client: usize, seen: Seen, value: &dyn fmt::Debug) {
        if self.on {
            let _ = writeln!(
                self.text,
                "{at_ns} c{} {} {value:?}",
                client + 1,
                seen.word()
            );
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Writes the lines to `path` (through a temporary file and a rename:
    /// never half a file).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        crate::atomic_file::write_atomic(path, &self.text)
            .map_err(|e| format!("--timeline {}: cannot write it: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_the_time_the_client_the_kind_and_the_value() {
        let mut t = Timeline::new(true);
        t.record(5, 0, Seen::Send, &"x");
        t.record(7, 2, Seen::Event, &Some(1));
        assert_eq!(t.text(), "5 c1 send \"x\"\n7 c3 event Some(1)\n");
        let mut off = Timeline::new(false);
        off.record(5, 0, Seen::Reply, &1);
        assert_eq!(off.text(), "");
    }
}
