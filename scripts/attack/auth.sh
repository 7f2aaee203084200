#!/usr/bin/env bash
# Issue 22, attacks 1, 6, 7 and 9, repeated against `outfall serve` on a copy of data/clay
# (loopback only; the repository's data folder is never written). One line per attack: the
# server's peak RSS and CPU seconds during it, and the status codes it answered.
#   scripts/attack/auth.sh                  # about a minute
#   ATTACK_SECS=30 scripts/attack/auth.sh   # longer floods
# Needs python3 and curl (no wrk/oha: scripts/ensure-tools.sh installs neither).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS="${ATTACK_SECS:-10}"
PORT="${ATTACK_PORT:-18961}"
BASE="http://127.0.0.1:$PORT"
TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet -p outfall
BIN="$TARGET/release/outfall"
work="$(mktemp -d)"
mkdir -p "$work/data"
for f in data/clay/*; do
  case "$(basename "$f")" in registry.gpkg*) ;; *) [ -f "$f" ] && cp "$f" "$work/data/" ;; esac
done
tok() { "$BIN" token create --data "$work/data" --role "$1" --name "$2" 2>/dev/null; }
OFFICER="$(tok officer 'Attack Officer')"
ANN="$(tok applicant 'Ann Applicant')"
"$BIN" serve --data "$work/data" --bind "127.0.0.1:$PORT" --web web > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do
  curl -sf "$BASE/conformance" >/dev/null 2>&1 && break
  kill -0 $pid 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
echo "server pid $pid on $BASE; RSS at start $(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' /proc/$pid/status)"
export PID=$pid PORT SECS OFFICER ANN BIN DATA="$work/data"
python3 - <<'PY'
import collections, http.client, json, os, socket, sqlite3, subprocess, threading, time
pid, port, secs = int(os.environ["PID"]), int(os.environ["PORT"]), float(os.environ["SECS"])
officer, ann, binary, data = os.environ["OFFICER"], os.environ["ANN"], os.environ["BIN"], os.environ["DATA"]
tick = os.sysconf("SC_CLK_TCK")

def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick

def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0

class Meter:
    """Peak RSS (sampled every 20 ms) and CPU seconds of the server while `with` runs."""
    def __enter__(self):
        self.peak, self.cpu0, self.on = rss_mb(), cpu(), True
        def watch():
            while self.on:
                self.peak = max(self.peak, rss_mb()); time.sleep(0.02)
        self.t = threading.Thread(target=watch, daemon=True); self.t.start()
        return self
    def __exit__(self, *a):
        self.on = False; self.t.join(); self.cpu = cpu() - self.cpu0

def request(method, path, token=None, body=None, source=None, timeout=30):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                   source_address=(source, 0) if source else None)
    h = {"Authorization": f"Bearer {token}"} if token else {}
    if body is not None:
        h["Content-Type"] = "application/json"
    t = time.time()
    try:
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
        r = c.getresponse(); text = r.read(); c.close()
        return r.status, time.time() - t, text
    except Exception as e:
        return type(e).__name__, time.time() - t, b""

def report(n, what, m, codes, extra=""):
    codes = dict(sorted(collections.Counter(codes).items(), key=lambda kv: str(kv[0])))
    print(f"attack {n:>2} ({what}): peak RSS {m.peak:.0f} MB, CPU {m.cpu:.1f} s, statuses {codes}{extra}")

# 1. Made-up tokens from 128 clients at once (each its own loopback address), for SECS.
codes, reads = [], []
def flood(i):
    src = f"127.0.{1 + i // 250}.{1 + i % 250}"
    until = time.time() + secs
    while time.time() < until:
        codes.append(request("GET", "/auth/whoami", f"ofl_{i:012x}_made-up-secret", source=src)[0])
def reader():
    until = time.time() + secs
    while time.time() < until:
        s, dt, _ = request("GET", "/sites"); reads.append(dt)
with Meter() as m:
    ts = [threading.Thread(target=flood, args=(i,)) for i in range(128)] + [threading.Thread(target=reader)]
    [t.start() for t in ts]; [t.join() for t in ts]
reads.sort()
p50 = reads[len(reads) // 2] * 1000 if reads else float("nan")
report(1, "128 clients of made-up tokens", m, codes,
       f"; GET /sites meanwhile: {len(reads)} reads, median {p50:.0f} ms, max {reads[-1]*1000 if reads else 0:.0f} ms")

# 1b. The holder's own token, 2,000 times: argon2 once, then the cache.
with Meter() as m:
    codes = [request("GET", "/auth/whoami", officer)[0] for _ in range(2000)]
report(1, "one valid token x2000", m, codes)

# 6. A second token under an applicant's name; the submissions of another applicant.
codes = []
with Meter() as m:
    dup = subprocess.run([binary, "token", "create", "--data", data, "--role", "applicant",
                          "--name", "Ann Applicant"], capture_output=True, text=True)
    codes.append(f"duplicate name exit {dup.returncode}")
    app = {"type": "FeatureCollection", "site": {"name": "Ann's lot", "outfall": "-76.1795,43.1700",
           "land_use": "commercial"}, "features": [{"type": "Feature", "properties": {"phase": "1"},
           "geometry": {"type": "Polygon", "coordinates": [[[-76.181, 43.169], [-76.1798, 43.169],
           [-76.1798, 43.1699], [-76.181, 43.1699], [-76.181, 43.169]]]}}]}
    codes.append(request("POST", "/sites", ann, app)[0])
    bob = subprocess.run([binary, "token", "create", "--data", data, "--role", "applicant",
                          "--name", "Bob Applicant"], capture_output=True, text=True).stdout.strip()
    s, _, body = request("GET", "/submissions", bob)
    codes.append(f"other applicant sees {len(json.loads(body)['submissions'])} submissions ({s})")
said = [l for l in dup.stderr.splitlines() if "exists already" in l][:1]
report(6, "duplicate name, submissions by id", m, codes, "; " + (said[0][:140] if said else "no refusal message"))

# 7. List, rotate, revoke, expire from the command line; each old token is refused.
codes = []
with Meter() as m:
    listing = subprocess.run([binary, "token", "list", "--data", data], capture_output=True, text=True).stdout
    new = subprocess.run([binary, "token", "rotate", "Ann Applicant", "--data", data],
                         capture_output=True, text=True).stdout.strip()
    codes += [f"old {request('GET', '/auth/whoami', ann)[0]}", f"rotated {request('GET', '/auth/whoami', new)[0]}"]
    subprocess.run([binary, "token", "revoke", "Ann Applicant", "--data", data], capture_output=True)
    codes.append(f"revoked {request('GET', '/auth/whoami', new)[0]}")
    db = sqlite3.connect(f"{data}/registry.gpkg")
    db.execute("UPDATE tokens SET expires_at = '2020-01-01T00:00:00.000Z' WHERE name = 'Bob Applicant'"); db.commit()
    s, _, body = request("GET", "/auth/whoami", bob)
    codes.append(f"expired {s}: {'expired' in body.decode()}")
report(7, "token list/rotate/revoke/expiry", m, codes, f"; list shows {len(listing.splitlines()) - 1} tokens")

# 9. 600 slow-header clients (from one address, then 150 addresses) while normal requests run.
def slow(src):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        s.sendall(b"GET /conformance HTTP/1.1\r\nHost: x\r\n"); return s
    except OSError:
        return None
for label, addrs in (("one address", ["127.0.9.1"] * 600), ("150 addresses", [f"127.0.10.{1 + i % 150}" for i in range(600)])):
    with Meter() as m:
        socks = [slow(a) for a in addrs]
        times, codes = [], []
        for _ in range(50):
            s, dt, _ = request("GET", "/conformance", timeout=60, source="127.0.8.1"); codes.append(s); times.append(dt)
        held = sum(1 for s in socks if s is not None)
        for s in socks:
            if s: s.close()
    times.sort()
    report(9, f"600 slow-header sockets, {label}", m, codes,
           f"; normal requests median {times[25]*1000:.0f} ms, max {times[-1]*1000:.0f} ms ({held} sockets opened)")
PY
echo "server RSS at end $(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' /proc/$pid/status), peak $(awk '/VmHWM/ {printf "%.0f MB", $2/1024}' /proc/$pid/status)"
