//! The record of one run, as text and as a Mermaid sequence diagram.
//!
//! Everything in a trace comes from the simulation itself (simulated time,
//! the seeded random source, the model's values), never from the wall
//! clock: the same seed gives the same bytes.

use std::fmt::Write;

/// A participant of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    Client(usize),
    Server,
    Resource,
    Chaos,
}

impl Party {
    fn id(self) -> String {
        match self {
            Party::Client(c) => format!("c{}", c + 1),
            Party::Server => "zk".into(),
            Party::Resource => "res".into(),
            Party::Chaos => "chaos".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub at: u64,
    pub who: Party,
    pub text: String,
    /// A packet, for the diagram: (to, label).
    pub to: Option<(Party, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub on: bool,
    pub entries: Vec<Entry>,
    /// How many entries the run made, or with tracing off would have made:
    /// `compare` picks the failing seed with the shortest trace from
    /// untraced runs and traces only that one.
    pub count: usize,
}

impl Trace {
    /// Whether to write the entry a caller is about to make (its text is
    /// worth formatting); with tracing off the entry is counted all the
    /// same. A caller that asks makes exactly one entry when told yes.
    pub fn wants(&mut self) -> bool {
        if !self.on {
            self.count += 1;
        }
        self.on
    }

    pub fn note(&mut self, at: u64, who: Option<Party>, text: String) {
        self.count += 1;
        if self.on {
            self.entries.push(Entry {
                at,
                who: who.unwrap_or(Party::Chaos),
                text,
                to: None,
            });
        }
    }

    pub fn packet(&mut self, at: u64, from: Party, to: Party, label: String) {
        self.count += 1;
        if self.on {
            self.entries.push(Entry {
                at,
                who: from,
                text: format!("→ {}: {label}", to.id()),
                to: Some((to, label)),
            });
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            let _ = writeln!(
                out,
                "{:>12.6} ms  {:<5} {}",
                e.at as f64 / 1e6,
                e.who.id(),
                e.text
            );
        }
        out
    }

    /// A Mermaid `sequenceDiagram`: clients, the server and the resource as
    /// participants; packets as arrows, the rest as notes.
    pub fn mermaid(&self, clients: usize) -> String {
        let mut out = String::from("sequenceDiagram\n");
        for c in 0..clients {
            let _ = writeln!(out, "    participant c{}", c + 1);
        }
        out.push_str("    participant zk as ZooKeeper\n    participant res as resource\n");
        for e in &self.entries {
            let text = e.text.replace([';', '#'], ",");
            match &e.to {
                Some((to, label)) => {
                    let label = label.replace([';', '#'], ",");
                    let _ = writeln!(out, "    {}->>{}: {label}", e.who.id(), to.id());
                }
                None if e.who == Party::Chaos => {
                    let _ = writeln!(out, "    Note over zk: {text}");
                }
                None => {
                    let _ = writeln!(out, "    Note over {}: {text}", e.who.id());
                }
            }
        }
        out
    }
}
