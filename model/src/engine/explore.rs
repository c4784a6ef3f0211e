//! Breadth-first exploration with parent pointers: every counterexample it
//! returns is a shortest one.
//!
//! stateright's own BFS may report a longer trace than exists (a later
//! discovery overwrites an earlier one), so the checker walks the model's
//! state graph itself. Each state is stored as a 64-bit fingerprint plus a
//! parent pointer and the index of the action that reached it; traces are
//! rebuilt by replaying those actions from the initial state. Levels are
//! expanded in order, so the first state (or transition) found to violate a
//! property is at minimum depth. When asked, the edges are kept too, for the
//! starvation analysis.

use super::codes::Codes;
use super::expand;
use super::graph::{Graph, Renumbering, NOT_TAKEN};
use super::growth::Growth;
use super::lasso;
use super::level::{self, Level};
use super::path::{resolve_in, trace_to, Counterexample, Parents, Path};
use super::pipeline;
use super::space::{Limits, Space};
use super::starvation;
use super::stuck;
use super::visited::Visited;
use crate::engine::harness::Property;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::Instant;

/// Which bound ended a run early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    MaxStates(usize),
    MaxDepth(usize),
    /// Wall-clock time.
    MaxTime(std::time::Duration),
    /// Estimated bytes of the checker's tables.
    MaxMemory(usize),
    /// The caller asked the run to stop (Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::MaxStates(n) => write!(f, "max-states ({n})"),
            Bound::MaxDepth(n) => write!(f, "max-depth ({n})"),
            Bound::MaxTime(t) => write!(f, "max-time ({} s)", t.as_secs()),
            Bound::MaxMemory(n) => write!(f, "max-memory ({} MB)", n >> 20),
            Bound::Interrupted => write!(f, "interrupted"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Exploration<A> {
    pub states: usize,
    pub transitions: usize,
    /// Deepest BFS level reached.
    pub depth: usize,
    /// `None` if the whole reachable graph was explored.
    pub bound: Option<Bound>,
    pub found: BTreeMap<Property, Counterexample<A>>,
    pub elapsed_ms: u128,
    /// Bytes held by the checker's tables at their largest (an estimate from
    /// their capacities, not the allocator's figure).
    pub peak_bytes: usize,
    /// Bit `c` is set if client `c` holds the lock in some explored state.
    pub acquired: u8,
    /// For a run stopped by a bound: why the space was still growing.
    pub growth: Option<String>,
    /// States of which the partial-order reduction took only an ample set
    /// of actions ([`crate::zk::check::por`]; 0 with it off).
    pub reduced: usize,
}

impl<A> Exploration<A> {
    /// A run that explored nothing (an invalid configuration).
    pub fn nothing() -> Exploration<A> {
        Exploration {
            states: 0,
            transitions: 0,
            depth: 0,
            bound: Some(Bound::MaxStates(0)),
            found: BTreeMap::new(),
            elapsed_ms: 0,
            peak_bytes: 0,
            acquired: 0,
            growth: None,
            reduced: 0,
        }
    }
}

/// How far a run has come, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub states: usize,
    pub transitions: usize,
    pub depth: usize,
    /// Estimated bytes of the checker's tables.
    pub table_bytes: usize,
    pub elapsed: std::time::Duration,
}

/// Explores any backend's [`Space`], telling `progress` how far it has
/// come after every batch.
pub fn explore_space<X: Space>(
    space: &X,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Exploration<X::Action> {
    let start = Instant::now();
    let limits = space.limits();
    let (mut search, init, mut visited) = Search::new(space);
    let mut level = level::first(init);
    // The id of the level's first state.
    let mut first = 0usize;
    let mut before = 1usize;
    while !level.is_empty() {
        // A state at the depth bound is judged, not expanded, and the
        // search goes on judging the rest of the last level; the other
        // bounds stop it at once.
        let expand = search.depth < limits.max_depth;
        let level_end = first + level.len();
        // Room in the visited set for as many new states as this level's
        // growth predicts (what does not fit, the merger keeps apart).
        let growth = level.len() as f64 / before as f64;
        let expected = (level.len() as f64 * growth * 1.25) as usize;
        let mut next = Level::default();
        before = level.len();
        visited.reserve(expected);
        search.visited_bytes = visited.bytes();
        let known = pipeline::Known {
            visited: &visited,
            before: level_end,
        };
        let mut merger = LevelMerger {
            search: &mut search,
            visited: &visited,
            next: &mut next,
            progress: &mut *progress,
            start,
            first,
            level_end,
        };
        let went_on = pipeline::run_level(space, known, level, expand, &mut merger);
        // What this level found that the visited set had no room for joins
        // it now, for the next level's workers to read.
        visited.absorb(&std::mem::take(&mut search.overflow));
        search.growth.end_level(search.depth + 1, !went_on);
        if !went_on {
            break;
        }
        first = level_end;
        level = next;
        if !level.is_empty() {
            search.depth += 1;
        }
    }
    // The analyses after the search need no visited set: its memory goes
    // back before theirs is taken.
    drop(visited);
    search.finish(start)
}

/// Takes one level's batches into the search, in order, and reports
/// progress after each; stops at a bound, an interrupt or the time limit.
struct LevelMerger<'a, 'c, X: Space> {
    search: &'a mut Search<'c, X>,
    /// The visited set, which this level's new states join as they are
    /// numbered.
    visited: &'a Visited,
    next: &'a mut Level<X::State>,
    progress: &'a mut dyn FnMut(Progress) -> ControlFlow<()>,
    start: Instant,
    /// The ids of the level's first state and of the one after its last.
    first: usize,
    level_end: usize,
}

impl<X: Space> pipeline::Merge<X::State> for LevelMerger<'_, '_, X> {
    fn merge(&mut self, at: usize, batch: expand::Batch<X::State>) -> bool {
        let (from, level_end) = (self.first + at, self.level_end);
        let search = &mut *self.search;
        let kept = self.next.len();
        let went_on = search.merge(batch, (from, level_end), self.visited, self.next);
        // Once a batch: the interner's lock, taken for every state, was a
        // quarter of the merge's time.
        for states in self.next.tail_mut(kept) {
            search.space.keep(states);
        }
        let merged_to = (from + level::BATCH).min(level_end);
        let asked = (self.progress)(Progress {
            states: search.parents.len(),
            transitions: search.transitions,
            depth: search.depth,
            table_bytes: search.table_bytes(level_end - merged_to + self.next.len()),
            elapsed: self.start.elapsed(),
        });
        if asked.is_break() {
            search.bound = Some(Bound::Interrupted);
            return false;
        }
        if let Some(limit) = search.limits.max_time.filter(|&t| self.start.elapsed() > t) {
            search.bound = Some(Bound::MaxTime(limit));
            return false;
        }
        went_on
    }

    fn found(&self, fingerprint: u64) -> Option<u32> {
        self.search.overflow.get(fingerprint)
    }
}

/// The BFS in progress: the visited set, the tree of parent pointers, and
/// what has been found so far.
struct Search<'c, X: Space> {
    space: &'c X,
    limits: Limits,
    /// The states this level discovered that the visited set had no room
    /// for (it grows between levels only: workers read it).
    overflow: Visited,
    /// Bytes of the visited set.
    visited_bytes: usize,
    /// Per state: its parent and the ordinal of the action that reached it.
    parents: Parents,
    graph: Option<Graph>,
    /// Per state, with the graph: the order its clients sort in (to follow
    /// a client along an edge into a state kept under another numbering).
    orders: Codes<Renumbering>,
    found: BTreeMap<Property, Path>,
    /// The level being expanded.
    depth: usize,
    transitions: usize,
    bound: Option<Bound>,
    state_bytes: usize,
    peak_queue: usize,
    peak_bytes: usize,
    acquired: u8,
    growth: Growth,
    reduced: usize,
}

impl<'c, X: Space> Search<'c, X> {
    /// The search with only the initial state, and that state.
    fn new(space: &'c X) -> (Search<'c, X>, X::State, Visited) {
        let limits = space.limits();
        let init = space.initial();
        let canon = space.canonical(&init);
        let mut visited = Visited::default();
        visited.insert_growing(canon.fingerprint, 0);
        let mut found = BTreeMap::new();
        for &p in space.state_properties() {
            if space.violated_in(p, &init) {
                found.insert(
                    p,
                    Path {
                        ordinals: Vec::new(),
                        cycle_start: None,
                    },
                );
            }
        }
        let search = Search {
            space,
            limits,
            overflow: Visited::default(),
            visited_bytes: visited.bytes(),
            parents: {
                let mut p = Parents::default();
                p.push((u32::MAX, 0));
                p
            },
            state_bytes: space.state_bytes(&init),
            graph: limits.starvation.then(Graph::default),
            orders: {
                let mut o = Codes::default();
                if limits.starvation {
                    o.push(canon.order);
                }
                o
            },
            found,
            depth: 0,
            transitions: 0,
            bound: None,
            peak_queue: 0,
            peak_bytes: 0,
            acquired: space.holders(&init),
            growth: Growth::default(),
            reduced: 0,
        };
        (search, init, visited)
    }

    /// Takes in an expanded batch whose first state has id `from`, in
    /// order: judges each parent, numbers the new states and queues them in
    /// `next` (the caller keeps them: [`Space::keep`]), keeps the edges.
    /// Returns `false` if a bound other than the depth stopped the run
    /// (after the parent during which it was hit).
    fn merge(
        &mut self,
        batch: expand::Batch<X::State>,
        (from, level_end): (usize, usize),
        visited: &Visited,
        next: &mut Level<X::State>,
    ) -> bool {
        let mut successors = batch.successors.into_iter();
        let mut fresh = batch.fresh;
        for (i, parent) in batch.parents.into_iter().enumerate() {
            let id = (from + i) as u32;
            // The states still queued: the rest of this level and the next.
            let queued = level_end - from - i - 1 + next.len();
            self.peak_queue = self.peak_queue.max(queued + 1);
            if parent.stuck && !self.found.contains_key(&Property::Deadlock) {
                self.found
                    .insert(Property::Deadlock, trace_to(&self.parents, id));
            }
            if self.depth >= self.limits.max_depth {
                // States at the bound are judged but not expanded.
                if parent.has_actions {
                    self.bound = Some(Bound::MaxDepth(self.limits.max_depth));
                }
                if let Some(g) = self.graph.as_mut() {
                    g.unexpanded();
                    // The graph is read only if no state here had a step
                    // left: then this one is where its run ends, and its
                    // lock is as free as the state says.
                    if self.space.judges_stuck_lock() {
                        g.free.push(parent.free);
                    }
                }
                continue;
            }
            self.reduced += usize::from(parent.reduced);
            // The starvation analysis reads the edges of the states where a
            // client waits, and only those; stuck lock reads every edge.
            let mut edges = false;
            if let Some(g) = self.graph.as_mut() {
                g.node(parent.waiting);
                if self.space.judges_stuck_lock() {
                    g.free.push(parent.free);
                }
                edges = parent.waiting != 0 || self.space.judges_stuck_lock();
            }
            for (k, succ) in successors.by_ref().take(parent.count).enumerate() {
                let at = (id, k as u16);
                let rest = level_end - from - i - 1;
                self.step(at, edges, succ, &mut fresh, (visited, rest), next);
            }
            if let Some(g) = self.graph.as_mut() {
                g.end_node();
            }
            if self.bound.is_some() {
                return false;
            }
        }
        true
    }

    /// The id of a state numbered already, if it was.
    fn found(&self, visited: &Visited, fingerprint: u64) -> Option<u32> {
        visited
            .get(fingerprint)
            .or_else(|| self.overflow.get(fingerprint))
    }

    /// Takes in transition `k` of state `id`, keeping its edge if `edge`;
    /// `states` are the batch's built states, `rest` states of the level
    /// are still to be merged after `id`.
    fn step(
        &mut self,
        (id, k): (u32, u16),
        edge: bool,
        succ: expand::Successor,
        states: &mut [Option<(X::State, u8)>],
        (visited, rest): (&Visited, usize),
        next: &mut Level<X::State>,
    ) {
        let expand::Successor {
            fingerprint,
            order,
            actor,
            herd,
            known,
            fresh,
            not_taken,
        } = succ;
        if not_taken {
            // Who could have moved, for the fairness judgement; no state.
            if let Some(g) = self.graph.as_mut().filter(|_| edge) {
                g.edge(NOT_TAKEN, actor, Renumbering::IDENTITY);
            }
            return;
        }
        self.transitions += 1;
        if herd && !self.found.contains_key(&Property::Herd) {
            let mut t = trace_to(&self.parents, id);
            t.ordinals.push(k);
            self.found.insert(Property::Herd, t);
        }
        let target = match known.or_else(|| self.found(visited, fingerprint)) {
            Some(t) => t,
            None => {
                let fresh = fresh
                    .and_then(|i| states.get_mut(i as usize)?.take())
                    .expect("a successor no batch knew comes with its state");
                self.discover((id, k), (fingerprint, order), fresh, (visited, rest), next)
            }
        };
        if let Some(g) = self.graph.as_mut().filter(|_| edge) {
            let kept = self.orders.get(target as usize);
            g.edge(target, actor, Renumbering::between(order, kept));
        }
    }

    /// A new state, reached from `parent` by its action `k`: numbers it,
    /// judges it (`violated`: a bit per state property), checks the bounds,
    /// queues it.
    fn discover(
        &mut self,
        (parent, k): (u32, u16),
        (fingerprint, order): (u64, Renumbering),
        (state, violated): (X::State, u8),
        (visited, rest): (&Visited, usize),
        next: &mut Level<X::State>,
    ) -> u32 {
        let t = self.parents.len() as u32;
        if !visited.insert(fingerprint, t) {
            self.overflow.insert_growing(fingerprint, t);
        }
        self.parents.push((parent, k));
        self.acquired |= self.space.holders(&state);
        self.growth.saw(self.space.growth_marks(&state));
        if self.graph.is_some() {
            self.orders.push(order);
        }
        for (i, &p) in self.space.state_properties().iter().enumerate() {
            if violated & (1 << i) != 0 && !self.found.contains_key(&p) {
                self.found.insert(p, trace_to(&self.parents, t));
            }
        }
        if self.parents.len() > self.limits.max_states {
            self.bound = Some(Bound::MaxStates(self.limits.max_states));
        }
        if self.parents.len().is_multiple_of(4096) {
            let used = self.table_bytes(rest + next.len());
            self.peak_bytes = self.peak_bytes.max(used);
            if used > self.limits.max_memory {
                self.bound = Some(Bound::MaxMemory(self.limits.max_memory));
            }
        }
        next.push(state);
        t
    }

    /// Estimated bytes held by the tables, with `queued` states waiting.
    fn table_bytes(&self, queued: usize) -> usize {
        let g = self.graph.as_ref().map_or(0, Graph::bytes);
        self.visited_bytes
            + self.overflow.bytes()
            + self.parents.bytes()
            + self.orders.bytes()
            + queued * self.state_bytes
            + self.space.kept_bytes()
            + g
    }

    /// The run's result; the starvation analysis runs here, on a complete
    /// graph only.
    fn finish(mut self, start: Instant) -> Exploration<X::Action> {
        self.peak_bytes = self.peak_bytes.max(self.table_bytes(self.peak_queue));
        if self.bound.is_none() {
            if let Some(g) = self
                .graph
                .as_ref()
                .filter(|_| self.space.judges_stuck_lock())
            {
                if let Some(v) = stuck::find(g) {
                    self.found
                        .insert(Property::StuckLock, trace_to(&self.parents, v));
                }
            }
            if let Some(g) = self.graph.take() {
                if let Some(lasso) = starvation::find(&g) {
                    let path = lasso::concrete(self.space, &self.parents, &lasso);
                    self.found.insert(Property::Starvation, path);
                }
            }
        }
        let space = self.space;
        Exploration {
            states: self.parents.len(),
            transitions: self.transitions,
            depth: self.depth,
            bound: self.bound,
            found: self
                .found
                .into_iter()
                .map(|(p, path)| (p, resolve_in(space, &path)))
                .collect(),
            elapsed_ms: start.elapsed().as_millis(),
            peak_bytes: self.peak_bytes,
            acquired: self.acquired,
            reduced: self.reduced,
            growth: self
                .bound
                .filter(|b| *b != Bound::Interrupted)
                .and_then(|_| {
                    self.growth
                        .explain(space.abstracted(), space.growth_words())
                }),
        }
    }
}
