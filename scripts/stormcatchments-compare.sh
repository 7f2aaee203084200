#!/usr/bin/env bash
# Side by side with the reference, stormcatchments 0.4.1 (pip), on the Johnson, VT data
# (../shared/data/real/stormcatchments/johnson_vt): the surface catchment and the
# network-aware catchment of the pour point of the reference's own tests (484636, 237170 in
# EPSG:6589), their areas and ratio, the upstream point and line sets of every source point,
# each inlet's outlet, and the time of each. Not part of `make test`: it needs the network
# for pip and takes a minute. Usage: scripts/stormcatchments-compare.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DATA="${JOHNSON_DIR:-$ROOT/../shared/data/real/stormcatchments/johnson_vt}"
VENV="${SC_VENV:-/tmp/sc-venv}"
OUT="$(mktemp -d /tmp/sc-compare.XXXXXX)"
[ -f "$DATA/dem.tif" ] || { echo "no Johnson data at $DATA" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import stormcatchments' 2>/dev/null; then
  python3 -m venv "$VENV"
  # pysheds 0.5 calls np.in1d, which numpy 2.4 removed.
  "$VENV/bin/pip" install -q stormcatchments==0.4.1 "numpy<2.4"
fi

echo "== stormcatchments 0.4.1 (pysheds $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("pysheds"))'))"
"$VENV/bin/python" - "$DATA" "$OUT/reference.json" <<'PY'
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import geopandas as gpd, networkx as nx
from pyproj import Transformer
from stormcatchments import network, delineate, terrain
from stormcatchments.constants import SINK_TYPES_VT, SOURCE_TYPES_VT
data, out = sys.argv[1], sys.argv[2]
POUR = (484636, 237170)
t0 = time.perf_counter()
lines = gpd.read_file(f"{data}/storm_lines.shp").set_index("OBJECTID")
pts = gpd.read_file(f"{data}/storm_pts.shp").set_index("OBJECTID")
net = network.Network(lines, pts, type_column="Type", sink_types=SINK_TYPES_VT, source_types=SOURCE_TYPES_VT)
net.resolve_directions()
t1 = time.perf_counter()
grid, fdir, acc = terrain.preprocess_dem(f"{data}/dem.tif")
t2 = time.perf_counter()
d = delineate.Delineate(net, grid, fdir, acc, 6589)
surface = d.get_catchment(POUR)
t3 = time.perf_counter()
storm = d.get_stormcatchment(POUR)
t4 = time.perf_counter()
def pts_at(nodes):
    ids = set()
    for x, y in nodes:
        hit = net.pts.cx[x, y]
        ids.update(int(i) for i in hit.index)
    return sorted(ids)
upstream = {}
for pt in net.pts[net.pts["IS_SOURCE"]].itertuples():
    xy = (pt.geometry.x, pt.geometry.y)
    if xy not in net.G:
        upstream[int(pt.Index)] = None
        continue
    tree = nx.bfs_tree(net.G, xy, reverse=True)
    segs = net.segments
    src = sorted({int(s) for s, g in zip(segs["src_index"], segs.geometry)
                  if (g.coords[0] in tree.nodes and g.coords[1] in tree.nodes)})
    upstream[int(pt.Index)] = {"points": pts_at(tree.nodes), "lines": src}
outlets = {}
for i in net.pts[net.pts["IS_SINK"]].index:
    try:
        o = net.get_outlet(i)
    except ValueError:
        o = None
    outlets[int(i)] = None if o is None else int(o)
lonlat = Transformer.from_crs(6589, 4326, always_xy=True).transform(*POUR)
json.dump({
    "pour_lonlat": lonlat,
    "surface_m2": float(surface.area.sum()), "network_m2": float(storm.area.sum()),
    "t_network_s": t1 - t0, "t_dem_s": t2 - t1, "t_surface_s": t3 - t2, "t_network_catchment_s": t4 - t3,
    "t_total_s": t4 - t0, "upstream": upstream, "outlets": outlets,
}, open(out, "w"))
PY

echo "== Outfall"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/outfall"
(cd "$ROOT" && cargo build --release --quiet --bin outfall)
layers() {
cat <<TOML
allow_outside_paths = true
[[layer]]
role = "storm_pipes"
path = "$DATA/storm_lines.shp"
id_field = "OBJECTID"
[layer.storm]
vertex_order = true
snap_m = 0.01
[[layer]]
role = "storm_structures"
path = "$DATA/storm_pts.shp"
id_field = "OBJECTID"
[layer.storm]
type_field = "Type"
type_values = { "2" = "inlet", "8" = "culvert_inlet", "5" = "outfall", "9" = "culvert_outlet" }
TOML
}
mkdir -p "$OUT/net" "$OUT/dem"
layers > "$OUT/net/outfall.toml"
{ layers; printf '[[layer]]\nrole = "dem"\npath = "%s/dem.tif"\n' "$DATA"; } > "$OUT/dem/outfall.toml"
POINT="$("$VENV/bin/python" -c "import json; p=json.load(open('$OUT/reference.json'))['pour_lonlat']; print(f'{p[0]:.10f},{p[1]:.10f}')")"
T0=$(date +%s.%N)
"$BIN" sewer --data "$OUT/dem" --point="$POINT" --json > "$OUT/outfall.json"
T1=$(date +%s.%N)
echo "$T0 $T1" > "$OUT/outfall.time"
for id in $("$VENV/bin/python" -c "import json; print(' '.join(json.load(open('$OUT/reference.json'))['upstream']))"); do
  "$BIN" sewer --data "$OUT/net" --outfall "$id" --json > "$OUT/up-$id.json" 2>/dev/null || echo '{}' > "$OUT/up-$id.json"
done

"$VENV/bin/python" - "$OUT" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
ref = json.load(open(f"{out}/reference.json"))
us = json.load(open(f"{out}/outfall.json"))["sewershed"]
t0, t1 = map(float, open(f"{out}/outfall.time").read().split())
surf = us["surface"]["area_m2"]; netw = us["network"]["area_m2"]
print(f"pour point (EPSG:6589) 484636, 237170 = lon/lat {ref['pour_lonlat'][0]:.7f}, {ref['pour_lonlat'][1]:.7f}")
print(f"{'':28}{'stormcatchments':>18}{'Outfall':>12}{'ratio':>9}")
print(f"{'surface catchment m2':28}{ref['surface_m2']:18.1f}{surf:12.1f}{surf/ref['surface_m2']:9.4f}")
print(f"{'network-aware catchment m2':28}{ref['network_m2']:18.1f}{netw:12.1f}{netw/ref['network_m2']:9.4f}")
print(f"Outfall added (piped in): {[i['id'] for i in us['added']]}; removed (piped elsewhere): {[i['id'] for i in us['removed']]}")
tot = t1 - t0
print(f"time, stormcatchments: read network {ref['t_network_s']:.2f} s, DEM conditioning {ref['t_dem_s']:.2f} s, "
      f"surface catchment {ref['t_surface_s']:.2f} s, network catchment {ref['t_network_catchment_s']:.2f} s, total {ref['t_total_s']:.2f} s (imports excluded)")
print(f"time, Outfall: the whole `outfall sewer --point --json` process (load, DEM read + conditioning, both catchments, GeoJSON) {tot:.2f} s")
print(f"speed-up, total: {ref['t_total_s']/tot:.1f}x")
print("upstream sets of each source point (reference vs Outfall; points are OBJECTIDs, lines OBJECTIDs):")
for sid, r in sorted(ref["upstream"].items(), key=lambda kv: int(kv[0])):
    o = json.load(open(f"{out}/up-{sid}.json"))
    op = sorted(int(s["id"]) for s in o.get("structures", []))
    ol = sorted({int(p["id"]) for p in o.get("pipes", [])})
    rp = None if r is None else r["points"]; rl = None if r is None else r["lines"]
    same = "same" if (rp == op and rl == ol) else "DIFFERENT"
    print(f"  {sid}: {same}; points ref {rp} / outfall {op}; lines ref {rl} / outfall {ol}")
print("each inlet's outlet (reference get_outlet vs Outfall's upstream sets):")
for sink, outlet in sorted(ref["outlets"].items(), key=lambda kv: int(kv[0])):
    mine = sorted(int(s) for s in ref["upstream"] if any(int(x["id"]) == int(sink) for x in json.load(open(f"{out}/up-{s}.json")).get("structures", [])))
    print(f"  inlet {sink}: reference {outlet}, Outfall {mine or None}")
PY
echo "(files in $OUT)"
