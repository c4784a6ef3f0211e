//! A ZooKeeper scenario file: which recipe, how many clients, which faults,
//! read by every driver (`locksmith check`, `sim`, `real`, `confirm`).
//! Settings only one driver needs live in its own table (`[check]`,
//! `[sim]`) and have defaults.
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
//! `[sim]` (see [`super::sim_settings`]) and both expectations (see
//! [`crate::expect`]) are validated here, when the file is loaded, so every
//! command rejects a broken file the same way, with its line.

use super::sim_settings::SimSettings;
use crate::expect::{Expectation, RawExpect};
use crate::scenario::{
    bounds, clients, error_at, friendly, locate, not_this_backend, one_line, other_backend, read,
    unknown_recipe, utf8, KeyPath, ScenarioError,
};
use locksmith_model::catalogue::Backend;
use locksmith_model::engine::harness::Writes;
use locksmith_model::zk::check::property::not_judged_in;
use locksmith_model::zk::recipes::RecipeId;
use locksmith_model::{zk::check::CheckConfig, zk::check::FaultBudget, zk::check::MAX_CLIENTS};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The most re-entrant `lock()` calls per round: a hold's depth is a byte.
pub const MAX_REENTRIES: u8 = 100;

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
    sim: SimSettings,
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
    pub sim: SimSettings,
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
        // Another backend's recipe: its keys are not ZooKeeper's, so say so
        // before they are read as unknown.
        if let Some(e) = other_backend(path, text, Backend::ZooKeeper) {
            return Err(e);
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
