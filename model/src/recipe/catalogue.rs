//! The recipe catalogue: every recipe by its id, as one value type the
//! drivers can hold without knowing which recipe it is.

use super::step::{Action, Recipe, RecipeConfig, Resume, Thread};
use super::{fixed_wait, herd_children, herd_unique, no_recheck, predecessor, racy_wait};
use super::{herd_children::HerdChildren, herd_unique::HerdUnique, no_recheck::NoRecheck};
use super::{predecessor::Predecessor, seed000::Seed000};
use std::fmt;

/// A recipe id, as scenario files and the CLI name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecipeId {
    Predecessor,
    RacyWait,
    FixedWait,
    NoRecheck,
    HerdUnique,
    HerdChildren,
}

impl RecipeId {
    pub const ALL: [RecipeId; 6] = [
        RecipeId::Predecessor,
        RecipeId::RacyWait,
        RecipeId::FixedWait,
        RecipeId::NoRecheck,
        RecipeId::HerdUnique,
        RecipeId::HerdChildren,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RecipeId::Predecessor => "predecessor",
            RecipeId::RacyWait => "racy-wait",
            RecipeId::FixedWait => "fixed-wait",
            RecipeId::NoRecheck => "no-recheck",
            RecipeId::HerdUnique => "herd-unique",
            RecipeId::HerdChildren => "herd-children",
        }
    }

    pub fn parse(name: &str) -> Option<RecipeId> {
        RecipeId::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Where the recipe comes from, in a line.
    pub fn origin(self) -> &'static str {
        match self {
            RecipeId::Predecessor => "ZooKeeper recipes page; seeds 001/004 checkMinPath",
            RecipeId::RacyWait => "seed 000, first draft of attemptLock",
            RecipeId::FixedWait => "seed 000, final attemptLock",
            RecipeId::NoRecheck => "seed 003 lock()",
            RecipeId::HerdUnique => "seed 001 step 1",
            RecipeId::HerdChildren => "common variant: every waiter watches the children",
        }
    }

    /// A fresh client's recipe state.
    pub fn instantiate(self, cfg: RecipeConfig) -> AnyRecipe {
        match self {
            RecipeId::Predecessor => AnyRecipe::Predecessor(predecessor::new(cfg)),
            RecipeId::RacyWait => AnyRecipe::Seed000(racy_wait::new(cfg)),
            RecipeId::FixedWait => AnyRecipe::Seed000(fixed_wait::new(cfg)),
            RecipeId::NoRecheck => AnyRecipe::NoRecheck(no_recheck::new(cfg)),
            RecipeId::HerdUnique => AnyRecipe::HerdUnique(herd_unique::new(cfg)),
            RecipeId::HerdChildren => AnyRecipe::HerdChildren(herd_children::new(cfg)),
        }
    }
}

impl fmt::Display for RecipeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Any recipe's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyRecipe {
    Predecessor(Predecessor),
    Seed000(Seed000),
    NoRecheck(NoRecheck),
    HerdUnique(HerdUnique),
    HerdChildren(HerdChildren),
}

impl Recipe for AnyRecipe {
    fn lock_root(&self) -> &'static str {
        match self {
            AnyRecipe::Predecessor(r) => r.lock_root(),
            AnyRecipe::Seed000(r) => r.lock_root(),
            AnyRecipe::NoRecheck(r) => r.lock_root(),
            AnyRecipe::HerdUnique(r) => r.lock_root(),
            AnyRecipe::HerdChildren(r) => r.lock_root(),
        }
    }

    fn main_step(&mut self, resume: Resume) -> Action {
        self.step(Thread::Main, resume)
    }

    fn event_step(&mut self, resume: Resume) -> Action {
        self.step(Thread::Event, resume)
    }

    fn step(&mut self, thread: Thread, resume: Resume) -> Action {
        match self {
            AnyRecipe::Predecessor(r) => r.step(thread, resume),
            AnyRecipe::Seed000(r) => r.step(thread, resume),
            AnyRecipe::NoRecheck(r) => r.step(thread, resume),
            AnyRecipe::HerdUnique(r) => r.step(thread, resume),
            AnyRecipe::HerdChildren(r) => r.step(thread, resume),
        }
    }
}
