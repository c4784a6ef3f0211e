//! What can happen in the MySQL system: the actions every command backend
//! has, and MySQL's own (the cleanup job, dropped connections, a restart).

use crate::engine::command::command_actions;

command_actions! {
    /// What can happen in the MySQL system.
    pub enum Action;
    serve: "server runs c{}'s statement";
    /// What can happen in the MySQL system only.
    pub enum Own {
        /// The cleanup job releases the lock row, old enough by its rule.
        Cleanup: event => "the cleanup job releases the lock row",
        /// Fault: the server drops client `c`'s connection; its process goes
        /// on.
        DropConnection(c): fault => "the server drops c{}'s connection (fault)",
        /// Fault: the network between client `c` and the server breaks; its
        /// process goes on, and the server keeps its session for now.
        NetworkDrop(c): fault =>
            "the network drops c{}'s connection; the server has not noticed (fault)",
        /// The server notices that client `c`'s connection is gone: it rolls
        /// back the transaction and releases the locks.
        ServerNotices(c): event =>
            "the server notices c{}'s connection is gone: rolls back, releases its locks",
        /// Fault: the server restarts; every connection is gone.
        Restart: fault => "the server restarts (fault)",
    }
}
