#!/usr/bin/env bash
# A town's service on several machines, on one: a private PostGIS (scripts/with-postgis.sh),
# three `outfall serve` replicas over it on loopback ports, and Debian's HAProxy in front,
# health-checking each replica's /readyz. While wrk reads the sites layer through the
# balancer, a writer edits a site through it and times how long each edit takes to show on
# every replica (LISTEN/NOTIFY) and to renew each replica's tiles; then every replica is
# restarted in turn (SIGTERM: /readyz answers 503 for --drain-secs, HAProxy moves requests
# away, in-flight ones finish) and the writer edits again. Fails if any request through the
# balancer was lost or answered 5xx, or an edit never showed; the times are reported, not
# asserted. Usage: scripts/replicas.sh   (env: BASE_PORT, default 18440; PG_PORT, 18973)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REPLICAS_INNER:-}" ]; then
  for t in haproxy wrk; do
    if ! command -v "$t" >/dev/null; then
      [ -n "${CI:-}" ] && { echo "error: $t is missing (scripts/ensure-tools.sh test installs it)" >&2; exit 1; }
      echo "SKIP: $t is not installed; scripts/replicas.sh needs haproxy and wrk" >&2
      exit 0
    fi
  done
  REPLICAS_INNER=1 PG_PORT="${PG_PORT:-18973}" exec scripts/with-postgis.sh "$0" "$@"
fi
[ -n "${OUTFALL_TEST_POSTGRES:-}" ] || { echo "SKIP: no PostGIS for scripts/replicas.sh" >&2; exit 0; }

BIN=./target/release/outfall
[ -x "$BIN" ] || cargo build --release
PG="$OUTFALL_TEST_POSTGRES"
BASE="${BASE_PORT:-18440}"
LB="http://127.0.0.1:$BASE"
STATS="http://127.0.0.1:$((BASE + 9))/stats;csv"
WORK="$(mktemp -d /tmp/outfall-replicas.XXXXXX)"
declare -A PID
stop_all() {
  for r in "${!PID[@]}"; do kill "${PID[$r]}" 2>/dev/null || true; done
  [ -f "$WORK/haproxy.pid" ] && kill "$(cat "$WORK/haproxy.pid")" 2>/dev/null || true
  [ -n "${WRK_PID:-}" ] && kill "$WRK_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop_all EXIT

# Waits until a URL answers 200 (a bound of 120 s only ends a hung run).
wait_ok() {
  for _ in $(seq 1200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" || true)" = 200 ] && return 0
    sleep 0.1
  done
  echo "FAIL: $1 never answered 200" >&2
  exit 1
}

start_replica() {
  local r=$1
  "$BIN" serve --data data/clay --web web --registry "$PG" --bind "127.0.0.1:$((BASE + r))" \
    --drain-secs 1 --trusted-proxy 127.0.0.1 >>"$WORK/replica$r.log" 2>&1 &
  PID[$r]=$!
  wait_ok "http://127.0.0.1:$((BASE + r))/readyz"
}

# HAProxy's view of one replica: UP, DOWN, NOLB (draining) ...
lb_status() {
  curl -s "$STATS" | awk -F, -v s="r$1" '$1 == "outfall" && $2 == s { print $18 }'
}

wait_lb() {
  for _ in $(seq 1200); do
    [ "$(lb_status "$1")" = "$2" ] && return 0
    sleep 0.05
  done
  echo "FAIL: HAProxy never saw replica $1 as $2" >&2
  exit 1
}

t0=$(date +%s.%N)
# The first replica seeds the registry; the others find it seeded.
for r in 1 2 3; do start_replica "$r"; done
cat >"$WORK/haproxy.cfg" <<EOF
global
  maxconn 4096
  pidfile $WORK/haproxy.pid
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  # A request that found a replica gone (closed between the check and the connect) is sent
  # to another one; nothing reached the replica, so even an edit is safe to resend.
  retries 3
  option redispatch 1
  retry-on conn-failure
frontend outfall_in
  bind 127.0.0.1:$BASE
  default_backend outfall
frontend stats
  bind 127.0.0.1:$((BASE + 9))
  stats enable
  stats uri /stats
backend outfall
  balance roundrobin
  # The client's address, which the replicas count failed token checks by (--trusted-proxy).
  option forwardfor
  # One request per replica connection: a replica that shuts down never closes an idle
  # connection under a request the balancer is about to send on it.
  option http-server-close
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 200ms fall 1 rise 1
  server r1 127.0.0.1:$((BASE + 1))
  server r2 127.0.0.1:$((BASE + 2))
  server r3 127.0.0.1:$((BASE + 3))
EOF
haproxy -f "$WORK/haproxy.cfg" -D
for r in 1 2 3; do wait_lb "$r" UP; done
t1=$(date +%s.%N)
echo "== started PostGIS, 3 replicas and HAProxy in $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") s"

TOKEN="$("$BIN" token create --data data/clay --registry "$PG" --role officer --name "replicas writer" 2>/dev/null)"
wrk -t2 -c16 -d120s --latency "$LB/collections/sites/items?limit=20" >"$WORK/wrk.txt" 2>&1 &
WRK_PID=$!
sleep 1
REPLICAS=("http://127.0.0.1:$((BASE + 1))" "http://127.0.0.1:$((BASE + 2))" "http://127.0.0.1:$((BASE + 3))")
echo "== edits through the balancer while wrk reads through it"
python3 scripts/replicas_probe.py "$LB" "$TOKEN" 10 "${REPLICAS[@]}"

echo "== rolling restart under the load"
for r in 1 2 3; do
  s=$(date +%s.%N)
  kill -TERM "${PID[$r]}"
  wait "${PID[$r]}" || true
  start_replica "$r"
  wait_lb "$r" UP
  echo "replica $r: stopped, restarted and back in the balancer in $(printf '%.1f' "$(echo "$(date +%s.%N) - $s" | bc)") s"
done
echo "== edits after the restart (the restarted replicas listen again)"
python3 scripts/replicas_probe.py "$LB" "$TOKEN" 4 "${REPLICAS[@]}"

kill -INT "$WRK_PID"
wait "$WRK_PID" || true
WRK_PID=
echo "== wrk through the balancer, during the edits and the restarts"
grep -E "requests in|Requests/sec|Non-2xx|Socket errors|50%|99%" "$WORK/wrk.txt" | sed 's/^ */  /'
# The frontend's own counts: every answer given to a client, by class.
read -r total h5xx < <(curl -s "$STATS" | awk -F, '$1 == "outfall_in" && $2 == "FRONTEND" { print $49 " " $44 }')
retried=$(curl -s "$STATS" | awk -F, '$1 == "outfall" && $2 == "BACKEND" { print $16 + $17 }')
echo "balancer: $total requests, $h5xx answered 5xx, $retried retried or redispatched"
lost=0
grep -q "Non-2xx" "$WORK/wrk.txt" && lost=1
grep -q "Socket errors" "$WORK/wrk.txt" && lost=1
[ "${h5xx:-0}" = 0 ] || lost=1
if [ "$lost" = 1 ]; then
  echo "FAIL: requests were lost or failed during the edits and restarts" >&2
  tail -20 "$WORK"/replica*.log >&2
  exit 1
fi
echo "== no request lost; total $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
