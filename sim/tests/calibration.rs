//! The simulator's costs against the real server's (docs/real.md,
//! "Calibration"): with the committed profile
//! `scenarios/profiles/zookeeper-3.8.toml` (`locksmith calibrate`), the
//! simulated notifications and packets per contended acquisition, held
//! against the real server's figures measured by `scripts/calibration.sh`.
//! No server needed: the real figures are the ones committed below.

mod binary;

use binary::locksmith;

/// One row: the recipe, its clients, and the real server's notifications
/// and packets per contended acquisition — the mean over five 3-second
/// runs of `locksmith real … --json` (no think, no hold), measured by
/// `LOCKSMITH_BIN=target/release/locksmith scripts/calibration.sh
/// 127.0.0.1:2191` on ZooKeeper 3.8.0 from `scripts/zookeeper.sh`, 2-core
/// machine, 27 Nov 2026.
struct Row {
    recipe: &'static str,
    clients: u8,
    real: (f64, f64),
    /// What the simulator gives with the real driver's workload, without
    /// the profile and with it (pinned: the simulation is deterministic).
    before: (f64, f64),
    after: (f64, f64),
}

const ROWS: [Row; 5] = [
    Row {
        recipe: "herd-children",
        clients: 5,
        real: (4.83, 18.50),
        before: (4.67, 18.06),
        after: (4.85, 18.60),
    },
    Row {
        recipe: "herd-children",
        clients: 10,
        real: (10.73, 36.21),
        before: (10.20, 34.63),
        after: (10.54, 35.64),
    },
    Row {
        recipe: "herd-children",
        clients: 20,
        real: (23.00, 73.01),
        before: (21.21, 67.64),
        after: (21.47, 68.43),
    },
    Row {
        recipe: "predecessor",
        clients: 5,
        real: (1.00, 11.00),
        before: (1.00, 11.12),
        after: (1.00, 11.16),
    },
    Row {
        recipe: "predecessor",
        clients: 20,
        real: (1.00, 11.02),
        before: (1.00, 11.03),
        after: (1.00, 11.04),
    },
];

/// `locksmith sim` on `scenarios/calibration/RECIPE.toml` (or
/// `RECIPE-uncalibrated.toml`, without the profile): the real driver's
/// workload — no think, no hold, no resource round trip — 20 seeds × 20
/// acquisitions; notifications and packets per contended acquisition.
fn simulate(recipe: &str, clients: u8, profiled: bool) -> (f64, f64) {
    simulate_with(recipe, clients, profiled, |text| text)
}

/// [`simulate`] on the scenario as `change` rewrites it.
fn simulate_with(
    recipe: &str,
    clients: u8,
    profiled: bool,
    change: impl FnOnce(String) -> String,
) -> (f64, f64) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let name = if profiled {
        format!("{recipe}.toml")
    } else {
        format!("{recipe}-uncalibrated.toml")
    };
    let committed = format!("{root}/scenarios/calibration/{name}");
    let text = std::fs::read_to_string(&committed).expect("the calibration scenario");
    // Elsewhere, the profile is named by its whole path.
    let text = change(text).replace("\"../profiles/", &format!("\"{root}/scenarios/profiles/"));
    let dir = std::env::temp_dir().join(format!("locksmith-calibration-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Tests run at once in one process: one file per distinct scenario.
    let tag = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        h.finish()
    };
    let path = dir.join(format!("{recipe}-{clients}-{tag:x}.toml"));
    std::fs::write(&path, text).expect("scenario");
    let path = path.to_string_lossy().into_owned();
    let n = clients.to_string();
    let (code, out, err) = locksmith(&["sim", &path, "--clients", &n, "--keep-going", "--json"]);
    // Exit 1: the herd recipe violates herd, as it must.
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let m = &v["metrics"];
    let count = |k: &str| m[k].as_f64().expect(k);
    let contended = count("contended_acquisitions");
    (
        count("notifications") / contended,
        (count("requests") + count("replies") + count("notifications")) / contended,
    )
}

/// The scenario with its protected resource a link away again (the
/// simulator's default: the server's latency).
fn with_the_resource_a_link_away(text: String) -> String {
    let local = "resource_latency_ms = [0.0, 0.0]\n";
    assert!(text.contains(local), "{text}");
    text.replace(local, "")
}

/// The scenario with one more `[sim]` key (its last table).
fn with(key: &'static str) -> impl FnOnce(String) -> String {
    move |text| format!("{text}{key}\n")
}

fn two_decimals(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn within(sim: f64, real: f64) -> bool {
    (sim - real).abs() <= 0.10 * real
}

#[test]
fn the_calibrated_simulation_is_within_ten_percent_of_the_real_server() {
    for r in &ROWS {
        let before = simulate(r.recipe, r.clients, false);
        let after = simulate(r.recipe, r.clients, true);
        let row = format!("{} × {}", r.recipe, r.clients);
        assert_eq!(
            (two_decimals(before.0), two_decimals(before.1)),
            r.before,
            "{row}, no profile"
        );
        assert_eq!(
            (two_decimals(after.0), two_decimals(after.1)),
            r.after,
            "{row}, profile"
        );
        assert!(
            within(after.0, r.real.0) && within(after.1, r.real.1),
            "{row}: calibrated {after:?}, real {:?}",
            r.real
        );
    }
}

/// What kept herd-children at 5 clients out of the band until 27 Nov 2026
/// (docs/real.md): the simulated holder wrote to a resource a link away
/// and waited for the acknowledgement before unlock(), a round trip the
/// real driver does not make. That time let the waiters re-arm their
/// watches before the release, so more of them heard it.
#[test]
fn a_resource_round_trip_in_the_critical_section_arms_more_herd_watches() {
    let (local, _) = simulate("herd-children", 5, true);
    let (remote, _) = simulate_with("herd-children", 5, true, with_the_resource_a_link_away);
    assert_eq!((two_decimals(remote), two_decimals(local)), (5.61, 4.85));
    let real = ROWS[0].real.0;
    assert!(!within(remote, real) && within(local, real));
    let (pred, _) = simulate_with("predecessor", 5, true, with_the_resource_a_link_away);
    assert_eq!(two_decimals(pred), 1.0);
}

#[test]
fn a_missing_profile_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("locksmith-calibration-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("missing-profile.toml");
    std::fs::write(
        &path,
        "recipe = \"predecessor\"\nclients = 2\nacquisitions = 1\n[sim]\nprofile = \"no-such-profile.toml\"\n",
    )
    .expect("scenario");
    let (code, _, err) = locksmith(&["sim", &path.to_string_lossy()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing-profile.toml:5"), "{err}");
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn calibrate_without_a_server_exits_2() {
    let (code, _, err) = locksmith(&["calibrate", "--zk", "127.0.0.1:1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("127.0.0.1:1"), "{err}");
    let (code, _, err) = locksmith(&["calibrate", "--zk", "127.0.0.1:2181/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("without a path"), "{err}");
}

/// The profile `calibrate` writes is one a scenario can name, with
/// positive service times, and the simulator runs with it.
#[test]
#[ignore = "needs a real ZooKeeper on 127.0.0.1:2181: scripts/zookeeper.sh start; cargo test --test calibration -- --ignored"]
fn calibrate_writes_a_profile_a_scenario_can_name() {
    let addr = std::env::var("LOCKSMITH_ZK_ADDR").unwrap_or_else(|_| "127.0.0.1:2181".into());
    let dir = std::env::temp_dir().join(format!("locksmith-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let profile = dir.join("measured.toml");
    let (code, _, err) = locksmith(&[
        "calibrate",
        "--zk",
        &addr,
        "--requests",
        "400",
        "--out",
        &profile.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&profile).expect("the profile");
    let t: toml::Table = toml::from_str(&text).expect("TOML");
    let sim = t["sim"].as_table().expect("[sim]");
    let read = sim["server_read_ms"].as_float().expect("server_read_ms");
    let write = sim["server_write_ms"].as_float().expect("server_write_ms");
    assert!(read > 0.0 && write > 0.0, "{text}");
    let event = sim["event_ms"].as_float().expect("event_ms");
    assert!(event >= 0.0, "{text}");
    let scenario = dir.join("named.toml");
    std::fs::write(
        &scenario,
        "recipe = \"predecessor\"\nclients = 3\nacquisitions = 2\n[sim]\nseeds = 2\nprofile = \"measured.toml\"\n",
    )
    .expect("scenario");
    let (code, out, err) = locksmith(&["sim", &scenario.to_string_lossy(), "--json"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `event_ms`: the simulated client library hands each notification on
/// later, and a herd's waiters re-arm their watches later, so fewer are
/// armed when the next change fires. Measured on the real server the delay
/// is about 0 (docs/real.md), so the committed profile leaves it out; this
/// pins what the key does, herd-children at 5 clients with the profile.
#[test]
fn a_notification_handed_on_later_arms_fewer_herd_watches() {
    let (now, _) = simulate("herd-children", 5, true);
    let (later, _) = simulate_with("herd-children", 5, true, with("event_ms = 0.3"));
    assert_eq!((two_decimals(now), two_decimals(later)), (4.85, 3.89));
    let (pred, _) = simulate_with("predecessor", 5, true, with("event_ms = 0.3"));
    assert_eq!(two_decimals(pred), 1.0);
}
