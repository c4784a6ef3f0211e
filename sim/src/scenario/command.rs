//! A scenario of a backend whose clients send commands and read replies
//! (Redis, MySQL), once read: its name, file, description, the checker's
//! configuration of the backend (`S`, e.g. `RedisSpace`) and what it must
//! find. Each backend's reader (`redis.rs`, `mysql.rs`) makes its own.

use super::ScenarioError;
use crate::expect::Expectation;
use locksmith_model::engine::judged::Judged;
use locksmith_model::engine::trace::Trace;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct CommandScenario<S> {
    /// The file name without `.toml`.
    pub name: String,
    pub path: PathBuf,
    pub description: String,
    pub space: S,
    /// What the checker must find (`[expect]`).
    pub expect: Option<Expectation>,
}

/// What the commands above ask of a command backend's checker space,
/// besides the engine's [`Judged`]: the same for Redis and MySQL, so
/// `check` and `compare` run either through one path.
pub trait CommandSpace: Judged + Clone + 'static {
    /// Its scenario file, read by the backend's reader.
    fn parse(path: &Path, text: &str) -> Result<CommandScenario<Self>, ScenarioError>;
    /// Rounds of the harness loop per client.
    fn acquisitions(&self) -> u8;
    /// The same configuration without its fault budget, if it has one.
    fn unfaulted(&self) -> Option<Self>;
    /// A trace of this backend as a Mermaid sequence diagram.
    fn mermaid(&self, t: &Trace) -> String;
}
