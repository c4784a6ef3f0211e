#!/usr/bin/env bash
# A private etcd 3.4 (one member) on 127.0.0.1 for the etcd conformance
# test (sim/tests/etcd_conformance/). Uses Debian's `etcd-server` package:
#   apt-get update && apt-get install -y etcd-server
# (not its system service, which takes port 2379: this script runs its own
# member on ports of its own).
#
#   scripts/etcd.sh start    start it (fresh data directory) and wait until it answers
#   scripts/etcd.sh stop     stop it by its PID and wait until it is gone
#   scripts/etcd.sh status   say whether it runs and answers
#
# Client port LOCKSMITH_ETCD_PORT (default 2390; the member's peer port is
# the next one); everything lives in LOCKSMITH_ETCD_DIR (default:
# target/etcd-$PORT in the repository): etcd.pid, etcd.log, data/. The
# client API is gRPC and, on the same port, its JSON gateway (/v3/...),
# which the conformance test speaks. Both commands are idempotent.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOST=127.0.0.1
PORT="${LOCKSMITH_ETCD_PORT:-2390}"
PEER=$((PORT + 1))
DIR="${LOCKSMITH_ETCD_DIR:-$REPO/target/etcd-$PORT}"
PIDFILE="$DIR/etcd.pid"
LOG="$DIR/etcd.log"
START_TIMEOUT="${LOCKSMITH_ETCD_START_TIMEOUT:-30}"

say() { echo "etcd.sh: $*" >&2; }

# GET /version over a plain TCP connection (no curl needed).
version() {
    timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$PORT && printf 'GET /version HTTP/1.0\r\n\r\n' >&3 && cat <&3" 2>/dev/null \
        | tr -d '\r' | grep -o '"etcdserver":"[^"]*"' || true
}

answers() {
    [ -n "$(version)" ]
}

our_pid() {
    [ -f "$PIDFILE" ] || return 1
    local pid
    pid="$(cat "$PIDFILE")"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

start() {
    local pid
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
        command -v etcd > /dev/null || {
            say "etcd not found: apt-get update && apt-get install -y etcd-server"
            exit 1
        }
        mkdir -p "$DIR"
        rm -rf "$DIR/data" "$LOG"
        nohup etcd --name locksmith --data-dir "$DIR/data" \
            --listen-client-urls "http://$HOST:$PORT" --advertise-client-urls "http://$HOST:$PORT" \
            --listen-peer-urls "http://$HOST:$PEER" --initial-advertise-peer-urls "http://$HOST:$PEER" \
            --initial-cluster "locksmith=http://$HOST:$PEER" \
            > "$LOG" 2>&1 &
        pid=$!
        echo "$pid" > "$PIDFILE"
        say "started pid $pid in $DIR, log $LOG"
    fi
    local deadline=$((SECONDS + START_TIMEOUT))
    until answers; do
        if ! kill -0 "$pid" 2>/dev/null; then
            say "etcd exited before answering; its log ($LOG):"
            tail -n 40 "$LOG" >&2 || true
            rm -f "$PIDFILE"
            exit 1
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            say "no answer on $HOST:$PORT after ${START_TIMEOUT}s; stopping pid $pid"
            stop
            exit 1
        fi
        sleep 0.1
    done
    say "answering on $HOST:$PORT: $(version)"
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
    local pid
    if pid="$(our_pid)"; then
        say "running (pid $pid)"
    else
        say "not running (no live pid in $PIDFILE)"
    fi
    if answers; then
        say "$HOST:$PORT answers: $(version)"
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
