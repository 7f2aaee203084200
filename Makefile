# The two set-up commands: `make run` serves the demo, `make test` runs every test.
SHELL := /bin/bash
export PATH := $(CURDIR)/.tools/venv/bin:$(PATH)
BIND ?= 127.0.0.1:8080
E2E_PORT ?= 18931

.PHONY: run test build web lint bench bench-peers e2e tools clients

run: tools web
	cargo build --release
	./target/release/outfall serve --data data/clay --bind $(BIND) --web web

# Unit and integration tests (Rust, incl. the GDAL client test), lint, three replicas behind
# HAProxy over PostGIS (scripts/replicas.sh), then the browser test.
test: tools web clients
	scripts/ensure-tools.sh test
	cargo fmt --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	scripts/with-postgis.sh cargo test --release --workspace
	./target/release/outfall validate --data data/clay --strict
	scripts/replicas.sh
	$(MAKE) e2e

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
