#!/usr/bin/env bash
# The sim-vs-real cost table of docs/real.md ("Calibration"): herd-children at
# 5, 10 and 20 clients and predecessor at 5 and 20, no think and no hold.
#
#   scripts/calibration.sh HOST:PORT [RUNS]
#
# Runs `locksmith real` RUNS times per row (default 5, 3 s each, seeds 1..RUNS)
# against the server, and `locksmith sim` (20 seeds x 20 acquisitions, the
# same workload: no think, no hold, no resource round trip) on
# scenarios/calibration/RECIPE-uncalibrated.toml and RECIPE.toml (the
# committed profile scenarios/profiles/zookeeper-3.8.toml), then
# prints notifications and packets per contended acquisition: the real mean
# with its range over the runs, and each simulation with its distance from
# the real mean. Needs python3 for the summary. About 90 s on 2 cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ZK="${1:?usage: scripts/calibration.sh HOST:PORT [RUNS]}"
RUNS="${2:-5}"
BIN="${LOCKSMITH_BIN:-target/debug/locksmith}"
[ -x "$BIN" ] || cargo build -p locksmith
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

for row in "herd-children 5" "herd-children 10" "herd-children 20" "predecessor 5" "predecessor 20"; do
    set -- $row
    for run in $(seq 1 "$RUNS"); do
        "$BIN" real "scenarios/$1.toml" --zk "$ZK" --clients "$2" --seconds 3 --seed "$run" --json \
            > "$OUT/real-$1-$2-$run.json"
    done
    for profile in none zookeeper-3.8; do
        scenario="scenarios/calibration/$1.toml"
        [ "$profile" = none ] && scenario="scenarios/calibration/$1-uncalibrated.toml"
        # Exit 1: the herd recipe violates herd, as it must.
        "$BIN" sim "$scenario" --clients "$2" --keep-going --json \
            > "$OUT/sim-$profile-$1-$2.json" || [ $? -eq 1 ]
    done
done

python3 - "$OUT" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
def per_contended(path):
    m = json.load(open(path))["metrics"]
    c = m["contended_acquisitions"]
    return m["notifications"] / c, (m["requests"] + m["replies"] + m["notifications"]) / c
print("| recipe | clients | real notifications (range) | sim before | sim calibrated | real packets (range) | sim before | sim calibrated |")
print("|---|---|---|---|---|---|---|---|")
for recipe, n in [("herd-children", 5), ("herd-children", 10), ("herd-children", 20), ("predecessor", 5), ("predecessor", 20)]:
    real = [per_contended(f) for f in sorted(glob.glob(f"{out}/real-{recipe}-{n}-*.json"))]
    sims = [per_contended(f"{out}/sim-{p}-{recipe}-{n}.json") for p in ("none", "zookeeper-3.8")]
    cells = []
    for i in (0, 1):
        xs = [r[i] for r in real]
        mean = statistics.mean(xs)
        cells.append(f"{mean:.2f} ({min(xs):.2f}–{max(xs):.2f})")
        for s in sims:
            cells.append(f"{s[i]:.2f} ({100 * (s[i] - mean) / mean:+.0f}%)")
    print(f"| {recipe} | {n} | " + " | ".join(cells) + " |")
PY
