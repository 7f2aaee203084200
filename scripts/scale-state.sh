#!/usr/bin/env bash
# New York State at scale (issue 24, not part of `make test`): 1.2M, 2.5M and 4.7M parcels (the
# 14x14 copies of scripts/scale.sh's generator, then whole copies of that file 10 degrees of
# longitude apart) with the Oswego basin's flowlines tiled 24 times (151,080 reaches) under
# them; for each size, scripts/start-scale.sh: prepare, start from the cache, memory, cold
# tiles, items?bbox, and 1,000 whole checks. About 25 GB of files under $SCALE_WORK.
# Usage: scripts/scale-state.sh [SIZES...]   (default: 1 2 4, in copies of the 1.2M file)
set -euo pipefail
cd "$(dirname "$0")/.."
real="$(cd ../shared/data/real && pwd)"
work="${SCALE_WORK:-${TMPDIR:-/tmp}/outfall-scale}"; mkdir -p "$work"
cargo build --release -q --bin outfall --bin outfall-bench
[ -s "$work/parcels_14x14.geojson" ] || scripts/scale.sh 14 >/dev/null
fl="$work/flowlines_24.geojson"
[ -s "$fl" ] || python3 scripts/scale-flowlines.py \
  "$real/nhdplusv2-oswego-ny/oswego_flowlines_basin_core.geojson" "$fl" >/dev/null
# The host's pace for fresh memory, which the largest start spends most on (see fresh-pages.py).
python3 scripts/fresh-pages.py 6
for k in "${@:-1 2 4}"; do
  for copies in $k; do
    case $copies in
      1) f="$work/parcels_14x14.geojson" ;;
      4) f="$work/parcels_4_7m.geojson"; limit=4700000 ;;
      *) f="$work/parcels_${copies}x.geojson"; limit=99999999 ;;
    esac
    [ -s "$f" ] || python3 scripts/scale-copies.py "$work/parcels_14x14.geojson" "$f" "$copies" "$limit" >/dev/null
    echo "== $(basename "$f")"
    FLOWLINES="$fl" scripts/start-scale.sh "$f"
  done
done
