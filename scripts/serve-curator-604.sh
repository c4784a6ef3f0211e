#!/usr/bin/env bash
# CURATOR-604 on the unmodified Curator 5.4.0, N times (default 5): how
# many runs showed two holders (docs/serve.md quotes the figure). Each run
# is `locksmith serve` with a parked waiter muted (timeout 6 s) and two
# Curator clients holding 10.6 s; about 35 s a run. Needs what
# scripts/ci-serve.sh installs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-5}"
cargo build -q --release --bin locksmith
violated=0
for i in $(seq 1 "$runs"); do
    out="$(mktemp)"
    target/release/locksmith serve --port 2291 --events-port 2292 --seconds 120 --clients 2 \
        --session-timeout-ms 6000 --fault mute:waiter@300+20000 --json > "$out" 2> /dev/null &
    pid=$!
    sleep 1
    java -cp /usr/share/java/curator-recipes.jar:/usr/share/java/slf4j-nop.jar \
        clients/curator/LockClient.java --zk 127.0.0.1:2291 --events 127.0.0.1:2292 \
        --clients 2 --rounds 2 --hold-ms 10600 > /dev/null 2>&1
    wait "$pid" || true
    verdict="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out")"
    echo "run $i: $verdict"
    [ "$verdict" = violated ] && violated=$((violated + 1))
    rm -f "$out"
done
echo "CURATOR-604 on Curator 5.4.0: two holders in $violated of $runs runs"
