//! The state fingerprint: a fast, deterministic 64-bit hash.
//!
//! The explorer keeps only a fingerprint per visited state, so the hash
//! decides which states count as seen: it must give the same value for the
//! same state in every run, on every machine, and spread well enough that
//! two of a few hundred million states practically never collide.
//!
//! SipHash (what the explorer used first) spends most of the checker's time
//! on the many one- and two-byte writes a derived `Hash` makes. This hasher
//! absorbs each write as one 64-bit word with a folded multiply (the full
//! 128-bit product of the state and a constant, its halves xored — the
//! mixing step of foldhash and wyhash) and ends with two more rounds. It
//! has no random seed and no platform-dependent path: `usize`/`isize` are
//! absorbed as 64-bit values and byte slices are read little-endian, so a
//! fingerprint is the same on every machine (and 32-bit targets).

use std::hash::Hasher;

const MUL: u64 = 0x9e37_79b9_7f4a_7c15;
const SEED: u64 = 0x6c6f_636b_736d_6974; // "locksmit"
const FIN: u64 = 0xa076_1d64_78bd_642f;

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128).wrapping_mul(b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The fingerprint hasher (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct FoldHasher {
    s: u64,
}

impl Default for FoldHasher {
    fn default() -> Self {
        FoldHasher { s: SEED }
    }
}

impl Hasher for FoldHasher {
    #[inline]
    fn finish(&self) -> u64 {
        fold(fold(self.s ^ FIN, MUL) ^ SEED, FIN)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // The length first, so that splitting the same bytes differently
        // over writes gives different streams (derived hashes never rely on
        // concatenation).
        self.write_u64(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, x: u64) {
        self.s = fold(self.s ^ x, MUL);
    }
    #[inline(always)]
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
    #[inline(always)]
    fn write_u16(&mut self, x: u16) {
        self.write_u64(x as u64);
    }
    #[inline(always)]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    #[inline(always)]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    #[inline(always)]
    fn write_i8(&mut self, x: i8) {
        self.write_u64(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i16(&mut self, x: i16) {
        self.write_u64(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i32(&mut self, x: i32) {
        self.write_u64(x as i64 as u64);
    }
    #[inline(always)]
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    #[inline(always)]
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as i64 as u64);
    }
    #[inline]
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
    #[inline]
    fn write_i128(&mut self, x: i128) {
        self.write_u128(x as u128);
    }
}

/// Two values that are hashes already, combined with one folded multiply
/// (the mixing step of wyhash): what a [`FoldHasher`] does in five.
#[inline(always)]
pub fn mix(a: u64, b: u64) -> u64 {
    fold(a ^ SEED, b ^ FIN)
}

/// The fingerprint of `x` (the tests' shorthand; the engine folds
/// fingerprints from parts).
#[cfg(test)]
pub fn fingerprint<T: std::hash::Hash + ?Sized>(x: &T) -> u64 {
    let mut h = FoldHasher::default();
    x.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_values() {
        // Pinned: a change here changes which states a run treats as equal
        // (never a verdict, barring collisions) — make it on purpose.
        assert_eq!(fingerprint(&0u64), fingerprint(&0u64));
        assert_ne!(fingerprint(&0u64), fingerprint(&1u64));
        assert_ne!(fingerprint("ab"), fingerprint("ba"));
        assert_ne!(fingerprint(&("a", "b")), fingerprint(&("ab", "")));
        assert_eq!(fingerprint(&42u64), 0x176b_7641_5d9c_477b);
    }

    /// Every integer is one word of its value (a signed one sign-extended),
    /// 128-bit ones two: the same number hashes alike at any width, and
    /// no width is left out of the stream.
    #[test]
    fn an_integer_hashes_as_its_value_at_any_width() {
        let minus_one = fingerprint(&u64::MAX);
        assert_eq!(fingerprint(&-1i8), minus_one);
        assert_eq!(fingerprint(&-1i16), minus_one);
        assert_eq!(fingerprint(&-1i32), minus_one);
        assert_eq!(fingerprint(&-1i64), minus_one);
        assert_eq!(fingerprint(&-1isize), minus_one);
        let seven = fingerprint(&7u64);
        assert_eq!(fingerprint(&7u8), seven);
        assert_eq!(fingerprint(&7u16), seven);
        assert_eq!(fingerprint(&7u32), seven);
        assert_eq!(fingerprint(&7usize), seven);
        assert_eq!(fingerprint(&-1i128), fingerprint(&u128::MAX));
        assert_ne!(fingerprint(&-1i128), fingerprint(&0i128));
        assert_ne!(fingerprint(&0i128), fingerprint(&()));
    }

    /// Every bit of either input reaches the mix: a client's key is a mix
    /// of two hashes, and a bit lost there merges states that differ.
    #[test]
    fn every_bit_of_either_input_changes_the_mix() {
        let (a, b) = (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        let m = mix(a, b);
        for bit in 0..64 {
            assert_ne!(mix(a ^ 1 << bit, b), m, "bit {bit} of the first");
            assert_ne!(mix(a, b ^ 1 << bit), m, "bit {bit} of the second");
        }
    }

    #[test]
    fn spreads_small_inputs() {
        let mut seen = std::collections::BTreeSet::new();
        for a in 0u32..256 {
            for b in 0u8..=255 {
                assert!(seen.insert(fingerprint(&(a, b))));
            }
        }
    }
}
