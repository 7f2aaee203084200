#!/usr/bin/env bash
# Durability of the GeoPackage registry: a burst of acknowledged writes (4 writers, each
# recording rainfall and inspections), `kill -9` of the server in the middle of it, a restart,
# then: every write that was answered 201 is there, and `PRAGMA integrity_check` is ok.
# Usage: scripts/durability.sh [RUNS] [PORT]   (default 20 runs on port 18971)
# Needs target/release/outfall (cargo build --release), curl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-20}"
PORT="${2:-18971}"
BIN=target/release/outfall
URL="http://127.0.0.1:$PORT"
WORK="$(mktemp -d /tmp/outfall-durability.XXXXXX)"
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill -9 "$SERVER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

start() {
  "$BIN" serve --data "$WORK/data" --bind "127.0.0.1:$PORT" --web web >>"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 200); do
    curl -sf "$URL/sites" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "server did not start; log:" >&2
  cat "$WORK/server.log" >&2
  exit 1
}

# One writer: distinct dates (rainfall) and findings (inspections), each logged when acknowledged.
writer() {
  local w=$1 i=0 day
  while :; do
    i=$((i + 1))
    day=$(date -u -d "2020-01-01 + $((w * 2000 + i)) days" +%F)
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/rainfall" \
      -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
      -d "{\"date\":\"$day\",\"rain_in\":0.$((i % 10))1,\"source\":\"durability-$w\"}") || return 0
    [ "$code" = 201 ] && echo "rain $day durability-$w" >>"$WORK/acked.$w"
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/sites/S01/inspections" \
      -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
      -d "{\"date\":\"2026-06-01\",\"findings\":\"burst $w-$i\"}") || return 0
    [ "$code" = 201 ] && echo "insp burst $w-$i" >>"$WORK/acked.$w"
    [ "$code" = 000 ] && return 0
  done
}

total=0
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/data" "$WORK"/acked.*
  mkdir -p "$WORK/data"
  cp data/clay/* "$WORK/data/" 2>/dev/null || true
  rm -f "$WORK/data"/registry.gpkg*
  TOKEN=$("$BIN" token create --data "$WORK/data" --role officer --name durability 2>/dev/null)
  start
  for w in 1 2 3 4; do writer "$w" & done
  sleep "$(python3 -c 'import random; print(round(random.uniform(1.0, 3.0), 2))')"
  kill -9 "$SERVER"
  wait "$SERVER" 2>/dev/null || true
  wait
  SERVER=""
  acked=$(cat "$WORK"/acked.* 2>/dev/null | wc -l)
  total=$((total + acked))
  # Restart on the crashed file (SQLite recovers the WAL), then check through the API and
  # directly in the file.
  start
  curl -sf "$URL/rainfall" >"$WORK/rain.json"
  # The logbook is paged: read it whole, following the `next` links.
  python3 - "$URL" "$WORK/insp.json" <<'PY'
import json, sys, urllib.request
url, out = sys.argv[1], sys.argv[2]
page, rows = f"{url}/sites/S01/inspections?limit=1000", []
while page:
    doc = json.load(urllib.request.urlopen(page))
    rows += doc["inspections"]
    page = next((l["href"] for l in doc.get("links", []) if l["rel"] == "next"), None)
json.dump({"inspections": rows}, open(out, "w"))
PY
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
  python3 - "$WORK" <<'PY'
import glob, json, sqlite3, sys
work = sys.argv[1]
rain = {(d["date"], d["source"]) for d in json.load(open(f"{work}/rain.json"))["rainfall"]}
insp = {i["findings"] for i in json.load(open(f"{work}/insp.json"))["inspections"]}
lost = []
for f in glob.glob(f"{work}/acked.*"):
    for line in open(f):
        kind, a, b = line.split()
        if kind == "rain" and (a, b) not in rain:
            lost.append(line.strip())
        if kind == "insp" and f"{a} {b}" not in insp:
            lost.append(line.strip())
db = sqlite3.connect(f"{work}/data/registry.gpkg")
check = db.execute("PRAGMA integrity_check").fetchone()[0]
if lost or check != "ok":
    print(f"FAIL: {len(lost)} acknowledged writes lost {lost[:5]}; integrity_check: {check}")
    sys.exit(1)
PY
  echo "run $run: $acked acknowledged writes before kill -9; all present; integrity ok"
done
echo "durability: $RUNS runs, $total acknowledged writes, none lost"
