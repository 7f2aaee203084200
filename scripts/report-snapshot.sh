#!/usr/bin/env bash
# Writes every report a refactor must leave byte for byte the same into DIR, so two commits'
# answers can be compared with `diff -r`: the library's reports (outfall-bench --what reports:
# the demo's sites, parcels and 150 Clay points, and the anchors' 1,000 sites when their data
# is generated), and the served demo's site reports (JSON and HTML) from a fresh registry.
# Usage: scripts/report-snapshot.sh DIR   (after cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/report-snapshot.sh DIR}
mkdir -p "$out/served"
gen="${ANCHORS_WORK:-${TMPDIR:-/tmp}/outfall-anchors}/data"
[ -d "$gen" ] || gen=.
./target/release/outfall-bench --what reports --out "$out" --gen "$gen" --real ../shared/data/real
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
cp -r data/clay "$tmp/clay"
rm -f "$tmp/clay/registry.gpkg"*
port=$((20000 + RANDOM % 10000))
./target/release/outfall serve --data "$tmp/clay" --bind "127.0.0.1:$port" --web web --public-url http://outfall.test >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
for id in $(curl -fs "http://127.0.0.1:$port/sites" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(f["id"] if "id" in f else f["properties"]["site_id"] for f in (d["features"] if "features" in d else d["sites"])))'); do
  curl -fs "http://127.0.0.1:$port/sites/$id/report" > "$out/served/$id.json"
  curl -fs "http://127.0.0.1:$port/sites/$id/report.html" > "$out/served/$id.html"
done
echo "wrote $(ls "$out" "$out/served" | wc -l) files to $out"
