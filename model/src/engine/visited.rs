//! The visited set: each explored state's fingerprint and its id.
//!
//! The largest table of a run (a bucket per state and then some), so it is
//! kept lean: an open-addressing table of 12-byte buckets (a fingerprint
//! and an id), probed linearly from the fingerprint's own bits
//! (fingerprints are uniform already: no hashing again).
//!
//! The merging thread numbers a level's new states while workers expand
//! later batches of it ([`pipeline`](super::pipeline)), and the workers
//! read this table as the merger adds to it: a successor this level has
//! numbered already is not built again. (Most states of these spaces are
//! reached by several orders of the same steps, all in one level; a worker
//! that saw only the earlier levels built each of them again, for the
//! merger to drop.) So the buckets are atomics, one thread writes them,
//! and a bucket's high half is written last. A worker may miss
//! a state numbered a moment later; it builds it, and the merger finds it
//! here and drops the copy: what a worker saw changes the work, never an
//! id, a count or a trace. The table cannot grow while it is read: it is
//! grown between levels, for as many states as the next level is expected
//! to add, and a level that adds more keeps the rest in a set of the
//! merger's own until it ends.

use super::padded::Padded;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// A bucket: a fingerprint's high and low halves and the state's id, in
/// one place, so that a lookup that finds a state reads one cache line
/// (with the ids in an array of their own, finding a state cost a second
/// miss: most lookups find one). The high half is written last, and 0 there
/// is the empty bucket.
#[derive(Default)]
struct Bucket {
    high: AtomicU32,
    low: AtomicU32,
    id: AtomicU32,
}

pub struct Visited {
    buckets: Box<[Bucket]>,
    /// Written for every state the merger adds: kept off the line that
    /// every reader's lookup reads.
    len: Padded<AtomicUsize>,
}

impl Default for Visited {
    fn default() -> Self {
        Visited::with_buckets(1 << 10)
    }
}

/// The fingerprint as stored: one whose high half is 0 is stored with a
/// high half of 1 (0 is an empty bucket), one more way for two states to
/// collide among 2^64.
fn key(fingerprint: u64) -> (u32, u32) {
    let high = (fingerprint >> 32) as u32;
    (high.max(1), fingerprint as u32)
}

/// Whether `len` states fill `buckets` buckets as far as they may go.
fn full(len: usize, buckets: usize) -> bool {
    len * 8 > buckets * 7
}

impl Visited {
    fn with_buckets(n: usize) -> Visited {
        Visited {
            buckets: (0..n).map(|_| Bucket::default()).collect(),
            len: Padded(AtomicUsize::new(0)),
        }
    }

    fn mask(&self) -> usize {
        self.buckets.len() - 1
    }

    /// The bucket a fingerprint's probe starts at: its low bits (the
    /// fingerprints are uniform already: no hashing again).
    fn start(&self, fingerprint: u64) -> usize {
        fingerprint as usize & self.mask()
    }

    /// The id of the state with this fingerprint, if it was visited.
    pub fn get(&self, fingerprint: u64) -> Option<u32> {
        let (high, low) = key(fingerprint);
        let mut i = self.start(fingerprint);
        loop {
            let b = &self.buckets[i];
            // Acquire: a reader that sees the high half sees the rest.
            match b.high.load(Ordering::Acquire) {
                0 => return None,
                h if h == high && b.low.load(Ordering::Relaxed) == low => {
                    return Some(b.id.load(Ordering::Relaxed))
                }
                _ => i = (i + 1) & self.mask(),
            }
        }
    }

    /// Records a state not visited before; `false` (and nothing recorded)
    /// if the table is too full to take it until it grows. One thread
    /// records (the merger); any number read meanwhile.
    pub fn insert(&self, fingerprint: u64, id: u32) -> bool {
        // Plain loads and stores, no locked instruction: one of those would
        // wait for the bucket's line to arrive before the merger goes on.
        let len = self.len.load(Ordering::Relaxed);
        if full(len + 1, self.buckets.len()) {
            return false;
        }
        let (high, low) = key(fingerprint);
        let mut i = self.start(fingerprint);
        while self.buckets[i].high.load(Ordering::Relaxed) != 0 {
            debug_assert!(
                self.buckets[i].high.load(Ordering::Relaxed) != high
                    || self.buckets[i].low.load(Ordering::Relaxed) != low,
                "visited twice"
            );
            i = (i + 1) & self.mask();
        }
        let b = &self.buckets[i];
        // The high half last: a reader that sees it sees the bucket whole.
        b.id.store(id, Ordering::Relaxed);
        b.low.store(low, Ordering::Relaxed);
        b.high.store(high, Ordering::Release);
        self.len.store(len + 1, Ordering::Relaxed);
        true
    }

    /// Records a state not visited before, growing the table if it must.
    pub fn insert_growing(&mut self, fingerprint: u64, id: u32) {
        self.reserve(1);
        let taken = self.insert(fingerprint, id);
        debug_assert!(taken, "room was made");
    }

    /// Grows the table until `more` states fit beside those it holds.
    pub fn reserve(&mut self, more: usize) {
        let len = self.len();
        let mut buckets = self.buckets.len();
        while full(len + more, buckets) {
            buckets *= 2;
        }
        if buckets == self.buckets.len() {
            return;
        }
        let old = std::mem::replace(self, Visited::with_buckets(buckets));
        for (k, id) in old.states() {
            self.insert(k, id);
        }
    }

    /// Takes in the states `other` holds (none of which this one does).
    pub fn absorb(&mut self, other: &Visited) {
        self.reserve(other.len());
        for (k, id) in other.states() {
            self.insert(k, id);
        }
    }

    /// Every state held, as (fingerprint as stored, id).
    fn states(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.buckets
            .iter()
            .filter_map(|b| match b.high.load(Ordering::Acquire) {
                0 => None,
                h => Some((
                    u64::from(h) << 32 | u64::from(b.low.load(Ordering::Relaxed)),
                    b.id.load(Ordering::Relaxed),
                )),
            })
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fingerprint::fingerprint;

    #[test]
    fn finds_what_it_holds_across_growth() {
        let mut v = Visited::default();
        assert!(v.is_empty());
        let fp = |i: u64| fingerprint(&i);
        for i in 0..10_000u64 {
            assert_eq!(v.get(fp(i)), None);
            v.insert_growing(fp(i), i as u32);
        }
        v.insert_growing(0, 10_000);
        for i in 0..10_000u64 {
            assert_eq!(v.get(fp(i)), Some(i as u32));
        }
        assert_eq!(v.get(0), Some(10_000));
        assert_eq!(v.get(fp(10_001)), None);
        assert!(v.bytes() >= 10_001 * 12);
        assert_eq!((v.len(), v.is_empty()), (10_001, false));
    }

    #[test]
    fn refuses_when_full_until_it_grows() {
        let mut v = Visited::default();
        let mut taken = 0u32;
        while v.insert(fingerprint(&taken), taken) {
            taken += 1;
        }
        assert_eq!(taken as usize, (1 << 10) * 7 / 8);
        let rest = Visited::default();
        rest.insert(fingerprint(&taken), taken);
        v.absorb(&rest);
        for i in 0..=taken {
            assert_eq!(v.get(fingerprint(&i)), Some(i));
        }
        assert_eq!(v.len(), taken as usize + 1);
    }

    #[test]
    fn readers_on_other_threads_see_a_state_whole_or_not_at_all() {
        let mut v = Visited::default();
        v.reserve(40_000);
        let v = &v;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for i in 0..40_000u32 {
                    assert!(v.insert(fingerprint(&i), i));
                }
            });
            scope.spawn(|| {
                for round in 0..4 {
                    for i in (round..40_000u32).step_by(4) {
                        if let Some(id) = v.get(fingerprint(&i)) {
                            assert_eq!(id, i);
                        }
                    }
                }
            });
        });
        assert_eq!(v.len(), 40_000);
    }
}
