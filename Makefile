# Reveille: `make run` runs the daemon for development, `make test` runs every test.
SWIFT ?= swift
# Where `make run` keeps state, socket and log.
ROOT ?= $(CURDIR)/.reveille
TIME_ZONE ?=

.PHONY: all build run test bench format clean

all: build

build:
	$(SWIFT) build

## Runs reveilled in the foreground under ./.reveille (no root, no hardware). Ctrl-C stops it.
## In another terminal: .build/debug/reveille --root .reveille status
run:
	scripts/install-deps.sh run
	$(SWIFT) build --product reveille
	$(SWIFT) build --product reveilled
	.build/debug/reveilled --root "$(ROOT)" $(if $(TIME_ZONE),--time-zone $(TIME_ZONE))

## Installs what the tests need, builds everything, runs every test.
test:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Release build (Swift runtime linked statically: half the start-up time), then the figures of BENCHMARKS.md.
bench:
	scripts/install-deps.sh bench
	$(SWIFT) build -c release --static-swift-stdlib
	scripts/bench.sh
	scripts/bench_ring.py   # FIRES=50 RINGING_SECONDS=30 IDLE_SECONDS=300 by default: about 15 minutes
	scripts/bench_nfc.py    # TAGS=30 IDLE_SECONDS=120 by default: about 3 minutes

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
