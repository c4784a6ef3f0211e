//! What every command backend's scenario reader (Redis, MySQL) does the
//! same way: the file's table read into the backend's own shape with each
//! error at its line, the recipe refused with the catalogue's words, the
//! `[check]` bounds, the configuration's own rules, the `[expect]` pins
//! (refused on a property the backend does not judge) and the name.

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
