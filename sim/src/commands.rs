//! THE SEAM of the app: what the commands ask of a scenario, whatever its
//! backend. Each backend implements it in its own folder; the registry
//! (`crate::backends`) hands a file's scenario to the commands as a
//! `Box<dyn Commands>`, so no command names a backend.
//!
//! Each method plans its command from the flags — reads and checks them
//! as the run needs them, without connecting, exploring or simulating —
//! and returns the run ([`Planned`]), or the error the command exits 2
//! with. `validate` (`crate::cli::validate`) plans and drops the run. A
//! command the backend does not declare (`crate::backend::capabilities`)
//! was refused at the file's recipe line before it got here: its default
//! method says so again rather than panic.

use crate::backend::Capability;
use crate::check::flags::CheckArgs;
use crate::confirm::flags::ConfirmArgs;
use crate::expect::Expectation;
use crate::real::flags::RealArgs;
use crate::simulate::flags::{ReplayArgs, SimArgs};
use std::net::SocketAddr;

/// A command's run, planned: calling it runs it and gives the exit code.
pub type Planned<'a> = Box<dyn FnOnce() -> i32 + 'a>;

/// What a scenario file pins, for `locksmith recipes`: each driver's
/// expectation that `cargo test` holds, with the faults that driver
/// injects, by the keys the file names them with (empty: none).
pub struct Pinned {
    /// The file name without `.toml`.
    pub name: String,
    pub drivers: Vec<(&'static str, Option<Expectation>, Vec<String>)>,
}

/// A scenario, as every command sees it.
pub trait Commands {
    /// The recipe's catalogue id, as the file names it.
    fn recipe_id(&self) -> &'static str;

    /// What the file pins (`locksmith recipes`).
    fn pinned(&self) -> Pinned;

    /// `locksmith check`: every interleaving, explored.
    fn check<'a>(self: Box<Self>, a: &'a CheckArgs) -> Result<Planned<'a>, String>;

    /// `locksmith sim`: the simulator over many seeds.
    fn sim<'a>(self: Box<Self>, _: &'a SimArgs) -> Result<Planned<'a>, String> {
        Err(undeclared(self.recipe_id(), "sim", Capability::Simulator))
    }

    /// `locksmith replay`: one seed's whole run.
    fn replay<'a>(self: Box<Self>, _: &'a ReplayArgs) -> Result<Planned<'a>, String> {
        Err(undeclared(
            self.recipe_id(),
            "replay",
            Capability::Simulator,
        ))
    }

    /// `locksmith real`: the recipe against a real server.
    fn real<'a>(self: Box<Self>, _: &'a RealArgs) -> Result<Planned<'a>, String> {
        Err(undeclared(self.recipe_id(), "real", Capability::RealServer))
    }

    /// `locksmith explorer`: stateright's web UI over the checker's model,
    /// exploring `clients` (the file's, unless given), served on `addr`
    /// (`shown`: as the user typed it).
    fn explorer<'a>(
        self: Box<Self>,
        _clients: Option<u8>,
        _addr: SocketAddr,
        _shown: &'a str,
    ) -> Result<Planned<'a>, String> {
        Err(undeclared(
            self.recipe_id(),
            "explorer",
            Capability::Explorer,
        ))
    }

    /// `locksmith confirm`: the checker's shortest trace re-enacted on a
    /// real server.
    fn confirm<'a>(self: Box<Self>, _: &'a ConfirmArgs) -> Result<Planned<'a>, String> {
        Err(undeclared(self.recipe_id(), "confirm", Capability::Confirm))
    }
}

/// What a command the backend does not declare says, should it be asked
/// (the registry refuses it at the recipe line first).
pub fn undeclared(recipe: &str, command: &str, c: Capability) -> String {
    format!(
        "recipe `{recipe}`: `locksmith {command}` needs {}, which its backend does not declare",
        c.name()
    )
}

/// The keys of the budgets that are not 0.
pub fn nonzero(by_key: &[(&'static str, u8)]) -> Vec<String> {
    by_key
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, _)| k.to_string())
        .collect()
}
