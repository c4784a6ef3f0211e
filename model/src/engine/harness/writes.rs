//! How a holder's critical section reaches the protected resource, as a
//! scenario sets it (`fencing = true`, `guarded = true`): the checker's
//! part of source 003's version-number advice and of CURATOR-689.
//!
//! With either setting on, every critical section makes [`WRITES`] writes
//! (one write would make "no write of one tenure between two writes of
//! another" hold for nothing):
//!
//! - **fenced**: each write carries the holder's token — its lock node's
//!   `czxid`, not the sequence number (a container root reaped and
//!   re-created numbers from zero again, while zxids only grow) — and the
//!   resource rejects a token lower than the highest it accepted;
//! - **plain** (a recipe that reads its listener's flag before each write,
//!   where the scenario asks for neither): the resource accepts every
//!   write;
//! - **guarded**: each write is `multi(check(own lock node, -1),
//!   setData(RESOURCE_NODE, …, -1))`, so a holder whose node is gone has its
//!   write refused atomically by ZooKeeper itself; the holder treats a
//!   failed write as the end of its critical section (it lost the lock).

use serde::Serialize;

/// Writes per critical section.
pub const WRITES: u8 = 2;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Writes {
    /// The seeds' `main`s: the critical section writes nothing the checker
    /// sees (the simulator's resource is its own, `[sim] fencing`).
    #[default]
    Off,
    Fenced,
    Guarded,
    /// Neither fenced nor guarded: the resource accepts every write, and
    /// mutual exclusion at the resource is judged. A recipe that reads a
    /// flag before each write (`curator-listener`) runs with these where a
    /// scenario asks for no fencing and no guard.
    Plain,
}

impl Writes {
    pub fn is_on(self) -> bool {
        self != Writes::Off
    }
}
