"""One table from the anchors' and Outfall's JSON lines: each figure the median over runs,
and the ratio Outfall ÷ best peer (above 1 = Outfall faster)."""
import collections
import statistics
import json
import sys

v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.strip():
        d = json.loads(line)
        v[(d["section"], d["engine"], d["item"], d["metric"])].append(d["value"])


def med(*key):
    vals = v.get(key)
    return statistics.median(vals) if vals else None


def f(x):
    return "—" if x is None else (f"{x:.3g}" if x < 100 else f"{x:.0f}")


rows = []
# (label, peers [(name, key)], outfall key, lower is better, goal)
spec = [
    ("load + index 100k parcels, s", [("PostGIS", ("load", "postgis", "parcels_100k", "wall_s")),
                                      ("GeoPandas", ("load", "geopandas", "parcels_100k", "wall_s"))],
     ("load", "outfall", "parcels_100k", "wall_s"), True, "≥ 8×"),
    ("site check New Hope, median ms", [("PostGIS", ("site", "postgis", "full_newhope", "median_ms")),
                                         ("GeoPandas", ("site", "geopandas", "full_newhope", "median_ms"))],
     ("site", "outfall", "full_newhope", "median_ms"), True, "≥ 5×"),
    ("site check Walker Creek, median ms", [("PostGIS", ("site", "postgis", "full_walker", "median_ms")),
                                             ("GeoPandas", ("site", "geopandas", "full_walker", "median_ms"))],
     ("site", "outfall", "full_walker", "median_ms"), True, "≥ 5×"),
    ("site check New Hope, p99 ms", [("PostGIS", ("site", "postgis", "full_newhope", "p99_ms")),
                                      ("GeoPandas", ("site", "geopandas", "full_newhope", "p99_ms"))],
     ("site", "outfall", "full_newhope", "p99_ms"), True, "≥ 5×"),
    ("site check Walker Creek, p99 ms", [("PostGIS", ("site", "postgis", "full_walker", "p99_ms")),
                                          ("GeoPandas", ("site", "geopandas", "full_walker", "p99_ms"))],
     ("site", "outfall", "full_walker", "p99_ms"), True, "≥ 5×"),
    # Outfall's steps (i)-(iv) only, the peers' whole work, against the same peer figures.
    ("site check New Hope, steps (i)–(iv) only, median ms", [("PostGIS", ("site", "postgis", "full_newhope", "median_ms")),
                                                              ("GeoPandas", ("site", "geopandas", "full_newhope", "median_ms"))],
     ("site", "outfall", "steps_newhope", "median_ms"), True, "≥ 10×"),
    ("site check Walker Creek, steps (i)–(iv) only, median ms", [("PostGIS", ("site", "postgis", "full_walker", "median_ms")),
                                                                  ("GeoPandas", ("site", "geopandas", "full_walker", "median_ms"))],
     ("site", "outfall", "steps_walker", "median_ms"), True, "≥ 10×"),
    ("site check New Hope, steps (i)–(iv) only, p99 ms", [("PostGIS", ("site", "postgis", "full_newhope", "p99_ms")),
                                                           ("GeoPandas", ("site", "geopandas", "full_newhope", "p99_ms"))],
     ("site", "outfall", "steps_newhope", "p99_ms"), True, "≥ 5×"),
    ("site check Walker Creek, steps (i)–(iv) only, p99 ms", [("PostGIS", ("site", "postgis", "full_walker", "p99_ms")),
                                                               ("GeoPandas", ("site", "geopandas", "full_walker", "p99_ms"))],
     ("site", "outfall", "steps_walker", "p99_ms"), True, "≥ 5×"),
    ("cold MVT z14–16, 1 connection, tiles/s", [("PostGIS 3857", ("tiles", "postgis_3857", "c1", "per_s")),
                                                 ("PostGIS 4326", ("tiles", "postgis_4326", "c1", "per_s"))],
     ("tiles", "outfall", "c1", "per_s"), False, "≥ 2×"),
]
print("| work | PostGIS | GeoPandas | Outfall | Outfall ÷ best peer | goal |")
print("|---|---|---|---|---|---|")
for label, peers, ok, lower, goal in spec:
    vals = [(n, med(*k)) for n, k in peers]
    o = med(*ok)
    have = [x for _, x in vals if x is not None]
    best = (min(have) if lower else max(have)) if have else None
    ratio = None if best is None or o is None or o == 0 else (best / o if lower else o / best)
    cells = [f(x) for _, x in vals]
    if len(cells) == 2 and peers[1][0].startswith("PostGIS"):
        cells = [f"{cells[0]} (3857) / {cells[1]} (4326)", "—"]
    print(f"| {label} | {cells[0]} | {cells[1]} | {f(o)} | {'—' if ratio is None else f'{ratio:.2f}×'} | {goal} |")
m = med("memory", "outfall", "parcels_100k", "rss_per_coord_byte")
print(f"| memory: RSS ÷ coordinate bytes, 100k | — | — | {f(m)} | — | ≤ 3 |")
