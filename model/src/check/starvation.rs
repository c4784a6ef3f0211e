//! Starvation as a lasso: a reachable cycle in which a client waits in
//! every state and never acquires. stateright's `eventually` judges only
//! terminal states and cannot see such cycles, so this runs Tarjan's
//! strongly-connected-components algorithm over the explored graph,
//! restricted to the states where some client waits.
//!
//! With a finite number of acquisitions per client, a client's "holds" and
//! "done" cannot change around a cycle (each release counts up), so the set
//! of waiting clients is the same in every state of a cycle: any cycle among
//! waiting states starves every waiting client. That also makes the
//! analysis sound on the symmetry-reduced graph, where client numbers shift
//! between states.
//!
//! Fairness: a cycle only counts if a waiting client takes a step in it or
//! is blocked (has nothing enabled) somewhere in it. A cycle in which the
//! waiters could always move but the scheduler never picks them is not a
//! starvation of the recipe's making.

use super::explore::{path_indices, Graph, Path};
use std::collections::{BTreeMap, VecDeque};

fn in_sub(g: &Graph, v: u32) -> bool {
    g.waiting.get(v as usize).is_some_and(|w| *w != 0)
}

fn edges(g: &Graph, v: u32) -> std::ops::Range<usize> {
    g.offsets[v as usize] as usize..g.offsets[v as usize + 1] as usize
}

/// The starvation lasso closest to the initial state's root of search, if any.
pub fn find(g: &Graph) -> Option<Path> {
    let n = g.waiting.len();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN || !in_sub(g, root) {
            continue;
        }
        let mut call: Vec<(u32, usize)> = vec![(root, edges(g, root).start)];
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            let end = edges(g, v).end;
            if *pos < end {
                let w = g.targets[*pos];
                *pos += 1;
                if !in_sub(g, w) {
                    continue;
                }
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, edges(g, w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    let mut scc = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        scc.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if let Some(p) = judge(g, &mut scc) {
                        return Some(p);
                    }
                }
            }
        }
    }
    None
}

/// If `scc` holds a fair cycle, the lasso to it.
fn judge(g: &Graph, scc: &mut [u32]) -> Option<Path> {
    scc.sort_unstable();
    let scc = &*scc;
    let member = |v: u32| scc.binary_search(&v).is_ok();
    let internal = |v: u32| edges(g, v).filter(move |&e| member(g.targets[e]));
    if !scc.iter().any(|&v| internal(v).next().is_some()) {
        return None;
    }
    let waiter_acts = scc.iter().any(|&v| {
        internal(v).any(|e| {
            let a = g.actors[e];
            a != u8::MAX && g.waiting[v as usize] & (1 << a) != 0
        })
    });
    let waiter_blocked = scc
        .iter()
        .any(|&v| g.waiting[v as usize] & !g.enabled[v as usize] != 0);
    if !(waiter_acts || waiter_blocked) {
        return None;
    }
    // Enter the cycle at its member closest to the initial state.
    let entry = *scc.iter().min()?;
    let mut ordinals = path_indices(&g.parents, entry);
    let cycle_start = ordinals.len();
    ordinals.extend(cycle_from(g, scc, entry)?);
    Some(Path {
        ordinals,
        cycle_start: Some(cycle_start),
    })
}

/// A shortest cycle through `entry` inside the SCC, as action ordinals.
fn cycle_from(g: &Graph, scc: &[u32], entry: u32) -> Option<Vec<u16>> {
    let member = |v: u32| scc.binary_search(&v).is_ok();
    let mut prev: BTreeMap<u32, (u32, u16)> = BTreeMap::new();
    let mut q = VecDeque::from([entry]);
    while let Some(v) = q.pop_front() {
        let r = edges(g, v);
        for e in r.clone() {
            let w = g.targets[e];
            let k = (e - r.start) as u16;
            if w == entry {
                let mut ks = vec![k];
                let mut u = v;
                while u != entry {
                    let (p, pk) = prev[&u];
                    ks.push(pk);
                    u = p;
                }
                ks.reverse();
                return Some(ks);
            }
            if member(w) && !prev.contains_key(&w) {
                prev.insert(w, (v, k));
                q.push_back(w);
            }
        }
    }
    None
}
