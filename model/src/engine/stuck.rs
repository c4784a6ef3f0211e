//! Stuck lock as reachability in the kept graph: a state from which the
//! lock is never free again — no state reachable from it has a lock that a
//! client calling `lock()` would get ([`Space::acquirable`], the recipe's
//! own rule). Not "a key without a TTL": a timestamp recipe takes over a
//! key that has none, and a key with a TTL is never stuck, since time
//! passes until it expires.
//!
//! Every edge counts, faults included: a state is stuck only if nothing
//! the configuration still allows frees the lock. The states that reach a
//! free one are found backwards from the free ones; the first other state
//! in the search's numbering is the answer, and, the numbering being
//! breadth-first, its tree path is a shortest trace to a stuck lock.
//!
//! [`Space::acquirable`]: super::space::Space::acquirable

use super::graph::Graph;

/// The first stuck state, if any. The graph must be complete (no bound).
pub fn find(g: &Graph) -> Option<u32> {
    let n = g.free.len();
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    for v in 0..n as u32 {
        for e in g.edges(v) {
            if let Some(from) = into.get_mut(g.targets[e] as usize) {
                from.push(v);
            }
        }
    }
    let mut reaches = vec![false; n];
    let mut todo: Vec<u32> = (0..n as u32).filter(|&v| g.free[v as usize]).collect();
    for &v in &todo {
        reaches[v as usize] = true;
    }
    while let Some(v) = todo.pop() {
        for &u in &into[v as usize] {
            if !reaches[u as usize] {
                reaches[u as usize] = true;
                todo.push(u);
            }
        }
    }
    (0..n as u32).find(|&v| !reaches[v as usize])
}
