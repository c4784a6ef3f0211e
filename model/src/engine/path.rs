//! A path through the explored graph, as the search records it (an
//! action ordinal per step, a parent pointer per state) and as a replay
//! turns it into a counterexample's actions.

use super::column::Column;
use super::space::Space;

/// A counterexample: the actions from the initial state, shortest first.
/// For starvation, `cycle_start` marks where the repeating part begins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample<A> {
    pub actions: Vec<A>,
    pub cycle_start: Option<usize>,
}

/// Per state: its parent and the ordinal of the action that reached it,
/// in two columns (6 bytes a state, where a pair would be padded to 8).
#[derive(Default)]
pub struct Parents {
    ids: Column<u32>,
    ordinals: Column<u16>,
}

impl Parents {
    pub(super) fn push(&mut self, (parent, k): (u32, u16)) {
        self.ids.push(parent);
        self.ordinals.push(k);
    }

    /// State `id`'s parent and the ordinal of the action that reached it.
    pub fn get(&self, id: u32) -> (u32, u16) {
        (self.ids[id as usize], self.ordinals[id as usize])
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub(super) fn bytes(&self) -> usize {
        self.ids.bytes() + self.ordinals.bytes()
    }
}

/// A path as the explorer records it: the index of the action taken in
/// each state's (deterministic) list of enabled actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub ordinals: Vec<u16>,
    pub cycle_start: Option<usize>,
}

/// The path from the initial state to state `id`.
pub fn trace_to(parents: &Parents, id: u32) -> Path {
    Path {
        ordinals: path_indices(parents, id),
        cycle_start: None,
    }
}

/// The action ordinals along the BFS tree from the root to `id`.
pub fn path_indices(parents: &Parents, mut id: u32) -> Vec<u16> {
    let mut ks = Vec::new();
    while id != 0 {
        let (p, k) = parents.get(id);
        ks.push(k);
        id = p;
    }
    ks.reverse();
    ks
}

/// Replays a recorded path into concrete actions: the explorer keeps every
/// state as the path it records reached it, so the path's actions are the
/// trace.
pub fn resolve_in<X: Space>(space: &X, path: &Path) -> Counterexample<X::Action> {
    let (_, actions) = replay_in(space, &path.ordinals);
    Counterexample {
        actions,
        cycle_start: path.cycle_start,
    }
}

/// The state a path of ordinals from the initial state reaches, and the
/// actions it took.
pub fn replay_in<X: Space>(space: &X, ordinals: &[u16]) -> (X::State, Vec<X::Action>) {
    let mut s = space.initial();
    let mut enabled = Vec::new();
    let mut actions = Vec::new();
    for &k in ordinals {
        space.actions(&s, &mut enabled);
        let a = enabled[k as usize];
        space.apply(&mut s, a);
        actions.push(a);
    }
    (s, actions)
}

#[cfg(test)]
mod tests {
    use super::Parents;

    /// The parent table: a state's parent and the action that reached it,
    /// by the state's number, and nothing before the first.
    #[test]
    fn parents_give_back_each_states_parent_and_action() {
        let mut p = Parents::default();
        assert!(p.is_empty());
        p.push((0, 0));
        p.push((0, 3));
        p.push((1, 7));
        assert_eq!((p.len(), p.is_empty()), (3, false));
        assert_eq!(p.get(1), (0, 3));
        assert_eq!(p.get(2), (1, 7));
    }
}
