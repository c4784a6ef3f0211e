//! An etcd run as a [`Report`](crate::engine::verdict::Report): every
//! property with its verdict, in the shape every backend's checker
//! reports. The exploration and the report are the engine's ([`Judged`]).

use super::action::Action;
use super::config::EtcdSpace;
use crate::engine::harness::Property;
use crate::engine::judged::Judged;
use crate::engine::path::Counterexample;
use crate::engine::trace::Trace;

impl Judged for EtcdSpace {
    fn clients(&self) -> u8 {
        self.clients
    }

    /// Why the etcd checker does not judge `p` (`None`: it judges it).
    fn not_judged(&self, p: Property) -> Option<&'static str> {
        match p {
            Property::MutualExclusionAtResource | Property::FencedSafety if !self.fencing => {
                Some("no protected resource in this run (`fencing = true` adds it)")
            }
            Property::OrphanedNode => Some("an etcd key lives as long as its lease"),
            Property::Reentrancy => Some("the etcd recipes are not re-entrant"),
            Property::Herd if self.clients < 3 => {
                Some("a herd needs two waiters woken by one release: 3 clients or more")
            }
            Property::MutualExclusionAtResource
            | Property::FencedSafety
            | Property::MutualExclusion
            | Property::Herd
            | Property::UnlockByNonOwner
            | Property::StuckLock
            | Property::Deadlock
            | Property::Starvation
            | Property::ThreadDied => None,
        }
    }

    fn render(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        self.render_trace(cx)
    }

    fn valid(&self) -> bool {
        self.validate().is_ok()
    }
}
