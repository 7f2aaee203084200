#!/usr/bin/env bash
# Starts the real server on the demo data on a loopback port, runs the browser tests
# (node's test runner driving Debian chromium through playwright-core), and stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-18931}"
if ! command -v chromium >/dev/null; then
  if [ -n "${CI:-}" ]; then echo "FAIL: chromium is required for the browser tests in CI" >&2; exit 1; fi
  echo "SKIP: browser tests (chromium not installed; run as root or install Debian chromium)"; exit 0
fi
# A fresh site registry seeded from data/clay's files, so the tests see the demo as committed
# (not a developer's edits in data/clay/registry.gpkg).
reg="$(mktemp -d /tmp/outfall-e2e-registry.XXXXXX)"
./target/release/outfall serve --data data/clay --registry "$reg/registry.gpkg" --bind "127.0.0.1:$port" --web web > target/e2e-server.log 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$reg"' EXIT
# Waits for the server to answer (or to die); the 300 s bound only ends a hung start.
up=""
for _ in $(seq 1 1500); do
  curl -sf "http://127.0.0.1:$port/conformance" >/dev/null 2>&1 && { up=1; break; }
  kill -0 $pid 2>/dev/null || { cat target/e2e-server.log; exit 1; }
  sleep 0.2
done
[ -n "$up" ] || { echo "FAIL: the e2e server did not answer within 300 s" >&2; cat target/e2e-server.log; exit 1; }
OUTFALL_URL="http://127.0.0.1:$port" node --test --test-concurrency="${E2E_JOBS:-2}" tests/e2e/
