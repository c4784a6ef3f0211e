//! A BFS level's states, kept in the batches the pipeline expands them in.
//!
//! The merger appends the next level's states one at a time; the pipeline
//! then hands them out [`BATCH`] at a time. Kept as one `Vec`, the level
//! was copied each time it doubled (and the fresh pages zeroed by the
//! kernel), then copied again into batches: a twelfth of a two-job run's
//! samples. Kept in batches from the start, a state is written once and
//! moved once, and a batch's memory is the size the allocator reuses most.

use super::pipeline::BATCH;

pub struct Level<S> {
    batches: Vec<Vec<S>>,
    len: usize,
}

impl<S> Default for Level<S> {
    fn default() -> Self {
        Level {
            batches: Vec::new(),
            len: 0,
        }
    }
}

impl<S> Level<S> {
    pub fn of(state: S) -> Level<S> {
        let mut l = Level::default();
        l.push(state);
        l
    }

    pub fn push(&mut self, state: S) {
        match self.batches.last_mut() {
            Some(last) if last.len() < BATCH => last.push(state),
            _ => {
                let mut b = Vec::with_capacity(BATCH);
                b.push(state);
                self.batches.push(b);
            }
        }
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The states from the `from`-th on, a batch's part at a time.
    pub fn from_mut(&mut self, from: usize) -> impl Iterator<Item = &mut [S]> {
        let first = from / BATCH;
        self.batches
            .iter_mut()
            .enumerate()
            .skip(first)
            .map(move |(i, b)| {
                let skip = if i == first { from % BATCH } else { 0 };
                &mut b[skip..]
            })
    }

    /// The batches, in order: every one holds `BATCH` states but the last.
    pub fn into_batches(self) -> Vec<Vec<S>> {
        self.batches
    }
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
        let tail: Vec<usize> = l.from_mut(BATCH - 1).flatten().map(|x| *x).collect();
        assert_eq!(tail, (BATCH - 1..2 * BATCH + 3).collect::<Vec<_>>());
        let batches = l.into_batches();
        assert_eq!(
            batches.iter().map(Vec::len).collect::<Vec<_>>(),
            [BATCH, BATCH, 3]
        );
        assert_eq!(batches.concat(), (0..2 * BATCH + 3).collect::<Vec<_>>());
    }
}
