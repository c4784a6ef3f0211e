//! What the server answers: each request's response, its header's
//! revision (the store's revision once the request is done), and etcd's
//! errors with their texts.

use super::kv::{KeyValue, LeaseId};
use serde::Serialize;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Reply {
    Put {
        revision: i64,
    },
    Range {
        revision: i64,
        kvs: Vec<KeyValue>,
    },
    Deleted {
        revision: i64,
        deleted: u8,
    },
    /// `Txn`: which branch ran, and each of its ops' responses in order.
    Txn {
        revision: i64,
        succeeded: bool,
        responses: Vec<Reply>,
    },
    Granted {
        id: LeaseId,
        ttl: u8,
    },
    /// A keep-alive's answer: the lease's full TTL, or 0 once it is gone
    /// (the client's `Done()` then closes).
    KeptAlive {
        id: LeaseId,
        ttl: i8,
    },
    Revoked {
        revision: i64,
    },
    /// The watch is registered and waits for a delete.
    Watching,
    /// A watch's `DELETE` event.
    Event(Event),
    Compacted {
        revision: i64,
    },
    Error(EtcdError),
}

/// A `DELETE` event of a watched key, at the revision that deleted it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Event {
    pub key: String,
    pub revision: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum EtcdError {
    /// A `Put` names a lease the server does not have.
    LeaseNotFound,
    /// A watch or a compaction asks for a revision compacted away.
    Compacted,
    /// A compaction asks for a revision the store has not reached.
    FutureRevision,
    /// A grant asks for an id in use.
    LeaseExists,
    /// A `Txn` branch puts one key twice, or puts a key it also deletes
    /// (checked on both branches before either runs).
    DuplicateKey,
    /// The client's own deadline passed before a reply came (clientv3's
    /// `context deadline exceeded`: not the server's).
    DeadlineExceeded,
}

impl EtcdError {
    /// etcd's own text for the error, as its gRPC status says it
    /// (`rpctypes`).
    pub fn text(self) -> &'static str {
        match self {
            EtcdError::LeaseNotFound => "etcdserver: requested lease not found",
            EtcdError::Compacted => "etcdserver: mvcc: required revision has been compacted",
            EtcdError::FutureRevision => "etcdserver: mvcc: required revision is a future revision",
            EtcdError::LeaseExists => "etcdserver: lease already exists",
            EtcdError::DuplicateKey => "etcdserver: duplicate key given in txn request",
            EtcdError::DeadlineExceeded => "context deadline exceeded",
        }
    }
}

impl Reply {
    /// The keys of a `Range` response (none for any other).
    pub fn kvs(&self) -> &[KeyValue] {
        match self {
            Reply::Range { kvs, .. } => kvs,
            _ => &[],
        }
    }
}

impl Reply {
    /// The reply without its header's revision, as a `Txn` shows each of
    /// its ops' responses.
    fn body(&self) -> String {
        match self {
            Reply::Put { .. } => "OK".into(),
            Reply::Range { kvs, .. } if kvs.is_empty() => "no keys".into(),
            Reply::Range { kvs, .. } => {
                let keys: Vec<String> = kvs.iter().map(KeyValue::to_string).collect();
                format!("[{}]", keys.join(", "))
            }
            Reply::Deleted { deleted, .. } => format!("{deleted} deleted"),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Put { revision }
            | Reply::Range { revision, .. }
            | Reply::Deleted { revision, .. } => {
                write!(f, "{} (rev {revision})", self.body())
            }
            Reply::Txn {
                revision,
                succeeded,
                responses,
            } => {
                let branch = if *succeeded { "then" } else { "else" };
                let each: Vec<String> = responses.iter().map(Reply::body).collect();
                let each = if each.is_empty() {
                    "nothing".to_string()
                } else {
                    each.join("; ")
                };
                write!(f, "{branch}: {each} (rev {revision})")
            }
            Reply::Granted { id, ttl } => write!(f, "lease {id} granted with TTL({ttl})"),
            Reply::KeptAlive { id, ttl } => write!(f, "lease {id} keepalived with TTL({ttl})"),
            Reply::Revoked { revision } => write!(f, "lease revoked (rev {revision})"),
            Reply::Watching => f.write_str("watching"),
            Reply::Event(e) => write!(f, "DELETE {} (rev {})", e.key, e.revision),
            Reply::Compacted { revision } => write!(f, "compacted revision {revision}"),
            Reply::Error(e) => f.write_str(e.text()),
        }
    }
}
