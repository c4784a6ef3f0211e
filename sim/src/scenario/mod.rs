//! Scenario files, read by every backend alike: one TOML file per situation
//! a user wants judged. This is what every backend's reader shares — the
//! file read whole and refused when it is not a scenario, errors with a
//! file, line and column in a user's words, the recipe known to no backend
//! — and the command backends' common scenario shape ([`CommandScenario`]).
//! Each backend reads its own keys in its own folder (ZooKeeper's:
//! `crate::zk::scenario`); which backend reads a file follows from its
//! recipe (`crate::backends::AnyScenario`).

pub mod bounds;
pub mod clients;
pub(crate) mod command;
pub(crate) mod locate;
pub(crate) mod reading;

pub use command::{CommandScenario, CommandSpace};
pub use locate::{KeyPath, Seg};

use locksmith_model::catalogue::{self, Backend};
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

/// The largest scenario file read: far above any real one (they are a few
/// hundred bytes), low enough that a wrong path (a log, a binary) fails at
/// once instead of being parsed.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The error for a file whose recipe no backend has, at its `recipe` key;
/// `None` for any other file (one that is not TOML, or names no recipe, is
/// left to its loader). Asked before the file's other keys are read: which
/// keys are valid depends on the recipe's backend, so a file that is only
/// wrong in its recipe's name must be told that, not about its keys.
pub(crate) fn unknown_recipe(path: &Path, text: &str) -> Option<ScenarioError> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let id = table.get("recipe")?.as_str()?;
    // The Redis and MySQL loaders take an id with spaces around it.
    if catalogue::find(id.trim()).is_some() {
        return None;
    }
    let span = locate::span_of(text, &KeyPath::of(None, "recipe"));
    Some(error_at(path, text, span, &catalogue::unknown_recipe(id)))
}

/// The backend of the recipe a scenario file names, found by the
/// catalogue before any backend's reader reads the file (which keys are
/// valid depends on the backend); the error for a file that is not TOML,
/// names no recipe, or names one no backend has.
pub(crate) fn backend_named(path: &Path, text: &str) -> Result<Backend, ScenarioError> {
    /// What every scenario file has, whatever its backend.
    #[derive(serde::Deserialize)]
    struct Named {
        recipe: String,
    }
    let named: Named = toml::from_str(text).map_err(|e| {
        // A span over the whole file says nothing: point at its top.
        let span = e.span().filter(|r| !(r.start == 0 && r.end >= text.len()));
        error_at(path, text, span.or(e.span()), &friendly(e.message()))
    })?;
    match catalogue::find(named.recipe.trim()) {
        Some(e) => Ok(e.backend),
        None => {
            let span = locate::span_of(text, &KeyPath::of(None, "recipe"));
            Err(error_at(
                path,
                text,
                span,
                &catalogue::unknown_recipe(&named.recipe),
            ))
        }
    }
}

/// The error for a file whose recipe is another backend's than `backend`,
/// at its `recipe` key; `None` for any other file. Asked first by a
/// backend's reader: the other backend's keys are not its own, and the
/// user must be told which backend the recipe runs on, not about them.
pub(crate) fn other_backend(path: &Path, text: &str, backend: Backend) -> Option<ScenarioError> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let id = table.get("recipe")?.as_str()?;
    let entry = catalogue::find(id.trim())?;
    if entry.backend == backend {
        return None;
    }
    let span = locate::span_of(text, &KeyPath::of(None, "recipe"));
    Some(error_at(path, text, span, &not_this_backend(id, backend)))
}

/// The message for a recipe `backend`'s loader does not take: another
/// backend's, or one no backend has.
pub(crate) fn not_this_backend(id: &str, backend: Backend) -> String {
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
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, ScenarioError> {
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
pub(crate) fn utf8<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ScenarioError> {
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
pub(crate) fn error_at(
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
pub(crate) fn one_line(message: &str) -> String {
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
pub(crate) fn friendly(message: &str) -> String {
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
pub fn all_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    Ok(out)
}
