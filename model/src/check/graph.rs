//! The state graph kept for the starvation analysis: compressed adjacency,
//! per edge the agent that acted and how the symmetry reduction renumbered
//! the clients, per state who waits. Who can move in a state is read off its
//! edges: every enabled action is one.

use super::column::Column;

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

    /// An edge's renumbering: the action reached a state whose clients sort
    /// in `reached` order, and the explorer keeps that state as an earlier
    /// one whose clients sort in `kept` order. The client at position `k`
    /// of the kept state is the one at `reached.old(kept.new_position(k))`
    /// of the reached state (which numbers clients as the edge's source).
    pub fn between(reached: Renumbering, kept: Renumbering) -> Renumbering {
        let mut r = Self::IDENTITY.0;
        for k in 0..8u8 {
            let old = reached.old(kept.new_position(k));
            r = (r & !(0xF << (4 * k))) | (u32::from(old) << (4 * k));
        }
        Renumbering(r)
    }

    /// The new position of the client that was at `i`.
    pub fn new_position(self, i: u8) -> u8 {
        (0..8).find(|&j| self.old(j) == i).unwrap_or(i)
    }
}

/// The graph kept for the starvation analysis (compressed adjacency).
pub struct Graph {
    pub offsets: Column<u32>,
    pub targets: Column<u32>,
    /// The agent that acted on each edge ([`Agent::pack`](super::system::Agent::pack), or
    /// [`Agent::NONE`] for a fault or the reaper), its client numbered as in
    /// the edge's source state.
    pub actors: Column<u8>,
    /// Per edge: how the symmetry reduction renumbered the clients, as an
    /// index into `numberings` (a run meets few of the 8! permutations).
    renumberings: Column<u16>,
    /// The distinct renumberings met, and where each is in that list.
    numberings: Vec<Renumbering>,
    numbering_index: std::collections::HashMap<Renumbering, u16>,
    /// Per state: bit c set if client c is waiting.
    pub waiting: Column<u8>,
    /// Per state, only for a space that judges stuck lock: the lock is
    /// free in it ([`super::space::Space::acquirable`]).
    pub free: Column<bool>,
}

impl Default for Graph {
    fn default() -> Graph {
        Graph {
            offsets: [0].into_iter().collect(),
            targets: Column::default(),
            actors: Column::default(),
            renumberings: Column::default(),
            numberings: Vec::new(),
            numbering_index: std::collections::HashMap::new(),
            waiting: Column::default(),
            free: Column::default(),
        }
    }
}

impl Graph {
    /// The next state's node, with the mask of who waits in it.
    pub fn node(&mut self, waiting: u8) {
        self.waiting.push(waiting);
    }

    /// One edge of the current node.
    pub fn edge(&mut self, target: u32, actor: u8, renumbering: Renumbering) {
        self.targets.push(target);
        self.actors.push(actor);
        let next = self.numberings.len() as u16;
        let i = *self.numbering_index.entry(renumbering).or_insert(next);
        if i == next {
            self.numberings.push(renumbering);
        }
        self.renumberings.push(i);
    }

    /// The current node's edges are all in.
    pub fn end_node(&mut self) {
        self.offsets.push(self.targets.len() as u32);
    }

    /// A node that is not expanded (at the depth bound): no edges, and
    /// nobody waits in it for the analysis.
    pub fn unexpanded(&mut self) {
        self.waiting.push(0);
        self.end_node();
    }

    /// How the clients were renumbered along edge `e`.
    pub fn renumbering(&self, e: usize) -> Renumbering {
        self.numberings[self.renumberings[e] as usize]
    }

    /// The edges of state `v`, as indices into `targets`.
    pub fn edges(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// Estimated bytes held.
    pub fn bytes(&self) -> usize {
        self.targets.bytes()
            + self.actors.bytes()
            + self.renumberings.bytes()
            + self.offsets.bytes()
            + self.waiting.bytes()
            + self.free.bytes()
    }
}
