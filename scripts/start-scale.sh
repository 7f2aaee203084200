#!/usr/bin/env bash
# Start-from-cache probe (not part of `make test`): for a large parcels GeoJSON (made by
# scripts/scale.sh's generator), `outfall prepare` once, then `outfall serve` from the cache:
# the time until it listens, its steady resident memory and its peak (VmHWM) with their
# ratio, the cold parcels tile at z12, z14 and z16 over the densest part, and one
# `items?bbox` page of that z14 tile. Prints one line per figure.
# With FLOWLINES=FILE (NHDPlusV2 flowlines with COMID, Hydroseq and DnHydroseq, such as the
# Oswego basin tiled by scripts/scale-flowlines.py), the network is loaded too, and
# `outfall-bench --what scale --data DIR` checks 1,000 parcels from the cache in-process: the
# median and p99 of one whole check each, traced down that network.
# Usage: scripts/start-scale.sh PARCELS.geojson [PORT]   (env BIN: the outfall binary)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
PORT="${2:-18460}"
BIN="${BIN:-./target/release/outfall}"
DIR="$(dirname "$SRC")/data-$(basename "$SRC" .geojson)"
mkdir -p "$DIR"
cat >"$DIR/outfall.toml" <<EOF
allow_outside_paths = true
[[layer]]
role = "parcels"
path = "$SRC"
id_field = "pid"
EOF
if [ -n "${FLOWLINES:-}" ]; then
  cat >>"$DIR/outfall.toml" <<EOF
[[layer]]
role = "flowlines"
path = "$(cd "$(dirname "$FLOWLINES")" && pwd)/$(basename "$FLOWLINES")"
id_field = "COMID"
name_field = "GNIS_NAME"
EOF
fi
if ! ls "$DIR/.prepared/"*.fgb >/dev/null 2>&1; then
  s=$(date +%s.%N)
  "$BIN" prepare --data "$DIR" >/dev/null
  echo "prepare_s $(echo "$(date +%s.%N) - $s" | bc)"
fi
echo "cache_bytes $(du -cb "$DIR/.prepared/"*.fgb | tail -1 | cut -f1)"
sync
rm -f "$DIR/serve.log"
s=$(date +%s.%N)
"$BIN" serve --data "$DIR" --registry none --bind "127.0.0.1:$PORT" --web web >"$DIR/serve.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
until grep -q "is serving" "$DIR/serve.log" 2>/dev/null; do
  kill -0 $PID 2>/dev/null || { cat "$DIR/serve.log" >&2; exit 1; }
  sleep 0.05
done
echo "start_from_cache_s $(echo "$(date +%s.%N) - $s" | bc)"
sleep 2
steady=$(awk '/VmRSS/ {print $2}' /proc/$PID/status)
peak=$(awk '/VmHWM/ {print $2}' /proc/$PID/status)
echo "steady_rss_mib $((steady / 1024))"
echo "peak_rss_mib $((peak / 1024))"
echo "peak_over_steady $(echo "scale=2; $peak / $steady" | bc)"
# The copies of one town are alike: the first copy's centre is as dense as any place.
LON=-71.47 LAT=42.09
for z in 12 14 16; do
  read -r y x < <(python3 -c "import math;z=$z;n=2**z;la=math.radians($LAT);print(int((1-math.log(math.tan(la)+1/math.cos(la))/math.pi)/2*n), int(($LON+180)/360*n))")
  t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/collections/parcels/tiles/WebMercatorQuad/$z/$y/$x")
  echo "cold_tile_z${z}_ms $(echo "$t * 1000" | bc)"
  if [ "$z" = 14 ]; then
    bbox=$(python3 -c "import math;n=2**14;x,y=$x,$y
lon=lambda x:x/n*360-180
lat=lambda y:math.degrees(math.atan(math.sinh(math.pi*(1-2*y/n))))
print(f'{lon(x)},{lat(y+1)},{lon(x+1)},{lat(y)}')")
    t=$(curl -s -o "$DIR/items.json" -w '%{time_total}' "http://127.0.0.1:$PORT/collections/parcels/items?bbox=$bbox&limit=1000")
    echo "items_bbox_z14_ms $(echo "$t * 1000" | bc) ($(python3 -c "import json;print(len(json.load(open('$DIR/items.json'))['features']))") features)"
  fi
done
if [ -n "${FLOWLINES:-}" ]; then
  kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true
  BENCH="$(dirname "$BIN")/outfall-bench"
  "$BENCH" --what scale --data "$DIR" | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l); print(d["item"] + "_" + d["metric"], d["value"])'
fi
