//! The backend-blind checker: a backend's system enters through the
//! [`Space`](space::Space) seam, and everything here works on any of them.
//!
//! - [`explore`]: the breadth-first search with parent pointers and its
//!   bounds, so that every counterexample is a shortest one; [`path`]: a
//!   recorded path and its replay; [`level`],
//!   [`expand`], [`pipeline`]: a level's expansion on worker threads;
//!   [`visited`], [`fingerprint`], [`shared`], [`column`], [`codes`],
//!   [`padded`]: how states are told apart and kept;
//! - [`graph`], [`starvation`], [`lasso`], [`stuck`]: the kept graph and
//!   what is read off it (lassos by strongly-connected components, a lock
//!   that is never free again); [`growth`]: why a bound was hit;
//! - [`harness`]: the lock events every driver emits and the properties
//!   judged over them; [`resource`]: the protected resource as part of a
//!   checked system (tenures, fenced and guarded writes); [`trace`]: a
//!   counterexample as text and as a Mermaid diagram; [`verdict`]: holds,
//!   violated or incomplete, per property, in one report.

pub mod agent;
pub mod codes;
pub mod column;
pub mod expand;
pub mod explore;
pub mod fingerprint;
pub mod graph;
pub mod growth;
pub mod harness;
pub mod judged;
pub mod lasso;
pub mod level;
pub mod padded;
pub mod path;
pub mod pipeline;
pub mod replay;
pub mod resource;
pub mod shared;
pub mod space;
pub mod starvation;
pub mod stuck;
pub mod trace;
pub mod verdict;
pub mod visited;
