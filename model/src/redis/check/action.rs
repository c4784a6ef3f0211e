//! What can happen in the Redis system.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Client `c` takes its next step: reads the reply that came, if any,
    /// and runs to its next command (or starts a tick-long wait).
    Step(u8),
    /// Client `c`, about to begin a round, thinks one tick first.
    Think(u8),
    /// The server handles client `c`'s command; the reply is on its way.
    Serve(u8),
    /// One tick of time passes for everyone.
    Tick,
    /// Fault: client `c`'s process stops for the configured ticks.
    Pause(u8),
    /// Fault: client `c`'s process crashes.
    Crash(u8),
    /// Fault: client `c`'s clock jumps ahead by the configured skew.
    ClockAhead(u8),
    /// Fault: client `c`'s clock jumps back by the configured skew.
    ClockBack(u8),
    /// Fault: the server's clock jumps ahead by the configured skew: its
    /// TTLs shrink at once (keys past their deadline go).
    ServerClockAhead,
    /// Fault: the server's clock jumps back by the configured skew: every
    /// TTL grows (Redis keeps absolute deadlines).
    ServerClockBack,
    /// The replica receives the oldest write it has not received.
    Replicate,
    /// Fault: the server restarts without persistence.
    Restart,
    /// Fault: the replica is promoted, losing what it had not received.
    Failover,
}

impl Action {
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Action::Pause(_)
                | Action::Crash(_)
                | Action::ClockAhead(_)
                | Action::ClockBack(_)
                | Action::ServerClockAhead
                | Action::ServerClockBack
                | Action::Restart
                | Action::Failover
        )
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Step(c) => write!(f, "c{} steps", c + 1),
            Action::Think(c) => write!(f, "c{} thinks a tick", c + 1),
            Action::Serve(c) => write!(f, "server serves c{}", c + 1),
            Action::Tick => write!(f, "a tick passes"),
            Action::Pause(c) => write!(f, "c{} pauses (fault)", c + 1),
            Action::Crash(c) => write!(f, "c{} crashes (fault)", c + 1),
            Action::ClockAhead(c) => write!(f, "c{}'s clock jumps ahead (fault)", c + 1),
            Action::ClockBack(c) => write!(f, "c{}'s clock jumps back (fault)", c + 1),
            Action::ServerClockAhead => write!(f, "the server's clock jumps ahead (fault)"),
            Action::ServerClockBack => write!(f, "the server's clock jumps back (fault)"),
            Action::Replicate => write!(f, "the replica receives a write"),
            Action::Restart => write!(f, "the server restarts empty (fault)"),
            Action::Failover => write!(f, "the replica takes over (fault)"),
        }
    }
}
