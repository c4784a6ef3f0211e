//! The think and hold times of a real run, drawn from its seed: each
//! client draws from its own generator, seeded by (`--seed`, client), so
//! two runs with the same seed give every client the same schedule —
//! its n-th hold and n-th think are the same in both, however the server
//! interleaves the clients. (Inside the simulator randomness is madsim's;
//! this driver runs on wall-clock time outside any simulation.)

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

/// A duration drawn uniformly from `[min, max]` (a fixed one when equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Between {
    pub min: Duration,
    pub max: Duration,
}

impl Between {
    pub const ZERO: Between = Between::exactly(Duration::ZERO);

    pub const fn exactly(d: Duration) -> Between {
        Between { min: d, max: d }
    }

    /// Never more than zero: nothing to wait for, nothing to draw.
    pub fn is_zero(self) -> bool {
        self.max.is_zero()
    }

    /// Parses `N` or `MIN,MAX` in milliseconds (fractions allowed), up to
    /// an hour, as `--hold-ms` and `--think-ms` take them.
    pub fn parse_ms(s: &str) -> Result<Between, String> {
        let ms = |x: &str| match x.trim().parse::<f64>() {
            Ok(v) if (0.0..=3_600_000.0).contains(&v) => Ok(Duration::from_secs_f64(v / 1e3)),
            _ => Err(format!(
                "`{s}`: expected milliseconds from 0 to 3600000 (an hour), as N or MIN,MAX"
            )),
        };
        let b = match s.split_once(',') {
            Some((lo, hi)) => Between {
                min: ms(lo)?,
                max: ms(hi)?,
            },
            None => Between::exactly(ms(s)?),
        };
        if b.min > b.max {
            return Err(format!("`{s}`: expected MIN ≤ MAX"));
        }
        Ok(b)
    }
}

impl std::fmt::Display for Between {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if self.min == self.max {
            write!(f, "{} ms", ms(self.min))
        } else {
            write!(f, "{}–{} ms", ms(self.min), ms(self.max))
        }
    }
}

/// One client's generator.
#[derive(Clone, Debug)]
pub struct Times {
    rng: Xoshiro256PlusPlus,
}

impl Times {
    pub fn new(seed: u64, client: usize) -> Times {
        // Spread (seed, client) over the generator's seed space: clients of
        // one run, and one client of neighbouring seeds, draw apart.
        let mixed = seed ^ (client as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Times {
            rng: Xoshiro256PlusPlus::seed_from_u64(mixed),
        }
    }

    /// The next duration from `b`.
    pub fn draw(&mut self, b: Between) -> Duration {
        if b.min >= b.max {
            return b.min;
        }
        let lo = b.min.as_nanos().min(u64::MAX as u128) as u64;
        let hi = b.max.as_nanos().min(u64::MAX as u128) as u64;
        Duration::from_nanos(self.rng.random_range(lo..=hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(seed: u64, client: usize) -> Vec<Duration> {
        let mut t = Times::new(seed, client);
        let b = Between::parse_ms("0.5,1.5").expect("a range");
        (0..50).map(|_| t.draw(b)).collect()
    }

    #[test]
    fn the_same_seed_draws_the_same_schedule_and_another_seed_another() {
        assert_eq!(schedule(7, 2), schedule(7, 2));
        assert_ne!(schedule(7, 2), schedule(8, 2));
        assert_ne!(schedule(7, 2), schedule(7, 3));
        let b = Between::parse_ms("0.5,1.5").expect("a range");
        assert!(schedule(7, 2).iter().all(|d| *d >= b.min && *d <= b.max));
    }

    #[test]
    fn a_fixed_time_is_not_drawn() {
        let mut t = Times::new(1, 0);
        let b = Between::parse_ms("5").expect("a time");
        assert_eq!(t.draw(b), Duration::from_millis(5));
        assert!(Between::parse_ms("0").expect("zero").is_zero());
    }

    #[test]
    fn bad_times_say_what_was_expected() {
        for s in ["-1", "2,1", "1e308", "NaN", "x", "1,", ",2", "inf"] {
            let e = Between::parse_ms(s).expect_err(s);
            assert!(e.contains("expected"), "{s}: {e}");
        }
    }
}
