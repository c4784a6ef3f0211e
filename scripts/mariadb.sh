#!/usr/bin/env bash
# A private MariaDB 10.11 on 127.0.0.1 for the MySQL conformance test
# (sim/tests/mysql_conformance/). Uses Debian's `mariadb-server` package:
#   apt-get update && apt-get install -y mariadb-server
# (not its system service: this script initialises its own data directory
# with mariadb-install-db and runs mariadbd itself; as root too).
#
#   scripts/mariadb.sh start    initialise if needed, start, wait until it answers
#   scripts/mariadb.sh stop     stop it by its PID and wait until it is gone
#   scripts/mariadb.sh status   say whether it runs and answers
#
# Port LOCKSMITH_MARIADB_PORT (default 3390); everything lives in
# LOCKSMITH_MARIADB_DIR (default: target/mariadb-$PORT in the repository):
# data/, mariadb.sock, mariadb.pid, mariadb.log. The server reads no option
# file (--no-defaults). `start` creates the user `locksmith`@`127.0.0.1`
# (no password, every privilege: the test kills connections and waits
# for purge) and the database `locksmith`: the test connects as
# mysql://locksmith@127.0.0.1:$PORT/locksmith. Both commands are
# idempotent: `start` on a running server and `stop` on a stopped one
# succeed.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOST=127.0.0.1
PORT="${LOCKSMITH_MARIADB_PORT:-3390}"
DIR="${LOCKSMITH_MARIADB_DIR:-$REPO/target/mariadb-$PORT}"
DATA="$DIR/data"
SOCK="$DIR/mariadb.sock"
PIDFILE="$DIR/mariadb.pid"
LOG="$DIR/mariadb.log"
START_TIMEOUT="${LOCKSMITH_MARIADB_START_TIMEOUT:-60}"

say() { echo "mariadb.sh: $*" >&2; }

# mariadbd refuses to run as root unless told to.
as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(--user=root)

client() { mariadb --no-defaults --socket="$SOCK" -uroot "$@"; }

answers() {
    timeout 5 mariadb --no-defaults --protocol=tcp -h "$HOST" -P "$PORT" -u locksmith \
        -N -e 'SELECT 1' locksmith > /dev/null 2>&1
}

version() {
    timeout 5 mariadb --no-defaults --protocol=tcp -h "$HOST" -P "$PORT" -u locksmith \
        -N -e 'SELECT VERSION()' 2>/dev/null || true
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
    else
        command -v mariadbd > /dev/null || {
            say "mariadbd not found: apt-get update && apt-get install -y mariadb-server"
            exit 1
        }
        mkdir -p "$DIR"
        if [ ! -d "$DATA/mysql" ]; then
            say "initialising $DATA"
            rm -rf "$DATA"
            mariadb-install-db --no-defaults "${as_user[@]}" --datadir="$DATA" \
                --auth-root-authentication-method=socket --skip-test-db \
                > "$DIR/install-db.log" 2>&1 || {
                say "mariadb-install-db failed; its log ($DIR/install-db.log):"
                tail -n 40 "$DIR/install-db.log" >&2
                exit 1
            }
        fi
        rm -f "$LOG" "$SOCK"
        # Small and fast: no binary log, no fsync per commit, a small pool.
        setsid mariadbd --no-defaults "${as_user[@]}" --datadir="$DATA" \
            --socket="$SOCK" --port="$PORT" --bind-address="$HOST" \
            --pid-file="$PIDFILE" --log-error="$LOG" \
            --skip-name-resolve --skip-log-bin \
            --innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=2 \
            --max-connections=64 < /dev/null > /dev/null 2>&1 &
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
        until client -e 'SELECT 1' > /dev/null 2>&1; do
            if ! kill -0 "$pid" 2>/dev/null; then
                say "server exited before answering; its log ($LOG):"
                tail -n 40 "$LOG" >&2 || true
                rm -f "$PIDFILE"
                exit 1
            fi
            if [ "$SECONDS" -ge "$deadline" ]; then
                say "no answer on $SOCK after ${START_TIMEOUT}s; stopping pid $pid"
                stop
                exit 1
            fi
            sleep 0.1
        done
        client -e "CREATE DATABASE IF NOT EXISTS locksmith;
            CREATE USER IF NOT EXISTS 'locksmith'@'127.0.0.1';
            GRANT ALL ON *.* TO 'locksmith'@'127.0.0.1';"
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
    say "answering on $HOST:$PORT: MariaDB $(version)"
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PIDFILE"
        say "not running"
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "pid $pid did not stop in 30s; killing it"
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
        say "$HOST:$PORT answers: MariaDB $(version)"
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
