//! A part of a checker state that successors share with their parent until
//! one of them changes it, with its digest computed once per version.
//!
//! The checker makes a successor for every enabled action of every state,
//! and an action touches one client, or the server, or both: sharing the
//! rest makes a successor a few reference counts instead of a deep copy,
//! and keeps a state's digest (what its fingerprint is built from) from
//! being recomputed for the parts that did not change.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

pub struct Shared<T, D> {
    inner: Arc<Version<T, D>>,
}

struct Version<T, D> {
    value: T,
    digest: OnceLock<D>,
}

impl<T: Clone, D> Clone for Version<T, D> {
    /// A copy is about to be changed: its digest starts empty.
    fn clone(&self) -> Self {
        Version {
            value: self.value.clone(),
            digest: OnceLock::new(),
        }
    }
}

impl<T, D> Shared<T, D> {
    pub fn new(value: T) -> Self {
        Shared {
            inner: Arc::new(Version {
                value,
                digest: OnceLock::new(),
            }),
        }
    }

    /// The digest of this version, computed by `f` the first time.
    pub fn digest(&self, f: impl FnOnce(&T) -> D) -> &D {
        self.inner.digest.get_or_init(|| f(&self.inner.value))
    }
}

impl<T: Clone, D> Shared<T, D> {
    /// The value, to change: copied first if another state shares it, and
    /// its digest forgotten either way.
    pub fn get_mut(&mut self) -> &mut T {
        let v = Arc::make_mut(&mut self.inner);
        v.digest = OnceLock::new();
        &mut v.value
    }
}

impl<T, D> Clone for Shared<T, D> {
    fn clone(&self) -> Self {
        Shared {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T, D> Deref for Shared<T, D> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner.value
    }
}

impl<T: PartialEq, D> PartialEq for Shared<T, D> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.value == other.inner.value
    }
}

impl<T: Eq, D> Eq for Shared<T, D> {}

impl<T: Hash, D> Hash for Shared<T, D> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.inner.value.hash(h)
    }
}

impl<T: fmt::Debug, D> fmt::Debug for Shared<T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.value.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_forgets_the_digest_and_leaves_the_sharer_alone() {
        let mut a: Shared<Vec<u8>, usize> = Shared::new(vec![1, 2]);
        assert_eq!(*a.digest(Vec::len), 2);
        let b = a.clone();
        a.get_mut().push(3);
        assert_eq!(*a.digest(Vec::len), 3);
        assert_eq!(*b.digest(|_| unreachable!("kept")), 2);
        assert_eq!(*b, vec![1, 2]);
        // Not shared any more: changed in place, and forgotten all the same.
        a.get_mut().push(4);
        assert_eq!(*a.digest(Vec::len), 4);
    }
}
