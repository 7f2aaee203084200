#!/usr/bin/env bash
# Issue 40, items 2, 4, 5, 6 and 7, repeated against `outfall serve` on loopback (copies of
# data/clay; item 4 on the Johnson, VT DEM in ../shared when it is there). One line per probe:
# the server's peak RSS and CPU seconds during it, the status codes and the latencies.
#   scripts/attack/stalls.sh                 # a few minutes
#   ATTACK_PORT=18962 scripts/attack/stalls.sh
# Needs python3 and curl; builds outfall (in $CARGO_TARGET_DIR when set). Not in `make test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${ATTACK_PORT:-18962}"
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet -p outfall
BIN="$TARGET/release/outfall"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data"
for f in data/clay/*; do
  case "$(basename "$f")" in registry.gpkg*) ;; *) [ -f "$f" ] && cp "$f" "$work/data/" ;; esac
done
johnson="$(cd .. && pwd)/shared/data/real/stormcatchments/johnson_vt"
if [ -f "$johnson/dem.tif" ]; then
  mkdir -p "$work/johnson"
  cat > "$work/johnson/outfall.toml" <<EOF
allow_outside_paths = true
[[layer]]
role = "storm_pipes"
path = "$johnson/storm_lines.shp"
id_field = "OBJECTID"
[layer.storm]
vertex_order = true
snap_m = 0.01
[[layer]]
role = "storm_structures"
path = "$johnson/storm_pts.shp"
id_field = "OBJECTID"
[layer.storm]
type_field = "Type"
type_values = { "2" = "inlet", "8" = "culvert_inlet", "5" = "outfall", "9" = "culvert_outlet" }
[[layer]]
role = "dem"
path = "$johnson/dem.tif"
EOF
fi
export BIN PORT WORK="$work"
python3 - <<'PY'
import http.client, json, math, os, socket, subprocess, threading, time, urllib.parse
binary, port, work = os.environ["BIN"], int(os.environ["PORT"]), os.environ["WORK"]
tick = os.sysconf("SC_CLK_TCK")
data = os.path.join(work, "data")

class Server:
    """`outfall serve` on `data`, with its start time (until /conformance answers)."""
    def __init__(self, data, *flags):
        t0 = time.time()
        self.p = subprocess.Popen([binary, "serve", "--data", data, "--bind", f"127.0.0.1:{port}",
                                   "--web", "web", *flags], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                request("GET", "/conformance"); break
            except OSError:
                if self.p.poll() is not None: raise SystemExit("the server did not start")
                time.sleep(0.05)
        self.started = time.time() - t0
    def cpu(self):
        f = open(f"/proc/{self.p.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    def rss(self):
        return next(int(l.split()[1]) / 1024 for l in open(f"/proc/{self.p.pid}/status") if l.startswith("VmRSS"))
    def stop(self):
        self.p.terminate(); self.p.wait()

class Meter:
    """Peak RSS (every 20 ms) and CPU seconds of `server` while `with` runs."""
    def __init__(self, server): self.s = server
    def __enter__(self):
        self.peak, self.cpu0, self.on, self.t0 = self.s.rss(), self.s.cpu(), True, time.time()
        def watch():
            while self.on:
                self.peak = max(self.peak, self.s.rss()); time.sleep(0.02)
        self.th = threading.Thread(target=watch, daemon=True); self.th.start()
        return self
    def __exit__(self, *a):
        self.on = False; self.th.join(); self.cpu = self.s.cpu() - self.cpu0; self.wall = time.time() - self.t0

def request(method, path, body=None, headers=None, timeout=300):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        t0 = time.time(); c.request(method, path, body, headers or {}); r = c.getresponse(); b = r.read()
        return r.status, b, time.time() - t0, r
    finally:
        c.close()

def token(role, name):
    return subprocess.run([binary, "token", "create", "--data", data, "--role", role, "--name", name],
                          capture_output=True, text=True).stdout.strip()

def star(n, r=0.01):
    (cx, cy), pts = (-76.1800, 43.1695), []
    for i in range(n):
        a, rr = 2 * math.pi * i / n, (r if i % 2 == 0 else r * 0.4)
        pts.append([round(cx + rr * math.cos(a) / math.cos(math.radians(cy)), 7), round(cy + rr * math.sin(a), 7)])
    return {"type": "Polygon", "coordinates": [pts + [pts[0]]]}

def counts(codes):
    out = {}
    for c in codes: out[c] = out.get(c, 0) + 1
    return " ".join(f"{k}x{v}" for k, v in sorted(out.items(), key=str))

def line(n, title, m, codes, note=""):
    print(f"item {n} {title}: peak RSS {m.peak:.0f} MB, CPU {m.cpu:.2f} s, {m.wall:.1f} s, status {counts(codes)}"
          + (f"; {note}" if note else ""), flush=True)

officer, ann = token("officer", "Probe Officer"), token("applicant", "Probe Applicant")
auth = lambda t: {"Authorization": "Bearer " + t}

# 2: a 60 KB query, alone and four at once, with /healthz meanwhile.
s = Server(data)
q = "/search?q=" + "1-" * 30000
with Meter(s) as m:
    codes = [request("GET", q)[0]]
    got = []
    ts = [threading.Thread(target=lambda: got.append(request("GET", q)[0])) for _ in range(4)]
    [t.start() for t in ts]; time.sleep(0.05)
    hz = request("GET", "/healthz")[2]
    [t.join() for t in ts]
line(2, "60 KB /search, then four at once", m, codes + got, f"/healthz meanwhile {hz * 1000:.0f} ms")
lat = [request("GET", "/search?q=" + urllib.parse.quote(x))[2] * 1000 for x in ["Mud Creek", "ley", "055.-01-07.0", "55-1"]]
print(f"  ordinary searches {', '.join(f'{v:.1f}' for v in lat)} ms", flush=True)

# 7: what a token-dependent answer tells caches.
for path in ["/auth/whoami", "/submissions"]:
    _, _, _, r = request("GET", path, headers=auth(ann))
    print(f"item 7 GET {path} with a token: Cache-Control '{r.getheader('Cache-Control')}', Vary '{r.getheader('Vary')}'", flush=True)
s.stop()

# 6: two heavy checks whose clients go away after 0.3 s, under a 30 s deadline; the CPU the
# server spends in the 3 s after, then a normal check.
s = Server(data, "--check-timeout-secs", "30", "--max-checks", "2")
plan = json.dumps({"type": "Feature", "properties": {}, "geometry": star(19990)}).encode()
with Meter(s) as m:
    for _ in range(2):
        c = socket.create_connection(("127.0.0.1", port))
        c.sendall(b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/geo+json\r\nContent-Length: "
                  + str(len(plan)).encode() + b"\r\n\r\n" + plan)
        time.sleep(0.3); c.close()
    after = s.cpu(); time.sleep(3); after = s.cpu() - after
    small = json.dumps({"type": "Feature", "properties": {}, "geometry": star(8, r=0.001)})
    code = request("POST", "/check", small, {"Content-Type": "application/geo+json"})[0]
line(6, "two abandoned 19,990-vertex checks", m, [code], f"CPU in the 3 s after the clients left {after:.2f} s; a normal check then {code}")
s.stop()

# 5: ten 19,990-vertex applications, then a restart and officer edits.
s = Server(data)
app = lambda i: json.dumps({"type": "FeatureCollection", "site": {"site_id": f"BIG{i}", "name": "Big", "land_use": "commercial"},
                            "features": [{"type": "Feature", "properties": {"phase": "1", "start": "2026-06-01"}, "geometry": star(19990)}]})
with Meter(s) as m:
    res = [request("POST", "/sites", app(i), {**auth(ann), "Content-Type": "application/geo+json"}) for i in range(10)]
line(5, "ten 19,990-vertex applications", m, [r[0] for r in res], "each " + ", ".join(f"{r[2]:.1f}" for r in res) + " s")
def patch():
    _, _, _, r = request("GET", "/sites/S01")
    return request("PATCH", "/sites/S01", json.dumps({"name": f"S01 {time.time()}"}),
                   {**auth(officer), "If-Match": r.getheader("ETag"), "Content-Type": "application/json"})
p = [patch() for _ in range(3)]
print(f"  PATCH /sites/S01 with them pending: {', '.join(f'{x[0]} {x[2] * 1000:.0f} ms' for x in p)}", flush=True)
s.stop()
s = Server(data)
stored = sum(r[0] == 201 for r in res)
p = [patch() for _ in range(3)]
t0 = time.time()
while stored and request("GET", f"/sites/BIG{max(i for i, r in enumerate(res) if r[0] == 201)}/report")[0] != 200:
    time.sleep(0.5)
print(f"item 5 restart with {stored} pending: listening after {s.started:.1f} s; PATCH then {', '.join(f'{x[0]} {x[2] * 1000:.0f} ms' for x in p)}; "
      f"their reports served {time.time() - t0:.1f} s later", flush=True)
s.stop()

# 4: 48 parallel sewersheds at the largest catchment of Johnson's DEM (1.45M cells).
johnson = os.path.join(work, "johnson")
if os.path.isdir(johnson):
    s = Server(johnson, "--registry", "none")
    with Meter(s) as m:
        got = []
        def one():
            got.append(request("GET", "/sewershed?point=-72.6934748,44.6312818"))
        ts = [threading.Thread(target=one) for _ in range(48)]
        [t.start() for t in ts]; [t.join() for t in ts]
    lat = sorted(r[2] for r in got)
    line(4, "48 parallel sewersheds on Johnson", m, [r[0] for r in got], f"latency {lat[0]:.2f}-{lat[-1]:.2f} s")
    code, body, _, _ = request("GET", "/sewershed?point=10,10")
    print(f"  off the DEM: {code} {json.loads(body)['detail']}", flush=True)
    s.stop()
else:
    print("item 4 skipped: no Johnson DEM in ../shared/data/real/stormcatchments/johnson_vt", flush=True)
PY
