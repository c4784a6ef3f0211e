#!/usr/bin/env bash
# Differential conformance: the etcd model against a real etcd 3.4 (see
# docs/conformance.md). Called by .ci/run; runs by hand the same way.
#
# Installs Debian's etcd-server package if it is missing (its system
# service is not used), starts a private member (scripts/etcd.sh, client
# port LOCKSMITH_ETCD_PORT, default 2390), runs the ignored conformance test
# (sim/tests/etcd_conformance/: at least LOCKSMITH_ETCD_CONFORMANCE_MIN_OPS
# = 5000 compared requests, else the run fails), and stops the member
# again if this script started it. LOCKSMITH_ETCD_CASES sets the number of
# sequences (default 300). Then confirm's and real's tests on the same
# member.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v etcd > /dev/null; then
    echo "ci-etcd: installing Debian's etcd-server package" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq etcd-server > /dev/null
fi

if scripts/etcd.sh status > /dev/null 2>&1; then
    echo "ci-etcd: using the member that already runs" >&2
else
    scripts/etcd.sh start
    trap 'scripts/etcd.sh stop' EXIT
fi

export LOCKSMITH_ETCD_ADDR="${LOCKSMITH_ETCD_ADDR:-127.0.0.1:${LOCKSMITH_ETCD_PORT:-2390}}"
export PROPTEST_CASES="${LOCKSMITH_ETCD_CASES:-300}"
source scripts/conformance-seed.sh
export LOCKSMITH_ETCD_CONFORMANCE_MIN_OPS="${LOCKSMITH_ETCD_CONFORMANCE_MIN_OPS:-5000}"
cargo test -p locksmith --test etcd_conformance -- --ignored --nocapture --test-threads=1

# confirm on etcd: every violated etcd checker scenario's shortest trace
# re-enacted on the same member — replies, watch events and lock keys
# agree at every step (etcd-io/etcd#11456 among them). About 2 s.
cargo test -p locksmith --test confirm_etcd -- --ignored --nocapture --test-threads=1

# locksmith real --etcd: each etcd lock against the same member — mutual
# exclusion with no fault, one wake-up per release for the Mutex and a herd
# for the naive lock, no key touched but the run's own. About 10 s.
cargo test -p locksmith --test real_etcd -- --ignored --nocapture --test-threads=1
