//! The `locksmith` crate: scenario files, the drivers that need a runtime
//! (the deterministic simulator), and the command-line interface.

mod atomic_file;
pub mod backend;
pub mod backends;
pub mod check;
pub mod cli;
pub mod command_backend;
pub mod commands;
pub mod compare;
pub mod confirm;
pub mod counts;
pub mod etcd;
pub mod exit;
pub mod expect;
pub mod interrupt;
pub mod machine;
pub mod matrix;
pub mod mysql;
pub mod progress;
pub mod real;
pub mod redis;
pub mod scenario;
pub mod serve;
pub mod simulate;
pub mod title;
pub mod zk;
