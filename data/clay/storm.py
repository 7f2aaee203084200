#!/usr/bin/env python3
"""An ILLUSTRATIVE storm-sewer network for two of the demo's urban sites (Clay publishes no storm map).

Writes, next to this file:

- storm_structures.geojson  catch basins (CB), manholes (MH) and outfalls (OF): `STRUCT_ID`, `STRUCT_TYPE`
- storm_pipes.geojson       pipes from structure to structure: `PIPE_ID`, `US_NODE`, `DS_NODE`,
                            `US_INV_M`, `DS_INV_M` (inverts, metres), `DIAM_MM`

Two systems, each from catch basins inside a site's disturbance, through a manhole at the site's edge and a
straight trunk of manholes (at most MAX_RUN_M apart), to an outfall OUTFALL_SETBACK_M short of a stream:

- S04 (Taft Road distribution center) drains to Sawmill Creek, its nearest water (COMID 21974097);
- S05 (Soule Road residences) drains to the unnamed tributary of Mud Creek (COMID 22025700), although its
  nearest water is the Seneca River: the pipes, not the distance, decide where its runoff enters the streams.

The network is made up. Run after generate.py has written disturbance.geojson and the waters, then re-run
generate.py, whose expected results follow these pipes with `trace()` below (it reads the files written here):

    python3 data/clay/storm.py && python3 data/clay/generate.py

Deterministic: every point comes from the committed geometry; nothing is random.
"""

import json
import os

from pyproj import Transformer
from shapely.geometry import LineString, Point, shape
import shapely
from shapely.ops import nearest_points, unary_union

OUT = os.path.dirname(os.path.abspath(__file__))
TO_UTM = Transformer.from_crs("EPSG:4326", "EPSG:32618", always_xy=True).transform
TO_LL = Transformer.from_crs("EPSG:32618", "EPSG:4326", always_xy=True).transform
# (site, the reach its outfall discharges to): the systems to draw.
SYSTEMS = [("S04", "21974097"), ("S05", "22025700")]
INLET_INSET_M = 12.0  # catch basins sit this far inside the disturbance
MAX_RUN_M = 120.0  # the longest pipe between two manholes
OUTFALL_SETBACK_M = 6.0  # the outfall headwall stands back from the stream's line
TOP_INVERT_M = 125.0
SLOPE = 0.005
# Outfall's rule `storm_inlet_search_m` (default): inlets within this of a footprint take its runoff.
INLET_SEARCH_M = 30.0
PIPES = "storm_pipes.geojson"
STRUCTURES = "storm_structures.geojson"


def read(name):
    with open(os.path.join(OUT, name), encoding="utf-8") as fh:
        return json.load(fh)["features"]


def utm(g):
    return shapely.transform(g, lambda x, y: TO_UTM(x, y), interleaved=False)


def ll(x, y):
    lon, lat = TO_LL(x, y)
    return [round(lon, 7), round(lat, 7)]


def footprint(site_id):
    """The union of a site's disturbance polygons, lon/lat."""
    return unary_union([shape(f["geometry"]) for f in read("disturbance.geojson")
                        if f["properties"]["site_id"] == site_id])


def waters_utm():
    flows = [(str(f["properties"]["COMID"]), utm(shape(f["geometry"]))) for f in read("flowlines.geojson")]
    wbs = [(f["properties"]["wb_id"], utm(shape(f["geometry"]))) for f in read("waterbodies.geojson")]
    return flows, wbs


def nearest_water(g, flows, wbs):
    """(distance m, id) of the nearest flowline or waterbody; ties go to the flowline."""
    return min([(g.distance(w), 0, i) for i, w in flows] + [(g.distance(w), 1, i) for i, w in wbs])[::2]


def system(site_id, reach_id, flows, wbs):
    """The structures and pipes of one site's system, in UTM metres."""
    fp = utm(footprint(site_id))
    stream = dict(flows)[reach_id]
    edge, on_stream = nearest_points(fp, stream)
    inner = fp.buffer(-INLET_INSET_M)
    trunk = LineString([edge, on_stream])
    outfall = trunk.interpolate(trunk.length - OUTFALL_SETBACK_M)
    n = max(1, int(-(-(trunk.length - OUTFALL_SETBACK_M) // MAX_RUN_M)))
    tag = site_id[1:]
    cb = [nearest_points(inner, edge)[0], nearest_points(inner, fp.centroid)[0]]
    if cb[1].distance(cb[0]) < 20.0:  # a small footprint: the second basin across the site
        cb[1] = nearest_points(inner, Point(2 * fp.centroid.x - edge.x, 2 * fp.centroid.y - edge.y))[0]
    structs = [(f"CB-{tag}-{k + 1}", "CB", p) for k, p in enumerate(cb)]
    mh = [trunk.interpolate(k * (trunk.length - OUTFALL_SETBACK_M) / n) for k in range(n)]
    structs += [(f"MH-{tag}-{k + 1}", "MH", p) for k, p in enumerate(mh)]
    structs.append((f"OF-{tag}", "OF", outfall))
    at = {sid: p for sid, _, p in structs}
    links = [(f"CB-{tag}-1", f"MH-{tag}-1"), (f"CB-{tag}-2", f"MH-{tag}-1")]
    chain = [f"MH-{tag}-{k + 1}" for k in range(n)] + [f"OF-{tag}"]
    links += list(zip(chain, chain[1:]))
    # Inverts fall along the longest way down from the far catch basin.
    depth = {f"CB-{tag}-2": TOP_INVERT_M}
    depth[f"CB-{tag}-1"] = TOP_INVERT_M - SLOPE * at[f"CB-{tag}-2"].distance(at[f"MH-{tag}-1"]) + 0.05
    pipes = []
    for k, (up, down) in enumerate(links):
        length = at[up].distance(at[down])
        top = depth[up]
        bottom = depth.get(down, top - SLOPE * length)
        depth[down] = min(bottom, top - SLOPE * length)
        pipes.append((f"P-{tag}-{k + 1:02d}", up, down, round(top, 2), round(depth[down], 2),
                      375 if k < 2 else 600, LineString([at[up], at[down]])))
    check(site_id, reach_id, fp, structs, pipes, outfall, flows, wbs)
    return structs, pipes


def check(site_id, reach_id, fp, structs, pipes, outfall, flows, wbs):
    """What the demo promises of this system."""
    for sid, kind, p in structs:
        if kind == "CB":
            assert fp.contains(p), f"{sid} lies inside {site_id}'s disturbance"
    _, water = nearest_water(outfall, flows, wbs)
    assert water == reach_id, f"{site_id}'s outfall is nearest {reach_id}, not {water}"
    for pid, *_, line in pipes:
        crossed = [i for i, w in flows if w.crosses(line)]
        assert not crossed, f"pipe {pid} crosses {crossed}"


def write():
    flows, wbs = waters_utm()
    structs, pipes = [], []
    for site_id, reach_id in SYSTEMS:
        s, p = system(site_id, reach_id, flows, wbs)
        structs += s
        pipes += p
    # S05 is the site whose pipes go elsewhere than its nearest water.
    _, nearest = nearest_water(utm(footprint("S05")), flows, wbs)
    assert nearest != "22025700", "S05's nearest water is not where its pipes discharge"
    sf = [{"type": "Feature", "properties": {"STRUCT_ID": sid, "STRUCT_TYPE": kind},
           "geometry": {"type": "Point", "coordinates": ll(p.x, p.y)}} for sid, kind, p in structs]
    pf = [{"type": "Feature",
           "properties": {"PIPE_ID": pid, "US_NODE": up, "DS_NODE": down, "US_INV_M": ui, "DS_INV_M": di,
                          "DIAM_MM": dia},
           "geometry": {"type": "LineString", "coordinates": [ll(x, y) for x, y in line.coords]}}
          for pid, up, down, ui, di, dia, line in pipes]
    for name, feats in ((STRUCTURES, sf), (PIPES, pf)):
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as fh:
            json.dump({"type": "FeatureCollection", "features": feats}, fh, indent=1)
            fh.write("\n")
    print(f"{len(sf)} structures, {len(pf)} pipes")


def trace(footprint_ll):
    """The storm trace of a footprint (lon/lat), read from the written files, or None when no catch basin
    lies inside it or within INLET_SEARCH_M: {inlets, pipes, length_m, outfalls: [(id, (lon, lat))]}.
    Breadth first from every inlet along US_NODE -> DS_NODE, to the structures no pipe leaves."""
    if not os.path.exists(os.path.join(OUT, PIPES)):
        return None
    fu = utm(footprint_ll)
    at = {f["properties"]["STRUCT_ID"]: f for f in read(STRUCTURES)}
    inlets = sorted(sid for sid, f in at.items() if f["properties"]["STRUCT_TYPE"] == "CB"
                    and utm(shape(f["geometry"])).distance(fu) <= INLET_SEARCH_M)
    if not inlets:
        return None
    leaving = {}
    for f in read(PIPES):
        p = f["properties"]
        leaving.setdefault(p["US_NODE"], []).append((p["PIPE_ID"], p["DS_NODE"], utm(shape(f["geometry"])).length))
    seen, queue, pipes, ends = set(inlets), list(inlets), {}, []
    while queue:
        v = queue.pop(0)
        if v not in leaving and v not in ends:
            ends.append(v)
        for pid, down, length in leaving.get(v, []):
            pipes[pid] = length
            if down not in seen:
                seen.add(down)
                queue.append(down)
    return {"inlets": inlets, "pipes": sorted(pipes), "length_m": sum(pipes.values()),
            "outfalls": [(e, tuple(at[e]["geometry"]["coordinates"])) for e in ends]}


if __name__ == "__main__":
    write()
