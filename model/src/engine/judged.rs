//! A backend's space that the engine can check and report whole: the
//! backend declares which properties it judges (an n/a reason for the
//! others), how a counterexample reads, and whether its configuration is
//! valid; the exploration, the verdict of every property of
//! [`Property::ALL`] and the shortest traces come with the seam. Redis and
//! MySQL implement it (ZooKeeper's checker has reductions of its own, in
//! `zk::check::explore`).

use super::explore::{explore_space, Exploration, Progress};
use super::harness::Property;
use super::path::Counterexample;
use super::space::Space;
use super::trace::Trace;
use super::verdict::{BackendJudging, Report};
use std::ops::ControlFlow;

pub trait Judged: Space + Sized {
    /// The clients of the configuration.
    fn clients(&self) -> u8;
    /// Why the backend does not judge `p` (reported n/a with this reason),
    /// or `None` when it does.
    fn not_judged(&self, p: Property) -> Option<&'static str>;
    /// A counterexample as the backend's trace.
    fn render(&self, cx: &Counterexample<Self::Action>) -> Option<Trace>;
    /// Whether the configuration may be explored (one it refuses is
    /// reported incomplete, never explored).
    fn valid(&self) -> bool;

    /// Whether the backend judges `p`.
    fn judges(&self, p: Property) -> bool {
        self.not_judged(p).is_none()
    }

    /// The report of an exploration of this configuration. Starvation and
    /// stuck lock need the kept graph: without it they are incomplete. A
    /// client that held the lock in no explored state makes the properties
    /// nothing broke incomplete, as for ZooKeeper.
    fn report(&self, x: &Exploration<Self::Action>) -> Report {
        Report::of_backend(
            x,
            &BackendJudging {
                clients: self.clients(),
                graph: self.limits().starvation,
                // A command backend keeps every client's number.
                symmetry: false,
                not_judged: &|p| self.not_judged(p),
                render: &|cx| self.render(cx),
            },
        )
    }

    /// Explores the configuration and judges every property; `progress`
    /// breaking stops the run (incomplete: interrupted).
    fn check_with_progress(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report {
        if !self.valid() {
            return self.report(&Exploration::nothing());
        }
        self.report(&explore_space(self, progress))
    }

    fn check(&self) -> Report {
        self.check_with_progress(&mut |_| ControlFlow::Continue(()))
    }
}
