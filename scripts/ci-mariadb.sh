#!/usr/bin/env bash
# Differential conformance: the InnoDB model against a real MariaDB 10.11
# (see docs/conformance.md). Called by .ci/run after the Redis step.
#
# Installs Debian's mariadb-server package if it is missing (its system
# service is not used), starts a private server (scripts/mariadb.sh, port
# LOCKSMITH_MARIADB_PORT, default 3390), runs the ignored conformance test
# (sim/tests/mysql_conformance/: at least
# LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS = 5000 compared statements, else the
# run fails), then `locksmith real --mysql`'s tests (sim/tests/real_mysql.rs),
# and stops the server again if this script started it.
# LOCKSMITH_MYSQL_CASES sets the number of sequences (default 250). About
# a minute once the test binary is built.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v mariadbd > /dev/null; then
    echo "ci-mariadb: installing Debian's mariadb-server package" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq mariadb-server > /dev/null
fi

if scripts/mariadb.sh status > /dev/null 2>&1; then
    echo "ci-mariadb: using the server that already runs" >&2
else
    scripts/mariadb.sh start
    trap 'scripts/mariadb.sh stop' EXIT
fi

export LOCKSMITH_MYSQL_URL="${LOCKSMITH_MYSQL_URL:-mysql://locksmith@127.0.0.1:${LOCKSMITH_MARIADB_PORT:-3390}/locksmith}"
# Its own case count (a PROPTEST_CASES meant for another run would not fit).
export PROPTEST_CASES="${LOCKSMITH_MYSQL_CASES:-250}"
source scripts/conformance-seed.sh
export LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS="${LOCKSMITH_MYSQL_CONFORMANCE_MIN_OPS:-5000}"
cargo test -p locksmith --test mysql_conformance -- --ignored --nocapture --test-threads=1

# locksmith real --mysql: every database recipe against the same server —
# mutual exclusion kept with the lock row in place, lost by FOR UPDATE on a
# missing row; no table touched but the run's own. About 10 s.
cargo test -p locksmith --test real_mysql -- --ignored --nocapture --test-threads=1
