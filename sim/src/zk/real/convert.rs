//! The mapping between the model's ZooKeeper terms and the
//! `zookeeper-client` crate's: create modes, error codes, stats and watch
//! events.

use locksmith_model::zk::{CreateMode, EventType, Stat, WatchedEvent, ZkError};
use zookeeper_client as zkc;

/// What a session tells its user besides replies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notification {
    /// A watch fired on the server.
    Node(WatchedEvent),
    /// The session expired (the crate tells every outstanding watcher).
    Expired,
}

pub(super) fn real_mode(mode: CreateMode) -> zkc::CreateMode {
    match mode {
        CreateMode::Persistent => zkc::CreateMode::Persistent,
        CreateMode::PersistentSequential => zkc::CreateMode::PersistentSequential,
        CreateMode::Ephemeral => zkc::CreateMode::Ephemeral,
        CreateMode::EphemeralSequential => zkc::CreateMode::EphemeralSequential,
        CreateMode::Container => zkc::CreateMode::Container,
    }
}

/// The crate's error as the model's `KeeperException` code. Anything the
/// model has no code for (timeouts, a closed client, throttling) is a lost
/// connection to the recipe: the call may or may not have been applied.
pub fn error(e: &zkc::Error) -> ZkError {
    match e {
        zkc::Error::NoNode => ZkError::NoNode,
        zkc::Error::NodeExists => ZkError::NodeExists,
        zkc::Error::NotEmpty => ZkError::NotEmpty,
        zkc::Error::BadVersion => ZkError::BadVersion,
        zkc::Error::NoChildrenForEphemerals => ZkError::NoChildrenForEphemerals,
        zkc::Error::SessionExpired => ZkError::SessionExpired,
        zkc::Error::BadArguments(_) => ZkError::BadArguments,
        zkc::Error::RuntimeInconsistent => ZkError::RuntimeInconsistency,
        zkc::Error::NoWatcher => ZkError::NoWatcher,
        _ => ZkError::ConnectionLoss,
    }
}

/// The crate's stat as the model's: the model has no clock (`ctime`,
/// `mtime`) and no ACLs (`aversion`); the other fields are the same.
pub fn stat_of(s: &zkc::Stat) -> Stat {
    Stat {
        czxid: s.czxid,
        mzxid: s.mzxid,
        pzxid: s.pzxid,
        version: s.version,
        cversion: s.cversion,
        ephemeral_owner: s.ephemeral_owner,
        data_length: s.data_length,
        num_children: s.num_children,
    }
}

/// A watcher's event as the model writes it; `None` for session states
/// other than expiry (a closed client tells its watchers `Closed`, which is
/// no server event).
pub(super) fn notification(e: &zkc::WatchedEvent) -> Option<Notification> {
    let kind = match e.event_type {
        zkc::EventType::Session => {
            return (e.session_state == zkc::SessionState::Expired).then_some(Notification::Expired)
        }
        zkc::EventType::NodeCreated => EventType::NodeCreated,
        zkc::EventType::NodeDeleted => EventType::NodeDeleted,
        zkc::EventType::NodeDataChanged => EventType::NodeDataChanged,
        zkc::EventType::NodeChildrenChanged => EventType::NodeChildrenChanged,
    };
    Some(Notification::Node(WatchedEvent {
        kind,
        path: e.path.as_str().into(),
    }))
}

/// Events in arrival order as notifications, copies merged. One server
/// notification reaches every watcher of the session it triggers (`exists`
/// and `getData` on one path, or a node's data and child watchers for
/// `NodeDeleted`); the crate wakes those copies one after another with no
/// reply in between, and a watch that fired must be set again by a call
/// before the same notification can come a second time.
pub(super) fn merge(events: &[zkc::WatchedEvent], out: &mut Vec<Notification>) {
    for n in events.iter().filter_map(notification) {
        if !out.contains(&n) {
            out.push(n);
        }
    }
}
