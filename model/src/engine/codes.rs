//! An append-only column of values drawn from a small set, kept as 2-byte
//! codes into the distinct values met.
//!
//! Per edge of the kept graph, who acted and how the symmetry reduction
//! renumbered the clients; per state, the order its clients sort in: a run
//! meets a few hundred of these values, stored hundreds of millions of
//! times. A code is 2 bytes where the value is 5 or 4. Should a run meet
//! more than 65,535 distinct values (none of the scenarios comes near), the
//! rest are kept beside the column, by position.

use super::column::Column;
use super::fingerprint::FoldHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The code of a value kept beside the column.
const ESCAPE: u16 = u16::MAX;

/// Slots of the cache of recent values (a power of two).
const RECENT: usize = 64;

pub struct Codes<T> {
    codes: Column<u16>,
    values: Vec<T>,
    index: HashMap<T, u16, BuildHasherDefault<FoldHasher>>,
    /// Values met lately and their codes, by a hash of the value: most
    /// pushes find theirs here without the table.
    recent: [Option<(T, u16)>; RECENT],
    /// By position: the values met after the codes ran out.
    escaped: BTreeMap<usize, T>,
}

impl<T: Copy> Default for Codes<T> {
    fn default() -> Self {
        Codes {
            codes: Column::default(),
            values: Vec::new(),
            index: HashMap::default(),
            recent: [None; RECENT],
            escaped: BTreeMap::new(),
        }
    }
}

impl<T: Copy + Eq + Hash> Codes<T> {
    pub fn push(&mut self, x: T) {
        let mut h = FoldHasher::default();
        x.hash(&mut h);
        let slot = h.finish() as usize & (RECENT - 1);
        let code = match self.recent[slot] {
            Some((y, code)) if y == x => code,
            _ => {
                let code = match self.index.get(&x) {
                    Some(&code) => code,
                    None if self.values.len() < usize::from(ESCAPE) => {
                        let code = self.values.len() as u16;
                        self.values.push(x);
                        self.index.insert(x, code);
                        code
                    }
                    None => ESCAPE,
                };
                self.recent[slot] = Some((x, code));
                code
            }
        };
        if code == ESCAPE {
            self.escaped.insert(self.codes.len(), x);
        }
        self.codes.push(code);
    }

    /// The `i`-th value pushed.
    pub fn get(&self, i: usize) -> T {
        match self.codes[i] {
            ESCAPE => self.escaped[&i],
            code => self.values[usize::from(code)],
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Bytes held, roughly.
    pub fn bytes(&self) -> usize {
        self.codes.bytes()
            + self.values.len() * (3 * std::mem::size_of::<T>() + 8)
            + self.escaped.len() * (std::mem::size_of::<T>() + 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_every_value_in_order_past_the_last_code() {
        let mut c = Codes::default();
        assert!(c.is_empty());
        let n = usize::from(ESCAPE) + 1000;
        // Every value twice in a row, then a value met before.
        for i in 0..n as u32 {
            c.push(i);
            c.push(i);
            c.push(i / 2);
        }
        assert_eq!((c.len(), c.is_empty()), (3 * n, false));
        for i in 0..n {
            assert_eq!(c.get(3 * i), i as u32);
            assert_eq!(c.get(3 * i + 1), i as u32);
            assert_eq!(c.get(3 * i + 2), (i / 2) as u32);
        }
        assert_eq!(c.values.len(), usize::from(ESCAPE));
        assert!(!c.escaped.is_empty());
        // The estimate: the code column, each distinct value with its index
        // entry, each escaped one with its map node.
        let values = usize::from(ESCAPE) * (3 * 4 + 8);
        let escaped = c.escaped.len() * (4 + 32);
        assert_eq!(c.bytes(), c.codes.bytes() + values + escaped);
    }
}
