//! A counterexample replayed into the trace the CLI and JSON show, for a
//! space whose actions are replayed from its initial state (Redis, MySQL,
//! etcd): each action taken where the trace takes it, then described by the
//! backend — who acted, what happened, its lock's state after — with the
//! holders after it read off [`Space::holders`].

use super::harness::Phase;
use super::path::Counterexample;
use super::space::Space;
use super::trace::{Trace, TraceStep};

/// What a backend says of one step of a trace.
pub struct Described {
    pub actor: String,
    pub text: String,
    /// The lock's state after the step, as the trace's tree column shows it.
    pub tree: Vec<String>,
}

/// Replays `cx` from `space`'s initial state and describes every step;
/// `None` if an action is not enabled where the trace takes it.
pub fn replay_trace<X: Space>(
    space: &X,
    cx: &Counterexample<X::Action>,
    describe: impl Fn(&X::State, &X::State, X::Action) -> Described,
) -> Option<Trace>
where
    X::State: Clone,
    X::Action: PartialEq,
{
    let mut s = space.initial();
    let mut enabled = Vec::new();
    let mut steps = Vec::new();
    for (i, &a) in cx.actions.iter().enumerate() {
        space.actions(&s, &mut enabled);
        if !enabled.contains(&a) {
            return None;
        }
        let before = s.clone();
        space.apply(&mut s, a);
        let d = describe(&before, &s, a);
        let holders = space.holders(&s);
        steps.push(TraceStep {
            step: i + 1,
            actor: d.actor,
            text: d.text,
            tree: d.tree,
            holders: (1u8..=8).filter(|n| holders & 1 << (n - 1) != 0).collect(),
            cycle_starts_here: cx.cycle_start == Some(i),
        });
    }
    Some(Trace {
        steps,
        cycle_start: cx.cycle_start.map(|c| c + 1),
    })
}

/// A client's step in the words every command backend's trace uses: the
/// reply it read, entering `lock()` (before its first command), the
/// command it sent, any other change of phase, then what else it did
/// (`then`: its write to the resource, a sleep); "steps" if nothing.
pub fn client_step_words(
    read: Option<String>,
    before: Phase,
    after: Phase,
    sent: Option<String>,
    then: impl IntoIterator<Item = String>,
) -> Vec<String> {
    let mut parts: Vec<String> = read.map(|r| format!("reads {r}")).into_iter().collect();
    let entered = before != after && after == Phase::Acquiring;
    if entered {
        parts.push(phase_words(after).to_string());
    }
    parts.extend(sent.map(|c| format!("sends {c}")));
    if before != after && !entered {
        parts.push(phase_words(after).to_string());
    }
    parts.extend(then);
    if parts.is_empty() {
        parts.push("steps".into());
    }
    parts
}

/// A client's phase as a trace's text names it, when a step moved it.
pub fn phase_words(p: Phase) -> &'static str {
    match p {
        Phase::Idle => "idle",
        Phase::Acquiring => "calls lock()",
        Phase::Holding(_) | Phase::Reacquiring(_) => "holds the lock",
        Phase::Releasing(_) => "leaves its critical section",
        Phase::Released => "lock() over: released or gave up",
        Phase::Finished => "finished its rounds",
        Phase::Died => "its thread died",
        Phase::Crashed => "crashed",
    }
}
