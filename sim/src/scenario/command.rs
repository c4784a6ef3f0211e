//! A scenario of a backend whose clients send commands and read replies
//! (Redis, MySQL, etcd), once read: its name, file, description, the
//! checker's configuration of the backend (`S`, e.g. `RedisSpace`) and what
//! it must find. Each backend's reader (`redis.rs`, `mysql.rs`, `etcd.rs`)
//! is a `command_reader!` (`reading.rs`) over its own time table.

use super::ScenarioError;
use crate::expect::Expectation;
use locksmith_model::engine::Judged;
use locksmith_model::engine::Limits;
use locksmith_model::engine::Trace;
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
    /// The backend its recipes run on.
    const BACKEND: locksmith_model::catalogue::Backend;
    /// Its scenario file, read by the backend's reader.
    fn parse(path: &Path, text: &str) -> Result<CommandScenario<Self>, ScenarioError>;
    /// A trace of this backend as a Mermaid sequence diagram.
    fn mermaid(&self, t: &Trace) -> String;
    /// Its recipe's catalogue id.
    fn recipe_id(&self) -> &'static str;
    /// Rounds of the harness loop per client.
    fn acquisitions(&self) -> u8;
    /// Each critical section writes to the fenced resource.
    fn fencing(&self) -> bool;
    /// How long a pause lasts, in ticks.
    fn pause(&self) -> u8;
    /// How long a critical section lasts, in ticks.
    fn work(&self) -> u8;
    /// Its clients, rounds and bounds, which a command's flags override.
    fn sizes(&mut self) -> (&mut u8, &mut u8, &mut Limits);
    /// The configuration's own rules (`Err`: the one it breaks).
    fn validate_config(&self) -> Result<(), String>;
    /// The rule it breaks, with the scenario key to point at.
    fn problem(&self) -> Option<(&'static str, String)>;
    /// The fault budgets by their scenario keys.
    fn fault_budgets(&self) -> Vec<(&'static str, u8)>;
    /// The same configuration without its fault budget, if it has one.
    fn unfaulted(&self) -> Option<Self>;
}

/// The [`CommandSpace`] methods every command backend's space answers
/// (its scenario's reading, its trace's drawing by the `mermaid` it
/// imports) from the fields they all have (`recipe`, `clients`, `acquisitions`,
/// `limits`, `fencing`, `pause`, `work`, `faults` with `by_key` and `Default`) and the
/// inherent `validate` and `problem` each space has: written once here,
/// expanded in each backend's impl. (`Self::problem` names the inherent
/// method, which Rust prefers over the trait's; a space without one would
/// recurse, and the `unconditional_recursion` lint, denied in CI's clippy,
/// says so.)
macro_rules! command_space_fields {
    () => {
        fn parse(
            path: &std::path::Path,
            text: &str,
        ) -> Result<$crate::scenario::command::CommandScenario<Self>, $crate::scenario::ScenarioError>
        {
            $crate::scenario::command::CommandScenario::<Self>::parse(path, text)
        }

        /// The backend's own Mermaid drawing (its `mermaid`, in scope where
        /// this expands).
        fn mermaid(&self, t: &locksmith_model::engine::Trace) -> String {
            mermaid(t, self.clients)
        }

        fn recipe_id(&self) -> &'static str {
            self.recipe.id()
        }

        fn acquisitions(&self) -> u8 {
            self.acquisitions
        }

        fn fencing(&self) -> bool {
            self.fencing
        }

        fn pause(&self) -> u8 {
            self.pause
        }

        fn work(&self) -> u8 {
            self.work
        }

        fn sizes(&mut self) -> (&mut u8, &mut u8, &mut locksmith_model::engine::Limits) {
            (&mut self.clients, &mut self.acquisitions, &mut self.limits)
        }

        fn validate_config(&self) -> Result<(), String> {
            self.validate()
        }

        fn problem(&self) -> Option<(&'static str, String)> {
            Self::problem(self)
        }

        fn fault_budgets(&self) -> Vec<(&'static str, u8)> {
            self.faults.by_key().to_vec()
        }

        fn unfaulted(&self) -> Option<Self> {
            (self.faults != Default::default()).then(|| {
                let mut none = self.clone();
                none.faults = Default::default();
                none
            })
        }
    };
}
pub(crate) use command_space_fields;
