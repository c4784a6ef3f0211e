//! The parser of every count flag (`--seeds`, `--max-states`, …): one
//! wording in every command. clap's own range check would print its upper
//! end, `1..18446744073709551615`.

/// A whole number ≥ 1.
pub fn at_least_one(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("expected a whole number ≥ 1, not 0".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number ≥ 1".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_words_are_refused_in_plain_words() {
        assert_eq!(at_least_one("12"), Ok(12));
        assert_eq!(
            at_least_one("0"),
            Err("expected a whole number ≥ 1, not 0".into())
        );
        assert_eq!(
            at_least_one("-3"),
            Err("expected a whole number ≥ 1".into())
        );
        assert_eq!(
            at_least_one("1e3"),
            Err("expected a whole number ≥ 1".into())
        );
    }
}
