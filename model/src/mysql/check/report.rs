//! A MySQL run as a [`Report`]: every property of [`Property::ALL`] with
//! its verdict — holds, violated with its shortest trace, incomplete, or
//! n/a where the MySQL checker does not judge it — in the same shape
//! ZooKeeper's checker reports, so the CLI, JSON and `[expect]` read both.

use super::action::Action;
use super::config::MysqlSpace;
use crate::engine::explore::{explore_space, Exploration, Progress};
use crate::engine::harness::Property;
use crate::engine::verdict::{BackendJudging, Report};
use std::ops::ControlFlow;

impl MysqlSpace {
    /// Whether the MySQL checker judges `p`: the others are `n/a` (the
    /// resource's without fencing, no watches to herd, no sequential
    /// nodes).
    pub fn judges(&self, p: Property) -> bool {
        self.not_judged(p).is_none()
    }

    /// Why `p` is not judged here (reported n/a with this reason), or
    /// `None` when it is.
    pub fn not_judged(&self, p: Property) -> Option<&'static str> {
        match p {
            Property::MutualExclusionAtResource | Property::FencedSafety if !self.fencing => {
                Some("no protected resource in this run (`fencing = true` adds it)")
            }
            Property::OrphanedNode => Some("a SQL lock has no sequential nodes"),
            Property::Reentrancy => Some("the SQL recipes are not re-entrant"),
            Property::Herd => {
                Some("the SQL recipes wait on no notification: they retry or block in the server")
            }
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
    /// [`MysqlSpace::validate`] refuses is reported incomplete, never
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
