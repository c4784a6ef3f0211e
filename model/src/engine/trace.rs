//! Counterexamples as people read them, whatever the backend: one line per
//! step (who acted, what the recipe's code did, what changed on the
//! server) and a Mermaid sequence diagram with the clients and the server
//! as participants. Each backend renders its own actions into these steps.

use serde::Serialize;
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceStep {
    pub step: usize,
    /// `c1.main`, `c2.event`, `zk<-c1` (server handles), `zk->c1` (delivery), …
    pub actor: String,
    pub text: String,
    /// Nodes created (`+path`) and deleted (`-path`) by the step.
    pub tree: Vec<String>,
    /// Clients that believe they hold the lock after the step (1-based).
    pub holders: Vec<u8>,
    /// The step starts the repeating part of a starvation lasso.
    pub cycle_starts_here: bool,
}

impl TraceStep {
    /// The step as [`Trace::text`] prints it, without its number: actor,
    /// what happened, the tree's changes, the holders after it.
    pub fn line(&self) -> String {
        let tree = if self.tree.is_empty() {
            String::new()
        } else {
            format!("   [{}]", self.tree.join(" "))
        };
        let holders = if self.holders.is_empty() {
            String::new()
        } else {
            let hs: Vec<String> = self.holders.iter().map(|c| format!("c{c}")).collect();
            format!("   holders: {}", hs.join(", "))
        };
        format!("{:<22} {}{}{}", self.actor, self.text, tree, holders)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub steps: Vec<TraceStep>,
    /// The lasso's cycle begins at this step (1-based), for starvation.
    pub cycle_start: Option<usize>,
}

impl Trace {
    /// One line per step.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in &self.steps {
            if s.cycle_starts_here {
                let _ = writeln!(out, "      ── cycle: the steps below repeat forever ──");
            }
            let _ = writeln!(out, "{:>4}. {}", s.step, s.line());
        }
        out
    }

    /// A Mermaid `sequenceDiagram`.
    pub fn mermaid(&self, clients: u8) -> String {
        let clean = |t: &str| t.replace([';', '#'], ",");
        let mut out = String::from("sequenceDiagram\n");
        for c in 1..=clients {
            let _ = writeln!(out, "    participant c{c}");
        }
        out.push_str("    participant ZK\n");
        for s in &self.steps {
            if s.cycle_starts_here {
                let _ = writeln!(out, "    Note over ZK: cycle starts here");
            }
            let (who, rest) = s.actor.split_once('.').unwrap_or((s.actor.as_str(), ""));
            let line = if let Some(c) = s.actor.strip_prefix("server<-") {
                let tree = if s.tree.is_empty() {
                    String::new()
                } else {
                    format!(" {}", s.tree.join(" "))
                };
                format!("    {c}->>ZK: {}{}", clean(&s.text), clean(&tree))
            } else if let Some(c) = s.actor.strip_prefix("server->") {
                format!("    ZK-->>{c}: {}", clean(&s.text))
            } else if s.actor.starts_with("FAULT")
                || s.actor == "reaper"
                // The server's own steps ("server times out c1", "server
                // starts again"): on its lane, not on a participant named
                // "server" that the diagram never declared.
                || s.actor.starts_with("server ")
            {
                format!("    Note over ZK: {}: {}", clean(&s.actor), clean(&s.text))
            } else if rest.is_empty() {
                format!(
                    "    Note over {}: {}",
                    clean(who.split(' ').next().unwrap_or(who)),
                    clean(&s.text)
                )
            } else {
                format!("    Note over {who}: {rest}: {}", clean(&s.text))
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// Whether a step's actor is a client (`c1`, `c2`, …): its notes go over
/// that client's lane; any other actor's (`cleanup`, `time`, `FAULT`)
/// over the server's, since a diagram declares only the clients and the
/// server.
pub fn on_client_lane(actor: &str) -> bool {
    actor
        .strip_prefix('c')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A one-server trace as a Mermaid `sequenceDiagram`: the clients and the
/// server (`server`, its participant's name) as participants; a step whose
/// actor is `<prefix>c<n>` (the server serving client n) on one arrow from
/// that client, a client's own step over its lane, anything else over the
/// server's.
pub fn one_server_mermaid(trace: &Trace, clients: u8, server: &str, prefix: &str) -> String {
    use std::fmt::Write;
    let clean = |t: &str| t.replace([';', '#'], ",");
    let mut out = String::from("sequenceDiagram\n");
    for c in 1..=clients {
        let _ = writeln!(out, "    participant c{c}");
    }
    let _ = writeln!(out, "    participant {server}");
    for s in &trace.steps {
        if s.cycle_starts_here {
            let _ = writeln!(out, "    Note over {server}: cycle starts here");
        }
        let line = if let Some(c) = s.actor.strip_prefix(prefix) {
            format!("    {c}->>{server}: {}", clean(&s.text))
        } else if on_client_lane(&s.actor) {
            format!("    Note over {}: {}", s.actor, clean(&s.text))
        } else {
            format!("    Note over {server}: {}: {}", s.actor, clean(&s.text))
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(actor: &str, text: &str) -> TraceStep {
        TraceStep {
            step: 1,
            actor: actor.into(),
            text: text.into(),
            tree: Vec::new(),
            holders: Vec::new(),
            cycle_starts_here: false,
        }
    }

    /// The text trace: a line per step, numbered, and a rule where a
    /// starvation lasso's cycle begins; an action reads as its actor.
    #[test]
    fn a_text_trace_is_a_numbered_line_per_step_and_its_cycle_marked() {
        let mut looping = step("c2.main", "getChildren(/locks)");
        looping.step = 2;
        looping.cycle_starts_here = true;
        let trace = Trace {
            steps: vec![step("c1.main", "create /locks/lock-"), looping],
            cycle_start: Some(2),
        };
        let text = trace.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("   1. c1.main "), "{text}");
        assert!(lines[1].contains("── cycle: the steps below repeat forever ──"));
        assert!(lines[2].starts_with("   2. c2.main "), "{text}");
    }

    /// Faults, the reaper and the server's own steps go on the server's
    /// lane: a diagram declares the clients and ZK only, and Mermaid would
    /// draw any other name as a participant of its own.
    #[test]
    fn steps_of_no_client_are_notes_over_the_server() {
        let trace = Trace {
            steps: vec![
                step("FAULT expire c1", "c1's session expires"),
                step("reaper", "deletes /locks"),
                step("server times out c2", "c2's session expires"),
                step("c1.main", "create /locks/lock-"),
            ],
            cycle_start: None,
        };
        let lines: Vec<String> = trace.mermaid(2).lines().map(str::to_string).collect();
        assert_eq!(
            lines[4..],
            [
                "    Note over ZK: FAULT expire c1: c1's session expires",
                "    Note over ZK: reaper: deletes /locks",
                "    Note over ZK: server times out c2: c2's session expires",
                "    Note over c1: main: create /locks/lock-",
            ]
        );
    }
}
