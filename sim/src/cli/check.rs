//! `locksmith check`: the exhaustive checker on one scenario file.

pub use super::check_args::CheckArgs;
use super::check_output::{
    exploration_json, figures, headline_trace, interrupted, joined, with_progress,
};
use crate::backends::AnyScenario;
use crate::zk::scenario::Scenario;
use locksmith_model::engine::harness::Writes;
use locksmith_model::{zk::check::check_with_progress, zk::check::Report, zk::check::Verdict};
use serde_json::json;

/// The scenario with the flags applied, checked as the run needs it: what
/// `run` explores, or the error it exits 2 with. A scenario names its
/// backend through its recipe; a flag its backend cannot serve (`--por`,
/// `--abstract-sequences`) is refused rather than silently gone without.
pub fn plan(args: &CheckArgs) -> Result<AnyScenario, String> {
    use crate::backend::Capability;
    let mut needs = Vec::new();
    if args.por {
        needs.push(("check --por", Capability::PartialOrderReduction));
    }
    if args.abstract_sequences {
        needs.push((
            "check --abstract-sequences",
            Capability::SequenceAbstraction,
        ));
    }
    match AnyScenario::load_for(&args.scenario, &needs).map_err(|e| e.to_string())? {
        AnyScenario::ZooKeeper(sc) => {
            plan_zookeeper(args, *sc).map(|s| AnyScenario::ZooKeeper(Box::new(s)))
        }
        AnyScenario::Redis(sc) => {
            super::check_backend::plan(args, *sc).map(|s| AnyScenario::Redis(Box::new(s)))
        }
        AnyScenario::Mysql(sc) => {
            super::check_backend::plan(args, *sc).map(|s| AnyScenario::Mysql(Box::new(s)))
        }
        AnyScenario::Etcd(sc) => {
            super::check_backend::plan(args, *sc).map(|s| AnyScenario::Etcd(Box::new(s)))
        }
    }
}

fn plan_zookeeper(args: &CheckArgs, mut sc: Scenario) -> Result<Scenario, String> {
    if let Some(n) = args.clients {
        sc.check.clients = n;
    }
    if let Some(k) = args.acquisitions {
        sc.check.acquisitions = k;
    }
    if let Some(s) = args.max_states {
        sc.check.max_states = usize::try_from(s).unwrap_or(usize::MAX);
    }
    if let Some(mb) = args.max_memory_mb {
        let mb = usize::try_from(mb).unwrap_or(usize::MAX);
        sc.check.max_memory = mb.saturating_mul(1 << 20);
    }
    sc.check.abstract_sequences |= args.abstract_sequences;
    sc.check.por |= args.por;
    sc.check.jobs = args.jobs.map_or_else(crate::machine::cores, usize::from);
    sc.check
        .validate()
        .map_err(|e| format!("{}: {e}", sc.path.display()))?;
    Ok(sc)
}

pub fn run(args: &CheckArgs) -> i32 {
    let sc = match plan(args) {
        Ok(AnyScenario::ZooKeeper(sc)) => *sc,
        Ok(AnyScenario::Redis(sc)) => return super::check_backend::run(args, &*sc),
        Ok(AnyScenario::Mysql(sc)) => return super::check_backend::run(args, &*sc),
        Ok(AnyScenario::Etcd(sc)) => return super::check_backend::run(args, &*sc),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let report = with_progress(|progress| check_with_progress(&sc.check, progress));
    if args.json {
        println!("{}", to_json(&sc, &report));
    } else {
        print!("{}", to_text(&sc, &report));
        if args.mermaid {
            let clients = sc.check.clients;
            print!(
                "{}",
                super::check_backend::mermaid_text(&report, &|t| t.mermaid(clients))
            );
        }
    }
    if interrupted(&report) {
        return crate::interrupt::exit_code();
    }
    crate::exit::of(report.verdict)
}

pub fn to_json(sc: &Scenario, r: &Report) -> serde_json::Value {
    let trace = headline_trace(r);
    let config = json!({
        "scenario": sc.name,
        "recipe": sc.recipe().name(),
        "clients": sc.check.clients,
        "acquisitions": sc.check.acquisitions,
        "reentries": sc.check.reentries,
        "abstract_sequences": sc.check.abstract_sequences,
        "por": sc.check.por,
        "por_reduced_states": r.reduced,
        "fencing": sc.check.writes == Writes::Fenced,
        "guarded": sc.check.writes == Writes::Guarded,
        "trace": trace.map(|t| &t.steps),
        "mermaid": trace.map(|t| t.mermaid(sc.check.clients)),
    });
    joined(config, exploration_json(r, sc.check.jobs))
}

pub fn to_text(sc: &Scenario, r: &Report) -> String {
    use std::fmt::Write;
    let reentries = match sc.check.reentries {
        0 => String::new(),
        r => format!(", each lock() re-entered {r}×"),
    };
    let abstracted = if sc.check.abstract_sequences {
        ", sequence suffixes abstracted"
    } else {
        ""
    };
    let por = if sc.check.por {
        ", partial-order reduction"
    } else {
        ""
    };
    let writes = match sc.check.writes {
        Writes::Off => "",
        Writes::Fenced => ", fenced writes",
        Writes::Guarded => ", guarded writes",
        Writes::Plain => ", plain writes",
    };
    let timed = match sc.check.acquire_timeout_ms {
        Some(ms) => format!(", acquire({ms} ms)"),
        None => String::new(),
    };
    let shared = if sc.check.shared_session {
        ", every client a thread of one process on one session"
    } else {
        ""
    };
    let how = format!(
        " × {} acquisitions{reentries}{timed}{shared}{abstracted}{por}{writes}",
        sc.check.acquisitions
    );
    let mut out = crate::title::title(&sc.name, sc.recipe(), sc.check.clients, &how);
    figures(&mut out, r);
    if sc.check.por {
        let _ = writeln!(
            out,
            "partial-order reduction: {} of {} states expanded in part; a trace found may be longer than the shortest (run without --por for the shortest)",
            r.reduced, r.states
        );
    }
    if r.verdict == Verdict::Violated {
        if let Some(t) = headline_trace(r) {
            let shortest = if r.reduced > 0 { "" } else { "shortest " };
            let _ = writeln!(out, "\n{shortest}trace ({} steps):", t.steps.len());
            out.push_str(&t.text());
        }
    }
    out
}
