//! A command backend's counterexample in words, as the CLI, the JSON and
//! `confirm` show it: who acted, what it did in the recipe's and the
//! server's words, the lock's state after it. What every backend says
//! alike is said here (a client's step: the reply it read, the request it
//! sent, its phase, its write to the resource; a think; an unlock by a
//! non-owner); the backend says the rest ([`Narrated`]).

use super::action::{CommandAction, Shared};
use super::backend::{Backend, ClientOf, StateOf};
use super::space::Explored;
use super::state::Fence;
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::Writes;
use crate::engine::path::Counterexample;
use crate::engine::replay::{client_step_words, replay_trace, Described};
use crate::engine::resource;
use crate::engine::trace::Trace;

/// Who takes one of a backend's own actions, as a trace's actor column
/// names it.
pub enum Actor {
    /// Nobody's: a fault ("FAULT").
    Fault,
    /// The server, for client `c` (`redis<-c1`).
    Server(u8),
    /// A part of the backend's own ("replica", "cleanup").
    Named(&'static str),
}

/// What a command backend says of its own in a trace.
pub trait Narrated: Explored {
    /// The server as a trace's actor column names it (`redis`: a serving
    /// is `redis<-c1`'s).
    const PEER: &'static str;
    /// Who takes one of the backend's own actions.
    fn own_actor(&self, a: <Self::Action as CommandAction>::Own) -> Actor;
    /// What `a` (neither a client's step nor its think) did, from `before`
    /// to `after`, in the backend's words.
    fn words(&self, before: &StateOf<Self>, after: &StateOf<Self>, a: Self::Action) -> Vec<String>;
    /// What else a client's step did, from `before` to `after`, beside the
    /// reply it read, the request it sent, its phase and its write.
    fn step_notes(&self, _before: &ClientOf<Self>, _after: &ClientOf<Self>) -> Vec<String> {
        Vec::new()
    }
    /// The lock's state in `s`, as the trace's tree column shows it.
    fn lock_state(&self, s: &StateOf<Self>) -> String;
}

/// Replays `cx` and describes every step; `None` if an action is not
/// enabled where the trace takes it.
pub fn render<B: Narrated>(b: &B, cx: &Counterexample<B::Action>) -> Option<Trace> {
    replay_trace(b, cx, |before, after, a| Described {
        actor: actor(b, a),
        text: what(b, before, after, a),
        tree: vec![b.lock_state(after)],
    })
}

/// What `a` did, from `before` to `after`, in the recipe's and the
/// server's words (a trace's text; `confirm` shows it beside what the real
/// server did).
pub fn what<B: Narrated>(b: &B, before: &StateOf<B>, after: &StateOf<B>, a: B::Action) -> String {
    let mut parts = match a.split() {
        Ok(Shared::Step(c)) => step_words(b, before, after, c),
        Ok(Shared::Think(_)) => vec!["thinks a tick before its next round".to_string()],
        _ => b.words(before, after, a),
    };
    if after.foreign_unlock {
        parts.push("— unlock by non-owner".into());
    }
    parts.join("; ")
}

fn step_words<B: Narrated>(b: &B, before: &StateOf<B>, after: &StateOf<B>, c: u8) -> Vec<String> {
    let (was, is) = (
        &before.clients[usize::from(c)],
        &after.clients[usize::from(c)],
    );
    let read = was.channel.replied().map(ToString::to_string);
    let sent = is.channel.sent().map(ToString::to_string);
    let mut then = b.step_notes(was, is);
    then.extend(resource_write(b, before, c));
    client_step_words(read, was.phase, is.phase, sent, then)
}

/// What client `c`'s step from `before` does at the resource, if it
/// writes there (replayed on a copy: the state keeps no mark of it).
pub fn resource_write<B: Backend>(b: &B, before: &StateOf<B>, c: u8) -> Option<String> {
    let cl = &before.clients[usize::from(c)];
    let Fence::Wrote(n) = cl.fence else {
        return None;
    };
    if !b.harness().fencing || !cl.phase.holds() || n >= WRITES || !cl.can_step() {
        return None;
    }
    let mut probe = before.clone();
    let accepted = resource::write(&mut probe, usize::from(c));
    let which = if n == 0 { "opening" } else { "closing" };
    Some(format!(
        "writes its {which} write to the resource{}",
        resource::describe(&cl.section, accepted, Writes::Fenced)
    ))
}

/// Who takes `a`, as a trace's actor column names it.
fn actor<B: Narrated>(b: &B, a: B::Action) -> String {
    let own = match a.split() {
        Ok(Shared::Step(c) | Shared::Think(c)) => return format!("c{}", c + 1),
        Ok(Shared::Serve(c)) => Actor::Server(c),
        Ok(Shared::Tick) => Actor::Named("time"),
        Ok(Shared::Pause(_) | Shared::Crash(_)) => Actor::Fault,
        Err(own) => b.own_actor(own),
    };
    match own {
        Actor::Fault => "FAULT".into(),
        Actor::Server(c) => format!("{}<-c{}", B::PEER, c + 1),
        Actor::Named(name) => name.into(),
    }
}
