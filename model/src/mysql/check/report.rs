//! A MySQL run as a [`Report`](crate::engine::verdict::Report): every
//! property with its verdict, in the shape every backend's checker
//! reports; the engine judges, MySQL says why it does not judge what it
//! cannot have ([`Reported`]).

use super::config::MysqlSpace;
use crate::engine::command::{Reported, Unjudged};

impl Reported for MysqlSpace {
    fn unjudged(&self) -> Unjudged {
        Unjudged {
            orphaned_node: "a SQL lock has no sequential nodes",
            reentrancy: "the SQL recipes are not re-entrant",
            herd: Some(
                "the SQL recipes wait on no notification: they retry or block in the server",
            ),
        }
    }
}
