//! The deterministic simulator's backend-blind parts: the seed sweep every
//! backend's simulator runs under ([`sweep`]), and the core the command
//! backends' worlds share ([`command`]). A backend's own world (its server
//! node, its client library, its faults) is in its own folder
//! (`crate::zk::sim` for ZooKeeper).

pub mod command;
pub mod etcd;
pub mod mysql;
pub mod redis;
pub mod sweep;
