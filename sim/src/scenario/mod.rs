//! Scenario files: one TOML file per situation a user wants judged — which
//! recipe, how many clients, which faults — read by every driver
//! (`locksmith check`, `locksmith sim`). Settings only one driver needs live
//! in its own table (`[check]`, `[sim]`) and have defaults.
//!
//! ```toml
//! recipe = "racy-wait"
//! clients = 2
//! acquisitions = 1
//! reentries = 0            # lock() again by the holder, per round
//! root = "driver"          # or "recipe": the recipe creates its lock root itself
//!                          # (checker and simulator; `locksmith real` creates it)
//! fencing = false          # checker: each critical section writes twice to a
//!                          # resource that rejects lower tokens (lock node czxids)
//! guarded = false          # checker: each write is multi(check(own node), setData)
//!                          # (the simulator's resource has its own `[sim] fencing`)
//! acquire_timeout_ms = 1000 # Curator recipes: acquire(time, unit) instead of
//!                          # acquire(); the deadline passes at the checker's choice,
//!                          # on time in the simulator and `locksmith real`
//! shared_session = false   # checker, Curator recipes: every client is an
//!                          # acquiring thread of one process with its own mutex,
//!                          # all on the process's one session (Curator's own tests)
//!
//! [faults]                 # budgets per run for the checker
//! waiter_expiries = 0
//! holder_expiries = 0
//! connection_losses = 0
//! disconnects = 0          # a drop with nothing in flight; the reconnect follows
//! expiries = 0             # any live session expires, at any step
//! crashes = 0              # a client process crashes; its session times out later
//! reorders = 0             # UNSAFE: a reply or event overtakes the one before it
//! client_expiries = 0      # the client library gives up on its session and opens a
//!                          # new one before the server expires the old one (Curator)
//! waiter_client_expiries = 0 # the same, striking a parked waiter
//! connection_timeouts = 0  # a call made while the connection is down fails with
//!                          # ConnectionLoss: the outage outlasts the library's
//!                          # connection timeout (Curator; checker only)
//! server_restarts = 0      # the server stops (every connection drops at once)
//!                          # and starts again with its state (checker only)
//! long_server_restarts = 0 # the same, down past the session timeout: Curator
//!                          # gives up its session meanwhile (checker only)
//!
//! [expect]                 # what `cargo test` holds the checker to
//! verdict = "violated"     # holds | violated | incomplete
//! property = "deadlock"    # the property the verdict is about
//! holds = ["mutual exclusion"]
//! steps = 33               # the shortest trace's length
//! states = 359             # states explored (exact: the run is exhaustive)
//!
//! [check]
//! max_states = 20000000   # bounds: hitting one gives `incomplete`, naming it
//! max_memory_mb = 4096
//! max_depth = 200
//! clients = 2              # optional: explore fewer clients than [sim] runs
//! abstract_sequences = false # true: states that differ only in sequence
//!                          # suffixes and unread zxids are one (polling recipes)
//! por = false              # true: partial-order reduction (fewer states; a
//!                          # trace may be longer than the shortest)
//! ```
//!
//! `[sim]` (see [`crate::sim_settings`]) and both expectations (see
//! [`crate::expect`]) are validated here, when the file is loaded, so every
//! command rejects a broken file the same way, with its line.

pub mod bounds;
pub mod clients;
mod command;
mod etcd;
pub(crate) mod locate;
mod mysql;
mod reading;
mod redis;

pub use command::{CommandScenario, CommandSpace};
pub use etcd::EtcdScenario;
pub use locate::{KeyPath, Seg};
pub use mysql::MysqlScenario;
pub use redis::RedisScenario;

use crate::expect::{Expectation, RawExpect};
use locksmith_model::catalogue::{self, Backend};
use locksmith_model::engine::harness::Writes;
use locksmith_model::zk::check::property::not_judged_in;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{zk::check::CheckConfig, zk::check::FaultBudget, zk::check::MAX_CLIENTS};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A scenario file that could not be used: which file, where, and what was
/// expected there.
#[derive(Debug)]
pub struct ScenarioError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// The most re-entrant `lock()` calls per round: a hold's depth is a byte.
pub const MAX_REENTRIES: u8 = 100;

/// The largest scenario file read: far above any real one (they are a few
/// hundred bytes), low enough that a wrong path (a log, a binary) fails at
/// once instead of being parsed.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    recipe: String,
    #[serde(deserialize_with = "clients::clients")]
    clients: u8,
    #[serde(default = "one")]
    acquisitions: u8,
    /// The holder calls `lock()` again this many times per round.
    #[serde(default)]
    reentries: u8,
    /// Who creates the lock root: `"driver"` (before the clients start, the
    /// default) or `"recipe"` (its own code, e.g. exists-then-create).
    #[serde(default)]
    root: Option<String>,
    #[serde(default)]
    description: String,
    /// The critical section writes twice to a protected resource that
    /// rejects tokens (lock node czxids) lower than the highest it accepted.
    #[serde(default)]
    fencing: bool,
    /// The critical section writes twice as `multi(check(own lock node),
    /// setData(resource))`.
    #[serde(default)]
    guarded: bool,
    /// Curator's `acquire(time, unit)`, with this timeout.
    #[serde(default)]
    acquire_timeout_ms: Option<u32>,
    /// Every client is an acquiring thread of one process, all on its one
    /// session (checker only).
    #[serde(default)]
    shared_session: bool,
    #[serde(default)]
    faults: FaultBudget,
    #[serde(default)]
    expect: Option<RawExpect>,
    #[serde(default)]
    check: RawCheck,
    #[serde(default)]
    sim: crate::sim_settings::SimSettings,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    #[serde(default)]
    max_states: Option<usize>,
    #[serde(default)]
    max_depth: Option<usize>,
    #[serde(default)]
    max_memory_mb: Option<usize>,
    /// The checker explores a smaller configuration than the simulator
    /// runs: these override the top-level `clients` / `acquisitions`.
    #[serde(default)]
    clients: Option<u8>,
    #[serde(default)]
    acquisitions: Option<u8>,
    /// States that differ only in sequence suffixes and unread zxids are
    /// one state (the checker's `sequences` abstraction): what makes a
    /// polling recipe finite.
    #[serde(default)]
    abstract_sequences: bool,
    /// Partial-order reduction (the checker's `por`): off unless asked.
    #[serde(default)]
    por: bool,
}

#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file name without `.toml`.
    pub name: String,
    pub path: PathBuf,
    pub description: String,
    pub check: CheckConfig,
    /// What the checker must find (`[expect]`).
    pub expect: Option<Expectation>,
    pub sim: crate::sim_settings::SimSettings,
    /// What the simulator must find (`[sim.expect]`).
    pub sim_expect: Option<Expectation>,
    /// The top-level `clients` and `acquisitions` (before `[check]`
    /// narrows them for the checker); the simulator starts from these.
    pub clients: u8,
    pub acquisitions: u8,
}

impl Scenario {
    pub fn recipe(&self) -> RecipeId {
        self.check.recipe
    }

    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let bytes = read(path)?;
        Scenario::parse_bytes(path, &bytes)
    }

    /// [`Scenario::parse`] of a file's bytes: text that is not UTF-8 is an
    /// error at the first byte that is not.
    pub fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Scenario, ScenarioError> {
        Scenario::parse(path, utf8(path, bytes)?)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Scenario, ScenarioError> {
        // Every error has a line and a column: a path with no place of its
        // own in the file (a key left to its default) points at its table,
        // else at the top of the file.
        let at_span = |span: Option<std::ops::Range<usize>>, message: String| {
            error_at(path, text, span, &message)
        };
        let at = |key: &KeyPath, message: String| at_span(locate::span_of(text, key), message);
        // A Redis recipe's keys are not ZooKeeper's: say so before they
        // are read as unknown.
        if let Some(recipe) = redis::recipe_of(text) {
            return Err(at(
                &KeyPath::of(None, "recipe"),
                format!(
                    "recipe `{}` runs on Redis, which `check`, `sim`, `replay`, `real --redis` and `compare` take: expected a ZooKeeper recipe for this command",
                    recipe
                ),
            ));
        }
        if let Some(recipe) = mysql::recipe_of(text) {
            return Err(at(
                &KeyPath::of(None, "recipe"),
                format!(
                    "recipe `{recipe}` runs on MySQL, which `check`, `sim`, `replay`, `real --mysql` and `compare` take: expected a ZooKeeper recipe for this command"
                ),
            ));
        }
        if let Some(recipe) = etcd::recipe_of(text) {
            return Err(at(
                &KeyPath::of(None, "recipe"),
                format!(
                    "recipe `{recipe}` runs on etcd, which `check`, `sim`, `replay`, `confirm --etcd` and `compare` take: expected a ZooKeeper recipe for this command"
                ),
            ));
        }
        if let Some(e) = unknown_recipe(path, text) {
            return Err(e);
        }
        let raw: Raw = match with_profile(path, text) {
            Some(Ok(table)) => Raw::deserialize(table).map_err(|e| {
                at(
                    &KeyPath::table("sim"),
                    format!("with its profile: {}", friendly(e.message())),
                )
            })?,
            Some(Err(why)) => return Err(at(&KeyPath::of(Some("sim"), "profile"), why)),
            None => toml::from_str(text).map_err(|e| {
                let span = e.span().filter(|r| !(r.start == 0 && r.end >= text.len()));
                at_span(span.or(e.span()), friendly(e.message()))
            })?,
        };
        let top = |key: &str| KeyPath::of(None, key);
        let recipe = RecipeId::parse(&raw.recipe).ok_or_else(|| {
            at(
                &top("recipe"),
                not_this_backend(&raw.recipe, Backend::ZooKeeper),
            )
        })?;
        if raw.acquisitions == 0 {
            return Err(at(
                &top("acquisitions"),
                "acquisitions = 0: expected at least 1".into(),
            ));
        }
        if raw.reentries > MAX_REENTRIES {
            return Err(at(
                &top("reentries"),
                format!(
                    "reentries = {}: expected 0 to {MAX_REENTRIES}",
                    raw.reentries
                ),
            ));
        }
        let expectation = |table: &str, e: &RawExpect| {
            Expectation::parse(e).map_err(|(key, why)| {
                let mut p = KeyPath::table(table);
                p.0.extend(key.0);
                at(&p, why)
            })
        };
        let expect = raw
            .expect
            .as_ref()
            .map(|e| expectation("expect", e))
            .transpose()?;
        let sim_expect = raw
            .sim
            .expect
            .as_ref()
            .map(|e| {
                Expectation::parse_judged(e, &|p| raw.sim.not_judged(p)).map_err(|(key, why)| {
                    let mut p = KeyPath::table("sim.expect");
                    p.0.extend(key.0);
                    at(&p, why)
                })
            })
            .transpose()?;
        if let Some(e) = &sim_expect {
            let key = if e.steps.is_some() { "steps" } else { "states" };
            if e.steps.is_some() || e.states.is_some() {
                return Err(at(
                    &KeyPath::of(Some("sim.expect"), key),
                    format!("{key} pins the checker's exploration: expected it in [expect], not [sim.expect]"),
                ));
            }
        }
        raw.sim
            .validate(raw.sim.clients.unwrap_or(raw.clients))
            .map_err(|(key, why)| {
                let mut p = KeyPath::table("sim");
                p.0.extend(key.0);
                at(&p, why)
            })?;
        let check_clients = raw.check.clients.unwrap_or(raw.clients);
        if check_clients == 0 || check_clients > MAX_CLIENTS {
            let key = if raw.check.clients.is_some() {
                KeyPath::of(Some("check"), "clients")
            } else {
                top("clients")
            };
            return Err(at(
                &key,
                format!(
                    "the checker explores 1 to {MAX_CLIENTS} clients, this asks for {check_clients}: expected `[check] clients` (to explore fewer than the simulator runs) or a smaller `clients`"
                ),
            ));
        }
        let check_acquisitions = raw.check.acquisitions.unwrap_or(raw.acquisitions);
        if check_acquisitions == 0 {
            return Err(at(
                &KeyPath::of(Some("check"), "acquisitions"),
                "[check] acquisitions = 0: expected at least 1".into(),
            ));
        }
        // Kept apart from the other [check] keys: a flattened table would
        // accept any key (serde's deny_unknown_fields ignores flatten).
        let bounds = bounds::Bounds {
            max_states: raw.check.max_states,
            max_depth: raw.check.max_depth,
            max_memory_mb: raw.check.max_memory_mb,
        };
        if let Some((key, why)) = bounds.zero() {
            return Err(at(&KeyPath::of(Some("check"), key), why));
        }
        let mut check = CheckConfig::new(recipe, check_clients, check_acquisitions);
        check.reentries = raw.reentries;
        if raw.acquire_timeout_ms.is_some()
            && !matches!(recipe, RecipeId::Curator | RecipeId::CuratorOwnerCheck)
        {
            return Err(at(
                &top("acquire_timeout_ms"),
                format!(
                    "acquire_timeout_ms with recipe `{}`: expected a Curator recipe (curator, curator-owner-check): only Curator's acquire(time, unit) takes a timeout",
                    recipe.name()
                ),
            ));
        }
        check.acquire_timeout_ms = raw.acquire_timeout_ms;
        check.shared_session = raw.shared_session;
        if let Err(why) = check.validate_shared_session() {
            return Err(at(&top("shared_session"), why));
        }
        check.recipe_root = match raw.root.as_deref() {
            None | Some("driver") => false,
            Some("recipe") => true,
            Some(other) => {
                return Err(at(
                    &KeyPath::of(None, "root"),
                    format!(
                        "root = \"{other}\": expected \"driver\" (created before the clients start) or \"recipe\" (the recipe's own code creates it)"
                    ),
                ))
            }
        };
        check.faults = raw.faults;
        if let Some(n) = bounds.max_states {
            check.max_states = n;
        }
        check.max_depth = bounds.max_depth.unwrap_or(usize::MAX);
        check.abstract_sequences = raw.check.abstract_sequences;
        check.por = raw.check.por;
        check.writes = match (raw.fencing, raw.guarded) {
            (false, false) => check.recipe.unfenced_writes(),
            (true, false) => Writes::Fenced,
            (false, true) => Writes::Guarded,
            (true, true) => {
                return Err(at(
                    &top("guarded"),
                    "fencing = true and guarded = true: expected one of the two (a guarded write needs no token)".into(),
                ))
            }
        };
        if let Err(why) = check.validate_writes() {
            let key = if raw.guarded { "guarded" } else { "fencing" };
            return Err(at(&top(key), why));
        }
        if let Some(m) = bounds.max_memory() {
            check.max_memory = m;
        }
        // Now that the configuration is whole: a pin on a property this
        // run does not judge (it would read n/a) says nothing.
        if let Some(e) = &raw.expect {
            Expectation::parse_judged(e, &|p| not_judged_in(p, &check)).map_err(|(key, why)| {
                let mut p = KeyPath::table("expect");
                p.0.extend(key.0);
                at(&p, why)
            })?;
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Scenario {
            name,
            path: path.to_path_buf(),
            description: raw.description,
            check,
            expect,
            sim: raw.sim,
            sim_expect,
            clients: raw.clients,
            acquisitions: raw.acquisitions,
        })
    }
}

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
    pub fn backend(&self) -> catalogue::Backend {
        match self {
            AnyScenario::ZooKeeper(_) => catalogue::Backend::ZooKeeper,
            AnyScenario::Redis(_) => catalogue::Backend::Redis,
            AnyScenario::Mysql(_) => catalogue::Backend::Mysql,
            AnyScenario::Etcd(_) => catalogue::Backend::Etcd,
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

    pub fn parse(path: &Path, text: &str) -> Result<AnyScenario, ScenarioError> {
        if redis::recipe_of(text).is_some() {
            RedisScenario::parse(path, text).map(|s| AnyScenario::Redis(Box::new(s)))
        } else if mysql::recipe_of(text).is_some() {
            MysqlScenario::parse(path, text).map(|s| AnyScenario::Mysql(Box::new(s)))
        } else if etcd::recipe_of(text).is_some() {
            EtcdScenario::parse(path, text).map(|s| AnyScenario::Etcd(Box::new(s)))
        } else {
            Scenario::parse(path, text).map(|s| AnyScenario::ZooKeeper(Box::new(s)))
        }
    }
}

/// Whether the scenario file at `path` names a Redis recipe (a file that
/// cannot be read or parsed does not: its own loader says why).
pub fn is_redis(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| redis::recipe_of(&t).is_some())
}

/// The backend of the recipe the scenario file at `path` names (`None`
/// for a file that cannot be read, is not TOML or names no known recipe:
/// its own loader says why).
pub fn backend_of(path: &Path) -> Option<catalogue::Backend> {
    let text = std::fs::read_to_string(path).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    catalogue::find(table.get("recipe")?.as_str()?.trim()).map(|e| e.backend)
}

/// Whether the scenario file at `path` names a MySQL recipe.
pub fn is_mysql(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| mysql::recipe_of(&t).is_some())
}

/// The error for a file whose recipe no backend has, at its `recipe` key;
/// `None` for any other file (one that is not TOML, or names no recipe, is
/// left to its loader). Asked before the file's other keys are read: which
/// keys are valid depends on the recipe's backend, so a file that is only
/// wrong in its recipe's name must be told that, not about its keys.
fn unknown_recipe(path: &Path, text: &str) -> Option<ScenarioError> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let id = table.get("recipe")?.as_str()?;
    // The Redis and MySQL loaders take an id with spaces around it.
    if catalogue::find(id.trim()).is_some() {
        return None;
    }
    let span = locate::span_of(text, &KeyPath::of(None, "recipe"));
    Some(error_at(path, text, span, &catalogue::unknown_recipe(id)))
}

/// The message for a recipe `backend`'s loader does not take: another
/// backend's, or one no backend has.
fn not_this_backend(id: &str, backend: Backend) -> String {
    match catalogue::find(id.trim()) {
        Some(e) if e.backend != backend => format!(
            "recipe `{id}` runs on {}: expected a {} recipe here",
            e.backend.name(),
            backend.name()
        ),
        // A ZooKeeper id with spaces around it is none.
        _ => catalogue::unknown_recipe(id),
    }
}

/// A scenario file's bytes, refusing one too large to be a scenario.
fn read(path: &Path) -> Result<Vec<u8>, ScenarioError> {
    let fail = |message: String| ScenarioError {
        file: path.to_path_buf(),
        line: None,
        column: None,
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| fail(format!("cannot read the scenario file: {e}")))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(fail(format!(
            "{size} bytes: expected a scenario file (TOML) of at most {MAX_FILE_BYTES} bytes"
        )));
    }
    std::fs::read(path).map_err(|e| fail(format!("cannot read the scenario file: {e}")))
}

/// The file's text, or an error at its first byte that is not UTF-8.
fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ScenarioError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = String::from_utf8_lossy(&bytes[..e.valid_up_to()]);
        let (line, column) = locate::line_column(&good, good.len());
        let byte = bytes.get(e.valid_up_to()).copied().unwrap_or(0);
        ScenarioError {
            file: path.to_path_buf(),
            line: Some(line),
            column: Some(column),
            message: format!("byte 0x{byte:02x} is not UTF-8: expected a UTF-8 text file (TOML)"),
        }
    })
}

/// An error at `span` of `text` (the top of the file without one).
fn error_at(
    path: &Path,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    message: &str,
) -> ScenarioError {
    let (line, column) = locate::line_column(text, span.map_or(0, |r| r.start));
    ScenarioError {
        file: path.to_path_buf(),
        line: Some(line),
        column: Some(column),
        message: one_line(message),
    }
}

/// `message` on one line: a value it quotes from the file (a string with a
/// newline or a control character) is escaped.
fn one_line(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The TOML reader's message in a user's words: integer types as ranges,
/// and a missing key with what to write.
fn friendly(message: &str) -> String {
    // The parser's messages may span lines ("invalid table header\nexpected
    // `.`, `]`"): one line reads better after `file:line:column:`.
    let mut m = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    for (ty, words) in [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number ≥ 0"),
        ("usize", "a whole number ≥ 0"),
        ("f64", "a number"),
    ] {
        m = m.replace(&format!("expected {ty}"), &format!("expected {words}"));
    }
    if let Some(rest) = m.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or("");
        m = format!("{m}: expected a `{key} = ...` line here");
    }
    if m.contains("recursion limit") {
        m = "values nested too deeply: expected a few levels of arrays and tables at most".into();
    }
    if !m.contains("expected") {
        m.push_str(": expected a scenario file (TOML) as the README's \"A scenario file\" shows");
    }
    m
}

/// Every `*.toml` in `dir`, sorted by file name.
/// `[sim] profile = "FILE"`: a file of `[sim]` keys (what `locksmith
/// calibrate` writes), read relative to the scenario's directory; the
/// scenario's own `[sim]` keys win over the profile's. The scenario's table
/// with the profile's keys filled in; `None` if it names no profile (or is
/// not TOML: the ordinary parse says where).
fn with_profile(path: &Path, text: &str) -> Option<Result<toml::Table, String>> {
    let mut table: toml::Table = toml::from_str(text).ok()?;
    let name = table.get_mut("sim")?.as_table_mut()?.remove("profile")?;
    Some((|| {
        let name = name
            .as_str()
            .ok_or_else(|| "profile: expected a file name (a string)".to_string())?;
        let file = path.parent().unwrap_or(Path::new(".")).join(name);
        let profile_text = std::fs::read_to_string(&file).map_err(|e| {
            format!(
                "profile = {name:?}: cannot read {}: {e} (expected a file of [sim] keys, as `locksmith calibrate` writes)",
                file.display()
            )
        })?;
        let profile: toml::Table = toml::from_str(&profile_text)
            .map_err(|e| format!("profile {}: {}", file.display(), one_line(e.message())))?;
        let keys = match profile.get("sim") {
            Some(toml::Value::Table(t)) if profile.len() == 1 => t.clone(),
            _ => {
                return Err(format!(
                    "profile {}: expected one [sim] table and nothing else",
                    file.display()
                ))
            }
        };
        let Some(toml::Value::Table(sim)) = table.get_mut("sim") else {
            return Err("no [sim] table".to_string());
        };
        for (k, v) in keys {
            if k == "profile" || k == "expect" {
                return Err(format!(
                    "profile {}: [sim] {k} belongs in the scenario, not its profile",
                    file.display()
                ));
            }
            sim.entry(k).or_insert(v);
        }
        Ok(table)
    })())
}

pub fn all_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    Ok(out)
}
