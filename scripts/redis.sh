#!/usr/bin/env bash
# A private redis-server 7 on 127.0.0.1 for the Redis conformance test
# (sim/tests/redis_conformance/). Uses Debian's `redis-server` package:
#   apt-get update && apt-get install -y redis-server
# (not its system service: this script runs its own server).
#
#   scripts/redis.sh start    start it (fresh directory, no persistence) and wait until it answers
#   scripts/redis.sh stop     stop it by its PID and wait until it is gone
#   scripts/redis.sh status   say whether it runs and answers
#
# Port LOCKSMITH_REDIS_PORT (default 6390); everything lives in
# LOCKSMITH_REDIS_DIR (default: target/redis-$PORT in the repository):
# redis.pid, redis.log. No persistence (--save "" --appendonly no). Both
# commands are idempotent: `start` on a running server and `stop` on a
# stopped one succeed.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOST=127.0.0.1
PORT="${LOCKSMITH_REDIS_PORT:-6390}"
DIR="${LOCKSMITH_REDIS_DIR:-$REPO/target/redis-$PORT}"
PIDFILE="$DIR/redis.pid"
LOG="$DIR/redis.log"
START_TIMEOUT="${LOCKSMITH_REDIS_START_TIMEOUT:-30}"

say() { echo "redis.sh: $*" >&2; }

# PING over a plain TCP connection (no redis-cli needed): +PONG when ready.
answers() {
    local reply
    reply="$(timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$PORT && printf 'PING\r\n' >&3 && head -c 7 <&3" 2>/dev/null || true)"
    [ "${reply%$'\r'}" = "+PONG" ]
}

version() {
    timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$PORT && printf 'INFO server\r\n' >&3 && head -c 400 <&3" 2>/dev/null \
        | tr -d '\r' | grep '^redis_version:' || true
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
        command -v redis-server > /dev/null || {
            say "redis-server not found: apt-get update && apt-get install -y redis-server"
            exit 1
        }
        mkdir -p "$DIR"
        rm -f "$LOG" "$DIR/dump.rdb" "$DIR/appendonly.aof"
        redis-server --bind "$HOST" --port "$PORT" --dir "$DIR" \
            --save "" --appendonly no \
            --daemonize yes --pidfile "$PIDFILE" --logfile "$LOG"
        local deadline=$((SECONDS + START_TIMEOUT))
        until pid="$(our_pid)"; do
            if [ "$SECONDS" -ge "$deadline" ]; then
                say "no pid file after ${START_TIMEOUT}s. Log ($LOG):"
                tail -n 40 "$LOG" >&2 || true
                exit 1
            fi
            sleep 0.1
        done
        say "started pid $pid in $DIR, log $LOG"
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
