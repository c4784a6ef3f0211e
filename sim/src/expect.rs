//! What a scenario expects of a driver: one type for the checker's
//! `[expect]` and the simulator's `[sim.expect]`, parsed and validated when
//! the file is loaded, and judged against what the driver found.
//!
//! ```toml
//! [expect]                   # the checker
//! verdict = "violated"       # holds | violated | incomplete
//! property = "deadlock"      # the headline: the first violated property
//! holds = ["mutual exclusion"]
//! steps = 33                 # the headline's shortest trace, in steps
//! states = 359               # states explored (exhaustive runs only)
//! violated = { "thread died" = 12 }   # other violated properties, each
//!                            # with its shortest trace's steps (checker)
//!
//! [sim.expect]               # the simulator, over [sim] seeds
//! verdict = "violated"
//! property = "deadlock"
//! holds = ["mutual exclusion at the resource"]
//! ```

use crate::scenario::locate::KeyPath;
use locksmith_model::engine::harness::{Property, Verdict};
use serde::{Deserialize, Serialize};

/// The table as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawExpect {
    pub verdict: String,
    #[serde(default)]
    pub property: Option<String>,
    #[serde(default)]
    pub holds: Vec<String>,
    #[serde(default)]
    pub steps: Option<usize>,
    #[serde(default)]
    pub states: Option<usize>,
    #[serde(default)]
    pub violated: std::collections::BTreeMap<String, usize>,
}

/// What a driver must find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub verdict: Verdict,
    /// The property the verdict is about (the first violated one).
    pub property: Option<Property>,
    /// Properties that must hold as well.
    pub holds: Vec<Property>,
    /// The headline trace's length, in steps (checker only).
    pub steps: Option<usize>,
    /// States explored (checker only; exact where exhaustive).
    pub states: Option<usize>,
    /// Properties violated besides the headline, each with its shortest
    /// trace's steps (checker only).
    pub violated: Vec<(Property, usize)>,
}

/// What a driver found, as an expectation judges it.
pub struct Found<'a> {
    pub verdict: Verdict,
    pub property: Option<Property>,
    /// Each property's verdict.
    pub of: &'a dyn Fn(Property) -> Verdict,
    pub steps: Option<usize>,
    pub states: Option<usize>,
    /// Each property's shortest trace, in steps, if it was found violated
    /// with one.
    pub steps_of: &'a dyn Fn(Property) -> Option<usize>,
}

impl Expectation {
    /// Parses `raw`; an error names the key at fault (inside the table)
    /// and what was expected.
    pub fn parse(raw: &RawExpect) -> Result<Expectation, (KeyPath, String)> {
        let key = |k: &str| KeyPath::of(None, k);
        let verdict = Verdict::parse(&raw.verdict)
            .filter(|v| *v != Verdict::NotApplicable)
            .ok_or_else(|| {
                (
                    key("verdict"),
                    format!(
                        "unknown verdict `{}`: expected holds, violated or incomplete",
                        raw.verdict
                    ),
                )
            })?;
        let property = |at: KeyPath, s: &str| {
            Property::parse(s).ok_or_else(|| {
                (
                    at,
                    format!(
                        "unknown property `{s}`: expected one of {}",
                        Property::names()
                    ),
                )
            })
        };
        let e = Expectation {
            verdict,
            property: raw
                .property
                .as_deref()
                .map(|s| property(key("property"), s))
                .transpose()?,
            holds: raw
                .holds
                .iter()
                .enumerate()
                .map(|(i, s)| property(key("holds").index(i), s))
                .collect::<Result<_, _>>()?,
            steps: raw.steps,
            states: raw.states,
            violated: raw
                .violated
                .iter()
                .map(|(s, &n)| Ok((property(key("violated").key(s), s)?, n)))
                .collect::<Result<_, _>>()?,
        };
        if e.verdict == Verdict::Violated && e.property.is_none() {
            return Err((
                key("verdict"),
                "verdict = \"violated\" needs the property it is about: expected `property = ...`"
                    .into(),
            ));
        }
        if e.steps.is_some() && e.verdict != Verdict::Violated {
            return Err((
                key("steps"),
                "steps pins the violation's shortest trace: expected verdict = \"violated\" with it"
                    .into(),
            ));
        }
        Ok(e)
    }

    /// [`Expectation::parse`], refusing a property the backend does not
    /// judge in this configuration (`not_judged` gives why: it would read
    /// n/a, so a pin on it says nothing).
    pub fn parse_judged(
        raw: &RawExpect,
        not_judged: &dyn Fn(Property) -> Option<&'static str>,
    ) -> Result<Expectation, (KeyPath, String)> {
        let e = Expectation::parse(raw)?;
        let key = |k: &str| KeyPath::of(None, k);
        let named = raw
            .property
            .iter()
            .map(|s| (key("property"), s))
            .chain(
                raw.holds
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (key("holds").index(i), s)),
            )
            .chain(raw.violated.keys().map(|s| (key("violated").key(s), s)));
        for (at, s) in named {
            let Some(why) = Property::parse(s).and_then(not_judged) else {
                continue;
            };
            let judged: Vec<&str> = Property::ALL
                .into_iter()
                .filter(|&p| not_judged(p).is_none())
                .map(Property::name)
                .collect();
            return Err((
                at,
                format!(
                    "`{s}` is not judged here ({why}): expected one of {}",
                    judged.join(", ")
                ),
            ));
        }
        Ok(e)
    }

    /// Everything `found` gets wrong, one line each (empty: as expected).
    pub fn problems(&self, found: &Found) -> Vec<String> {
        let mut out = Vec::new();
        if found.verdict != self.verdict {
            out.push(format!(
                "expected verdict {}, found {}",
                self.verdict, found.verdict
            ));
        }
        if self.verdict != Verdict::Holds && found.property != self.property {
            out.push(format!(
                "expected the verdict to be about {}, it is about {}",
                self.property.map_or("nothing", |p| p.name()),
                found.property.map_or("nothing", |p| p.name())
            ));
        }
        for p in &self.holds {
            let v = (found.of)(*p);
            if v != Verdict::Holds {
                out.push(format!("expected {p} to hold, found {v}"));
            }
        }
        if let Some(want) = self.steps {
            if found.steps != Some(want) {
                out.push(format!(
                    "expected a shortest trace of {want} steps, found {}",
                    found.steps.map_or("none".into(), |s| s.to_string())
                ));
            }
        }
        for &(p, want) in &self.violated {
            let v = (found.of)(p);
            if v != Verdict::Violated {
                out.push(format!("expected {p} to be violated, found {v}"));
            } else if (found.steps_of)(p) != Some(want) {
                out.push(format!(
                    "expected {p}'s shortest trace to take {want} steps, found {}",
                    (found.steps_of)(p).map_or("none".into(), |s| s.to_string())
                ));
            }
        }
        if let Some(want) = self.states {
            if found.states != Some(want) {
                out.push(format!(
                    "expected {want} states, explored {}",
                    found.states.map_or("none".into(), |s| s.to_string())
                ));
            }
        }
        out
    }
}
