//! Starvation as a lasso: a reachable cycle in which some client waits in
//! every state and never acquires. stateright's `eventually` judges only
//! terminal states and cannot see such cycles, so this runs Tarjan's
//! strongly-connected-components algorithm over the explored graph, once per
//! client, restricted to the states where that client waits.
//!
//! Fairness: a cycle only counts if the waiting client takes a step in it or
//! is blocked (has nothing enabled) somewhere in it. A cycle in which the
//! client could always move but the scheduler never picks it is not a
//! starvation of the recipe's making.

use super::explore::{path_indices, Graph, Path};
use std::collections::VecDeque;

/// The first starvation lasso found (lowest client first), if any.
pub fn find(g: &Graph) -> Option<Path> {
    let clients = g.waiting.iter().fold(0u8, |a, w| a | w);
    for c in 0..8u8 {
        if clients & (1 << c) == 0 {
            continue;
        }
        if let Some(p) = lasso_for(g, c) {
            return Some(p);
        }
    }
    None
}

fn in_sub(g: &Graph, c: u8, v: u32) -> bool {
    (v as usize) < g.waiting.len() && g.waiting[v as usize] & (1 << c) != 0
}

fn edges(g: &Graph, v: u32) -> std::ops::Range<usize> {
    g.offsets[v as usize] as usize..g.offsets[v as usize + 1] as usize
}

/// Iterative Tarjan over the subgraph where `c` waits.
fn lasso_for(g: &Graph, c: u8) -> Option<Path> {
    let n = g.waiting.len();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN || !in_sub(g, c, root) {
            continue;
        }
        // (vertex, next edge position)
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
                if !in_sub(g, c, w) {
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
                    loop {
                        let w = stack.pop().unwrap_or(v);
                        on_stack[w as usize] = false;
                        scc.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if let Some(p) = judge(g, c, &scc) {
                        return Some(p);
                    }
                }
            }
        }
    }
    None
}

/// If `scc` holds a fair cycle for `c`, the lasso to it.
fn judge(g: &Graph, c: u8, scc: &[u32]) -> Option<Path> {
    let mut sorted = scc.to_vec();
    sorted.sort_unstable();
    let scc = &sorted[..];
    let member = |v: u32| scc.binary_search(&v).is_ok();
    let internal = scc
        .iter()
        .any(|&v| edges(g, v).any(|e| member(g.targets[e])));
    if !internal {
        return None;
    }
    let acts = scc
        .iter()
        .any(|&v| edges(g, v).any(|e| member(g.targets[e]) && g.actors[e] == c));
    let blocked = scc.iter().any(|&v| g.enabled[v as usize] & (1 << c) == 0);
    if !(acts || blocked) {
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
    let mut prev: std::collections::BTreeMap<u32, (u32, u16)> = std::collections::BTreeMap::new();
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
