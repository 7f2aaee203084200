#!/usr/bin/env bash
# Runs a command with a real PostGIS beside it: starts a private PostgreSQL cluster (Debian's
# postgresql + postgresql-15-postgis-3) on a loopback port, runs the command with
# OUTFALL_TEST_POSTGRES set (the registry tests then run their suite on PostGIS too), then
# stops and removes the cluster. Usage: scripts/with-postgis.sh [COMMAND...]
#   default command: cargo test --release --test registry;  port: $PG_PORT or 18972
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PG_PORT:-18972}"
[ $# -gt 0 ] || set -- cargo test --release --test registry
BIN=""
for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && BIN="$d"; done
if [ -z "$BIN" ] || [ ! -f "$(ls -d /usr/share/postgresql/*/extension 2>/dev/null | tail -1)/postgis.control" ]; then
  if [ -n "${CI:-}" ]; then
    echo "error: PostgreSQL/PostGIS is missing (scripts/ensure-tools.sh test installs postgresql and postgresql-15-postgis-3)" >&2
    exit 1
  fi
  echo "SKIP: PostgreSQL with PostGIS is not installed; the PostGIS registry tests skip" >&2
  exec "$@"
fi
WORK="$(mktemp -d /tmp/outfall-pg.XXXXXX)"
AS=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$WORK"
  AS=(runuser -u postgres --)
fi
stop() {
  "${AS[@]}" "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap stop EXIT
"${AS[@]}" "$BIN/initdb" -D "$WORK/data" -U postgres --auth=trust >/dev/null
# -w waits for the server to accept connections; -t 300 only ends a hung start (the default
# 60 s could be outrun by a start on a busy machine).
"${AS[@]}" "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/log" -w -t 300 \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $WORK -c fsync=on" start >/dev/null
export OUTFALL_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PORT/postgres"
"$@"
