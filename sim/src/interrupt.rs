//! Ctrl-C and SIGTERM for the long commands (`check`, `sim`, `compare`,
//! `real`, `confirm`): the first signal asks the run to stop — it reports
//! what it covered, writes no half report, cleans up what it created on a
//! server, and exits [`exit_code`] (130 for SIGINT, 143 for SIGTERM, what
//! `timeout` and CI runners send); a second signal ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// 128 + SIGINT, as shells report a process a Ctrl-C ended.
pub const SIGINT_EXIT: i32 = 130;
/// 128 + SIGTERM.
pub const SIGTERM_EXIT: i32 = 143;

/// Set by either signal: what the runs poll.
fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Set by SIGTERM only: which code and which word the report uses.
fn term() -> &'static Arc<AtomicBool> {
    static TERM: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    TERM.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Catches SIGINT and SIGTERM from now on. Without a handler (it could not
/// be installed) a signal keeps its default: the process ends at once.
pub fn install() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for (signal, code) in [(SIGINT, SIGINT_EXIT), (SIGTERM, SIGTERM_EXIT)] {
        // Registered first, so that it sees the flag before the handlers
        // below set it: a second signal exits at once.
        let _ = signal_hook::flag::register_conditional_shutdown(signal, code, flag().clone());
    }
    let _ = signal_hook::flag::register(SIGTERM, term().clone());
    let _ = signal_hook::flag::register(SIGINT, flag().clone());
    let _ = signal_hook::flag::register(SIGTERM, flag().clone());
}

/// Whether a stop was asked for (Ctrl-C or SIGTERM).
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// The exit code of a run a signal stopped: 143 after SIGTERM, else 130.
pub fn exit_code() -> i32 {
    if term().load(Ordering::Relaxed) {
        SIGTERM_EXIT
    } else {
        SIGINT_EXIT
    }
}

/// The signal as a report names it: "Ctrl-C" or "SIGTERM".
pub fn what() -> &'static str {
    if term().load(Ordering::Relaxed) {
        "SIGTERM"
    } else {
        "Ctrl-C"
    }
}

/// The flag itself, for code that polls it outside the CLI (the real
/// driver, a seed sweep).
pub fn shared() -> Arc<AtomicBool> {
    flag().clone()
}
