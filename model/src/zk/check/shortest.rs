//! The checker's shortest counterexample of a scenario, for the drivers
//! that re-enact it outside the checker (`locksmith confirm` on a real
//! server, `locksmith serve --trace` on a real client library).

use super::explore::{explore, Counterexample};
use super::system::Action;
use super::{CheckConfig, Property, Report, Verdict};

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
