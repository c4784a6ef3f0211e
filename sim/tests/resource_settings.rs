//! The scenario keys `fencing`, `guarded` and `acquire_timeout_ms`: read into the
//! checker's configuration, refused with the file and line where they cannot apply.

use locksmith::zk::scenario::Scenario;
use locksmith_model::engine::harness::Writes;
use std::path::Path;

fn parse(text: &str) -> Result<Scenario, String> {
    Scenario::parse(Path::new("s.toml"), text).map_err(|e| e.to_string())
}

#[test]
fn fencing_and_guarded_set_the_checkers_writes() {
    let base = "recipe = \"predecessor\"\nclients = 2\n";
    let of = |extra: &str| parse(&format!("{base}{extra}")).map(|s| s.check.writes);
    assert_eq!(of(""), Ok(Writes::Off));
    assert_eq!(of("fencing = true\n"), Ok(Writes::Fenced));
    assert_eq!(of("guarded = true\n"), Ok(Writes::Guarded));
    let both = of("fencing = true\nguarded = true\n").unwrap_err();
    assert!(
        both.starts_with("s.toml:4:1: fencing = true and guarded = true"),
        "{both}"
    );
}

#[test]
fn a_recipe_without_a_lock_node_of_its_own_is_refused() {
    for recipe in ["cas-version", "watcher-callback"] {
        let e = parse(&format!(
            "recipe = \"{recipe}\"\nclients = 2\nguarded = true\n"
        ))
        .unwrap_err();
        assert!(
            e.starts_with("s.toml:3:1: guarded = true: recipe") && e.contains("names no lock node"),
            "{e}"
        );
    }
}

/// `acquire_timeout_ms`: Curator's `acquire(time, unit)`, read into the
/// checker's configuration for a Curator recipe and refused, with its
/// line, for any other.
#[test]
fn an_acquire_timeout_is_curators_and_refused_elsewhere() {
    let timed = |recipe: &str| {
        parse(&format!(
            "recipe = \"{recipe}\"\nclients = 2\nacquire_timeout_ms = 1000\n"
        ))
    };
    assert_eq!(
        timed("curator").map(|s| s.check.acquire_timeout_ms),
        Ok(Some(1000))
    );
    assert_eq!(
        timed("curator-owner-check").map(|s| s.check.acquire_timeout_ms),
        Ok(Some(1000))
    );
    let e = timed("predecessor").unwrap_err();
    assert!(
        e.starts_with("s.toml:3:1: acquire_timeout_ms with recipe `predecessor`"),
        "{e}"
    );
}

/// docs/writing-a-recipe.md: Curator's testContainerCleanup with fencing —
/// the czxid keeps rising where a re-created parent numbers its children
/// from zero again, so fenced safety holds.
#[test]
fn a_reaped_and_remade_root_keeps_curators_tokens_rising() {
    use locksmith_model::{zk::check::check, zk::check::Property, zk::check::Verdict};
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/curator-test-container-cleanup.toml"
    );
    let text = std::fs::read_to_string(file).expect("the scenario is in the repository");
    let fenced = text.replacen(
        "root = \"recipe\"\n",
        "root = \"recipe\"\nfencing = true\n",
        1,
    );
    assert_ne!(fenced, text, "the scenario still names its root");
    let sc = parse(&fenced).expect("the fenced scenario parses");
    let r = check(&sc.check);
    assert_eq!(r.verdict, Verdict::Holds);
    assert_eq!(r.of(Property::FencedSafety), Verdict::Holds);
    assert_eq!(r.states, 537_759);
}
