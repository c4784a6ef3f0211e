//! The trace `confirm` re-enacts: the checker's shortest counterexample
//! for the scenario's headline property, read through the checker's public
//! API (the exploration's counterexamples and the report's headline), and
//! what the trace does next to a reply — which decides how the proxy must
//! treat the request now.

use locksmith_model::engine::trace::TraceStep;
use locksmith_model::zk::check::explore::{explore, Counterexample};
use locksmith_model::zk::check::system::Action;
use locksmith_model::{
    zk::check::CheckConfig, zk::check::Property, zk::check::Report, zk::check::Verdict,
};

/// The checker's shortest trace for the headline property.
#[derive(Clone, Debug)]
pub struct CheckerTrace {
    pub property: Property,
    pub actions: Vec<Action>,
    /// For starvation: the repeating part starts at this action (0-based).
    pub cycle_start: Option<usize>,
    /// States the checker explored to find it.
    pub states: usize,
}

/// Explores `cfg` and returns the shortest trace of the property the
/// verdict is about; an error if nothing is violated (there is nothing to
/// confirm) or the exploration stopped early without a violation.
pub fn shortest(cfg: &CheckConfig, wanted: Option<Property>) -> Result<CheckerTrace, String> {
    cfg.validate()?;
    let x = explore(cfg);
    let report = Report::from_exploration(cfg, &x);
    // The headline, unless it is a property only the model's side can show
    // (the protected resource is the model's): then the next one violated.
    let property = report
        .properties
        .iter()
        .filter(|p| p.verdict == Verdict::Violated)
        .map(|p| p.property)
        .find(|&p| wanted.map_or(on_the_server(p), |w| w == p));
    let Some(property) = property.filter(|_| report.verdict == Verdict::Violated) else {
        return Err(match report.verdict {
            Verdict::Incomplete => format!(
                "the checker's run is incomplete ({}) and found no violation: nothing to confirm",
                report.bound.as_deref().unwrap_or("a client never acquired")
            ),
            v => format!("the checker's verdict is `{v}`: there is no counterexample to confirm"),
        });
    };
    let Some(Counterexample {
        actions,
        cycle_start,
    }) = x.found.get(&property).cloned()
    else {
        return Err(format!(
            "the checker reports {property} violated but kept no trace of it"
        ));
    };
    Ok(CheckerTrace {
        property,
        actions,
        cycle_start,
        states: x.states,
    })
}

/// Whether the reply now at position `pos` of client `c`'s queue is lost
/// to a connection loss before the trace (from action `from` on) delivers
/// it. Replies and events reach a client one at a time from the front of
/// its queue; an overtake delivers the second one first; a connection
/// loss drops every reply still queued.
pub fn reply_lost(actions: &[Action], from: usize, c: u8, mut pos: usize) -> bool {
    for a in actions.iter().skip(from) {
        match *a {
            Action::Deliver(x) if x == c => {
                if pos == 0 {
                    return false;
                }
                pos -= 1;
            }
            Action::Overtake(x) if x == c => match pos {
                0 => {}
                1 => return false,
                _ => pos -= 1,
            },
            Action::LoseConnection(x) if x == c => return true,
            Action::Crash(x) if x == c => return false,
            _ => {}
        }
    }
    false
}

/// A trace step as `confirm` shows the model's side: the step's line with
/// the nodes it created and deleted.
pub fn line_of(s: &TraceStep) -> String {
    let mut line = s.text.clone();
    if !s.tree.is_empty() {
        line.push_str(&format!("   [{}]", s.tree.join(" ")));
    }
    line
}

/// Whether confirm can show `p` on the real server: not the protected
/// resource's properties (the resource is the model's) nor those only the
/// Redis checker judges (`judge` answers them `Unforced`).
pub fn on_the_server(p: Property) -> bool {
    !matches!(
        p,
        Property::MutualExclusionAtResource
            | Property::FencedSafety
            | Property::UnlockByNonOwner
            | Property::StuckLock
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksmith_model::zk::client::Thread;

    #[test]
    fn a_reply_is_lost_only_if_the_loss_comes_before_its_delivery() {
        let t = Thread::Main;
        let lost = [
            Action::Run(1, t),
            Action::Deliver(0),
            Action::LoseConnection(0),
        ];
        assert!(reply_lost(&lost, 0, 0, 1));
        assert!(!reply_lost(&lost, 0, 0, 0));
        assert!(!reply_lost(&lost, 0, 1, 0));
        let overtaken = [Action::Overtake(0), Action::LoseConnection(0)];
        assert!(reply_lost(&overtaken, 0, 0, 0));
        assert!(!reply_lost(&overtaken, 0, 0, 1));
        assert!(!reply_lost(&[Action::Deliver(0)], 0, 0, 0));
        assert!(!reply_lost(&lost, 3, 0, 0));
    }
}
