#!/usr/bin/env bash
# Writes what every scenario prints to a folder, so that a refactor can be
# held to "nothing changes for users" with one `diff -r`:
#
#   scripts/outputs.sh /tmp/before          # on the old head
#   scripts/outputs.sh /tmp/after           # on the new one
#   diff -r /tmp/before /tmp/after
#
# For every scenario file with an `[expect]` table: `locksmith check --json`
# with `--jobs 1` and with `--jobs 2`; for every file with `[sim.expect]`:
# `locksmith sim --json`, and the sha256 of `locksmith replay` for seeds
# 0-99. Timing and memory figures (elapsed_ms, states_per_second,
# peak_memory_bytes, peak_bytes, bytes_per_state, jobs) are taken out of the
# JSON and kept beside it in `*.figures`, so that a diff shows them apart.
# Exit code: 0 when every command ran (a violated or incomplete verdict is
# an output like any other), 2 on a missing binary or folder.
#
# LOCKSMITH (default target/release/locksmith) names the binary to run;
# SEEDS (default 100) the replayed seeds per file; FILES (default
# scenarios/*.toml) the scenario files, e.g. to leave out the heavy tier's.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=${1:?usage: scripts/outputs.sh OUT_DIR}
bin=${LOCKSMITH:-target/release/locksmith}
seeds=${SEEDS:-100}
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 2; }
mkdir -p "$out/check" "$out/sim" "$out/replay"

# Splits a JSON document on stdin into the part a refactor must keep
# ($1.json) and the timing and memory figures it may change ($1.figures).
split_json() {
  python3 -c '
import json, sys
VOLATILE = {"elapsed_ms", "states_per_second", "peak_memory_bytes",
            "peak_bytes", "bytes_per_state", "jobs"}
text = sys.stdin.read()
try:
    doc = json.loads(text)
except ValueError:
    open(sys.argv[1] + ".json", "w").write(text)
    sys.exit(0)
figures = {}
def strip(v, path):
    if isinstance(v, dict):
        kept = {}
        for k, x in v.items():
            if k in VOLATILE:
                figures[path + "/" + k] = x
            else:
                kept[k] = strip(x, path + "/" + k)
        return kept
    if isinstance(v, list):
        return [strip(x, path + "/" + str(i)) for i, x in enumerate(v)]
    return v
kept = strip(doc, "")
json.dump(kept, open(sys.argv[1] + ".json", "w"), indent=1, sort_keys=True)
json.dump(figures, open(sys.argv[1] + ".figures", "w"), indent=1, sort_keys=True)
' "$1"
}

for f in ${FILES:-scenarios/*.toml}; do
  name=$(basename "$f" .toml)
  if grep -q '^\[expect\]' "$f"; then
    for jobs in 1 2; do
      "$bin" check "$f" --json --jobs "$jobs" 2>/dev/null | split_json "$out/check/$name.jobs$jobs"
      echo "exit ${PIPESTATUS[0]}" > "$out/check/$name.jobs$jobs.exit"
    done
  fi
  if grep -q '^\[sim.expect\]' "$f"; then
    "$bin" sim "$f" --json 2>/dev/null | split_json "$out/sim/$name"
    echo "exit ${PIPESTATUS[0]}" > "$out/sim/$name.exit"
    for ((s = 0; s < seeds; s++)); do
      "$bin" replay "$f" --seed "$s" 2>&1
      echo "exit $?"
    done | sha256sum | cut -d' ' -f1 > "$out/replay/$name.sha256"
  fi
  echo "$name" >&2
done
