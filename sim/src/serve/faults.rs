//! Faults by schedule: what `serve` does to a session, to whom and when.
//!
//! `expire:TARGET@MS` ends a session on the server (its ephemerals go, its
//! connection is closed, its reconnect is told "expired");
//! `drop:TARGET@MS` closes a session's connection (the client reconnects
//! to the same session within its timeout, sending `SetWatches`).
//! `TARGET` is a session id (`2`, `0x2`: ids count from 1 in connect
//! order), and `MS` is counted from that session's opening; or `holder`,
//! and `MS` is how long a client has held the lock (its `acquired` event
//! named its session): the fault strikes the first hold that lasts so
//! long. Each fault strikes once.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Expire,
    Drop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Session(u32),
    Holder,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub action: Action,
    pub target: Target,
    pub after_ms: u64,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            Action::Expire => "expire",
            Action::Drop => "drop",
        };
        match self.target {
            Target::Session(s) => write!(f, "{action}:0x{s:x}@{}", self.after_ms),
            Target::Holder => write!(f, "{action}:holder@{}", self.after_ms),
        }
    }
}

/// Reads `ACTION:TARGET@MS`; the error says what was expected.
pub fn parse(s: &str) -> Result<Fault, String> {
    let expected = || {
        format!(
            "expected ACTION:TARGET@MS with ACTION expire or drop, TARGET a session id (2, 0x2) \
             or `holder`, MS milliseconds (e.g. expire:holder@500), got {s:?}"
        )
    };
    let (action, rest) = s.split_once(':').ok_or_else(expected)?;
    let (target, ms) = rest.split_once('@').ok_or_else(expected)?;
    let action = match action {
        "expire" => Action::Expire,
        "drop" => Action::Drop,
        _ => return Err(expected()),
    };
    let target = match target {
        "holder" => Target::Holder,
        t => {
            let id = match t.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => t.parse().ok(),
            };
            Target::Session(id.filter(|&i| i > 0).ok_or_else(expected)?)
        }
    };
    let after_ms = ms.parse().map_err(|_| expected())?;
    Ok(Fault {
        action,
        target,
        after_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_reads_back_as_written_and_a_bad_one_says_what_was_expected() {
        let f = parse("expire:holder@500").unwrap();
        assert_eq!((f.action, f.target, f.after_ms), (Action::Expire, Target::Holder, 500));
        assert_eq!(parse("drop:0x2@10").unwrap().target, Target::Session(2));
        assert_eq!(parse("drop:3@0").unwrap().to_string(), "drop:0x3@0");
        for bad in ["expire", "kill:1@5", "drop:0@5", "drop:x@5", "expire:holder@-1"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("ACTION:TARGET@MS"), "{bad}: {e}");
        }
    }
}
