//! `confirm` on etcd: every etcd checker scenario whose `[expect]` says
//! violated has its headline property's shortest trace re-enacted on a
//! real etcd 3.4, and the server shows the same: every reply, watch event
//! and lock key agrees at every step — etcd-io/etcd#11456 among them.
//!
//! Needs a server: `scripts/etcd.sh start`, then
//! `LOCKSMITH_ETCD_ADDR=127.0.0.1:2390 cargo test -p locksmith --test
//! confirm_etcd -- --ignored --nocapture` (CI: `scripts/ci-etcd.sh`).

use locksmith::backends::AnyScenario;
use locksmith::confirm::Outcome;
use locksmith::etcd::confirm::confirm;
use locksmith::scenario::all_in;
use locksmith_model::engine::harness::Verdict;
use std::path::Path;
use std::sync::Mutex;

/// Runs share the model's lease ids (a client's n-th session asks for
/// `(client + 1) << 8 | n`), and each revokes them first: one at a time.
static ONE_RUN: Mutex<()> = Mutex::new(());

#[test]
#[ignore = "needs a real etcd: scripts/etcd.sh start, then cargo test -p locksmith --test confirm_etcd -- --ignored"]
fn every_violated_etcd_scenario_is_confirmed_on_a_real_etcd() {
    let _one = ONE_RUN.lock().unwrap_or_else(|p| p.into_inner());
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
        let r = confirm(&sc.space, Some(p), &addr).unwrap_or_else(|e| panic!("{}: {e}", sc.name));
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

/// `locksmith confirm --etcd` on #11456's scenario: exit 0 and the verdict
/// line; without `--etcd`, the error says which flag (exit 2).
#[test]
#[ignore = "needs a real etcd: scripts/etcd.sh start, then cargo test -p locksmith --test confirm_etcd -- --ignored"]
fn the_confirm_command_re_enacts_an_etcd_trace() {
    let _one = ONE_RUN.lock().unwrap_or_else(|p| p.into_inner());
    let addr = std::env::var("LOCKSMITH_ETCD_ADDR").unwrap_or_else(|_| "127.0.0.1:2390".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
            .current_dir(&root)
            .args(args)
            .output()
            .expect("the binary runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let file = "scenarios/etcd-mutex-waiter-expiry.toml";
    let (code, out, err) = run(&["confirm", file, "--etcd", &addr]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("confirmed: mutual exclusion on the real server"),
        "{out}"
    );
    assert!(out.contains("re-enacted on etcd at"), "{out}");
    let (code, _, err) = run(&["confirm", file]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass --etcd HOST:PORT"), "{err}");
}
