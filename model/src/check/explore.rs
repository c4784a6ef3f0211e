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
use super::property::{self, Property};
use super::starvation;
use super::system::{Action, System};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// Which bound ended a run early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    MaxStates(usize),
    MaxDepth(usize),
    /// Estimated bytes of the checker's tables.
    MaxMemory(usize),
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::MaxStates(n) => write!(f, "max-states ({n})"),
            Bound::MaxDepth(n) => write!(f, "max-depth ({n})"),
            Bound::MaxMemory(n) => write!(f, "max-memory ({} MB)", n >> 20),
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

/// A renumbering of at most 8 clients: the client at new position `j` was
/// at old position `self.old(j)`, four bits per position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Renumbering(pub u32);

impl Renumbering {
    pub const IDENTITY: Renumbering = Renumbering(0x7654_3210);

    /// From `canonicalize`'s permutation: new position `j` ← old `perm[j]`.
    pub fn of(perm: &[u8]) -> Renumbering {
        let mut r = Self::IDENTITY.0;
        for (j, &i) in perm.iter().enumerate() {
            r = (r & !(0xF << (4 * j))) | (u32::from(i) << (4 * j));
        }
        Renumbering(r)
    }

    /// The old position of the client now at `j`.
    pub fn old(self, j: u8) -> u8 {
        ((self.0 >> (4 * u32::from(j))) & 0xF) as u8
    }

    /// The new position of the client that was at `i`.
    pub fn new_position(self, i: u8) -> u8 {
        (0..8).find(|&j| self.old(j) == i).unwrap_or(i)
    }
}

/// The graph kept for the starvation analysis (compressed adjacency).
pub struct Graph {
    pub offsets: Vec<u32>,
    pub targets: Vec<u32>,
    /// The client that acted on each edge (`u8::MAX` for none), numbered
    /// as in the edge's source state.
    pub actors: Vec<u8>,
    /// Per edge: how the symmetry reduction renumbered the clients, packed
    /// four bits per position (see [`Renumbering`]).
    pub renumberings: Vec<Renumbering>,
    /// Per state: bit c set if client c is waiting.
    pub waiting: Vec<u8>,
    /// Per state: bit c set if client c has a non-fault action enabled.
    pub enabled: Vec<u8>,
    pub parents: Vec<(u32, u16)>,
}

pub fn explore(cfg: &CheckConfig) -> Exploration {
    let start = Instant::now();
    let mut init = System::initial(cfg);
    if cfg.symmetry {
        init.canonicalize();
    }
    let mut index: HashMap<u64, u32, BuildHasherDefault<Identity>> = HashMap::default();
    let mut parents: Vec<(u32, u16)> = vec![(u32::MAX, 0)];
    index.insert(fingerprint(&init), 0);
    let mut graph = cfg.starvation.then(|| Graph {
        offsets: vec![0],
        targets: Vec::new(),
        actors: Vec::new(),
        renumberings: Vec::new(),
        waiting: Vec::new(),
        enabled: Vec::new(),
        parents: Vec::new(),
    });
    let mut found: BTreeMap<Property, Path> = BTreeMap::new();
    let mut queue: VecDeque<(u32, System)> = VecDeque::new();
    for p in property::STATE_PROPERTIES {
        if property::violated_in(p, &init) {
            found.insert(
                p,
                Path {
                    ordinals: vec![],
                    cycle_start: None,
                },
            );
        }
    }
    let state_bytes = approx_state_bytes(&init);
    queue.push_back((0, init));
    let mut depth_of_level_end = 1usize; // states with id < this are at `depth`
    let mut depth = 0usize;
    let mut transitions = 0usize;
    let mut bound = None;
    let mut actions = Vec::new();
    let mut peak_queue = 0usize;
    let mut peak_bytes = 0usize;

    while let Some((id, state)) = queue.pop_front() {
        if id as usize >= depth_of_level_end {
            depth += 1;
            depth_of_level_end = parents.len();
        }
        peak_queue = peak_queue.max(queue.len() + 1);
        state.actions(&mut actions);
        let progress = actions.iter().any(|a| !a.is_fault());
        if !found.contains_key(&Property::Deadlock) && property::stuck(&state, progress) {
            found.insert(Property::Deadlock, trace_to(&parents, id));
        }
        if depth >= cfg.max_depth {
            // States at the bound are judged but not expanded.
            if !actions.is_empty() {
                bound = Some(Bound::MaxDepth(cfg.max_depth));
            }
            if let Some(g) = graph.as_mut() {
                g.waiting.push(0);
                g.enabled.push(0);
                g.offsets.push(g.targets.len() as u32);
            }
            continue;
        }
        if let Some(g) = graph.as_mut() {
            let mut w = 0u8;
            let mut e = 0u8;
            for (c, p) in state.peers.iter().enumerate() {
                if p.client.is_waiting() {
                    w |= 1 << c;
                }
            }
            for a in actions.iter().filter(|a| !a.is_fault()) {
                if let Some(c) = a.client() {
                    e |= 1 << c;
                }
            }
            g.waiting.push(w);
            g.enabled.push(e);
        }
        for (k, &a) in actions.iter().enumerate() {
            let mut next = state.clone();
            let fx = next.apply(a, false);
            let renumbering = if cfg.symmetry {
                Renumbering::of(&next.canonicalize())
            } else {
                Renumbering::IDENTITY
            };
            transitions += 1;
            if !found.contains_key(&Property::Herd) && property::herd(&state, &fx) {
                let mut t = trace_to(&parents, id);
                t.ordinals.push(k as u16);
                found.insert(Property::Herd, t);
            }
            let fp = fingerprint(&next);
            let target = match index.get(&fp) {
                Some(&t) => t,
                None => {
                    let t = parents.len() as u32;
                    index.insert(fp, t);
                    parents.push((id, k as u16));
                    for p in property::STATE_PROPERTIES {
                        if !found.contains_key(&p) && property::violated_in(p, &next) {
                            found.insert(p, trace_to(&parents, t));
                        }
                    }
                    if parents.len() > cfg.max_states {
                        bound = Some(Bound::MaxStates(cfg.max_states));
                    }
                    if parents.len().is_multiple_of(4096) {
                        let used =
                            table_bytes(&index, &parents, queue.len(), state_bytes, graph.as_ref());
                        peak_bytes = peak_bytes.max(used);
                        if used > cfg.max_memory {
                            bound = Some(Bound::MaxMemory(cfg.max_memory));
                        }
                    }
                    queue.push_back((t, next));
                    t
                }
            };
            if let Some(g) = graph.as_mut() {
                g.targets.push(target);
                g.actors.push(a.client().unwrap_or(u8::MAX));
                g.renumberings.push(renumbering);
            }
        }
        if let Some(g) = graph.as_mut() {
            g.offsets.push(g.targets.len() as u32);
        }
        if bound.is_some() {
            break;
        }
    }

    peak_bytes = peak_bytes.max(table_bytes(
        &index,
        &parents,
        peak_queue,
        state_bytes,
        graph.as_ref(),
    ));
    if bound.is_none() {
        if let Some(mut g) = graph {
            g.parents = parents.clone();
            if let Some(cx) = starvation::find(&g) {
                found.insert(Property::Starvation, cx);
            }
        }
    }
    let found = found
        .into_iter()
        .map(|(p, path)| (p, resolve(cfg, &path)))
        .collect();
    Exploration {
        states: parents.len(),
        transitions,
        depth,
        bound,
        found,
        elapsed_ms: start.elapsed().as_millis(),
        peak_bytes,
    }
}

/// A state's size with its heap parts, roughly: the struct, and per client
/// its own struct plus a few short strings and queues.
fn approx_state_bytes(s: &System) -> usize {
    std::mem::size_of::<System>()
        + s.peers.len() * (std::mem::size_of::<super::system::Peer>() + 320)
        + s.server.nodes().count() * 160
}

/// Estimated bytes held by the explorer's tables now.
fn table_bytes(
    index: &HashMap<u64, u32, BuildHasherDefault<Identity>>,
    parents: &[(u32, u16)],
    queued: usize,
    state_bytes: usize,
    graph: Option<&Graph>,
) -> usize {
    let g = graph.map_or(0, |g| {
        g.targets.capacity() * 4
            + g.actors.capacity()
            + g.renumberings.capacity() * 4
            + g.offsets.capacity() * 4
            + g.waiting.capacity() * 2
    });
    index.capacity() * 17 + parents.len() * 8 + queued * state_bytes + g
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
