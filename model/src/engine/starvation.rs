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
//! Fairness is weak fairness per agent: a cycle only counts if every
//! agent that has a step enabled in every state of the cycle takes a step
//! in it. A client's agents are each thread of its process, the server's
//! handling of its session, and its connection delivering replies and
//! events to it ([`Agent`]); faults are owed to no one. So a cycle in which
//! a waiter could always move but the scheduler never picks it, in which
//! the holder's release is never served, or in which a client's event
//! thread runs while its runnable main thread never does, is not a
//! starvation of the recipe's making. The symmetry reduction renumbers
//! clients between states, so clients are followed through each edge's
//! [`Renumbering`]: an SCC of the reduced graph is lifted to (state,
//! numbering) pairs and the fair cycle is sought there. Who can move in a
//! state is read off its edges (every enabled action is one).

use super::graph::{Graph, Renumbering};
use crate::engine::agent::Agent;
use std::collections::{HashMap, VecDeque};

fn in_sub(g: &Graph, v: u32) -> bool {
    g.waiting.get(v as usize).is_some_and(|w| *w != 0)
}

fn edges(g: &Graph, v: u32) -> std::ops::Range<usize> {
    g.edges(v)
}

/// A starvation lasso in the kept graph: the tree path to `start`, then a
/// cycle back to it, each step (kept source state, its action ordinal, the
/// edge's renumbering). The cycle's ordinals are the kept states' own: a
/// replay that follows them through renumbered edges is at a permutation
/// of the kept state, so [`lasso::concrete`](super::lasso::concrete)
/// translates them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    pub start: u32,
    pub cycle: Vec<(u32, u16, Renumbering)>,
}

/// The starvation lasso closest to the initial state's root of search, if any.
pub fn find(g: &Graph) -> Option<Lasso> {
    let succ = |v: u32, i: usize| {
        let r = edges(g, v);
        (r.start + i < r.end).then(|| g.targets[r.start + i])
    };
    strongly_connected(g.waiting.len(), |v| in_sub(g, v), succ, |scc| judge(g, scc))
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
fn judge(g: &Graph, scc: &mut [u32]) -> Option<Lasso> {
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
    let kept = |x: u32| lift.nodes[x as usize].0;
    let start = kept(cycle.start);
    let cycle = cycle
        .steps
        .iter()
        .map(|&(x, k)| {
            let v = kept(x);
            (v, k, g.renumbering(edges(g, v).start + k as usize))
        })
        .collect();
    Some(Lasso { start, cycle })
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
    /// The agent that acted, its client concrete ([`Agent::pack`]).
    actor: u8,
}

/// An SCC of the reduced graph with clients followed by identity.
struct Lift {
    nodes: Vec<(u32, Positions)>,
    out: Vec<Vec<LiftedEdge>>,
    /// Per lifted node: bit `a` set if agent `a` (packed, client concrete)
    /// has an action enabled there — any edge of the state, inside the
    /// component or not.
    enabled: Vec<u64>,
}

/// A fair cycle found in the lift: its first node and its steps (lifted
/// source node, action ordinal).
struct Cycle {
    start: u32,
    steps: Vec<(u32, u16)>,
}

/// The agent of edge `e` with its client made concrete by `at`.
fn concrete(g: &Graph, e: usize, at: Positions) -> Option<Agent> {
    let a = Agent::unpack(g.actor(e))?;
    if a == Agent::REAPER {
        return Some(a);
    }
    (0..8u8)
        .find(|&c| position(at, c) == a.client)
        .map(|client| Agent { client, ..a })
}

impl Lift {
    fn new(g: &Graph, scc: &[u32], member: &dyn Fn(u32) -> bool) -> Lift {
        let mut lift = Lift {
            nodes: Vec::new(),
            out: Vec::new(),
            enabled: Vec::new(),
        };
        let mut ids: HashMap<(u32, Positions), u32> = HashMap::new();
        let root = (scc[0], Renumbering::IDENTITY.0);
        ids.insert(root, 0);
        lift.nodes.push(root);
        let mut next = 0;
        while next < lift.nodes.len() {
            let (v, at) = lift.nodes[next];
            let (mut out, mut enabled) = (Vec::new(), 0u64);
            let r = edges(g, v);
            for e in r.clone() {
                let actor = concrete(g, e, at);
                if let Some(a) = actor {
                    enabled |= 1 << a.pack();
                }
                let w = g.targets[e];
                if !member(w) {
                    continue;
                }
                let renumbering = g.renumbering(e);
                let mut moved: Positions = Renumbering::IDENTITY.0;
                for c in 0..8u8 {
                    let q = renumbering.new_position(position(at, c));
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
                    actor: actor.map_or(Agent::NONE, Agent::pack),
                });
            }
            lift.out.push(out);
            lift.enabled.push(enabled);
            next += 1;
        }
        lift
    }

    /// A weakly fair cycle through the component, if there is one: every
    /// agent enabled throughout takes a step in it.
    fn fair_cycle(&self, comp: &[u32]) -> Option<Cycle> {
        let member = |x: u32| comp.binary_search(&x).is_ok();
        let inside = |x: u32| self.out[x as usize].iter().filter(move |e| member(e.to));
        if !comp.iter().any(|&x| inside(x).next().is_some()) {
            return None;
        }
        let always = comp
            .iter()
            .fold(u64::MAX, |m, &x| m & self.enabled[x as usize]);
        let sometimes = comp.iter().fold(0, |m, &x| m | self.enabled[x as usize]);
        for a in (0..64u8).filter(|&a| always >> a & 1 != 0) {
            if !comp.iter().any(|&x| inside(x).any(|e| e.actor == a)) {
                return None;
            }
        }
        // The component has a fair cycle. The witness walks from its first
        // node so that every agent enabled somewhere in it either takes a
        // step or is seen disabled, then back: an agent enabled all along
        // the witness and never taking a step would make the witness unfair
        // although the component is not.
        let start = comp[0];
        let disabled = |x: u32, a: u8| self.enabled[x as usize] >> a & 1 == 0;
        let (mut at, mut steps) = (start, Vec::new());
        let mut seen_disabled = !self.enabled[start as usize];
        let mut acted = 0u64;
        for a in (0..64u8).filter(|&a| sometimes >> a & 1 != 0) {
            if (seen_disabled | acted) >> a & 1 != 0 {
                continue;
            }
            let (path, end) = self.walk(&member, at, |e| e.actor == a || disabled(e.to, a))?;
            for &(x, k) in &path {
                let Some(e) = self.out[x as usize].iter().find(|e| e.ordinal == k) else {
                    continue;
                };
                seen_disabled |= !self.enabled[e.to as usize];
                if e.actor != Agent::NONE {
                    acted |= 1 << e.actor;
                }
            }
            steps.extend(path);
            at = end;
        }
        if steps.is_empty() || at != start {
            let (path, _) = self.walk(&member, at, |e| e.to == start)?;
            steps.extend(path);
        }
        Some(Cycle { start, steps })
    }

    /// The shortest walk inside the component from `from` that ends with an
    /// edge `last` accepts: its steps (source node, ordinal) and the node it
    /// ends at.
    fn walk(
        &self,
        member: &dyn Fn(u32) -> bool,
        from: u32,
        last: impl Fn(&LiftedEdge) -> bool,
    ) -> Option<(Vec<(u32, u16)>, u32)> {
        let mut prev: HashMap<u32, (u32, u16)> = HashMap::new();
        let mut q = VecDeque::from([from]);
        let mut seen = vec![false; self.nodes.len()];
        seen[from as usize] = true;
        while let Some(x) = q.pop_front() {
            for e in self.out[x as usize].iter().filter(|e| member(e.to)) {
                if last(e) {
                    let mut ks = vec![(x, e.ordinal)];
                    let mut u = x;
                    while u != from {
                        let (p, k) = prev[&u];
                        ks.push((p, k));
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

    /// Packed agents: client `c`'s main thread, event thread.
    fn main(c: u8) -> u8 {
        c << 3
    }
    fn event(c: u8) -> u8 {
        c << 3 | 1
    }

    /// State 0 leads to state 1; in states 1 and 2 client 0 waits, and the
    /// edges back to state 0 (outside the waiting states) only show who
    /// else can move there. `edges` are (from, to, actor, renumbering).
    fn graph(edges: &[(u32, u32, u8, Renumbering)]) -> Graph {
        let mut g = Graph::default();
        for w in [0, 1, 1] {
            g.node(w);
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

    const ID: Renumbering = Renumbering::IDENTITY;

    #[test]
    fn a_cycle_in_which_an_enabled_client_never_moves_is_not_starvation() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, main(0), ID),
            (1, 0, main(1), ID),
            (2, 1, main(0), ID),
            (2, 0, main(1), ID),
        ]);
        assert_eq!(find(&g), None);
    }

    #[test]
    fn a_cycle_in_which_every_enabled_client_moves_is_starvation() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, main(0), ID),
            (1, 0, main(1), ID),
            (2, 1, main(1), ID),
            (2, 0, main(0), ID),
        ]);
        let lasso = find(&g).expect("a fair cycle");
        assert_eq!(lasso.start, 1);
        assert_eq!(lasso.cycle, vec![(1, 0, ID), (2, 0, ID)]);
    }

    /// Fairness is per thread: client 1's event thread runs around the
    /// cycle while its main thread, able to move throughout, never does.
    #[test]
    fn a_cycle_in_which_one_thread_of_a_moving_client_never_runs_is_not_starvation() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, event(1), ID),
            (1, 0, main(1), ID),
            (2, 1, event(1), ID),
            (2, 0, main(1), ID),
        ]);
        assert_eq!(find(&g), None);
    }

    /// A step the partial-order reduction left out still says its agent
    /// could move: client 1's main thread, able to move in both states of
    /// the cycle but never taking a step there, makes it unfair.
    #[test]
    fn a_step_the_por_left_out_still_counts_for_fairness() {
        use crate::engine::graph::NOT_TAKEN;
        let cycle = [
            (0, 1, main(0), ID),
            (1, 2, main(0), ID),
            (2, 1, main(0), ID),
        ];
        assert!(find(&graph(&cycle)).is_some());
        let mut left_out = cycle.to_vec();
        left_out.push((1, NOT_TAKEN, main(1), ID));
        left_out.push((2, NOT_TAKEN, main(1), ID));
        assert_eq!(find(&graph(&left_out)), None);
    }

    /// The witness walks only for agents it has not yet seen both ways:
    /// in 0 → 1 → 2 → 0, the walk for main(0) passes main(1)'s step and a
    /// state where main(1) cannot move, so main(1) is served already and
    /// the witness closes at once — three steps, not a second lap.
    #[test]
    fn a_fair_cycle_walks_no_further_than_its_agents_need() {
        let (a, b) = (main(0), main(1));
        let edge = |to, actor| LiftedEdge {
            to,
            ordinal: 0,
            actor,
        };
        let lift = Lift {
            nodes: vec![(0, 0); 3],
            out: vec![vec![edge(1, b)], vec![edge(2, a)], vec![edge(0, a)]],
            enabled: vec![1 << a | 1 << b, 1 << a, 1 << a | 1 << b],
        };
        let cycle = lift.fair_cycle(&[0, 1, 2]).expect("a fair cycle");
        assert_eq!(cycle.start, 0);
        assert_eq!(cycle.steps, [(0, 0), (1, 0), (2, 0)]);
    }

    /// Faults are owed to no one: a fault enabled throughout a cycle does
    /// not make it unfair.
    #[test]
    fn an_enabled_fault_is_not_owed_a_step() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, main(0), ID),
            (1, 0, Agent::NONE, ID),
            (2, 1, main(0), ID),
            (2, 0, Agent::NONE, ID),
        ]);
        assert!(find(&g).is_some());
    }

    /// Client 0 acts on both edges, but each edge swaps the numbering: the
    /// two concrete clients take turns, so the cycle is fair. Read without
    /// the renumbering, client 1 (able to move throughout) would never move.
    #[test]
    fn clients_are_followed_through_the_symmetry_renumbering() {
        let edges = |r| {
            graph(&[
                (0, 1, main(0), ID),
                (1, 2, main(0), r),
                (1, 0, main(1), ID),
                (2, 1, main(0), r),
                (2, 0, main(1), ID),
            ])
        };
        assert!(find(&edges(SWAP)).is_some());
        assert_eq!(find(&edges(ID)), None);
    }

    /// Weak fairness owes a step only to an agent enabled throughout:
    /// client 0's main thread can move in state 1 but not in state 2 and
    /// never moves in the cycle, which is fair all the same. The witness
    /// shows it disabled on the way instead of waiting for it to act.
    #[test]
    fn an_agent_disabled_somewhere_in_the_cycle_is_owed_no_step() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, main(1), ID),
            (1, 0, main(0), ID),
            (2, 1, main(1), ID),
        ]);
        let lasso = find(&g).expect("a fair cycle");
        assert_eq!(lasso.start, 1);
        assert_eq!(lasso.cycle, vec![(1, 0, ID), (2, 0, ID)]);
    }

    /// The witness walks for each agent still owed a step: client 1's main
    /// thread moves on the walk that waits for client 0's, so no second
    /// walk is made for it and the cycle is the two steps it needs.
    #[test]
    fn an_agent_that_moved_on_the_way_is_not_walked_for_again() {
        let g = graph(&[
            (0, 1, main(0), ID),
            (1, 2, main(1), ID),
            (1, 0, main(0), ID),
            (2, 1, main(0), ID),
            (2, 0, main(1), ID),
        ]);
        let lasso = find(&g).expect("a fair cycle");
        assert_eq!(lasso.start, 1);
        assert_eq!(lasso.cycle, vec![(1, 0, ID), (2, 0, ID)]);
    }

    #[test]
    fn renumberings_pack_canonicalize_permutations() {
        let r = Renumbering::of(&[2, 0, 1]);
        assert_eq!((r.old(0), r.old(1), r.old(2), r.old(3)), (2, 0, 1, 3));
        assert_eq!((r.new_position(2), r.new_position(0)), (0, 1));
    }
}
