#!/usr/bin/env bash
# Writes every output the site record reaches into DIR, so two commits' answers can be
# compared with `diff -r` (only a "generated" date may differ when the day rolls over):
# - the library's reports (outfall-bench --what reports: the demo's sites, parcels and 150
#   Clay points, and the anchors' 1,000 sites when their data is generated);
# - from the CLI on the demo's files: the text report of each site (`outfall check --site`),
#   and the batch CSV and JSON of the demo's ids and of a GeoJSON batch of drawn records
#   (tests/fixtures/batch_records.geojson: every old and new column, good and bad values);
# - from the served demo (a fresh registry): each site's JSON and HTML report, `/sites`,
#   `/sites/{id}`, `/sites/{id}/export.geojson`, and the sites and disturbance items.
# Usage: scripts/report-snapshot.sh DIR   (after cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/report-snapshot.sh DIR}
mkdir -p "$out/served" "$out/cli"
gen="${ANCHORS_WORK:-${TMPDIR:-/tmp}/outfall-anchors}/data"
[ -d "$gen" ] || gen=.
./target/release/outfall-bench --what reports --out "$out" --gen "$gen" --real ../shared/data/real
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT

# The CLI reads the demo's files (no registry), the edge a town's own files take.
check() { ./target/release/outfall check --data data/clay --registry none "$@"; }
ids=$(python3 -c 'import json; print(" ".join(f["properties"]["site_id"] for f in json.load(open("data/clay/sites.geojson"))["features"]))')
for id in $ids; do
  check --site "$id" > "$out/cli/$id.txt"
done
{ echo id; for id in $ids; do echo "$id"; done; echo 020.-01-07.0; echo 041.-01-08.0; echo NOT-A-SITE; } > "$tmp/ids.csv"
check --batch "$tmp/ids.csv" --out "$out/cli/batch-ids.csv"
check --batch "$tmp/ids.csv" --format json --out "$out/cli/batch-ids.json"
check --batch tests/fixtures/batch_records.geojson --out "$out/cli/batch-records.csv"
check --batch tests/fixtures/batch_records.geojson --format json --out "$out/cli/batch-records.json"

cp -r data/clay "$tmp/clay"
rm -f "$tmp/clay/registry.gpkg"*
port=$((20000 + RANDOM % 10000))
./target/release/outfall serve --data "$tmp/clay" --bind "127.0.0.1:$port" --web web --public-url http://outfall.test >"$tmp/log" 2>&1 &
pid=$!
url="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -fs "$url/healthz" >/dev/null && break; sleep 0.2; done
# An items page says when it was written; that instant is not the record's.
get() { curl -fs "$url$1" | sed -E 's/"timeStamp":"[^"]*"/"timeStamp":"-"/'; }
get /sites > "$out/served/sites.json"
for id in $(python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(s["id"] for s in d["sites"]))' < "$out/served/sites.json"); do
  get "/sites/$id/report" > "$out/served/$id.json"
  get "/sites/$id/report.html" > "$out/served/$id.html"
  get "/sites/$id" > "$out/served/$id.site.json"
  get "/sites/$id/export.geojson" > "$out/served/$id.export.geojson"
done
get "/collections/sites/items?limit=1000" > "$out/served/sites.items.json"
get "/collections/disturbance/items?limit=1000" > "$out/served/disturbance.items.json"
echo "wrote $(find "$out" -type f | wc -l) files to $out"
