//! The exit codes, a contract the same in every command: 0 holds, 1
//! violated, 2 bad input or an error, 3 incomplete (a bound stopped the
//! run first), 130 and 143 a run SIGINT (Ctrl-C) or SIGTERM stopped
//! ([`crate::interrupt::exit_code`]). `confirm` keeps its own 0 confirmed /
//! 1 diverged / 2 not confirmed.

use locksmith_model::engine::Verdict;

/// The exit code of a run a bound stopped before it reached a verdict.
pub const INCOMPLETE: i32 = 3;

/// Exit code for a verdict.
pub fn of(v: Verdict) -> i32 {
    match v {
        Verdict::Holds | Verdict::NotApplicable => 0,
        Verdict::Violated => 1,
        Verdict::Incomplete => INCOMPLETE,
    }
}
