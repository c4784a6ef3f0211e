//! A scenario of a backend whose clients send commands and read replies
//! (Redis, MySQL), once read: its name, file, description, the checker's
//! configuration of the backend (`S`, e.g. `RedisSpace`) and what it must
//! find. Each backend's reader (`redis.rs`, `mysql.rs`) makes its own.

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

/// The rounds a scenario runs when it does not say.
pub(crate) fn one() -> u8 {
    1
}

/// A command backend's scenario reader, written once: the file's shape
/// (the keys every command scenario has, the backend's own time table
/// `[$table]` read into `$time`, its `[faults]` into `$faults`), the
/// recipe it names, and its reading into a [`CommandScenario`] of
/// `$space`, whose [`CommandSpace`] impl it writes too. The backend writes
/// `$time` and its `space(&self, recipe) -> $space`: the space of the
/// recipe with the file's times (each default, if it has one, from the
/// file's other times), and imports its `mermaid`.
macro_rules! command_reader {
    ($backend:expr, $recipe:ty, $space:ty, [$table:ident]: $time:ty, $faults:ty) => {
        /// The recipe a scenario's text names, if it names one of this
        /// backend's (text that is not TOML names none: the ordinary loader
        /// says where it breaks).
        pub fn recipe_of(text: &str) -> Option<$recipe> {
            let table: toml::Table = toml::from_str(text).ok()?;
            <$recipe>::parse(table.get("recipe")?.as_str()?)
        }

        #[derive(Debug, Clone, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            recipe: String,
            #[serde(deserialize_with = "super::clients::clients")]
            clients: u8,
            #[serde(default = "super::command::one")]
            acquisitions: u8,
            #[serde(default)]
            description: String,
            #[serde(default)]
            fencing: bool,
            #[serde(default)]
            $table: $time,
            #[serde(default)]
            faults: $faults,
            #[serde(default)]
            expect: Option<$crate::expect::RawExpect>,
            #[serde(default)]
            check: super::bounds::Bounds,
        }

        impl $crate::scenario::command::CommandScenario<$space> {
            pub fn recipe(&self) -> $recipe {
                self.space.recipe
            }

            pub fn parse(
                path: &std::path::Path,
                text: &str,
            ) -> Result<Self, $crate::scenario::ScenarioError> {
                let r = $crate::scenario::reading::Reading { path, text };
                let raw: Raw = r.raw()?;
                let recipe = r.recipe(&raw.recipe, $backend, <$recipe>::parse)?;
                let mut space = raw.$table.space(recipe);
                space.clients = raw.clients;
                space.acquisitions = raw.acquisitions;
                space.fencing = raw.fencing;
                space.faults = raw.faults;
                r.scenario(space, &raw.check, raw.expect.as_ref(), raw.description)
            }
        }

        impl $crate::scenario::command::CommandSpace for $space {
            $crate::scenario::command::command_space_fields!();
        }
    };
}
pub(crate) use command_reader;
