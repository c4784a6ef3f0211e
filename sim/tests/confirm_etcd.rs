//! `confirm` on etcd: every etcd checker scenario whose `[expect]` says
//! violated has its headline property's shortest trace re-enacted on a
//! real etcd 3.4, and the server shows the same: every reply, watch event
//! and lock key agrees at every step — etcd-io/etcd#11456 among them.
//!
//! Needs a server: `scripts/etcd.sh start`, then
//! `LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test -p locksmith --test
//! confirm_etcd -- --ignored --nocapture` (CI: `scripts/ci-etcd.sh`).

use locksmith::confirm::etcd::confirm;
use locksmith::confirm::Outcome;
use locksmith::scenario::{all_in, AnyScenario};
use locksmith_model::engine::harness::Verdict;
use std::path::Path;

#[test]
#[ignore = "needs a real etcd: scripts/etcd.sh start, then cargo test -p locksmith --test confirm_etcd -- --ignored"]
fn every_violated_etcd_scenario_is_confirmed_on_a_real_etcd() {
    let addr = std::env::var("LOCKSMITH_ETCD_ADDR").unwrap_or_else(|_| "127.0.0.1:2390".into());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut confirmed = Vec::new();
    let mut failed = Vec::new();
    for f in all_in(&dir).expect("scenarios/") {
        let Ok(AnyScenario::Etcd(sc)) = AnyScenario::load(&f) else {
            continue;
        };
        let Some(e) = &sc.expect else { continue };
        let (Verdict::Violated, Some(p)) = (e.verdict, e.property) else {
            continue;
        };
        let r = confirm(&sc.space, p, &addr).unwrap_or_else(|e| panic!("{}: {e}", sc.name));
        println!("--- {} ({p}, {} steps):", sc.name, r.trace_steps);
        for s in &r.transcript {
            println!(
                "{:>3}. {:<28} model: {}\n     {:<28} real:  {}",
                s.step, s.actor, s.model, "", s.real
            );
        }
        assert_eq!(Some(r.trace_steps), e.steps, "{}", sc.name);
        match &r.outcome {
            Outcome::Confirmed(why) => {
                println!("    confirmed: {why}");
                confirmed.push(sc.name.clone());
            }
            other => failed.push(format!("{}: {other:?}", sc.name)),
        }
    }
    println!(
        "etcd confirm: {} confirmed: {}",
        confirmed.len(),
        confirmed.join(", ")
    );
    assert!(failed.is_empty(), "not confirmed:\n{}", failed.join("\n"));
    assert!(
        confirmed.iter().any(|n| n == "etcd-mutex-waiter-expiry"),
        "etcd-io/etcd#11456's trace is among them"
    );
}
