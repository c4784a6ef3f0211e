//! A value on cache lines of its own.
//!
//! With two jobs, the merging thread writes a few words that the workers
//! never read (the visited set's count, the interner behind its lock)
//! beside words that the workers read for every transition (the visited
//! set's buckets pointer, the space's configuration). Sharing a cache line,
//! each write takes the line from the other core and each read takes it
//! back: perf put about a third of the merge's samples on two such
//! instructions. Padding keeps the written word away from the read ones.

use std::ops::{Deref, DerefMut};

/// `T`, aligned (and so sized) to 128 bytes: two cache lines, since the
/// adjacent-line prefetcher of x86 cores fetches lines in pairs.
#[derive(Default, Debug)]
#[repr(align(128))]
pub struct Padded<T>(pub T);

impl<T> Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Padded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
