//! Ctrl-C for the long commands (`check`, `sim`, `compare`, `real`): the
//! first SIGINT asks the run to stop — it reports what it covered, writes
//! no half report, cleans up what it created on a server, and exits
//! [`EXIT`]; a second SIGINT ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The exit code of an interrupted command (128 + SIGINT, as shells report
/// a process a Ctrl-C ended).
pub const EXIT: i32 = 130;

fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Catches SIGINT from now on. Without a handler (it could not be
/// installed) Ctrl-C keeps its default: the process ends at once.
pub fn install() {
    use signal_hook::consts::SIGINT;
    let f = flag().clone();
    // Registered first, so that it sees the flag before the second
    // handler sets it: a second Ctrl-C exits at once.
    let _ = signal_hook::flag::register_conditional_shutdown(SIGINT, EXIT, f.clone());
    let _ = signal_hook::flag::register(SIGINT, f);
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    flag().load(Ordering::Relaxed)
}

/// The flag itself, for code that polls it outside the CLI (the real
/// driver, a seed sweep).
pub fn shared() -> Arc<AtomicBool> {
    flag().clone()
}
