# The two set-up commands: `make run` serves the demo, `make test` runs every test.
SHELL := /bin/bash
export PATH := $(CURDIR)/.tools/venv/bin:$(PATH)
BIND ?= 127.0.0.1:8080
E2E_PORT ?= 18931

.PHONY: run test build web lint bench bench-peers e2e tools clients

run: tools web
	cargo build --release
	./target/release/outfall serve --data data/clay --bind $(BIND) --web web

# Clippy's driver compiling the workspace's own crates: lints (as errors) and the artifacts in
# one build, which the tests, the binary and the browser tests then share. `cargo clippy` is
# this same driver run as a check, which would compile every crate a second time. The driver's
# artifacts have their own names in target/, so a plain `cargo build` beside them stays fresh.
LINTED := RUSTC_WORKSPACE_WRAPPER="$$(rustc --print sysroot)/bin/clippy-driver" \
	CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

# Lint, unit and integration tests (Rust, incl. the GDAL client test), three replicas behind
# HAProxy over PostGIS (scripts/replicas.sh), then the browser tests, on one release build.
test: tools web clients
	scripts/ensure-tools.sh test
	$(MAKE) --no-print-directory lint
	$(LINTED) scripts/with-postgis.sh cargo test --release --workspace
	./target/release/outfall validate --data data/clay --strict
	scripts/replicas.sh
	scripts/e2e.sh $(E2E_PORT)

# The lint step of `make test` alone (and the build the tests then use).
lint:
	cargo fmt --check
	$(LINTED) cargo test --release --workspace --all-targets --no-run

tools:
	@scripts/ensure-tools.sh build

web: web/node_modules/.package-lock.json

web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

# @camptocamp/ogc-client for tests/ogc_clients.rs (OWSLib comes from ensure-tools.sh test).
clients: tests/clients/node_modules/.package-lock.json

tests/clients/node_modules/.package-lock.json: tests/clients/package.json tests/clients/package-lock.json
	cd tests/clients && npm ci --no-audit --no-fund
	touch $@

# The viewer in headless Debian chromium against the real server on a loopback port.
e2e: web
	cargo build --release
	scripts/e2e.sh $(E2E_PORT)

bench: tools
	cargo bench

# Outfall against PostGIS and GeoPandas (../shared/bench/anchors), paired runs, one table.
bench-peers: tools
	scripts/bench-peers.sh
