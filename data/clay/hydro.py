"""Clay's real hydrography for the demo: NHDPlusV2 flowlines, the PWL crosswalk, local names.

Reads the real data in ../shared/data/real (never copied whole): the NHDPlusV2 flowlines of
Onondaga County and their path to Lake Ontario, NYSDEC's PWL 2023 segment table, DEC's stream
monitoring sites and the TIGER area water. Writes, next to this file:

- flowlines.geojson     the 946 flowlines with a few NHD columns, the crosswalk's pwl_id and the
                        best name (local name, else GNIS name) with its source
- pwl_crosswalk.csv     comid -> PWL segment, with the method that decided each row
- local_names.csv       comid -> local name, with its source
- waterbodies.geojson   TIGER area water; Onondaga Lake split into DEC's two segments

The crosswalk's method, in order (each row says which step decided it):
1. lake:       an NHD ArtificialPath inside a lake (WBAREACOMI) takes the lake's segment.
2. gnis_name:  a named NHD stream takes the stream segment of the same name whose Waterbody
               Index Number is a tributary of the water it flows into (the WIN hierarchy);
               a river split into "portions" is cut by river mile (NHD Pathlength against DEC's
               Segment_Miles, in WIN portion order), each cut moved to the named confluence of
               the description ("from X to Y") when one lies within 2.5 km.
3. dec_site:   an unclaimed level path (one stream, source to mouth) on which a DEC monitoring
               site lies (within 60 m) takes the site's PWL ID.
4. tributary:  an unclaimed reach takes the segment of the first claimed reach downstream when
               that segment includes its tributaries ("entire stream and tribs"), or the
               "Tribs to" segment of that water when DEC counts all its tributaries.
Anything else stays unclaimed: DEC has not assessed it as a segment of its own.
"""

import csv
import json
import math
import os
import re

from pyproj import Transformer
from shapely.geometry import LineString, Point, Polygon, mapping, shape
from shapely.ops import split, unary_union

OUT = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(OUT, "..", "..", "..", "shared", "data", "real")
NHD = os.path.join(REAL, "nhdplusv2-oswego-ny", "oswego_flowlines_onondaga.geojson")
PWL = os.path.join(REAL, "nysdec-pwl-2023", "pwl_2023_oswego_basin.csv")
SITES = os.path.join(REAL, "nysdec-pwl-2023", "stream_monitoring_sites_aoi.geojson")
AREAWATER = os.path.join(REAL, "tiger-onondaga", "onondaga_areawater_2015_aoi.geojson")
TO_UTM = Transformer.from_crs("EPSG:4326", "EPSG:32618", always_xy=True)
MI_KM = 1.609344
LAKES = {22025262: "Onondaga Lake", 166766871: "Oneida Lake"}
SITE_SNAP_M = 60.0
CONFLUENCE_SNAP_KM = 2.5
# DEC splits Onondaga Lake into a northern and a southern segment without a published line in
# these tables; the demo cuts the lake across its long axis at this point (illustrative).
LAKE_SPLIT = ((-76.2218, 43.0712), (-76.1957, 43.1010))
# The town's name for an unnamed NHD tributary of Mud Creek, located by the reach nearest to
# the town's sketch of the creek (the demo's former hand-drawn line).
BEARTRAP_SKETCH = [(-76.1330, 43.1480), (-76.1520, 43.1610), (-76.1740, 43.1740), (-76.1930, 43.1790)]
KEEP = ["COMID", "GNIS_NAME", "FTYPE", "StreamOrde", "Hydroseq", "DnHydroseq", "DnMinorHyd", "FromNode",
        "ToNode", "LevelPathI", "LENGTHKM", "Pathlength", "TotDASqKM", "WBAREACOMI", "REACHCODE"]


def utm(g):
    import numpy as np
    import shapely
    return shapely.transform(g, lambda a: np.column_stack(TO_UTM.transform(a[:, 0], a[:, 1])))


FROM_UTM = Transformer.from_crs("EPSG:32618", "EPSG:4326", always_xy=True)


def from_utm(g):
    import numpy as np
    import shapely
    return shapely.transform(g, lambda a: np.column_stack(FROM_UTM.transform(a[:, 0], a[:, 1])))


def win_key(win):
    """'Ont  66-12-12-P154- 3' -> 'Ont66-12-12-P154-3'; the portion text is dropped."""
    w = re.sub(r"\(.*?\)", "", win or "")
    return re.sub(r"\s+", "", w.split("/")[0])


def win_parent(win):
    k = win_key(win)
    return k.rsplit("-", 1)[0] if "-" in k else ""


def portion(win):
    m = re.search(r"portion (\d+)", win or "")
    return int(m.group(1)) if m else None


def order_of(seg):
    """Where a part of a stream lies from its mouth: the WIN portion, else Lower/Middle/Upper."""
    p = portion(seg["Waterbody_Index_Number"])
    if p is not None:
        return p
    for i, w in enumerate(("Lower", "Middle", "Upper"), start=1):
        if re.search(rf"\b{w}\b", seg["Segment_Name"]):
            return i
    return None


def base_name(seg_name):
    n = re.sub(r",? and (minor |selected )?tribs$", "", seg_name.strip(), flags=re.I)
    n = re.sub(r", (Lower|Upper|Middle|Low|Main Stem)\b", "", n, flags=re.I)
    return n.replace(", Main Stem", "").strip(" ,")


def includes_tribs(seg):
    d = seg["Description"].lower()
    return "trib" in d and "selected" not in d


def read_segments():
    with open(PWL, encoding="utf-8") as fh:
        return {r["Segment_ID"]: r for r in csv.DictReader(fh)}


def read_network():
    with open(NHD, encoding="utf-8") as fh:
        feats = json.load(fh)["features"]
    reaches = {}
    for f in feats:
        p = f["properties"]
        reaches[p["COMID"]] = dict(p=p, comid=p["COMID"], gnis=p["GNIS_NAME"].strip(),
                                   coords=f["geometry"]["coordinates"])
    by_hs = {r["p"]["Hydroseq"]: c for c, r in reaches.items()}
    for r in reaches.values():
        r["down"] = by_hs.get(r["p"]["DnHydroseq"])
        r["up"] = []
    for c, r in reaches.items():
        if r["down"] is not None:
            reaches[r["down"]]["up"].append(c)
    return reaches


def path_down(reaches, c):
    out = []
    while c is not None and c not in out:
        out.append(c)
        c = reaches[c]["down"]
    return out


class Crosswalk:
    def __init__(self, reaches, segs):
        self.reaches, self.segs = reaches, segs
        self.rows = {}  # comid -> (pwl_id, method, evidence)

    def claim(self, c, pwl, method, evidence):
        if c not in self.rows:
            self.rows[c] = (pwl, method, evidence)

    def lakes(self, lake_polys):
        for c, r in self.reaches.items():
            wb = r["p"]["WBAREACOMI"]
            if wb == 22025262:
                mid = LineString(r["coords"]).interpolate(0.5, normalized=True)
                pwl = min(lake_polys, key=lambda k: lake_polys[k].distance(mid))
                self.claim(c, pwl, "lake", f"ArtificialPath in Onondaga Lake (WBAREACOMI {wb}); "
                           f"{self.segs[pwl]['Segment_Name']} by the demo's split line")
            elif wb == 166766871:
                self.claim(c, "0703-0001", "lake", f"ArtificialPath in Oneida Lake (WBAREACOMI {wb})")

    def receiving_segment(self, group):
        """The segment claimed for the water a named group flows into (None at the outlet)."""
        mouth = [c for c in group if self.reaches[c]["down"] not in group]
        for c in mouth:
            d = self.reaches[c]["down"]
            if d is not None and d in self.rows:
                return self.rows[d][0]
        return None

    def by_name(self):
        # One group per named feature: GNIS_ID tells apart the county's three Black Creeks.
        groups = {}
        for c, r in self.reaches.items():
            if r["gnis"] and c not in self.rows:
                groups.setdefault(r["p"]["GNIS_ID"], set()).add(c)
        # Downstream waters first, so that each group's receiving water is already claimed.
        order = sorted(groups, key=lambda n: min(self.reaches[c]["p"]["Pathlength"] for c in groups[n]))
        for gid in order:
            group = groups[gid]
            name = self.reaches[next(iter(group))]["gnis"]
            cands = [s for s in self.segs.values() if s["Waterbody_Type"] == "Streams"
                     and base_name(s["Segment_Name"]).lower() == name.lower()]
            recv = self.receiving_segment(group)
            if recv is not None:
                parent = win_key(self.segs[recv]["Waterbody_Index_Number"])
                cands = [s for s in cands if win_parent(s["Waterbody_Index_Number"]) == parent]
            if not cands:
                continue
            if len(cands) == 1 or any(order_of(s) is None for s in cands):
                s = cands[0]
                for c in group:
                    self.claim(c, s["Segment_ID"], "gnis_name",
                               f"GNIS name '{name}' = segment '{s['Segment_Name']}' "
                               f"(WIN {win_key(s['Waterbody_Index_Number'])})")
                continue
            self.by_portion(name, group, cands)

    def by_portion(self, name, group, cands):
        cands = sorted(cands, key=order_of)
        mouth_km = min(self.reaches[c]["p"]["Pathlength"] for c in group)
        main = sorted((c for c in group), key=lambda c: self.reaches[c]["p"]["Pathlength"])
        cuts, run = [], 0.0
        for s in cands[:-1]:
            run += float(s["Segment_Miles"] or 0) * MI_KM
            cuts.append(self.snap_cut(name, main, mouth_km + run, s))
        for c in group:
            p = self.reaches[c]["p"]
            mid_km = p["Pathlength"] + p["LENGTHKM"] / 2.0
            k = sum(1 for km, _ in cuts if mid_km > km)
            s = cands[min(k, len(cands) - 1)]
            why = [f"river km {mid_km - mouth_km:.1f} from the mouth of the {name}; DEC's parts by "
                   f"Segment_Miles, from the mouth up"]
            why += [w for km, w in cuts if w]
            self.claim(c, s["Segment_ID"], "gnis_name",
                       f"GNIS name '{name}', part {order_of(s)} from the mouth "
                       f"'{s['Description']}': " + "; ".join(why))

    def snap_cut(self, name, main, cut_km, seg):
        """Moves a length-based cut to the confluence named by the description's upper end."""
        m = re.search(r"to (.+)$", seg["Description"])
        if not m:
            return cut_km, None
        words = m.group(1).replace("Lk", "Lake").split()
        best = None
        for c in main:
            p = self.reaches[c]["p"]
            top_km = p["Pathlength"] + p["LENGTHKM"]
            for u in self.reaches[c]["up"]:
                ur = self.reaches[u]
                label = ur["gnis"] or LAKES.get(ur["p"]["WBAREACOMI"], "")
                if ur["gnis"] == name or not label or not label.split()[0] == words[0]:
                    continue
                if abs(top_km - cut_km) <= CONFLUENCE_SNAP_KM and (best is None or abs(top_km - cut_km) < abs(best[0] - cut_km)):
                    best = (top_km, f"cut at the confluence with {label} (COMID {u})")
        return best if best else (cut_km, None)

    def by_site(self, anchors):
        for site, c, d in anchors:
            if c in self.rows:
                pwl, method, ev = self.rows[c]
                if pwl == site["PWL_ID"]:
                    self.rows[c] = (pwl, method, f"{ev}; DEC site {site['Site_ID']} ({d:.0f} m) agrees")
                else:
                    self.rows[c] = (site["PWL_ID"], "dec_site", f"DEC monitoring site {site['Site_ID']} "
                                    f"({d:.0f} m) is tagged {site['PWL_ID']}; overrides: {ev}")
                continue
            lp = self.reaches[c]["p"]["LevelPathI"]
            name = self.reaches[c]["gnis"]
            for x, r in self.reaches.items():
                if r["p"]["LevelPathI"] == lp and r["gnis"] == name:
                    self.claim(x, site["PWL_ID"], "dec_site",
                               f"DEC monitoring site {site['Site_ID']} ({d:.0f} m from COMID {c}) is tagged "
                               f"{site['PWL_ID']}; its level path {lp}")

    def tributaries(self):
        for c in sorted(self.reaches, key=lambda c: self.reaches[c]["p"]["Pathlength"]):
            if c in self.rows:
                continue
            for d in path_down(self.reaches, c)[1:]:
                if d not in self.rows:
                    continue
                pwl = self.rows[d][0]
                seg = self.segs.get(pwl)
                if seg and includes_tribs(seg) and seg["Waterbody_Type"] == "Streams":
                    self.claim(c, pwl, "tributary", f"drains to COMID {d} in '{seg['Segment_Name']}' "
                               f"({seg['Description']})")
                else:
                    t = self.tribs_segment(seg)
                    if t:
                        self.claim(c, t["Segment_ID"], "tributary",
                                   f"joins '{seg['Segment_Name']}' at COMID {d}; '{t['Segment_Name']}' "
                                   f"({t['Description']})")
                break

    def tribs_segment(self, seg):
        """DEC's segment of all the tributaries of a main stem portion, if DEC counts all of them."""
        if seg is None:
            return None
        parent = win_key(seg["Waterbody_Index_Number"])
        frm = re.search(r"from (\S+)", seg["Description"])
        for s in self.segs.values():
            d = s["Description"]
            if not s["Segment_Name"].lower().startswith(("minor tribs", "tribs to")) or "selected" in d:
                continue
            if not win_key(s["Waterbody_Index_Number"]).startswith(parent + "-"):
                continue
            if frm and frm.group(1).split()[0] not in d:
                continue
            return s
        return None


def snap_sites(reaches):
    with open(SITES, encoding="utf-8") as fh:
        sites = [f for f in json.load(fh)["features"]]
    lines = {c: utm(LineString(r["coords"])) for c, r in reaches.items()}
    out = []
    for f in sites:
        pt = utm(shape(f["geometry"]))
        d, c = min((pt.distance(g), c) for c, g in lines.items())
        if d <= SITE_SNAP_M:
            out.append((f["properties"], c, d))
    return out


def local_names(reaches, cw, anchors, segs):
    """comid -> (name, source): DEC's name for an unnamed stream it monitors, and the town's."""
    names = {}
    for site, c, _ in anchors:
        r = reaches[c]
        if r["gnis"]:
            continue
        seg = segs[site["PWL_ID"]]
        nm = site["Segment_Name"]
        src = f"DEC monitoring site {site['Site_ID']} (PWL {site['PWL_ID']} '{seg['Segment_Name']}')"
        if nm.lower().startswith("unnamed"):
            nm = base_name(seg["Segment_Name"])
            src = f"PWL segment {site['PWL_ID']} '{seg['Segment_Name']}', located by DEC site {site['Site_ID']}"
        lp = r["p"]["LevelPathI"]
        for x, rr in reaches.items():
            if rr["p"]["LevelPathI"] == lp and not rr["gnis"] and not rr["p"]["WBAREACOMI"] > 0:
                names.setdefault(x, (nm, src))
    mud = [c for c, (n, _) in names.items() if n == "Mud Creek"]
    sketch = utm(LineString(BEARTRAP_SKETCH))
    cands = [c for c, r in reaches.items() if not r["gnis"] and c not in names
             and any(d in mud for d in path_down(reaches, c)[1:])]
    if cands:
        best = min(cands, key=lambda c: utm(LineString(reaches[c]["coords"])).hausdorff_distance(sketch))
        lp = reaches[best]["p"]["LevelPathI"]
        for x, rr in reaches.items():
            if rr["p"]["LevelPathI"] == lp and not rr["gnis"] and x not in names:
                names[x] = ("Beartrap Creek", "Town of Clay (local name; NHDPlusV2 has no Beartrap Creek; "
                            "the tributary of Mud Creek nearest the town's sketch)")
    return names


def lake_segments(reaches):
    """Onondaga Lake from TIGER, cut into DEC's two segments. TIGER draws the lake's northern
    half inside its "Seneca Riv" polygon: the part of that polygon within 1 km of the lake's
    NHD paths (the outlet reach aside) is the lake too."""
    with open(AREAWATER, encoding="utf-8") as fh:
        feats = json.load(fh)["features"]
    lake = next(shape(f["geometry"]) for f in feats if f["properties"].get("FULLNAME") == "Onondaga Lk")
    seneca = next(shape(f["geometry"]) for f in feats if f["properties"].get("FULLNAME") == "Seneca Riv")
    outlet = lake_outlet(reaches)
    paths = unary_union([utm(LineString(r["coords"])) for c, r in reaches.items()
                         if r["p"]["WBAREACOMI"] == 22025262 and c != outlet])
    near = from_utm(paths.buffer(1000.0))
    lake = unary_union([lake, seneca.intersection(near)]).buffer(0)
    if lake.geom_type == "MultiPolygon":
        lake = max(lake.geoms, key=lambda g: g.area)
    (x0, y0), (x1, y1) = LAKE_SPLIT
    dx, dy = x1 - x0, y1 - y0
    cut = LineString([(x0 - dx, y0 - dy), (x1 + dx, y1 + dy)])
    parts = sorted(split(lake, cut).geoms, key=lambda g: g.centroid.y)
    return {"0702-0021": parts[0], "0702-0003": parts[-1]}, feats


TIGER_NAMES = {"Onondaga Lk": "Onondaga Lake", "Oneida Lk": "Oneida Lake", "Oneida Riv": "Oneida River",
               "Seneca Riv": "Seneca River", "Oswego Riv": "Oswego River", "Barge Cnl": "Barge Canal",
               "State Barge Cnl": "NYS Barge Canal", "Solvay Reservoir": "Solvay Reservoir"}


def build():
    segs = read_segments()
    reaches = read_network()
    lake_polys, area = lake_segments(reaches)
    cw = Crosswalk(reaches, segs)
    cw.lakes(lake_polys)
    cw.by_name()
    anchors = snap_sites(reaches)
    cw.by_site(anchors)
    cw.tributaries()
    names = local_names(reaches, cw, anchors, segs)
    for c, r in reaches.items():
        pwl, method, ev = cw.rows.get(c, ("", "unclaimed", "no PWL segment claims it: not assessed by DEC"))
        r["pwl_id"], r["method"], r["evidence"] = pwl, method, ev
        if c in names:
            r["name"], r["name_source"] = names[c]
        elif r["gnis"]:
            r["name"], r["name_source"] = r["gnis"], "NHDPlusV2 GNIS_NAME"
        else:
            r["name"], r["name_source"] = "", ""
    return reaches, segs, cw, names, lake_polys, area, anchors


def pwl_facts(segs, pwl):
    """The PWL table's class and DEC fact-sheet link of a segment ("" when it has none)."""
    seg = segs.get(pwl) or {}
    return {"pwl_class": seg.get("Class", ""), "fact_sheet": seg.get("FACT_SHEET", "")}


def r7(v):
    return round(v, 7)


def write(reaches, segs, names, lake_polys, area):
    feats = []
    for c in sorted(reaches, key=lambda c: reaches[c]["p"]["Hydroseq"]):
        r = reaches[c]
        props = {k: r["p"][k] for k in KEEP}
        props.update(name=r["name"], name_source=r["name_source"], pwl_id=r["pwl_id"],
                     **pwl_facts(segs, r["pwl_id"]))
        feats.append({"type": "Feature", "properties": props, "geometry": {
            "type": "LineString", "coordinates": [[r7(x), r7(y)] for x, y in r["coords"]]}})
    with open(os.path.join(OUT, "flowlines.geojson"), "w", encoding="utf-8") as fh:
        json.dump({"type": "FeatureCollection", "features": feats}, fh, separators=(",", ":"))
        fh.write("\n")
    with open(os.path.join(OUT, "pwl_crosswalk.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["comid", "gnis_name", "pwl_id", "segment_name", "method", "evidence"])
        for c in sorted(reaches):
            r = reaches[c]
            w.writerow([c, r["gnis"], r["pwl_id"], segs[r["pwl_id"]]["Segment_Name"] if r["pwl_id"] else "",
                        r["method"], r["evidence"]])
    with open(os.path.join(OUT, "local_names.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["comid", "name", "source"])
        for c in sorted(names):
            w.writerow([c, names[c][0], names[c][1]])
    wbs = []
    lake = unary_union(list(lake_polys.values()))
    for i, f in enumerate(area):
        full = f["properties"].get("FULLNAME")
        if full == "Onondaga Lk":
            continue
        # TIGER's Seneca River polygon also covers Onondaga Lake: the lake is cut out, so that
        # each place lies in one water.
        g = shape(f["geometry"])
        if g.intersects(lake):
            g = g.difference(lake)
            g = max(g.geoms, key=lambda x: x.area) if g.geom_type == "MultiPolygon" and len(g.geoms) > 1 and \
                sorted(x.area for x in g.geoms)[-2] < 1e-9 else g
        pwl = "0703-0001" if full == "Oneida Lk" else ""
        wbs.append(({"wb_id": f"W{f['properties']['HYDROID']}", "name": TIGER_NAMES.get(full, full or ""),
                     "pwl_id": pwl, "mtfcc": f["properties"]["MTFCC"], **pwl_facts(segs, pwl)}, g))
    for pwl, g in sorted(lake_polys.items()):
        wbs.append(({"wb_id": pwl, "name": "Onondaga Lake", "pwl_id": pwl, "mtfcc": "H2030",
                     **pwl_facts(segs, pwl)}, g))
    with open(os.path.join(OUT, "waterbodies.geojson"), "w", encoding="utf-8") as fh:
        json.dump({"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": p, "geometry": round_geom(g)} for p, g in wbs]}, fh,
            separators=(",", ":"))
        fh.write("\n")
    return wbs


def round_geom(g):
    from shapely.geometry.polygon import orient
    from shapely.geometry import MultiPolygon
    polys = list(g.geoms) if isinstance(g, MultiPolygon) else [g]
    out = []
    for p in polys:
        p = orient(p, sign=1.0)
        out.append([[[r7(x), r7(y)] for x, y in p.exterior.coords]] +
                   [[[r7(x), r7(y)] for x, y in i.coords] for i in p.interiors])
    if len(out) == 1:
        return {"type": "Polygon", "coordinates": out[0]}
    return {"type": "MultiPolygon", "coordinates": out}


def lake_outlet(reaches):
    """The last Onondaga Lake ArtificialPath: every reach upstream of it is in the lake's watershed."""
    lake = [c for c, r in reaches.items() if r["p"]["WBAREACOMI"] == 22025262]
    return next(c for c in lake if reaches[c]["down"] not in lake)


if __name__ == "__main__":
    reaches, segs, cw, names, lake_polys, area, anchors = build()
    write(reaches, segs, names, lake_polys, area)
    from collections import Counter
    print(Counter(r["method"] for r in reaches.values()))
    for site, c, d in anchors:
        print(site["Site_ID"], site["PWL_ID"], c, round(d), reaches[c]["pwl_id"], reaches[c]["method"])
    print("outlet", lake_outlet(reaches))
