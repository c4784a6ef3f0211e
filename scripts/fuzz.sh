#!/usr/bin/env bash
# Fuzzed inputs, wider than `cargo test` runs them (docs/reliability.md):
# sim/tests/fuzz_inputs.rs with more cases per property, over several
# generator seeds, and more broken files through the binary.
#
#   scripts/fuzz.sh                      # 10,000 cases per property × seeds 1..3
#   LOCKSMITH_FUZZ_CASES=2000 LOCKSMITH_FUZZ_SEEDS="7" scripts/fuzz.sh
#
# Niced (the machine is shared). Prints the tallies of each run (`fuzz:`
# lines) and fails on the first case that panics or is refused without a
# line, a column and what was expected.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset RUSTFLAGS
export LOCKSMITH_FUZZ_CASES="${LOCKSMITH_FUZZ_CASES:-10000}"
export LOCKSMITH_FUZZ_BINARY_FILES="${LOCKSMITH_FUZZ_BINARY_FILES:-100}"
SEEDS="${LOCKSMITH_FUZZ_SEEDS:-1 2 3}"
cargo test -p locksmith --test fuzz_inputs --no-run
for seed in $SEEDS; do
    echo "fuzz.sh: generator seed $seed, $LOCKSMITH_FUZZ_CASES cases per property" >&2
    LOCKSMITH_FUZZ_SEED="$seed" nice -n 19 \
        cargo test -p locksmith --test fuzz_inputs -- --nocapture 2>&1 |
        grep -E '^fuzz:|test result|panicked|minimal failing input'
done
