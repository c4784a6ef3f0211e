//! Faults by schedule: what `serve` does to a session, to whom and when.
//!
//! `ACTION:TARGET@WHEN`. `expire` ends a session on the server (its
//! ephemerals go, its connection is closed, its reconnect is told
//! "expired"); `drop` closes a session's connection (the client
//! reconnects to the same session within its timeout, sending
//! `SetWatches`); `mute` (written `mute:TARGET@WHEN+MS`) stops everything
//! the server sends to the session for `MS` — replies, notifications, the
//! answers to its reconnects — while the server still hears it (a one-way
//! partition: the session lives on at the server while its client may give
//! up on it, CURATOR-604's start); `hold` (`…+MS`) holds every frame the
//! server sends the session's connection for `MS`, then sends them in
//! order (a reply held, and every later one with it: the Java client drops
//! a connection whose reply xids come out of order), while the server
//! still hears it; `cut` (`…+MS`) drops the connection and refuses the
//! session's reconnects for `MS` (a two-way partition: the server hears
//! nothing, so the session expires if `MS` outlasts its timeout).
//!
//! `TARGET` is a session id (`2`, `0x2`: ids count from 1 in connect
//! order), `holder` (the session a client's `acquired` event named),
//! `waiter` (the session of a client waiting in `lock()`, as its
//! `acquiring` event named), or `any` (with an operation only: whichever
//! session sends it first).
//!
//! `WHEN` is milliseconds — from the session's opening, or for `holder`
//! and `waiter` how long the hold or the wait has lasted — or an operation, `OP` or `OP:PATH`
//! (e.g. `create:/lock/`): the target's next request of that opcode (on a
//! path starting with `PATH`) is applied and its reply is lost, then the
//! fault strikes — a request in flight when the connection went, or when
//! the session expired. Each fault strikes once.

use super::wire::opcode;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Expire,
    Drop,
    /// For this many ms.
    Mute(u64),
    Hold(u64),
    Cut(u64),
}

impl Action {
    /// How long it lasts, for the actions that last.
    fn lasts(self) -> Option<u64> {
        match self {
            Action::Expire | Action::Drop => None,
            Action::Mute(ms) | Action::Hold(ms) | Action::Cut(ms) => Some(ms),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Session(u32),
    Holder,
    Waiter,
    Any,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    AfterMs(u64),
    /// On the target's next request of this opcode (on a path with this
    /// prefix), applied and unanswered.
    On {
        opcode: i32,
        path: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub action: Action,
    pub target: Target,
    pub when: When,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            Action::Expire => "expire",
            Action::Drop => "drop",
            Action::Mute(_) => "mute",
            Action::Hold(_) => "hold",
            Action::Cut(_) => "cut",
        };
        match self.target {
            Target::Session(s) => write!(f, "{action}:0x{s:x}@")?,
            Target::Holder => write!(f, "{action}:holder@")?,
            Target::Waiter => write!(f, "{action}:waiter@")?,
            Target::Any => write!(f, "{action}:any@")?,
        }
        match &self.when {
            When::AfterMs(ms) => write!(f, "{ms}")?,
            When::On { opcode, path: None } => write!(f, "{}", opcode::name(*opcode))?,
            When::On {
                opcode,
                path: Some(p),
            } => write!(f, "{}:{p}", opcode::name(*opcode))?,
        }
        match self.action.lasts() {
            Some(ms) => write!(f, "+{ms}"),
            None => Ok(()),
        }
    }
}

/// Reads `ACTION:TARGET@WHEN`; the error says what was expected.
pub fn parse(s: &str) -> Result<Fault, String> {
    let expected = || {
        format!(
            "expected ACTION:TARGET@WHEN with ACTION expire, drop, mute, hold or cut (the last \
             three's WHEN ends in +MS, how long), TARGET a session id (2, 0x2), `holder`, \
             `waiter` or `any`, WHEN milliseconds or an operation with an optional path prefix \
             (e.g. expire:holder@500, drop:any@create:/lock/, mute:waiter@300+6000, \
             cut:holder@100+5000), got {s:?}"
        )
    };
    let (action, rest) = s.split_once(':').ok_or_else(expected)?;
    let (target, when) = rest.split_once('@').ok_or_else(expected)?;
    let (action, when) = match action {
        "expire" => (Action::Expire, when),
        "drop" => (Action::Drop, when),
        "mute" | "hold" | "cut" => {
            let (when, ms) = when.rsplit_once('+').ok_or_else(expected)?;
            let ms = ms.parse().map_err(|_| expected())?;
            let lasting = match action {
                "mute" => Action::Mute(ms),
                "hold" => Action::Hold(ms),
                _ => Action::Cut(ms),
            };
            (lasting, when)
        }
        _ => return Err(expected()),
    };
    let target = match target {
        "holder" => Target::Holder,
        "waiter" => Target::Waiter,
        "any" => Target::Any,
        t => {
            let id = match t.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => t.parse().ok(),
            };
            Target::Session(id.filter(|&i| i > 0).ok_or_else(expected)?)
        }
    };
    let when = match when.parse() {
        Ok(ms) => When::AfterMs(ms),
        Err(_) => {
            let (op, path) = match when.split_once(':') {
                Some((op, path)) => (op, Some(path.to_string())),
                None => (when, None),
            };
            let code = opcode::by_name(op).ok_or_else(|| {
                format!(
                    "{}; operations: {}",
                    expected(),
                    opcode::NAMES.map(|(_, n)| n).join(", ")
                )
            })?;
            When::On { opcode: code, path }
        }
    };
    if target == Target::Any && matches!(when, When::AfterMs(_)) {
        return Err(expected());
    }
    Ok(Fault {
        action,
        target,
        when,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_reads_back_as_written_and_a_bad_one_says_what_was_expected() {
        let f = parse("expire:holder@500").unwrap();
        assert_eq!(
            (f.action, f.target, f.when),
            (Action::Expire, Target::Holder, When::AfterMs(500))
        );
        assert_eq!(parse("drop:0x2@10").unwrap().target, Target::Session(2));
        assert_eq!(parse("drop:3@0").unwrap().to_string(), "drop:0x3@0");
        let on = parse("drop:any@create:/lock/").unwrap();
        assert_eq!(
            on.when,
            When::On {
                opcode: opcode::CREATE,
                path: Some("/lock/".into())
            }
        );
        assert_eq!(on.to_string(), "drop:any@create:/lock/");
        assert_eq!(
            parse("expire:1@create2").unwrap().to_string(),
            "expire:0x1@create2"
        );
        for bad in [
            "expire",
            "kill:1@5",
            "drop:0@5",
            "drop:x@5",
            "expire:holder@-1",
            "drop:any@5",
            "drop:1@frobnicate",
            "mute:1@300",
            "mute:1@300+x",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("ACTION:TARGET@WHEN"), "{bad}: {e}");
        }
        assert!(parse("drop:1@frobnicate").unwrap_err().contains("create2"));
        assert_eq!(parse("hold:2@100+900").unwrap().action, Action::Hold(900));
        assert_eq!(
            parse("cut:holder@getData+5000").unwrap().to_string(),
            "cut:holder@getData+5000"
        );
        for bad in ["hold:1@100", "cut:1@100+", "cut:any@100+5"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
