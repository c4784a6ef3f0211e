//! Ctrl-C on the long commands: each stops with what it covered, says it
//! was interrupted (never `holds`), exits 130, and leaves no half-written
//! report; SIGTERM (what `timeout` and CI runners send) the same, exit 143. (`locksmith real` under Ctrl-C, with its server-side cleanup,
//! is in sim/tests/real.rs.)

use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `locksmith args…` from the repository root, sends it SIGINT after
/// `after`, and returns its exit code, stdout and stderr.
fn interrupted(args: &[&str], after: Duration) -> (Option<i32>, String, String) {
    signalled("-INT", args, after)
}

/// The same with `signal` (`kill`'s flag: `-INT`, `-TERM`).
fn signalled(signal: &str, args: &[&str], after: Duration) -> (Option<i32>, String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    std::thread::sleep(after);
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    let out = child.wait_with_output().expect("exits");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_interrupted_check_is_incomplete_naming_the_interrupt() {
    // 1.35 million states: many seconds in any build.
    let (code, out, err) = interrupted(
        &["check", "scenarios/predecessor.toml", "--json"],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(130), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["verdict"], "incomplete", "{v}");
    assert_eq!(v["bound"], "interrupted", "{v}");
    assert!(v["states"].as_u64().is_some_and(|n| n > 0), "{v}");
    let holds: Vec<&serde_json::Value> = v["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .filter(|p| p["verdict"] == "holds")
        .collect();
    assert!(
        holds.is_empty(),
        "an interrupted run holds nothing: {holds:?}"
    );
}

#[test]
fn an_interrupted_sweep_reports_the_seeds_it_ran() {
    let (code, out, err) = interrupted(
        &[
            "sim",
            "scenarios/predecessor-sim-20.toml",
            "--seeds",
            "10000000",
        ],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(130), "{out}{err}");
    assert!(
        out.contains("verdict: incomplete: interrupted (Ctrl-C) after"),
        "{out}"
    );
    assert!(out.contains("of 10000000 seeds"), "{out}");
}

#[test]
fn an_interrupted_compare_writes_no_report() {
    let dir = std::env::temp_dir().join(format!("locksmith-interrupt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out_dir = dir.join("reports");
    let (code, out, err) = interrupted(
        &[
            "compare",
            "--recipes",
            "predecessor,fixed-wait",
            "--out",
            &out_dir.to_string_lossy(),
            "--jobs",
            "1",
        ],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(130), "{out}{err}");
    assert!(out.contains("interrupted (Ctrl-C) after"), "{out}");
    assert!(out.contains("no report written"), "{out}");
    assert!(
        !out_dir.exists(),
        "a report was written to {}",
        out_dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM, as `timeout` sends it: the same stop, named, exit 143.
#[test]
fn a_terminated_sweep_reports_the_seeds_it_ran_and_exits_143() {
    let (code, out, err) = signalled(
        "-TERM",
        &[
            "sim",
            "scenarios/predecessor-sim-20.toml",
            "--seeds",
            "10000000",
        ],
        Duration::from_millis(1500),
    );
    assert_eq!(code, Some(143), "{out}{err}");
    assert!(
        out.contains("verdict: incomplete: interrupted (SIGTERM) after"),
        "{out}"
    );
}
