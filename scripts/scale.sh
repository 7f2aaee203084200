#!/usr/bin/env bash
# Scale probe (not part of `make test`): 400k and 1.6M parcels made as the anchors make their
# 100k set (copies of the 6,273 Bellingham parcels on a grid, copy c shifted by
# (c % G) * 0.0625 deg lon and (c // G) * 0.125 deg lat; G = 8 and 16), then for each: the load
# time, resident memory against the coordinate bytes, and the latency of parcel checks.
# Usage: scripts/scale.sh [GRID...]    (default: 8 16; the 1.6M file is about 3 GB on disk)
set -euo pipefail
cd "$(dirname "$0")/.."
real="$(cd ../shared/data/real && pwd)"
src="$real/massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson"
work="${SCALE_WORK:-${TMPDIR:-/tmp}/outfall-scale}"; mkdir -p "$work"
cargo build --release -q --bin outfall-bench
for g in "${@:-8 16}"; do
  for grid in $g; do
    f="$work/parcels_${grid}x${grid}.geojson"
    if [ ! -s "$f" ]; then
      echo "== generating $f" >&2
      python3 - "$src" "$f" "$grid" <<'PY'
import json, sys
src, out, g = sys.argv[1], sys.argv[2], int(sys.argv[3])
feats = json.load(open(src))["features"]
def shift(c, dx, dy):
    if isinstance(c[0], (int, float)):
        return [c[0] + dx, c[1] + dy]
    return [shift(x, dx, dy) for x in c]
pid = 0
with open(out + ".part", "w") as w:
    w.write('{"type":"FeatureCollection","features":[\n')
    for c in range(g * g):
        dx, dy = (c % g) * 0.0625, (c // g) * 0.125
        for f in feats:
            if f.get("geometry") is None:
                continue
            pid += 1
            props = dict(f["properties"], pid=pid, copy_no=c)
            geom = {"type": f["geometry"]["type"], "coordinates": shift(f["geometry"]["coordinates"], dx, dy)}
            w.write(("" if pid == 1 else ",\n") + json.dumps({"type": "Feature", "properties": props, "geometry": geom}))
    w.write("\n]}\n")
import os; os.replace(out + ".part", out)
PY
    fi
    echo "== $f" >&2
    /usr/bin/time -v ./target/release/outfall-bench --what scale --parcels "$f" 2> "$work/time-$grid.txt"
    grep -E "Maximum resident|Elapsed" "$work/time-$grid.txt" >&2
  done
done
