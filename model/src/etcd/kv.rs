//! What the store keeps of a key, and a lease's id.

use serde::Serialize;
use std::fmt;

/// A lease's id. etcd prints it in hex (the `Mutex` names its key
/// `prefix/<id in hex>`), and so does the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LeaseId(pub u16);

impl fmt::Display for LeaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}", self.0)
    }
}

/// A key as `Range` returns it (`mvccpb.KeyValue`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct KeyValue {
    pub key: String,
    /// The revision of the `Put` that created the key (since its last
    /// delete).
    pub create_revision: i64,
    /// The revision of its last `Put`.
    pub mod_revision: i64,
    /// How many `Put`s since it was created (1 after the first).
    pub version: i64,
    pub value: String,
    /// The lease it is attached to: the lease's revoke deletes it.
    pub lease: Option<LeaseId>,
}

impl fmt::Display for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.key, self.create_revision)?;
        if !self.value.is_empty() {
            write!(f, "={}", self.value)?;
        }
        if let Some(l) = self.lease {
            write!(f, " lease {l}")?;
        }
        Ok(())
    }
}
