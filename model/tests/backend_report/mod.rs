//! What the Redis and the SQL checkers both promise of a report: the
//! properties neither judges (no nodes to orphan, no notification to herd
//! on, no re-entrant recipe) and the resource's two (judged only with
//! fencing) are n/a with the backend's reason; every other is judged.

use locksmith_model::{zk::check::Property, zk::check::Report, zk::check::Verdict};

/// `r` reports each property as judged or n/a as above, its reasons the
/// backend's `not_judged`; `judges` agrees.
pub fn judged_or_n_a(
    r: &Report,
    fencing: bool,
    judges: impl Fn(Property) -> bool,
    not_judged: impl Fn(Property) -> Option<&'static str>,
) {
    for p in Property::ALL {
        let judged = match p {
            Property::OrphanedNode | Property::Herd | Property::Reentrancy => false,
            Property::MutualExclusionAtResource | Property::FencedSafety => fencing,
            _ => true,
        };
        assert_eq!(judges(p), judged, "{p}");
        let result = (r.properties.iter())
            .find(|x| x.property == p)
            .expect("every property");
        assert_eq!(result.verdict == Verdict::NotApplicable, !judged, "{p}");
        assert_eq!(result.reason, not_judged(p), "{p}");
    }
    let why = not_judged(Property::FencedSafety);
    assert_eq!(why.is_some_and(|w| w.contains("fencing = true")), !fencing);
}
