//! The state graph kept for the starvation analysis: compressed adjacency,
//! per edge the agent that acted and how the symmetry reduction renumbered
//! the clients, per state who waits. Who can move in a state is read off its
//! edges: every enabled action is one.

use super::codes::Codes;
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
        // Taken for every transition the merger keeps: `kept`'s inverse in
        // one pass (the first position holding each client, as
        // `new_position` finds it) instead of a search per position.
        let mut inverse = [0u8, 1, 2, 3, 4, 5, 6, 7];
        for j in (0..8u8).rev() {
            if let Some(slot) = inverse.get_mut(usize::from(kept.old(j))) {
                *slot = j;
            }
        }
        let mut r = 0u32;
        for (k, &j) in inverse.iter().enumerate() {
            r |= u32::from(reached.old(j)) << (4 * k);
        }
        Renumbering(r)
    }

    /// The new position of the client that was at `i`.
    pub fn new_position(self, i: u8) -> u8 {
        (0..8).find(|&j| self.old(j) == i).unwrap_or(i)
    }
}

/// The target of an edge the partial-order reduction did not take
/// ([`crate::zk::check::por`]): it leads nowhere in the graph and only says that its
/// agent could move in the state, for the fairness judgement.
pub const NOT_TAKEN: u32 = u32::MAX;

/// The graph kept for the starvation analysis (compressed adjacency).
pub struct Graph {
    pub offsets: Column<u32>,
    pub targets: Column<u32>,
    /// Per edge: the agent that acted ([`Agent::pack`](crate::engine::agent::Agent::pack),
    /// or [`Agent::NONE`](crate::engine::agent::Agent::NONE) for a fault or the
    /// reaper), its client numbered as in the edge's source state, and how
    /// the symmetry reduction renumbered the clients.
    labels: Codes<(u8, Renumbering)>,
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
            labels: Codes::default(),
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
        self.labels.push((actor, renumbering));
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
        self.labels.get(e).1
    }

    /// The agent that took edge `e`, packed.
    pub fn actor(&self, e: usize) -> u8 {
        self.labels.get(e).0
    }

    /// The edges of state `v`, as indices into `targets`.
    pub fn edges(&self, v: u32) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// Estimated bytes held.
    pub fn bytes(&self) -> usize {
        self.targets.bytes()
            + self.labels.bytes()
            + self.offsets.bytes()
            + self.waiting.bytes()
            + self.free.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `between` as its doc states it, a search per position.
    fn between_by_search(reached: Renumbering, kept: Renumbering) -> Renumbering {
        let mut r = 0u32;
        for k in 0..8u8 {
            r |= u32::from(reached.old(kept.new_position(k))) << (4 * k);
        }
        Renumbering(r)
    }

    /// Each new position holds the old one the permutation names, for up
    /// to eight clients; positions past the permutation keep their own.
    #[test]
    fn of_puts_each_old_position_at_its_new_one() {
        let perms: [&[u8]; 4] = [
            &[1, 0, 2],
            &[3, 2, 1, 0],
            &[1, 0, 3, 2, 5, 4],
            &[7, 6, 5, 4, 3, 2, 1, 0],
        ];
        for perm in perms {
            let r = Renumbering::of(perm);
            for j in 0..8u8 {
                let want = perm.get(j as usize).copied().unwrap_or(j);
                assert_eq!(r.old(j), want, "{perm:?} at {j}");
            }
        }
    }

    /// The memory bound reads the graph's estimate: each column counts,
    /// the stuck-lock one (`free`, a byte a state) too.
    #[test]
    fn the_estimate_counts_every_column() {
        let mut g = Graph::default();
        let empty = g.bytes();
        for i in 0..10_000u32 {
            g.waiting.push(1);
            g.free.push(i % 2 == 0);
        }
        assert_eq!(g.free.len(), 10_000);
        let grew = g.bytes() - empty;
        assert!(grew >= 20_000, "{grew} bytes for 10,000 states' two bytes");
    }

    #[test]
    fn between_agrees_with_the_search_it_replaces() {
        // Permutations of up to 8 clients, and arbitrary nibbles too (a
        // renumbering is only ever a permutation, but the two must agree
        // on anything).
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 9) as usize;
            let mut perm: Vec<u8> = (0..n as u8).collect();
            for i in (1..n).rev() {
                perm.swap(i, (x >> (8 + i)) as usize % (i + 1));
            }
            let a = Renumbering::of(&perm);
            let b = Renumbering(((x >> 32) as u32) & 0x7777_7777);
            let c = Renumbering(x as u32 & 0x7777_7777);
            for (reached, kept) in [(a, a), (a, b), (b, a), (b, c), (c, Renumbering::IDENTITY)] {
                assert_eq!(
                    Renumbering::between(reached, kept),
                    between_by_search(reached, kept)
                );
            }
        }
    }
}
