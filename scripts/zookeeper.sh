#!/usr/bin/env bash
# A private, standalone ZooKeeper 3.8 on 127.0.0.1:2181 for the conformance
# test (sim/tests/conformance/). Uses Debian's `zookeeper` package:
#   apt-get update && apt-get install -y zookeeper
#
#   scripts/zookeeper.sh start    start it (fresh data dir) and wait until it answers
#   scripts/zookeeper.sh stop     stop it by its PID
#   scripts/zookeeper.sh status   say whether it runs and answers
#
# Everything lives in $LOCKSMITH_ZK_DIR (default: target/zookeeper in the
# repository): zoo.cfg, data/, zookeeper.pid, zookeeper.log. Both commands are
# idempotent: `start` on a running server and `stop` on a stopped one succeed.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${LOCKSMITH_ZK_DIR:-$REPO/target/zookeeper}"
HOST=127.0.0.1
PORT="${LOCKSMITH_ZK_PORT:-2181}"
PIDFILE="$DIR/zookeeper.pid"
LOG="$DIR/zookeeper.log"
START_TIMEOUT="${LOCKSMITH_ZK_START_TIMEOUT:-60}"
# The container reaper's period. Small, so that the conformance test can wait
# for a reap instead of a minute (the server default).
CONTAINER_CHECK_MS="${LOCKSMITH_ZK_CONTAINER_CHECK_MS:-100}"

say() { echo "zookeeper.sh: $*" >&2; }

# Sends a four-letter word and prints the answer (empty if nothing answers).
fourletter() {
    local word="$1" reply=""
    reply="$(timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$PORT && printf '%s' '$word' >&3 && cat <&3" 2>/dev/null || true)"
    printf '%s' "$reply"
}

# `ruok` says imok as soon as the port is open; `srvr` says "not currently
# serving requests" until the server is ready, so ask that.
answers() { fourletter srvr | grep -q '^Zookeeper version'; }

our_pid() {
    [ -f "$PIDFILE" ] || return 1
    local pid
    pid="$(cat "$PIDFILE")"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

classpath() {
    local jar=/usr/share/java/zookeeper.jar
    if [ ! -f "$jar" ]; then
        say "no $jar: install Debian's ZooKeeper first: apt-get update && apt-get install -y zookeeper"
        exit 1
    fi
    # zookeeper.jar's manifest names its dependencies; add a logger if there is one.
    local cp="$jar"
    [ -f /usr/share/java/slf4j-simple.jar ] && cp="$cp:/usr/share/java/slf4j-simple.jar"
    echo "$cp"
}

start() {
    if pid="$(our_pid)"; then
        if answers; then
            say "already running (pid $pid) on $HOST:$PORT"
            return 0
        fi
        say "pid $pid is alive but does not answer yet; waiting"
    elif answers; then
        say "something else already answers on $HOST:$PORT (not started by this script); using it"
        return 0
    else
        command -v java >/dev/null || { say "java not found (Java 17 is needed)"; exit 1; }
        local cp
        cp="$(classpath)"
        rm -rf "$DIR/data"
        mkdir -p "$DIR/data"
        cat > "$DIR/zoo.cfg" <<CFG
# Written by scripts/zookeeper.sh: a private standalone server for tests.
tickTime=2000
dataDir=$DIR/data
clientPort=$PORT
clientPortAddress=$HOST
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr,cons
CFG
        nohup java -Xmx512m \
            -Dzookeeper.admin.enableServer=false \
            -Dzookeeper.forceSync=no \
            -Dznode.container.checkIntervalMs="$CONTAINER_CHECK_MS" \
            -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
            -cp "$cp" org.apache.zookeeper.server.ZooKeeperServerMain "$DIR/zoo.cfg" \
            > "$LOG" 2>&1 < /dev/null &
        echo $! > "$PIDFILE"
        pid=$!
        say "started pid $pid; config $DIR/zoo.cfg, log $LOG"
    fi
    local deadline=$((SECONDS + START_TIMEOUT))
    until answers; do
        if ! kill -0 "$pid" 2>/dev/null; then
            say "server exited before answering; its log ($LOG):"
            tail -n 40 "$LOG" >&2 || true
            rm -f "$PIDFILE"
            exit 1
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "no answer on $HOST:$PORT after ${START_TIMEOUT}s; stopping pid $pid. Log:"
            tail -n 40 "$LOG" >&2 || true
            stop
            exit 1
        fi
        sleep 0.2
    done
    say "answering on $HOST:$PORT: $(fourletter srvr | head -n 1)"
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PIDFILE"
        say "not running"
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "pid $pid did not stop in 10s; killing it"
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$PIDFILE"
    say "stopped pid $pid"
}

status() {
    if pid="$(our_pid)"; then
        say "running (pid $pid)"
    else
        say "not running (no live pid in $PIDFILE)"
    fi
    if answers; then
        say "$HOST:$PORT answers: $(fourletter srvr | head -n 1)"
    else
        say "$HOST:$PORT does not answer"
        return 1
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
