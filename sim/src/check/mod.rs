//! `locksmith check`'s run, the same for every backend: the flags applied,
//! the exploration with its progress line and Ctrl-C, what it prints (the
//! report's text, `--json`, `--mermaid`) and its exit code. A backend
//! says what it is and how it explores through [`Checked`], in its own
//! folder (ZooKeeper's: `crate::zk::check`; the command backends share
//! [`command`]).

pub mod command;
pub mod flags;
pub mod output;

use crate::commands::Planned;
use flags::CheckArgs;
use locksmith_model::engine::{Progress, Report, Trace};
use output::{interrupted, mermaid_text, with_progress};
use std::ops::ControlFlow;

/// A backend's scenario, as `locksmith check` runs it.
pub trait Checked {
    /// The flags applied, and the configuration checked as the run needs
    /// it (`Err`: what the command exits 2 with).
    fn apply(&mut self, a: &CheckArgs) -> Result<(), String>;
    fn check(&self, progress: &mut dyn FnMut(Progress) -> ControlFlow<()>) -> Report;
    fn to_json(&self, r: &Report) -> serde_json::Value;
    fn to_text(&self, r: &Report) -> String;
    /// A trace of this backend as a Mermaid sequence diagram.
    fn mermaid(&self, t: &Trace) -> String;
}

/// `sc` with the flags applied, and its run.
pub fn planned<'a, S: Checked + 'a>(a: &'a CheckArgs, mut sc: S) -> Result<Planned<'a>, String> {
    sc.apply(a)?;
    Ok(Box::new(move || run(a, &sc)))
}

fn run<S: Checked>(a: &CheckArgs, sc: &S) -> i32 {
    let report = with_progress(|progress| sc.check(progress));
    if a.json {
        println!("{}", sc.to_json(&report));
    } else {
        print!("{}", sc.to_text(&report));
        if a.mermaid {
            print!("{}", mermaid_text(&report, &|t| sc.mermaid(t)));
        }
    }
    if interrupted(&report) {
        return crate::interrupt::exit_code();
    }
    crate::exit::of(report.verdict)
}
