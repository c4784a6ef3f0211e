#!/usr/bin/env bash
# Mutation testing of the code that decides verdicts (docs/reliability.md):
# cargo-mutants plants one mistake at a time in the properties and the
# checker (model/src/engine, model/src/zk/check, each backend's check/),
# ZooKeeper's client library (model/src/zk/client: process, monitors,
# watchers) and the ZooKeeper server rules (model/src/zk), and runs the tests that should notice.
#
# Per-mutant test selection keeps a full run near a night on 2 cores (the
# whole suite takes ~10 minutes per mutant): each group runs only the model
# crate's test targets that exercise its code, under cargo-nextest, which
# stops at the first failing test (a caught mutant costs a second or two of
# tests, not the minutes a broken exploration can take; the four checker
# tests that take 4-30 s run last, .config/nextest.toml's `mutants`
# profile), and each mutant's build is incremental (a few seconds).
#
#   scripts/mutants.sh                 # every group (a night; not in .ci/run)
#   scripts/mutants.sh harness zk      # some groups
#   scripts/mutants.sh --list          # the mutants each group would try
#   MUTANTS_ARGS="--shard 0/50 --sharding round-robin" scripts/mutants.sh
#                                      # every 50th mutant of each group: a
#                                      # sample, to time a full run
#   MUTANTS_ARGS="--iterate" scripts/mutants.sh runtime
#                                      # go on where an interrupted run of the
#                                      # group stopped: the mutants it caught are
#                                      # skipped (cargo-mutants' --iterate reads
#                                      # the group's last mutants.out, kept then)
#   MUTANTS_WIDE=1 MUTANTS_ARGS="--iterate" scripts/mutants.sh harness
#                                      # the survivors again, with the wider
#                                      # selection (the sim crate's scenarios,
#                                      # properties and cli: minutes a mutant)
#
# Needs cargo-mutants (`cargo install --locked cargo-mutants`) and
# cargo-nextest (`cargo install --locked cargo-nextest`; without it, cargo
# test, much slower on caught mutants). Runs at the lowest priority (nice
# 19), one mutant at a time, with a test timeout of MUTANTS_TIMEOUT seconds
# (default 120; the selections pass in 20-30 s). Results per group in
# target/mutants/<group>/mutants.out (caught.txt, missed.txt, timeout.txt,
# unviable.txt), and a summary line per group on stdout.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset RUSTFLAGS

if ! cargo mutants --version > /dev/null 2>&1; then
    echo "mutants.sh: cargo-mutants is missing: cargo install --locked cargo-mutants" >&2
    exit 2
fi

# group | files mutated | files left out | the model's test targets run for
# each of its mutants (check's search, graph and fencing serve every backend:
# the Redis and SQL spaces' tests are its tests too, and take a second)
GROUPS_TABLE='
harness|model/src/engine/harness/**||--lib --test=checker --test=runtime
check|model/src/engine/** model/src/zk/check/**|model/src/engine/harness/**|--lib --test=checker --test=explorer --test=space --test=shared_session --test=server_restart --test=redis_space --test=mysql_space
check-redis|model/src/redis/check/**||--lib --test=redis_space
check-mysql|model/src/mysql/check/**||--lib --test=mysql_space
runtime|model/src/zk/client/**||--lib --test=runtime --test=checker
zk|model/src/zk/**|model/src/zk/check/** model/src/zk/client/** model/src/zk/recipes/**|--lib --test=zk_rules --test=zk_properties --test=zk_conformance_regressions --test=checker
'
# MUTANTS_WIDE=1: the test targets of the whole workspace each group ran
# before the night selection (the sim crate's end-to-end tests too).
WIDE_TABLE='
harness|--lib --test=checker --test=runtime --test=properties --test=sim_scenarios --test=sim_fault_schedules --test=scenarios --test=cli
check|--lib --test=checker --test=explorer --test=properties --test=scenarios --test=cli
check-redis|--lib --test=redis_space --test=sim_redis --test=scenarios
check-mysql|--lib --test=mysql_space --test=sim_mysql --test=scenarios
runtime|--lib --test=runtime --test=checker --test=properties --test=scenarios
zk|--lib --test=zk_rules --test=zk_properties --test=zk_conformance_regressions --test=checker --test=scenarios
'

list=false
wanted=()
for a in "$@"; do
    case "$a" in
        --list) list=true ;;
        *) wanted+=("$a") ;;
    esac
done

while IFS='|' read -r group files excluded tests; do
    [ -n "$group" ] || continue
    if [ "${#wanted[@]}" -gt 0 ] && [[ ! " ${wanted[*]} " == *" $group "* ]]; then
        continue
    fi
    out="target/mutants/$group"
    mkdir -p "$out"
    scope=(--package locksmith-model)
    # read -a splits on spaces without expanding the globs here.
    read -ra fs <<< "$files"
    read -ra xs <<< "$excluded"
    for f in "${fs[@]}"; do scope+=(--file "$f"); done
    for x in "${xs[@]}"; do scope+=(--exclude "$x"); done
    if $list; then
        echo "== $group ($files): $(cargo mutants "${scope[@]}" --list | wc -l) mutants"
        continue
    fi
    started=$SECONDS
    # The model's own tests (--test-workspace=false): each mutant rebuilds
    # the model crate alone, incrementally (--copy-target=false: the scratch
    # tree's first build compiles the dependencies once). MUTANTS_WIDE
    # runs the workspace's tests, with cargo test.
    tool=(--test-tool cargo)
    workspace=(--test-workspace=false)
    if [ -n "${MUTANTS_WIDE:-}" ]; then
        tests=$(grep "^$group|" <<< "$WIDE_TABLE" | cut -d'|' -f2)
        workspace=(--test-workspace=true)
    elif cargo nextest --version > /dev/null 2>&1; then
        tool=(--test-tool nextest)
        # .config/nextest.toml: the slow checker tests run last, so that a
        # quick test's failure cancels them.
        export NEXTEST_PROFILE=mutants
    else
        echo "mutants.sh: cargo-nextest is missing: caught mutants run every test (cargo install --locked cargo-nextest)" >&2
    fi
    # The test targets go to every cargo call (--cargo-arg), so that each
    # mutant's build compiles only them, not every test binary.
    selection=()
    for t in $tests; do selection+=("--cargo-arg=$t"); done
    # --iterate needs the last run's results; any other run starts afresh.
    if [[ " ${MUTANTS_ARGS:-} " != *" --iterate "* ]]; then
        rm -rf "$out/mutants.out"
    fi
    # Exit codes 2 (missed) and 3 (timeouts) are results, not failures of
    # this script.
    # shellcheck disable=SC2086
    nice -n 19 cargo mutants "${scope[@]}" "${workspace[@]}" "${tool[@]}" \
        --jobs 1 --timeout "${MUTANTS_TIMEOUT:-120}" --no-shuffle --baseline=skip \
        --copy-target=false --output "$out" "${selection[@]}" ${MUTANTS_ARGS:-} || [ $? -le 3 ]
    d="$out/mutants.out"
    if [ ! -f "$d/outcomes.json" ]; then
        echo "mutants.sh: $group: cargo-mutants did not run (see above)" >&2
        exit 2
    fi
    count() { [ -f "$d/$1" ] && wc -l < "$d/$1" || echo 0; }
    echo "mutants.sh: $group: $(count caught.txt) caught, $(count missed.txt) missed, $(count timeout.txt) timed out, $(count unviable.txt) unviable, in $((SECONDS - started)) s (missed: $d/missed.txt)"
done <<< "$GROUPS_TABLE"
