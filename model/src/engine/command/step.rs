//! The transitions every command backend takes alike — the state a run
//! begins in, a client's step around its recipe's (its rounds, its fencing
//! token, its critical section's writes), a think, a pause, a crash — and
//! the parts of the enabled actions every one has, for a backend's own
//! [`Steps::enabled`] to place in its order. The backend's [`Steps`] bring
//! its recipe's step and its own transitions.

use super::action::{CommandAction, Shared};
use super::backend::{Backend, LocalsOf, ReplyOf, RequestOf, StateOf};
use super::state::{Channel, Client, ClientOwn, Fence, ProcessFaults, State};
use crate::engine::harness::writes::WRITES;
use crate::engine::harness::{AwaitsReply, LockEvent, Outcome, Phase, StepKind, Writes};
use crate::engine::resource::{self, Resource, Section};
use std::fmt::{Debug, Display};

/// How `lock()` comes by its fencing token once the recipe's lock
/// succeeded: at once (from the reply, from what the recipe keeps), or
/// from the reply to a request of its own (`lock()` returns when it comes).
pub enum Token<Request> {
    Now(i64),
    Ask(Request),
}

/// A command backend's transitions: its recipe's step, and what is its
/// own (its enabled actions' order, its server's serving and time, its own
/// actions).
pub trait Steps: Backend {
    type Action: CommandAction + Eq + Debug + Display + Send + Sync;
    /// What a client knows of itself, as its recipe's step reads it.
    type Me;

    /// What client `c` knows of itself in `s`.
    fn me(&self, s: &StateOf<Self>, c: u8) -> Self::Me;
    /// One step of the recipe at `locals`, reading `reply` (the reply to
    /// its last request, if one came since).
    fn recipe_step(
        &self,
        locals: &mut LocalsOf<Self>,
        reply: Option<&ReplyOf<Self>>,
        me: &Self::Me,
    ) -> Outcome<RequestOf<Self>>;
    /// With fencing: how `lock()` comes by its token, the recipe's lock
    /// having succeeded at `locals` on `reply`.
    fn token(
        &self,
        locals: &LocalsOf<Self>,
        reply: Option<&ReplyOf<Self>>,
    ) -> Token<RequestOf<Self>>;
    /// The token in the reply to [`Token::Ask`]'s request, or the exception
    /// reading it throws. Only a backend that asks is asked.
    fn asked_token(&self, _reply: ReplyOf<Self>) -> Result<i64, StepKind> {
        unreachable!("a token asked of a backend that has it at once")
    }

    /// The enabled actions of `s`, in a fixed order (a path is recorded as
    /// ordinals into it): the backend's order, the shared ones pushed by
    /// the engine's [`step`](super::step) helpers.
    fn enabled(&self, s: &StateOf<Self>, out: &mut Vec<Self::Action>);
    /// The server handles client `c`'s request.
    fn serve(&self, s: &mut StateOf<Self>, c: u8);
    /// One tick of time for everyone.
    fn tick(&self, s: &mut StateOf<Self>);
    /// The backend's own part of client `c`'s crash, after the harness's
    /// (its process, timers and tenure end).
    fn crashed(&self, _s: &mut StateOf<Self>, _c: u8) {}
    /// Takes one of the backend's own actions.
    fn take_own(&self, s: &mut StateOf<Self>, a: <Self::Action as CommandAction>::Own);
    /// What the backend does after every action (its state kept relative).
    fn settle(&self, _s: &mut StateOf<Self>) {}
}

/// The state a run begins in: the backend's server; every client idle at
/// its recipe's start, its rounds ahead; the whole fault budget; with
/// fencing, the resource.
pub fn initial<B: Backend>(b: &B) -> StateOf<B> {
    let h = b.harness();
    let client = Client {
        locals: b.start(),
        phase: Phase::Idle,
        channel: Channel::Idle,
        timer: 0,
        paused: 0,
        rounds: h.acquisitions,
        own: Default::default(),
        fence: Fence::Off,
        section: Section::default(),
    };
    State {
        server: b.server(),
        clients: vec![client; usize::from(h.clients)],
        left: h.faults,
        foreign_unlock: false,
        own: Default::default(),
        resource: h.fencing.then(|| Resource::new(Writes::Fenced)),
    }
}

/// Takes `a` in `s`: a shared action here, the backend's own by it; then
/// what the backend does after every action.
pub fn take<B: Steps>(b: &B, s: &mut StateOf<B>, a: B::Action) {
    s.foreign_unlock = false;
    match a.split() {
        Ok(Shared::Step(c)) => client_step(b, s, c),
        Ok(Shared::Think(c)) => s.clients[usize::from(c)].timer = 1,
        Ok(Shared::Serve(c)) => b.serve(s, c),
        Ok(Shared::Tick) => b.tick(s),
        Ok(Shared::Pause(c)) => {
            s.left.spend_pause();
            s.clients[usize::from(c)].paused = b.harness().pause;
        }
        Ok(Shared::Crash(c)) => crash(b, s, c),
        Err(own) => b.take_own(s, own),
    }
    b.settle(s);
}

/// Client `c`'s process crashes: its connection closes (a request not
/// served yet is lost), its timers stop, and its open section ends with it
/// (no write of it can follow); then the backend's part.
fn crash<B: Steps>(b: &B, s: &mut StateOf<B>, c: u8) {
    s.left.spend_crash();
    let cl = &mut s.clients[usize::from(c)];
    cl.phase = Phase::Crashed;
    cl.channel = Channel::Idle;
    cl.timer = 0;
    cl.paused = 0;
    cl.fence = Fence::Off;
    resource::tenure_ends(s, usize::from(c));
    b.crashed(s, c);
}

/// Client `c` reads its reply, if one came, and runs to its next blocking
/// call; a step that would begin a round after the last one ends the loop
/// instead. With fencing, the harness's own steps come first (the token's
/// reply, the critical section's two writes), and a lock the recipe got
/// returns from `lock()` with its token.
fn client_step<B: Steps>(b: &B, s: &mut StateOf<B>, c: u8) {
    let h = b.harness();
    if h.fencing && fenced_step(b, s, c) {
        return;
    }
    let me = b.me(s, c);
    let i = usize::from(c);
    let cl = &mut s.clients[i];
    let reply = cl.channel.take_reply();
    let mut events = Vec::new();
    if cl.phase.thinks_next() {
        if cl.rounds == 0 {
            cl.phase = cl.phase.after(StepKind::Finished, true, &mut events);
            return;
        }
        cl.rounds -= 1;
    }
    let out = b.recipe_step(&mut cl.locals, reply.as_ref(), &me);
    if h.fencing && out.kind == StepKind::Acquired {
        match b.token(&cl.locals, reply.as_ref()) {
            Token::Now(token) => {
                cl.phase = cl.phase.after(StepKind::Acquired, true, &mut events);
                cl.fence = Fence::Wrote(0);
                resource::token(s, i, token);
            }
            Token::Ask(request) => {
                cl.fence = Fence::AwaitToken;
                cl.channel = Channel::Sent(request);
            }
        }
        return;
    }
    cl.phase = cl.phase.after(out.kind, true, &mut events);
    if let Some(request) = out.send {
        cl.channel = Channel::Sent(request);
    }
    if out.kind == StepKind::Acquired {
        cl.timer = h.work;
    }
    if out.sleep {
        cl.timer = 1;
    }
    if events.iter().any(ends_tenure) {
        end_tenure::<B>(s, i);
    }
}

/// The event ends the client's tenure (without fencing its fence is off
/// and there is no resource: nothing changes).
fn ends_tenure(e: &LockEvent) -> bool {
    matches!(
        e,
        LockEvent::Released | LockEvent::GaveUp | LockEvent::ThreadDied(_) | LockEvent::Finished
    )
}

fn end_tenure<B: Backend>(s: &mut StateOf<B>, i: usize) {
    s.clients[i].fence = Fence::Off;
    resource::tenure_ends(s, i);
}

/// A fenced client's step that is the harness's, not the recipe's:
/// reading the token it asked for (`lock()` returns, or throws), the
/// critical section's opening write (then the work), its closing write.
/// Whether it was one.
fn fenced_step<B: Steps>(b: &B, s: &mut StateOf<B>, c: u8) -> bool {
    let i = usize::from(c);
    let cl = &mut s.clients[i];
    match cl.fence {
        Fence::AwaitToken => {
            let Some(reply) = cl.channel.take_reply() else {
                return false;
            };
            let mut events = Vec::new();
            match b.asked_token(reply) {
                Ok(token) => {
                    cl.phase = cl.phase.after(StepKind::Acquired, true, &mut events);
                    cl.fence = Fence::Wrote(0);
                    resource::token(s, i, token);
                }
                Err(threw) => {
                    cl.phase = cl.phase.after(threw, true, &mut events);
                    end_tenure::<B>(s, i);
                }
            }
            true
        }
        Fence::Wrote(n) if cl.phase.holds() && n < WRITES => {
            cl.fence = Fence::Wrote(n + 1);
            if n == 0 {
                cl.timer = b.harness().work;
            }
            resource::write(s, i);
            true
        }
        _ => false,
    }
}

/// Clears `out` and pushes, per client, its step and its think (when it
/// can step; a think only before a round it has left) and the server's
/// serving of its request: the enabled actions' beginning.
pub fn client_actions<L: AwaitsReply, Rq, Rp, O: ClientOwn, A: CommandAction>(
    clients: &[Client<L, Rq, Rp, O>],
    out: &mut Vec<A>,
) {
    out.clear();
    for (c, cl) in (0u8..).zip(clients) {
        if cl.can_step() {
            out.push(A::shared(Shared::Step(c)));
            if cl.phase.thinks_next() && cl.rounds > 0 {
                out.push(A::shared(Shared::Think(c)));
            }
        }
        if cl.servable() {
            out.push(A::shared(Shared::Serve(c)));
        }
    }
}

/// Client `c`'s pause and crash, while their budgets last and its process
/// runs (a paused one pauses no further).
pub fn process_faults<L: AwaitsReply, Rq, Rp, O: ClientOwn, A: CommandAction>(
    left: &impl ProcessFaults,
    c: u8,
    cl: &Client<L, Rq, Rp, O>,
    out: &mut Vec<A>,
) {
    if left.pauses() > 0 && cl.alive() && cl.paused == 0 {
        out.push(A::shared(Shared::Pause(c)));
    }
    if left.crashes() > 0 && cl.alive() {
        out.push(A::shared(Shared::Crash(c)));
    }
}

/// A tick may pass: nothing instantaneous is left (maximal progress: no
/// client can step or be served, and nothing of the backend's own,
/// `instant`) and something counts down (a running client's timers, or
/// something of the backend's own, `counting`).
pub fn time_passes<L: AwaitsReply, Rq, Rp, O: ClientOwn>(
    clients: &[Client<L, Rq, Rp, O>],
    instant: bool,
    counting: impl FnOnce() -> bool,
) -> bool {
    let instant = instant || clients.iter().any(|c| c.can_step() || c.servable());
    !instant && (clients.iter().any(Client::counting) || counting())
}
