//! Why a run that hit a bound was still finding states.
//!
//! A bound says where the run stopped, not why the space was that large.
//! Two causes look alike from outside and call for different answers: a
//! finite space that is merely wider than the bound (raise it, or check a
//! smaller configuration), and a space without end because some counter
//! grows along a path — a polling recipe creates and deletes nodes forever,
//! so zxids and sequence suffixes never repeat and no state is ever seen
//! twice. Per BFS level the search records how many states it found and the
//! largest zxid and tree among them; the explanation reads the last levels.

/// One BFS level's discoveries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// Steps from the initial state.
    pub depth: usize,
    pub states: usize,
    pub max_zxid: i64,
    pub max_nodes: usize,
    /// The run stopped before the level was done.
    pub partial: bool,
}

/// What a backend calls the counters of
/// [`Space::growth_marks`](super::space::Space::growth_marks): its largest
/// id, its server's size and what that size counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrowthWords {
    pub id: &'static str,
    pub size: &'static str,
    pub unit: &'static str,
}

impl GrowthWords {
    pub const ZOOKEEPER: GrowthWords = GrowthWords {
        id: "zxid",
        size: "tree",
        unit: "nodes",
    };
}

#[derive(Clone, Debug, Default)]
pub struct Growth {
    levels: Vec<Level>,
    current: Level,
}

/// Levels looked back over to tell a rising counter from noise.
const WINDOW: usize = 8;

impl Growth {
    /// A state discovered at the level being merged.
    /// `(zxid, nodes)`: its largest id and its server's size
    /// ([`Space::growth_marks`](super::space::Space::growth_marks)).
    pub fn saw(&mut self, (zxid, nodes): (i64, usize)) {
        let c = &mut self.current;
        c.states += 1;
        c.max_zxid = c.max_zxid.max(zxid);
        c.max_nodes = c.max_nodes.max(nodes);
    }

    /// The level whose states are at `depth` ends (`partial`: the run
    /// stopped in it).
    pub fn end_level(&mut self, depth: usize, partial: bool) {
        let done = std::mem::take(&mut self.current);
        self.levels.push(Level {
            depth,
            partial,
            ..done
        });
    }

    /// One sentence for a run stopped by a bound: the last levels' sizes,
    /// and whether counters were still rising, in the backend's `words`.
    pub fn explain(&self, abstracted: bool, words: GrowthWords) -> Option<String> {
        let last = (self.levels.iter().rev())
            .find(|l| l.states > 0 && !l.partial)
            .or_else(|| self.levels.iter().rev().find(|l| l.states > 0))?;
        let at = self.levels.iter().position(|l| l == last)?;
        let early = self.levels[at.saturating_sub(WINDOW)];
        let mut why = format!(
            "depth {} found {} new states (depth {}: {})",
            last.depth, last.states, early.depth, early.states
        );
        let zxid_rose = last.max_zxid > early.max_zxid;
        let tree_grew = last.max_nodes > early.max_nodes;
        if zxid_rose {
            why += &format!(
                "; the largest {} rose from {} to {} over those levels",
                words.id, early.max_zxid, last.max_zxid
            );
        }
        if tree_grew {
            why += &format!(
                "; the largest {} grew from {} to {} {}",
                words.size, early.max_nodes, last.max_nodes, words.unit
            );
        }
        why += if !zxid_rose && !tree_grew {
            " — the counters no longer rise: the space looks finite but wider than the bound; raise the bound or check fewer clients or acquisitions"
        } else if !abstracted {
            " — a recipe that creates and deletes nodes in a loop never repeats a state, since zxids and sequence suffixes keep rising: --abstract-sequences (or [check] abstract_sequences = true) renumbers sequence suffixes by rank and zeroes unread zxids; a recipe that does not loop has a finite space wider than the bound: raise the bound or check fewer clients or acquisitions"
        } else {
            " — the counters still rise with nothing left to abstract (sequence suffixes are, or the backend has none): either the recipe reads what grows (an id, a version), so the space has no end, or it is finite and wider than the bound"
        };
        Some(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn growth(levels: &[(usize, i64, usize)]) -> Growth {
        Growth {
            levels: levels
                .iter()
                .enumerate()
                .map(|(depth, &(states, max_zxid, max_nodes))| Level {
                    depth,
                    states,
                    max_zxid,
                    max_nodes,
                    partial: false,
                })
                .collect(),
            current: Level::default(),
        }
    }

    #[test]
    fn a_rising_zxid_points_at_the_abstraction() {
        let g = growth(&[(1, 0, 1), (3, 2, 2), (5, 4, 2), (7, 6, 2)]);
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("levels");
        assert!(why.contains("rose from 0 to 6"), "{why}");
        assert!(why.contains("--abstract-sequences"), "{why}");
    }

    /// The level the run stopped in is cut short: the explanation reads
    /// the last whole one (depth 1 here), not the few states found before
    /// the bound struck, which would look like a rising zxid.
    #[test]
    fn the_level_a_bound_cut_short_is_read_past() {
        let mut g = growth(&[(9, 4, 3), (20, 4, 3), (2, 9, 5)]);
        if let Some(cut) = g.levels.last_mut() {
            cut.partial = true;
        }
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("levels");
        assert!(why.starts_with("depth 1 found 20 new states"), "{why}");
        assert!(why.contains("looks finite"), "{why}");
    }

    /// Through the search's own calls: each level's states as they are
    /// found, then its end — the last one cut short by the bound.
    #[test]
    fn levels_are_recorded_as_the_search_ends_them() {
        let mut g = Growth::default();
        for (depth, states, partial) in [(1, 9, false), (2, 20, false), (3, 2, true)] {
            for _ in 0..states {
                g.saw((4 + depth as i64, 3));
            }
            g.end_level(depth, partial);
        }
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("levels");
        assert!(
            why.starts_with("depth 2 found 20 new states (depth 1: 9)"),
            "{why}"
        );
    }

    /// The explanation looks back `WINDOW` levels from the last whole
    /// one: a zxid that rose early and then stopped is a finite space.
    #[test]
    fn only_the_last_levels_are_read() {
        let mut levels = vec![(1, 0, 1), (3, 2, 2), (5, 4, 2)];
        levels.extend([(7, 6, 2); WINDOW + 1]);
        let g = growth(&levels);
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("levels");
        assert!(
            why.starts_with("depth 11 found 7 new states (depth 3: 7)"),
            "{why}"
        );
        assert!(why.contains("looks finite"), "{why}");
    }

    /// One counter rising is enough: a zxid that rises over a tree that
    /// does not grow (a poller's create and delete), or a tree that grows
    /// under a zxid that stood still, is not a finite space.
    #[test]
    fn either_counter_rising_alone_is_growth() {
        for (levels, rose) in [
            (
                [(1, 0, 2), (3, 2, 2), (5, 4, 2)],
                "the largest zxid rose from 0 to 4",
            ),
            (
                [(1, 4, 1), (3, 4, 2), (5, 4, 3)],
                "the largest tree grew from 1 to 3 nodes",
            ),
        ] {
            let why = (growth(&levels).explain(false, GrowthWords::ZOOKEEPER)).expect("levels");
            assert!(why.contains(rose), "{why}");
            assert!(!why.contains("looks finite"), "{why}");
            assert!(why.contains("--abstract-sequences"), "{why}");
        }
    }

    /// A run stopped in its first level has no whole level to read: the
    /// explanation reads the one it has, cut short as it is.
    #[test]
    fn a_run_stopped_in_its_first_level_reads_that_level() {
        let mut g = growth(&[(3, 2, 2)]);
        if let Some(cut) = g.levels.last_mut() {
            cut.partial = true;
        }
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("a level");
        assert!(
            why.starts_with("depth 0 found 3 new states (depth 0: 3)"),
            "{why}"
        );
    }

    /// A run stopped before its first level found a state has no level
    /// to read: no sentence, rather than "found 0 new states".
    #[test]
    fn a_run_stopped_before_any_state_was_found_explains_nothing() {
        let mut g = Growth::default();
        g.end_level(1, true);
        assert_eq!(g.explain(false, GrowthWords::ZOOKEEPER), None);
    }

    #[test]
    fn flat_counters_mean_a_finite_space() {
        let g = growth(&[(1, 4, 3), (9, 4, 3), (20, 4, 3)]);
        let why = g.explain(false, GrowthWords::ZOOKEEPER).expect("levels");
        assert!(why.contains("looks finite"), "{why}");
    }
}
