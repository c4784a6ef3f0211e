//! ZooKeeper's matrix in `locksmith compare`: its fault classes, each
//! judged by the checker or the simulator ([`faults`]), its recipes' sizes
//! and prose ([`recipes`], from `recipes.toml`), one cell's configuration
//! ([`cell_config`]) and run ([`cell`]), and what each recipe costs
//! without faults ([`costs`]).

pub mod cell;
pub mod cell_config;
pub mod costs;
pub mod faults;
pub mod recipes;
