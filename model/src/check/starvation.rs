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
//! Fairness is weak fairness per client: a cycle only counts if every
//! client that has a step enabled in every state of the cycle takes a step
//! in it (its threads, its session's requests and replies). A cycle in which
//! a waiter could always move but the scheduler never picks it, or in which
//! the holder's release is never served, is not a starvation of the
//! recipe's making. The symmetry reduction renumbers clients between
//! states, so clients are followed through each edge's [`Renumbering`]: an
//! SCC of the reduced graph is lifted to (state, numbering) pairs and the
//! fair cycle is sought there. Fairness is per client, not per thread: a
//! cycle in which a client's event thread runs while its runnable main
//! thread never does counts as fair to it.

use super::explore::{path_indices, Parents, Path};
use super::graph::{Graph, Renumbering};
use std::collections::{HashMap, VecDeque};

fn in_sub(g: &Graph, v: u32) -> bool {
    g.waiting.get(v as usize).is_some_and(|w| *w != 0)
}

fn edges(g: &Graph, v: u32) -> std::ops::Range<usize> {
    g.edges(v)
}

/// The starvation lasso closest to the initial state's root of search, if any.
pub fn find(g: &Graph, parents: &Parents) -> Option<Path> {
    let succ = |v: u32, i: usize| {
        let r = edges(g, v);
        (r.start + i < r.end).then(|| g.targets[r.start + i])
    };
    strongly_connected(
        g.waiting.len(),
        |v| in_sub(g, v),
        succ,
        |scc| judge(g, parents, scc),
    )
}

/// Tarjan's strongly-connected components over the nodes `0..n` that
/// `keep` admits, following `succ(v, i)` (the `i`-th successor of `v`,
/// `None` past the last). Hands each component to `visit` as it completes
/// and stops at the first `Some`.
fn strongly_connected<T>(
    n: usize,
    keep: impl Fn(u32) -> bool,
    succ: impl Fn(u32, usize) -> Option<u32>,
    mut visit: impl FnMut(&mut Vec<u32>) -> Option<T>,
) -> Option<T> {
    const UNSEEN: u32 = u32::MAX;
    let (mut index, mut low) = (vec![UNSEEN; n], vec![0u32; n]);
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut counter = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN || !keep(root) {
            continue;
        }
        let mut call: Vec<(u32, usize)> = vec![(root, 0)];
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if let Some(w) = succ(v, *pos) {
                *pos += 1;
                if !keep(w) {
                    continue;
                }
                if index[w as usize] == UNSEEN {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
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
                if let Some(found) = visit(&mut scc) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// If `scc` holds a fair cycle, the lasso to it.
fn judge(g: &Graph, parents: &Parents, scc: &mut [u32]) -> Option<Path> {
    scc.sort_unstable();
    let scc = &*scc;
    let member = |v: u32| scc.binary_search(&v).is_ok();
    if !scc
        .iter()
        .any(|&v| edges(g, v).any(|e| member(g.targets[e])))
    {
        return None;
    }
    let lift = Lift::new(g, scc, &member);
    let succ = |x: u32, i: usize| lift.out[x as usize].get(i).map(|e| e.to);
    let cycle = strongly_connected(
        lift.nodes.len(),
        |_| true,
        succ,
        |comp| {
            comp.sort_unstable();
            lift.fair_cycle(comp)
        },
    )?;
    let (v, _) = lift.nodes[cycle.start as usize];
    let mut ordinals = path_indices(parents, v);
    let cycle_start = ordinals.len();
    ordinals.extend(cycle.ordinals);
    Some(Path {
        ordinals,
        cycle_start: Some(cycle_start),
    })
}

/// Where each concrete client stands in a state's numbering: position of
/// client `c` in four bits at `4 * c`.
type Positions = u32;

fn position(p: Positions, c: u8) -> u8 {
    ((p >> (4 * u32::from(c))) & 0xF) as u8
}

/// One edge of the lifted graph.
struct LiftedEdge {
    to: u32,
    /// The edge's ordinal among its source state's actions.
    ordinal: u16,
    /// The concrete client that acted (`u8::MAX` for none).
    actor: u8,
}

/// An SCC of the reduced graph with clients followed by identity.
struct Lift<'g> {
    g: &'g Graph,
    nodes: Vec<(u32, Positions)>,
    out: Vec<Vec<LiftedEdge>>,
    clients: u8,
}

/// A fair cycle found in the lift: its first node and its ordinals.
struct Cycle {
    start: u32,
    ordinals: Vec<u16>,
}

impl<'g> Lift<'g> {
    fn new(g: &'g Graph, scc: &[u32], member: &dyn Fn(u32) -> bool) -> Lift<'g> {
        let clients = (0..8u8)
            .filter(|&c| {
                scc.iter()
                    .any(|&v| (g.enabled[v as usize] | g.waiting[v as usize]) >> c & 1 != 0)
            })
            .max()
            .map_or(0, |c| c + 1);
        let mut lift = Lift {
            g,
            nodes: Vec::new(),
            out: Vec::new(),
            clients,
        };
        let mut ids: HashMap<(u32, Positions), u32> = HashMap::new();
        let root = (scc[0], Renumbering::IDENTITY.0);
        ids.insert(root, 0);
        lift.nodes.push(root);
        let mut next = 0;
        while next < lift.nodes.len() {
            let (v, at) = lift.nodes[next];
            let mut out = Vec::new();
            let r = edges(g, v);
            for e in r.clone() {
                let w = g.targets[e];
                if !member(w) {
                    continue;
                }
                let renumbering = g.renumberings[e];
                let mut moved: Positions = Renumbering::IDENTITY.0;
                let mut actor = u8::MAX;
                for c in 0..8u8 {
                    let p = position(at, c);
                    if p == g.actors[e] {
                        actor = c;
                    }
                    let q = renumbering.new_position(p);
                    moved = (moved & !(0xF << (4 * u32::from(c))))
                        | (u32::from(q) << (4 * u32::from(c)));
                }
                let key = (w, moved);
                let to = *ids.entry(key).or_insert_with(|| {
                    lift.nodes.push(key);
                    (lift.nodes.len() - 1) as u32
                });
                out.push(LiftedEdge {
                    to,
                    ordinal: (e - r.start) as u16,
                    actor,
                });
            }
            lift.out.push(out);
            next += 1;
        }
        lift
    }

    /// Whether concrete client `c` has a step enabled at lifted node `x`.
    fn enabled(&self, x: u32, c: u8) -> bool {
        let (v, at) = self.nodes[x as usize];
        self.g.enabled[v as usize] >> position(at, c) & 1 != 0
    }

    /// A weakly fair cycle through the component, if there is one: every
    /// client enabled throughout takes a step in it.
    fn fair_cycle(&self, comp: &[u32]) -> Option<Cycle> {
        let member = |x: u32| comp.binary_search(&x).is_ok();
        let inside = |x: u32| self.out[x as usize].iter().filter(move |e| member(e.to));
        if !comp.iter().any(|&x| inside(x).next().is_some()) {
            return None;
        }
        let mut due = Vec::new();
        for c in 0..self.clients {
            if comp.iter().all(|&x| self.enabled(x, c)) {
                if !comp.iter().any(|&x| inside(x).any(|e| e.actor == c)) {
                    return None;
                }
                due.push(c);
            }
        }
        // Walk from the component's first node through one step of every
        // client due, then back.
        let start = comp[0];
        let (mut at, mut ordinals) = (start, Vec::new());
        for c in due {
            let (path, end) = self.walk(&member, at, |e| e.actor == c)?;
            ordinals.extend(path);
            at = end;
        }
        if ordinals.is_empty() || at != start {
            let (path, _) = self.walk(&member, at, |e| e.to == start)?;
            ordinals.extend(path);
        }
        Some(Cycle { start, ordinals })
    }

    /// The shortest walk inside the component from `from` that ends with an
    /// edge `last` accepts: its ordinals and the node it ends at.
    fn walk(
        &self,
        member: &dyn Fn(u32) -> bool,
        from: u32,
        last: impl Fn(&LiftedEdge) -> bool,
    ) -> Option<(Vec<u16>, u32)> {
        let mut prev: HashMap<u32, (u32, u16)> = HashMap::new();
        let mut q = VecDeque::from([from]);
        let mut seen = vec![false; self.nodes.len()];
        seen[from as usize] = true;
        while let Some(x) = q.pop_front() {
            for e in self.out[x as usize].iter().filter(|e| member(e.to)) {
                if last(e) {
                    let mut ks = vec![e.ordinal];
                    let mut u = x;
                    while u != from {
                        let (p, k) = prev[&u];
                        ks.push(k);
                        u = p;
                    }
                    ks.reverse();
                    return Some((ks, e.to));
                }
                if !seen[e.to as usize] {
                    seen[e.to as usize] = true;
                    prev.insert(e.to, (x, e.ordinal));
                    q.push_back(e.to);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWAP: Renumbering = Renumbering(0x7654_3201);

    /// State 0 leads to state 1; states 1 and 2 form a cycle in which
    /// client 0 waits and both clients always have a step enabled. `edges`
    /// are (from, to, actor, renumbering).
    fn graph(edges: &[(u32, u32, u8, Renumbering)]) -> Graph {
        let mut g = Graph::default();
        for (w, e) in [(0, 1), (1, 3), (1, 3)] {
            g.node(w, e);
        }
        for v in 0..3 {
            for &(from, to, actor, r) in edges {
                if from == v {
                    g.edge(to, actor, r);
                }
            }
            g.end_node();
        }
        g
    }

    fn parents() -> Parents {
        [(u32::MAX, 0), (0, 0), (1, 0)].into_iter().collect()
    }

    #[test]
    fn a_cycle_in_which_an_enabled_client_never_moves_is_not_starvation() {
        let id = Renumbering::IDENTITY;
        let g = graph(&[(0, 1, 0, id), (1, 2, 0, id), (2, 1, 0, id)]);
        assert_eq!(find(&g, &parents()), None);
    }

    #[test]
    fn a_cycle_in_which_every_enabled_client_moves_is_starvation() {
        let id = Renumbering::IDENTITY;
        let g = graph(&[(0, 1, 0, id), (1, 2, 0, id), (2, 1, 1, id)]);
        let lasso = find(&g, &parents()).expect("a fair cycle");
        assert_eq!(lasso.cycle_start, Some(1));
        assert_eq!(lasso.ordinals, vec![0, 0, 0]);
    }

    /// Client 0 acts on both edges, but each edge swaps the numbering: the
    /// two concrete clients take turns, so the cycle is fair. Read without
    /// the renumbering, client 1 would never move.
    #[test]
    fn clients_are_followed_through_the_symmetry_renumbering() {
        let id = Renumbering::IDENTITY;
        let g = graph(&[(0, 1, 0, id), (1, 2, 0, SWAP), (2, 1, 0, SWAP)]);
        assert!(find(&g, &parents()).is_some());
    }

    #[test]
    fn renumberings_pack_canonicalize_permutations() {
        let r = Renumbering::of(&[2, 0, 1]);
        assert_eq!((r.old(0), r.old(1), r.old(2), r.old(3)), (2, 0, 1, 3));
        assert_eq!((r.new_position(2), r.new_position(0)), (0, 1));
    }
}
