//! An etcd run as a [`Report`](crate::engine::verdict::Report): every
//! property with its verdict, in the shape every backend's checker
//! reports; the engine judges, etcd says why it does not judge what it
//! cannot have ([`Reported`]).

use super::config::EtcdSpace;
use crate::engine::command::{Reported, Unjudged};

impl Reported for EtcdSpace {
    fn unjudged(&self) -> Unjudged {
        Unjudged {
            orphaned_node: "an etcd key lives as long as its lease",
            reentrancy: "the etcd recipes are not re-entrant",
            herd: (self.clients < 3)
                .then_some("a herd needs two waiters woken by one release: 3 clients or more"),
        }
    }
}
