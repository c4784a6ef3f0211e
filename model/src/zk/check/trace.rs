//! Counterexamples as people read them: one line per step (who acted, what
//! the seed's code did, what changed in the tree) and as a Mermaid sequence
//! diagram with the clients and the server as participants.

use super::config::CheckConfig;
use super::explore::Counterexample;
use super::system::{Action, System};
use crate::engine::trace::{Trace, TraceStep};
use std::collections::BTreeSet;

fn node_set(s: &System) -> BTreeSet<String> {
    s.server.nodes().map(|(p, _)| p.to_string()).collect()
}

/// Applies `a` to `s` and describes it as step `n` (1-based) of a trace:
/// one step of [`render`], for callers that walk a path themselves (the
/// stateright Explorer in [`model`](super::model)).
pub fn step(s: &mut System, a: Action, n: usize) -> TraceStep {
    let before = node_set(s);
    let fx = s.apply(a, true);
    let after = node_set(s);
    let mut tree: Vec<String> = after.difference(&before).map(|p| format!("+{p}")).collect();
    tree.extend(before.difference(&after).map(|p| format!("-{p}")));
    TraceStep {
        step: n,
        actor: a.to_string(),
        text: fx.text,
        tree,
        holders: s.holders().into_iter().map(|c| c + 1).collect(),
        cycle_starts_here: false,
    }
}

/// Replays `cx` and describes every step.
pub fn render(cfg: &CheckConfig, cx: &Counterexample) -> Trace {
    let mut s = System::initial(cfg);
    let mut steps = Vec::new();
    for (i, &a) in cx.actions.iter().enumerate() {
        let mut st = step(&mut s, a, i + 1);
        st.cycle_starts_here = cx.cycle_start == Some(i);
        steps.push(st);
    }
    Trace {
        steps,
        cycle_start: cx.cycle_start.map(|c| c + 1),
    }
}

/// For `Action` users outside the checker.
pub fn describe(a: Action) -> String {
    a.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_reads_as_its_actor() {
        let run = Action::Run(0, crate::zk::client::Thread::Main);
        assert_eq!(describe(run), "c1.main");
    }
}
