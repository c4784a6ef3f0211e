//! Who takes a step, as the fairness of the starvation analysis sees it:
//! weak fairness owes each agent of a client a step (a thread of its
//! process, the server's handling of its session, its connection — each
//! backend names its own kinds), and owes nothing to a fault.

use super::space::NO_AGENT;

/// One of a client's agents that weak fairness owes a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Agent {
    pub client: u8,
    pub kind: u8,
}

impl Agent {
    /// The server's own timers, belonging to no client: the symmetry
    /// reduction does not renumber them.
    pub const REAPER: Agent = Agent { client: 0, kind: 5 };
    /// No agent: the byte of an edge taken by a fault or the reaper.
    pub const NONE: u8 = NO_AGENT;

    /// Client in the high five bits, kind in the low three.
    pub fn pack(self) -> u8 {
        self.client << 3 | self.kind
    }

    pub fn unpack(b: u8) -> Option<Agent> {
        (b != Self::NONE).then_some(Agent {
            client: b >> 3,
            kind: b & 7,
        })
    }
}
