//! Every command backend as a [`Judged`]: its clients, its traces and its
//! configuration's validity come from the engine; why it does not judge a
//! property, from a table of its own ([`Reported`]).

use super::config::{self, Configured};
use super::trace::{self, Narrated};
use crate::engine::harness::Property;
use crate::engine::judged::Judged;
use crate::engine::path::Counterexample;
use crate::engine::trace::Trace;

/// Why a command backend does not judge what it cannot have: an
/// `n/a`'s reason.
pub struct Unjudged {
    pub orphaned_node: &'static str,
    pub reentrancy: &'static str,
    /// `None` when the backend judges the herd.
    pub herd: Option<&'static str>,
}

/// What a command backend's report says of its own.
pub trait Reported: Narrated {
    fn unjudged(&self) -> Unjudged;
}

impl<B: Reported + Configured> Judged for B {
    fn clients(&self) -> u8 {
        self.harness().clients
    }

    /// Why the backend does not judge `p` (`None`: it judges it): what an
    /// `n/a` reports.
    fn not_judged(&self, p: Property) -> Option<&'static str> {
        let why = self.unjudged();
        match p {
            Property::MutualExclusionAtResource | Property::FencedSafety
                if !self.harness().fencing =>
            {
                Some("no protected resource in this run (`fencing = true` adds it)")
            }
            Property::OrphanedNode => Some(why.orphaned_node),
            Property::Reentrancy => Some(why.reentrancy),
            Property::Herd => why.herd,
            Property::MutualExclusionAtResource
            | Property::FencedSafety
            | Property::MutualExclusion
            | Property::UnlockByNonOwner
            | Property::StuckLock
            | Property::Deadlock
            | Property::Starvation
            | Property::ThreadDied => None,
        }
    }

    fn render(&self, cx: &Counterexample<Self::Action>) -> Option<Trace> {
        trace::render(self, cx)
    }

    fn valid(&self) -> bool {
        config::problem(self).is_none()
    }
}
