"""The Oswego basin's NHDPlusV2 flowlines tiled 24 times along longitude (2.5 degrees apart,
so copies 1, 5, 9 and 13 lie under the scale parcels' four blocks), every id and network
key offset per copy so each copy is a network of its own. Prints the flowlines written."""
import json, sys
src, out = sys.argv[1], sys.argv[2]
feats = json.load(open(src))["features"]
west = min(c[0] for f in feats for c in f["geometry"]["coordinates"])
keys = ["COMID", "Hydroseq", "DnHydroseq", "DnMinorHyd", "UpHydroseq", "LevelPathI",
        "TerminalPa", "FromNode", "ToNode", "WBAREACOMI"]
n = 0
with open(out, "w") as w:
    w.write('{"type":"FeatureCollection","features":[\n')
    for j in range(24):
        dx = -104.5 + 2.5 * j - west
        off = j * 1_000_000_000
        for f in feats:
            p = dict(f["properties"])
            for k in keys:
                if p.get(k):
                    p[k] = p[k] + off
            g = {"type": "LineString",
                 "coordinates": [[round(x + dx, 7), y] for x, y, *_ in f["geometry"]["coordinates"]]}
            w.write(("" if n == 0 else ",\n") + json.dumps({"type": "Feature", "properties": p, "geometry": g}))
            n += 1
    w.write("\n]}\n")
print(n)
