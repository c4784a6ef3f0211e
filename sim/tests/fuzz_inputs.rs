//! Fuzzed inputs: generated malformed scenario files and command lines
//! through every command that reads a scenario (`check`, `sim`, `replay`,
//! `real` before it connects, `explorer` before it serves, `recipes`) and
//! `compare`'s `--recipes`/`--faults`. Nothing may panic; a rejected file
//! is named with its line and column and what was expected there; a
//! rejected command line exits 2.
//!
//! In-process (`locksmith::cli::validate` runs each command's own checks
//! without running it), so thousands of cases take seconds; a small
//! sample runs the binary to prove the exit codes. Deterministic by
//! default; `LOCKSMITH_FUZZ_CASES` (cases per property, default 300; the
//! heavy tier, `bash scripts/heavy-tests.sh`, runs 1500),
//! `LOCKSMITH_FUZZ_SEED` (any number) and `LOCKSMITH_FUZZ_BINARY_FILES`
//! (broken files run through the binary, default 12) widen it —
//! `scripts/fuzz.sh` does.

mod binary;

use locksmith::backends::AnyScenario;
use locksmith::zk::scenario::Scenario;
use locksmith::zk::sim::{run_seed, SimConfig};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn cases() -> u32 {
    std::env::var("LOCKSMITH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

fn runner(cases: u32) -> TestRunner {
    let seed = std::env::var("LOCKSMITH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every scenario file of the repository: the seeds the mutations start
/// from.
fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["scenarios", "reports/scenarios"] {
        let files = locksmith::scenario::all_in(&repo().join(dir)).unwrap_or_default();
        out.extend(files.iter().filter_map(|f| std::fs::read_to_string(f).ok()));
    }
    assert!(out.len() > 30, "the corpus has {} files", out.len());
    out
}

/// A scratch folder of this test process and this test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locksmith-fuzz-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Values of every wrong type and absurd size.
const VALUES: &[&str] = &[
    "\"x\"",
    "\"\"",
    "true",
    "[]",
    "[1, 2]",
    "[\"a\"]",
    "{ a = 1 }",
    "-1",
    "0",
    "1",
    "8",
    "9",
    "255",
    "256",
    "65536",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1.5",
    "-0.0",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "[0.0, 1e308]",
    "[-1.0, 2.0]",
    "[2.0, 1.0]",
    "[0.0, 3600000.0]",
    "[nan, 1.0]",
    "[1.0]",
    "[1.0, 2.0, 3.0]",
    "\"holder\"",
    "\"waiter\"",
    "\"expire\"",
    "\"liveness\"",
    "\"mutual exclusion\"",
    "\"violated\"",
    "\"holds\"",
    "1979-05-27T07:32:00Z",
    "'''multi\nline'''",
    "\"\\u0000\"",
];

/// Keys of every table, right and wrong.
const KEYS: &[&str] = &[
    "recipe",
    "clients",
    "acquisitions",
    "reentries",
    "description",
    "waiter_expiries",
    "holder_expiries",
    "connection_losses",
    "disconnects",
    "expiries",
    "crashes",
    "verdict",
    "property",
    "holds",
    "steps",
    "states",
    "max_states",
    "max_depth",
    "max_memory_mb",
    "seeds",
    "session_timeout_ms",
    "latency_ms",
    "latency_dist",
    "think_ms",
    "hold_ms",
    "wake_ms",
    "server_read_ms",
    "server_write_ms",
    "event_ms",
    "resource_latency_ms",
    "fencing",
    "reorder_within_session",
    "deadlock_ms",
    "limit_ms",
    "expire",
    "pause",
    "partition",
    "connection_loss",
    "at_ms",
    "fault",
    "target",
    "duration_ms",
    "applied",
    "clinets",
    "max_statez",
    "a.b.c",
    "\"quoted key\"",
];

const TABLES: &[&str] = &[
    "",
    "[faults]",
    "[expect]",
    "[check]",
    "[sim]",
    "[sim.expect]",
    "[sim.rates]",
    "[[sim.schedule]]",
    "[nope]",
    "[sim.nope]",
    "[[expect]]",
    "[faults.deeper]",
];

/// One way to break a file.
#[derive(Clone, Debug)]
enum Mutation {
    /// Cut the file at this fraction of its length.
    Truncate(f64),
    /// Put these bytes (any, UTF-8 or not) at this fraction.
    Insert(f64, Vec<u8>),
    /// Give the n-th `key = value` line another value.
    Revalue(usize, &'static str),
    /// Add `key = value` under a table header.
    AddKey(&'static str, &'static str, &'static str),
    /// Swap two lines.
    Swap(usize, usize),
    /// Delete a line.
    Drop(usize),
    /// Append a huge table: many scheduled faults, a long array, or deep
    /// nesting.
    Huge(u8, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (0.0..1.0f64).prop_map(Mutation::Truncate),
        3 => (
            0.0..1.0f64,
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 1..6),
                Just(vec![0xff]),
                Just(vec![0xc3]),
                Just(vec![0xe2, 0x82]),
                Just(vec![0]),
                Just(b"\n[".to_vec()),
                Just(b"\"".to_vec()),
                Just(b"=".to_vec()),
                Just("é".as_bytes().to_vec()),
            ]
        )
            .prop_map(|(at, b)| Mutation::Insert(at, b)),
        6 => (any::<usize>(), proptest::sample::select(VALUES))
            .prop_map(|(n, v)| Mutation::Revalue(n, v)),
        4 => (
            proptest::sample::select(TABLES),
            proptest::sample::select(KEYS),
            proptest::sample::select(VALUES)
        )
            .prop_map(|(t, k, v)| Mutation::AddKey(t, k, v)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        2 => any::<usize>().prop_map(Mutation::Drop),
        1 => (0u8..4, 1usize..12_000).prop_map(|(k, n)| Mutation::Huge(k, n)),
    ]
}

fn apply(text: &str, m: &Mutation) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let cut = |f: f64| {
        let mut at = ((text.len() as f64) * f) as usize;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match m {
        Mutation::Truncate(f) => return text.as_bytes()[..cut(*f)].to_vec(),
        Mutation::Insert(f, bytes) => {
            let at = cut(*f);
            let mut out = text.as_bytes()[..at].to_vec();
            out.extend_from_slice(bytes);
            out.extend_from_slice(&text.as_bytes()[at..]);
            return out;
        }
        Mutation::Revalue(n, v) => {
            let keyed: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].contains(" = ") && !lines[i].starts_with('#'))
                .collect();
            if let Some(&i) = keyed.get(n % keyed.len().max(1)) {
                let key = lines[i].split(" = ").next().unwrap_or("").to_string();
                lines[i] = format!("{key} = {v}");
            }
        }
        Mutation::AddKey(t, k, v) => {
            if t.is_empty() {
                lines.insert(0, format!("{k} = {v}"));
            } else {
                lines.push(t.to_string());
                lines.push(format!("{k} = {v}"));
            }
        }
        Mutation::Swap(a, b) if !lines.is_empty() => {
            let n = lines.len();
            lines.swap(a % n, b % n);
        }
        Mutation::Drop(a) if !lines.is_empty() => {
            let n = lines.len();
            lines.remove(a % n);
        }
        Mutation::Huge(kind, n) => match kind {
            0 => {
                for i in 0..*n {
                    lines.push("[[sim.schedule]]".into());
                    lines.push(format!("at_ms = {}.0", i % 50));
                    lines.push("fault = \"pause\"".into());
                }
            }
            1 => lines.push(format!(
                "description = \"{}\"",
                "x".repeat(n.saturating_mul(50))
            )),
            2 => lines.push(format!("nested = {}1{}", "[".repeat(*n), "]".repeat(*n))),
            _ => {
                let holds: Vec<&str> = std::iter::repeat_n("\"herd\"", *n).collect();
                lines.push("[sim.expect]".into());
                lines.push("verdict = \"holds\"".into());
                lines.push(format!("holds = [{}]", holds.join(", ")));
            }
        },
        _ => {}
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// The tallies a run prints (`--nocapture`) for docs/reliability.md.
static FILES_REJECTED: AtomicUsize = AtomicUsize::new(0);
static FILES_ACCEPTED: AtomicUsize = AtomicUsize::new(0);

/// A rejected file must say where and what was expected: `path:line:col:
/// … expected …`.
fn assert_located(path: &Path, e: &locksmith::scenario::ScenarioError, bytes: &[u8]) {
    let shown = e.to_string();
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    assert!(
        e.line.is_some() && e.column.is_some(),
        "no line and column: {shown}\n--- file (start) ---\n{text}"
    );
    let (line, column) = (e.line.unwrap_or(0), e.column.unwrap_or(0));
    assert!(
        shown.starts_with(&format!("{}:{line}:{column}: ", path.display())),
        "{shown}"
    );
    assert!(
        e.message.contains("expected"),
        "says not what was expected: {shown}\n--- file (start) ---\n{text}"
    );
    assert!(!shown.contains('\n'), "more than one line: {shown}");
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    assert!(
        line >= 1 && line <= lines,
        "line {line} of {lines}: {shown}"
    );
}

/// Every command that reads a scenario, on `file`, checked as it would be
/// before running: rejected the same way the loader rejects it, or all
/// accepted.
/// `loaded`: the file loads for `check` (any backend); `zookeeper`: it
/// loads for every command; `command`: it is a Redis, MySQL or etcd
/// scenario, which `sim` and `replay` take too (`real` only with `--redis`,
/// `--mysql` or `--etcd`; `explorer` not).
fn through_every_command(file: &Path, loaded: bool, zookeeper: bool, command: bool) {
    let f = file.to_string_lossy().into_owned();
    let lines: [Vec<&str>; 6] = [
        vec!["check", &f],
        vec!["sim", &f],
        vec!["replay", &f, "--seed", "3"],
        vec!["real", &f, "--zk", "127.0.0.1:1"],
        vec!["explorer", &f, "--addr", "127.0.0.1:0"],
        vec!["check", &f, "--clients", "1", "--max-states", "10"],
    ];
    for args in lines {
        let argv = std::iter::once("locksmith").chain(args.iter().copied());
        let r = locksmith::cli::validate(argv);
        let loaded = match args[0] {
            "check" => loaded,
            "sim" | "replay" => zookeeper || command,
            _ => zookeeper,
        };
        if !loaded {
            let e = r.expect_err("a file the loader rejects is rejected by every command");
            assert!(e.contains(&f), "{args:?}: {e}");
        } else if let Err(e) = r {
            // A loaded file may still be refused by one command for a
            // reason of its own (the real driver's 255 clients); that
            // refusal must say what was expected too.
            assert!(e.contains("expected"), "{args:?}: {e}");
        }
    }
}

#[test]
fn mutated_scenario_files_are_rejected_with_their_line_and_column_or_accepted() {
    let corpus = corpus();
    let dir = scratch("files");
    let strategy = (0..corpus.len(), proptest::collection::vec(mutation(), 1..4));
    let n = AtomicUsize::new(0);
    let result = runner(cases()).run(&strategy, |(i, ms)| {
        let mut bytes = corpus[i].clone().into_bytes();
        for m in &ms {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            bytes = apply(&text, m);
        }
        let k = n.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("case-{}.toml", k % 8));
        std::fs::write(&path, &bytes).expect("write a case");
        let zookeeper = Scenario::load(&path).is_ok();
        match AnyScenario::load(&path) {
            Err(e) => {
                FILES_REJECTED.fetch_add(1, Ordering::Relaxed);
                if bytes.len() as u64 <= locksmith::scenario::MAX_FILE_BYTES {
                    assert_located(&path, &e, &bytes);
                }
                through_every_command(&path, false, false, false);
            }
            Ok(any) => {
                FILES_ACCEPTED.fetch_add(1, Ordering::Relaxed);
                let command = matches!(
                    any,
                    AnyScenario::Redis(_) | AnyScenario::Mysql(_) | AnyScenario::Etcd(_)
                );
                through_every_command(&path, true, zookeeper, command);
            }
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "fuzz: {} mutated scenario files: {} rejected with line and column, {} accepted; through check, sim, replay, real, explorer",
        n.load(Ordering::Relaxed),
        FILES_REJECTED.load(Ordering::Relaxed),
        FILES_ACCEPTED.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Flags, right and wrong, for every command.
fn flag() -> impl Strategy<Value = Vec<String>> {
    let name = proptest::sample::select(vec![
        "--clients",
        "--acquisitions",
        "--max-states",
        "--max-memory-mb",
        "--seeds",
        "--seed",
        "--jobs",
        "--zk",
        "--root",
        "--seconds",
        "--hold-ms",
        "--think-ms",
        "--stall-seconds",
        "--addr",
        "--recipes",
        "--faults",
        "--out",
        "--scenarios",
        "--json",
        "--keep-going",
        "--no-mermaid",
        "--nope",
        "-x",
    ]);
    let value = proptest::sample::select(vec![
        "0",
        "1",
        "2",
        "8",
        "9",
        "255",
        "256",
        "1000",
        "-1",
        "1.5",
        "1e308",
        "nan",
        "inf",
        "",
        "x",
        "18446744073709551615",
        "18446744073709551616",
        "127.0.0.1:1",
        "127.0.0.1:0",
        "127.0.0.1",
        "host:port",
        "127.0.0.1:2181/chroot",
        "/",
        "/sandbox",
        "relative",
        "/a/../b",
        "/zookeeper",
        "0.5,1.5",
        "2,1",
        "5,",
        "predecessor",
        "predecessor,nope",
        "none",
        "none,waiter-expiry",
        ",",
        "nope",
        "scenarios",
        "/nonexistent",
    ]);
    prop_oneof![
        name.clone().prop_map(|n| vec![n.to_string()]),
        (name, value).prop_map(|(n, v)| vec![n.to_string(), v.to_string()]),
    ]
}

#[test]
fn generated_command_lines_never_panic_and_refuse_with_a_reason() {
    let dir = scratch("lines");
    let broken = dir.join("broken.toml");
    std::fs::write(&broken, b"recipe = \"predecessor\"\nclients = \xff\n").expect("write");
    let files: Vec<String> = vec![
        repo().join("scenarios/racy-wait.toml"),
        repo().join("scenarios/predecessor-sim-20.toml"),
        repo().join("scenarios/fenced-holder-pause.toml"),
        repo().join("scenarios/no-such-file.toml"),
        repo().join("scenarios"),
        PathBuf::from("/dev/null"),
        broken,
    ]
    .into_iter()
    .map(|p| p.to_string_lossy().into_owned())
    .collect();
    let command = proptest::sample::select(vec![
        "check",
        "sim",
        "replay",
        "real",
        "explorer",
        "compare",
        "recipes",
        "bench-sim",
        "nope",
    ]);
    let strategy = (
        command,
        proptest::sample::select(files),
        proptest::collection::vec(flag(), 0..5),
    );
    let (ok, refused) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let result = runner(cases()).run(&strategy, |(cmd, file, flags)| {
        let mut argv = vec!["locksmith".to_string(), cmd.to_string()];
        if !matches!(cmd, "compare" | "recipes" | "bench-sim") {
            argv.push(file);
        }
        argv.extend(flags.into_iter().flatten());
        match locksmith::cli::validate(&argv) {
            Ok(()) => {
                ok.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                refused.fetch_add(1, Ordering::Relaxed);
                prop_assert!(!e.trim().is_empty(), "{argv:?}: an empty message");
            }
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (ok, refused) = (ok.into_inner(), refused.into_inner());
    eprintln!(
        "fuzz: {} command lines: {refused} refused, {ok} accepted",
        ok + refused
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// `[sim]` values at the edges of what validation accepts still run: one
/// simulated seed each, no panic (no clock overflow, no endless loop).
#[test]
fn accepted_extreme_sim_settings_run_without_a_panic() {
    let edge = |lo: f64, hi: f64| prop_oneof![Just(lo), Just(hi), lo..=hi];
    let strategy = (
        (edge(0.0, 3_600_000.0), edge(0.0, 3_600_000.0)),
        edge(100.0, 3_600_000.0),
        edge(0.0, 1000.0),
        (edge(0.0, 3_600_000.0), edge(0.0, 3_600_000.0)),
        proptest::sample::select(vec!["pause", "partition", "expire", "connection-loss"]),
        proptest::sample::select(vec!["\"holder\"", "\"waiter\"", "\"any\"", "1", "2"]),
        edge(1.0, 10_000.0),
        any::<bool>(),
    );
    let dir = scratch("edges");
    let path = dir.join("edge.toml");
    let n = AtomicUsize::new(0);
    let result = runner(cases() / 20 + 10).run(&strategy, |(lat, timeout, rate, (at, dur), fault, target, limit, fencing)| {
        let (lo, hi) = if lat.0 <= lat.1 { lat } else { (lat.1, lat.0) };
        let text = format!(
            "recipe = \"predecessor\"\nclients = 2\n[sim]\nlatency_ms = [{lo:?}, {hi:?}]\nlatency_dist = \"exponential\"\nsession_timeout_ms = {timeout:?}\nlimit_ms = {limit:?}\nfencing = {fencing}\n[sim.rates]\npause = {rate:?}\npartition = {rate:?}\n[[sim.schedule]]\nat_ms = {at:?}\nfault = \"{fault}\"\ntarget = {target}\nduration_ms = {dur:?}\n"
        );
        std::fs::write(&path, &text).expect("write");
        let sc = Scenario::load(&path).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let cfg = SimConfig::of(&sc);
        let _ = run_seed(&cfg, 1, false);
        n.fetch_add(1, Ordering::Relaxed);
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "fuzz: {} accepted extreme [sim] tables simulated (one seed each)",
        n.into_inner()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The mistakes a user makes, each pinned: where the message points and
/// what it says.
#[test]
fn each_known_mistake_points_at_its_line_and_column() {
    let cases: &[(&[u8], &str, &str)] = &[
        (b"recipe = \"racy-wait\"\nclients = \"two\"\n", "2:11", "expected a whole number from 1 to 255"),
        (b"recipe = \"racy-wait\"\nclients = 0\n", "2:11", "integer `0`, expected a whole number from 1 to 255"),
        (b"recipe = \"racy-wait\"\nclients = -1\n", "2:11", "integer `-1`, expected a whole number from 1 to 255"),
        (b"recipe = \"racy-wait\"\nclients = 100000\n", "2:11", "integer `100000`, expected a whole number from 1 to 255"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nclients = 0\n", "4:11", "integer `0`, expected a whole number from 1 to 255"),
        (b"clients = 2\nrecipe = \"zookeeper\"\n", "2:1", "unknown recipe `zookeeper`: expected one of predecessor, racy-wait"),
        (b"recipe = \"redis-set-px-dell\"\nclients = 2\n[redis]\nlease = 3\n", "1:1", "redis-set-px-token (Redis), mysql-unique-key, mysql-unique-key-txn, mysql-for-update, mysql-status-cas, mysql-status-cas-unguarded (MySQL), etcd-mutex, etcd-mutex-3.5, etcd-txn-lease (etcd); did you mean `redis-set-px-del`?"),
        (b"recipe = \"racy-wait\"\nclients = 2\nclinets = 3\n", "3:1", "unknown field `clinets`, expected"),
        (b"recipe = \"racy-wait\"\n", "1:1", "missing field `clients`: expected"),
        (b"", "1:1", "missing field `recipe`"),
        (b"recipe = \"racy-wait\"\nclients = 300\n", "2:11", "expected a whole number from 1 to 255"),
        (b"recipe = \"racy-wait\"\nclients = 9\n", "2:1", "the checker explores 1 to 8 clients"),
        (b"recipe = \"racy-wait\"\nclients = 2\nreentries = 200\n", "3:1", "expected 0 to 100"),
        (b"recipe = \"racy-wait\"\nclients = \xff2\n", "2:11", "byte 0xff is not UTF-8"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[check\n", "3:7", "invalid table header: expected"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[check]\nmax_states = 0\n", "4:1", "max_states = 0: expected at least 1"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nthink_ms = [0.0, 1e308]\n", "4:1", "think_ms = [0, 1e308]: expected 0 ≤ min ≤ max"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nresource_latency_ms = [2.0, 1.0]\n", "4:1", "resource_latency_ms = [2, 1]: expected 0 ≤ min ≤ max"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nresource_latency_ms = 0.0\n", "4:23", "expected an array"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nseeds = 0\n", "4:1", "seeds = 0: expected at least 1"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\ndeadlock_ms = -5\n", "4:1", "deadlock_ms = -5: expected 1 to"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nlimit_ms = nan\n", "4:1", "limit_ms = NaN: expected 1 to"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim.rates]\nexpire = 0.0\npause = -1\n", "5:1", "rates.pause = -1: expected 0 to 1000"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\nfault = \"pause\"\n[[sim.schedule]]\nat_ms = 1e300\nfault = \"pause\"\n", "7:1", "at_ms = 1e300: expected 0 to 3600000"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\nfault = \"pause\"\nduration_ms = -1\n", "6:1", "duration_ms = -1: expected 0 to"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\n", "3:1", "missing field `fault`: expected"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\nfault = \"reboot\"\n", "5:9", "unknown variant `reboot`, expected one of"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\nfault = \"pause\"\ntarget = 7\n", "6:1", "target = 7: expected holder, waiter, any or a client number from 1 to 2"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[[sim.schedule]]\nat_ms = 1\nfault = \"pause\"\ntarget = \"boss\"\n", "6:10", "target = \"boss\": expected holder, waiter, any"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[expect]\nverdict = \"holds\"\nholds = [\"herd\", \"liveness\"]\n", "5:18", "unknown property `liveness`: expected one of"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[expect]\nverdict = \"maybe\"\n", "4:1", "unknown verdict `maybe`: expected holds"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[expect]\nverdict = \"holds\"\nholds = [\"stuck lock\"]\n", "5:10", "`stuck lock` is not judged here (the ZooKeeper recipes do not state when their lock is free"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[expect]\nverdict = \"holds\"\nholds = [\"re-entrancy\"]\n", "5:10", "`re-entrancy` is not judged here (no holder re-enters in this run"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim]\nexpect = { verdict = \"violated\" }\n", "4:12", "expected `property = ...`"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim.expect]\nverdict = \"violated\"\nproperty = \"orphaned node\"\n", "5:1", "`orphaned node` is not judged here (which node a client's code still names is read by the checker only)"),
        (b"recipe = \"racy-wait\"\nclients = 2\n[sim.expect]\nverdict = \"holds\"\nstates = 3\n", "5:1", "expected it in [expect], not [sim.expect]"),
        (b"recipe = \"racy-wait\"\nclients = 2\nsim = { rates = { pause = -2.0 } }\n", "3:19", "rates.pause = -2: expected 0 to 1000"),
    ];
    let path = Path::new("mistake.toml");
    for (i, (bytes, at, what)) in cases.iter().enumerate() {
        let e = Scenario::parse_bytes(path, bytes).expect_err(&format!(
            "case {i} is a mistake: {}",
            String::from_utf8_lossy(bytes)
        ));
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("mistake.toml:{at}: ")),
            "case {i}: {shown}"
        );
        assert!(shown.contains(what), "case {i}: {shown}");
        assert_located(path, &e, bytes);
    }
}

/// Empty runs are errors, not passes; absurd flags are refused before
/// anything runs.
#[test]
fn empty_runs_and_absurd_flags_are_refused() {
    let refused = [
        "sim scenarios/racy-wait-sim.toml --seeds 0",
        "sim scenarios/racy-wait-sim.toml --seed 18446744073709551615 --seeds 2",
        "sim scenarios/racy-wait-sim.toml --jobs 0",
        "sim scenarios/racy-wait-sim.toml --jobs 100000",
        "bench-sim --seeds 0",
        "bench-sim --sweep-seeds 0",
        "check scenarios/racy-wait.toml --max-states 0",
        "check scenarios/racy-wait.toml --max-memory-mb 0",
        "check scenarios/racy-wait.toml --clients 9",
        "check scenarios/racy-wait.toml --acquisitions 0",
        "replay scenarios/racy-wait-sim.toml",
        "real scenarios/racy-wait.toml --seconds 0",
        "real scenarios/racy-wait.toml --hold-ms -1",
        "real scenarios/racy-wait.toml --think-ms 1e308",
        "real scenarios/racy-wait.toml --hold-ms 2,1",
        "real scenarios/racy-wait.toml --clients 256",
        "real scenarios/racy-wait.toml --zk 127.0.0.1:2181/chroot",
        "real scenarios/racy-wait.toml --zk nonsense",
        "real scenarios/racy-wait.toml --root relative",
        "real scenarios/racy-wait.toml --root /zookeeper",
        "explorer scenarios/racy-wait.toml --addr nonsense",
        "compare --recipes nope",
        "compare --faults none,nope",
        "compare --jobs 0",
        "recipes --scenarios /nonexistent",
    ];
    let scenarios = repo().join("scenarios");
    let scenarios = scenarios.to_string_lossy();
    for line in refused {
        let line = line.replace("scenarios/", &format!("{scenarios}/"));
        let argv = std::iter::once("locksmith").chain(line.split(' '));
        let r = locksmith::cli::validate(argv);
        assert!(r.is_err(), "accepted: {line}");
        // A range in the user's words, never the type's upper end.
        let e = format!("{:?}", r.err());
        assert!(
            line.contains("18446744073709551615") || !e.contains("18446744073709551615"),
            "{line}: {e}"
        );
    }
}

/// A sample through the binary itself: exit 2, the message on stderr, no
/// panic — for broken files through every command, and for refused flags.
#[test]
fn the_binary_exits_2_on_broken_input_without_a_panic() {
    let dir = scratch("binary");
    let corpus = corpus();
    // 12 files in `cargo test`; scripts/fuzz.sh asks for more.
    let wanted = std::env::var("LOCKSMITH_FUZZ_BINARY_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12usize);
    let mut runner = runner(12);
    let strategy = (0..corpus.len(), mutation());
    let mut files = Vec::new();
    while files.len() < wanted {
        let (i, m) = strategy.new_tree(&mut runner).expect("a case").current();
        let bytes = apply(&corpus[i], &m);
        if AnyScenario::parse_bytes(Path::new("x.toml"), &bytes).is_ok() {
            continue;
        }
        let path = dir.join(format!("broken-{}.toml", files.len()));
        std::fs::write(&path, &bytes).expect("write");
        files.push(path.to_string_lossy().into_owned());
    }
    let mut runs = 0;
    for f in &files {
        for args in [
            vec!["check", f.as_str()],
            vec!["sim", f],
            vec!["replay", f, "--seed", "1"],
            vec!["real", f, "--zk", "127.0.0.1:1"],
            vec!["explorer", f],
        ] {
            let (code, out, err) = binary::locksmith(&args);
            assert_eq!(code, 2, "{args:?}: {out}{err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(err.contains(&format!("{f}:")), "{args:?}: {err}");
            runs += 1;
        }
    }
    for line in [
        "sim scenarios/racy-wait-sim.toml --seeds 0",
        "check scenarios/racy-wait.toml --max-states 0",
        "real scenarios/racy-wait.toml --hold-ms 1e308",
        "explorer scenarios/racy-wait.toml --addr nonsense",
        "compare --recipes nope --out /nonexistent/reports",
        "sim scenarios/racy-wait-sim.toml --seed 18446744073709551615 --seeds 2",
    ] {
        let args: Vec<&str> = line.split(' ').collect();
        let (code, out, err) = binary::locksmith(&args);
        assert_eq!(code, 2, "{line}: {out}{err}");
        assert!(!err.contains("panicked"), "{line}: {err}");
        runs += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("fuzz: {runs} runs of the binary on broken input: every one exit 2, no panic");
}
