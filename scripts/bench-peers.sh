#!/usr/bin/env bash
# Outfall side by side with its anchors (PostGIS, GeoPandas) on the same work and data, as
# ../shared/bench/anchors/README.md defines it. Runs are paired and alternated (anchors, then
# Outfall, ROUNDS times) because this shared machine drifts; every figure is the median over the
# rounds, and the table gives Outfall ÷ the best peer (above 1 = Outfall faster).
# Usage: scripts/bench-peers.sh            (ROUNDS=3 by default; ~6 min per round)
#        ROUNDS=1 SKIP_ANCHORS=1 scripts/bench-peers.sh   (Outfall only, against the last anchors)
# Not part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-3}"
export ANCHORS_DATA="${ANCHORS_DATA:-$(cd ../shared/data/real && pwd)}"
export ANCHORS_RUNS=1
anchors=../shared/bench/anchors
work="${ANCHORS_WORK:-${TMPDIR:-/tmp}/outfall-anchors}"
out=target/bench-peers; mkdir -p "$out"
all="$out/all.jsonl"
[ -n "${SKIP_ANCHORS:-}" ] || : > "$all"
cargo build --release -q --bin outfall-bench
for r in $(seq 1 "$ROUNDS"); do
  if [ -z "${SKIP_ANCHORS:-}" ]; then
    echo "== round $r: anchors (PostGIS, GeoPandas)" >&2
    bash "$anchors/run.sh" > "$out/anchors-$r.md"
    # run.sh numbers its own runs from 1: renumber to this round.
    python3 -c 'import json,sys
r=int(sys.argv[1])
for l in open(sys.argv[2]):
    if l.strip(): d=json.loads(l); d["run"]=r; print(json.dumps(d))' "$r" "$work/results/results.jsonl" >> "$all"
  fi
  echo "== round $r: Outfall (in-process, outfall-bench)" >&2
  # Memory is measured in a fresh process that loads first; site and tiles in another.
  ./target/release/outfall-bench --gen "$work/data" --real "$ANCHORS_DATA" --what load --run "$r" >> "$all"
  ./target/release/outfall-bench --gen "$work/data" --real "$ANCHORS_DATA" --what site,tiles --run "$r" >> "$all"
done
python3 scripts/bench_table.py "$all" | tee "$out/table.md"
