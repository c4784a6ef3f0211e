//! A checker trace's fingerprint: every step's actor and line, hashed. A
//! cell carries its trace's, so that the report marks a cell confirmed on
//! a real server only if the trace the checker finds now is the one that
//! was confirmed (`crate::compare::confirmed`).

use crate::confirm::line_of;
use locksmith_model::engine::TraceStep;

/// FNV-1a (64 bits) of every step's actor and line, in hex.
pub fn fingerprint<'a>(steps: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (actor, line) in steps {
        for b in actor
            .bytes()
            .chain([b'\t'])
            .chain(line.bytes())
            .chain([b'\n'])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The fingerprint of a checker trace.
pub fn of_trace(steps: &[TraceStep]) -> String {
    let lines: Vec<(String, String)> = steps
        .iter()
        .map(|s| (s.actor.clone(), line_of(s)))
        .collect();
    fingerprint(lines.iter().map(|(a, l)| (a.as_str(), l.as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_changes_with_any_step() {
        let a = fingerprint([("c1.main", "sends x")]);
        assert_eq!(a.len(), 16);
        assert_ne!(a, fingerprint([("c2.main", "sends x")]));
        assert_ne!(a, fingerprint([("c1.main", "sends y")]));
        assert_ne!(a, fingerprint([("c1.main", "sends x"), ("c1.main", "")]));
    }
}
