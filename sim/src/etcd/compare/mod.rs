//! etcd's matrix in `locksmith compare`: its locks ([`rows`]; its columns
//! are etcd's fault table, `crate::etcd::faults`), and its cells' scenario
//! table and prose ([`cell`]), as
//! the [`ETCD`] backend the report lists (`crate::backends`).

pub mod cell;
pub mod rows;

pub use cell::ETCD;
