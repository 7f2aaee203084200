#!/usr/bin/env bash
# HTTP benchmark with wrk against the real server on loopback: site reports, parcel items by
# bbox and parcel tiles at z14-16, on the demo and on a ~100k-parcel layer made by tiling the
# real Bellingham parcels (../shared/data/real). Prints requests/s and p99 per endpoint.
# Usage: scripts/bench-http.sh   (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
cargo build --release -q
bin=./target/release/outfall
work=target/bench-http; mkdir -p "$work"

run_wrk() { # name url
  local out; out=$(wrk -t2 -c16 -d8s --latency "$2" 2>&1)
  printf '%-34s %10s req/s   p99 %s\n' "$1" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")"
}

serve() { # data port
  $bin serve --data "$1" --bind "127.0.0.1:$2" --web web > "$work/server-$2.log" 2>&1 &
  echo $! > "$work/pid-$2"
  for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$2/conformance" >/dev/null && return 0; sleep 0.2; done
  echo "server on $2 did not start"; cat "$work/server-$2.log"; exit 1
}
stop() { kill "$(cat "$work/pid-$1")" 2>/dev/null || true; }
trap 'stop 18941; stop 18942' EXIT

tiles_for() { # lon lat -> prints z/y/x for z14..16
  python3 - "$1" "$2" <<'PY'
import math, sys
lon, lat = float(sys.argv[1]), float(sys.argv[2])
for z in (14, 15, 16):
    n = 2 ** z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    print(f"{z}/{y}/{x}")
PY
}

echo "== demo (data/clay)"
serve data/clay 18941
base=http://127.0.0.1:18941
run_wrk "/sites/S04/report" "$base/sites/S04/report"
run_wrk "/collections/parcels/items?bbox" "$base/collections/parcels/items?bbox=-76.19,43.155,-76.17,43.17&limit=100"
for t in $(tiles_for -76.179 43.166); do run_wrk "parcel tile $t" "$base/collections/parcels/tiles/WebMercatorQuad/$t"; done
stop 18941

src=../shared/data/real/massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson
if [ ! -f "$src" ]; then echo "SKIP: $src missing, no 100k-parcel run"; exit 0; fi
big=$work/parcels-100k
mkdir -p "$big"
if [ ! -f "$big/parcels.geojson" ]; then
  python3 - "$src" "$big/parcels.geojson" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
feats = []
for k in range(16):  # 16 x 6,273 = 100,368 parcels on a 4 x 4 grid of town copies
    dx, dy = (k % 4) * 0.07, (k // 4) * 0.13
    for f in src["features"]:
        g = f["geometry"]
        def sh(ring): return [[x + dx, y + dy] for x, y in ring]
        if g["type"] == "Polygon": coords = [sh(r) for r in g["coordinates"]]
        else: coords = [[sh(r) for r in p] for p in g["coordinates"]]
        feats.append({"type": "Feature", "properties": {"LOC_ID": f"{f['properties']['LOC_ID']}-{k}", "SITE_ADDR": f["properties"].get("SITE_ADDR")},
                      "geometry": {"type": g["type"], "coordinates": coords}})
json.dump({"type": "FeatureCollection", "features": feats}, open(sys.argv[2], "w"))
PY
  printf '[[layer]]\nrole = "parcels"\npath = "parcels.geojson"\nid_field = "LOC_ID"\nname_field = "SITE_ADDR"\n' > "$big/outfall.toml"
fi
echo "== ~100k parcels (Bellingham tiled 16x)"
start=$(date +%s.%N)
serve "$big" 18942
echo "load, index and first request: $(echo "$(date +%s.%N) - $start" | bc) s"
base=http://127.0.0.1:18942
run_wrk "/collections/parcels/items?bbox" "$base/collections/parcels/items?bbox=-71.48,42.07,-71.47,42.08&limit=100"
run_wrk "/parcels/{id}/receiving-waters" "$base/parcels/F_657586_2844182-5/receiving-waters"
for t in $(tiles_for -71.475 42.075); do run_wrk "parcel tile $t" "$base/collections/parcels/tiles/WebMercatorQuad/$t"; done
