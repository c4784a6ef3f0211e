//! etcd's matrix in `locksmith compare`: its locks and fault classes
//! ([`faults`]), and its cells' scenario table and prose ([`cell`]), as
//! the [`ETCD`] backend the report lists (`crate::backends`).

pub mod cell;
pub mod faults;

pub use cell::ETCD;
