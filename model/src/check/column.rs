//! An append-only column of values, kept in fixed-size chunks.
//!
//! The checker's tables — a parent pointer per state, an edge per
//! transition — grow to hundreds of millions of entries. A `Vec` doubles
//! as it grows: for a moment it holds the old and the new buffer, and
//! afterwards up to twice what it needs. A column allocates a chunk at a
//! time and never moves what it holds, so it costs its size.

use std::ops::Index;

/// Entries per chunk (a power of two).
const CHUNK: usize = 1 << 16;

#[derive(Clone, Debug)]
pub struct Column<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Column<T> {
    pub fn push(&mut self, x: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(x),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
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
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.chunks.len() * CHUNK * std::mem::size_of::<T>()
    }
}

impl<T: Copy> Index<usize> for Column<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T: Copy> FromIterator<T> for Column<T> {
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
}
