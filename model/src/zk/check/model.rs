//! The system as a stateright [`Model`], so stateright's own checkers and
//! its Explorer web UI (`checker().serve(..)`) work on any configuration.
//! The shortest-trace verdicts come from [`explore`](crate::engine::explore); this
//! exists for stepping through states by hand and for cross-checking.
//!
//! The Explorer speaks the checker's words: a step reads as the line of a
//! text trace ([`trace::step`], which runs `System::apply(a, true)`), a path
//! is drawn as a sequence diagram, and the properties carry the harness's
//! names.

use super::config::CheckConfig;
use super::property::{self, Property};
use super::system::{Action, System};
use super::trace;
use crate::engine::trace::TraceStep;
use stateright::{Model, Path};
use std::fmt::Write;

pub struct LockModel {
    pub cfg: CheckConfig,
}

/// The properties the Explorer checks, in [`Property::ALL`]'s order: the
/// checker's judgments that are predicates on one state.
pub const EXPLORED: [Property; 4] = [
    Property::MutualExclusion,
    Property::Deadlock,
    Property::OrphanedNode,
    Property::ThreadDied,
];

/// The properties the checker judges that the Explorer leaves out, because
/// a stateright property (a predicate on one state, expected always,
/// sometimes or eventually) cannot say them honestly:
///
/// - starvation is a fair cycle in which one client waits forever while the
///   others go on. `Property::eventually` only reports paths that end in a
///   terminal state and documents that it misses cycles, so it would report
///   "holds" for exactly the lassos the checker finds;
/// - herd is a property of a transition (a release that notified more than
///   one waiting client), judged from the state before and the step's
///   effect. A state does not remember the step that led to it, and making
///   it remember would split states the checker keeps as one.
pub const NOT_EXPLORED: [Property; 2] = [Property::Starvation, Property::Herd];

/// `p` as a stateright property (a violation is a state where the
/// condition is false), if a state predicate can say it.
fn stateright_property(p: Property) -> Option<stateright::Property<LockModel>> {
    // The conditions are `fn` pointers, so each property is spelt out.
    match p {
        Property::MutualExclusion => Some(stateright::Property::always(p.name(), |_, s| {
            !property::violated_in(Property::MutualExclusion, s)
        })),
        Property::ThreadDied => Some(stateright::Property::always(p.name(), |_, s| {
            !property::violated_in(Property::ThreadDied, s)
        })),
        Property::OrphanedNode => Some(stateright::Property::always(p.name(), |_, s| {
            !property::violated_in(Property::OrphanedNode, s)
        })),
        Property::MutualExclusionAtResource => {
            Some(stateright::Property::always(p.name(), |_, s| {
                !property::violated_in(Property::MutualExclusionAtResource, s)
            }))
        }
        Property::FencedSafety => Some(stateright::Property::always(p.name(), |_, s| {
            !property::violated_in(Property::FencedSafety, s)
        })),
        Property::Reentrancy => Some(stateright::Property::always(p.name(), |_, s| {
            !property::violated_in(Property::Reentrancy, s)
        })),
        Property::Deadlock => Some(stateright::Property::always(p.name(), |_, s: &System| {
            let mut a = Vec::new();
            s.actions(&mut a);
            !property::stuck(s, a.iter().any(|x| !x.is_fault()))
        })),
        _ => None,
    }
}

impl Model for LockModel {
    type State = System<'static>;
    type Action = Action;

    fn init_states(&self) -> Vec<System<'static>> {
        vec![System::initial(&self.cfg)]
    }

    fn actions(&self, state: &System<'static>, actions: &mut Vec<Action>) {
        state.actions(actions);
    }

    fn next_state(&self, state: &System<'static>, action: Action) -> Option<System<'static>> {
        let mut next = state.clone();
        next.apply(action, false);
        Some(next)
    }

    fn properties(&self) -> Vec<stateright::Property<Self>> {
        Property::ALL
            .into_iter()
            .filter(|&p| property::judged_in(p, &self.cfg))
            .filter_map(stateright_property)
            .collect()
    }

    /// The actor, as a trace's second column names it (`c1.main`,
    /// `server<-c1`, `FAULT expire c2`): all an action says without a state.
    fn format_action(&self, action: &Action) -> String {
        action.to_string()
    }

    /// The step as a line of the checker's text trace (without its number:
    /// the Explorer does not say how deep the state is), followed by who
    /// holds and who waits afterwards.
    fn format_step(&self, last_state: &System<'static>, action: Action) -> Option<String> {
        let mut next = last_state.clone();
        let step = trace::step(&mut next, action, 0);
        let mut out = step.line();
        let clients = |cs: Vec<u8>| {
            let names: Vec<String> = cs.iter().map(|c| format!("c{}", c + 1)).collect();
            if names.is_empty() {
                "nobody".to_string()
            } else {
                names.join(", ")
            }
        };
        let _ = write!(
            out,
            "\n\nholders: {}\nwaiting: {}\n",
            clients(next.holders()),
            clients(next.waiting())
        );
        Some(out)
    }

    /// The path as a sequence diagram: see [`sequence_svg`].
    fn as_svg(&self, path: Path<System<'static>, Action>) -> Option<String> {
        let path = path.into_vec();
        let clients = path.first().map_or(self.cfg.clients, |(s, _)| {
            u8::try_from(s.peers.len()).unwrap_or(u8::MAX)
        });
        let steps: Vec<(Action, TraceStep)> = path
            .into_iter()
            .filter_map(|(s, a)| a.map(|a| (s, a)))
            .enumerate()
            .map(|(i, (mut s, a))| (a, trace::step(&mut s, a, i + 1)))
            .collect();
        Some(sequence_svg(clients, &steps))
    }
}

/// Horizontal distance between lifelines, and vertical between steps.
const LANE: usize = 90;
const ROW: usize = 22;
/// Where the first lifeline and the first step are.
const LEFT: usize = 40;
const TOP: usize = 46;
/// A generous width per character of the 12px monospace labels (the SVG
/// must fit its text without measuring it).
const CHAR: usize = 8;

/// A sequence picture of `steps`: one lifeline per client and one for ZK;
/// requests (`server<-cN`) as arrows to ZK, deliveries as dashed arrows
/// back, client steps as dots on their lifeline, faults as red crosses, a
/// green bar where a client believes it holds the lock; each row labelled
/// with the trace's line for the step, to the right of ZK.
///
/// Colours are given both as attributes (a standalone file) and as the
/// Explorer's own classes (its stylesheet wins on its dark page).
pub fn sequence_svg(clients: u8, steps: &[(Action, TraceStep)]) -> String {
    let n = clients as usize;
    let lane = |i: usize| LEFT + i * LANE;
    let zk = lane(n);
    let row = |i: usize| TOP + i * ROW;
    let text_x = zk + 30;
    let labels: Vec<String> = steps
        .iter()
        .map(|(_, s)| format!("{:>3}. {}", s.step, s.line()))
        .collect();
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = text_x + widest * CHAR + 20;
    let height = row(steps.len()) + 10;
    let bottom = height - 10;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg version='1.1' xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' \
         viewBox='0 0 {width} {height}' font-family='monospace' font-size='12'>"
    );
    let _ = writeln!(
        svg,
        "<defs><marker id='ls-arrow' markerWidth='10' markerHeight='8' refX='10' refY='4' \
         orient='auto'><polygon points='0 0, 10 4, 0 8' fill='#888' class='svg-event-shape' />\
         </marker></defs>"
    );
    let mut names: Vec<String> = (1..=n).map(|c| format!("c{c}")).collect();
    names.push("ZK".to_string());
    for (i, name) in names.iter().enumerate() {
        let x = lane(i);
        let _ = writeln!(
            svg,
            "<line x1='{x}' y1='24' x2='{x}' y2='{bottom}' stroke='#888' stroke-dasharray='2 3' \
             class='svg-actor-timeline lifeline' />"
        );
        let _ = writeln!(
            svg,
            "<text x='{x}' y='16' text-anchor='middle' font-weight='bold' fill='#333' \
             class='svg-actor-label'>{name}</text>"
        );
    }

    for (i, ((a, s), label)) in steps.iter().zip(&labels).enumerate() {
        let y = row(i);
        // Holding, drawn first so the step's mark stays on top.
        for &h in &s.holders {
            let x = lane(h as usize - 1);
            let _ = writeln!(
                svg,
                "<rect x='{}' y='{y}' width='6' height='{ROW}' fill='#3a3' />",
                x - 3
            );
        }
        mark(&mut svg, a, lane, zk, y);
        let (fill, class) = if a.is_fault() {
            ("#d33", "fault")
        } else {
            ("#333", "svg-event-label")
        };
        let _ = writeln!(
            svg,
            "<text x='{text_x}' y='{}' fill='{fill}' class='{class}' xml:space='preserve'>{}</text>",
            y + 4,
            escape(label)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The step's mark on the lanes: an arrow for a message, a cross for a
/// fault, a dot for a local step.
fn mark(svg: &mut String, a: &Action, lane: impl Fn(usize) -> usize, zk: usize, y: usize) {
    match *a {
        Action::Serve(c) => arrow(svg, lane(c as usize), zk, y, false),
        Action::Deliver(c) | Action::Overtake(c) => arrow(svg, zk, lane(c as usize), y, true),
        Action::Expire(c)
        | Action::LoseConnection(c)
        | Action::Disconnect(c)
        | Action::ClientExpire(c)
        | Action::Crash(c) => cross(svg, lane(c as usize), y),
        Action::Reap | Action::ExpireOld(_) | Action::StartServer => dot(svg, zk, y, "#888"),
        Action::StopServer(_) => cross(svg, zk, y),
        Action::Run(c, _)
        | Action::TimeOut(c, _)
        | Action::NoticeExpiry(c)
        | Action::Reconnect(c)
        | Action::GiveUp(c)
        | Action::Deadline(c)
        | Action::ConnectTimeout(c)
        | Action::TimeOutSession(c) => dot(svg, lane(c as usize), y, "#47c"),
    }
}

/// A fault's red cross at `x`.
fn cross(svg: &mut String, x: usize, y: usize) {
    let _ = writeln!(
        svg,
        "<path d='M{} {} l10 10 m0 -10 l-10 10' stroke='#d33' stroke-width='3' />",
        x - 5,
        y - 5
    );
}

fn arrow(svg: &mut String, from: usize, to: usize, y: usize, reply: bool) {
    let dash = if reply { " stroke-dasharray='5 3'" } else { "" };
    let _ = writeln!(
        svg,
        "<line x1='{from}' y1='{}' x2='{to}' y2='{}' stroke='#888' stroke-width='2'{dash} \
         marker-end='url(#ls-arrow)' class='svg-event-line' />",
        y - 4,
        y + 4
    );
}

fn dot(svg: &mut String, x: usize, y: usize, fill: &str) {
    let _ = writeln!(svg, "<circle cx='{x}' cy='{y}' r='4' fill='{fill}' />");
}

/// Text as SVG (XML) character data.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&apos;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}
