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

use super::config::CheckConfig;
use super::graph::{Graph, Renumbering};
use super::property::{self, Property};
use super::starvation;
use super::system::{Action, System};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::ControlFlow;
use std::time::Instant;

/// Which bound ended a run early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    MaxStates(usize),
    MaxDepth(usize),
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
            Bound::MaxMemory(n) => write!(f, "max-memory ({} MB)", n >> 20),
            Bound::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// A counterexample: the actions from the initial state, shortest first.
/// For starvation, `cycle_start` marks where the repeating part begins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    pub actions: Vec<Action>,
    pub cycle_start: Option<usize>,
}

/// A path as the explorer records it: the index of the action taken in
/// each state's (deterministic) list of enabled actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub ordinals: Vec<u16>,
    pub cycle_start: Option<usize>,
}

#[derive(Clone, Debug)]
pub struct Exploration {
    pub states: usize,
    pub transitions: usize,
    /// Deepest BFS level reached.
    pub depth: usize,
    /// `None` if the whole reachable graph was explored.
    pub bound: Option<Bound>,
    pub found: BTreeMap<Property, Counterexample>,
    pub elapsed_ms: u128,
    /// Bytes held by the checker's tables at their largest (an estimate from
    /// their capacities, not the allocator's figure).
    pub peak_bytes: usize,
    /// Bit `c` is set if client `c` holds the lock in some explored state
    /// (of the canonical states, under symmetry).
    pub acquired: u8,
}

impl Exploration {
    /// A run that explored nothing (an invalid configuration).
    pub fn nothing() -> Exploration {
        Exploration {
            states: 0,
            transitions: 0,
            depth: 0,
            bound: Some(Bound::MaxStates(0)),
            found: BTreeMap::new(),
            elapsed_ms: 0,
            peak_bytes: 0,
            acquired: 0,
        }
    }
}

/// Fingerprints are already uniform: hash them no further.
#[derive(Default)]
struct Identity(u64);
impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn fingerprint(s: &System) -> u64 {
    // A fixed, seedless hash: the same state has the same fingerprint in
    // every run, on every machine.
    super::fingerprint::fingerprint(s)
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

pub fn explore(cfg: &CheckConfig) -> Exploration {
    explore_with_progress(cfg, &mut |_| ControlFlow::Continue(()))
}

/// [`explore`], telling `progress` how far it has come every 65,536 states;
/// `progress` breaking stops the run ([`Bound::Interrupted`]).
pub fn explore_with_progress(
    cfg: &CheckConfig,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Exploration {
    let start = Instant::now();
    let mut search = Search::new(cfg);
    let mut actions = Vec::new();
    let mut reported = 0;
    while let Some((id, state)) = search.queue.pop_front() {
        if search.parents.len() >= reported + (1 << 16) {
            reported = search.parents.len();
            let asked = progress(Progress {
                states: reported,
                transitions: search.transitions,
                depth: search.depth,
                table_bytes: search.table_bytes(search.queue.len()),
                elapsed: start.elapsed(),
            });
            if asked.is_break() {
                search.bound = Some(Bound::Interrupted);
                break;
            }
        }
        // A state at the depth bound is judged, not expanded, and the
        // search goes on judging the rest of the last level; the other
        // bounds stop it at once.
        if search.visit(id, state, &mut actions) && search.bound.is_some() {
            break;
        }
    }
    search.finish(start)
}

/// The BFS in progress: the visited set, the tree of parent pointers, the
/// frontier, and what has been found so far.
struct Search<'c> {
    cfg: &'c CheckConfig,
    index: HashMap<u64, u32, BuildHasherDefault<Identity>>,
    /// Per state: its parent and the ordinal of the action that reached it.
    parents: Vec<(u32, u16)>,
    queue: VecDeque<(u32, System)>,
    graph: Option<Graph>,
    found: BTreeMap<Property, Path>,
    /// States with an id below this are at `depth`.
    depth_of_level_end: usize,
    depth: usize,
    transitions: usize,
    bound: Option<Bound>,
    state_bytes: usize,
    peak_queue: usize,
    peak_bytes: usize,
    acquired: u8,
}

impl<'c> Search<'c> {
    fn new(cfg: &'c CheckConfig) -> Search<'c> {
        let mut init = System::initial(cfg);
        if cfg.symmetry {
            init.canonicalize();
        }
        let mut index: HashMap<u64, u32, BuildHasherDefault<Identity>> = HashMap::default();
        index.insert(fingerprint(&init), 0);
        let acquired = property::holders(&init);
        let mut found = BTreeMap::new();
        for p in property::STATE_PROPERTIES {
            if property::violated_in(p, &init) {
                found.insert(p, trace_to(&[], 0));
            }
        }
        Search {
            cfg,
            index,
            parents: vec![(u32::MAX, 0)],
            state_bytes: approx_state_bytes(&init),
            queue: VecDeque::from([(0, init)]),
            graph: cfg.starvation.then(Graph::default),
            found,
            depth_of_level_end: 1,
            depth: 0,
            transitions: 0,
            bound: None,
            peak_queue: 0,
            peak_bytes: 0,
            acquired,
        }
    }

    /// Judges state `id` and expands it, unless it is at the depth bound;
    /// returns whether it was expanded.
    fn visit(&mut self, id: u32, state: System, actions: &mut Vec<Action>) -> bool {
        if id as usize >= self.depth_of_level_end {
            self.depth += 1;
            self.depth_of_level_end = self.parents.len();
        }
        self.peak_queue = self.peak_queue.max(self.queue.len() + 1);
        state.actions(actions);
        let progress = actions.iter().any(|a| !a.is_fault());
        if !self.found.contains_key(&Property::Deadlock) && property::stuck(&state, progress) {
            self.found
                .insert(Property::Deadlock, trace_to(&self.parents, id));
        }
        if self.depth >= self.cfg.max_depth {
            // States at the bound are judged but not expanded.
            if !actions.is_empty() {
                self.bound = Some(Bound::MaxDepth(self.cfg.max_depth));
            }
            if let Some(g) = self.graph.as_mut() {
                g.unexpanded();
            }
            return false;
        }
        if let Some(g) = self.graph.as_mut() {
            g.node(&state, actions);
        }
        for (k, &a) in actions.iter().enumerate() {
            self.step(id, &state, k as u16, a);
        }
        if let Some(g) = self.graph.as_mut() {
            g.end_node();
        }
        true
    }

    /// Takes action `a` (ordinal `k`) from state `id`.
    fn step(&mut self, id: u32, state: &System, k: u16, a: Action) {
        let mut next = state.clone();
        let fx = next.apply(a, false);
        let renumbering = if self.cfg.symmetry {
            Renumbering::of(&next.canonicalize())
        } else {
            Renumbering::IDENTITY
        };
        self.transitions += 1;
        if !self.found.contains_key(&Property::Herd) && property::herd(state, &fx) {
            let mut t = trace_to(&self.parents, id);
            t.ordinals.push(k);
            self.found.insert(Property::Herd, t);
        }
        let target = match self.index.get(&fingerprint(&next)) {
            Some(&t) => t,
            None => self.discover(id, k, next),
        };
        if let Some(g) = self.graph.as_mut() {
            g.edge(target, a.client().unwrap_or(u8::MAX), renumbering);
        }
    }

    /// A new state: numbers it, judges it, checks the bounds, queues it.
    fn discover(&mut self, id: u32, k: u16, next: System) -> u32 {
        let t = self.parents.len() as u32;
        self.index.insert(fingerprint(&next), t);
        self.parents.push((id, k));
        self.acquired |= property::holders(&next);
        for p in property::STATE_PROPERTIES {
            if !self.found.contains_key(&p) && property::violated_in(p, &next) {
                self.found.insert(p, trace_to(&self.parents, t));
            }
        }
        if self.parents.len() > self.cfg.max_states {
            self.bound = Some(Bound::MaxStates(self.cfg.max_states));
        }
        if self.parents.len().is_multiple_of(4096) {
            let used = self.table_bytes(self.queue.len());
            self.peak_bytes = self.peak_bytes.max(used);
            if used > self.cfg.max_memory {
                self.bound = Some(Bound::MaxMemory(self.cfg.max_memory));
            }
        }
        self.queue.push_back((t, next));
        t
    }

    /// Estimated bytes held by the tables, with `queued` states waiting.
    fn table_bytes(&self, queued: usize) -> usize {
        let g = self.graph.as_ref().map_or(0, Graph::bytes);
        self.index.capacity() * 17 + self.parents.len() * 8 + queued * self.state_bytes + g
    }

    /// The run's result; the starvation analysis runs here, on a complete
    /// graph only.
    fn finish(mut self, start: Instant) -> Exploration {
        self.peak_bytes = self.peak_bytes.max(self.table_bytes(self.peak_queue));
        if self.bound.is_none() {
            if let Some(g) = self.graph.take() {
                if let Some(cx) = starvation::find(&g, &self.parents) {
                    self.found.insert(Property::Starvation, cx);
                }
            }
        }
        let cfg = self.cfg;
        Exploration {
            states: self.parents.len(),
            transitions: self.transitions,
            depth: self.depth,
            bound: self.bound,
            found: self
                .found
                .into_iter()
                .map(|(p, path)| (p, resolve(cfg, &path)))
                .collect(),
            elapsed_ms: start.elapsed().as_millis(),
            peak_bytes: self.peak_bytes,
            acquired: self.acquired,
        }
    }
}

/// A state's size with its heap parts, roughly: the struct, and per client
/// its own struct plus a few short strings and queues.
fn approx_state_bytes(s: &System) -> usize {
    std::mem::size_of::<System>()
        + s.peers.len() * (std::mem::size_of::<super::system::Peer>() + 320)
        + s.server.nodes().count() * 160
}

/// The path from the initial state to state `id`.
pub fn trace_to(parents: &[(u32, u16)], id: u32) -> Path {
    Path {
        ordinals: path_indices(parents, id),
        cycle_start: None,
    }
}

/// The action ordinals along the BFS tree from the root to `id`.
pub fn path_indices(parents: &[(u32, u16)], mut id: u32) -> Vec<u16> {
    let mut ks = Vec::new();
    while id != 0 {
        let (p, k) = parents[id as usize];
        ks.push(k);
        id = p;
    }
    ks.reverse();
    ks
}

/// Replays a recorded path into concrete actions. With symmetry the path
/// runs through canonical states, whose client numbering shifts; the replay
/// follows the renaming so the actions it returns drive the plain,
/// uncanonicalized system — the one traces are rendered from.
pub fn resolve(cfg: &CheckConfig, path: &Path) -> Counterexample {
    let mut canon = System::initial(cfg);
    let mut labels: Vec<u8> = (0..cfg.clients).collect();
    let follow = |canon: &mut System, labels: &mut Vec<u8>| {
        if cfg.symmetry {
            let perm = canon.canonicalize();
            *labels = perm.iter().map(|&i| labels[i as usize]).collect();
        }
    };
    follow(&mut canon, &mut labels);
    let mut enabled = Vec::new();
    let mut actions = Vec::new();
    for &k in &path.ordinals {
        canon.actions(&mut enabled);
        let a = enabled[k as usize];
        canon.apply(a, false);
        actions.push(a.relabel(|c| labels[c as usize]));
        follow(&mut canon, &mut labels);
    }
    Counterexample {
        actions,
        cycle_start: path.cycle_start,
    }
}
