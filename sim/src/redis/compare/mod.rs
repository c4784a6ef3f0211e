//! Redis's matrix in `locksmith compare`: its recipes and fault classes
//! ([`faults`]), and its cells' scenario table, prose and record of cells
//! confirmed on a real server ([`cell`]), as the [`REDIS`] backend the
//! report lists (`crate::backends`).

pub mod cell;
pub mod faults;

pub use cell::{CONFIRMED, REDIS};
