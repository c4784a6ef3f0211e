//! Redis in the app: its fault classes ([`faults`]: column, key and
//! simulator strike, one row each), a real server ([`real`]: the adapter to it and the
//! run of `locksmith real`), the re-enactment of a checker trace on it
//! ([`confirm`]), and what the commands ask of its scenarios
//! ([`commands`]). The model it runs is `locksmith_model::redis`.

pub mod check;
pub mod commands;
pub mod compare;
pub mod confirm;
pub mod faults;
pub mod real;
pub mod scenario;
pub mod sim;
