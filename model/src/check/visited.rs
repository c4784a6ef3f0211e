//! The visited set: each explored state's fingerprint and its id.
//!
//! The largest table of a run (a bucket per state and then some), so it is
//! kept lean: an open-addressing table of two plain arrays, fingerprints
//! and ids, 12 bytes a bucket, probed linearly from the fingerprint's own
//! bits (fingerprints are uniform already: no hashing again), grown by
//! doubling at 7/8 full.

/// The bucket of no state. A state whose fingerprint is 0 is stored as 1:
/// one more way for two states to collide among 2^64.
const EMPTY: u64 = 0;

pub struct Visited {
    fingerprints: Vec<u64>,
    ids: Vec<u32>,
    len: usize,
}

impl Default for Visited {
    fn default() -> Self {
        Visited::with_buckets(1 << 10)
    }
}

fn key(fingerprint: u64) -> u64 {
    if fingerprint == EMPTY {
        1
    } else {
        fingerprint
    }
}

impl Visited {
    fn with_buckets(n: usize) -> Visited {
        Visited {
            fingerprints: vec![EMPTY; n],
            ids: vec![0; n],
            len: 0,
        }
    }

    fn mask(&self) -> usize {
        self.fingerprints.len() - 1
    }

    /// The id of the state with this fingerprint, if it was visited.
    pub fn get(&self, fingerprint: u64) -> Option<u32> {
        let k = key(fingerprint);
        let mut i = k as usize & self.mask();
        loop {
            match self.fingerprints[i] {
                EMPTY => return None,
                f if f == k => return Some(self.ids[i]),
                _ => i = (i + 1) & self.mask(),
            }
        }
    }

    /// Records a state not visited before.
    pub fn insert(&mut self, fingerprint: u64, id: u32) {
        if (self.len + 1) * 8 > self.fingerprints.len() * 7 {
            self.grow();
        }
        self.place(key(fingerprint), id);
        self.len += 1;
    }

    fn place(&mut self, k: u64, id: u32) {
        let mut i = k as usize & self.mask();
        while self.fingerprints[i] != EMPTY {
            debug_assert_ne!(self.fingerprints[i], k, "visited twice");
            i = (i + 1) & self.mask();
        }
        self.fingerprints[i] = k;
        self.ids[i] = id;
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, Visited::with_buckets(self.fingerprints.len() * 2));
        self.len = old.len;
        for (&k, &id) in old.fingerprints.iter().zip(&old.ids) {
            if k != EMPTY {
                self.place(k, id);
            }
        }
    }

    /// Takes in every state `other` holds (none of which this one does).
    pub fn absorb(&mut self, other: Visited) {
        for (&k, &id) in other.fingerprints.iter().zip(&other.ids) {
            if k != EMPTY {
                if (self.len + 1) * 8 > self.fingerprints.len() * 7 {
                    self.grow();
                }
                self.place(k, id);
                self.len += 1;
            }
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.fingerprints.len() * 12
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_holds_across_growth() {
        let mut v = Visited::default();
        let fp = |i: u64| crate::check::fingerprint::fingerprint(&i);
        for i in 0..10_000u64 {
            assert_eq!(v.get(fp(i)), None);
            v.insert(fp(i), i as u32);
        }
        v.insert(0, 10_000);
        for i in 0..10_000u64 {
            assert_eq!(v.get(fp(i)), Some(i as u32));
        }
        assert_eq!(v.get(0), Some(10_000));
        assert_eq!(v.get(fp(10_001)), None);
        assert!(v.bytes() >= 10_001 * 12);
    }
}
