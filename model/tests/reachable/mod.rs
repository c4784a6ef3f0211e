//! Every state a space can reach, breadth first, without the explorer's
//! reductions: for tests that check a claim about each reachable state or
//! transition directly.

use locksmith_model::engine::Space;
use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// Calls `visit` once on each state reachable from `space`'s initial
/// state, with its enabled actions; returns how many there were.
pub fn each_reachable<S: Space>(space: &S, mut visit: impl FnMut(&S::State, &[S::Action])) -> usize
where
    S::State: Clone + Eq + Hash,
{
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([space.initial()]);
    let mut out = Vec::new();
    while let Some(s) = queue.pop_front() {
        if !seen.insert(s.clone()) {
            continue;
        }
        out.clear();
        space.actions(&s, &mut out);
        visit(&s, &out);
        for &a in &out {
            let mut next = s.clone();
            space.apply(&mut next, a);
            queue.push_back(next);
        }
    }
    seen.len()
}
