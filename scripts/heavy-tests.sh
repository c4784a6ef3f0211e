#!/usr/bin/env bash
# The heavy test tier: what a plain `cargo test` leaves out to stay fast,
# run in full. CI runs it after the README's `cargo test` (.ci/run).
#
#   - the explorations of the scenarios that pin more than 1,000,000
#     states (the long Curator ones and predecessor: check::, abstract::, por::), two at
#     a time (sim/tests/scenarios.rs, HEAVY_STATES); not their dead::
#     trials (Curator's dead values kept: 153 s more on two cores, which CI's
#     30 minutes cannot spare; `cargo test --release -p locksmith --test
#     scenarios -- --ignored dead::` runs them, and the 19 lighter ones run
#     in every `cargo test`);
#   - reports_are_up_to_date: the whole comparison against reports/;
#   - every fault column struck where it says (fault_columns.rs);
#   - the checker's sweeps of symmetry and reduction on and off;
#   - the input fuzzer at 1,500 cases per property (300 in cargo test).
#
# Tests that need a real server stay out: scripts/ci-*.sh run those.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset RUSTFLAGS

cargo test -p locksmith --test scenarios --test compare_reports --test fault_columns -- --ignored --skip dead::
# Without `-p`: selecting the model crate alone would unify its features
# differently and rebuild it (about 50 s).
cargo test --test checker -- --ignored --skip por_completes
LOCKSMITH_FUZZ_CASES=1500 cargo test -p locksmith --test fuzz_inputs
