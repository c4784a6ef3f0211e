//! `locksmith real`: a scenario's recipe against a real server of its
//! backend, with the figures `locksmith sim` prints, under the same names.
//! The file is read once; its backend plans and runs it
//! (`crate::commands::Commands::real`).

pub use crate::real::flags::RealArgs;

/// The run the flags ask for, checked before any connection, or the error
/// `run_real` exits 2 with.
pub fn plan(a: &RealArgs) -> Result<crate::commands::Planned<'_>, String> {
    use crate::backend::Capability;
    let needs: &[_] = if a.timeline.is_some() {
        &[
            ("real", Capability::RealServer),
            ("real --timeline", Capability::Timeline),
        ]
    } else {
        &[("real", Capability::RealServer)]
    };
    crate::backends::load_for(&a.scenario, needs)
        .map_err(|e| e.to_string())?
        .real(a)
}

/// Runs the command; exit code 0 clean, 1 violated (overlap or stall), 2
/// error (no server, bad scenario, what the run created not removed), 130
/// Ctrl-C.
pub fn run_real(a: &RealArgs) -> i32 {
    match plan(a) {
        Ok(run) => run(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
