//! Every recipe of every backend in one list, so that whatever names
//! recipes to a user — `locksmith recipes`, the help, the message for an
//! unknown one — names all of them, the same way, and cannot fall behind
//! when a backend gains a recipe.
//!
//! Each backend keeps its own catalogue beside its recipes
//! ([`RecipeId`] for ZooKeeper in [`crate::zk::recipes::catalogue`],
//! [`RedisRecipe`] and [`MysqlRecipe`] in their `mod.rs`), with each recipe's
//! id, origin and claim; this module only joins them, in that order.

use crate::etcd::recipes::EtcdRecipe;
use crate::mysql::recipes::MysqlRecipe;
use crate::redis::recipes::RedisRecipe;
use crate::zk::recipes::RecipeId;

/// The server a recipe locks on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    ZooKeeper,
    Redis,
    Mysql,
    Etcd,
}

impl Backend {
    /// Every backend, in catalogue order.
    pub const ALL: [Backend; 4] = [
        Backend::ZooKeeper,
        Backend::Redis,
        Backend::Mysql,
        Backend::Etcd,
    ];

    /// The server's name, as the help and `locksmith recipes` print it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::ZooKeeper => "ZooKeeper",
            Backend::Redis => "Redis",
            Backend::Mysql => "MySQL",
            Backend::Etcd => "etcd",
        }
    }
}

/// A recipe as its backend knows it: each backend builds a client's state
/// from its own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lock {
    Zk(RecipeId),
    Redis(RedisRecipe),
    Mysql(MysqlRecipe),
    Etcd(EtcdRecipe),
}

impl Lock {
    pub fn backend(self) -> Backend {
        match self {
            Lock::Zk(_) => Backend::ZooKeeper,
            Lock::Redis(_) => Backend::Redis,
            Lock::Mysql(_) => Backend::Mysql,
            Lock::Etcd(_) => Backend::Etcd,
        }
    }

    /// The recipe's id, as scenario files and the CLI name it.
    pub fn id(self) -> &'static str {
        match self {
            Lock::Zk(r) => r.name(),
            Lock::Redis(r) => r.id(),
            Lock::Mysql(r) => r.id(),
            Lock::Etcd(r) => r.id(),
        }
    }
}

/// One recipe of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// As scenario files and the CLI name it.
    pub id: &'static str,
    pub backend: Backend,
    /// Where it comes from: the seed and its lines or function.
    pub origin: &'static str,
    /// What it claims, in a sentence from its file's doc comment.
    pub claim: &'static str,
    /// Its backend's own id (the constructor's handle).
    pub lock: Lock,
}

impl Entry {
    fn of(lock: Lock) -> Entry {
        let (origin, claim) = match lock {
            Lock::Zk(r) => (r.origin(), r.claim()),
            Lock::Redis(r) => (r.origin(), r.claim()),
            Lock::Mysql(r) => (r.origin(), r.claim()),
            Lock::Etcd(r) => (r.origin(), r.claim()),
        };
        Entry {
            id: lock.id(),
            backend: lock.backend(),
            origin,
            claim,
            lock,
        }
    }
}

/// Every recipe: ZooKeeper's in [`RecipeId::ALL`] order, then Redis's in
/// [`RedisRecipe::ALL`] order, then MySQL's in [`MysqlRecipe::ALL`] order, then etcd's in [`EtcdRecipe::ALL`] order.
pub fn all() -> Vec<Entry> {
    let zk = RecipeId::ALL.iter().map(|&r| Lock::Zk(r));
    let redis = RedisRecipe::ALL.into_iter().map(Lock::Redis);
    let mysql = MysqlRecipe::ALL.into_iter().map(Lock::Mysql);
    let etcd = EtcdRecipe::ALL.into_iter().map(Lock::Etcd);
    zk.chain(redis)
        .chain(mysql)
        .chain(etcd)
        .map(Entry::of)
        .collect()
}

/// The recipe with this id, of any backend.
pub fn find(id: &str) -> Option<Entry> {
    all().into_iter().find(|e| e.id == id)
}

/// The id nearest to `id` by edit distance, if it is near enough to be a
/// typo (at most 2 edits, or a third of `id`'s length); of two as near, the
/// first in catalogue order.
pub fn nearest(id: &str) -> Option<&'static str> {
    let typed: Vec<char> = id.chars().collect();
    let limit = (typed.len() / 3).max(2);
    let mut best: Option<(usize, &'static str)> = None;
    for e in all() {
        let known: Vec<char> = e.id.chars().collect();
        // The distance is at least the difference in length: a long input
        // is not compared at all.
        if typed.len().abs_diff(known.len()) > limit {
            continue;
        }
        let d = levenshtein(&typed, &known);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, e.id));
        }
    }
    best.map(|(_, id)| id)
}

/// The message for a recipe id no backend has: every valid id, by
/// backend, and the nearest one if `id` looks like a typo of it.
pub fn unknown_recipe(id: &str) -> String {
    let entries = all();
    let groups: Vec<String> = Backend::ALL
        .iter()
        .map(|&b| {
            let ids: Vec<&str> = entries
                .iter()
                .filter(|e| e.backend == b)
                .map(|e| e.id)
                .collect();
            format!("{} ({})", ids.join(", "), b.name())
        })
        .collect();
    let mut m = format!(
        "unknown recipe `{id}`: expected one of {}",
        groups.join(", ")
    );
    if let Some(near) = nearest(id) {
        m.push_str(&format!("; did you mean `{near}`?"));
    }
    m
}

/// The edit distance (insertions, deletions, substitutions) of `a` and `b`.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backend_s_recipes_are_listed_once_in_catalogue_order() {
        let all = all();
        let count = |b| all.iter().filter(|e| e.backend == b).count();
        assert_eq!(
            (all.len(), count(Backend::ZooKeeper), count(Backend::Redis)),
            (34, 17, 9)
        );
        assert_eq!((count(Backend::Mysql), count(Backend::Etcd)), (5, 3));
        let mut ids: Vec<&str> = all.iter().map(|e| e.id).collect();
        assert_eq!(ids[0], RecipeId::ALL[0].name());
        assert_eq!(ids[17], RedisRecipe::ALL[0].id());
        assert_eq!(ids[26], MysqlRecipe::ALL[0].id());
        assert_eq!(ids[31], EtcdRecipe::ALL[0].id());
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 34, "an id is listed twice");
        for e in &all {
            assert!(!e.origin.is_empty() && !e.claim.is_empty(), "{e:?}");
            assert_eq!(find(e.id), Some(*e));
            assert_eq!(e.lock.backend(), e.backend);
        }
    }

    #[test]
    fn zookeeper_entries_keep_their_catalogue_strings() {
        for &r in RecipeId::ALL {
            let e = find(r.name()).expect("listed");
            assert_eq!(
                (e.origin, e.claim, e.lock),
                (r.origin(), r.claim(), Lock::Zk(r))
            );
        }
    }

    #[test]
    fn a_typo_finds_its_recipe_and_nonsense_finds_none() {
        assert_eq!(nearest("predecesor"), Some("predecessor"));
        assert_eq!(nearest("redis-set-px-dell"), Some("redis-set-px-del"));
        assert_eq!(nearest("mysql-status-cass"), Some("mysql-status-cas"));
        assert_eq!(nearest("curatorr"), Some("curator"));
        assert_eq!(nearest("zookeeper"), None);
        assert_eq!(nearest(""), None);
        assert_eq!(nearest(&"x".repeat(100_000)), None);
        assert_eq!(levenshtein(&['a', 'b'], &['b', 'a']), 2);
        assert_eq!(levenshtein(&[], &['a', 'b', 'c']), 3);
    }

    #[test]
    fn a_tie_goes_to_the_first_in_catalogue_order() {
        // One substitution from both `fixed-wait` and `timed-wait`.
        let typed: Vec<char> = "tixed-wait".chars().collect();
        for id in ["fixed-wait", "timed-wait"] {
            let known: Vec<char> = id.chars().collect();
            assert_eq!(levenshtein(&typed, &known), 1, "{id}");
        }
        assert_eq!(nearest("tixed-wait"), Some("fixed-wait"));
    }

    #[test]
    fn the_message_lists_every_backend_and_suggests_the_nearest() {
        let m = unknown_recipe("redis-set-px-dell");
        assert!(
            m.starts_with(
                "unknown recipe `redis-set-px-dell`: expected one of predecessor, racy-wait,"
            ),
            "{m}"
        );
        for e in all() {
            assert!(m.contains(e.id), "{} missing: {m}", e.id);
        }
        assert!(
            m.contains("kazoo-lock (ZooKeeper), redis-set-px-del,"),
            "{m}"
        );
        assert!(
            m.contains("redis-set-px-token (Redis), mysql-unique-key,"),
            "{m}"
        );
        assert!(
            m.ends_with("mysql-status-cas-unguarded (MySQL), etcd-mutex, etcd-mutex-3.5, etcd-txn-lease (etcd); did you mean `redis-set-px-del`?"),
            "{m}"
        );
        assert!(unknown_recipe("zookeeper").ends_with("(etcd)"));
    }
}
