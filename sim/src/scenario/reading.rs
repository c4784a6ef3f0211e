//! What every command backend's scenario reader (Redis, MySQL, etcd) does
//! the same way: the file's shape ([`command_reader!`]: the keys they all
//! have, the backend's own time table and fault budgets), the file read
//! into it with each error at its line, the recipe refused with the
//! catalogue's words, the `[check]` bounds, the configuration's own rules,
//! the `[expect]` pins (refused on a property the backend does not judge)
//! and the name.

use super::bounds::Bounds;
use super::command::{CommandScenario, CommandSpace};
use super::{error_at, friendly, locate, KeyPath, ScenarioError};
use crate::expect::{Expectation, RawExpect};
use locksmith_model::catalogue::Backend;
use locksmith_model::engine::harness::Property;
use locksmith_model::engine::Limits;
use serde::de::DeserializeOwned;
use std::path::Path;

pub struct Reading<'a> {
    pub path: &'a Path,
    pub text: &'a str,
}

impl<'a> Reading<'a> {
    /// The file's table in the backend's raw shape (an unknown recipe is
    /// refused first, with every backend's recipes).
    pub fn raw<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        if let Some(e) = super::unknown_recipe(self.path, self.text) {
            return Err(e);
        }
        toml::from_str(self.text).map_err(|e| {
            let span = e
                .span()
                .filter(|r| !(r.start == 0 && r.end >= self.text.len()));
            error_at(
                self.path,
                self.text,
                span.or(e.span()),
                &friendly(e.message()),
            )
        })
    }

    /// An error at the key `dotted` (`table.key`, or a top-level key).
    pub fn at(&self, dotted: &str, message: String) -> ScenarioError {
        let key = match dotted.rsplit_once('.') {
            Some((table, k)) => KeyPath::of(Some(table), k),
            None => KeyPath::of(None, dotted),
        };
        self.at_key(&key, message)
    }

    fn at_key(&self, key: &KeyPath, message: String) -> ScenarioError {
        error_at(
            self.path,
            self.text,
            locate::span_of(self.text, key),
            &message,
        )
    }

    /// `parse`'s recipe, or the refusal of an id `parse` does not know
    /// (another backend's recipe says which).
    pub fn recipe<R>(
        &self,
        id: &str,
        backend: Backend,
        parse: impl Fn(&str) -> Option<R>,
    ) -> Result<R, ScenarioError> {
        parse(id).ok_or_else(|| self.at("recipe", super::not_this_backend(id, backend)))
    }

    /// The `[check]` bounds applied to `limits`, or the one set to 0.
    pub fn bounds(&self, b: &Bounds, limits: &mut Limits) -> Result<(), ScenarioError> {
        if let Some((name, why)) = b.zero() {
            return Err(self.at_key(&KeyPath::of(Some("check"), name), why));
        }
        b.apply(limits);
        Ok(())
    }

    /// A rule the configuration breaks (`problem`: the key and why), at
    /// its key — a default that breaks a rule points at its table.
    pub fn rule(&self, problem: Option<(&str, String)>) -> Result<(), ScenarioError> {
        match problem {
            Some((k, why)) => Err(self.at(k, format!("{k}: {why}"))),
            None => Ok(()),
        }
    }

    /// `[expect]`, refused on a property `not_judged` names.
    pub fn expect(
        &self,
        raw: Option<&RawExpect>,
        not_judged: &dyn Fn(Property) -> Option<&'static str>,
    ) -> Result<Option<Expectation>, ScenarioError> {
        raw.map(|e| {
            Expectation::parse_judged(e, not_judged).map_err(|(k, why)| {
                let mut p = KeyPath::table("expect");
                p.0.extend(k.0);
                self.at_key(&p, why)
            })
        })
        .transpose()
    }

    /// The scenario of `space`, configured from the file: the `[check]`
    /// bounds applied, then the configuration's rules and the `[expect]`
    /// pins checked, each error at its key.
    pub fn scenario<S: CommandSpace>(
        &self,
        mut space: S,
        check: &Bounds,
        expect: Option<&RawExpect>,
        description: String,
    ) -> Result<CommandScenario<S>, ScenarioError> {
        self.bounds(check, space.sizes().2)?;
        self.rule(CommandSpace::problem(&space))?;
        let expect = self.expect(expect, &|p| space.not_judged(p))?;
        Ok(CommandScenario {
            name: self.name(),
            path: self.path.to_path_buf(),
            description,
            space,
            expect,
        })
    }

    /// The file name without `.toml`.
    pub fn name(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// The rounds a scenario runs when it does not say.
pub(crate) fn one() -> u8 {
    1
}

/// A command backend's scenario reader, written once: the file's shape
/// (the keys every command scenario has, the backend's own time table
/// `[$table]` read into `$time`, its `[faults]` into `$faults`), the
/// recipe it names, and its reading into a [`CommandScenario`] of
/// `$space`, whose [`CommandSpace`] impl it writes too. Which backend
/// reads a file is the catalogue's answer (`super::backend_named`). The backend writes
/// `$time` and its `space(&self, recipe) -> $space`: the space of the
/// recipe with the file's times (each default, if it has one, from the
/// file's other times), and imports its `mermaid`.
macro_rules! command_reader {
    ($backend:expr, $recipe:ty, $space:ty, [$table:ident]: $time:ty, $faults:ty) => {
        #[derive(Debug, Clone, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            recipe: String,
            #[serde(deserialize_with = "crate::scenario::clients::clients")]
            clients: u8,
            #[serde(default = "crate::scenario::reading::one")]
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
            check: $crate::scenario::bounds::Bounds,
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
            const BACKEND: locksmith_model::catalogue::Backend = $backend;
            $crate::scenario::command::command_space_fields!();
        }
    };
}
pub(crate) use command_reader;
