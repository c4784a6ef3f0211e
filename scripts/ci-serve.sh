#!/usr/bin/env bash
# `locksmith serve` against real clients (see docs/serve.md). Called by
# .ci/run; runs by hand the same way.
#
# Installs what the real clients need if it is missing: Debian's Curator
# 5.4.0 jars (with ZooKeeper's 3.8 client jar and OpenJDK, which Debian's
# zookeeper package brings) and kazoo 2.11 from PyPI (Debian has 2.8). Then:
# the ZooKeeper conformance suite against `locksmith serve` instead of a
# real server (the wire layer: the model is held to ZooKeeper by
# ci-conformance.sh); then Curator's InterProcessMutex and kazoo's Lock,
# unmodified, under no fault, a holder expiry, a create in flight, and
# CURATOR-604's muted waiter, and two checker traces re-enacted on Curator;
# redis-py's Lock against the Redis model (sim/tests/serve_clients.rs).
# About 5 minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
packages=""
[ -f /usr/share/java/curator-recipes.jar ] || packages="libcurator-recipes-java libslf4j-java"
# Java 17's source launcher compiles the driver: it needs a JDK, not a JRE.
command -v javac > /dev/null || packages="$packages default-jdk-headless"
if [ -n "$packages" ]; then
    echo "ci-serve: installing $packages (Debian)" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq $packages > /dev/null
fi
if ! python3 -c 'import kazoo, sys; sys.exit(kazoo.__version__ != "2.11.0")' 2> /dev/null; then
    echo "ci-serve: installing kazoo 2.11.0 (PyPI)" >&2
    python3 -m pip install -q 'kazoo==2.11.0' 2> /dev/null \
        || python3 -m pip install -q --break-system-packages 'kazoo==2.11.0'
fi
if ! python3 -c 'import redis, sys; sys.exit(redis.__version__ != "8.1.0")' 2> /dev/null; then
    echo "ci-serve: installing redis-py 8.1.0 (PyPI)" >&2
    python3 -m pip install -q 'redis==8.1.0' 2> /dev/null \
        || python3 -m pip install -q --break-system-packages 'redis==8.1.0'
fi

# The binary `cargo test` built for the CLI tests, in its test profile (a
# no-op after it; built here if missing). `cargo build` would build the dev
# profile's: every crate once more, 4.5 minutes of CI.
cargo test -q -p locksmith --test serve_clients --no-run
port=2281
target/debug/locksmith serve --port "$port" --events-port $((port + 1)) --seconds 900 \
    > /tmp/locksmith-serve-ci.out 2>&1 &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null || true' EXIT
sleep 1

# The conformance suite's sample against serve: 1,000 sequences (about
# 17,000 operations; 8 s here), the same seed as against the real server.
source scripts/conformance-seed.sh
LOCKSMITH_ZK_ADDR="127.0.0.1:$port" PROPTEST_CASES=1000 LOCKSMITH_CONFORMANCE_MIN_OPS=10000 \
    cargo test -p locksmith --test conformance -- --ignored --nocapture --test-threads=1
kill "$serve_pid" 2> /dev/null || true

cargo test -p locksmith --test serve_clients -- --ignored --nocapture --test-threads=1
