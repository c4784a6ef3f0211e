//! Watch notifications, as `WatchedEvent` carries them to a client.

use super::Name;
use serde::Serialize;
use std::fmt;

/// The node event types of `Watcher.Event.EventType` (connection-state
/// events are the client library's business, not the server's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum EventType {
    NodeCreated,
    NodeDeleted,
    NodeDataChanged,
    NodeChildrenChanged,
}

/// One notification for one session: a watch on `path` fired.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WatchedEvent {
    pub kind: EventType,
    pub path: Name,
}

impl fmt::Display for WatchedEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {}", self.kind, self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_reads_as_its_kind_and_path_in_traces() {
        let e = WatchedEvent {
            kind: EventType::NodeDeleted,
            path: "/locks/lock-0000000001".into(),
        };
        assert_eq!(e.to_string(), "NodeDeleted /locks/lock-0000000001");
    }
}
