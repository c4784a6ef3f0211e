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

pub struct Shared<'a, T, D> {
    inner: Inner<'a, T, D>,
}

enum Inner<'a, T, D> {
    /// Held: the state keeps the part alive (a reference count).
    Held(Arc<Version<T, D>>),
    /// Lent by the state it was expanded from, which outlives it: a
    /// successor the explorer has not yet kept touches no reference count
    /// for the parts it shares — on two threads, the counts of the parts
    /// every neighbouring state shares would bounce between the cores.
    Lent(&'a Arc<Version<T, D>>),
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

impl<T, D> Shared<'static, T, D> {
    pub fn new(value: T) -> Self {
        Shared {
            inner: Inner::Held(Arc::new(Version {
                value,
                digest: OnceLock::new(),
            })),
        }
    }
}

impl<'a, T, D> Shared<'a, T, D> {
    fn version(&self) -> &Arc<Version<T, D>> {
        match &self.inner {
            Inner::Held(a) => a,
            Inner::Lent(a) => a,
        }
    }

    /// The digest of this version, computed by `f` the first time.
    pub fn digest(&self, f: impl FnOnce(&T) -> D) -> &D {
        let v = self.version();
        v.digest.get_or_init(|| f(&v.value))
    }

    /// The same part, lent to a successor that will not outlive `self`.
    pub fn lend(&self) -> Shared<'_, T, D> {
        Shared {
            inner: Inner::Lent(self.version()),
        }
    }

    /// The part held for good: a lent part takes its reference count now.
    pub fn into_held(self) -> Shared<'static, T, D> {
        Shared {
            inner: Inner::Held(match self.inner {
                Inner::Held(a) => a,
                Inner::Lent(a) => Arc::clone(a),
            }),
        }
    }
}

impl<T: Clone, D> Shared<'_, T, D> {
    /// The value, to change: copied first if another state shares it (a
    /// lent part always is), and its digest forgotten either way.
    pub fn get_mut(&mut self) -> &mut T {
        if let Inner::Lent(a) = self.inner {
            self.inner = Inner::Held(Arc::new(Version::clone(a)));
        }
        let Inner::Held(a) = &mut self.inner else {
            unreachable!("made held above")
        };
        let v = Arc::make_mut(a);
        v.digest = OnceLock::new();
        &mut v.value
    }
}

impl<T, D> Clone for Shared<'_, T, D> {
    fn clone(&self) -> Self {
        Shared {
            inner: match &self.inner {
                Inner::Held(a) => Inner::Held(Arc::clone(a)),
                Inner::Lent(a) => Inner::Lent(a),
            },
        }
    }
}

impl<T, D> Deref for Shared<'_, T, D> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.version().value
    }
}

impl<T: PartialEq, D> PartialEq for Shared<'_, T, D> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(self.version(), other.version()) || **self == **other
    }
}

impl<T: Eq, D> Eq for Shared<'_, T, D> {}

impl<T: Hash, D> Hash for Shared<'_, T, D> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}

impl<T: fmt::Debug, D> fmt::Debug for Shared<'_, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
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

    #[test]
    fn a_lent_part_is_copied_to_change_and_held_to_keep() {
        let a: Shared<Vec<u8>, usize> = Shared::new(vec![1]);
        assert_eq!(*a.digest(Vec::len), 1);
        let mut lent = a.lend();
        assert_eq!(*lent.digest(|_| unreachable!("the lender's")), 1);
        lent.get_mut().push(2);
        assert_eq!(*a, vec![1]);
        let kept: Shared<'static, Vec<u8>, usize> = lent.into_held();
        assert_eq!(*kept, vec![1, 2]);
        let again = a.lend().into_held();
        assert_eq!(again, a);
    }
}
