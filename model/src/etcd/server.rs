//! The server: the store at its revision, the leases with their remaining
//! time, and the watches waiting for a delete.

use super::kv::{KeyValue, LeaseId};
use super::reply::{EtcdError, Event, Reply};
use super::request::{Cmp, Compare, Op, Order, Put, Range, Request, Target, Txn};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EtcdServer {
    revision: i64,
    /// Revisions before this one are compacted away (0: none).
    compacted: i64,
    kvs: BTreeMap<String, KeyValue>,
    leases: BTreeMap<LeaseId, Lease>,
    /// The revisions at which each key was deleted, oldest first, since
    /// the compaction: what a watch from an older revision replays.
    deleted_at: BTreeMap<String, Vec<i64>>,
    /// Watches waiting for a delete: the watcher's number, the key, and
    /// the revision it watches from (a delete before it is not its).
    watches: Vec<(u8, String, i64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lease {
    /// The granted TTL, in the model's time units.
    pub ttl: u8,
    /// Time left before the lessor revokes it, unless kept alive.
    pub remaining: u8,
}

/// A watch that fired: its watcher and the event it delivers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    pub watcher: u8,
    pub event: Event,
}

impl Default for EtcdServer {
    fn default() -> Self {
        EtcdServer::new()
    }
}

impl EtcdServer {
    /// An empty store at revision 1, as a new etcd reports.
    pub fn new() -> EtcdServer {
        EtcdServer {
            revision: 1,
            compacted: 0,
            kvs: BTreeMap::new(),
            leases: BTreeMap::new(),
            deleted_at: BTreeMap::new(),
            watches: Vec::new(),
        }
    }

    pub fn revision(&self) -> i64 {
        self.revision
    }

    /// Revisions before this one are compacted away (0: none).
    pub fn compacted(&self) -> i64 {
        self.compacted
    }

    pub fn get(&self, key: &str) -> Option<&KeyValue> {
        self.kvs.get(key)
    }

    /// Every key with `prefix`, in key order.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a KeyValue> + 'a {
        self.kvs
            .range(prefix.to_string()..)
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(_, kv)| kv)
    }

    pub fn lease(&self, id: LeaseId) -> Option<&Lease> {
        self.leases.get(&id)
    }

    pub fn leases(&self) -> impl Iterator<Item = (LeaseId, &Lease)> {
        self.leases.iter().map(|(&id, l)| (id, l))
    }

    /// The watcher's watch is registered and has not fired.
    pub fn watching(&self, watcher: u8) -> bool {
        self.watches.iter().any(|(w, _, _)| *w == watcher)
    }

    /// Handles `req` from `watcher` (the client's number, which names its
    /// watches): the reply, and the watches the request's deletes fired.
    pub fn apply(&mut self, watcher: u8, req: &Request) -> (Reply, Vec<Fired>) {
        let mut fired = Vec::new();
        let reply = match req {
            Request::Put(p) => self.single(Op::Put(p.clone()), &mut fired),
            Request::Delete { key, prefix } => self.single(
                Op::Delete {
                    key: key.clone(),
                    prefix: *prefix,
                },
                &mut fired,
            ),
            Request::Range(r) => Reply::Range {
                revision: self.revision,
                kvs: self.range(r),
            },
            Request::Txn(t) => self.txn(t, &mut fired),
            Request::Grant { id, ttl } => {
                if self.leases.contains_key(id) {
                    Reply::Error(EtcdError::LeaseExists)
                } else {
                    let ttl = (*ttl).max(1);
                    self.leases.insert(
                        *id,
                        Lease {
                            ttl,
                            remaining: ttl,
                        },
                    );
                    Reply::Granted { id: *id, ttl }
                }
            }
            Request::KeepAlive(id) => match self.leases.get_mut(id) {
                Some(l) => {
                    l.remaining = l.ttl;
                    Reply::KeptAlive {
                        id: *id,
                        ttl: l.ttl as i8,
                    }
                }
                None => Reply::KeptAlive { id: *id, ttl: 0 },
            },
            Request::Revoke(id) => {
                if self.leases.contains_key(id) {
                    self.revoke(*id, &mut fired);
                    Reply::Revoked {
                        revision: self.revision,
                    }
                } else {
                    Reply::Error(EtcdError::LeaseNotFound)
                }
            }
            Request::Watch { key, from } => self.watch(watcher, key, *from),
            Request::Compact(r) => {
                if *r <= self.compacted {
                    Reply::Error(EtcdError::Compacted)
                } else if *r > self.revision {
                    Reply::Error(EtcdError::FutureRevision)
                } else {
                    self.compacted = *r;
                    for at in self.deleted_at.values_mut() {
                        at.retain(|&d| d >= *r);
                    }
                    self.deleted_at.retain(|_, at| !at.is_empty());
                    Reply::Compacted { revision: *r }
                }
            }
        };
        (reply, fired)
    }

    /// One unit of time: each lease `kept_alive` does not renew counts
    /// down; one at zero is revoked (its keys deleted in one revision).
    pub fn tick(&mut self, kept_alive: impl Fn(LeaseId) -> bool) -> Vec<Fired> {
        let mut expired = Vec::new();
        for (&id, l) in self.leases.iter_mut() {
            if kept_alive(id) {
                l.remaining = l.ttl;
            } else {
                l.remaining = l.remaining.saturating_sub(1);
                if l.remaining == 0 {
                    expired.push(id);
                }
            }
        }
        let mut fired = Vec::new();
        for id in expired {
            self.revoke(id, &mut fired);
        }
        fired
    }

    /// The watches of `watcher` end (its connection closed).
    pub fn cancel_watches(&mut self, watcher: u8) {
        self.watches.retain(|(w, _, _)| *w != watcher);
    }

    /// Ends lease `id` and deletes its keys, in one revision if any.
    pub fn revoke(&mut self, id: LeaseId, fired: &mut Vec<Fired>) {
        self.leases.remove(&id);
        let keys: Vec<String> = self
            .kvs
            .values()
            .filter(|kv| kv.lease == Some(id))
            .map(|kv| kv.key.clone())
            .collect();
        if keys.is_empty() {
            return;
        }
        self.revision += 1;
        for k in keys {
            self.remove(&k, fired);
        }
    }

    fn watch(&mut self, watcher: u8, key: &str, from: i64) -> Reply {
        if from > 0 && from < self.compacted {
            return Reply::Error(EtcdError::Compacted);
        }
        let replayed = self
            .deleted_at
            .get(key)
            .and_then(|at| at.iter().find(|&&r| from > 0 && r >= from));
        match replayed {
            Some(&at) => Reply::Event(Event {
                key: key.to_string(),
                revision: at,
            }),
            None => {
                self.watches.push((watcher, key.to_string(), from));
                Reply::Watching
            }
        }
    }

    fn range(&self, r: &Range) -> Vec<KeyValue> {
        let mut kvs: Vec<KeyValue> = if r.prefix {
            self.with_prefix(&r.key).cloned().collect()
        } else {
            self.kvs.get(&r.key).cloned().into_iter().collect()
        };
        if r.max_create_revision > 0 {
            kvs.retain(|kv| kv.create_revision <= r.max_create_revision);
        }
        match r.order {
            Order::Key => {}
            Order::CreateAscending => kvs.sort_by_key(|kv| kv.create_revision),
            Order::CreateDescending => kvs.sort_by_key(|kv| std::cmp::Reverse(kv.create_revision)),
        }
        if r.limit > 0 {
            kvs.truncate(r.limit as usize);
        }
        kvs
    }

    fn holds(&self, c: &Compare) -> bool {
        let kv = self.kvs.get(&c.key);
        let ord = match (&c.target, kv) {
            // Comparing a missing key's value always fails.
            (Target::Value(_), None) => return false,
            (Target::Value(v), Some(kv)) => kv.value.cmp(v),
            (Target::CreateRevision(r), _) => kv.map_or(0, |k| k.create_revision).cmp(r),
            (Target::ModRevision(r), _) => kv.map_or(0, |k| k.mod_revision).cmp(r),
            (Target::Version(r), _) => kv.map_or(0, |k| k.version).cmp(r),
        };
        match c.cmp {
            Cmp::Equal => ord.is_eq(),
            Cmp::NotEqual => ord.is_ne(),
            Cmp::Greater => ord.is_gt(),
            Cmp::Less => ord.is_lt(),
        }
    }

    fn txn(&mut self, t: &Txn, fired: &mut Vec<Fired>) -> Reply {
        if duplicate_key(&t.success) || duplicate_key(&t.failure) {
            return Reply::Error(EtcdError::DuplicateKey);
        }
        let succeeded = t.compare.iter().all(|c| self.holds(c));
        let ops = if succeeded { &t.success } else { &t.failure };
        match self.write(ops, fired) {
            Ok((revision, responses)) => Reply::Txn {
                revision,
                succeeded,
                responses,
            },
            Err(e) => Reply::Error(e),
        }
    }

    /// A `Put` or `DeleteRange` on its own: its one response.
    fn single(&mut self, op: Op, fired: &mut Vec<Fired>) -> Reply {
        match self.revision_for(std::slice::from_ref(&op)) {
            Ok(revision) => self.run(&op, revision, fired),
            Err(e) => Reply::Error(e),
        }
    }

    /// Runs `ops` at one new revision if any of them changes the store:
    /// the revision after them, and each op's response.
    fn write(
        &mut self,
        ops: &[Op],
        fired: &mut Vec<Fired>,
    ) -> Result<(i64, Vec<Reply>), EtcdError> {
        let revision = self.revision_for(ops)?;
        let responses = ops.iter().map(|op| self.run(op, revision, fired)).collect();
        Ok((revision, responses))
    }

    /// The revision `ops` run at: the next one if any of them writes. A
    /// `Put` on a lease the server does not have fails them all.
    fn revision_for(&self, ops: &[Op]) -> Result<i64, EtcdError> {
        let missing_lease = ops.iter().any(
            |op| matches!(op, Op::Put(Put { lease: Some(l), .. }) if !self.leases.contains_key(l)),
        );
        if missing_lease {
            return Err(EtcdError::LeaseNotFound);
        }
        let writes = ops.iter().any(|op| match op {
            Op::Put(_) => true,
            Op::Get(_) => false,
            Op::Delete { key, prefix } => self.deletes(key, *prefix).next().is_some(),
        });
        Ok(self.revision + i64::from(writes))
    }

    /// One op at `revision` (the store moves to it with its first write).
    fn run(&mut self, op: &Op, revision: i64, fired: &mut Vec<Fired>) -> Reply {
        match op {
            // A read answers at the store's revision as it stands: before
            // the txn's write if none came yet (as etcd's own headers say).
            Op::Get(r) => Reply::Range {
                revision: self.revision,
                kvs: self.range(r),
            },
            Op::Put(p) => {
                self.revision = revision;
                self.put(p, revision);
                Reply::Put { revision }
            }
            Op::Delete { key, prefix } => {
                let keys: Vec<String> = self.deletes(key, *prefix).collect();
                for k in &keys {
                    self.revision = revision;
                    self.remove(k, fired);
                }
                Reply::Deleted {
                    revision: self.revision,
                    deleted: keys.len() as u8,
                }
            }
        }
    }

    fn deletes<'a>(&'a self, key: &'a str, prefix: bool) -> impl Iterator<Item = String> + 'a {
        self.kvs
            .keys()
            .filter(move |k| {
                if prefix {
                    k.starts_with(key)
                } else {
                    *k == key
                }
            })
            .cloned()
    }

    fn put(&mut self, p: &Put, revision: i64) {
        let kv = self.kvs.entry(p.key.clone()).or_insert_with(|| KeyValue {
            key: p.key.clone(),
            create_revision: revision,
            mod_revision: revision,
            version: 0,
            value: String::new(),
            lease: None,
        });
        kv.mod_revision = revision;
        kv.version += 1;
        kv.value = p.value.clone();
        kv.lease = p.lease;
    }

    /// Deletes `key` at the current revision and fires its watches.
    fn remove(&mut self, key: &str, fired: &mut Vec<Fired>) {
        self.kvs.remove(key);
        self.deleted_at
            .entry(key.to_string())
            .or_default()
            .push(self.revision);
        let revision = self.revision;
        self.watches.retain(|(w, k, from)| {
            if k != key || *from > revision {
                return true;
            }
            fired.push(Fired {
                watcher: *w,
                event: Event {
                    key: key.to_string(),
                    revision,
                },
            });
            false
        });
    }
}

/// A branch writes one key twice: two puts of it, or a put of a key one of
/// its deletes covers (etcd's `checkIntervals`, asked of each branch
/// before the compares).
fn duplicate_key(ops: &[Op]) -> bool {
    let puts: Vec<&str> = ops
        .iter()
        .filter_map(|op| match op {
            Op::Put(p) => Some(p.key.as_str()),
            _ => None,
        })
        .collect();
    let twice = puts.iter().enumerate().any(|(i, k)| puts[..i].contains(k));
    let deleted = ops.iter().any(|op| match op {
        Op::Delete { key, prefix } => puts.iter().any(|p| {
            if *prefix {
                p.starts_with(key.as_str())
            } else {
                p == key
            }
        }),
        _ => false,
    });
    twice || deleted
}
