//! Redis's matrix in `locksmith compare`: its recipes and fault classes
//! ([`faults`]), and its cells' scenario table and prose ([`cell`]), as
//! the [`REDIS`] backend the report lists (`crate::backends`).

pub mod cell;
pub mod faults;

pub use cell::REDIS;
