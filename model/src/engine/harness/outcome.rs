//! What a command recipe tells the harness: what one step did — the
//! request it sent, if any (a step ends at the first blocking call), what
//! it means to the harness ([`StepKind`]), and whether it ends in a
//! tick-long sleep (a retry loop's wait: a busy loop costs time) — and
//! whether its place waits for a reply. Every command backend's recipes
//! answer in it, over their own requests.

use super::phase::StepKind;

/// A command recipe's place, as the harness reads it.
pub trait AwaitsReply {
    /// The recipe waits for the reply to the request it sent.
    fn awaits_reply(&self) -> bool;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<Request> {
    pub send: Option<Request>,
    pub kind: StepKind,
    pub sleep: bool,
}

impl<Request> Outcome<Request> {
    /// The step sent `request`.
    pub fn send(request: Request, kind: StepKind) -> Self {
        Outcome {
            send: Some(request),
            kind,
            sleep: false,
        }
    }

    /// The step sent nothing.
    pub fn only(kind: StepKind) -> Self {
        Outcome {
            send: None,
            kind,
            sleep: false,
        }
    }

    /// The step sent nothing and sleeps a tick.
    pub fn sleep(kind: StepKind) -> Self {
        Outcome {
            send: None,
            kind,
            sleep: true,
        }
    }
}
