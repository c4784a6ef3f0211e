#!/usr/bin/env bash
# How long after a two-way partition ZooKeeper's Java client declares
# Disconnected and the server expires the session, on a real ZooKeeper 3.8:
# the real side of docs/real.md's "Partition deadlines" table (the
# simulator's side: `cargo test -p locksmith --test partition_deadlines -- --nocapture`).
#
#   scripts/zookeeper.sh start
#   scripts/partition-deadlines.sh [host:port] [trials] [session timeout ms]
#
# Needs a JDK (javac's single-file launcher) and Debian's zookeeper.jar.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR=/usr/share/java/zookeeper.jar
[ -f "$JAR" ] || { echo "partition-deadlines.sh: no $JAR: apt-get install -y zookeeper" >&2; exit 1; }
exec java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
    "$HERE/partition-deadlines/PartitionDeadlines.java" "${1:-127.0.0.1:2181}" "${2:-20}" "${3:-4000}"
