#!/usr/bin/env python3
"""Generate the Outfall demo data set for the Town of Clay, NY (real waters, made-up sites).

Every file in this directory except README.md is written by this script (the waters through hydro.py,
the checked points through points.py):
outfall.toml, flowlines.geojson, waterbodies.geojson, pwl_crosswalk.csv, local_names.csv, impaired_303d.csv,
tmdl_watersheds.geojson, town_boundary.geojson, parcels.{shp,shx,dbf,prj},
sites.geojson, disturbance.geojson, and expected_results.md (the expected
per-site numbers that README.md quotes).

The generated files are committed to the repository; this script is only
re-run by developers who change the demo. It is deterministic (fixed seed, no network). Real parts,
read from ../../../shared/data/real: the NHDPlusV2 flowlines, NYSDEC's PWL tables and monitoring sites,
TIGER area water and roads, and the 303(d) rows transcribed from the OEI summary table of the 2012
NYS 303(d) list (see README.md). Parcels, sites, disturbance and the town outline are made up.

Requirements (developers only): Python 3.11, `pip install pyshp pyproj shapely numpy`.

Roads (roads.geojson) are real: the US Census TIGER/Line 2015 roads of Onondaga County that meet
the Town of Clay boundary, read from ../../../shared/data/real/tiger-onondaga/ (public domain; see
README.md). The generated parcels take the street name of the nearest of those roads.

Usage: python3 generate.py            (writes next to this file)
"""

import csv
import json
import math
import os
import random
from datetime import date, timedelta

import shapefile  # pyshp
import hydro as HY
import storm as ST
from pyproj import CRS, Geod, Transformer
from pyproj.enums import WktVersion
from shapely.geometry import LineString, Point, Polygon, mapping, shape
from shapely.geometry.polygon import orient
import shapely
from shapely.ops import unary_union

OUT = os.path.dirname(os.path.abspath(__file__))
SEED = 20261129
RNG = random.Random(SEED)
GEOD = Geod(ellps="WGS84")
SQM_PER_ACRE = 4046.8564224
TO_2261 = Transformer.from_crs("EPSG:4326", "EPSG:2261", always_xy=True)
FROM_2261 = Transformer.from_crs("EPSG:2261", "EPSG:4326", always_xy=True)
TO_UTM = Transformer.from_crs("EPSG:4326", "EPSG:32618", always_xy=True)
ND = 7  # decimals of lon/lat in the output

# Rules used for the expected-results table (same as the Clay defaults in outfall.toml).
LDA_ACRES = 1.0
COND_B_ACRES = 5.0
MAX_AT_ONCE = 5.0
MAINTENANCE_MAX_ACRES = 5.0          # (5)(c) "disturb less than five acres"
EFFECTIVE_DATE = date(2008, 2, 19)   # (5)(e)/(f) "on or before the effective date of this law"
SEARCH_RADIUS_M = 1000.0
COND_A_DOWNSTREAM_M = 1609.344
TMDL_STORMWATER_SOURCE = True    # the TMDL's sources list stormwater (None would leave the TMDL prong null)
SINGLE_FAMILY_CLASSES = ["210"]   # [rules] single_family_classes: the parcel-class fallback
AGRICULTURAL_CLASSES = ["1"]      # [rules] agricultural_classes
# Optional site columns (written only when recorded for a site).
OPTIONAL_COLUMNS = ["common_plan_acres", "new_structures", "maintains_original", "landing_or_haul_road",
                    "repair_deemed_necessary", "plat_approved", "building_permit_approved"]
CONSTRUCTION_POLLUTANTS = ["sediment", "silt", "siltation", "turbidity", "total suspended solids",
                           "tss", "phosphorus", "nutrient", "nitrogen"]


def r7(v):
    return round(v, ND)


def rpt(p):
    return (r7(p[0]), r7(p[1]))


# --------------------------------------------------------------------------------------------
# 1-2. Waters: the real NHDPlusV2 network, PWL crosswalk, local names, TIGER water (hydro.py)
#      and the town boundary (hand-made, CCW outer ring)
# --------------------------------------------------------------------------------------------
# Town of Clay, simplified by hand from the TIGER 2010 outline (about 100-300 m generalisation).
TOWN = [(-76.128, 43.119), (-76.205, 43.115), (-76.222, 43.126), (-76.238, 43.138), (-76.237, 43.150),
        (-76.245, 43.159), (-76.262, 43.166), (-76.278, 43.178), (-76.276, 43.189), (-76.283, 43.197),
        (-76.270, 43.206), (-76.262, 43.218), (-76.268, 43.233), (-76.276, 43.239), (-76.258, 43.237),
        (-76.245, 43.215), (-76.224, 43.205), (-76.210, 43.207), (-76.206, 43.217), (-76.199, 43.213),
        (-76.194, 43.217), (-76.203, 43.222), (-76.205, 43.237), (-76.213, 43.240), (-76.209, 43.264),
        (-76.212, 43.267), (-76.203, 43.272), (-76.186, 43.259), (-76.169, 43.247), (-76.158, 43.243),
        (-76.156, 43.216), (-76.144, 43.217), (-76.136, 43.175), (-76.132, 43.174), (-76.130, 43.147)]


# --------------------------------------------------------------------------------------------
# 3. Sites, parcels, disturbance. Each site sits in a block of lots along a (not mapped) road.
#    Local frame: feet, u along the road, v away from it; road right-of-way is |v| < 33 ft.
#    The site's own lots start at u = 0 on the north side (v from 33 to 33 + depth).
# --------------------------------------------------------------------------------------------
ROW = 33.0
SITES = [
    dict(id="S01", name="Route 31 retail pad", status="under_construction", road="State Route 31", hn=4610,
         applicant="Clay Retail Partners LLC (fictitious)", center=(-76.1790, 43.1660), rot=8,
         lots=[(300, 420, "330"), (260, 420, "330")], nbr="commercial", land_use="commercial",
         swppp_approval=dict(decision="approved", date="2026-03-20", reference="SWPPP-2026-009", body="officer"),
         phases=[("1", [[(40, 93), (470, 93), (470, 153), (640, 153), (640, 283), (470, 283),
                         (470, 433), (40, 433)]], "2026-04-15", "2026-10-31")]),
    dict(id="S02", name="Single-family home, Henry Clay Blvd", status="active", road="Henry Clay Blvd",
         hn=7421, applicant="private owner (fictitious)", center=(-76.2040, 43.1590), rot=-75,
         lots=[(330, 560, "210")], nbr="residential", land_use="single family residence",
         phases=[("1", [[(60, 113), (290, 113), (290, 416), (60, 416)]], "2026-05-15", "2026-12-15")]),
    dict(id="S03", name="Caughdenoy Meadows subdivision (phased)", status="under_construction", road="Caughdenoy Rd",
         hn=8850, applicant="Caughdenoy Meadows Development LLC (fictitious)", center=(-76.1560, 43.2050),
         rot=80, lots=[(900, 700, "311")], nbr="rural", common_plan=True, single_family=False, agricultural=False,
         swppp_approval=dict(decision="approved", date="2026-03-25", reference="SWPPP-2026-014",
                             body="planning_board"),
         phases=[("1", [[(30, 63), (430, 63), (430, 390), (30, 390)]], "2026-04-01", "2026-08-31"),
                 ("2", [[(450, 63), (870, 63), (870, 250), (450, 250)]], "2026-08-15", "2026-12-31"),
                 ("3", [[(450, 273), (870, 273), (870, 533), (450, 533)]], "2027-01-01", "2027-06-30")]),
    dict(id="S04", name="Taft Road distribution center", status="under_construction", road="Taft Rd", hn=5120,
         applicant="Northern Logistics Park LLC (fictitious)", center=(-76.2140, 43.1330), rot=-4,
         lots=[(700, 800, "449"), (500, 800, "340")], nbr="commercial",
         # approved after phase 2 began: 8.5 ac were disturbed at one time before the approval
         swppp_approval=dict(decision="approved", date="2026-09-15", reference="SWPPP-2026-022",
                             body="planning_board"),
         phases=[("1", [[(40, 73), (540, 73), (540, 474), (40, 474)]], "2026-05-01", "2026-12-31"),
                 ("2", [[(600, 73), (1100, 73), (1100, 413), (600, 413)]], "2026-09-01", "2027-05-31")]),
    dict(id="S05", name="Soule Road residences", status="under_construction", road="Soule Rd", hn=4302,
         applicant="Soule Road Residences LLC (fictitious)", center=(-76.2260, 43.1480), rot=15,
         lots=[(700, 500, "311")], nbr="residential", land_use="multi-family",
         swppp_approval=dict(decision="approved", date="2026-03-02", reference="SWPPP-2026-006",
                             body="planning_board"),
         phases=[("1", [[(40, 73), (440, 73), (440, 353), (40, 353)]], "2026-04-01", "2026-09-30"),
                 ("2", [[(300, 133), (620, 133), (620, 453), (300, 453)]], "2026-08-01", "2027-03-31"),
                 ("2B", [[(200, 233), (500, 233), (500, 453), (200, 453)]], "2026-10-01", "2027-03-31")]),
    dict(id="S06", name="Buckley Road self-storage", status="active", road="Buckley Rd", hn=7900,
         applicant="Buckley Storage Partners LLC (fictitious)", center=(-76.1700, 43.1380), rot=88,
         lots=[(400, 450, "330")], nbr="commercial",
         swppp_approval=dict(decision="approved", date="2026-05-12", reference="SWPPP-2026-031", body="officer"),
         outfall=(-76.1950, 43.1392),
         phases=[("1", [[(40, 73), (360, 73), (360, 423), (40, 423)]], "2026-06-01", "2026-11-30")]),
    dict(id="S07", name="Farm barn and lane, Wetzel Rd", status="under_construction", road="Wetzel Rd", hn=3975,
         applicant="Hollow Oak Farm (fictitious)", center=(-76.1450, 43.1620), rot=-20,
         lots=[(1300, 1100, "105")], nbr="rural", land_use="agricultural",
         # a new barn: not "agricultural activity" (§230-20 D(6))
         exemption_claims=[dict(code="agricultural activity", new_structures=True)],
         phases=[("1", [[(500, 533), (620, 533), (620, 43), (680, 43), (680, 533), (800, 533),
                         (800, 833), (500, 833)]], "2026-04-15", "2026-10-31")]),
    dict(id="S08", name="Stonegate lot 7 (part of Stonegate subdivision)", status="under_construction",
         road="Verplank Rd", hn=4217, applicant="Stonegate Builders Inc. (fictitious)",
         center=(-76.2225, 43.2020), rot=5, lots=[(150, 260, "311")], nbr="subdivision",
         common_plan=True, single_family=False, agricultural=False,  # common_plan_acres deliberately not recorded
         swppp_approval=dict(decision="approved", date="2026-04-10", reference="SWPPP-2026-019", body="officer"),
         phases=[("1", [[(15, 53), (135, 53), (135, 271), (15, 271)]], "2026-05-01", "2026-09-30")]),
    dict(id="S09", name="Henry Clay Blvd parking lot expansion", status="stabilized",
         road="Henry Clay Blvd", hn=3810, applicant="Liverpool Auto Care (fictitious)",
         center=(-76.1840, 43.1210), rot=-70, lots=[(180, 200, "484")], nbr="commercial",
         single_family=False, agricultural=False,
         phases=[("1", [[(20, 53), (160, 53), (160, 193), (20, 193)]], "2026-03-01", "2026-06-30")]),
    dict(id="S10", name="Moyers Corners retail (Oswego Rd)", status="under_construction", road="Oswego Rd", hn=7655,
         applicant="Moyers Corners Commons LLC (fictitious)", center=(-76.2330, 43.1730), rot=-35,
         lots=[(350, 400, "330")], nbr="commercial", single_family=False, agricultural=False,
         approved_swppp="SWPPP-2026-047",  # the legacy text column: a reference alone, no date
         phases=[("1", [[(30, 63), (320, 63), (320, 378), (30, 378)]], "2026-07-01", "2027-04-30")]),
    dict(id="S11", name="Oswego Rd townhouses (planned)", status="planned", road="Oswego Rd", hn=8520,
         applicant="Three Rivers Homes LLC (fictitious)", center=(-76.2560, 43.1830), rot=-40,
         lots=[(400, 600, "311"), (400, 600, "311")], nbr="residential", single_family=False, agricultural=False,
         phases=[]),
    # S12: storm sewer discharging INTO Onondaga Lake (northern end, W01, 0702-0003); the site itself
    # is in southern Clay, about 1.8 km from the shore (the outfall pipe is illustrative).
    dict(id="S12", name="Morgan Rd flex building (storm outfall to Onondaga Lake)", status="under_construction",
         road="Morgan Rd", hn=4180, applicant="Morgan Road Flex LLC (fictitious)",
         center=(-76.2120, 43.1250), rot=30, lots=[(420, 380, "449")], nbr="commercial",
         outfall=(-76.2243, 43.1077),
         swppp_approval=dict(decision="denied", date="2026-06-05", reference="SWPPP-2026-040", body="officer"),
         phases=[("1", [[(30, 63), (390, 63), (390, 373), (30, 373)]], "2026-06-15", "2026-11-30")]),
    # S13: just east of the town line (Town of Cicero): Clay's local law does not apply.
    dict(id="S13", name="Brewerton Rd car wash (Town of Cicero, outside Clay)", status="under_construction",
         road="Brewerton Rd", hn=6020, applicant="North Star Car Wash LLC (fictitious)",
         center=(-76.1264, 43.1500), rot=0, lots=[(330, 380, "330")], nbr="commercial",
         single_family=False, agricultural=False,
         phases=[("1", [[(20, 53), (310, 53), (310, 393), (20, 393)]], "2026-05-01", "2026-09-30")]),
    # S14: routine maintenance (5)(c) claimed, but whether the work keeps the original line and grade /
    # hydraulic capacity / purpose (maintains_original) is not recorded; landscaping (5)(k) claimed too,
    # without the officer's finding that it is "in connection with an existing structure".
    dict(id="S14", name="Drainage ditch regrading, Gaskin Rd business park", status="under_construction",
         road="Gaskin Rd", hn=3650, applicant="Gaskin Road Business Park owners' association (fictitious)",
         center=(-76.1920, 43.1380), rot=0, lots=[(850, 200, "449")], nbr="rural",
         single_family=False, agricultural=False,
         exemption_claims=[dict(code="routine maintenance"), dict(code="k")],
         phases=[("1", [[(15, 148), (755, 148), (755, 48), (835, 48), (835, 228), (15, 228)]],
                  "2026-07-15", "2026-09-15")]),
    # S15: south of the town line, on Ley Creek (listed for phosphorus): the law does not apply there,
    # and the report says so, but the water facts are shown for information.
    dict(id="S15", name="Salina warehouse addition (Town of Salina, outside Clay)", status="under_construction",
         road="Townline Rd", hn=6100, applicant="Ley Creek Logistics LLC (fictitious)",
         center=(-76.1360, 43.0950), rot=0, lots=[(420, 420, "340")], nbr="commercial",
         single_family=False, agricultural=False,
         phases=[("1", [[(20, 53), (400, 53), (400, 433), (20, 433)]], "2026-06-01", "2026-11-30")]),
]

NBR = {  # neighbour lot (width range, depth range, classes)
    "residential": ((85, 120), (170, 220), ["210", "210", "210", "220", "311"]),
    "subdivision": ((100, 140), (220, 280), ["311", "311", "210", "210"]),
    "commercial": ((150, 260), (250, 400), ["484", "330", "449", "210", "311"]),
    "rural": ((180, 320), (350, 600), ["210", "240", "311", "312"]),
}
SECTION = {s["id"]: 20 + 7 * i for i, s in enumerate(SITES)}
# Neighbour lots draw their NY RPS property class from the real Clay assessment roll
# (onondaga-parcel-attributes, 19,498 rows), within the classes that fit the neighbourhood, and
# their house number from the real numbers on their street. A separate generator keeps the
# lots' geometry as it was.
PARCEL_ROWS = os.path.join(OUT, "..", "..", "..", "shared", "data", "real", "onondaga-parcel-attributes",
                           "clay_tax_parcel_attributes.csv")
CLASS_GROUPS = {"residential": ("2", "311", "312"), "subdivision": ("210", "220", "311", "312"),
                "commercial": ("4", "330", "340"), "rural": ("2", "1", "311", "312", "322"),
                "farm": ("1", "321", "322", "323")}
CLASS_RNG = random.Random(SEED + 1)


def read_roll():
    """(class -> count over Clay, street -> sorted real house numbers)."""
    counts, numbers = {}, {}
    with open(PARCEL_ROWS, encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            cls = row["PROP_CLASS"].strip()
            counts[cls] = counts.get(cls, 0) + 1
            num, _, street = row["PARCELADDR"].strip().partition(" ")
            if num.isdigit() and street:
                numbers.setdefault(street.strip(), set()).add(int(num))
    return counts, {k: sorted(v) for k, v in numbers.items()}


ROLL_COUNTS, ROLL_NUMBERS = read_roll()


def real_class(kind):
    """A property class drawn with its real Clay frequency among those that fit `kind`."""
    fits = sorted(c for c in ROLL_COUNTS if c.startswith(CLASS_GROUPS[kind]))
    return CLASS_RNG.choices(fits, weights=[ROLL_COUNTS[c] for c in fits])[0]


def real_number(street, num, used):
    """The real house number on `street` nearest `num` not yet given out, else `num`."""
    free = [n for n in ROLL_NUMBERS.get(street, []) if (street, n) not in used]
    if not free:
        return num
    n = min(free, key=lambda x: (abs(x - num), x))
    used.add((street, n))
    return n


def local_to_2261(site):
    x0, y0 = TO_2261.transform(*site["center"])
    th = math.radians(site["rot"])
    c, s = math.cos(th), math.sin(th)
    # shift so the site block is centred on `center`
    w = sum(l[0] for l in site["lots"])
    d = max(l[1] for l in site["lots"])
    cu, cv = w / 2.0, ROW + d / 2.0

    def f(u, v):
        u, v = u - cu, v - cv
        return (x0 + u * c - v * s, y0 + u * s + v * c)
    return f


def rect(u0, v0, u1, v1):
    return [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]


def sbl(sec, blk, lot):
    return f"{sec:03d}.-{blk:02d}-{lot:02d}.0"


# Real roads: TIGER/Line 2015 All Roads, Onondaga County (public domain).
TIGER_ROADS = os.path.join(OUT, "..", "..", "..", "shared", "data", "real", "tiger-onondaga",
                           "tl_2015_36067_roads.shp")
# Roads "meet" the town when they reach within this of its boundary polygon, so sites just
# outside it (S13, 263 m out) still sit among their streets.
ROADS_REACH_M = 600.0
# Classes that carry a street address (not limited-access highways, ramps, walkways or
# parking-lot aisles); a name needs a letter (TIGER names some service roads by number).
ADDRESS_MTFCC = {"S1200", "S1400", "S1640", "S1730", "S1740"}


TIGER_TOWN = os.path.join(OUT, "..", "..", "..", "shared", "data", "real", "tiger-onondaga", "town_of_clay_2010.geojson")


def read_town():
    """The Town of Clay as the US Census drew it (TIGER/Line 2010 county subdivision, public domain)."""
    with open(TIGER_TOWN, encoding="utf-8") as fh:
        return shape(json.load(fh)["features"][0]["geometry"])


def read_roads(town):
    """The TIGER roads that meet the town boundary: [(shapely line, props)], in file order."""
    reader = shapefile.Reader(TIGER_ROADS, encoding="utf-8")
    # The town, and the sites beyond its line (S15 on Ley Creek), each with its streets.
    town_utm = unary_union([to_utm(town)] + [to_utm(Point(s["center"])) for s in SITES]).buffer(ROADS_REACH_M)
    roads = []
    for sr in reader.iterShapeRecords():
        rec = sr.record.as_dict()
        # NAD83 geographic; NAD83 -> WGS84 differs by ~1 m here, below the rounding used.
        line = shapely.geometry.shape(sr.shape.__geo_interface__)
        if line.is_empty or not to_utm(line).intersects(town_utm):
            continue
        props = {"LINEARID": rec["LINEARID"], "FULLNAME": rec["FULLNAME"] or "", "MTFCC": rec["MTFCC"]}
        roads.append((shapely.set_precision(line, 1e-6), props))
    return roads


def street_finder(roads):
    """nearest(lon, lat) -> the name of the nearest named road that carries addresses."""
    named = [(g, p["FULLNAME"]) for g, p in roads if p["MTFCC"] in ADDRESS_MTFCC and any(c.isalpha() for c in p["FULLNAME"])]
    tree = shapely.STRtree([g for g, _ in named])

    def nearest(lon, lat):
        return named[int(tree.nearest(Point(lon, lat)))][1]
    return nearest


def make_parcels(street_of):
    parcels = []  # dicts: id, address, class, poly2261 (shapely), site
    used = set()
    for site in SITES:
        f = local_to_2261(site)
        sec = SECTION[site["id"]]
        wr, dr, classes = NBR[site["nbr"]]
        lots = []  # (u0,v0,u1,v1,class,site_or_None, side)
        u = 0.0
        for (w, d, cls) in site["lots"]:
            lots.append((u, ROW, u + w, ROW + d, cls, site["id"], "N"))
            u += w
        w_site = u
        # north side neighbours, left and right
        ul = 0.0
        for _ in range(6):
            w = RNG.randint(*wr)
            lots.append((ul - w, ROW, ul, ROW + RNG.randint(*dr), real_class(site["nbr"]), None, "N"))
            RNG.choice(classes)  # the geometry's random sequence stays as it was
            ul -= w
        ur = w_site
        for _ in range(6):
            w = RNG.randint(*wr)
            lots.append((ur, ROW, ur + w, ROW + RNG.randint(*dr), real_class(site["nbr"]), None, "N"))
            RNG.choice(classes)
            ur += w
        # south side, same span
        us = ul
        while us < ur - 40:
            w = min(RNG.randint(*wr), ur - us)
            lots.append((us, -ROW - RNG.randint(*dr), us + w, -ROW, real_class(site["nbr"]), None, "S"))
            RNG.choice(classes)
            us += w
        # farm / large parcels behind the south row and beyond the north row ends
        dmax = max(dr[1], 0)
        fv1 = -ROW - dmax - 40
        span = ur - ul
        nfarm = 2 if span < 2600 else 3
        fw = span / nfarm
        for i in range(nfarm):
            depth = RNG.randint(900, 1500)
            lots.append((ul + i * fw, fv1 - depth, ul + (i + 1) * fw - 30, fv1,
                         real_class("farm"), None, "F"))
            RNG.choice(["105", "120", "322", "105"])
        # number the lots and address them on the nearest real street
        n_n, n_s, n_f = 0, 0, 0
        for (u0, v0, u1, v1, cls, sid, side) in sorted(lots, key=lambda l: (l[6], l[0])):
            poly = Polygon([f(a, b) for a, b in rect(u0, v0, u1, v1)])
            road = street_of(*FROM_2261.transform(poly.centroid.x, poly.centroid.y))
            if side == "N":
                n_n += 1
                pid, num = sbl(sec, 1, n_n), site["hn"] + 2 * int((u0 + 5000) // 100) - 100
            elif side == "S":
                n_s += 1
                pid, num = sbl(sec, 2, n_s), site["hn"] + 2 * int((u0 + 5000) // 100) - 99
            else:
                n_f += 1
                pid, num = sbl(sec, 3, n_f), site["hn"] + 2 * int((u0 + 5000) // 100) + 1
            if sid is None:
                num = real_number(road, num, used)
            if sid is not None:
                addr = f"{site['hn']} {road}"
            elif side != "F" and cls in ("311", "322", "330", "340"):
                addr = f"{road} (vacant lot)"
            elif side == "F":
                addr = f"{num} {road} (rear)"
            else:
                addr = f"{num} {road}"
            parcels.append(dict(id=pid, address=addr, cls=cls, poly=poly, site=sid))
    # checks: unique ids, no overlaps
    ids = [p["id"] for p in parcels]
    assert len(ids) == len(set(ids))
    for i, a in enumerate(parcels):
        for b in parcels[i + 1:]:
            if a["poly"].intersects(b["poly"]):
                assert a["poly"].intersection(b["poly"]).area < 1e-3, (a["id"], b["id"])
    return parcels


def ll_poly_from_2261(poly):
    return shapely.transform(poly, lambda x, y: FROM_2261.transform(x, y), interleaved=False)


def geod_acres(geom):
    """Geodesic acres of a lon/lat (multi)polygon (WGS84 ellipsoid)."""
    if geom.is_empty:
        return 0.0
    polys = [geom] if geom.geom_type == "Polygon" else [g for g in getattr(geom, "geoms", []) if g.geom_type == "Polygon"]
    total = 0.0
    for p in polys:
        total += abs(GEOD.polygon_area_perimeter(*p.exterior.xy)[0])
        for hole in p.interiors:
            total -= abs(GEOD.polygon_area_perimeter(*hole.xy)[0])
    return total / SQM_PER_ACRE


def round_poly(poly):
    """Round a lon/lat polygon to 7 decimals, CCW outer ring (RFC 7946)."""
    ext = [rpt(p) for p in poly.exterior.coords]
    p = orient(Polygon(ext), sign=1.0)
    assert p.is_valid, "invalid polygon"
    return p


# --------------------------------------------------------------------------------------------
# 4. Writers
# --------------------------------------------------------------------------------------------
def fc(features):
    return {"type": "FeatureCollection", "features": features}


def poly_feature(props, poly):
    ring = [[x, y] for x, y in poly.exterior.coords]
    return {"type": "Feature", "properties": props, "geometry": {"type": "Polygon", "coordinates": [ring]}}


def write_json(name, obj):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")


def to_utm(geom):
    return shapely.transform(geom, lambda x, y: TO_UTM.transform(x, y), interleaved=False)


def main():
    # ---- the real network (hydro.py): NHDPlusV2 flowlines, the PWL crosswalk, local names
    hreaches, segs, _, names, lake_polys, area, _ = HY.build()
    written = HY.write(hreaches, segs, names, lake_polys, area)
    reaches = [{"reach_id": str(c), "name": r["name"],
                "pwl_id": r["pwl_id"], "nhd": r["gnis"],
                "down": None if r["down"] is None else str(r["down"]),
                "coords": [(r7(x), r7(y)) for x, y in r["coords"]]}
               for c, r in sorted(hreaches.items(), key=lambda kv: kv[1]["p"]["Hydroseq"])]
    DOWN.update({r["reach_id"]: r for r in reaches})
    for r in reaches:
        r["next"] = r["down"]
    wbs = [(p["wb_id"], p["name"], p["pwl_id"], shape(HY.round_geom(g))) for p, g in written]
    # An unnamed reach whose midpoint lies in a named waterbody (a lake, or a river drawn as area
    # water) takes the waterbody's name, as a SWPPP names a path through a lake.
    for r in reaches:
        if not r["name"]:
            mid = LineString(r["coords"]).interpolate(0.5, normalized=True)
            r["name"] = next((n for _, n, _, g in wbs if n and g.contains(mid)), "")
    outlet = HY.lake_outlet(hreaches)
    tmdl = shape(HY.round_geom(unary_union(list(lake_polys.values()))))
    write_json("tmdl_watersheds.geojson", fc([poly_feature({
        "tmdl_id": "ONONDAGA-LAKE-P-2012", "name": "Onondaga Lake phosphorus TMDL (2012)",
        "pollutant": "phosphorus", "stormwater_source": TMDL_STORMWATER_SOURCE,
        "outlet_comid": str(outlet),
        "note": ("the watershed is every NHDPlusV2 reach upstream of Onondaga Lake's outlet reach (outlet_comid) "
                 "by the network, plus the lake drawn here (TIGER 2015 area water); EPA approved 2012-06-29"),
        "source": "NYSDEC web page 'Onondaga Lake Phosphorus TMDL', http://www.dec.ny.gov/chemical/67594.html"},
        tmdl)]))
    town = round_poly(read_town())
    write_json("town_boundary.geojson", fc([poly_feature({
        "name": "Town of Clay", "note": "US Census TIGER/Line 2010 county subdivision Clay town (GEOID 3606716067), public domain"},
        town)]))

    # impaired table: rows transcribed from the OEI table of the 2012 NYS 303(d) list
    oei = ("Onondaga Environmental Institute (OEI), 'Tributaries' (Our Watershed), Table 1 'Waters in the "
           "Onondaga Lake Watershed that are currently listed as impaired under the 2012 NYS 303(d) List of "
           "Impaired Waters', https://oei2.org/our-watershed/tributaries; PWL ID assigned by name match to "
           "NYSDEC PWL 2023")
    rows = [
        ("0702-0003", "Onondaga Lake, northern end", "Dioxin", "Contaminated sediment"),
        ("0702-0003", "Onondaga Lake, northern end", "mercury", "Contaminated sediment"),
        ("0702-0003", "Onondaga Lake, northern end", "PCBs", "Contaminated sediment"),
        ("0702-0003", "Onondaga Lake, northern end", "other toxins", "Contaminated sediment"),
        ("0702-0021", "Onondaga Lake, southern end", "Dioxin", "Contaminated sediment"),
        ("0702-0021", "Onondaga Lake, southern end", "mercury", "Contaminated sediment"),
        ("0702-0021", "Onondaga Lake, southern end", "PCBs", "Contaminated sediment"),
        ("0702-0021", "Onondaga Lake, southern end", "other toxins", "Contaminated sediment"),
        ("0702-0021", "Onondaga Lake, southern end", "Pathogen", "CSOs, municipal, urban runoff"),
        ("0702-0020", "Onondaga Lake Outlet", "Dissolved oxygen/oxygen demand", "Municipal, urban runoff"),
        ("0702-0001", "Ley Creek and tribs", "pathogens", "CSOs, municipal, urban runoff"),
        ("0702-0001", "Ley Creek and tribs", "nutrients (phosphorus)", "CSOs, municipal, urban runoff"),
        ("0702-0001", "Ley Creek and tribs", "ammonia", "CSOs, municipal, urban runoff"),
        ("0702-0001", "Ley Creek and tribs", "cyanide", "CSOs, municipal, urban runoff"),
        ("0702-0006", "Bloody Brook and tribs", "Aquatic toxicity", "Unknown"),
        ("0702-0006", "Bloody Brook and tribs", "Pathogens", "Municipal, urban runoff"),
    ]
    with open(os.path.join(OUT, "impaired_303d.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["pwl_id", "segment_name", "pollutant", "category", "source", "citation"])
        for pwl, seg, pol, src in rows:
            w.writerow([pwl, seg, pol, "5", src, oei])
    impaired = {}
    for pwl, seg, pol, _ in rows:
        impaired.setdefault(pwl, []).append(pol)

    # ---- roads (real, TIGER 2015) and parcels addressed on them
    roads = read_roads(town)
    write_json("roads.geojson", fc([{"type": "Feature", "properties": p, "geometry": mapping(g)}
                                    for g, p in roads]))
    parcels = make_parcels(street_finder(roads))
    w = shapefile.Writer(os.path.join(OUT, "parcels"), shapeType=shapefile.POLYGON)
    w.field("PARCEL_ID", "C", size=16)
    w.field("ADDRESS", "C", size=48)
    w.field("PROP_CLASS", "C", size=3)
    w.field("ACRES", "N", size=10, decimal=3)
    for p in parcels:
        ring = [(round(x, 2), round(y, 2)) for x, y in p["poly"].exterior.coords]
        cw = orient(Polygon(ring), sign=-1.0)  # shapefile outer rings are clockwise
        p["poly"] = Polygon(cw.exterior.coords)
        p["ll"] = ll_poly_from_2261(p["poly"])
        p["acres"] = geod_acres(p["ll"])
        w.poly([[list(c) for c in cw.exterior.coords]])
        w.record(p["id"], p["address"], p["cls"], round(p["acres"], 3))
    w.close()
    # pyshp stamps the .dbf header with today's date; a fixed date keeps the output deterministic.
    with open(os.path.join(OUT, "parcels.dbf"), "r+b") as fh:
        fh.seek(1)
        fh.write(bytes([2026 - 1900, 11, 30]))
    with open(os.path.join(OUT, "parcels.prj"), "w") as fh:
        fh.write(CRS.from_epsg(2261).to_wkt(WktVersion.WKT1_ESRI))
    with open(os.path.join(OUT, "parcels.cpg"), "w") as fh:
        fh.write("UTF-8")

    # ---- sites and disturbance
    site_feats, dist_feats, results = [], [], []
    ctx = dict(
        reaches=reaches, rid={r["reach_id"]: r for r in reaches},
        flow_utm=[(r, to_utm(LineString(r["coords"]))) for r in reaches],
        wbs=[dict(id=w_, name=n, pwl=p, ll=g, utm=to_utm(g)) for w_, n, p, g in wbs],
        by_start={r["coords"][0]: r for r in reaches}, impaired=impaired, tmdl=tmdl, town=town,
        tmdl_outlet=str(outlet), reach_pwl={r["reach_id"]: r["pwl_id"] for r in reaches},
        wb_pwl={w_: p for w_, _, p, _ in wbs})
    for site in SITES:
        sp = [p for p in parcels if p["site"] == site["id"]]
        site_ll = round_poly(unary_union([p["ll"] for p in sp]).buffer(0))
        parcels_ll = unary_union([p["ll"] for p in sp])
        outfall = site.get("outfall")
        props = {
            "site_id": site["id"], "name": site["name"], "status": site["status"],
            "address": sp[0]["address"], "applicant": site["applicant"]}
        # Land use: the typed `land_use` word, or the older yes/no flags, or neither (then the parcel
        # class decides Condition C's exclusion).
        if "land_use" in site:
            props["land_use"] = site["land_use"]
        for k in ("single_family", "agricultural"):
            if k in site:
                props[k] = site[k]
        props["common_plan"] = site.get("common_plan", False)
        # The typed approval {decision, date, reference, body}; S10 keeps the older text column
        # `approved_swppp` (a reference alone). Omitted when no decision is recorded.
        if site.get("swppp_approval"):
            props["swppp_approval"] = dict(site["swppp_approval"])
        if site.get("approved_swppp"):
            props["approved_swppp"] = site["approved_swppp"]
        props.update({"exemption_claims": [dict(c) for c in site.get("exemption_claims", [])],
                      "parcel_ids": ";".join(p["id"] for p in sp),
                      "outfall": f"{outfall[0]},{outfall[1]}" if outfall else ""})
        for k in OPTIONAL_COLUMNS:  # omitted when not recorded
            if k in site:
                props[k] = site[k]
        site_feats.append(poly_feature(props, site_ll))
        f = local_to_2261(site)
        phases = []
        for k, (ph, rings, start, end) in enumerate(site["phases"]):
            poly2261 = Polygon([f(a, b) for a, b in rings[0]])
            assert poly2261.is_valid
            g = round_poly(ll_poly_from_2261(poly2261))
            did = f"D{site['id'][1:]}-{k + 1}"
            dist_feats.append(poly_feature({"dist_id": did, "site_id": site["id"], "phase": ph,
                                            "start": start, "end": end}, g))
            phases.append((ph, g, date.fromisoformat(start), date.fromisoformat(end)))
        results.append(evaluate(site, site_ll, parcels_ll, [p["cls"] for p in sp], phases, ctx))
        check_site_placement(site, site_ll, results[-1], ctx)
    write_json("sites.geojson", fc(site_feats))
    import points
    pts = points.write_points(ctx, evaluate, r7, tri, to_utm)
    write_json("disturbance.geojson", fc(dist_feats))
    write_manifest()
    write_expected(results, reaches, parcels)
    print(f"{len(reaches)} reaches, {len(parcels)} parcels, {len(site_feats)} sites, "
          f"{len(dist_feats)} disturbance polygons, {len(pts)} checked points")


# --------------------------------------------------------------------------------------------
# 5. Expected results (computed, quoted in README.md)
# --------------------------------------------------------------------------------------------
DOWN = {}  # reach_id -> reach: the next reach down by NHDPlusV2 DnHydroseq


def display_name(r, reaches_by_start):
    if r["name"].strip():
        return r["name"]
    cur = r
    while cur is not None:
        if cur["name"].strip():
            return f"unnamed tributary to {cur['name']}"
        cur = DOWN.get(cur["next"]) if cur["next"] else None
    return "unnamed tributary"


def causes_construction(causes):
    return [c for c in causes if any(w in c.lower() for w in CONSTRUCTION_POLLUTANTS)]


# Tri-state values: True = yes, False = no, None = null (Kleene logic).
def and3(a, b):
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def or3(a, b):
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def yn(b):
    return "yes" if b else "no"


def tri(v):
    return "null" if v is None else ("yes" if v else "no")


def wb_display(w):
    return w["name"] if w["name"].strip() else "unnamed waterbody"


def midpoint(r):
    return LineString(r["coords"]).interpolate(0.5, normalized=True)


def reach_listing(r, ctx):
    """[(pwl_id, causes)]: the reach's own PWL ID, plus the listing of a waterbody that contains the
    reach's midpoint when the reach's PWL ID is empty or the same as the waterbody's."""
    imp = ctx["impaired"]
    out = []
    if r["pwl_id"] in imp:
        out.append((r["pwl_id"], imp[r["pwl_id"]]))
    mid = midpoint(r)
    for w in ctx["wbs"]:
        if (w["pwl"] and w["pwl"] in imp and r["pwl_id"] in ("", w["pwl"]) and w["ll"].contains(mid)
                and w["pwl"] not in [p for p, _ in out]):
            out.append((w["pwl"], imp[w["pwl"]]))
    return out


# The 303(d) rows loaded are OEI's table of the Onondaga Lake watershed: complete for DEC's
# 0702 sub-basin only (the manifest's `covers`). Elsewhere a segment's listing is unknown.
COVERS = ["0702-"]


def unknown_listing(pwl, ctx):
    """A segment the list loaded does not cover: its listing is unknown, not "no"."""
    return bool(pwl) and pwl not in ctx["impaired"] and not any(pwl.startswith(c) for c in COVERS)


def wb_listing(w, ctx):
    return [(w["pwl"], ctx["impaired"][w["pwl"]])] if w["pwl"] in ctx["impaired"] else []


def lake_reach(w, from_utm, ctx):
    """The flowline reach whose midpoint lies inside waterbody w, nearest from_utm (UTM metres)."""
    geoms = {r["reach_id"]: g for r, g in ctx["flow_utm"]}
    inside = [r for r in ctx["reaches"] if w["ll"].contains(midpoint(r))]
    if not inside:
        return None, None
    d, rid = min((from_utm.distance(geoms[r["reach_id"]]), r["reach_id"]) for r in inside)
    return ctx["rid"][rid], d


def nearest_water(geom_utm, ctx):
    """(distance m, kind, id) of the nearest flowline or waterbody. Exact ties: flowline first, then id."""
    c = [(geom_utm.distance(g), 0, r["reach_id"]) for r, g in ctx["flow_utm"]]
    c += [(geom_utm.distance(w["utm"]), 1, w["id"]) for w in ctx["wbs"]]
    d, kind, wid = min(c)
    return d, ("flowline" if kind == 0 else "waterbody"), wid


def evaluate(site, site_ll, parcels_ll, classes, phases, ctx):
    res = {"id": site["id"], "name": site["name"], "site": site}
    reaches, rid, by_start = ctx["reaches"], ctx["rid"], ctx["by_start"]
    wb_by_id = {w["id"]: w for w in ctx["wbs"]}
    geoms = {r["reach_id"]: g for r, g in ctx["flow_utm"]}
    if phases:
        footprint = unary_union([g for _, g, _, _ in phases])
        res["total"] = geod_acres(footprint)
        res["sum_phases"] = sum(geod_acres(g) for _, g, _, _ in phases)
        res["outside"] = geod_acres(footprint.difference(parcels_ll))
        best, best_d = peak_at_one_time(phases)
        res["peak"], res["peak_date"] = best, best_d.isoformat()
        res["phase_acres"] = [(ph, geod_acres(g), s.isoformat(), e.isoformat()) for ph, g, s, e in phases]
    else:
        footprint = site_ll  # no disturbance records: the site polygon locates the site
        res.update(total=0.0, sum_phases=0.0, outside=0.0, peak=0.0, peak_date="", phase_acres=[])
    fu = to_utm(footprint)

    # ---- jurisdiction: the interiors overlap (a site sharing only an edge or a corner is outside)
    res["jurisdiction"] = footprint.relate_pattern(ctx["town"], "T********")
    res["outside_town_m"] = 0.0 if res["jurisdiction"] else fu.distance(to_utm(ctx["town"]))

    # ---- nearest waters to the footprint (for information)
    res["nearest_flow_m"], res["nearest_flow_id"] = min((fu.distance(g), r["reach_id"]) for r, g in ctx["flow_utm"])
    res["nearest_wb_m"], res["nearest_wb_id"] = min((fu.distance(w["utm"]), w["id"]) for w in ctx["wbs"])

    # ---- entry: where the runoff enters the network
    outfall = site.get("outfall")
    # The storm sewer (storm.py's illustrative pipes) comes after the applicant's outfall point: the
    # water enters at the outfall the pipes reach from the catch basins in or near the footprint.
    res["sewer"] = None if outfall else ST.trace(footprint)
    if res["sewer"]:
        assert len(res["sewer"]["outfalls"]) == 1, "the demo's systems each end at one outfall"
        outfall = res["sewer"]["outfalls"][0][1]
    entry_reach, entry_wb, entry_pt, entry_d, lake_d = None, None, None, None, None
    if outfall:
        pu = to_utm(Point(outfall))
        entry_d, kind, wid = nearest_water(pu, ctx)
        res["entry_rule"], entry_pt = ("storm_sewer" if res["sewer"] else "outfall_point"), pu
        if kind == "flowline":
            entry_reach = rid[wid]
        else:
            entry_wb = wb_by_id[wid]
            entry_reach, lake_d = lake_reach(entry_wb, pu, ctx)
        res["outfall_in_tmdl"] = ctx["tmdl"].contains(Point(outfall))
    else:
        d, kind, wid = nearest_water(fu, ctx)
        res["outfall_in_tmdl"] = False
        if d <= SEARCH_RADIUS_M:
            res["entry_rule"], entry_pt, entry_d = "nearest", fu.centroid, d
            if kind == "flowline":
                entry_reach = rid[wid]
            else:
                entry_wb = wb_by_id[wid]
                entry_reach, lake_d = lake_reach(entry_wb, fu, ctx)
        else:
            res["entry_rule"] = "none"
    res["entry_reach"], res["entry_wb"], res["entry_d"], res["lake_d"] = entry_reach, entry_wb, entry_d, lake_d
    known = res["entry_rule"] != "none"

    # ---- trace downstream: (reach, distance_m from the entry point to the reach's upstream start)
    path = []
    if entry_reach is not None:
        g0 = geoms[entry_reach["reach_id"]]
        along_end = g0.length - g0.project(entry_pt)
        cur, run = entry_reach, 0.0
        while cur is not None:
            path.append((cur, 0.0 if cur is entry_reach else run))
            run = along_end if cur is entry_reach else run + geoms[cur["reach_id"]].length
            cur = DOWN.get(cur["next"]) if cur["next"] else None
    res["path"] = path
    names = [wb_display(entry_wb)] if entry_wb is not None else []
    for r, _ in path:
        nm = display_name(r, by_start)
        if not names or names[-1] != nm:
            names.append(nm)
    res["names"] = names

    # ---- first impaired downstream (entry waterbody first, then the path)
    res["first_impaired"] = None
    if entry_wb is not None and wb_listing(entry_wb, ctx):
        res["first_impaired"] = (wb_display(entry_wb), entry_reach["reach_id"] if entry_reach else entry_wb["id"],
                                 wb_listing(entry_wb, ctx), 0.0)
    if res["first_impaired"] is None:
        for r, d in path:
            lst = reach_listing(r, ctx)
            if lst:
                res["first_impaired"] = (display_name(r, by_start), r["reach_id"], lst, d)
                break

    # ---- Condition A water test: waters in scope = the first receiving water + path reaches <= 1 mile
    scope = []  # (label, listing, line-or-polygon geometry in lon/lat)
    if entry_wb is not None:
        scope.append((f"{wb_display(entry_wb)} {entry_wb['id']}", wb_listing(entry_wb, ctx), entry_wb["ll"], 0.0, "wb"))
    for r, d in path:
        if d <= COND_A_DOWNSTREAM_M:
            scope.append((f"{display_name(r, by_start)} {r['reach_id']}", reach_listing(r, ctx),
                          LineString(r["coords"]), d, "reach"))
    res["a303"] = None
    for label, lst, _, d, _ in scope:
        for pwl, causes in lst:
            cc = causes_construction(causes)
            if cc and res["a303"] is None:
                res["a303"] = (label, pwl, cc, d)
    res["unknown"] = [(label, pwl) for label, pwl in
                      [(lbl, (ctx["wb_pwl"].get(lbl.rsplit(" ", 1)[-1]) if kind == "wb" else ctx["reach_pwl"][lbl.rsplit(" ", 1)[-1]]))
                       for lbl, _, _, _, kind in scope] if unknown_listing(pwl, ctx)]
    res["p303"] = True if res["a303"] else (None if not known or res["unknown"] else False)
    res["tmdl_hit"] = None
    if res["outfall_in_tmdl"]:
        res["tmdl_hit"] = "at the outfall point, which lies inside the watershed"
    elif any(r["reach_id"] == ctx["tmdl_outlet"] for r, _ in path):
        res["tmdl_hit"] = (f"at the entry reach {path[0][0]['reach_id']}, upstream of the lake's outlet reach "
                           f"{ctx['tmdl_outlet']} by DnHydroseq")
    elif ctx.get("tmdl_outlet"):
        pass  # the watershed is the network's: a water merely touching the lake's polygon is not in it
    else:
        for label, _, g, d, kind in scope:
            if g.intersects(ctx["tmdl"]):
                res["tmdl_hit"] = (f"in {label} (the first receiving water), which lies in the watershed" if kind == "wb"
                                   else f"via {label} at {d:.0f} m, which runs in the watershed")
                break
    if res["tmdl_hit"] and TMDL_STORMWATER_SOURCE is not False:
        # "a TMDL designated watershed for which pollutants in stormwater have been identified as a source"
        res["ptmdl"] = True if TMDL_STORMWATER_SOURCE else None
    else:
        res["ptmdl"] = False if known else None
    res["water"] = or3(res["p303"], res["ptmdl"])

    # ---- the site record, typed
    res["status_code"], res["status_word"] = read_status(site)
    res["approval"] = read_approval(site)
    res["land"] = land_statement(site, classes)

    # ---- rules
    recorded = bool(phases)
    outside = not res["jurisdiction"]
    total = res["total"]
    cp = site.get("common_plan", False)  # written for every site (False unless set); None = not recorded
    if not recorded:
        res["lda"] = None
    elif total >= LDA_ACRES or (cp is True and total > 0):
        res["lda"] = True
    elif cp is None and total > 0:
        res["lda"] = None  # below 1 ac: whether it is part of a larger common plan decides
    else:
        res["lda"] = False
    plan_used = cp is True and site.get("common_plan_acres") is not None
    res["acres_bc"] = site["common_plan_acres"] if plan_used else total
    acres_known = recorded or plan_used
    if outside:
        res["B"] = False
    else:
        res["B"] = and3(res["lda"], res["acres_bc"] >= COND_B_ACRES) if acres_known else None
    sf, ag = res["land"]["single_family"][0], res["land"]["agricultural"][0]
    if outside:
        res["C"] = False
    elif not acres_known:
        res["C"] = None
    elif not (LDA_ACRES <= res["acres_bc"] < COND_B_ACRES):
        res["C"] = False
    else:
        # "exclusive of the construction of single family residences and construction activities at
        # agricultural properties": excluded when either is stated, undetermined when neither is known.
        res["C"] = and3(res["lda"], None if or3(sf, ag) is None else not or3(sf, ag))
    res["exemption"], res["exemption_why"], res["claims"] = exemption(site, total, recorded, ag)
    res["swppp_required"] = and3(res["jurisdiction"], and3(res["lda"], res["exemption"] is not True))
    res["limit"], res["before_approval"] = five_acre_limit(res, phases)
    res["A"] = False if outside else and3(res["lda"], res["water"])
    res["full"] = and3(res["swppp_required"], or3(res["A"], or3(res["B"], res["C"])))
    res["preparer"] = and3(res["swppp_required"], res["A"])
    res["inspections"] = res["full"]
    res["active_without_approval"] = active_without_approval(res)
    return res


def peak_at_one_time(phases):
    """(acres, earliest date) of the largest union of the phases whose [start, end] covers a date."""
    best, best_d = -1.0, None
    for d in sorted({s for _, _, s, _ in phases} | {e for _, _, _, e in phases}):
        act = [g for _, g, s, e in phases if s <= d <= e]
        a = geod_acres(unary_union(act)) if act else 0.0
        if a > best + 1e-9:
            best, best_d = a, d
    return max(best, 0.0), best_d


def five_acre_limit(res, phases):
    """(7)(b)[1][d] "not more than five (5) acres shall be disturbed at any one time unless pursuant to an
    approved SWPPP" -> (tri-state, peak before the approval date or None)."""
    if not phases:
        return None, None
    if res["peak"] <= MAX_AT_ONCE + 1e-9:
        return False, None
    if res["swppp_required"] is False:
        return False, None
    ap = res["approval"]
    if ap is not None and ap["decision"] == "approved":
        if ap["date"] is None:
            return None, None  # approved, but from when is not known
        day = date.fromisoformat(ap["date"])
        # Disturbance on the days before the approval was not "pursuant to an approved SWPPP".
        before = [(ph, g, s, min(e, day - timedelta(days=1))) for ph, g, s, e in phases if s < day]
        acres = peak_at_one_time(before)[0] if before else 0.0
        return acres > MAX_AT_ONCE + 1e-9, acres
    if ap is not None and ap["decision"] == "unreadable":
        return None, None
    # No decision recorded, or denied / pending / withdrawn: nothing is approved.
    return and3(res["swppp_required"], True), None


def active_without_approval(res):
    """(4)(d), (7)(a): under construction, a SWPPP required, no approved SWPPP recorded."""
    code = res["status_code"]
    if code is None or code == "unreadable":
        return None
    if code != "under_construction":
        return False
    ap = res["approval"]
    if ap is not None and ap["decision"] == "unreadable":
        return None
    if ap is not None and ap["decision"] == "approved":
        return False
    return res["swppp_required"]


# The site record's words (docs/site-record.md), read whole after lower-casing and turning each run of
# punctuation into one space. Only the words this demo uses, and the ones the documentation names.
STATUS_WORDS = {"planned": "planned", "approved": "approved", "under construction": "under_construction",
                "under_construction": "under_construction", "active": "under_construction",
                "in progress": "under_construction", "stabilized": "stabilized", "closed": "closed",
                "withdrawn": "withdrawn"}
DECISIONS = ["approved", "denied", "pending", "withdrawn"]
LAND_USE_WORDS = {"single family residence": "single_family_residence", "single family": "single_family_residence",
                  "agricultural": "agricultural", "farm": "agricultural", "commercial": "other",
                  "multi family": "other", "industrial": "other", "other": "other"}
EXEMPTION_WORDS = {"agricultural activity": "a", "agriculture": "a", "silviculture": "b",
                   "routine maintenance": "c", "repair": "d", "approved plat": "e", "building permit": "f",
                   "cemetery graves": "g", "fence": "h", "emergency": "i", "home gardening": "j",
                   "landscaping": "k"}
# (5)(d), (g)-(k): the Stormwater Management Officer's finding each clause needs.
OFFICER_FINDINGS = {"d": "repair_deemed_necessary", "g": "activity_only", "h": "activity_only",
                    "i": "immediately_necessary", "j": "personal_use", "k": "existing_structure"}


def normalize(word):
    out, gap = [], False
    for ch in str(word).strip().lower():
        if ch.isalnum() or ch == "_":
            if gap and out:
                out.append(" ")
            out.append(ch)
            gap = False
        else:
            gap = True
    return "".join(out)


def read_status(site):
    """(code, word as recorded): code None when not recorded, "unreadable" for an unknown word."""
    word = site.get("status")
    if not word:
        return None, None
    return STATUS_WORDS.get(normalize(word), "unreadable"), word


def read_approval(site):
    """The SWPPP decision: {decision, date, reference, body, source}, or None when none is recorded.
    The older `approved_swppp` text ("the approval's date or reference") is an approval only when it is
    a date (optionally followed by a reference) or a single reference token with a digit in it."""
    a = site.get("swppp_approval")
    if a:
        assert a["decision"] in DECISIONS
        return dict(decision=a["decision"], date=a.get("date"), reference=a.get("reference"),
                    body=a.get("body"), source="swppp_approval")
    t = (site.get("approved_swppp") or "").strip()
    if not t:
        return None
    src = f"approved_swppp text '{t}'"
    head, _, rest = t.partition(" ")
    try:
        date.fromisoformat(head)
        return dict(decision="approved", date=head, reference=rest.strip() or None, body=None, source=src)
    except ValueError:
        pass
    if normalize(t) in DECISIONS:
        return dict(decision=normalize(t), date=None, reference=None, body=None, source=src)
    if " " not in t and any(c.isdigit() for c in t) and any(c.isalpha() for c in t):
        return dict(decision="approved", date=None, reference=t, body=None, source=src)
    return dict(decision="unreadable", date=None, reference=t, body=None, source=src)


def land_statement(site, classes):
    """Condition C's exclusion and the (5)(a) farm: {"single_family": (tri, source), "agricultural": ...}.
    The site record decides (`land_use`, else the older flags); the parcel class only when it is silent."""
    if "land_use" in site:
        code = LAND_USE_WORDS[normalize(site["land_use"])]
        src = "site record: land_use"
        return {"single_family": (code == "single_family_residence", src),
                "agricultural": (code == "agricultural", src)}

    def by_class(prefixes):
        if not classes:
            return None, None
        hits = [any(c.startswith(p) for p in prefixes) for c in classes]
        shown = classes[0] if all(hits) else classes[hits.index(False)]
        return all(hits), f"parcel class {shown}"
    out = {}
    for key, prefixes in (("single_family", SINGLE_FAMILY_CLASSES), ("agricultural", AGRICULTURAL_CLASSES)):
        out[key] = (site[key], f"site record: {key}") if key in site else by_class(prefixes)
    return out


def claim_code(text):
    """The (5) letter a claim names: the letter in any written form ("k", "(k)", "5k", "(5)(k)") or a phrase."""
    n = normalize(text)
    bare = n.removeprefix("230 20 d ")
    bare = bare.removeprefix("5 ") if bare.startswith("5 ") else bare.removeprefix("5")
    if len(bare) == 1:
        return bare if bare in "abcdefghijk" else None
    return EXEMPTION_WORDS.get(n)


def check_claim(claim, total, recorded, farm):
    """One claimed exemption against its clause -> (letter, tri-state, why)."""
    code = claim_code(claim["code"])
    if code is None:
        return None, None, f"'{claim['code']}' names none of the exemptions (5)(a)-(k)"
    if code == "a":
        ns = claim.get("new_structures")
        v = and3(None if ns is None else not ns, farm)
        if ns:
            why = ("(5)(a) does not apply: new_structures = true, and 'Agricultural Activity' (6) excludes "
                   "the construction of new structures")
        elif farm is False:
            why = "(5)(a) does not apply: the site is not an active farm"
        elif ns is None:
            why = "(5)(a) unverified: new_structures not recorded"
        elif farm is None:
            why = "(5)(a) unverified: whether the site is an active farm is not recorded"
        else:
            why = "(5)(a): an active farm's work with no new structures"
    elif code == "b":
        lhr = claim.get("landing_or_haul_road")
        v = None if lhr is None else not lhr
        why = f"(5)(b): landing areas or log haul roads {fmt_opt(lhr)}"
    elif code == "c":
        mo = claim.get("maintains_original")
        if not recorded:
            v, why = None, "(5)(c) unverified: no disturbance recorded"
        elif total >= MAINTENANCE_MAX_ACRES:
            v, why = False, f"(5)(c) needs less than 5 ac disturbed ({total:.3f} ac)"
        else:
            v = mo
            why = ("(5)(c) unverified: maintains_original not recorded (the original line and grade, hydraulic "
                   "capacity or original purpose)" if mo is None else
                   f"(5)(c): {total:.3f} ac, maintains the original line and grade, capacity or purpose: {fmt_opt(mo)}")
    elif code in "ef":
        field = "plat_approved" if code == "e" else "building_permit_approved"
        d = claim.get(field)
        v = None if d is None else date.fromisoformat(d) <= EFFECTIVE_DATE
        why = f"({code}): {field} {d or 'not recorded'}, effective date {EFFECTIVE_DATE}"
    else:
        field = OFFICER_FINDINGS[code]
        v = claim.get(field)
        why = (f"({code}) unverified: the Stormwater Management Officer's finding {field} is not recorded"
               if v is None else f"({code}): the officer's finding {field} = {fmt_opt(v)}")
    return code, v, why


def exemption(site, total, recorded, farm):
    """(5): yes when a claim is verified, no when every claim is refuted, null otherwise (an unverified
    claim changes no requirement) -> (tri-state, why, [(letter, tri-state)])."""
    claims = site.get("exemption_claims", [])
    if not claims:
        return False, "", []
    checks = [check_claim(c, total, recorded, farm) for c in claims]
    vals = [v for _, v, _ in checks]
    v = True if True in vals else (False if all(x is False for x in vals) else None)
    why = "; ".join(f"{c['code']}: {w}" for c, (_, _, w) in zip(claims, checks))
    return v, why, [(code, val) for code, val, _ in checks]


def check_site_placement(site, site_ll, res, ctx):
    """The geometric facts the README promises for the new test sites."""
    town = ctx["town"]
    if site["id"] == "S12":
        lake_n = {w["id"]: w for w in ctx["wbs"]}["0702-0003"]["ll"]
        assert lake_n.contains(Point(site["outfall"])), "S12 outfall must lie inside Onondaga Lake (0702-0003)"
        assert town.contains(site_ll), "S12 must lie inside the town"
        assert res["entry_wb"] is not None and res["entry_wb"]["id"] == "0702-0003" and res["entry_d"] == 0.0
    elif site["id"] == "S13":
        assert not town.intersects(site_ll), "S13 must lie outside the town"
        assert 100.0 <= to_utm(site_ll).distance(to_utm(town)) <= 400.0
        assert min(res["nearest_flow_m"], res["nearest_wb_m"]) <= SEARCH_RADIUS_M
    elif site["id"] == "S15":
        assert not town.intersects(site_ll), "S15 must lie outside the town"
        assert res["entry_reach"] is not None and res["entry_reach"]["pwl_id"] == "0702-0001", "S15 drains to Ley Creek"
    elif site["id"] == "S14":
        assert town.contains(site_ll)
        assert [c["code"] for c in site["exemption_claims"]] == ["routine maintenance", "k"]
        assert all("maintains_original" not in c and "existing_structure" not in c for c in site["exemption_claims"])


def listing_text(lst):
    return "; ".join(f"{pwl}: {', '.join(c)}" for pwl, c in lst)


def cond_a_cell(r):
    s = r["site"]
    fi = r["first_impaired"]
    yes_parts, no_parts = [], []
    if r["p303"]:
        lbl, pwl, cc, d = r["a303"]
        yes_parts.append(f"303(d): {lbl} ({pwl}) listed for {', '.join(cc)} at {d:.0f} m")
    elif r["p303"] is False:
        extra = ""
        if fi:
            cc = causes_construction([c for _, cs in fi[2] for c in cs])
            extra = (f" (first listed water: {fi[0]} {fi[1]}, {listing_text(fi[2])}, at {fi[3]:.0f} m; "
                     + ("construction-related but beyond 1609 m" if cc else "not construction-related") + ")")
        no_parts.append(f"303(d): no construction-related cause in the first receiving water or within 1609 m downstream{extra}")
    if r["ptmdl"]:
        yes_parts.append(f"TMDL: Onondaga Lake phosphorus TMDL (stormwater a listed source); the discharge enters it {r['tmdl_hit']}")
    elif r["ptmdl"] is False:
        no_parts.append("TMDL: no outfall, first receiving water or reach within 1609 m downstream in the TMDL watershed")
    unknown = (f"receiving water unknown: no flowline or waterbody within {SEARCH_RADIUS_M:.0f} m of the disturbance "
               f"(nearest flowline {r['nearest_flow_m']:.0f} m, nearest waterbody {r['nearest_wb_m']:.0f} m)")
    if r["entry_rule"] != "none" and r.get("unknown"):
        unknown = ("303(d) listing unknown: the list loaded does not cover "
                   + ", ".join(f"{lbl} ({pwl})" for lbl, pwl in r["unknown"]) + " in scope")
    water = ("yes (" + "; ".join(yes_parts) + ")" if r["water"] else
             "no (" + "; ".join(no_parts) + ")" if r["water"] is False else "null (" + unknown + ")")
    if r["A"] is True:
        return "yes: " + "; ".join(yes_parts)
    if not r["jurisdiction"]:
        return f"no: outside the Town of Clay, where this law does not apply; for information, water test {water}"
    if r["lda"] is False:
        cp = {True: "part of a common plan", False: "not part of a larger common plan"}.get(
            s.get("common_plan"), "common plan not recorded")
        return f"no: not a land development activity ({r['total']:.3f} ac, {cp}); water test {water}"
    if r["A"] is False:  # LDA yes or null, water test no
        return "no: " + "; ".join(no_parts)
    if r["water"] is None:
        return "null: " + unknown
    return f"null: no disturbance records, so whether this is a land development activity is unknown; water test {water}"


def entry_cell(r):
    rule, er, ew = r["entry_rule"], r["entry_reach"], r["entry_wb"]
    if rule == "none":
        return "none"
    rid_s = er["reach_id"] if er else "-"
    near = (f"nearest water to the disturbance: flowline {r['nearest_flow_id']} {r['nearest_flow_m']:.0f} m, "
            f"waterbody {r['nearest_wb_id']} {r['nearest_wb_m']:.0f} m")
    if ew is None and rule == "storm_sewer":
        s = r["sewer"]
        return (f"{rule} {rid_s} (catch basins {', '.join(s['inlets'])} through {len(s['pipes'])} pipes, "
                f"{s['length_m']:.0f} m, to outfall {s['outfalls'][0][0]}, {r['entry_d']:.0f} m from the reach; {near})")
    if ew is None:
        if rule == "outfall_point":
            return f"{rule} {rid_s} (outfall {r['entry_d']:.0f} m from the reach; {near})"
        return f"{rule} {rid_s} ({r['entry_d']:.0f} m)"
    where = (f"outfall inside {wb_display(ew)} {ew['id']}" if rule == "outfall_point" and r["entry_d"] == 0
             else f"{wb_display(ew)} {ew['id']} at {r['entry_d']:.0f} m")
    lake = (f"entry reach = nearest reach with its midpoint in {ew['id']}, {r['lake_d']:.0f} m" if er
            else f"no reach has its midpoint in {ew['id']}")
    return f"{rule} {rid_s} ({where}; {lake}" + (f"; {near})" if rule == "outfall_point" else ")")


def status_cell(r):
    code, word = r["status_code"], r["status_word"]
    if code is None:
        return "not recorded"
    return code if normalize(word) == normalize(code) else f"{code} (recorded '{word}')"


def approval_cell(r):
    """decision, date ("undated"), reference, body, and where it was read: "none" when no decision."""
    a = r["approval"]
    if a is None:
        return "none"
    return (f"{a['decision']} {a['date'] or 'undated'} ref {a['reference'] or '-'} by {a['body'] or '-'} "
            f"from {a['source']}")


def land_cell(r):
    return "; ".join(f"{k}={tri(v)} ({src or 'no source'})" for k, (v, src) in r["land"].items())


def claims_cell(r):
    if not r["claims"]:
        return "none"
    return "; ".join(f"({code or '?'}) {tri(v)}" for code, v in r["claims"])


def fmt_opt(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def write_expected(results, reaches, parcels):
    L = []
    L.append("| site | total ac (union) | sum of phases ac | peak ac | peak date | outside parcels ac | jurisdiction "
             "| exemption | LDA | B | C | five-acre limit | entry | receiving waters (downstream) "
             "| first impaired downstream | Condition A | SWPPP required | full SWPPP | preparer | inspections "
             "| status | SWPPP approval | active without approval | land use (Condition C) | exemption claims |")
    L.append("|" + "---|" * 25)
    for r in results:
        s = r["site"]
        fi = r["first_impaired"]
        fi_s = f"{fi[0]} {fi[1]} ({listing_text(fi[2])}; {fi[3]:.0f} m)" if fi else "none"
        jur = "yes" if r["jurisdiction"] else f"no ({r['outside_town_m']:.0f} m outside the Town of Clay boundary)"
        lim = tri(r["limit"])
        if r["before_approval"] is not None:
            lim += (f" ({r['before_approval']:.3f} ac at one time before the approval of {r['approval']['date']}"
                    + (")" if r["limit"] else ", within the limit)"))
        elif r["limit"] is None and r["site"]["phases"]:
            lim += " (over 5 ac, and the approval has no date)"
        ex = tri(r["exemption"]) + (f" ({r['exemption_why']})" if r["exemption_why"] else "")
        cells = [f"{r['id']} {s['name']}", f"{r['total']:.3f}", f"{r['sum_phases']:.3f}", f"{r['peak']:.3f}",
                 r["peak_date"] or "-", f"{r['outside']:.3f}", jur, ex, tri(r["lda"]), tri(r["B"]), tri(r["C"]),
                 lim, entry_cell(r), " -> ".join(r["names"]) or "-", fi_s, cond_a_cell(r),
                 tri(r["swppp_required"]), tri(r["full"]), tri(r["preparer"]), tri(r["inspections"]),
                 status_cell(r), approval_cell(r), tri(r["active_without_approval"]), land_cell(r), claims_cell(r)]
        for c in cells:
            assert "|" not in c, c
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    L.append("Phases (geodesic acres of each phase polygon, dates inclusive):")
    L.append("")
    for r in results:
        if r["phase_acres"]:
            L.append(f"- {r['id']}: " + "; ".join(f"phase {ph} {a:.3f} ac {s}..{e}" for ph, a, s, e in r["phase_acres"]))
        else:
            L.append(f"- {r['id']}: no disturbance records")
    L.append("")
    L.append("Site flags and parcels (`-` = not recorded; distances from the disturbance footprint, or the site "
             "polygon when there is no disturbance):")
    L.append("")
    pc = {p["id"]: p["cls"] for p in parcels}
    for r in results:
        s = r["site"]
        ids = [p["id"] for p in parcels if p["site"] == s["id"]]
        opt = " ".join(f"{k}={fmt_opt(s.get(k))}" for k in OPTIONAL_COLUMNS)
        if "land_use" in s:
            land = f"land_use='{s['land_use']}'"
        elif "single_family" in s:
            land = f"single_family={yn(s['single_family'])} agricultural={yn(s['agricultural'])}"
        else:
            land = "land use not stated"
        if s.get("swppp_approval"):
            a = s["swppp_approval"]
            appr = "swppp_approval={" + ", ".join(f"{k}: {v}" for k, v in a.items()) + "}"
        elif s.get("approved_swppp"):
            appr = f"approved_swppp='{s['approved_swppp']}'"
        else:
            appr = "no SWPPP decision"
        claims = "exemption_claims=[" + ", ".join(
            "{" + ", ".join(f"{k}: {fmt_opt(v)}" for k, v in c.items()) + "}" for c in s.get("exemption_claims", [])) + "]"
        L.append(f"- {r['id']} status='{s['status']}' {land} common_plan={fmt_opt(s.get('common_plan', False))} {appr} "
                 f"{claims} {opt} "
                 f"parcels={', '.join(f'{i} ({pc[i]})' for i in ids)}"
                 + (f" outfall={s['outfall'][0]},{s['outfall'][1]}" if s.get("outfall") else "")
                 + f" nearest flowline {r['nearest_flow_id']} {r['nearest_flow_m']:.0f} m, nearest waterbody "
                 f"{r['nearest_wb_id']} {r['nearest_wb_m']:.0f} m; "
                 + ("inside the town" if r["jurisdiction"] else f"{r['outside_town_m']:.0f} m outside the town"))
    readme = os.path.join(OUT, "README.md")
    if os.path.exists(readme):  # keep the table in README.md in step with the generator
        text = open(readme, encoding="utf-8").read()
        a, b = "<!-- expected:begin -->", "<!-- expected:end -->"
        if a in text and b in text:
            text = text[:text.index(a) + len(a)] + "\n" + "\n".join(L) + "\n" + text[text.index(b):]
            with open(readme, "w", encoding="utf-8") as fh:
                fh.write(text)
    with open(os.path.join(OUT, "expected_results.md"), "w", encoding="utf-8") as fh:
        fh.write("# Expected results per site (written by generate.py; do not edit by hand)\n\n")
        fh.write(EXPLANATION + "\n\n")
        fh.write("\n".join(L) + "\n")


EXPLANATION = """\
Computed independently by generate.py with shapely and pyproj (illustrative data), from the law's words; the engine is
not called. Tri-state cells are yes / no / null (null = a needed fact is not recorded), combined with Kleene logic: and3
is no if either side is no, else null if either is null, else yes; or3 is yes if either is yes, else null if either is
null, else no.
Footprint = the union of the site's disturbance polygons (the site polygon when it has none). Acres are geodesic
(WGS84 ellipsoid, pyproj.Geod) on that union, so overlaps count once; peak = the largest union of the phases whose
[start, end] (end inclusive) covers a date, with the earliest such date; outside parcels = union minus the site's own
parcels.
Site record (typed): status words are read whole (lower case, each run of punctuation one space) into the closed list
planned / approved / under_construction / stabilized / closed / withdrawn ("active" and "in progress" = under_construction).
The SWPPP decision is `swppp_approval` {decision approved/denied/pending/withdrawn, date, reference, body}; the older
`approved_swppp` text is an approval when it is a date (optionally followed by a reference, which is kept) or a single
reference token with a digit (then the date is unknown), a decision word is that decision, anything else is unreadable.
Land use: `land_use` (single_family_residence / agricultural / other), else the older `single_family` / `agricultural`
yes/no flags, each fact on its own; only when the record is silent the parcel class decides (single-family when every
parcel of the site has a class starting "210", agricultural when every one starts "1"; the source shown is the first
parcel's class, or the first that does not match); no statement and no class = null. The source of each is shown.
Jurisdiction (4) = the footprint's interior overlaps the Town of Clay polygon (shapely relate pattern T********; sharing
only an edge or a corner is outside). Outside the Town, Conditions A, B and C are no and nothing is required.
LDA (6) = null with no disturbance records; yes when total >= 1 ac, or total > 0 and common_plan recorded yes; null when
total < 1 ac and common_plan is not recorded; else no. Acres for B and C = common_plan_acres when common_plan is yes and
it is recorded, else the total (unknown with no disturbance records: B and C null).
B = and3(LDA, acres >= 5). C = no when acres are not within [1, 5); else and3(LDA, not excluded), where excluded =
or3(single-family, agricultural) from the land-use statement above ("exclusive of the construction of single family
residences and construction activities at agricultural properties"; null when neither is yes and one is unknown).
Exemption (5), per claim in `exemption_claims`, its evidence in the claim: (a) agricultural activity = and3(land use
agricultural, new_structures recorded no) ("Agricultural Activity" excludes "the construction of new structures");
(b) landing_or_haul_road recorded no; (c) routine maintenance = null with no disturbance, no when total >= 5 ac, else
maintains_original (yes / no / null); (e)/(f) plat_approved / building_permit_approved on or before 2008-02-19; (d) and
(g)-(k) the Stormwater Management Officer's finding (repair_deemed_necessary, activity_only, immediately_necessary,
personal_use, existing_structure): yes / no / null as recorded. The site is exempt (yes) when a claim is verified, not
(no) when every claim is refuted or none is made, else null ("claimed, unverified", which changes no requirement).
SWPPP required (7)(a) = and3(jurisdiction, and3(LDA, exemption is not yes)).
Five-acre limit (7)(b)[1][d] ("not more than five (5) acres shall be disturbed at any one time unless pursuant to an
approved SWPPP") = null with no disturbance; no when peak <= 5 ac or no SWPPP is required; when over: with a decision
"approved", null if it has no date, else yes only when the peak at one time on the days before the approval date (phases
starting before it, each ended the day before it at the latest) exceeds 5 ac (the cell gives those acres); an unreadable
approval is null; no approval, or denied / pending / withdrawn, = and3(SWPPP required, yes).
Active without approval (4)(d), (7)(a) = null when the status is not recorded or unreadable; no unless under_construction;
then no when an approved SWPPP is recorded, null when the approval is unreadable, else SWPPP required.
Entry: candidates are flowlines and waterbodies, distances in UTM 18N (EPSG:32618). With an outfall point the nearest
water to that point is the first receiving water (a point inside a waterbody is at 0 m); else, when catch basins of
the illustrative storm sewer (storm.py) lie inside the footprint or within 30 m of it, the pipes are followed by their
US_NODE -> DS_NODE ids, breadth first, to the structure no pipe leaves, and that outfall is taken like an outfall
point (rule "storm_sewer"; the cell names the catch basins, the pipes, their length and the outfall); otherwise the
nearest water to the footprint within 1000 m (rule "none" if there is none). When the first receiving water is a waterbody, the
entry reach is the flowline reach nearest the outfall point (or footprint) among those whose midpoint lies inside
that waterbody ("-" if none). Entry point = the outfall point, else the footprint centroid, projected onto the entry
reach; the path follows NHDPlusV2 DnHydroseq from reach to reach (read from the attributes, not the geometry), and
distance = along-path metres from the entry point to the upstream start of a reach (0 = the entry reach). An unnamed
reach whose midpoint lies in a named waterbody takes its name. A reach's listing = its own pwl_id (pwl_crosswalk.csv)
in the 303(d) table, plus the listing of a waterbody that contains the reach's midpoint when the reach's pwl_id is
empty or the same; a pwl_id the table does not name and whose sub-basin it does not cover (anything but 0702-) is
unknown. Condition A scope = the first receiving water plus every path reach within 1609.344 m. 303(d) prong = yes
when a water in scope has a construction-related cause (rules construction_pollutants); else null when the entry is
not known or a water in scope is unknown; else no. TMDL prong = yes when the outfall point lies in the lake polygon,
or the path passes the lake's outlet reach (outlet_comid: the watershed is every reach upstream of it), and the TMDL's
stormwater_source is true (a blank attribute would leave the prong null; the demo's is true); no when the entry is
known, null when it is not. The site footprint does not decide it.
Condition A = no outside the Town, else and3(LDA, or3(303(d) prong, TMDL prong)). Full SWPPP = and3(SWPPP required,
or3(A, or3(B, C))); preparer (landscape architect / engineer, §230-20 D(7)(b)[3][j]) = and3(SWPPP required, A);
inspections = full SWPPP.
First impaired downstream = the entry waterbody if listed (shown with the entry reach id), else the first reach on
the path with a listing, with its distance.
Columns after inspections: status (the code, and the word as recorded when it differs), SWPPP approval ("decision
date|undated ref reference by body from source"), active without approval, land use (each fact, its value and the
source that decided it), exemption claims (each claim's (5) letter and its verdict)."""


def write_manifest():
    text = '''name = "Town of Clay, NY (real waters, illustrative sites)"

[rules]
land_development_acres = 1.0
condition_b_acres = 5.0
max_disturbed_at_once_acres = 5.0
search_radius_m = 1000.0
trace_limit_km = 50.0
impaired_match_m = 100.0
impaired_match_share = 0.5
condition_a_downstream_km = 1.609344
construction_pollutants = ["sediment", "silt", "siltation", "turbidity", "total suspended solids", "tss", "phosphorus", "nutrient", "nitrogen"]
single_family_classes = ["210"]
agricultural_classes = ["1"]

[[layer]]
role = "parcels"
path = "parcels.shp"
id_field = "PARCEL_ID"
name_field = "ADDRESS"
class_field = "PROP_CLASS"

[[layer]]
role = "sites"
path = "sites.geojson"
id_field = "site_id"
name_field = "name"

[[layer]]
role = "disturbance"
path = "disturbance.geojson"
id_field = "dist_id"
site_field = "site_id"
phase_field = "phase"
start_field = "start"
end_field = "end"

[[layer]]
role = "flowlines"
path = "flowlines.geojson"
id_field = "COMID"
name_field = "name"
join_field = "pwl_id"
# name: the local name (local_names.csv) or else GNIS_NAME; pwl_id from pwl_crosswalk.csv
fields = { name_source = "name_source", nhd_name = "GNIS_NAME" }

[[layer]]
role = "waterbodies"
path = "waterbodies.geojson"
id_field = "wb_id"
name_field = "name"
join_field = "pwl_id"

[[layer]]
role = "impaired"
path = "impaired_303d.csv"
id_field = "pwl_id"
name_field = "segment_name"
list_year = 2012
causes_field = "pollutant"
category_field = "category"
# OEI's table lists the Onondaga Lake watershed (DEC sub-basin 0702) only: elsewhere unknown
covers = ["0702-"]

[[layer]]
role = "tmdl"
path = "tmdl_watersheds.geojson"
id_field = "tmdl_id"
name_field = "name"
pollutant_field = "pollutant"
stormwater_field = "stormwater_source"
# every reach upstream of Onondaga Lake's outlet reach by the network, plus the lake
fields = { outlet = "outlet_comid" }

[[layer]]
role = "boundary"
path = "town_boundary.geojson"
id_field = "name"

# Real roads (US Census TIGER/Line 2015, public domain): the map's offline basemap.
[[layer]]
role = "basemap"
path = "roads.geojson"
id_field = "LINEARID"
name_field = "FULLNAME"

# ILLUSTRATIVE storm sewers (storm.py): two made-up systems, S04's to Sawmill Creek and S05's
# to the unnamed tributary of Mud Creek; see README.md, "Storm sewers".
[[layer]]
role = "storm_pipes"
path = "storm_pipes.geojson"
id_field = "PIPE_ID"
[layer.storm]
up_id_field = "US_NODE"
down_id_field = "DS_NODE"
up_invert_field = "US_INV_M"
down_invert_field = "DS_INV_M"

[[layer]]
role = "storm_structures"
path = "storm_structures.geojson"
id_field = "STRUCT_ID"
[layer.storm]
type_field = "STRUCT_TYPE"
type_values = { CB = "inlet", MH = "manhole", OF = "outfall" }

# ILLUSTRATIVE daily rainfall in the layout of a NOAA CDO CSV export (inches) for Syracuse
# Hancock International Airport, GHCN USW00014771; see README.md, "Rainfall".
[[layer]]
role = "rainfall"
path = "rainfall_demo.csv"
station = "USW00014771"
'''
    with open(os.path.join(OUT, "outfall.toml"), "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
