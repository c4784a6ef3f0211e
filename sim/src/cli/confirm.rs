//! `locksmith confirm`: the checker's shortest trace of a scenario,
//! re-enacted step for step on a real server of its backend. The file is
//! read once; its backend plans the re-enactment
//! (`crate::commands::Commands::confirm`).

use crate::backend::Capability;
pub use crate::confirm::flags::ConfirmArgs;

/// The confirmation the flags ask for, checked before any connection.
pub fn plan(a: &ConfirmArgs) -> Result<crate::commands::Planned<'_>, String> {
    crate::backends::load_for(&a.scenario, &[("confirm", Capability::Confirm)])
        .map_err(|e| e.to_string())?
        .confirm(a)
}

/// Exit codes: 0 confirmed, 1 diverged, 2 error (no violation to confirm,
/// no server, a step confirm cannot force), 130 Ctrl-C.
pub fn run_confirm(a: &ConfirmArgs) -> i32 {
    match plan(a) {
        Ok(run) => run(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
