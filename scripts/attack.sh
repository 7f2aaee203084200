#!/usr/bin/env bash
# Repeats the write-side attacks of issue 22 against `outfall serve` on a copy of the demo
# (data/clay), on loopback only, and prints per attack the server's peak RSS while it ran,
# the CPU seconds it spent (including work that runs on after an answer) and the status
# codes it answered. Not in `make test`.
#   scripts/attack.sh             # every attack, then every scripts/attack/*.sh part
#   ATTACK_PORT=18976 scripts/attack.sh
# Attacks: 2 (a GeoPackage that computes a huge value per row), 3 (a 40,000-vertex site),
# 4 (dates out of range, and bad rows typed into the registry by hand), 8 (unbounded text,
# and reading a site's inspections), 10 (checks past their deadline), 11 (the loader: a
# polygon across ±180° and an unreadable outfall).
# A part in scripts/attack/NAME.sh is run with BASE, PID, DATA, BIN and the tokens
# (OFFICER, INSPECTOR, APPLICANT) in its environment, and prints its own lines.
# Needs curl, sqlite3 and python3; builds outfall (in $CARGO_TARGET_DIR when set).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${ATTACK_PORT:-18976}"
BASE="http://127.0.0.1:$PORT"
BIN="${CARGO_TARGET_DIR:-target}/release/outfall"
work="$(mktemp -d /tmp/outfall-attack.XXXXXX)"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cargo build --release --quiet
mkdir -p "$work/data"
find data/clay -maxdepth 1 -type f ! -name 'registry.gpkg*' -exec cp {} "$work/data/" \;
DATA="$work/data"
token() { "$BIN" token create --data "$DATA" --role "$1" --name "$2" 2>/dev/null; }
OFFICER="$(token officer 'Attack Officer')"
INSPECTOR="$(token inspector 'Attack Inspector')"
APPLICANT="$(token applicant 'Attack Applicant')"
# A short work deadline, so attack 10 passes it with a modest polygon.
"$BIN" serve --data "$DATA" --bind "127.0.0.1:$PORT" --web web --check-timeout-secs 1 \
  > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -sf "$BASE/conformance" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
export BASE PID="$pid" DATA BIN OFFICER INSPECTOR APPLICANT

python3 - "$work" <<'PY'
import http.client, json, math, os, sqlite3, subprocess, sys, threading, time
work = sys.argv[1]
port = int(os.environ["BASE"].rsplit(":", 1)[1]); pid = int(os.environ["PID"])
data, binary = os.environ["DATA"], os.environ["BIN"]
tok = {k: os.environ[k] for k in ("OFFICER", "INSPECTOR", "APPLICANT")}
tick = os.sysconf("SC_CLK_TCK")

def rss_kb():
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))

def cpu_s():
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

def request(method, path, body=None, ctype="application/json", token=None, timeout=120):
    h = {"Content-Type": ctype} if body is not None else {}
    if token: h["Authorization"] = "Bearer " + tok[token]
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, body, h)
        r = c.getresponse(); text = r.read()
        return r.status, text
    except Exception as e:
        return type(e).__name__, b""
    finally:
        c.close()

def attack(number, title, run, settle=0.0):
    peak = [rss_kb()]; done = threading.Event()
    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kb()); time.sleep(0.02)
    t = threading.Thread(target=sample); t.start()
    cpu0 = cpu_s(); t0 = time.time()
    codes, note = run()
    if settle: time.sleep(settle)   # work that runs on after its answer is counted too
    done.set(); t.join()
    counts = {}
    for c in codes: counts[c] = counts.get(c, 0) + 1
    print(f"attack {number:>2} {title}: peak RSS {peak[0] / 1024:.0f} MB, CPU {cpu_s() - cpu0:.2f} s, "
          f"{time.time() - t0:.1f} s, status {' '.join(f'{k}x{v}' for k, v in sorted(counts.items(), key=str))}"
          + (f"; {note}" if note else ""), flush=True)

def detail(text):
    try: return json.loads(text).get("detail", "")[:110]
    except Exception: return text[:110].decode("utf-8", "replace")

def polygon(n, cx=-76.1800, cy=43.1695, r=0.001, star=False):
    pts = []
    for i in range(n):
        a = 2 * math.pi * i / n
        rr = r if not star or i % 2 == 0 else r * 0.4
        pts.append([round(cx + rr * math.cos(a) / math.cos(math.radians(cy)), 7), round(cy + rr * math.sin(a), 7)])
    pts.append(pts[0])
    return {"type": "Polygon", "coordinates": [pts]}

def application(site_id, geometry, start="2026-06-01", name="Attack site"):
    return json.dumps({"type": "FeatureCollection",
        "site": {"site_id": site_id, "name": name, "land_use": "commercial"},
        "features": [{"type": "Feature", "properties": {"phase": "1", "start": start}, "geometry": geometry}]})

# 2: a small GeoPackage whose generated column builds 100 MB of text for every row read.
def a2():
    path = os.path.join(work, "generated.gpkg")
    with open("tests/fixtures/uploads/s01_utm.gpkg", "rb") as f, open(path, "wb") as g: g.write(f.read())
    c = sqlite3.connect(path)
    c.execute("ALTER TABLE disturbance ADD COLUMN notes TEXT GENERATED ALWAYS AS (printf('%.*c', 100000000, 'x')) VIRTUAL")
    c.commit(); c.execute("VACUUM"); c.close()
    body = open(path, "rb").read()
    codes = []; last = b""
    for _ in range(4):
        s, last = request("POST", "/check?name=plan.gpkg", body, "application/octet-stream"); codes.append(s)
    return codes, f"{len(body) // 1024} KB upload: {detail(last)}"
attack(2, "GeoPackage with a generated column", a2)

# 3: an applicant's 40,000-vertex polygon to POST /sites.
def a3():
    s, text = request("POST", "/sites", application("ATK-3", polygon(40000)), token="APPLICANT")
    return [s], detail(text)
attack(3, "40,000-vertex site to POST /sites", a3)

# 4: dates out of range on every write, then bad rows typed into the registry by hand.
def a4():
    codes = []
    for path, body, who in [
        ("/sites/S01/inspections", {"date": "-0001-01-01", "findings": "x"}, "INSPECTOR"),
        ("/rainfall", {"date": "+10000-01-01", "rain_in": 1.0}, "OFFICER"),
    ]:
        s, text = request("POST", path, json.dumps(body), token=who); codes.append(s)
    s, text = request("POST", "/sites", application("ATK-4", polygon(8), start="9999-12-31"), token="APPLICANT")
    codes.append(s)
    c = sqlite3.connect(os.path.join(data, "registry.gpkg"))
    c.execute("INSERT INTO inspections (site_id, date, inspector, findings, corrective_actions, recorded_by, recorded_at) "
              "VALUES ('S01', '-0001-01-01', 'sqlite3', 'typed by hand', '', 'sqlite3', 'now')")
    c.execute("INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at) "
              "VALUES ('+10000-01-01', 2.0, 'typed by hand', 'sqlite3', 'now')")
    c.commit(); c.close()
    reads = []
    for path in ["/sites/S01/inspections", "/inspections/due", "/inspections/due.html", "/rainfall"]:
        s, _ = request("GET", path); codes.append(s); reads.append(f"{path} {s}")
    cli = subprocess.run([binary, "inspections", "--data", data], capture_output=True)
    return codes, "writes refused; reads after bad rows: " + ", ".join(reads) + f"; outfall inspections exit {cli.returncode}"
attack(4, "dates out of range, then bad rows by hand", a4)

# 8: unbounded text, then the public read of a site's inspections.
def a8():
    codes = []
    s, _ = request("POST", "/sites", application("ATK-8", polygon(8), name="x" * 1_000_000), token="APPLICANT")
    codes.append(s)
    big = "x" * 1_900_000
    for i in range(40):
        s, _ = request("POST", "/sites/S01/inspections", json.dumps({"date": "2026-06-01", "findings": big}), token="INSPECTOR")
        codes.append(s)
    n = 0; until = time.time() + 3
    while time.time() < until:
        s, _ = request("GET", "/sites/S01/inspections"); codes.append(s); n += 1
    return codes, f"GET /sites/S01/inspections {n / 3:.0f} requests/s"
attack(8, "1 MB name, 40 findings of 1.9 MB, reads", a8)

# 10: checks that pass their 1 s deadline; the CPU they spend after their 503 is counted
# over the settle time, then a normal check must not be refused as busy.
# One is a union of two overlapping 9,000-vertex stars, the other one 19,990-vertex star
# over many parcels' edges (the acres outside the parcels): single overlay calls that
# cannot be interrupted, so their cost has to be bounded by the vertex cap alone.
def a10():
    stars = json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": polygon(9000, r=0.01 * (1 + k / 10), star=True)}
        for k in range(2)]})
    big = json.dumps({"type": "Feature", "properties": {}, "geometry": polygon(19990, r=0.01, star=True)})
    codes = []; threads = []
    def one(heavy):
        s, _ = request("POST", "/check", heavy, "application/geo+json"); codes.append(s)
    for heavy in (stars, big):
        t = threading.Thread(target=one, args=(heavy,)); t.start(); threads.append(t)
    for t in threads: t.join()
    answered = cpu_s()
    time.sleep(3)
    after = cpu_s() - answered
    s, text = request("POST", "/check", json.dumps({"type": "Feature", "properties": {}, "geometry": polygon(8)}), "application/geo+json")
    codes.append(s)
    return codes, f"CPU in the 3 s after the 503s {after:.2f} s; a normal check then: {s} {detail(text) if s != 200 else ''}"
attack(10, "two checks past their deadline", a10)

# 11: the loader, on its own copy: a polygon across ±180° and an outfall of inf,43.1.
def a11():
    import shutil
    copy = os.path.join(work, "data11"); shutil.copytree(data, copy, ignore=shutil.ignore_patterns("registry.gpkg*"))
    d = json.load(open(os.path.join(copy, "disturbance.geojson")))
    f = next(f for f in d["features"] if f["properties"].get("site_id") == "S01")
    f["geometry"] = {"type": "Polygon", "coordinates": [[[179.9, 43.1], [-179.9, 43.1], [-179.9, 43.2], [179.9, 43.2], [179.9, 43.1]]]}
    json.dump(d, open(os.path.join(copy, "disturbance.geojson"), "w"))
    s = json.load(open(os.path.join(copy, "sites.geojson")))
    next(f for f in s["features"] if f["properties"]["site_id"] == "S06")["properties"]["outfall"] = "inf,43.1"
    json.dump(s, open(os.path.join(copy, "sites.geojson"), "w"))
    v = subprocess.run([binary, "validate", "--data", copy], capture_output=True, text=True)
    wide = sum("crosses the antimeridian" in l for l in (v.stdout + v.stderr).splitlines())
    load = subprocess.run([binary, "check", "--data", copy, "--site", "S01", "--json"], capture_output=True, text=True)
    refused = "crosses the antimeridian" in load.stderr
    # The unreadable outfall on a copy that loads.
    copy2 = os.path.join(work, "data11b"); shutil.copytree(data, copy2, ignore=shutil.ignore_patterns("registry.gpkg*"))
    json.dump(s, open(os.path.join(copy2, "sites.geojson"), "w"))
    s06 = json.loads(subprocess.run([binary, "check", "--data", copy2, "--site", "S06", "--json"], capture_output=True, text=True).stdout or "{}")
    return [v.returncode, load.returncode], (f"validate names the ±180° polygon {wide}x; the load refuses it: {refused}; "
                            f"S06 entry {s06.get('entry', {}).get('rule')}, reach {s06.get('entry', {}).get('reach_id')}, Condition A {s06.get('conditions', {}).get('a')}")
attack(11, "loader: ±180° polygon, outfall inf,43.1 (status = exits of validate, check)", a11)
print(f"server RSS at the end {rss_kb() / 1024:.0f} MB", flush=True)
PY

for part in scripts/attack/*.sh; do
  [ -e "$part" ] || continue
  echo "--- $part"
  bash "$part"
done
