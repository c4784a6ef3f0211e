//! The requests a client sends, as the etcd v3 API names them, and how a
//! trace prints them (in `etcdctl`'s words where it has them).

use super::kv::LeaseId;
use serde::Serialize;
use std::fmt;

/// One request to the server (one gRPC call).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Request {
    Put(Put),
    Range(Range),
    /// `DeleteRange` of one key, or of a prefix.
    Delete {
        key: String,
        prefix: bool,
    },
    Txn(Txn),
    /// `LeaseGrant` with the id the client asks for, and a TTL.
    Grant {
        id: LeaseId,
        ttl: u8,
    },
    /// One `LeaseKeepAlive` message.
    KeepAlive(LeaseId),
    /// `LeaseRevoke`: the lease ends now, its keys with it.
    Revoke(LeaseId),
    /// `Watch` of one key from a revision (`WithRev`; 0: from the next
    /// revision, as `Watch(ctx, key)` without options).
    Watch {
        key: String,
        from: i64,
    },
    /// `Compact`: revisions before this one are forgotten.
    Compact(i64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Put {
    pub key: String,
    pub value: String,
    pub lease: Option<LeaseId>,
}

/// `Range`: one key, or every key with a prefix; sorted, filtered by
/// create revision, truncated to a limit (in that order, as the server's
/// `Range` does once a sort or a filter is asked for).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Range {
    pub key: String,
    pub prefix: bool,
    pub order: Order,
    /// At most this many keys (0: all).
    pub limit: u8,
    /// Only keys created at this revision or before (0: any).
    pub max_create_revision: i64,
}

impl Range {
    /// `Get(key)`.
    pub fn key(key: &str) -> Range {
        Range {
            key: key.to_string(),
            prefix: false,
            order: Order::Key,
            limit: 0,
            max_create_revision: 0,
        }
    }

    /// `Get(prefix, WithFirstCreate()...)`: the oldest key under it.
    pub fn first_create(prefix: &str) -> Range {
        Range {
            key: prefix.to_string(),
            prefix: true,
            order: Order::CreateAscending,
            limit: 1,
            max_create_revision: 0,
        }
    }

    /// `Get(prefix, WithLastCreate()..., WithMaxCreateRev(max))`: the
    /// newest key under it created at `max` or before.
    pub fn last_create_up_to(prefix: &str, max: i64) -> Range {
        Range {
            key: prefix.to_string(),
            prefix: true,
            order: Order::CreateDescending,
            limit: 1,
            max_create_revision: max,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Order {
    /// By key, ascending (`SortNone`: the store's own order).
    Key,
    CreateAscending,
    CreateDescending,
}

/// `Txn`: if every compare holds, the success ops, else the failure ops;
/// atomically, at one revision if any of them writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Txn {
    pub compare: Vec<Compare>,
    pub success: Vec<Op>,
    pub failure: Vec<Op>,
}

/// An operation inside a `Txn`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    Put(Put),
    Get(Range),
    Delete { key: String, prefix: bool },
}

/// `Compare(target(key), cmp, value)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Compare {
    pub key: String,
    pub cmp: Cmp,
    pub target: Target,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Cmp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

/// What a compare reads of the key, and the value it is compared with.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Target {
    CreateRevision(i64),
    ModRevision(i64),
    Version(i64),
    Value(String),
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cmp::Equal => "=",
            Cmp::NotEqual => "!=",
            Cmp::Greater => ">",
            Cmp::Less => "<",
        })
    }
}

impl fmt::Display for Compare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, v) = match &self.target {
            Target::CreateRevision(r) => ("create", r.to_string()),
            Target::ModRevision(r) => ("mod", r.to_string()),
            Target::Version(r) => ("version", r.to_string()),
            Target::Value(s) => ("value", format!("{s:?}")),
        };
        write!(f, "{what}({}) {} {v}", self.key, self.cmp)
    }
}

impl fmt::Display for Put {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "put {} {:?}", self.key, self.value)?;
        if let Some(l) = self.lease {
            write!(f, " --lease={l}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "get {}", self.key)?;
        if self.prefix {
            f.write_str(" --prefix")?;
        }
        match (self.order, self.limit) {
            (Order::CreateAscending, 1) => f.write_str(" first-create")?,
            (Order::CreateDescending, 1) => f.write_str(" last-create")?,
            (Order::Key, 0) => {}
            (o, l) => write!(f, " --order={o:?} --limit={l}")?,
        }
        if self.max_create_revision > 0 {
            write!(f, " max-create-rev={}", self.max_create_revision)?;
        }
        Ok(())
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Put(p) => write!(f, "{p}"),
            Op::Get(r) => write!(f, "{r}"),
            Op::Delete { key, prefix } => delete(f, key, *prefix),
        }
    }
}

fn delete(f: &mut fmt::Formatter<'_>, key: &str, prefix: bool) -> fmt::Result {
    write!(f, "del {key}{}", if prefix { " --prefix" } else { "" })
}

fn ops(f: &mut fmt::Formatter<'_>, ops: &[Op]) -> fmt::Result {
    for (i, op) in ops.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{op}")?;
    }
    Ok(())
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Put(p) => write!(f, "{p}"),
            Request::Range(r) => write!(f, "{r}"),
            Request::Delete { key, prefix } => delete(f, key, *prefix),
            Request::Txn(t) => {
                f.write_str("txn if ")?;
                for (i, c) in t.compare.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" and ")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str(" then ")?;
                ops(f, &t.success)?;
                if !t.failure.is_empty() {
                    f.write_str(" else ")?;
                    ops(f, &t.failure)?;
                }
                Ok(())
            }
            Request::Grant { id, ttl } => write!(f, "lease grant {ttl} (id {id})"),
            Request::KeepAlive(id) => write!(f, "lease keep-alive {id}"),
            Request::Revoke(id) => write!(f, "lease revoke {id}"),
            Request::Watch { key, from: 0 } => write!(f, "watch {key}"),
            Request::Watch { key, from } => write!(f, "watch {key} --rev={from}"),
            Request::Compact(r) => write!(f, "compaction {r}"),
        }
    }
}
