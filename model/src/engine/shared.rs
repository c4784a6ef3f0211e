//! A part of a checker state that successors share with their parent until
//! one of them changes it, with its digest computed once per version.
//!
//! The checker makes a successor for every enabled action of every state,
//! and an action touches one client, or the server, or both: sharing the
//! rest makes a successor a few reference counts instead of a deep copy,
//! and keeps a state's digest (what its fingerprint is built from) from
//! being recomputed for the parts that did not change.
//!
//! A part can also remember what each of `N` deterministic changes makes
//! of it ([`Shared::memoized`]): a client's own step changes nothing but
//! the client, and the same version of a client is shared by the many
//! states that differ only in the other clients, so the step is taken,
//! copied and digested once per version instead of once per state.
//!
//! Parts made by different transitions are often equal: a level of
//! fixed-wait × 5 holds 153,000 states with 90,000 server versions and
//! 275,000 client versions, but only about 430 distinct servers and 250
//! distinct clients. An [`Interner`] makes the states the explorer keeps
//! share one version per distinct value, so a queued state costs little
//! more than its list of pointers, and a version's digest and memo serve
//! every state that holds its value.

use super::fingerprint::FoldHasher;
use std::collections::hash_map::{Entry, HashMap};
use std::fmt;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub struct Shared<'a, T, D, const N: usize = 0> {
    inner: Inner<'a, T, D, N>,
}

enum Inner<'a, T, D, const N: usize> {
    /// Held: the state keeps the part alive (a reference count).
    Held(Arc<Version<T, D, N>>),
    /// Lent by the state it was expanded from, which outlives it: a
    /// successor the explorer has not yet kept touches no reference count
    /// for the parts it shares — on two threads, the counts of the parts
    /// every neighbouring state shares would bounce between the cores.
    Lent(&'a Arc<Version<T, D, N>>),
}

struct Version<T, D, const N: usize> {
    value: T,
    digest: OnceLock<D>,
    /// Per memoized change: the version it makes of this one, or `None`
    /// if the change cannot be memoized here.
    next: [Memo<T, D, N>; N],
    /// This version is its [`Interner`]'s own for its value.
    interned: AtomicBool,
}

/// What one memoized change made of a version, once made.
type Memo<T, D, const N: usize> = OnceLock<Option<Arc<Version<T, D, N>>>>;

impl<T, D, const N: usize> Version<T, D, N> {
    fn new(value: T) -> Self {
        Version {
            value,
            digest: OnceLock::new(),
            next: std::array::from_fn(|_| OnceLock::new()),
            interned: AtomicBool::new(false),
        }
    }
}

impl<T: Clone, D, const N: usize> Clone for Version<T, D, N> {
    /// A copy is about to be changed: its digest and its memo start empty.
    fn clone(&self) -> Self {
        Version::new(self.value.clone())
    }
}

impl<T, D, const N: usize> Shared<'static, T, D, N> {
    pub fn new(value: T) -> Self {
        Shared {
            inner: Inner::Held(Arc::new(Version::new(value))),
        }
    }
}

impl<'a, T, D, const N: usize> Shared<'a, T, D, N> {
    fn version(&self) -> &Arc<Version<T, D, N>> {
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

    /// The digest of this version, if something computed it already.
    pub fn known_digest(&self) -> Option<&D> {
        self.version().digest.get()
    }

    /// The same part, lent to a successor that will not outlive `self`.
    pub fn lend(&self) -> Shared<'_, T, D, N> {
        Shared {
            inner: Inner::Lent(self.version()),
        }
    }

    /// Whether the two are the same version (not merely equal values).
    pub fn same(&self, other: &Shared<'_, T, D, N>) -> bool {
        Arc::ptr_eq(self.version(), other.version())
    }

    fn into_arc(self) -> Arc<Version<T, D, N>> {
        match self.inner {
            Inner::Held(a) => a,
            Inner::Lent(a) => Arc::clone(a),
        }
    }

    /// The part held for good: a lent part takes its reference count now.
    pub fn into_held(self) -> Shared<'static, T, D, N> {
        Shared {
            inner: Inner::Held(match self.inner {
                Inner::Held(a) => a,
                Inner::Lent(a) => Arc::clone(a),
            }),
        }
    }
}

impl<T: 'static, D: 'static, const N: usize> Shared<'_, T, D, N> {
    /// What change `slot` makes of this version, lent: made by `change`
    /// the first time (from a part lent by `self`), and remembered with
    /// this version. `change` must depend on nothing but this version's
    /// value, and returns `None` where the change cannot be taken alone
    /// (it is then never tried again for this version).
    pub fn memoized<'s>(
        &'s self,
        slot: usize,
        change: impl FnOnce() -> Option<Shared<'static, T, D, N>>,
    ) -> Option<Shared<'s, T, D, N>> {
        let next = self
            .version()
            .next
            .get(slot)?
            .get_or_init(|| change().map(|s| s.into_arc()));
        next.as_ref().map(|a| Shared {
            inner: Inner::Lent(a),
        })
    }
}

impl<T: Clone, D, const N: usize> Shared<'_, T, D, N> {
    /// The value, to change: copied first if another state shares it (a
    /// lent part always is), and its digest and memo forgotten either way.
    pub fn get_mut(&mut self) -> &mut T {
        if let Inner::Lent(a) = self.inner {
            self.inner = Inner::Held(Arc::new(Version::clone(a)));
        }
        let Inner::Held(a) = &mut self.inner else {
            unreachable!("made held above")
        };
        let v = Arc::make_mut(a);
        v.digest = OnceLock::new();
        v.interned = AtomicBool::new(false);
        for next in &mut v.next {
            *next = OnceLock::new();
        }
        &mut v.value
    }
}

impl<T, D, const N: usize> Clone for Shared<'_, T, D, N> {
    fn clone(&self) -> Self {
        Shared {
            inner: match &self.inner {
                Inner::Held(a) => Inner::Held(Arc::clone(a)),
                Inner::Lent(a) => Inner::Lent(a),
            },
        }
    }
}

impl<T, D, const N: usize> Deref for Shared<'_, T, D, N> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.version().value
    }
}

impl<T: PartialEq, D, const N: usize> PartialEq for Shared<'_, T, D, N> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(self.version(), other.version()) || **self == **other
    }
}

impl<T: Eq, D, const N: usize> Eq for Shared<'_, T, D, N> {}

impl<T: Hash, D, const N: usize> Hash for Shared<'_, T, D, N> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}

impl<T: fmt::Debug, D, const N: usize> fmt::Debug for Shared<'_, T, D, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// One version per distinct value among the parts of the states the
/// explorer keeps (see the module docs), and among what the memo makes of
/// them where the caller interns that too. One thread at a time uses it;
/// a part's value never changes while the interner holds it (a change
/// copies a shared version first).
///
/// A part is known by its key, a 64-bit digest of its whole value — the
/// digest the state's fingerprint is made of, so two parts with one key
/// are one part to the checker already (it knows a state by its
/// fingerprint). The values are not compared again: comparing them was
/// the merger's largest cost after numbering states (`memcmp` on the fresh
/// part's heap, just written by another core). Builds with debug
/// assertions (every `cargo test`) still compare, and stop on two values
/// with one key.
pub struct Interner<T, D, const N: usize> {
    /// By the value's digest: the version kept for it.
    table: HashMap<u64, Arc<Version<T, D, N>>, BuildHasherDefault<FoldHasher>>,
    /// The table's size after it last dropped what only it held.
    after_purge: usize,
}

impl<T, D, const N: usize> Default for Interner<T, D, N> {
    fn default() -> Self {
        Interner {
            table: HashMap::default(),
            after_purge: 0,
        }
    }
}

impl<T: PartialEq, D, const N: usize> Interner<T, D, N> {
    /// Makes `part` the version kept for its value, `key` a digest of the
    /// whole value (read only if `part` is not the kept version already).
    pub fn intern(
        &mut self,
        part: &mut Shared<'static, T, D, N>,
        key: impl FnOnce(&Shared<'static, T, D, N>) -> u64,
    ) {
        let v = part.version();
        if v.interned.load(Ordering::Relaxed) {
            return;
        }
        let key = key(part);
        let v = part.version();
        match self.table.entry(key) {
            Entry::Occupied(e) => {
                debug_assert!(e.get().value == v.value, "two values with one key");
                part.inner = Inner::Held(Arc::clone(e.get()));
            }
            Entry::Vacant(e) => {
                v.interned.store(true, Ordering::Relaxed);
                e.insert(Arc::clone(v));
                if self.table.len() > 2 * self.after_purge.max(1 << 10) {
                    self.purge();
                }
            }
        }
    }

    /// Drops the versions no state holds any more, and then what only
    /// their memos held, until nothing more goes: an interned version a
    /// memo remembers is held by that memo's version.
    fn purge(&mut self) {
        loop {
            let before = self.table.len();
            self.table.retain(|_, v| Arc::strong_count(v) > 1);
            if self.table.len() == before {
                break;
            }
        }
        self.after_purge = self.table.len();
    }

    /// Distinct values held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One version kept per value; what only the interner still holds is
    /// dropped once the table has doubled since the last purge (at least
    /// 2,048 entries).
    #[test]
    fn an_interner_keeps_one_version_per_value_and_drops_the_unheld() {
        let mut interner: Interner<u32, (), 0> = Interner::default();
        assert!(interner.is_empty());
        let mut a: Shared<'static, u32, ()> = Shared::new(7);
        let mut b: Shared<'static, u32, ()> = Shared::new(7);
        interner.intern(&mut a, |x| u64::from(**x));
        interner.intern(&mut b, |x| u64::from(**x));
        assert!(a.same(&b), "the second is the first's version");
        assert_eq!(interner.len(), 1);
        assert!(!interner.is_empty());
        // Values interned and dropped at once: 2,047 more fill the table to
        // 2,048; the next one doubles it past 1,024 and only what a part
        // still holds stays (7's version and the newest).
        for v in 0..2_047 {
            let mut part: Shared<'static, u32, ()> = Shared::new(1_000 + v);
            interner.intern(&mut part, |x| u64::from(**x));
            assert_eq!(interner.len(), 2 + v as usize, "{v}");
        }
        let mut last: Shared<'static, u32, ()> = Shared::new(9_999);
        interner.intern(&mut last, |x| u64::from(**x));
        assert_eq!(interner.len(), 2);
    }

    /// A purge drops what only a dropped version's memo held, in the same
    /// purge: a memo's part interned before any state holds it goes with
    /// the version that remembers it.
    #[test]
    fn a_purge_drops_what_only_the_dropped_remembered() {
        let mut interner: Interner<u32, (), 1> = Interner::default();
        let key = |x: &Shared<'static, u32, (), 1>| u64::from(**x);
        let mut a: Shared<'static, u32, (), 1> = Shared::new(1);
        interner.intern(&mut a, key);
        let next = a.memoized(0, || {
            let mut b = Shared::new(2);
            interner.intern(&mut b, key);
            Some(b)
        });
        assert_eq!(next.map(|b| *b), Some(2));
        drop(a);
        assert_eq!(interner.len(), 2);
        // As above: the 2,049th value purges, and only the newest stays.
        for v in 0..2_047 {
            interner.intern(&mut Shared::new(1_000 + v), key);
        }
        assert_eq!(interner.len(), 1);
    }

    /// A shared part reads in a failure message as its value does.
    #[test]
    fn a_shared_part_debugs_as_its_value() {
        let a: Shared<Vec<u8>, usize> = Shared::new(vec![1, 2]);
        assert_eq!(format!("{a:?}"), "[1, 2]");
    }

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

    #[test]
    fn a_memoized_change_is_made_once_per_version_and_forgotten_with_it() {
        let a: Shared<Vec<u8>, usize, 2> = Shared::new(vec![1]);
        let mut made = 0;
        let mut push = |x: u8| {
            made += 1;
            let mut b = a.lend();
            b.get_mut().push(x);
            Some(b.into_held())
        };
        let b = a.memoized(0, || push(2)).map(|b| (*b).clone());
        let again = a.memoized(0, || push(9)).map(|b| (*b).clone());
        assert_eq!((b, again), (Some(vec![1, 2]), Some(vec![1, 2])));
        assert_eq!(a.memoized(1, || None::<Shared<_, _, 2>>), None);
        assert_eq!(a.memoized(1, || push(3)), None, "None is remembered too");
        assert_eq!(a.memoized(2, || push(4)), None, "no such slot");
        assert_eq!(made, 1);
        let mut c = a.clone();
        drop(a);
        c.get_mut().push(5);
        assert_eq!(c.memoized(0, || None).map(|c| (*c).clone()), None);
    }

    #[test]
    fn equal_values_share_one_version_and_a_change_leaves_it_alone() {
        use crate::engine::fingerprint::fingerprint;
        let mut interner: Interner<Vec<u8>, usize, 0> = Interner::default();
        let key = |p: &Shared<'static, Vec<u8>, usize, 0>| fingerprint(&**p);
        let mut a = Shared::new(vec![1, 2]);
        let mut b = Shared::new(vec![1, 2]);
        let mut c = Shared::new(vec![3, 4]);
        interner.intern(&mut a, key);
        interner.intern(&mut b, key);
        assert!(a.same(&b), "equal values: one version");
        interner.intern(&mut c, key);
        assert!(!a.same(&c), "other values: kept apart");
        assert_eq!(*c, vec![3, 4]);
        interner.intern(&mut b, |_| {
            unreachable!("the kept version is not looked up")
        });
        b.get_mut().push(5);
        assert_eq!((&*a, &*b), (&vec![1, 2], &vec![1, 2, 5]));
        interner.intern(&mut b, key);
        assert!(!a.same(&b));
        assert_eq!(interner.len(), 3);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "two values with one key")]
    fn a_key_that_is_not_a_digest_of_the_whole_value_is_caught() {
        let mut interner: Interner<Vec<u8>, usize, 0> = Interner::default();
        let len = |p: &Shared<'static, Vec<u8>, usize, 0>| p.len() as u64;
        interner.intern(&mut Shared::new(vec![1, 2]), len);
        interner.intern(&mut Shared::new(vec![3, 4]), len);
    }
}
