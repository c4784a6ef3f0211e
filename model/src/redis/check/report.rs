//! A Redis run as a [`Report`]: every property of [`Property::ALL`] with
//! its verdict — holds, violated with its shortest trace, incomplete, or
//! n/a where the Redis checker does not judge it — in the same shape
//! ZooKeeper's checker reports, so the CLI, JSON and `[expect]` read both.
//! The exploration and the report are the engine's ([`Judged`]).

use super::action::Action;
use super::config::RedisSpace;
use crate::engine::harness::Property;
use crate::engine::judged::Judged;
use crate::engine::path::Counterexample;
use crate::engine::trace::Trace;

impl Judged for RedisSpace {
    fn clients(&self) -> u8 {
        self.clients
    }

    /// Why the Redis checker does not judge `p` (`None`: it judges it):
    /// what an `n/a` reports.
    fn not_judged(&self, p: Property) -> Option<&'static str> {
        match p {
            Property::MutualExclusionAtResource | Property::FencedSafety if !self.fencing => {
                Some("no protected resource in this run (`fencing = true` adds it)")
            }
            Property::OrphanedNode => Some("Redis has no sequential nodes"),
            Property::Herd => {
                Some("the Redis recipes wait on no notification: they retry or give up")
            }
            Property::Reentrancy => Some("the Redis recipes are not re-entrant"),
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

    fn render(&self, cx: &Counterexample<Action>) -> Option<Trace> {
        self.render_trace(cx)
    }

    fn valid(&self) -> bool {
        self.validate().is_ok()
    }
}
