//! MySQL's matrix in `locksmith compare`: its database locks ([`rows`];
//! its columns are MySQL's fault table, `crate::mysql::faults`), and its
//! cells' scenario table and prose
//! ([`cell`]), as the [`MYSQL`] backend the report lists
//! (`crate::backends`).

pub mod cell;
pub mod rows;

pub use cell::MYSQL;
