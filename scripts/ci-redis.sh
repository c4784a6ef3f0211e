#!/usr/bin/env bash
# Differential conformance: the Redis model against a real redis-server 7
# (see docs/conformance.md). Called by .ci/run; runs by hand the same way.
#
# Installs Debian's redis-server package if it is missing (its system
# service is not used), starts a private server (scripts/redis.sh, port
# LOCKSMITH_REDIS_PORT, default 6390), runs the ignored conformance tests
# (sim/tests/redis_conformance/: at least LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS
# = 5000 compared commands, else the run fails), and stops the server again
# if this script started it. LOCKSMITH_REDIS_CASES sets the number of
# sequences (default 350). About 30 s once the test binary is built.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v redis-server > /dev/null; then
    echo "ci-redis: installing Debian's redis-server package" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq redis-server > /dev/null
fi

if scripts/redis.sh status > /dev/null 2>&1; then
    echo "ci-redis: using the server that already runs" >&2
else
    scripts/redis.sh start
    trap 'scripts/redis.sh stop' EXIT
fi

export LOCKSMITH_REDIS_ADDR="${LOCKSMITH_REDIS_ADDR:-127.0.0.1:${LOCKSMITH_REDIS_PORT:-6390}}"
# Its own case count (a PROPTEST_CASES meant for the ZooKeeper run would
# make this one run for minutes): 350 sequences, about 7,000 commands.
export PROPTEST_CASES="${LOCKSMITH_REDIS_CASES:-350}"
source scripts/conformance-seed.sh
export LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS="${LOCKSMITH_REDIS_CONFORMANCE_MIN_OPS:-5000}"
cargo test -p locksmith --test redis_conformance -- --ignored --nocapture --test-threads=1

# locksmith real --redis: every Redis recipe against the same server — mutual
# exclusion kept while holders stay inside their lease, lost when a holder
# works past it, lost by seed 003's second caller with no overrun; fenced,
# the stale holders' writes rejected by the resource; no key touched but the
# run's own. About 35 s.
cargo test -p locksmith --test real_redis -- --ignored --nocapture --test-threads=1

# locksmith confirm on Redis: every violated property of every Redis checker
# scenario, its shortest trace re-enacted on the same server, confirmed
# with the same violation — the failover's, which needs a replica server,
# not confirmed and said so. About 10 s.
cargo test -p locksmith --test confirm_redis -- --ignored --nocapture --test-threads=1
