//! The `locksmith` binary as users and scripts see it: exit codes, the
//! `--json` fields, and clear errors for bad input.

mod binary;

use binary::locksmith;

use std::io::Write;

fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("locksmith-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).expect("temp file");
    f.write_all(text.as_bytes()).expect("write");
    path
}

#[test]
fn a_violation_exits_1_with_the_trace_and_a_mermaid_diagram_on_request() {
    let (code, out, _) = locksmith(&["check", "scenarios/racy-wait.toml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("verdict: violated: deadlock"), "{out}");
    assert!(out.contains("watcher.wait()"), "{out}");
    assert!(!out.contains("sequenceDiagram"), "{out}");
    let (code, with, _) = locksmith(&["check", "scenarios/racy-wait.toml", "--mermaid"]);
    assert_eq!(code, 1, "{with}");
    assert!(with.contains("shortest trace (33 steps):"), "{with}");
    assert!(with.contains("```mermaid\nsequenceDiagram"), "{with}");
    for scenario in [
        "scenarios/redis-set-px-del-pause.toml",
        "scenarios/mysql-status-cas-unguarded-found-rows.toml",
    ] {
        let (_, out, _) = locksmith(&["check", scenario]);
        assert!(!out.contains("sequenceDiagram"), "{out}");
        let (_, with, _) = locksmith(&["check", scenario, "--mermaid"]);
        assert!(with.contains("sequenceDiagram"), "{scenario}: {with}");
    }
    let (code, out, err) = locksmith(&["replay", "scenarios/racy-wait-sim.toml", "--seed", "12"]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.contains("sequenceDiagram"));
    let (_, with, _) = locksmith(&[
        "replay",
        "scenarios/racy-wait-sim.toml",
        "--seed",
        "12",
        "--mermaid",
    ]);
    assert!(with.contains("sequenceDiagram"));
}

#[test]
fn holds_exits_0() {
    let (code, out, _) = locksmith(&["check", "scenarios/fixed-wait.toml", "--clients", "2"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verdict: holds"), "{out}");
}

#[test]
fn json_has_the_promised_fields() {
    let (code, out, _) = locksmith(&["check", "scenarios/racy-wait.toml", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["verdict"], "violated");
    assert_eq!(v["property"], "deadlock");
    assert_eq!(v["severity"], "liveness");
    for field in [
        "states",
        "depth",
        "elapsed_ms",
        "peak_bytes",
        "bytes_per_state",
    ] {
        assert!(v[field].is_u64(), "{field} in {v}");
    }
    assert!(
        v["states_per_second"].as_f64().is_some_and(|x| x > 0.0),
        "{v}"
    );
    // The process's peak resident memory, read from /proc on Linux.
    assert!(
        v["peak_memory_bytes"].as_u64().is_some_and(|b| b > 1 << 20),
        "{v}"
    );
    assert!(v["trace"].as_array().is_some_and(|t| !t.is_empty()));
}

#[test]
fn a_bound_exits_3_as_incomplete_and_names_it() {
    let (code, out, _) = locksmith(&["check", "scenarios/fixed-wait.toml", "--max-states", "100"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("verdict: incomplete"), "{out}");
    assert!(out.contains("max-states (100)"), "{out}");
}

/// A polling recipe's space has no end without the sequence abstraction:
/// the bound says so, with the rising zxid, and points at the remedy.
#[test]
fn a_bound_says_why_the_space_was_still_growing() {
    let path = scenario_file(
        "polling.toml",
        "recipe = \"try-once\"\nclients = 3\nacquisitions = 1\n",
    );
    let p = path.to_string_lossy();
    let (code, out, _) = locksmith(&["check", &p, "--max-states", "20000", "--json"]);
    assert_eq!(code, 3, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    let why = v["growth"].as_str().expect("growth names why");
    assert!(why.contains("the largest zxid rose"), "{why}");
    assert!(why.contains("--abstract-sequences"), "{why}");
    let (code, out, _) = locksmith(&["check", &p, "--max-states", "20000"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("still growing: depth"), "{out}");
}

#[test]
fn a_malformed_scenario_names_the_file_the_line_and_what_was_expected() {
    let p = scenario_file(
        "bad-type.toml",
        "recipe = \"racy-wait\"\nclients = \"two\"\n",
    );
    let (code, _, err) = locksmith(&["check", &p.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad-type.toml:2"), "{err}");
    assert!(err.contains("expected"), "{err}");

    let p = scenario_file("bad-recipe.toml", "clients = 2\nrecipe = \"zookeeper\"\n");
    let (code, _, err) = locksmith(&["check", &p.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad-recipe.toml:2"), "{err}");
    assert!(
        err.contains("racy-wait"),
        "the message lists the recipes: {err}"
    );

    let p = scenario_file(
        "bad-key.toml",
        "recipe = \"racy-wait\"\nclients = 2\nclinets = 3\n",
    );
    let (code, _, err) = locksmith(&["check", &p.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad-key.toml:3"), "{err}");
}

#[test]
fn a_mistyped_recipe_of_any_backend_lists_every_backend_and_suggests_the_nearest() {
    // A Redis file with its `[redis]` table: the typo is the mistake, not
    // the table's keys.
    let p = scenario_file(
        "typo.toml",
        "recipe = \"redis-set-px-dell\"\nclients = 2\n[redis]\nlease = 3\n[faults]\npauses = 1\n",
    );
    let p = p.to_string_lossy();
    for cmd in ["check", "sim"] {
        let (code, _, err) = locksmith(&[cmd, &p]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains(&format!(
                "{p}:1:1: unknown recipe `redis-set-px-dell`: expected one of predecessor,"
            )),
            "{cmd}: {err}"
        );
        assert!(
            err.contains("mysql-status-cas-unguarded (MySQL)"),
            "{cmd}: {err}"
        );
        assert!(
            err.contains("; did you mean `redis-set-px-del`?"),
            "{cmd}: {err}"
        );
    }
}

/// A command a scenario's backend cannot serve is refused by one message
/// that names the missing capability, at the file's `recipe` line, and
/// exits 2 before any connection or server is tried.
#[test]
fn a_command_the_backend_cannot_serve_names_the_missing_capability() {
    let (code, _, err) = locksmith(&[
        "confirm",
        "scenarios/mysql-status-cas.toml",
        "--zk",
        "127.0.0.1:1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "scenarios/mysql-status-cas.toml:7:1: recipe `mysql-status-cas` runs on MySQL: \
             `locksmith confirm` needs a trace re-enacted on a real server, which MySQL does \
             not have (it is there for ZooKeeper, Redis and etcd)"
        ),
        "{err}"
    );
    let (code, _, err) = locksmith(&["explorer", "scenarios/redis-set-px-del.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "scenarios/redis-set-px-del.toml:4:1: recipe `redis-set-px-del` runs on Redis: \
             `locksmith explorer` needs the Explorer web UI, which Redis does not have (it is \
             there for ZooKeeper)"
        ),
        "{err}"
    );
}

#[test]
fn the_help_speaks_of_every_backend() {
    let (code, out, err) = locksmith(&["--help"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("in-memory ZooKeeper "), "{out}");
    assert!(out.contains("ZooKeeper, Redis, MySQL and etcd"), "{out}");
    let (code, out, err) = locksmith(&["recipes", "--help"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("List every backend's recipes"), "{out}");
    assert!(
        out.contains("17 on ZooKeeper, 9 on Redis, 5 on MySQL, 3 on etcd"),
        "{out}"
    );
    // Each command's help says which backends it serves.
    for (cmd, says) in [
        ("real", ["ZooKeeper", "Redis", "MySQL", "etcd"].as_slice()),
        ("confirm", &["ZooKeeper", "Redis", "MySQL", "etcd"]),
        ("explorer", &["ZooKeeper", "Redis and MySQL"]),
        ("calibrate", &["ZooKeeper only"]),
        ("bench", &["ZooKeeper"]),
        ("bench-sim", &["ZooKeeper"]),
        ("sim", &["any backend"]),
    ] {
        let (code, out, err) = locksmith(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        for word in says {
            assert!(
                out.contains(word),
                "{cmd} --help does not say {word}: {out}"
            );
        }
    }
}

#[test]
fn a_missing_file_and_a_bad_flag_exit_2_without_a_panic() {
    let (code, _, err) = locksmith(&["check", "scenarios/no-such-file.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-file.toml"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = locksmith(&["check", "scenarios/racy-wait.toml", "--clients", "0"]);
    assert_eq!(code, 2);
    assert!(!err.contains("panicked"), "{err}");
    // A run of no seeds proves nothing: an error, not a pass.
    let (code, out, err) = locksmith(&["sim", "scenarios/racy-wait-sim.toml", "--seeds", "0"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("--seeds"), "{err}");
}

/// A broken `[sim]` table fails every command, `check` included, with the
/// line of the key inside `[sim]` (not a same-named key elsewhere).
#[test]
fn a_broken_sim_table_fails_check_with_its_line() {
    let cases = [
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[sim]\nclients = 0\n",
            "5:11",
            "integer `0`, expected a whole number from 1 to 255",
        ),
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[sim]\nthink_ms = [0.0, 1e308]\n",
            "5:1",
            "an hour",
        ),
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[sim]\nseeds = 0\n",
            "5:1",
            "seeds = 0",
        ),
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[sim.expect]\nverdict = \"holds\"\nstates = 3\n",
            "6:1",
            "[expect], not [sim.expect]",
        ),
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[sim.expect]\nverdict = \"violated\"\nproperty = \"liveness\"\n",
            "6:",
            "unknown property `liveness`",
        ),
        (
            "recipe = \"racy-wait\"\nclients = 2\n\n[expect]\nverdict = \"holds\"\nsteps = 3\n",
            "6:1",
            "steps pins the violation",
        ),
    ];
    for (i, (text, at, what)) in cases.iter().enumerate() {
        let path = scenario_file(&format!("broken-sim-{i}.toml"), text);
        let p = path.to_string_lossy().into_owned();
        let (code, out, err) = locksmith(&["check", &p]);
        assert_eq!(code, 2, "case {i}: {out}{err}");
        assert!(err.contains(&format!("{p}:{at}")), "case {i}: {err}");
        assert!(err.contains(what), "case {i}: {err}");
        assert!(!err.contains("panicked"), "case {i}: {err}");
    }
}

/// Every checker property is listed in the JSON, with `n/a` for the ones
/// the checker does not judge.
#[test]
fn json_lists_every_property_with_n_a_where_not_judged() {
    let (code, out, _) = locksmith(&["check", "scenarios/racy-wait.toml", "--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let props = v["properties"].as_array().expect("properties");
    let names: Vec<&str> = props
        .iter()
        .filter_map(|p| p["property"].as_str())
        .collect();
    for want in [
        "mutual exclusion at the resource",
        "mutual exclusion",
        "fenced safety",
        "deadlock",
        "starvation",
        "thread died",
        "herd",
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    let verdict = |name: &str| {
        props
            .iter()
            .find(|p| p["property"] == name)
            .and_then(|p| p["verdict"].as_str())
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(verdict("fenced safety"), "n/a");
    assert_eq!(verdict("deadlock"), "violated");
    assert_eq!(verdict("thread died"), "holds");
}

/// `locksmith replay … | head -c 16`: the reader goes away early (the
/// trace of 20 clients × 20 acquisitions is far over a pipe's buffer);
/// the command ends quietly (by SIGPIPE, as Unix tools do), not with a
/// panic in `println!`.
#[test]
fn a_closed_pipe_ends_the_output_without_a_panic() {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(["replay", "scenarios/predecessor-sim-20.toml", "--seed", "0"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("exits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// `--por`: the same verdict, fewer states, the figures in `--json`, and
/// the text no longer calls a trace the shortest; asked of a backend that
/// does not have it, an error.
#[test]
fn por_reduces_says_so_and_is_refused_where_it_is_not_built() {
    let (code, out, _) = locksmith(&["check", "scenarios/herd-unique.toml", "--por", "--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(
        (v["verdict"].as_str(), v["property"].as_str()),
        (Some("violated"), Some("herd"))
    );
    assert_eq!(v["por"], true);
    assert_eq!(
        (v["states"].as_u64(), v["por_reduced_states"].as_u64()),
        (Some(2_899), Some(1_569))
    );
    let (_, text, _) = locksmith(&["check", "scenarios/herd-unique.toml", "--por"]);
    assert!(
        text.contains("herd                              violated (trace: 21 steps)"),
        "{text}"
    );
    assert!(text.contains("\ntrace (21 steps):"), "{text}");
    assert!(!text.contains("shortest trace"), "{text}");
    let (code, _, err) = locksmith(&["check", "scenarios/redis-set-px-del.toml", "--por"]);
    assert_eq!(code, 2);
    // Refused by the backend's declared capabilities, at the recipe line.
    assert!(
        err.contains(
            "scenarios/redis-set-px-del.toml:4:1: recipe `redis-set-px-del` runs on Redis: \
             `locksmith check --por` needs partial-order reduction (ample sets built for its \
             actions), which Redis does not have (it is there for ZooKeeper)"
        ),
        "{err}"
    );
    // Nor is the sequence abstraction, for Redis or MySQL.
    for file in [
        "scenarios/redis-set-px-del.toml",
        "scenarios/mysql-status-cas.toml",
    ] {
        let (code, out, err) = locksmith(&["check", file, "--abstract-sequences"]);
        assert_eq!(code, 2, "{file}: {out}");
        assert!(
            err.contains(file)
                && err.contains(
                    "`locksmith check --abstract-sequences` needs sequence numbers in its states to abstract, which"
                ),
            "{err}"
        );
    }
}

#[test]
fn a_server_restart_is_the_checkers_and_the_simulator_refuses_it() {
    // The simulated server never stops: a run would pass without the fault.
    for (file, key) in [
        (
            "scenarios/curator-long-server-restart.toml",
            "long_server_restarts",
        ),
        (
            "scenarios/predecessor-server-restart.toml",
            "server_restarts",
        ),
    ] {
        for cmd in [&["sim", file][..], &["replay", file, "--seed", "0"]] {
            let (code, out, err) = locksmith(cmd);
            assert_eq!(code, 2, "{cmd:?}: {out}");
            assert!(
                err.contains(&format!(
                    "{file}: [faults] {key}: expected 0 in a simulation: the simulator does not stop its server"
                )),
                "{err}"
            );
        }
    }
    let (code, out, _) = locksmith(&["check", "scenarios/predecessor-server-restart.toml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAULT server stops"), "{out}");
}

#[test]
fn mutexes_on_one_session_are_the_checkers_and_confirms_and_the_other_drivers_refuse_them() {
    let file = "scenarios/curator-test-reentrant-2-threads.toml";
    // Each of these gives every client a session of its own: a run would be
    // of another situation. (`confirm` re-enacts them on one real session.)
    for cmd in [
        &["sim", file][..],
        &["replay", file, "--seed", "0"],
        &["real", file, "--zk", "127.0.0.1:1", "--seconds", "1"],
    ] {
        let (code, out, err) = locksmith(cmd);
        assert_eq!(code, 2, "{cmd:?}: {out}");
        assert!(
            err.contains(&format!("{file}: shared_session = true: expected")),
            "{cmd:?}: {err}"
        );
    }
    let (code, out, _) = locksmith(&["check", file]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("herd                              n/a"),
        "{out}"
    );
    assert!(
        out.contains("every client a thread of one process on one session"),
        "{out}"
    );
    // Only Curator keeps one session for the whole process.
    let f = scenario_file(
        "shared-predecessor.toml",
        "recipe = \"predecessor\"\nclients = 2\nshared_session = true\n",
    );
    let (code, _, err) = locksmith(&["check", f.to_str().expect("utf-8 path")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("shared-predecessor.toml:3:1: shared_session = true with recipe `predecessor`: expected a Curator recipe"),
        "{err}"
    );
}

/// The README's quick start, command by command as a newcomer types it
/// (after `cargo build --release`): each exits as the README says and
/// shows what the README says it shows.
#[test]
fn the_readme_quick_start_runs() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let section = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a sh block under ## Quick start");
    let commands: Vec<Vec<&str>> = section
        .lines()
        .filter_map(|l| l.strip_prefix("target/release/locksmith "))
        .map(|l| {
            l.split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect()
        })
        .collect();
    let want: [(&str, i32, &str); 5] = [
        ("check", 1, "verdict: violated: deadlock (liveness)"),
        ("sim", 1, "seed 12: no acquisition or release"),
        ("replay", 1, "verdict: violated: deadlock (seed 12)"),
        ("recipes", 0, "mysql-for-update"),
        (
            "check",
            1,
            "verdict: violated: mutual exclusion (safety by belief)",
        ),
    ];
    assert_eq!(commands.len(), want.len(), "{commands:?}");
    for (args, (command, code, shows)) in commands.iter().zip(want) {
        assert_eq!(args[0], command, "{args:?}");
        let (got, out, err) = locksmith(args);
        assert_eq!(got, code, "{args:?}: {err}");
        assert!(
            out.contains(shows),
            "{args:?} does not show {shows:?}:\n{out}"
        );
    }
}

/// `sim --json` says in how many seeds a holder's session expired inside
/// its critical section: every seed of the scheduled holder pause, none
/// without faults.
#[test]
fn sim_json_counts_the_seeds_with_a_stale_holder() {
    for (file, want) in [
        ("scenarios/predecessor-holder-pause.toml", 5),
        ("scenarios/predecessor.toml", 0),
    ] {
        let (_, out, err) = locksmith(&["sim", file, "--json", "--seeds", "5", "--keep-going"]);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        assert_eq!(v["seeds_run"], 5, "{file}");
        assert_eq!(v["stale_holder_seeds"], want, "{file}");
    }
}

/// `--json` on replay (every backend) and bench-sim: one JSON object with
/// the verdict, the trace's lines and the run's counts.
#[test]
fn replay_and_bench_sim_print_json() {
    let (code, out, err) = locksmith(&[
        "replay",
        "scenarios/racy-wait-sim.toml",
        "--seed",
        "12",
        "--json",
    ]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(
        (&v["backend"], &v["verdict"], &v["property"], &v["seed"]),
        (
            &serde_json::json!("zookeeper"),
            &serde_json::json!("violated"),
            &serde_json::json!("deadlock"),
            &serde_json::json!(12)
        )
    );
    assert!(v["trace"].as_array().is_some_and(|t| t.len() > 100), "{v}");
    assert!(v["metrics"]["acquisitions"].as_u64().is_some(), "{v}");
    let (code, out, err) = locksmith(&[
        "replay",
        "scenarios/mysql-status-cas-unguarded-found-rows.toml",
        "--seed",
        "0",
        "--json",
    ]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["backend"], "mysql");
    assert_eq!(v["property"], "mutual exclusion");
    assert!(v["trace"].as_array().is_some_and(|t| !t.is_empty()), "{v}");
    let (code, out, err) =
        locksmith(&["bench-sim", "--seeds", "1", "--sweep-seeds", "2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["throughput"].as_array().map(Vec::len), Some(4), "{v}");
    assert_eq!(v["sweep"]["seeds_run"], 2, "{v}");
}

/// The common flags have short forms, the same letter in every command.
#[test]
fn short_flags_mean_the_long_ones() {
    let (code, out, err) = locksmith(&[
        "check",
        "scenarios/racy-wait.toml",
        "-c",
        "2",
        "-a",
        "1",
        "-j",
        "1",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("with 2 clients × 1 acquisitions"), "{out}");
    let (code, out, err) = locksmith(&[
        "sim",
        "scenarios/racy-wait-sim.toml",
        "-c",
        "5",
        "-j",
        "2",
        "--seeds",
        "13",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("seed 12"), "{out}");
}

/// A pin on a property the backend does not judge (it would read n/a) is
/// refused where the file names it, by every command.
#[test]
fn an_expectation_on_a_property_the_backend_does_not_judge_is_refused() {
    refused_by_check_and_sim(
        "orphan.toml",
        "recipe = \"redis-set-px-del\"\nclients = 2\n[redis]\nlease = 3\n[expect]\nverdict = \"holds\"\nholds = [\"mutual exclusion\", \"orphaned node\"]\n",
        "7:30: `orphaned node` is not judged here (Redis has no sequential nodes): expected one of",
    );
    let p = scenario_file(
        "herd.toml",
        "recipe = \"mysql-status-cas\"\nclients = 2\n[expect]\nverdict = \"violated\"\nproperty = \"herd\"\n",
    );
    let (code, _, err) = locksmith(&["check", &p.to_string_lossy()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`herd` is not judged here"), "{err}");
    // The simulator's own pins, against what the simulator judges: no
    // token without `fencing`, so fenced safety would read n/a.
    refused_by_check_and_sim(
        "sim-fenced.toml",
        "recipe = \"predecessor\"\nclients = 2\n[sim.expect]\nverdict = \"holds\"\nholds = [\"fenced safety\"]\n",
        "5:10: `fenced safety` is not judged here (the simulated holder sends no token: `fencing = false` in [sim]): expected one of",
    );
}

/// Both `check` and `sim` refuse the file `name` (holding `text`) with exit
/// 2 and `at` (line:col: message) after its path: they load it alike.
fn refused_by_check_and_sim(name: &str, text: &str, at: &str) {
    let p = scenario_file(name, text);
    let p = p.to_string_lossy();
    for cmd in ["check", "sim"] {
        let (code, _, err) = locksmith(&[cmd, &p]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains(&format!("{p}:{at}")), "{cmd}: {err}");
    }
}

#[test]
fn real_on_an_etcd_scenario_wants_its_etcd_and_says_so() {
    let file = "scenarios/etcd-mutex.toml";
    for (args, says) in [
        (
            &["real", file][..],
            "recipe `etcd-mutex` runs on etcd: pass --etcd HOST:PORT",
        ),
        (
            &["real", file, "--etcd", "nope"],
            "--etcd \"nope\": expected HOST:PORT",
        ),
        (
            &[
                "real",
                file,
                "--etcd",
                "127.0.0.1:1",
                "--redis",
                "127.0.0.1:1",
            ],
            "--redis: recipe `etcd-mutex` runs on etcd (pass --etcd HOST:PORT)",
        ),
        (
            &["real", file, "--etcd", "127.0.0.1:1", "--seconds", "1"],
            "cannot reach etcd at 127.0.0.1:1",
        ),
        (
            &[
                "real",
                "scenarios/predecessor.toml",
                "--etcd",
                "127.0.0.1:1",
            ],
            "--etcd: recipe `predecessor` runs on ZooKeeper (pass --zk)",
        ),
    ] {
        let (code, out, err) = locksmith(args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `bench --case` is a shown flag: a name that is no case is refused
/// (exit 2) with the list of the cases, before anything is explored.
#[test]
fn bench_refuses_an_unknown_case_and_lists_the_cases() {
    let (code, _, err) = locksmith(&["bench", "--case", "curator-605"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no bench case `curator-605`"), "{err}");
    assert!(
        err.contains("curator-604, curator-604-owner-check"),
        "{err}"
    );
}
