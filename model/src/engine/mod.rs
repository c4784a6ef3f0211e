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
//! - [`command`]: what the command backends (Redis, MySQL, etcd) do
//!   alike, written once: their state, their shared actions and
//!   transitions, their traces' words, as a `Space` and a `Judged`;
//! - [`harness`]: the lock events every driver emits and the properties
//!   judged over them; [`resource`]: the protected resource as part of a
//!   checked system (tenures, fenced and guarded writes); [`trace`]: a
//!   counterexample as text and as a Mermaid diagram; [`verdict`]: holds,
//!   violated or incomplete, per property, in one report.

pub(crate) mod agent;
pub(crate) mod codes;
pub(crate) mod column;
pub(crate) mod command;
pub(crate) mod expand;
pub(crate) mod explore;
pub(crate) mod fault_budget;
pub(crate) mod fingerprint;
pub(crate) mod graph;
pub(crate) mod growth;
pub mod harness;
pub(crate) mod judged;
pub(crate) mod lasso;
pub(crate) mod level;
pub(crate) mod padded;
pub(crate) mod path;
pub(crate) mod pipeline;
pub(crate) mod replay;
pub(crate) mod resource;
pub(crate) mod shared;
pub(crate) mod space;
pub(crate) mod starvation;
pub(crate) mod stuck;
pub(crate) mod trace;
pub(crate) mod verdict;
pub(crate) mod visited;

// The engine's surface: what drivers and backends outside this crate use.
pub use explore::{explore_space, Bound, Exploration, Progress};
pub use graph::Renumbering;
pub use judged::Judged;
pub use lasso::judge_in;
pub use path::Counterexample;
pub use resource::Sections;
pub use space::{
    next_by_apply, Canonical, GrowthWords, Limits, Next, Space, MAX_CLIENTS, NO_AGENT,
};
pub use trace::{Trace, TraceStep};
pub use verdict::{Report, Verdict};
