//! What is kept down: a connection a re-enacted trace has dropped and not
//! yet reconnected, a session cut off by a two-way partition (`cut`, for a
//! while), and a stopped server. A client connecting to any of them has
//! its connect refused (the connection closed unanswered, as a stopped
//! server's port or a partition would leave it), so the library stays
//! disconnected for as long as the trace or the fault says, by its own
//! clock: Curator's connection timeout runs out, its suspended session is
//! given up, exactly when the real library decides.
//!
//! While a trace is re-enacted the server's clock expires no session: an
//! expiry is the trace's step, never the wall clock's (a library kept
//! disconnected past the served session timeout is the trace's outage,
//! not a timeout the model did not take).

use std::collections::BTreeMap;
use std::time::Instant;

#[derive(Default)]
pub struct Outage {
    /// The server is stopped: every connect is refused.
    pub stopped: bool,
    /// Sessions whose connection is kept down, until an instant or (the
    /// trace's) until [`Outage::admit`].
    refused: BTreeMap<u32, Option<Instant>>,
    /// How many connects for a new session were refused (a library that
    /// gave up on its session while the server was stopped).
    pub fresh_refused: u64,
    /// The server's clock expires no session.
    pub clock_frozen: bool,
}

impl Outage {
    /// Whether a connect for `session` (0: a new one) is refused, counting
    /// the refused new ones.
    pub fn refuses(&mut self, session: i64) -> bool {
        let refused =
            self.stopped || u32::try_from(session).is_ok_and(|id| self.refused.contains_key(&id));
        if refused && session == 0 {
            self.fresh_refused += 1;
        }
        refused
    }

    /// `session`'s connection stays down until `until`, or until
    /// [`Outage::admit`].
    pub fn refuse(&mut self, session: u32, until: Option<Instant>) {
        self.refused.insert(session, until);
    }

    pub fn admit(&mut self, session: u32) {
        self.refused.remove(&session);
    }

    /// Admits the sessions whose time is up.
    pub fn tick(&mut self, now: Instant) {
        self.refused
            .retain(|_, until| until.is_none_or(|t| now < t));
    }

    /// The sessions kept down, in id order.
    pub fn refused(&self) -> Vec<u32> {
        self.refused.keys().copied().collect()
    }
}
