#!/usr/bin/env bash
# Side by side with the reference, stormcatchments 0.4.1 (pip), on the Johnson, VT data
# (../shared/data/real/stormcatchments/johnson_vt): the surface catchment and the
# network-aware catchment of the pour point of the reference's own tests (484636, 237170 in
# EPSG:6589), their areas and ratio, cell by cell with every differing cell given its
# cause, the same on the reference's own D8 directions (so that only the network logic
# differs), the upstream point and line sets of every source point, each inlet's outlet,
# and the time of each. Not part of `make test`: it needs the network for pip and takes a
# few minutes. Usage: scripts/stormcatchments-compare.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DATA="${JOHNSON_DIR:-$ROOT/../shared/data/real/stormcatchments/johnson_vt}"
VENV="${SC_VENV:-/tmp/sc-venv}"
OUT="$(mktemp -d /tmp/sc-compare.XXXXXX)"
[ -f "$DATA/dem.tif" ] || { echo "no Johnson data at $DATA" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import stormcatchments, rasterio' 2>/dev/null; then
  python3 -m venv "$VENV"
  # pysheds 0.5 calls np.in1d, which numpy 2.4 removed.
  "$VENV/bin/pip" install -q stormcatchments==0.4.1 "numpy<2.4" rasterio
fi

echo "== stormcatchments 0.4.1 (pysheds $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("pysheds"))'))"
# The reference as its tests run it, with its loop logged (which points each round's
# outlet and inlet searches return, and which it delineates), its cell sets written as
# masks (its polygons rasterised: they follow cell edges, so a cell is in when its centre
# is), its D8 grid and accumulation, and the catchment of every structure it could use.
"$VENV/bin/python" - "$DATA" "$OUT" <<'PY'
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np, geopandas as gpd, networkx as nx
from rasterio.features import rasterize
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
log = []
def logged(name, f):
    def g(*a):
        r = f(*a)
        log.append({"step": name, "points": sorted({int(i) for i in r.index})})
        return r
    return g
net.get_outlet_points = logged("outlet points (removed)", net.get_outlet_points)
net.get_inlet_points = logged("inlet points (added)", net.get_inlet_points)
plain_delineate = d.delineate_points
def delineate_logged(p, done):
    before = set(done)
    r = plain_delineate(p, done)
    log.append({"step": "delineated", "points": sorted(int(i) for i in set(done) - before)})
    return r
d.delineate_points = delineate_logged
storm = d.get_stormcatchment(POUR)
t4 = time.perf_counter()

def mask_of(gdf):
    polys = [g for g in gdf.geometry.explode(index_parts=False) if g.geom_type == "Polygon"]
    return rasterize([(g, 1) for g in polys], out_shape=grid.shape, transform=grid.affine,
                     fill=0, dtype="uint8").astype(bool)
def catchment_of(xy):
    sx, sy = grid.snap_to_mask(acc > 1000, xy)
    col, row = ~grid.affine * (sx, sy)
    c = np.asarray(grid.catchment(x=sx, y=sy, fdir=fdir)).astype(bool)
    return int(round(row)) * grid.shape[1] + int(round(col)), c
snap_cell, surf_direct = catchment_of(POUR)
np.save(f"{out}/ref_surface.npy", mask_of(surface))
np.save(f"{out}/ref_surface_direct.npy", surf_direct)
np.save(f"{out}/ref_network.npy", mask_of(storm))
np.save(f"{out}/ref_fdir.npy", np.asarray(fdir).astype(np.int16))
np.save(f"{out}/ref_acc.npy", np.asarray(acc))
f = np.asarray(fdir)
np.where(f > 0, f, 0).astype(np.uint8).tofile(f"{out}/ref_fdir.u8")
point_cells, point_snap = {}, {}
for p in net.pts.itertuples():
    cell, m = catchment_of((p.geometry.x, p.geometry.y))
    point_snap[int(p.Index)] = cell
    point_cells[str(int(p.Index))] = np.flatnonzero(m.ravel()).astype(np.int64)
np.savez(f"{out}/ref_points.npz", **point_cells)

def pts_at(nodes):
    ids = set()
    for x, y in nodes:
        ids.update(int(i) for i in net.pts.cx[x, y].index)
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
    "pour_lonlat": lonlat, "shape": list(grid.shape), "affine": list(grid.affine)[:6],
    "snap_cell": snap_cell, "point_snap": point_snap,
    "types": {int(i): int(t) for i, t in net.pts["Type"].items()},
    "surface_m2": float(surface.area.sum()), "network_m2": float(storm.area.sum()),
    "t_network_s": t1 - t0, "t_dem_s": t2 - t1, "t_surface_s": t3 - t2, "t_network_catchment_s": t4 - t3,
    "t_total_s": t4 - t0, "upstream": upstream, "outlets": outlets, "log": log,
}, open(f"{out}/reference.json", "w"))
PY

echo "== Outfall"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/outfall"
EXAMPLE="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/sewershed_on_d8"
(cd "$ROOT" && cargo build --release --quiet --bin outfall && cargo build --release --quiet -p outfall-core --example sewershed_on_d8)
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
# Outfall's catchment logic on its own directions and on pysheds' (the reference's D8 grid,
# pits and flats as no direction), and its own D8 grid for the causes below.
"$EXAMPLE" "$OUT/dem" 484636 237170 "$OUT/ref_fdir.u8" "$OUT/outfall_fdir.u8" > "$OUT/on_d8.json"
for id in $("$VENV/bin/python" -c "import json; print(' '.join(json.load(open('$OUT/reference.json'))['upstream']))"); do
  "$BIN" sewer --data "$OUT/net" --outfall "$id" --json > "$OUT/up-$id.json" 2>/dev/null || echo '{}' > "$OUT/up-$id.json"
done

# Cell by cell. Outfall's cells are its GeoJSON polygons rasterised back onto the grid
# (checked against the cells it counts); each cell where the two network-aware catchments
# differ is put down to the directions (Outfall's own against Outfall's on pysheds' grid:
# those cells are the same on both logics once the directions agree) or to the network
# logic (Outfall's on pysheds' grid against the reference: same directions), and within
# each to its cause.
"$VENV/bin/python" - "$OUT" <<'PY'
import json, sys
from collections import Counter
import numpy as np
from pyproj import Transformer
from rasterio.features import rasterize
from rasterio.transform import Affine
from scipy.ndimage import binary_fill_holes
from shapely.geometry import shape
from shapely.ops import transform as reproject
out = sys.argv[1]
ref = json.load(open(f"{out}/reference.json"))
H, W = ref["shape"]; N = H * W
aff = Affine(*ref["affine"]); CELL_M2 = abs(aff.a * aff.e)
shed = json.load(open(f"{out}/outfall.json"))["sewershed"]
runs = json.load(open(f"{out}/on_d8.json")); nat, ond8 = runs["native"], runs["on_d8"]
to_dem = Transformer.from_crs(4326, 6589, always_xy=True)
def raster_of(kind):
    f = next(f for f in shed["features"] if f["properties"].get("kind") == kind)
    g = reproject(lambda x, y, z=None: to_dem.transform(x, y), shape(f["geometry"]))
    return rasterize([(g, 1)], out_shape=(H, W), transform=aff, fill=0, dtype="uint8").astype(bool).ravel()
def mask(cells):
    m = np.zeros(N, bool); m[np.asarray(cells, dtype=np.int64)] = True; return m
O_s, O_n = raster_of("surface_catchment"), raster_of("network_catchment")
for name, a, b in [("surface", O_s, mask(nat["surface"])), ("network", O_n, mask(nat["network"]))]:
    print(f"check: Outfall's {name} polygon rasterised = its {b.sum()} cells: {bool((a == b).all())}")
R_s, R_n = np.load(f"{out}/ref_surface.npy").ravel(), np.load(f"{out}/ref_network.npy").ravel()
print(f"check: the reference's surface polygon rasterised = pysheds' catchment cells: "
      f"{bool((R_s == np.load(f'{out}/ref_surface_direct.npy').ravel()).all())}; "
      f"its network polygons rasterised, {R_n.sum()} cells x {CELL_M2:.2f} m2 = {R_n.sum()*CELL_M2:.1f} m2 (its own area {ref['network_m2']:.1f})")
P_s, P_n = mask(ond8["surface"]), mask(ond8["network"])
print(f"snapped cell: reference {ref['snap_cell']}, Outfall {nat['snapped_cell']}, Outfall on pysheds' grid {ond8['snapped_cell']}")
print(f"\n{'m2 (cells)':34}{'stormcatchments':>22}{'Outfall':>22}{'ratio':>8}{'Outfall on pysheds D8':>26}{'ratio':>8}")
for name, r, o, p in [("surface catchment", R_s, O_s, P_s), ("network-aware catchment", R_n, O_n, P_n)]:
    f = lambda m: f"{m.sum()*CELL_M2:.1f} ({m.sum()})"
    print(f"{name:34}{f(r):>22}{f(o):>22}{o.sum()/r.sum():8.4f}{f(p):>26}{p.sum()/r.sum():8.4f}")

rfd = np.load(f"{out}/ref_fdir.npy").ravel().astype(np.int64)
ofd = np.fromfile(f"{out}/outfall_fdir.u8", dtype=np.uint8).astype(np.int64)
STEP = {64: (-1, 0), 128: (-1, 1), 1: (0, 1), 2: (1, 1), 4: (1, 0), 8: (1, -1), 16: (0, -1), 32: (-1, -1)}
def next_of(fd):
    nxt = np.full(N, -1, np.int64); r, c = np.divmod(np.arange(N), W)
    for code, (dr, dc) in STEP.items():
        i = np.flatnonzero(fd == code); rr, cc = r[i] + dr, c[i] + dc
        ok = (rr >= 0) & (rr < H) & (cc >= 0) & (cc < W); nxt[i[ok]] = rr[ok] * W + cc[ok]
    return nxt
def ends(start, nxt):
    """Where each start cell's D8 path stops: the last cell, which drains nowhere."""
    cur = start.copy(); live = np.flatnonzero(nxt[cur] >= 0)
    for _ in range(N):
        if live.size == 0: break
        cur[live] = nxt[cur[live]]; live = live[nxt[cur[live]] >= 0]
    return cur
rnext, onext = next_of(rfd), next_of(ofd)
r_, c_ = np.divmod(np.arange(N), W)
edge = (r_ == 0) | (c_ == 0) | (r_ == H - 1) | (c_ == W - 1)
def ref_fate(e):
    if rfd[e] == -2: return "pysheds' directions: the path ends in a pit pysheds leaves (-2)"
    if rfd[e] == -1: return "pysheds' directions: the path ends on a flat pysheds leaves undrained (-1)"
    return "pysheds' directions: the path leaves the raster elsewhere" if edge[e] else f"pysheds' directions: the path ends at cell {e} (code {rfd[e]})"
def out_fate(e):
    return "Outfall's directions: the path leaves the raster elsewhere" if edge[e] else f"Outfall's directions: the path ends at cell {e}"
def table(title, rows):
    print(f"\n{title}\n  {'cause':96}{'cells':>8}{'m2':>10}")
    for cause, n in sorted(rows.items(), key=lambda kv: -kv[1]):
        print(f"  {cause:96}{n:8d}{n*CELL_M2:10.1f}")
    print(f"  {'total':96}{sum(rows.values()):8d}{sum(rows.values())*CELL_M2:10.1f}")
def by_fate(cells, fate, nxt, prefix):
    e = ends(cells, nxt); causes = [fate(x) for x in e]
    stops = {c: len({x for x, y in zip(e, causes) if y == c}) for c in set(causes)}
    return Counter(f"{prefix}{c} ({stops[c]} such end cells)" for c in causes)

only_o, only_r = np.flatnonzero(O_s & ~R_s), np.flatnonzero(R_s & ~O_s)
rows = by_fate(only_o, ref_fate, rnext, "in Outfall's only; ") + by_fate(only_r, out_fate, onext, "in the reference's only; ")
print(f"\nsurface catchment on pysheds' own grid, Outfall vs reference: {int((P_s != R_s).sum())} cells differ")
table("surface catchment, Outfall vs reference, every differing cell:", rows)

pts = np.load(f"{out}/ref_points.npz"); types = {int(k): v for k, v in ref["types"].items()}
land = {int(k): mask(pts[k]) for k in pts.files}
phase, ref_removed, ref_added = None, [], []
print("\nthe reference's loop (get_stormcatchment):")
for step in ref["log"]:
    if step["step"] == "delineated":
        (ref_removed if phase.startswith("outlet") else ref_added).extend(step["points"])
        print(f"    delineated: {step['points']}")
    else:
        phase = step["step"]; print(f"  {phase}: {step['points']}")
holes = {p: binary_fill_holes(land[p].reshape(H, W)).ravel() & ~land[p] for p in ref_added}
p_added = {int(i["id"]): i for i in ond8["added"]}; p_removed = {int(i["id"]): i for i in ond8["removed"]}
print(f"Outfall on pysheds' grid: added {sorted(p_added)}, removed {sorted(p_removed)} in {ond8['rounds']} rounds; "
      f"on its own: added {[int(i['id']) for i in nat['added']]}, removed {[int(i['id']) for i in nat['removed']]} in {nat['rounds']} rounds")
for i, s in {**p_added, **p_removed}.items():
    if s["cells"] != int(land[i].sum()):
        print(f"  note: structure {i}'s land is {s['cells']} cells in Outfall, {int(land[i].sum())} in pysheds")
def alg_cause(c, in_outfall):
    if in_outfall:
        hit = [o for o in ref_removed if land[o][c]]
        if hit: return f"the reference subtracts the catchment of outlet point(s) {hit} outside, not an inlet's land"
        hit = [i for i in p_added if land[i][c] and i not in ref_added]
        if hit: return f"Outfall adds inlet(s) {hit}, the reference does not"
        return "in Outfall's only; none of the above"
    hit = [p for p in ref_added if holes[p][c]]
    if hit: return f"a hole in the catchment of point(s) {hit} that the reference fills (its get_catchment makes a polygon of every ring, a hole's too); " + ref_fate(ends(np.array([c]), rnext)[0])
    hit = [i for i in p_removed if land[i][c] and i not in ref_removed]
    if hit: return f"Outfall removes inlet(s) {hit} piped to {sorted({v for i in hit for v in p_removed[i]['via']})} outside"
    hit = [p for p in ref_added if land[p][c] and p not in p_added]
    if hit: return f"the reference adds point(s) {hit} (types {[types[p] for p in hit]}), which Outfall does not"
    return "in the reference's only; none of the above"
only = np.flatnonzero(P_n != R_n)
table("network-aware catchment on pysheds' own grid, Outfall vs reference, every differing cell (the network logic alone):",
      Counter(alg_cause(c, P_n[c]) for c in only))
diff = O_n != R_n
by_dir, by_alg = np.flatnonzero(diff & (O_n != P_n)), np.flatnonzero(diff & (O_n == P_n))
rows = by_fate(by_dir[O_n[by_dir]], ref_fate, rnext, "directions; in Outfall's only; ")
rows += by_fate(by_dir[~O_n[by_dir]], out_fate, onext, "directions; in the reference's only; ")
rows += Counter("network logic; " + alg_cause(c, O_n[c]) for c in by_alg)
table("network-aware catchment, Outfall vs reference, every differing cell (directions: Outfall's own run vs on pysheds' grid; network logic: on pysheds' grid vs the reference):", rows)
print(f"  net: Outfall - reference = {int(O_n.sum()) - int(R_n.sum())} cells, {(int(O_n.sum()) - int(R_n.sum()))*CELL_M2:.1f} m2")

t0, t1 = map(float, open(f"{out}/outfall.time").read().split()); tot = t1 - t0
print(f"\ntime, stormcatchments: read network {ref['t_network_s']:.2f} s, DEM conditioning {ref['t_dem_s']:.2f} s, "
      f"surface catchment {ref['t_surface_s']:.2f} s, network catchment {ref['t_network_catchment_s']:.2f} s, total {ref['t_total_s']:.2f} s (imports excluded)")
print(f"time, Outfall: the whole `outfall sewer --point --json` process (load, DEM read + conditioning, both catchments, GeoJSON) {tot:.2f} s")
print(f"speed-up, total: {ref['t_total_s']/tot:.1f}x")
print("\nupstream sets of each source point (reference vs Outfall; points are OBJECTIDs, lines OBJECTIDs):")
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
