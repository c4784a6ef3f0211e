//! A Redis run as a [`Report`]: every property of [`Property::ALL`] with
//! its verdict — holds, violated with its shortest trace, incomplete, or
//! n/a where the Redis checker does not judge it — in the same shape
//! ZooKeeper's checker reports, so the CLI, JSON and `[expect]` read both.

use super::action::Action;
use super::config::RedisSpace;
use crate::engine::explore::{explore_space, Exploration, Progress};
use crate::engine::harness::Property;
use crate::engine::verdict::{BackendJudging, Report};
use std::ops::ControlFlow;

impl RedisSpace {
    /// Whether the Redis checker judges `p`.
    pub fn judges(&self, p: Property) -> bool {
        self.not_judged(p).is_none()
    }

    /// Why the Redis checker does not judge `p` (`None`: it judges it):
    /// what an `n/a` reports.
    pub fn not_judged(&self, p: Property) -> Option<&'static str> {
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

    /// Explores the configuration and judges every property; `progress`
    /// breaking stops the run (incomplete: interrupted). A configuration
    /// [`RedisSpace::validate`] refuses is reported incomplete, never
    /// explored.
    pub fn check_with_progress(
        &self,
        progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
    ) -> Report {
        if self.validate().is_err() {
            return self.report(&Exploration::nothing());
        }
        self.report(&explore_space(self, progress))
    }

    pub fn check(&self) -> Report {
        self.check_with_progress(&mut |_| ControlFlow::Continue(()))
    }

    /// The report of an exploration of this configuration. Starvation and
    /// stuck lock need the kept graph: without it they are incomplete. A
    /// client that held the lock in no explored state makes the properties
    /// nothing broke incomplete, as for ZooKeeper.
    pub fn report(&self, x: &Exploration<Action>) -> Report {
        Report::of_backend(
            x,
            &BackendJudging {
                clients: self.clients,
                graph: self.limits.starvation,
                not_judged: &|p| self.not_judged(p),
                render: &|cx| self.render(cx),
            },
        )
    }
}
