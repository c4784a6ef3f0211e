//! The data tree: znodes keyed by full path, with ZooKeeper's stat rules.

use super::path;
use super::small_map::SmallMap;
use super::{CreateMode, Name, Stat};
use serde::Serialize;
use std::ops::Bound;

/// One znode.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Node {
    pub data: Vec<u8>,
    pub stat: Stat,
    pub mode: CreateMode,
}

impl Node {
    pub fn is_ephemeral(&self) -> bool {
        self.mode.is_ephemeral()
    }

    /// The suffix the next sequential child gets: the number of children
    /// ever created under this node.
    ///
    /// ZooKeeper stores exactly that count as the persisted `cversion`
    /// (`DataTree.createNode`; deletes leave it alone) and
    /// `PrepRequestProcessor` formats it with `%010d`. The `cversion` a
    /// client sees is derived from it (`DataNode.copyStat`:
    /// `2 * creates - numChildren`, i.e. creates plus deletes). The model
    /// keeps the client's view in [`Stat`] and derives the count back, so a
    /// delete does *not* make the next suffix skip: create `n-0000000000`,
    /// delete it, and the next is `n-0000000001` while `cversion` is 2.
    pub fn next_sequence(&self) -> i32 {
        (self.stat.cversion + self.stat.num_children) / 2
    }
}

/// All znodes, keyed by full path, in path order: iteration (and so every
/// trace) is deterministic, and a node's children are one range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tree {
    nodes: SmallMap<Name, Node>,
}

impl Default for Tree {
    fn default() -> Self {
        Self::new()
    }
}

impl Tree {
    /// A tree holding only `/`.
    pub fn new() -> Self {
        let mut nodes = SmallMap::default();
        nodes.insert(
            Name::from("/"),
            Node {
                data: Vec::new(),
                stat: Stat::default(),
                mode: CreateMode::Persistent,
            },
        );
        Tree { nodes }
    }

    pub fn get(&self, path: &str) -> Option<&Node> {
        self.nodes.get(path)
    }

    pub fn get_mut(&mut self, path: &str) -> Option<&mut Node> {
        self.nodes.get_mut(path)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.nodes.contains_key(path)
    }

    /// Every node, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Node)> {
        self.nodes.iter()
    }

    /// The names of `parent`'s children, sorted.
    pub fn children(&self, parent: &str) -> Vec<Name> {
        let mut prefix = String::with_capacity(parent.len() + 1);
        prefix.push_str(parent);
        if parent != "/" {
            prefix.push('/');
        }
        // Bytes, not `str`: a stored name's UTF-8 is not checked again.
        let cut = prefix.len();
        self.nodes
            .range_from::<str>(Bound::Included(prefix.as_str()))
            .map(|(p, _)| p)
            .take_while(|p| p.as_bytes().starts_with(prefix.as_bytes()))
            .filter(|p| p.as_bytes().len() > cut && !p.as_bytes()[cut..].contains(&b'/'))
            .map(|p| p.tail(cut))
            .collect()
    }

    /// Inserts a node under an existing parent, updating the parent's
    /// `cversion`, `pzxid` and `numChildren` as `DataTree.createNode` does
    /// (as a client sees them, see [`Node::next_sequence`]).
    pub fn insert(&mut self, at: &str, data: Vec<u8>, mode: CreateMode, owner: i64, zxid: i64) {
        let parent = path::parent(at).unwrap_or("/");
        if let Some(p) = self.nodes.get_mut(parent) {
            p.stat.cversion += 1;
            p.stat.pzxid = zxid;
            p.stat.num_children += 1;
        }
        // A container is stored with `EphemeralType.CONTAINER_EPHEMERAL_OWNER`
        // but reported with owner 0 (`DataNode.getClientEphemeralOwner`);
        // the model tells containers apart by `mode`.
        let ephemeral_owner = if mode.is_ephemeral() { owner } else { 0 };
        let stat = Stat {
            czxid: zxid,
            mzxid: zxid,
            pzxid: zxid,
            version: 0,
            cversion: 0,
            ephemeral_owner,
            data_length: data.len() as i32,
            num_children: 0,
        };
        self.nodes.insert(at.into(), Node { data, stat, mode });
    }

    /// Removes a childless node, updating its parent. A client sees the
    /// parent's `cversion` grow on deletes too (`cversion` counts creates and
    /// deletes), but the sequence counter does not: see
    /// [`Node::next_sequence`].
    pub fn remove(&mut self, at: &str, zxid: i64) -> Option<Node> {
        let node = self.nodes.remove(at)?;
        if let Some(parent) = path::parent(at) {
            if let Some(p) = self.nodes.get_mut(parent) {
                p.stat.cversion += 1;
                p.stat.pzxid = zxid;
                p.stat.num_children -= 1;
            }
        }
        Some(node)
    }

    /// Paths of the ephemeral nodes `owner` holds, in path order.
    pub fn ephemerals_of(&self, owner: i64) -> Vec<Name> {
        self.nodes
            .iter()
            .filter(|(_, n)| n.is_ephemeral() && n.stat.ephemeral_owner == owner)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Containers the server's `ContainerManager` would reap now: ones that
    /// have had a child (`cversion > 0`) and have none left.
    pub fn reapable_containers(&self) -> Vec<Name> {
        self.reapable().map(|(p, _)| p.clone()).collect()
    }

    /// Whether any container is reapable now (asked on every checker state,
    /// so it collects nothing).
    pub fn has_reapable(&self) -> bool {
        self.reapable().next().is_some()
    }

    fn reapable(&self) -> impl Iterator<Item = (&Name, &Node)> {
        self.nodes.iter().filter(|(_, n)| {
            n.mode == CreateMode::Container && n.stat.cversion > 0 && n.stat.num_children == 0
        })
    }
}

impl Tree {
    /// Renames every path `rename` gives a new name (the checker's
    /// sequence-suffix abstraction).
    pub fn rename(&mut self, rename: &dyn Fn(&str) -> Option<String>) {
        self.nodes = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(|(p, n)| (rename(&p).map(Name::from).unwrap_or(p), n))
            .collect();
    }

    /// Replaces every node's stat by `restat` of the node.
    pub fn restat(&mut self, restat: &dyn Fn(&Node) -> Stat) {
        for n in self.nodes.values_mut() {
            n.stat = restat(n);
        }
    }
}
