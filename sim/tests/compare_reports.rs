//! The committed report in `reports/` (and the excerpt in the README) is
//! what `locksmith compare` produces now: this test runs the whole
//! comparison in memory and fails on any difference, naming the files and
//! cells that changed and the one command that regenerates them. It runs
//! every cell, about a minute: the heavy tier (`bash scripts/heavy-tests.sh`,
//! which CI runs after `cargo test`).

mod binary;

use binary::locksmith;
use locksmith_model::engine::Judged;

use locksmith::cli::compare_options;
use locksmith::compare::{self, files};
use std::path::Path;

const REGENERATE: &str = "cargo run --release -- compare";

#[test]
#[ignore = "heavy tier (~1 min, the whole comparison): bash scripts/heavy-tests.sh"]
fn reports_are_up_to_date() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut opts = compare_options(&[], &[], "reports").expect("the whole catalogue");
    opts.jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = std::time::Instant::now();
    let m = compare::run(&opts, &|_| {}).expect("every cell runs");
    eprintln!(
        "compare: {} cells and {} cost series in {:.1} s",
        m.cells().count(),
        m.matrices.iter().map(|b| b.costs.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    let report = files::build(&m).expect("the report draws");
    let mut problems = files::differences(&root.join("reports"), &report);
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    match files::with_excerpt(&readme, &files::excerpt(&m)) {
        None => problems.push(format!(
            "README.md lacks the markers {} … {}",
            files::BEGIN,
            files::END
        )),
        Some(new) if new != readme => {
            problems.push("changed: README.md (the matrix excerpt)".into())
        }
        Some(_) => {}
    }
    assert!(
        problems.is_empty(),
        "reports/ is not what `locksmith compare` produces now:\n{}\nregenerate with: {REGENERATE}",
        problems.join("\n")
    );
}

#[test]
fn a_cell_reproduces_by_its_own_scenario_file() {
    // The cell's scenario text, loaded as `locksmith check` loads it, gives
    // the cell's verdict: the command in the report is the cell.
    let opts = compare_options(&["no-recheck".into()], &["waiter-expiry".into()], "reports")
        .expect("known names");
    let m = compare::run(&opts, &|_| {}).expect("runs");
    let c = m.cells().next().expect("the cell");
    let sc = locksmith::zk::scenario::Scenario::parse(Path::new("x.toml"), &c.scenario_text)
        .expect("the cell's scenario parses");
    let r = locksmith_model::zk::check::check(&sc.check);
    assert_eq!(r.verdict, c.verdict);
    assert_eq!(r.property, c.property);
    assert_eq!(
        c.command,
        "cargo run --release -- check reports/scenarios/no-recheck--waiter-expiry.toml"
    );
}

#[test]
fn unknown_names_are_refused_with_the_valid_ones() {
    let e = compare_options(&["predecesor".into()], &[], "reports")
        .err()
        .expect("an unknown recipe");
    assert!(e.contains("unknown recipe `predecesor`"), "{e}");
    assert!(e.contains("predecessor, racy-wait"), "{e}");
    // Every backend's recipes, and the one meant.
    assert!(e.contains("mysql-status-cas-unguarded (MySQL)"), "{e}");
    assert!(e.ends_with("; did you mean `predecessor`?"), "{e}");
    let e = compare_options(&[], &["gc".into()], "reports")
        .err()
        .expect("an unknown fault");
    assert!(e.contains("holder-pause"), "{e}");
}

/// The backends whose matrix the options run (some rows and columns).
fn picked(opts: &compare::Options) -> Vec<&'static str> {
    opts.matrices
        .iter()
        .filter(|p| !p.recipes.is_empty() && !p.faults.is_empty())
        .map(|p| p.backend.key)
        .collect()
}

/// The committed cell `id` of `reports/compare.json`.
fn committed_cell(id: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../reports/compare.json"
    ))
    .expect("reports/compare.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["cells"]
        .as_array()
        .and_then(|cs| {
            cs.iter().find(|c| {
                format!(
                    "{}--{}",
                    c["recipe"].as_str().unwrap_or(""),
                    c["fault"].as_str().unwrap_or("")
                ) == id
            })
        })
        .cloned()
        .expect("the cell is in compare.json")
}

/// The arguments of a cell's command (after `cargo run --release --`).
fn args_of(command: &str) -> Vec<String> {
    command
        .split(" -- ")
        .nth(1)
        .expect("a cargo run command")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_commands_in_the_report_reproduce_their_cells() {
    for id in ["predecessor--holder-expiry", "no-recheck--none"] {
        let c = committed_cell(id);
        let mut args = args_of(c["command"].as_str().unwrap_or(""));
        args.push("--json".into());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, out, err) = locksmith(&argv);
        let j: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        assert_eq!(j["verdict"], c["verdict"], "{id}");
        assert_eq!(j["property"], c["property"], "{id}");
        assert_eq!(j["states"], c["source"]["states"], "{id}");
    }
    let c = committed_cell("predecessor--holder-pause");
    let mut args = args_of(c["command"].as_str().unwrap_or(""));
    args.push("--json".into());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = locksmith(&argv);
    assert_eq!(code, 1, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(j["failing_seeds"], c["source"]["failing_seeds"]);
    let replay = args_of(c["trace"]["command"].as_str().unwrap_or(""));
    let argv: Vec<&str> = replay.iter().map(String::as_str).collect();
    let (_, out, _) = locksmith(&argv);
    let want = format!(
        "verdict: violated: {}",
        c["property"].as_str().unwrap_or("")
    );
    assert!(out.contains(&want), "{want} not in the replay");
}

#[test]
fn bad_names_exit_2_with_the_valid_ones() {
    let (code, _, err) = locksmith(&["compare", "--faults", "gc-pause", "--out", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown fault class `gc-pause`: expected one of none, waiter-expiry"),
        "{err}"
    );
}

/// The MySQL matrix: its cell is its own MySQL scenario file, the same
/// configuration as a pinned scenario, and its command reproduces it.
#[test]
fn a_mysql_cell_reproduces_by_its_own_scenario_file() {
    let opts = compare_options(
        &["mysql-unique-key".into()],
        &["cleanup-slow-holder".into()],
        "reports",
    )
    .expect("known names");
    assert_eq!(picked(&opts), ["mysql"]);
    let m = compare::run(&opts, &|_| {}).expect("runs");
    let cells: Vec<_> = m.cells().collect();
    assert_eq!(cells.len(), 1);
    let c = cells[0];
    assert_eq!(
        c.command,
        "cargo run --release -- check reports/scenarios/mysql-unique-key--cleanup-slow-holder.toml"
    );
    let sc =
        locksmith::mysql::scenario::MysqlScenario::parse(Path::new("x.toml"), &c.scenario_text)
            .expect("the cell's scenario parses");
    let r = sc.space.check();
    assert_eq!((r.verdict, r.property), (c.verdict, c.property));
    // The same configuration as the pinned scenario mysql-unique-key-cleanup.
    assert_eq!(r.states, 280);
    assert_eq!(c.trace.as_ref().map(|t| t.steps), Some(13));
}

/// The Redis matrix: a name picks from it alone, its cell is its own
/// Redis scenario file, and the command beside a committed Redis cell
/// reproduces its verdict, property, trace length and states.
#[test]
fn a_redis_cell_reproduces_by_its_own_scenario_file_and_its_command() {
    let opts = compare_options(&["redis-set-px-del".into()], &["pause".into()], "reports")
        .expect("known names");
    assert_eq!(picked(&opts), ["redis"]);
    let m = compare::run(&opts, &|_| {}).expect("runs");
    assert_eq!(m.cells().count(), 1);
    let c = m.cells().next().expect("the cell");
    assert_eq!(
        c.command,
        "cargo run --release -- check reports/scenarios/redis-set-px-del--pause.toml"
    );
    let sc =
        locksmith::redis::scenario::RedisScenario::parse(Path::new("x.toml"), &c.scenario_text)
            .expect("the cell's scenario parses");
    let r = sc.space.check();
    assert_eq!((r.verdict, r.property), (c.verdict, c.property));
    // The same configuration as the pinned scenario redis-set-px-del-pause.
    assert_eq!(r.states, 1061);
    assert_eq!(c.trace.as_ref().map(|t| t.steps), Some(15));

    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../reports/compare.json"
    ))
    .expect("reports/compare.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cell = v["redis"]["cells"]
        .as_array()
        .and_then(|cs| {
            cs.iter()
                .find(|c| c["recipe"] == "redis-compare-and-delete" && c["fault"] == "pause-fenced")
        })
        .cloned()
        .expect("the fenced cell is in compare.json");
    let mut args = args_of(cell["command"].as_str().unwrap_or(""));
    args.push("--json".into());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, out, err) = locksmith(&argv);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    // The cell headlines its resource (its belief is the second line);
    // `check` headlines the first violated property: every property's
    // verdict is the same.
    let verdicts = |props: &serde_json::Value| -> Vec<(String, String)> {
        props
            .as_array()
            .map(|ps| {
                ps.iter()
                    .map(|p| (p["property"].to_string(), p["verdict"].to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(verdicts(&j["properties"]), verdicts(&cell["properties"]));
    assert!(!verdicts(&j["properties"]).is_empty());
    assert_eq!(j["states"], cell["source"]["states"]);
    assert_eq!(j["fencing"], true);
    let fenced = |props: &serde_json::Value| {
        props
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["property"] == "fenced safety"))
            .map(|p| p["verdict"].clone())
    };
    assert_eq!(fenced(&j["properties"]), fenced(&cell["properties"]));
}

/// docs/compare.md quotes the MySQL matrix's counts: they are the
/// committed report's.
#[test]
fn the_docs_quote_the_reports_mysql_counts() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("reports/compare.json")).expect("compare.json"),
    )
    .expect("JSON");
    let s = &report["mysql"]["summary"];
    let quoted = format!(
        "{} cells, {} violated, {} hold",
        s["cells"], s["violated"], s["holds"]
    );
    let doc = std::fs::read_to_string(root.join("docs/compare.md"))
        .expect("docs/compare.md")
        .replace('\n', " ");
    assert!(
        doc.contains(&quoted),
        "docs/compare.md does not say {quoted:?}"
    );
}
