//! `locksmith check`: the exhaustive checker on one scenario file. The file
//! is read once; its backend plans the exploration
//! (`crate::commands::Commands::check`), and a flag its backend cannot
//! serve (`--por`, `--abstract-sequences`) is refused at the file's recipe
//! line rather than silently gone without.

use crate::backend::Capability;
pub use crate::check::flags::CheckArgs;
use crate::commands::Planned;

/// The exploration the flags ask for, or the error `run` exits 2 with.
pub fn plan(args: &CheckArgs) -> Result<Planned<'_>, String> {
    let mut needs = Vec::new();
    if args.por {
        needs.push(("check --por", Capability::PartialOrderReduction));
    }
    if args.abstract_sequences {
        needs.push((
            "check --abstract-sequences",
            Capability::SequenceAbstraction,
        ));
    }
    crate::backends::load_for(&args.scenario, &needs)
        .map_err(|e| e.to_string())?
        .check(args)
}

pub fn run(args: &CheckArgs) -> i32 {
    match plan(args) {
        Ok(run) => run(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
