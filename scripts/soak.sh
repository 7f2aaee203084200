#!/usr/bin/env bash
# Soak test of `outfall serve` on the demo, on loopback only; bounded in time; not in `make test`.
#   scripts/soak.sh              # 600 s saturation
#   SOAK_SECS=60 scripts/soak.sh # a quick run
# (a) saturation with wrk on a route mix: requests, errors, RSS at start and end;
# (b) slow-header and stalled-body clients while normal requests run: their p99;
# (c) 64 concurrent worst-case checks (a 10,000-vertex star POSTed to /check) while
#     GET /sites is timed: its p99;
# (d) the worst-case polygon alone: status and time.
# Needs wrk (Debian: apt-get install -y wrk) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
SOAK_SECS="${SOAK_SECS:-600}"
PORT="${SOAK_PORT:-18951}"
SIDE_SECS="${SOAK_SIDE_SECS:-20}"   # length of phases (b) and (c)
BASE="http://127.0.0.1:$PORT"
command -v wrk >/dev/null || { echo "wrk is required (apt-get install -y wrk)" >&2; exit 1; }
work="$(mktemp -d)"
cargo build --release --quiet
./target/release/outfall serve --data data/clay --bind "127.0.0.1:$PORT" --web web > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 150); do
  curl -sf "$BASE/conformance" >/dev/null 2>&1 && break
  kill -0 $pid 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
rss_start="$(rss)"

# (a) saturation on a route mix
cat > "$work/mix.lua" <<'LUA'
local paths = {
  "/sites", "/sites/S04/report", "/sites/S04/trace", "/collections/parcels/items?limit=100",
  "/collections/parcels/items?bbox=-76.2,43.14,-76.15,43.17", "/search?q=mud",
  "/collections/parcels/tiles/WebMercatorQuad/14/6010/4725", "/conformance", "/?f=json",
  "/parcels/020.-01-07.0/receiving-waters",
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
LUA
echo "(a) saturation for ${SOAK_SECS} s ..."
wrk -t2 -c32 -d"${SOAK_SECS}s" --timeout 10s --latency -s "$work/mix.lua" "$BASE" > "$work/wrk.txt" 2>&1 || true
rss_end="$(rss)"
reqs="$(awk '/requests in/ {print $1}' "$work/wrk.txt")"
rps="$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")"
non2xx="$(awk '/Non-2xx/ {print $NF}' "$work/wrk.txt")"; non2xx="${non2xx:-0}"
sockerr="$(awk -F'Socket errors: ' '/Socket errors/ {print $2}' "$work/wrk.txt")"; sockerr="${sockerr:-none}"
lat="$(awk '/Latency/ && !p {print $2 " avg, max " $4; p=1}' "$work/wrk.txt")"
lat99="$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")"


cat > "$work/side.py" <<'PY'
import http.client, json, math, socket, sys, threading, time
port, phase, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])

def star(n=10000):
    cx, cy = -76.17, 43.15
    pts = []
    for i in range(n):
        a = 2 * math.pi * i / n
        r = 0.01 if i % 2 == 0 else 0.004
        pts.append([round(cx + r * math.cos(a) / math.cos(math.radians(cy)), 7), round(cy + r * math.sin(a), 7)])
    pts.append(pts[0])
    return json.dumps({"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [pts]}}).encode()

def timed_gets(path, until, out, source="127.0.0.1"):
    while time.time() < until:
        t = time.time()
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
            c.request("GET", path)
            r = c.getresponse(); r.read(); c.close()
            out.append((time.time() - t, r.status))
        except Exception as e:
            out.append((time.time() - t, str(e)))

def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))] * 1000 if xs else float("nan")

def post_check(body, out):
    t = time.time()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("POST", "/check", body, {"Content-Type": "application/geo+json"})
        r = c.getresponse(); data = r.read(); c.close()
        out.append((time.time() - t, r.status, data[:160].decode("utf-8", "replace")))
    except Exception as e:
        out.append((time.time() - t, str(e), ""))

if phase == "slow":
    until = time.time() + secs
    ends = []
    def slow_header():
        s = socket.create_connection(("127.0.0.1", port)); t = time.time()
        s.sendall(b"GET /sites HTTP/1.1\r\nHost: x\r\n")
        s.settimeout(secs + 30)
        try:
            while s.recv(4096): pass
        except Exception: pass
        ends.append(("header", time.time() - t))
    def stalled_body():
        s = socket.create_connection(("127.0.0.1", port)); t = time.time()
        s.sendall(b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/geo+json\r\nContent-Length: 100000\r\n\r\n{")
        s.settimeout(secs + 60); got = b""
        try:
            while True:
                d = s.recv(4096)
                if not d: break
                got += d
        except Exception: pass
        ends.append(("body " + got[:12].decode("latin1"), time.time() - t))
    threads = [threading.Thread(target=slow_header) for _ in range(100)] + [threading.Thread(target=stalled_body) for _ in range(100)]
    for th in threads: th.start()
    normal = []
    # The users are not the attacker: they come from another address (127.0.0.2), as they
    # would from another machine, since the server caps connections per client address.
    workers = [threading.Thread(target=timed_gets, args=("/sites", until, normal, "127.0.0.2")) for _ in range(4)]
    for w in workers: w.start()
    for w in workers: w.join()
    for th in threads: th.join(timeout=90)
    ok = [t for t, s in normal if s == 200]
    hdr = [t for k, t in ends if k == "header"]; body = [(k, t) for k, t in ends if k.startswith("body")]
    print(f"normal_requests={len(normal)} normal_errors={len(normal) - len(ok)} normal_p99_ms={p99(ok):.1f}")
    print(f"slow_header_closed={len(hdr)}/100 after_max_s={max(hdr) if hdr else float('nan'):.1f}")
    print(f"stalled_body_closed={len(body)}/100 answers={sorted(set(k for k, _ in body))} after_max_s={max(t for _, t in body) if body else float('nan'):.1f}")
elif phase == "checks":
    body = star()
    results, gets = [], []
    until = time.time() + secs
    g = [threading.Thread(target=timed_gets, args=("/sites", until, gets)) for _ in range(2)]
    for w in g: w.start()
    posts = [threading.Thread(target=post_check, args=(body, results)) for _ in range(64)]
    for p in posts: p.start()
    for p in posts: p.join()
    for w in g: w.join()
    ok = [t for t, s in gets if s == 200]
    by = {}
    for t, s, _ in results: by[s] = by.get(s, 0) + 1
    print(f"checks={len(results)} statuses={by} slowest_check_s={max(t for t, _, _ in results):.2f}")
    print(f"sites_requests={len(gets)} sites_errors={len(gets) - len(ok)} sites_p99_ms={p99(ok):.1f}")
elif phase == "alone":
    out = []
    post_check(star(), out)
    t, s, d = out[0]
    print(f"status={s} time_s={t:.2f} body={d[:150]!r}")
PY
echo "(b) slow-header and stalled-body clients for ${SIDE_SECS} s ..."
slow="$(python3 "$work/side.py" "$PORT" slow "$SIDE_SECS")"
echo "(c) 64 concurrent 10,000-vertex checks ..."
checks="$(python3 "$work/side.py" "$PORT" checks "$SIDE_SECS")"
sleep 2
echo "(d) the worst-case polygon alone ..."
alone="$(python3 "$work/side.py" "$PORT" alone 0)"
rss_final="$(rss)"
alive=yes; kill -0 $pid 2>/dev/null || alive=NO

echo
echo "SOAK SUMMARY (127.0.0.1:$PORT, $(nproc) CPUs, SOAK_SECS=$SOAK_SECS)"
printf '%-34s %s\n' "(a) requests / rate" "$reqs in ${SOAK_SECS} s, $rps req/s"
printf '%-34s %s\n' "(a) latency" "$lat, p99 $lat99"
printf '%-34s %s\n' "(a) non-2xx / socket errors" "$non2xx / $sockerr"
printf '%-34s %s\n' "(a) RSS start -> end" "$rss_start -> $rss_end"
while read -r l; do printf '%-34s %s\n' "(b)" "$l"; done <<< "$slow"
while read -r l; do printf '%-34s %s\n' "(c)" "$l"; done <<< "$checks"
printf '%-34s %s\n' "(d) worst case alone" "$alone"
printf '%-34s %s\n' "RSS at the end" "$rss_final"
printf '%-34s %s\n' "server alive" "$alive"
printf '%-34s %s\n' "panics in the server log" "$(grep -c panicked "$work/server.log" || true)"
