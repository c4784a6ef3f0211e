//! Taking the checker's system one named action at a time, as a trace
//! would: for tests of what one action does.

use locksmith_model::zk::check::{Action, System};

/// Every action enabled in `s`, in the checker's order.
pub fn actions(s: &System<'static>) -> Vec<Action> {
    let mut out = Vec::new();
    s.actions(&mut out);
    out
}

/// Takes `a`, which must be enabled.
pub fn take(s: &mut System<'static>, a: Action) {
    assert!(actions(s).contains(&a), "{a} is not enabled");
    s.apply(a, false);
}
