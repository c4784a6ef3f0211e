#!/usr/bin/env bash
# Every violated Curator and kazoo checker scenario's shortest trace,
# re-enacted on the unmodified Curator 5.4.0 or kazoo 2.11 by `locksmith
# serve --trace` (docs/serve.md has the table this prints). One run each; a
# holder holds 12 s (longer than a trace that waits for Curator's own
# clock); about 10 minutes. Needs what scripts/ci-serve.sh installs.
# Optional arguments: scenario files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build -q --release --bin locksmith
if [ "$#" -gt 0 ]; then
    files=("$@")
else
    # The checker scenarios ([expect]) whose verdict is a violation.
    mapfile -t files < <(python3 - <<'PY'
import glob, tomllib
for f in sorted(glob.glob("scenarios/curator*.toml") + glob.glob("scenarios/kazoo-lock*.toml")):
    if tomllib.load(open(f, "rb")).get("expect", {}).get("verdict") == "violated":
        print(f)
PY
)
fi
printf '| scenario | property | steps | re-enactment | real library |\n|---|---|---|---|---|\n'
for f in "${files[@]}"; do
    # A timed acquire's deadline passes at the checker's choice, first
    # thing in its trace: the real client's maxWait is 1 ms, so that it has
    # run out whenever Curator looks.
    # A connection timeout is Curator's own clock running out while the
    # server refuses its reconnects: a 1 s one, under a 10 s session
    # timeout, so that it runs out three times before Curator gives the
    # session up (15 s and 4 s otherwise).
    read -r clients rounds max_wait session_ms connection_ms < <(python3 - "$f" <<'PY'
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
slow = d.get("faults", {}).get("connection_timeouts", 0) > 0
print(d.get("clients", 2), d.get("acquisitions", 1), 1 if "acquire_timeout_ms" in d else 30000,
      10000 if slow else 4000, 1000 if slow else 15000)
PY
)
    out="$(mktemp)"
    target/release/locksmith serve --port 2293 --events-port 2294 --seconds 150 \
        --session-timeout-ms "$session_ms" --clients "$clients" --trace "$f" --json \
        > "$out" 2> /dev/null &
    pid=$!
    # The trace is explored before the port opens.
    for _ in $(seq 1 600); do
        (exec 3<> /dev/tcp/127.0.0.1/2293) 2> /dev/null && break
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2> /dev/null; then
        common=(--zk 127.0.0.1:2293 --events 127.0.0.1:2294 --clients "$clients"
            --rounds "$rounds" --hold-ms 12000 --path /locks)
        case "$(basename "$f")" in
            kazoo-lock*)
                timeout 150 python3 clients/kazoo/lock.py "${common[@]}" > /dev/null 2>&1 || true ;;
            *)
                timeout 150 java -cp /usr/share/java/curator-recipes.jar:/usr/share/java/slf4j-nop.jar \
                    clients/curator/LockClient.java "${common[@]}" --max-wait-ms "$max_wait" \
                    --connection-timeout-ms "$connection_ms" \
                    > /dev/null 2>&1 || true ;;
        esac
    fi
    wait "$pid" || true
    python3 - "$f" "$out" <<'PY'
import json, sys
name = sys.argv[1].split("/")[-1]
try:
    d = json.load(open(sys.argv[2]))
except Exception:
    print(f"| {name} | | | serve refused it | |")
    sys.exit(0)
t = d.get("trace") or {}
o = t.get("outcome")
if o == "followed":
    how = f"followed to the end"
elif o == "diverged":
    how = f"diverged at step {t['step']}: expected {t['expected']}; {t['actual']}"
elif o == "unserved":
    how = f"stopped at step {t['step']}: not served: {t['action']}"
else:
    how = "not finished"
v = d["verdict"]
props = ", ".join(x["property"] for x in d["violations"])
real = f"{v}" + (f" ({props})" if props else "")
print(f"| {name} | {t.get('property','')} | {t.get('steps','')} | {how} | {real} |")
PY
    rm -f "$out"
done
