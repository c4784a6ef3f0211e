//! A scenario of a backend whose clients send commands and read replies
//! (Redis, MySQL), once read: its name, file, description, the checker's
//! configuration of the backend (`S`, e.g. `RedisSpace`) and what it must
//! find. Each backend's reader (`redis.rs`, `mysql.rs`) makes its own.

use crate::expect::Expectation;
use std::path::PathBuf;

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
