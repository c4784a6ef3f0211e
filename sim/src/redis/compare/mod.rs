//! Redis's matrix in `locksmith compare`: its recipes ([`rows`]; its
//! columns are Redis's fault table, `crate::redis::faults`), and its cells' scenario table, prose and record of cells
//! confirmed on a real server ([`cell`]), as the [`REDIS`] backend the
//! report lists (`crate::backends`).

pub mod cell;
pub mod rows;

pub use cell::{CONFIRMED, REDIS};
