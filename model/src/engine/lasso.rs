//! A starvation lasso as a trace that replays.
//!
//! The kept graph joins a state to every successor the symmetry reduction
//! found equivalent to a kept one, so a cycle in it runs through kept
//! states whose clients are numbered differently from the states a replay
//! reaches: after an edge that renumbered the clients, the replay stands at
//! a permutation of the kept state, and the kept state's `k`-th action is
//! another client's action there. The tree path to the cycle's first state
//! replays as recorded (every state is kept as the tree first reached it);
//! along the cycle each kept action is renamed to the client that plays its
//! part in the replay, and that client's ordinal is recorded instead.

use super::graph::Renumbering;
use super::path::{path_indices, replay_in, Counterexample, Parents, Path};
use super::space::{Space, NO_AGENT};
use super::starvation::Lasso;

/// The lasso's ordinals, valid for a replay from the initial state.
pub fn concrete<X: Space>(space: &X, parents: &Parents, lasso: &Lasso) -> Path {
    let mut ordinals = path_indices(parents, lasso.start);
    let cycle_start = ordinals.len();
    let (mut at, _) = replay_in(space, &ordinals);
    // `plays[p]`: the replay's client in the part of the kept state's
    // client `p`.
    let mut plays: [u8; 8] = std::array::from_fn(|p| p as u8);
    let mut actions = Vec::new();
    for &(v, k, renumbering) in &lasso.cycle {
        let (kept, _) = replay_in(space, &path_indices(parents, v));
        space.actions(&kept, &mut actions);
        let a = space.relabel(actions[k as usize], &|p| plays[p as usize]);
        space.actions(&at, &mut actions);
        let ordinal = actions
            .iter()
            .position(|&b| b == a)
            .expect("a permutation of a state has the permuted actions");
        ordinals.push(ordinal as u16);
        space.apply(&mut at, a);
        plays = follow(plays, renumbering);
    }
    Path {
        ordinals,
        cycle_start: Some(cycle_start),
    }
}

/// After an edge with `renumbering`, the kept target's client at position
/// `q` is the source's client at `renumbering.old(q)`.
fn follow(plays: [u8; 8], renumbering: Renumbering) -> [u8; 8] {
    std::array::from_fn(|q| plays[renumbering.old(q as u8) as usize])
}

/// Judges a starvation counterexample by replaying it, apart from the
/// search that found it: the cycle must come back to the state it left
/// (clients numbered alike; sequence suffixes by rank if the run abstracts
/// them), some client must wait in every state of it, and every agent
/// able to move in every state of it must take a step in it (weak
/// fairness). `Err` says which fails.
pub fn judge_in<X: Space>(space: &X, cx: &Counterexample<X::Action>) -> Result<(), String> {
    let start = cx.cycle_start.ok_or("no cycle")?;
    if start >= cx.actions.len() {
        return Err("an empty cycle".into());
    }
    let mut s = space.initial();
    for &a in &cx.actions[..start] {
        space.apply(&mut s, a);
    }
    let first = space.exact_fingerprint(&s);
    // A bit per packed agent: 256 of them.
    let (mut always, mut acted, mut waiting) = ([u64::MAX; 4], [0u64; 4], u8::MAX);
    let bit = |m: &mut [u64; 4], g: u8| m[usize::from(g >> 6)] |= 1 << (g & 63);
    let mut enabled = Vec::new();
    for &a in &cx.actions[start..] {
        space.actions(&s, &mut enabled);
        if !enabled.contains(&a) {
            return Err(format!("{a} is not enabled where the cycle takes it"));
        }
        let mut here = [0u64; 4];
        for &b in &enabled {
            let g = space.agent(b);
            if g != NO_AGENT {
                bit(&mut here, g);
            }
        }
        for (al, h) in always.iter_mut().zip(here) {
            *al &= h;
        }
        waiting &= space.waiting(&s);
        let g = space.agent(a);
        if g != NO_AGENT {
            bit(&mut acted, g);
        }
        space.apply(&mut s, a);
    }
    if space.exact_fingerprint(&s) != first {
        return Err("the cycle does not come back to the state it left".into());
    }
    if waiting == 0 {
        return Err("no client waits in every state of the cycle".into());
    }
    let unfair: Vec<usize> = (0..256)
        .filter(|&g| always[g >> 6] & !acted[g >> 6] & 1 << (g & 63) != 0)
        .collect();
    if !unfair.is_empty() {
        return Err(format!(
            "agents {unfair:?} can move all along the cycle and never do"
        ));
    }
    Ok(())
}
