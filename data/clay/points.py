"""Expected receiving waters for points all over Clay, computed independently of the engine.

generate.py calls `write_points` with its network context (the NHDPlusV2 reaches linked by
DnHydroseq, the waterbodies, the 303(d) rows and the TMDL outlet). Each point gets an 80 m
square footprint (about 1.6 acres, so a land development activity) and the generator's own
`evaluate`: the entry (nearest flowline or waterbody within the search radius, by shapely in
UTM metres), the names down to Lake Ontario, the entry reach's PWL segment, the first listed
water and Condition A's water test. tests/clay_points.rs checks the engine against the file.
"""

import csv
import os
import random

from shapely.geometry import Point, Polygon

HALF_SIDE_DEG_LAT = 40.0 / 111_320.0
COUNT = 150
SEED = 20261201
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures",
                   "clay_points.csv")


def square(lon, lat):
    import math
    dx = HALF_SIDE_DEG_LAT / math.cos(math.radians(lat))
    dy = HALF_SIDE_DEG_LAT
    return Polygon([(lon - dx, lat - dy), (lon + dx, lat - dy), (lon + dx, lat + dy), (lon - dx, lat + dy)])


def points_in(town, count):
    rng = random.Random(SEED)
    x0, y0, x1, y1 = town.bounds
    out = []
    while len(out) < count:
        lon, lat = round(rng.uniform(x0, x1), 6), round(rng.uniform(y0, y1), 6)
        if town.contains(square(lon, lat)):
            out.append((lon, lat))
    return out


def ambiguous(sq, ctx, to_utm):
    """Two waters within 0.5 m of the nearest: "the nearest water" does not decide (a square on a
    confluence or a braid), and two correct engines may differ. Such points are left out."""
    u = to_utm(sq)
    d = sorted([u.distance(g) for _, g in ctx["flow_utm"]] + [u.distance(w["utm"]) for w in ctx["wbs"]])
    return len(d) > 1 and d[1] - d[0] < 0.5 and d[0] <= 1000.0


def write_points(ctx, evaluate, r7, tri, to_utm):
    from datetime import date
    rows = []
    skipped = 0
    for lon, lat in points_in(ctx["town"], COUNT * 2):
        if len(rows) == COUNT:
            break
        sq = Polygon([(r7(x), r7(y)) for x, y in square(lon, lat).exterior.coords])
        if ambiguous(sq, ctx, to_utm):
            skipped += 1
            continue
        i = len(rows)
        site = {"id": f"P{i + 1:03d}", "name": "point", "status": "planned", "common_plan": False,
                "single_family": False, "agricultural": False, "phases": []}
        res = evaluate(site, sq, sq, [], [("1", sq, date(2026, 5, 1), date(2026, 9, 30))], ctx)
        er, ew = res["entry_reach"], res["entry_wb"]
        fi = res["first_impaired"]
        rows.append({
            "id": site["id"], "lon": lon, "lat": lat, "bbox": " ".join(str(v) for v in sq.bounds),
            "entry_rule": res["entry_rule"],
            "entry_reach": er["reach_id"] if er else "",
            "entry_water": ew["id"] if ew else (er["reach_id"] if er else ""),
            "segment": er["pwl_id"] if er else "",
            "names": " -> ".join(res["names"]),
            "first_listed": (fi[2][0][0] if fi else ""),
            "first_listed_reach": fi[1] if fi else "",
            "first_listed_m": f"{fi[3]:.0f}" if fi else "",
            "water_test": tri(res["water"]),
        })
    print(f"{skipped} points left out: two waters within 0.5 m of the nearest")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return rows
