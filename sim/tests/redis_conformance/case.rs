//! One sequence on both sides, compared step by step.

use crate::harness::Harness;
use crate::ops::Step;
use locksmith::redis::real::wire::{self, Wire};
use locksmith_model::redis::{Command, RedisServer};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The reference time a case starts at, in unix ms. Only the model's
/// elapsed milliseconds are added to it: the server never reads a value as
/// a time, so this need not be the wall clock's.
const BASE_UNIX_MS: i64 = 1_700_000_000_000;

/// How far a PTTL may differ between the model and the server, in ms. The
/// model advances by the time the test measured before sending each
/// command (whole milliseconds); the server reads its clock when it runs
/// it: the two differ by a round trip, a millisecond of rounding and any
/// scheduling delay on a busy machine.
pub const PTTL_TOLERANCE_MS: i64 = 100;

/// Runs `seq` against a fresh model and the flushed real server. Ok: the
/// transcript; Err: the transcript up to and including the disagreement.
pub fn run_case(h: &Harness, seq: &[Step]) -> Result<String, String> {
    h.flush()?;
    let mut model = RedisServer::new();
    let started = Instant::now();
    let mut model_ms: u64 = 0;
    let mut transcript = String::new();
    for step in seq {
        match step {
            Step::Sleep { ms } => {
                std::thread::sleep(Duration::from_millis(*ms));
                h.figures.borrow_mut().sleeps += 1;
                let _ = writeln!(transcript, "  sleep {ms} ms");
            }
            Step::Send { conn, cmd } => {
                let elapsed = started.elapsed().as_millis() as u64;
                model.advance(elapsed - model_ms);
                model_ms = elapsed;
                let now = BASE_UNIX_MS + model_ms as i64;
                let expected = wire::expected(&model.apply(cmd), now);
                let observed = h.send(*conn, &wire::request(cmd, now))?;
                let agree = agree(cmd, &expected, &observed, h);
                let _ = writeln!(
                    transcript,
                    "  t={model_ms:>4} ms  conn {conn}  {cmd}  -> model {expected}, real {observed}{}",
                    if agree { "" } else { "   <-- DISAGREE" }
                );
                let mut f = h.figures.borrow_mut();
                f.commands += 1;
                if !agree {
                    f.disagreements += 1;
                    return Err(transcript);
                }
                *f.coverage
                    .entry(format!("{:<24} {}", wire::name(cmd), wire::kind(&observed)))
                    .or_default() += 1;
            }
        }
    }
    h.figures.borrow_mut().sequences += 1;
    Ok(transcript)
}

/// Exact agreement, except a PTTL of a key with a TTL on both sides, which
/// may differ by [`PTTL_TOLERANCE_MS`].
fn agree(cmd: &Command, expected: &Wire, observed: &Wire, h: &Harness) -> bool {
    match (cmd, expected, observed) {
        (Command::PTtl { .. }, Wire::Int(m), Wire::Int(r)) if *m >= 0 && *r >= 0 => {
            let delta = (m - r).abs();
            let mut f = h.figures.borrow_mut();
            f.pttl_compared += 1;
            f.pttl_max_delta = f.pttl_max_delta.max(delta);
            delta <= PTTL_TOLERANCE_MS
        }
        _ => expected == observed,
    }
}
