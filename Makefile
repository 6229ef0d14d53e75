# Reveille: `make run` runs the daemon for development, `make test` runs every test.
SWIFT ?= swift
# Where `make run` keeps state, socket and log.
ROOT ?= $(CURDIR)/.reveille
TIME_ZONE ?=
# Where `make install` puts things: $(DESTDIR)$(PREFIX)/bin, ... (/etc for udev, modprobe, settings).
PREFIX ?= /usr/local
DESTDIR ?=
MANPAGES = .build/plugins/GenerateManual/outputs

.PHONY: all build run test test-release test-release-all fuzz soak bench format clean release release-build install uninstall man order-file deb deb-check vm-test vm-soak deb-arm64 deb-check-arm64 vm-test-arm64 vm-smoke vm-test-wifi ha-trial image-pi vm-test-pi

all: build

build:
	$(SWIFT) build

## Runs reveilled in the foreground under ./.reveille (no root, no hardware), and reveille-web
## beside it on http://127.0.0.1:$(WEB_PORT)/. Ctrl-C stops both.
## In another terminal: .build/debug/reveille --root .reveille status
WEB_PORT ?= 8080
run:
	scripts/install-deps.sh run
	$(SWIFT) build  # reveilled, reveille, reveille-web, reveille-calendar (and the small bench and emulator): one planning pass
	@mkdir -p "$(ROOT)"
	@.build/debug/reveille-web --root "$(ROOT)" --port $(WEB_PORT) 2>"$(ROOT)/reveille-web.log" & web=$$!; \
		trap 'kill $$web 2>/dev/null' EXIT INT TERM; \
		echo "the clock's page: http://127.0.0.1:$(WEB_PORT)/ (its log: $(ROOT)/reveille-web.log)"; \
		.build/debug/reveilled --root "$(ROOT)" $(if $(TIME_ZONE),--time-zone $(TIME_ZONE))

## Installs what the tests need, builds everything, runs every test.
test:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	$(MAKE) man
	$(SWIFT) test --skip-build
	python3 Tests/web/test_web.py  # the page in headless Chromium (screenshots: .build/web-screenshots)
	python3 Tests/web/test_screens.py  # every screen at 800x480 and 390x844, day and night
	python3 Tests/packaging/test_deb.py  # the Debian package, built from the debug build and read back
	python3 Tests/mqtt/test_mqtt.py  # reveille-mqtt against a real mosquitto (TLS, passwords, ACLs)
	python3 Tests/docs/test_docs.py  # the docs' links, named sections and commands; the file formats' man pages
	python3 Tests/bench/test_screen_reading.py  # the benches' screen readers on day and night captures

## The daemon's end-to-end suite against the release programs, which link FoundationEssentials
## only (docs/TESTING.md, "Tests and benchmarks"). The page's and the bridge's suites run against
## the debug build in `make test`, and the release page server in vm-smoke's kiosk: CI keeps to
## its 35 minutes. `make test-release-all` runs them against the release programs too.
test-release:
	scripts/install-deps.sh test
	$(MAKE) release-build
	$(SWIFT) build --build-tests
	$(MAKE) man  # the install test installs them
	REVEILLE_BIN_DIR=$(CURDIR)/.build/release $(SWIFT) test --skip-build --filter ReveilleDaemonTests

test-release-all: test-release
	python3 Tests/web/test_web.py .build/release
	python3 Tests/web/test_screens.py .build/release
	python3 Tests/mqtt/test_mqtt.py .build/release

## A longer fuzzing run than `make test`'s: the control protocol's decoder on FUZZ_CASES mutated
## requests, the calendar reader on FUZZ_CASES/100 mutated calendars (about 10 minutes by default).
## A failure names its case; FUZZ_SEED replays the same cases.
FUZZ_CASES ?= 1000000
FUZZ_SEED ?= $(shell date +%s)
fuzz:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	@echo "fuzzing with FUZZ_SEED=$(FUZZ_SEED) FUZZ_CASES=$(FUZZ_CASES)"
	REVEILLE_FUZZ_CASES=$(FUZZ_CASES) REVEILLE_FUZZ_SEED=$(FUZZ_SEED) $(SWIFT) test --skip-build --filter FuzzTests

## The household's year again with SOAK_SEEDS other seeds (in-process, virtual time: about a minute
## each with swift test's start), then the real daemon's SOAK_DAYS days jumped morning to morning on its test clock
## (about 1.2 s a day: 7 minutes for a year), its descriptors, watches, threads and RSS compared
## between the second day and the last. Figures: BENCHMARKS.md, "A year".
SOAK_SEEDS ?= 5
SOAK_DAYS ?= 365
soak:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	@for seed in $$(seq 1 $(SOAK_SEEDS)); do \
		REVEILLE_YEAR_SEED=$$seed $(SWIFT) test --skip-build --filter HouseholdYearTests >.build/soak-year.log 2>&1; \
		status=$$?; grep -E "household year|✘" .build/soak-year.log; \
		test $$status -eq 0 || { echo "seed $$seed failed: .build/soak-year.log"; exit 1; }; \
	done
	REVEILLE_SOAK_DAYS=$(SOAK_DAYS) $(SWIFT) test --skip-build --filter DaemonDaysTests

## Man pages from the commands' help (swift-argument-parser's generate-manual plugin).
man:
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --configuration debug >/dev/null

## Release binaries (Swift runtime linked statically) and man pages, as yourself: `sudo` resets
## PATH, so the Swift toolchain is not found under it.
release:
	scripts/install-deps.sh run
	$(MAKE) release-build
	$(MAKE) man

## The release build: `reveilled` (also the page's server: reveille-web is a link to it),
## `reveille`, `reveille-calendar`, and the benchmark's tools. SwiftPM does not see the linker's
## order file (link/reveilled.order) as an input: removing the daemon makes it link again, in a
## second, with the file as it is now.
release-build:
	rm -f .build/release/reveilled .build/release/reveille-web .build/release/reveille-notify .build/release/reveille-mqtt
	for product in reveilled reveille reveille-calendar reveille-bench pn532-emulator; do \
		$(SWIFT) build -c release --static-swift-stdlib $(NO_FOUNDATION) --product $$product || exit 1; \
	done
	ln -s reveilled .build/release/reveille-web
	ln -s reveilled .build/release/reveille-notify
	ln -s reveilled .build/release/reveille-mqtt

## TOMLKit names Foundation for three types FoundationEssentials has: the release programs are kept
## from linking the whole of Foundation and ICU's 34 MB of data (BENCHMARKS.md, "Smaller programs").
## A real use of Foundation then fails the link, naming the symbol.
NO_FOUNDATION := $(foreach library,Foundation CoreFoundation FoundationInternationalization _FoundationICU,\
	-Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc $(library))

## reveille_VERSION_ARCH.deb under .build/ from the release build, with dpkg-deb and
## dpkg-shlibdeps (docs/guide/installing.md). As yourself, like `make release`.
deb:
	scripts/install-deps.sh deb
	$(MAKE) release-build
	$(MAKE) man
	scripts/make-deb.sh .build/release $(MANPAGES) .build
	scripts/make-kiosk-deb.sh .build

## The appliance booted (docs/TESTING.md, "The appliance, booted"): the package of `make deb` installed by apt
## in a Debian 12 image made by mmdebstrap (cached in VM_DIR, rebuilt when the package or the image
## script changes), booted in qemu on a fresh overlay and driven through its serial console: systemd
## starts the unit at boot, a ring is captured on the kernel's snd-aloop card, uinput keys, the
## PN532 emulator on the guest's serial port, fanotify for a login user and in a chroot, an apt
## upgrade while an alarm comes due, VM_CUTS power cuts (qemu system_reset) mid-ring and after
## dismissals, and boots with the clock a day behind and a day ahead. Root only; figures in
## .build/vm-figures.json.
VM_DIR ?= $(CURDIR)/.build/vm
VM_CUTS ?= 10
vm-test:
	scripts/install-deps.sh vm
	$(MAKE) deb
	deb=$$(ls -t .build/reveille_*_amd64.deb | head -1) && \
	scripts/vm/image.sh $$deb $(VM_DIR) amd64 $$(ls -t .build/reveille-kiosk_*_all.deb | head -1) && \
	python3 scripts/vm/bench.py $(VM_DIR) --deb $$deb --emulator .build/release/pn532-emulator \
		--cuts $(VM_CUTS) $(if $(VM_ONLY),--only "$(VM_ONLY)") --json .build/vm-figures.json

## CI's part of the bench (about 12 minutes with the package and the image): boot, sound on
## snd-aloop, the reader through pn532_uart, the kiosk's screen captured, the Wi-Fi from Imager, a power cut.
vm-smoke:
	$(MAKE) vm-test VM_ONLY="sound,nfc,kiosk,wifi,power cuts" VM_CUTS=1

## reveille_VERSION_arm64.deb under .build/, for a Raspberry Pi on a 64-bit OS (docs/TESTING.md, "Building for a
## Raspberry Pi"): cross-compiled by Debian unstable's swiftlang in a build root of its own (cached in
## ARM64_ROOT, made by mmdebstrap), checked for glibc symbols newer than Debian 13's, and packaged
## with arm64's dpkg-shlibdeps. Root only.
ARM64_ROOT ?= $(CURDIR)/.build/arm64/root
deb-arm64:
	scripts/install-deps.sh arm64
	$(MAKE) man
	scripts/arm64/root.sh $(ARM64_ROOT)
	NO_FOUNDATION_FLAGS="$(NO_FOUNDATION)" scripts/arm64/build.sh $(ARM64_ROOT) $(MANPAGES) .build

## The arm64 package installed, upgraded and purged in a fresh Debian 13 arm64 chroot (qemu-user).
deb-check-arm64: deb-arm64
	DEB_SUITE=trixie DEB_ARCH=arm64 scripts/deb-install-check.sh $$(ls -t .build/reveille_*_arm64.deb | head -1)

## The arm64 package booted on a Pi's processor (qemu virt, cortex-a72, TCG) in a Debian 13 image:
## boot to READY, a ring on snd-aloop, a uinput snooze, a tag through pn532_uart on the PL011 UART,
## one power cut mid-ring. Root only; figures in .build/vm-arm64-figures.json.
VM_ARM64_DIR ?= $(CURDIR)/.build/vm-arm64
vm-test-arm64: deb-arm64
	scripts/install-deps.sh vm
	$(SWIFT) build -c release --static-swift-stdlib $(NO_FOUNDATION) --product pn532-emulator
	deb=$$(ls -t .build/reveille_*_arm64.deb | head -1) && scripts/vm/image.sh $$deb $(VM_ARM64_DIR) arm64 && \
	python3 scripts/vm/bench.py $(VM_ARM64_DIR) --arch arm64 --deb $$deb --emulator .build/release/pn532-emulator \
		--json .build/vm-arm64-figures.json

## The card image for a Raspberry Pi 3/4/5 (hardware.md, "The image"): Debian 13 arm64 with its
## kernel and raspi-firmware, the arm64 package and reveille-kiosk installed and enabled, made by
## mmdebstrap through qemu-user (Debian's part cached in .build/pi-base). Writes
## .build/reveille-pi-arm64.img and its .img.xz. Root only.
PI_IMAGE ?= $(CURDIR)/.build/reveille-pi-arm64.img
image-pi: deb-arm64
	scripts/install-deps.sh pi
	scripts/make-kiosk-deb.sh .build
	scripts/pi/image.sh $$(ls -t .build/reveille_*_arm64.deb | head -1) $$(ls -t .build/reveille-kiosk_*_all.deb | head -1) $(PI_IMAGE)
	xz -T0 -3 -k -f $(PI_IMAGE)

## That image booted as a Raspberry Pi 3 (qemu raspi3b, TCG; docs/TESTING.md, "The image on an
## emulated Pi 3"): a power cut during the first boot, READY, a ring on a USB sound card, a tag on
## the PL011, a power cut mid-ring; then on qemu's virt board with a screen: the set-up and the
## kiosk's screens captured (.build/pi-screens). Figures in .build/vm-pi-figures.json.
vm-test-pi:
	test -f $(PI_IMAGE) || $(MAKE) image-pi
	scripts/install-deps.sh pi
	$(SWIFT) build -c release --static-swift-stdlib $(NO_FOUNDATION) --product pn532-emulator
	python3 scripts/pi/bench.py $(PI_IMAGE) --emulator .build/release/pn532-emulator \
		--screens .build/pi-screens --json .build/vm-pi-figures.json

## The Wi-Fi on simulated radios (mac80211_hwsim, hostapd): Imager's settings (as vm-smoke), joining
## through the daemon (a wrong password, another network), and a screenless clock's own set-up network joined by a "phone" radio that moves the clock
## to the household's network (docs/TESTING.md, "Wi-Fi on simulated radios"). Root only.
vm-test-wifi:
	$(MAKE) vm-test VM_ONLY="wifi,wifi join,setup network" VM_CUTS=0

## The same with 50 power cuts.
vm-soak:
	$(MAKE) vm-test VM_CUTS=50

## The clock in a real Home Assistant (docs/guide/smart-home.md, "The clock in the smart home"): Home Assistant
## from PyPI in a venv of its own (HA_PYTHON: a Python 3.13; about 400 MB, cached in HA_VENV), a
## mosquitto with passwords and ACLs, the debug build. Onboards it, adds MQTT through its config
## flow, checks every entity and the README's automation, and saves the device's page as
## docs/home-assistant.png. Not part of `make test`: it needs PyPI and a few minutes.
HA_PYTHON ?= python3.13
HA_VENV ?= /var/tmp/reveille-ha
HA_VERSION ?= 2025.4.4
ha-trial: build
	scripts/install-deps.sh test
	test -x $(HA_VENV)/bin/hass || { $(HA_PYTHON) -m venv $(HA_VENV) && $(HA_VENV)/bin/pip install \
		homeassistant==$(HA_VERSION) home-assistant-frontend==20250411.0 paho-mqtt==2.1.0; }
	python3 scripts/ha_trial.py $(HA_VENV) .build/debug docs/home-assistant.png

## The package of `make deb` installed, upgraded and purged in a fresh Debian 12 chroot (as root).
deb-check: deb
	scripts/deb-install-check.sh $$(ls -t .build/reveille_*.deb | head -1)

## Units, udev rules, settings, completions, man pages and the binaries of `make release`.
## PREFIX=/usr/local, DESTDIR= as usual; an edited /etc/reveille/reveille.toml is kept.
install:
	@test -x .build/release/reveilled -a -f $(MANPAGES)/reveille/reveille.1 || \
		{ echo "build first, as yourself: make release" >&2; exit 1; }
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh install .build/release $(MANPAGES)

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh uninstall

## Release build (Swift runtime linked statically: half the start-up time), then the figures of BENCHMARKS.md.
bench:
	scripts/install-deps.sh bench
	$(MAKE) release-build
	scripts/order_file_check.py  # is link/reveilled.order still the daemon's? (make order-file if not)
	scripts/bench.sh
	scripts/bench_ring.py   # FIRES=50 RINGING_SECONDS=30 IDLE_SECONDS=300 by default: about 15 minutes
	scripts/bench_nfc.py    # TAGS=30 IDLE_SECONDS=120 by default: about 3 minutes
	scripts/bench_input.py  # PRESSES=30 IDLE_SECONDS=120 by default: about 4 minutes
	scripts/bench_apps.py   # as root; EXECS=2000; compares with fapolicyd if installed
	scripts/bench_web.py    # RINGS=10 IDLE_SECONDS=120: the page in headless Chromium, about 3 minutes
	scripts/bench_notify.py # as root; IDLE_SECONDS=60: a child's desktop notifier, idle and answering
	scripts/bench_waking.py # RUNS=5: a stalled device to the backup, the wake-up check and escalation, about 2 minutes
	scripts/bench_mqtt.py   # RINGS=10 IDLE_SECONDS=180 REPEATS=5: the smart home's bridge and a real mosquitto, about 12 minutes

## Rewrites link/reveilled.order from a day of the release daemon's life under valgrind
## (scripts/order_file.py, about a minute, as root for the app guard), then links with it.
order-file:
	scripts/install-deps.sh order
	$(MAKE) release-build
	scripts/order_file.py
	$(MAKE) release-build

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
