//! What can happen in the etcd system.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Client `c` takes its next step: reads the reply or watch event that
    /// came, if any, and runs to its next request.
    Step(u8),
    /// Client `c`, about to begin a round, thinks one tick first.
    Think(u8),
    /// The server handles client `c`'s request; the reply is on its way
    /// (a watch's, when its delete comes).
    Serve(u8),
    /// One tick of time passes for everyone: running clients' leases are
    /// kept alive, the others count down and expire.
    Tick,
    /// Fault: client `c`'s process stops for the configured ticks.
    Pause(u8),
    /// Fault: client `c`'s process crashes.
    Crash(u8),
    /// Fault: client `c`'s lease is revoked.
    Revoke(u8),
    /// Fault: client `c`, waiting for a watch event, loses its lease: the
    /// server expires it (its keep-alives were lost for a TTL).
    WaiterExpires(u8),
    /// Fault: the store is compacted to its current revision.
    Compact,
    /// Fault: client `c`'s unlock in flight is held up in the network; the
    /// client's own deadline passes and it goes on.
    DelayUnlock(u8),
    /// Client `c`'s held-up unlock reaches the server.
    LateUnlock(u8),
    /// Fault: client `c`'s link to etcd is cut for the configured ticks
    /// while its process runs on.
    Partition(u8),
}

impl Action {
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Action::Pause(_)
                | Action::Crash(_)
                | Action::Revoke(_)
                | Action::WaiterExpires(_)
                | Action::Compact
                | Action::DelayUnlock(_)
                | Action::Partition(_)
        )
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Step(c) => write!(f, "c{} steps", c + 1),
            Action::Think(c) => write!(f, "c{} thinks a tick", c + 1),
            Action::Serve(c) => write!(f, "etcd serves c{}", c + 1),
            Action::Tick => write!(f, "a tick passes"),
            Action::Pause(c) => write!(f, "c{} pauses (fault)", c + 1),
            Action::Crash(c) => write!(f, "c{} crashes (fault)", c + 1),
            Action::Revoke(c) => write!(f, "c{}'s lease is revoked (fault)", c + 1),
            Action::WaiterExpires(c) => write!(
                f,
                "c{}'s lease expires while it waits: its keep-alives were lost (fault)",
                c + 1
            ),
            Action::Compact => write!(f, "the store is compacted (fault)"),
            Action::DelayUnlock(c) => write!(
                f,
                "c{}'s unlock is held up in the network; its deadline passes (fault)",
                c + 1
            ),
            Action::LateUnlock(c) => write!(f, "c{}'s late unlock reaches etcd", c + 1),
            Action::Partition(c) => write!(f, "c{}'s link to etcd is cut (fault)", c + 1),
        }
    }
}
