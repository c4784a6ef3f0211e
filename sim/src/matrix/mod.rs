//! What every backend's comparison matrix shares, below the backends'
//! folders: a matrix's rows and columns and how a backend declares them
//! ([`backend`]), a judged cell ([`cell`]), a checker's report made a cell
//! ([`checked`]), a cell's scenario file ([`cell_file`]), a command
//! backend's cell run ([`command`]) and a trace's fingerprint
//! ([`fingerprint`]). Each backend's registry (`<backend>/compare/`) is
//! written on these; the report (`crate::compare`) runs and draws them.

pub mod backend;
pub mod cell;
pub mod cell_file;
pub mod checked;
pub mod command;
pub mod fingerprint;
