#!/usr/bin/env bash
# Makes sure the build and test tools exist on a fresh Debian machine that has only the Rust
# toolchain. Usage: scripts/ensure-tools.sh build|test
#   build: cmake (PROJ is compiled from source by proj-sys)
#   test:  also gdal-bin (ogrinfo/ogr2ogr, the independent OGC API client), chromium (browser tests),
#          haproxy and wrk (scripts/replicas.sh),
#          and the Python OGC API clients of tests/clients/requirements.txt in .tools/venv
# Uses what is on PATH; else apt-get as root; else (cmake only) pip into .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."
want=(cmake)
[ "${1:-build}" = test ] && want+=(ogrinfo chromium node haproxy wrk)
declare -A pkg=([cmake]=cmake [ogrinfo]=gdal-bin [chromium]=chromium [node]=nodejs [haproxy]=haproxy [wrk]=wrk)
missing=()
if [ "${1:-build}" = test ]; then
  # OWSLib and openapi-spec-validator for tests/ogc_clients.rs, pinned; a no-op once installed.
  [ -x .tools/venv/bin/python ] || python3 -m venv .tools/venv
  .tools/venv/bin/pip install -q --disable-pip-version-check -r tests/clients/requirements.txt
fi
for t in "${want[@]}"; do
  command -v "$t" >/dev/null 2>&1 || [ -x ".tools/venv/bin/$t" ] || missing+=("$t")
done
# The registry tests run on a real PostGIS server (scripts/with-postgis.sh starts one).
if [ "${1:-build}" = test ] && ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing: postgresql postgresql-15-postgis-3" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-15-postgis-3 >/dev/null
  else
    echo "warning: PostgreSQL/PostGIS is missing and cannot be installed without root; the PostGIS registry tests will skip (CI installs it)" >&2
  fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing: ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]/#/}" $(for m in "${missing[@]}"; do echo "${pkg[$m]}"; done) >/dev/null 2>&1 \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(for m in "${missing[@]}"; do echo "${pkg[$m]}"; done)
  exit 0
fi
for t in "${missing[@]}"; do
  if [ "$t" = cmake ]; then
    python3 -m venv .tools/venv && .tools/venv/bin/pip install -q cmake
  else
    echo "warning: $t is missing and cannot be installed without root; tests that need it will skip (CI installs it)" >&2
  fi
done
