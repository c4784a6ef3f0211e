//! Every backend the app knows, in one place: a scenario file read once and
//! handed to the backend its recipe names. This is the one place above the
//! backends' folders that lists them; the commands ask it, and each
//! backend's capabilities ([`crate::backend`]), instead of naming one.

use crate::commands::Commands;
use crate::etcd::scenario::EtcdScenario;
use crate::mysql::scenario::MysqlScenario;
use crate::redis::scenario::RedisScenario;
use crate::scenario::{self, error_at, locate, read, utf8, KeyPath, ScenarioError};
use crate::zk::scenario::Scenario;
use locksmith_model::catalogue::Backend;
use std::path::Path;

/// A scenario of either backend: the recipe names it.
#[derive(Debug, Clone)]
pub enum AnyScenario {
    ZooKeeper(Box<Scenario>),
    Redis(Box<RedisScenario>),
    Mysql(Box<MysqlScenario>),
    Etcd(Box<EtcdScenario>),
}

impl AnyScenario {
    /// Reads a scenario file of either backend.
    pub fn load(path: &Path) -> Result<AnyScenario, ScenarioError> {
        let bytes = read(path)?;
        AnyScenario::parse_bytes(path, &bytes)
    }

    /// [`AnyScenario::parse`] of a file's bytes (UTF-8 or an error at the
    /// first byte that is not).
    pub fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<AnyScenario, ScenarioError> {
        AnyScenario::parse(path, utf8(path, bytes)?)
    }

    /// Reads a scenario file for a command that needs each capability of
    /// `needs` of the scenario's backend (with the command and flag that
    /// asked for it, as typed: `check --por`): a backend without one is
    /// refused at the file's `recipe` line ([`crate::backend::refusal`]).
    pub fn load_for(
        path: &Path,
        needs: &[(&str, crate::backend::Capability)],
    ) -> Result<AnyScenario, ScenarioError> {
        let bytes = read(path)?;
        let text = utf8(path, &bytes)?;
        let sc = AnyScenario::parse(path, text)?;
        let backend = sc.backend();
        let Some(&(command, need)) = needs
            .iter()
            .find(|(_, c)| !crate::backend::has(backend, *c))
        else {
            return Ok(sc);
        };
        let span = locate::span_of(text, &KeyPath::of(None, "recipe"));
        let why = crate::backend::refusal(command, backend, sc.recipe_id(), need);
        Err(error_at(path, text, span, &why))
    }

    /// The backend the scenario's recipe runs on.
    pub fn backend(&self) -> Backend {
        match self {
            AnyScenario::ZooKeeper(_) => Backend::ZooKeeper,
            AnyScenario::Redis(_) => Backend::Redis,
            AnyScenario::Mysql(_) => Backend::Mysql,
            AnyScenario::Etcd(_) => Backend::Etcd,
        }
    }

    /// The recipe's id, as the file names it.
    pub fn recipe_id(&self) -> &'static str {
        match self {
            AnyScenario::ZooKeeper(sc) => sc.recipe().name(),
            AnyScenario::Redis(sc) => sc.recipe().id(),
            AnyScenario::Mysql(sc) => sc.recipe().id(),
            AnyScenario::Etcd(sc) => sc.recipe().id(),
        }
    }

    /// The scenario as the commands see it.
    pub fn into_commands(self) -> Box<dyn Commands> {
        match self {
            AnyScenario::ZooKeeper(sc) => sc,
            AnyScenario::Redis(sc) => sc,
            AnyScenario::Mysql(sc) => sc,
            AnyScenario::Etcd(sc) => sc,
        }
    }

    /// The file's text, read by the reader of the backend its recipe
    /// names (found once, by the catalogue).
    pub fn parse(path: &Path, text: &str) -> Result<AnyScenario, ScenarioError> {
        Ok(match scenario::backend_named(path, text)? {
            Backend::ZooKeeper => AnyScenario::ZooKeeper(Box::new(Scenario::parse(path, text)?)),
            Backend::Redis => AnyScenario::Redis(Box::new(RedisScenario::parse(path, text)?)),
            Backend::Mysql => AnyScenario::Mysql(Box::new(MysqlScenario::parse(path, text)?)),
            Backend::Etcd => AnyScenario::Etcd(Box::new(EtcdScenario::parse(path, text)?)),
        })
    }
}

/// Reads a scenario file for a command (see [`AnyScenario::load_for`]),
/// as the commands see every backend's.
pub fn load_for(
    path: &Path,
    needs: &[(&str, crate::backend::Capability)],
) -> Result<Box<dyn Commands>, ScenarioError> {
    AnyScenario::load_for(path, needs).map(AnyScenario::into_commands)
}

/// The backend of the recipe the scenario file at `path` names (`None`
/// for a file that cannot be read, is not TOML or names no known recipe:
/// its own loader says why).
pub fn backend_of(path: &Path) -> Option<Backend> {
    let text = std::fs::read_to_string(path).ok()?;
    scenario::backend_named(path, &text).ok()
}

/// Whether the scenario file at `path` names a Redis recipe.
pub fn is_redis(path: &Path) -> bool {
    backend_of(path) == Some(Backend::Redis)
}

/// Whether the scenario file at `path` names a MySQL recipe.
pub fn is_mysql(path: &Path) -> bool {
    backend_of(path) == Some(Backend::Mysql)
}

/// Every backend's matrix in `locksmith compare`, in the report's order,
/// each declared in its own folder.
pub static MATRICES: [&crate::matrix::backend::Backend; 4] = [
    &crate::zk::compare::ZOOKEEPER,
    &crate::redis::compare::REDIS,
    &crate::mysql::compare::MYSQL,
    &crate::etcd::compare::ETCD,
];
