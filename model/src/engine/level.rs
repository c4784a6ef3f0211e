//! A BFS level's states, kept in the batches the pipeline expands them in.
//!
//! The merger appends the next level's states one at a time; the pipeline
//! then hands them out [`BATCH`] at a time. Kept as one `Vec`, the level
//! was copied each time it doubled (and the fresh pages zeroed by the
//! kernel), then copied again into batches. Kept in batches from the start
//! (a [`Column`] whose chunks are batches), a state is written once and
//! moved once, and a batch's memory is a size the allocator reuses.

use super::column::Column;

/// States per batch: small enough that a batch's successors are still in
/// the cache when they are merged.
pub const BATCH: usize = 128;

pub type Level<S> = Column<S, BATCH>;

/// The first level: the initial state alone.
pub fn first<S>(state: S) -> Level<S> {
    let mut l = Level::default();
    l.push(state);
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_full_but_the_last_and_keep_the_order() {
        let mut l = Level::default();
        for i in 0..(2 * BATCH + 3) {
            l.push(i);
        }
        assert_eq!(l.len(), 2 * BATCH + 3);
        let tail: Vec<usize> = l.tail_mut(BATCH - 1).flatten().map(|x| *x).collect();
        assert_eq!(tail, (BATCH - 1..2 * BATCH + 3).collect::<Vec<_>>());
        let batches = l.into_chunks();
        assert_eq!(
            batches.iter().map(Vec::len).collect::<Vec<_>>(),
            [BATCH, BATCH, 3]
        );
        assert_eq!(batches.concat(), (0..2 * BATCH + 3).collect::<Vec<_>>());
    }
}
