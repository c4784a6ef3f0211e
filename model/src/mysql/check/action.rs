//! What can happen in the MySQL system.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Client `c` takes its next step: reads the reply that came, if any,
    /// and runs to its next statement (or starts a tick-long sleep).
    Step(u8),
    /// Client `c`, about to begin a round, thinks one tick first.
    Think(u8),
    /// The server runs client `c`'s statement: it answers, or waits for a
    /// row lock.
    Serve(u8),
    /// One tick of time passes for everyone.
    Tick,
    /// The cleanup job releases the lock row, old enough by its rule.
    Cleanup,
    /// Fault: client `c`'s process stops for the configured ticks.
    Pause(u8),
    /// Fault: client `c`'s process crashes; its connection closes.
    Crash(u8),
    /// Fault: the server drops client `c`'s connection; its process goes
    /// on.
    DropConnection(u8),
    /// Fault: the network between client `c` and the server breaks; its
    /// process goes on, and the server keeps its session for now.
    NetworkDrop(u8),
    /// The server notices that client `c`'s connection is gone: it rolls
    /// back the transaction and releases the locks.
    ServerNotices(u8),
    /// Fault: the server restarts; every connection is gone.
    Restart,
}

impl Action {
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Action::Pause(_)
                | Action::Crash(_)
                | Action::DropConnection(_)
                | Action::NetworkDrop(_)
                | Action::Restart
        )
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Step(c) => write!(f, "c{} steps", c + 1),
            Action::Think(c) => write!(f, "c{} thinks a tick", c + 1),
            Action::Serve(c) => write!(f, "server runs c{}'s statement", c + 1),
            Action::Tick => write!(f, "a tick passes"),
            Action::Cleanup => write!(f, "the cleanup job releases the lock row"),
            Action::Pause(c) => write!(f, "c{} pauses (fault)", c + 1),
            Action::Crash(c) => write!(f, "c{} crashes (fault)", c + 1),
            Action::DropConnection(c) => {
                write!(f, "the server drops c{}'s connection (fault)", c + 1)
            }
            Action::NetworkDrop(c) => write!(
                f,
                "the network drops c{}'s connection; the server has not noticed (fault)",
                c + 1
            ),
            Action::ServerNotices(c) => write!(
                f,
                "the server notices c{}'s connection is gone: rolls back, releases its locks",
                c + 1
            ),
            Action::Restart => write!(f, "the server restarts (fault)"),
        }
    }
}
