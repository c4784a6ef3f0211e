#!/usr/bin/env bash
# Mutation testing of the code that decides verdicts (docs/reliability.md):
# cargo-mutants plants one mistake at a time in the properties and the
# checker (model/src/check, model/src/harness), the recipe runtime
# (model/src/runtime: client, monitors, watchers) and the ZooKeeper server
# rules (model/src/zk), and runs the tests that should notice.
#
# Per-mutant test selection keeps a full run within a night on 2 cores:
# each group runs only the test targets that exercise its code, not the
# whole suite (which takes ~10 minutes per mutant).
#
#   scripts/mutants.sh                 # every group (hours; not in .ci/run)
#   scripts/mutants.sh harness zk      # some groups
#   scripts/mutants.sh --list          # the mutants each group would try
#   MUTANTS_TIMEOUT=600 MUTANTS_ARGS="--baseline=skip" scripts/mutants.sh harness
#                                      # a fixed test timeout (s), extra options
#   MUTANTS_ARGS="--iterate --baseline=skip" MUTANTS_TIMEOUT=300 scripts/mutants.sh runtime
#                                      # go on where an interrupted run of the
#                                      # group stopped: the mutants it caught are
#                                      # skipped (cargo-mutants' --iterate reads
#                                      # the group's last mutants.out, kept then)
#
# Needs cargo-mutants (`cargo install --locked cargo-mutants`). Runs at
# the lowest priority (nice 19), one mutant at a time. Results per group
# in target/mutants/<group>/mutants.out (caught.txt, missed.txt,
# timeout.txt, unviable.txt), and a summary line per group on stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset RUSTFLAGS

if ! cargo mutants --version > /dev/null 2>&1; then
    echo "mutants.sh: cargo-mutants is missing: cargo install --locked cargo-mutants" >&2
    exit 2
fi

# group | files mutated | the test targets run for each of its mutants
GROUPS_TABLE='
harness|model/src/harness/**|--lib --test=checker --test=runtime --test=properties --test=sim_scenarios --test=sim_fault_schedules --test=scenarios --test=cli
check|model/src/check/**|--lib --test=checker --test=explorer --test=properties --test=scenarios --test=cli
runtime|model/src/runtime/**|--lib --test=runtime --test=checker --test=properties --test=scenarios
zk|model/src/zk/**|--lib --test=zk_rules --test=zk_properties --test=zk_conformance_regressions --test=checker
'

list=false
wanted=()
for a in "$@"; do
    case "$a" in
        --list) list=true ;;
        *) wanted+=("$a") ;;
    esac
done

while IFS='|' read -r group files tests; do
    [ -n "$group" ] || continue
    if [ "${#wanted[@]}" -gt 0 ] && [[ ! " ${wanted[*]} " == *" $group "* ]]; then
        continue
    fi
    out="target/mutants/$group"
    mkdir -p "$out"
    if $list; then
        echo "== $group ($files): $(cargo mutants --package locksmith-model --file "$files" --list | wc -l) mutants"
        continue
    fi
    started=$SECONDS
    # --test-workspace: the sim crate's tests (scenarios, properties) judge
    # the model's verdicts too. Exit codes 2 (missed) and 3 (timeouts) are
    # results, not failures of this script.
    # shellcheck disable=SC2086
    # --copy-target: each mutant's build starts from this tree's target/
    # (incremental), not from nothing.
    # The test timeout: 3 × the baseline's, or MUTANTS_TIMEOUT seconds
    # (needed when the baseline is skipped).
    timeout=(--timeout-multiplier 3)
    [ -n "${MUTANTS_TIMEOUT:-}" ] && timeout=(--timeout "$MUTANTS_TIMEOUT")
    # The test targets go to every cargo call (--cargo-arg), so that each
    # mutant's build compiles only them, not every test binary.
    selection=()
    for t in $tests; do selection+=("--cargo-arg=$t"); done
    # --iterate needs the last run's results; any other run starts afresh.
    if [[ " ${MUTANTS_ARGS:-} " != *" --iterate "* ]]; then
        rm -rf "$out/mutants.out"
    fi
    nice -n 19 cargo mutants --package locksmith-model --file "$files" \
        --test-workspace=true --jobs 1 "${timeout[@]}" --no-shuffle \
        --copy-target=true --output "$out" "${selection[@]}" ${MUTANTS_ARGS:-} || [ $? -le 3 ]
    d="$out/mutants.out"
    if [ ! -f "$d/outcomes.json" ]; then
        echo "mutants.sh: $group: cargo-mutants did not run (see above)" >&2
        exit 2
    fi
    count() { [ -f "$d/$1" ] && wc -l < "$d/$1" || echo 0; }
    echo "mutants.sh: $group: $(count caught.txt) caught, $(count missed.txt) missed, $(count timeout.txt) timed out, $(count unviable.txt) unviable, in $((SECONDS - started)) s (missed: $d/missed.txt)"
done <<< "$GROUPS_TABLE"
