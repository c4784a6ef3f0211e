//! A map kept as a sorted vector: the server's tables (nodes, watches).
//!
//! The tables are small — a lock root and a node per client — and the
//! checker copies them whenever a transition writes to the server. A
//! sorted vector is one allocation to copy where a `BTreeMap` is a node
//! per handful of keys, each larger than the whole table; lookups are a
//! binary search, and iteration is in key order like a `BTreeMap`'s, so
//! every trace stays as it was. Keys are compared as bytes (a `Name` and
//! a `str` order by their bytes alike), so a lookup by `&str` never checks
//! a stored name's UTF-8 again: that check was 5 % of the simulator's time.

use std::ops::Bound;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<K: Ord + AsRef<[u8]>, V> SmallMap<K, V> {
    fn find<Q: AsRef<[u8]> + ?Sized>(&self, k: &Q) -> Result<usize, usize> {
        let k = k.as_ref();
        self.0.binary_search_by(|(x, _)| x.as_ref().cmp(k))
    }

    pub fn get<Q: AsRef<[u8]> + ?Sized>(&self, k: &Q) -> Option<&V> {
        self.find(k).ok().map(|i| &self.0[i].1)
    }

    pub fn get_mut<Q: AsRef<[u8]> + ?Sized>(&mut self, k: &Q) -> Option<&mut V> {
        self.find(k).ok().map(|i| &mut self.0[i].1)
    }

    pub fn contains_key<Q: AsRef<[u8]> + ?Sized>(&self, k: &Q) -> bool {
        self.find(k).is_ok()
    }

    /// Inserts or replaces; returns the value replaced.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, v)),
            Err(i) => {
                self.0.insert(i, (k, v));
                None
            }
        }
    }

    pub fn remove<Q: AsRef<[u8]> + ?Sized>(&mut self, k: &Q) -> Option<V> {
        self.find(k).ok().map(|i| self.0.remove(i).1)
    }

    /// The value at `k`, inserted as `V::default()` first if missing.
    pub fn entry_or_default(&mut self, k: K) -> &mut V
    where
        V: Default,
    {
        let i = match self.find(&k) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (k, V::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// The entries with keys from `from` on, in key order.
    pub fn range_from<Q: AsRef<[u8]> + ?Sized>(
        &self,
        from: Bound<&Q>,
    ) -> impl Iterator<Item = (&K, &V)> {
        let start = match from {
            Bound::Included(k) => self.find(k).unwrap_or_else(|i| i),
            Bound::Excluded(k) => self.find(k).map_or_else(|i| i, |i| i + 1),
            Bound::Unbounded => 0,
        };
        self.0[start..].iter().map(|(k, v)| (k, v))
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

/// As a `BTreeMap` collects: in key order, the last value of a key kept.
impl<K: Ord, V> FromIterator<(K, V)> for SmallMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut v: Vec<(K, V)> = items.into_iter().collect();
        // Stable: equal keys stay in arrival order, and the last one stays.
        v.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(K, V)> = Vec::with_capacity(v.len());
        for (k, x) in v {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = x,
                _ => out.push((k, x)),
            }
        }
        SmallMap(out)
    }
}

impl<K, V> IntoIterator for SmallMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zk::Name;
    use std::collections::BTreeMap;

    fn n(k: &str) -> Name {
        Name::from(k)
    }

    #[test]
    fn behaves_as_a_btree_map() {
        let mut m = SmallMap::default();
        let mut b = BTreeMap::new();
        for (i, k) in ["5", "1", "9", "3", "5", "7", "1"].into_iter().enumerate() {
            assert_eq!(m.insert(n(k), i), b.insert(n(k), i));
        }
        assert_eq!(m.remove("9"), b.remove("9"));
        assert_eq!(m.remove("4"), b.remove("4"));
        *m.entry_or_default(n("2")) += 10;
        *b.entry(n("2")).or_default() += 10;
        assert!(m.iter().eq(b.iter()));
        assert!(m
            .range_from(Bound::Included("3"))
            .eq(b.range::<str, _>((Bound::Included("3"), Bound::Unbounded))));
        assert!(m
            .range_from(Bound::Excluded("3"))
            .eq(b.range::<str, _>((Bound::Excluded("3"), Bound::Unbounded))));
        let pairs = [(n("3"), 1), (n("1"), 2), (n("3"), 4)];
        let c: SmallMap<Name, usize> = pairs.clone().into_iter().collect();
        let d: BTreeMap<Name, usize> = pairs.into_iter().collect();
        assert!(c.iter().eq(d.iter()));
        let odd = |k: &Name| k.as_bytes()[0] % 2 == 1;
        m.retain(|k, _| odd(k));
        b.retain(|k, _| odd(k));
        assert!(m.iter().eq(b.iter()));
        assert_eq!(m.iter().count(), b.len());
        assert_eq!(m.get("5"), b.get("5"));
    }

    /// Lookups by `&str` and by a `Name` find the same entries, long
    /// names (kept on the heap) included.
    #[test]
    fn a_name_and_its_text_find_the_same_entry() {
        let long = "/a-path-longer-than-thirty-bytes/lock-0000000001";
        let mut m = SmallMap::default();
        for k in ["/locks", long, "/locks/lock-0000000000"] {
            m.insert(n(k), k.len());
        }
        for k in ["/locks", long, "/locks/lock-0000000000"] {
            assert_eq!(m.get(k), Some(&k.len()));
            assert_eq!(m.get(&n(k)), Some(&k.len()));
        }
        assert_eq!(m.get("/locks/"), None);
    }
}
