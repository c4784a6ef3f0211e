//! A Redis run as a [`Report`](crate::engine::verdict::Report): every
//! property with its verdict, in the shape every backend's checker
//! reports; the engine judges, Redis says why it does not judge what it
//! cannot have ([`Reported`]).

use super::config::RedisSpace;
use crate::engine::command::{Reported, Unjudged};

impl Reported for RedisSpace {
    fn unjudged(&self) -> Unjudged {
        Unjudged {
            orphaned_node: "Redis has no sequential nodes",
            reentrancy: "the Redis recipes are not re-entrant",
            herd: Some("the Redis recipes wait on no notification: they retry or give up"),
        }
    }
}
