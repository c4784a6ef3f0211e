//! Runs every `scenarios/*.toml` that has an `[expect]` table through the
//! exhaustive checker, one named test per file (`cargo test racy` runs one),
//! and compares the explored verdict with the expected one. A failure prints
//! the whole report: verdicts, figures and the shortest trace.

use libtest_mimic::{Arguments, Failed, Trial};
use locksmith::cli::check_report_text;
use locksmith::scenario::{all_in, Scenario};
use locksmith_model::check::{check, Verdict};
use std::path::{Path, PathBuf};

fn judge(path: &Path) -> Result<(), Failed> {
    let sc = Scenario::load(path).map_err(|e| Failed::from(e.to_string()))?;
    let Some(expect) = sc.expect.clone() else {
        return Ok(());
    };
    sc.check.validate().map_err(Failed::from)?;
    let report = check(&sc.check);
    let mut problems = Vec::new();
    if report.verdict != expect.verdict {
        problems.push(format!(
            "expected verdict {}, explored {}",
            expect.verdict, report.verdict
        ));
    }
    if expect.verdict != Verdict::Holds && report.property != expect.property {
        problems.push(format!(
            "expected the verdict to be about {:?}, it is about {:?}",
            expect.property.map(|p| p.name()),
            report.property.map(|p| p.name())
        ));
    }
    for p in &expect.holds {
        if report.of(*p) != Verdict::Holds {
            problems.push(format!("expected {p} to hold, explored {}", report.of(*p)));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failed::from(format!(
            "{}\n\n{}\nreplay: cargo run --release -- check {}",
            problems.join("\n"),
            check_report_text(&sc, &report),
            path.display()
        )))
    }
}

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let files = match all_in(&dir) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot list {}: {e}", dir.display());
            std::process::exit(2);
        }
    };
    let trials: Vec<Trial> = files
        .into_iter()
        .filter(|f| {
            Scenario::load(f)
                .map(|s| s.expect.is_some())
                .unwrap_or(true)
        })
        .map(|f| {
            let name = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Trial::test(format!("check::{name}"), move || judge(&f))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
