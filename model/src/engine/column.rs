//! An append-only column of values, kept in fixed-size chunks.
//!
//! The checker's tables — a parent pointer per state, an edge per
//! transition — grow to hundreds of millions of entries. A `Vec` doubles
//! as it grows: for a moment it holds the old and the new buffer, and
//! afterwards up to twice what it needs. A column allocates a chunk at a
//! time and never moves what it holds, so it costs its size.

use std::ops::Index;

/// Entries per chunk (a power of two) of the checker's tables.
pub const CHUNK: usize = 1 << 16;

/// A column of `T` in chunks of `N`.
#[derive(Clone, Debug)]
pub struct Column<T, const N: usize = CHUNK> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T, const N: usize> Default for Column<T, N> {
    fn default() -> Self {
        Column {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T, const N: usize> Column<T, N> {
    pub fn push(&mut self, x: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < N => last.push(x),
            _ => {
                let mut chunk = Vec::with_capacity(N);
                chunk.push(x);
                self.chunks.push(chunk);
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

    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / N)?.get(i % N)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.chunks.len() * N * std::mem::size_of::<T>()
    }

    /// The entries from the `from`-th on, a chunk's part at a time.
    pub fn tail_mut(&mut self, from: usize) -> impl Iterator<Item = &mut [T]> {
        let first = from / N;
        self.chunks
            .iter_mut()
            .enumerate()
            .skip(first)
            .map(move |(i, c)| {
                let skip = if i == first { from % N } else { 0 };
                &mut c[skip..]
            })
    }

    /// The chunks, in order: every one holds `N` entries but the last.
    pub fn into_chunks(self) -> Vec<Vec<T>> {
        self.chunks
    }
}

impl<T, const N: usize> Index<usize> for Column<T, N> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / N][i % N]
    }
}

impl<T, const N: usize> FromIterator<T> for Column<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut c = Column::default();
        for x in items {
            c.push(x);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_across_chunks_and_keeps_every_entry() {
        let c: Column<u32> = (0..(3 * CHUNK as u32 + 5)).collect();
        assert_eq!(c.len(), 3 * CHUNK + 5);
        assert_eq!(c[0], 0);
        assert_eq!(c[CHUNK], CHUNK as u32);
        assert_eq!(c[3 * CHUNK + 4], 3 * CHUNK as u32 + 4);
        assert_eq!(c.get(3 * CHUNK + 5), None);
        assert_eq!(c.bytes(), 4 * CHUNK * 4);
    }

    #[test]
    fn is_empty_until_its_first_entry() {
        let mut c: Column<u8, 2> = Column::default();
        assert!(c.is_empty());
        c.push(7);
        assert!(!c.is_empty());
        assert_eq!((c.len(), c.bytes()), (1, 2));
    }
}
