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

use super::config::CheckConfig;
use super::explore::{path_indices, replay, Counterexample, Parents, Path};
use super::graph::{Graph, Renumbering};
use super::starvation::Lasso;
use super::system::System;

/// The lasso's ordinals, valid for a replay from the initial state.
pub fn concrete(cfg: &CheckConfig, parents: &Parents, lasso: &Lasso) -> Path {
    let mut ordinals = path_indices(parents, lasso.start);
    let cycle_start = ordinals.len();
    let (mut at, _) = replay(cfg, &ordinals);
    // `plays[p]`: the replay's client in the part of the kept state's
    // client `p`.
    let mut plays: [u8; 8] = std::array::from_fn(|p| p as u8);
    let mut actions = Vec::new();
    for &(v, k, renumbering) in &lasso.cycle {
        let (kept, _) = replay(cfg, &path_indices(parents, v));
        kept.actions(&mut actions);
        let a = actions[k as usize].relabel(|p| plays[p as usize]);
        at.actions(&mut actions);
        let ordinal = actions
            .iter()
            .position(|&b| b == a)
            .expect("a permutation of a state has the permuted actions");
        ordinals.push(ordinal as u16);
        at.apply(a, false);
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
pub fn judge(cfg: &CheckConfig, cx: &Counterexample) -> Result<(), String> {
    let start = cx.cycle_start.ok_or("no cycle")?;
    if start >= cx.actions.len() {
        return Err("an empty cycle".into());
    }
    let mut s = System::initial(cfg);
    for &a in &cx.actions[..start] {
        s.apply(a, false);
    }
    let fingerprint = |s: &System| {
        let mut t = s.lend();
        if cfg.abstract_sequences {
            super::sequences::abstract_state(&mut t);
        }
        super::symmetry::canonical(&t, false).fingerprint
    };
    let first = fingerprint(&s);
    let (mut always, mut acted, mut waiting) = (u64::MAX, 0u64, u8::MAX);
    let mut enabled = Vec::new();
    for &a in &cx.actions[start..] {
        s.actions(&mut enabled);
        if !enabled.contains(&a) {
            return Err(format!("{a} is not enabled where the cycle takes it"));
        }
        always &= enabled
            .iter()
            .filter_map(|b| b.agent())
            .fold(0, |m, g| m | 1 << g.pack());
        waiting &= Graph::waiting(&s);
        if let Some(g) = a.agent() {
            acted |= 1 << g.pack();
        }
        s.apply(a, false);
    }
    if fingerprint(&s) != first {
        return Err("the cycle does not come back to the state it left".into());
    }
    if waiting == 0 {
        return Err("no client waits in every state of the cycle".into());
    }
    let unfair = always & !acted;
    if unfair != 0 {
        return Err(format!(
            "agents {unfair:#x} can move all along the cycle and never do"
        ));
    }
    Ok(())
}
