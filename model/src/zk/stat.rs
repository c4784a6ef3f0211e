//! The `Stat` structure ZooKeeper returns with every node.

use serde::Serialize;

/// A znode's metadata. `ctime`/`mtime` are left out: the model has no clock,
/// and no recipe in the catalogue reads them. `aversion` is left out because
/// the model has no ACLs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Stat {
    /// zxid of the transaction that created the node.
    pub czxid: i64,
    /// zxid of the last transaction that changed the node's data.
    pub mzxid: i64,
    /// zxid of the last transaction that added or removed a child.
    pub pzxid: i64,
    /// Number of changes to the data.
    pub version: i32,
    /// Number of changes to the children (creates *and* deletes), as a
    /// client sees it. The sequential suffix is *not* this but the number
    /// of creates alone, `(cversion + num_children) / 2`: see
    /// [`Node::next_sequence`](super::Node::next_sequence).
    pub cversion: i32,
    /// Session id of an ephemeral node's owner, 0 otherwise.
    pub ephemeral_owner: i64,
    pub data_length: i32,
    pub num_children: i32,
}
