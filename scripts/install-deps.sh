#!/usr/bin/env bash
# Installs the Debian packages that `make run`, `make test`, `make bench`, `make order-file` or `make deb` need.
# As root it runs apt-get; otherwise it prints the exact command and stops.
set -euo pipefail

what=${1:-run}
# tzdata: the zone rules the daemon reads (/usr/share/zoneinfo); zic (libc-bin) compiles the tests' made-up zones.
# libmosquitto: reveille-mqtt, the smart home's bridge (the daemon never links it).
# libical: holiday calendars; libcurl: 'reveille calendar refresh' fetches web calendars (the CLI only).
packages=(tzdata libical-dev libcurl4-openssl-dev pkg-config libsqlite3-dev libasound2-dev libsndfile1-dev libnfc-dev libsystemd-dev libevdev-dev libgcrypt20-dev libespeak-ng-dev espeak-ng-data libmosquitto-dev libyaml-dev)
case "$what" in
    run) ;;
    test) packages+=(util-linux libnfc-examples systemd python3 chromium chromium-driver fonts-dejavu-core dpkg-dev binutils dbus-daemon mosquitto python3-paho-mqtt openssl cog wpewebkit-driver weston) ;;  # cog, WPEWebDriver, weston: the ring sweep and the set-up in WPE WebKit at 800x480; dbus-daemon: the notifier's session bus; setpriv: the CLI as another user; nfc-poll: the emulator checked by libnfc's own tool; systemd-analyze: the unit; Chromium over WebDriver: the page; dpkg-deb, dpkg-shlibdeps, strip: the package; mosquitto (the broker), paho (a subscriber) and openssl (a test CA): the bridge
    bench) packages+=(hyperfine cron python3 libnfc-examples binutils chromium chromium-driver fonts-dejavu-core dbus-daemon util-linux mosquitto python3-paho-mqtt) ;;  # cron, nfc-poll: the comparisons; nm: the order file's freshness; Chromium: the page's figures
    order) packages+=(valgrind binutils python3) ;;  # callgrind lists the functions the daemon runs; strip, nm
    deb) packages+=(dpkg-dev binutils) ;;  # dpkg-deb, dpkg-shlibdeps; strip
    vm) packages+=(dpkg-dev binutils qemu-system-x86 qemu-system-arm qemu-user-static qemu-utils mmdebstrap arch-test e2fsprogs python3) ;;  # the package, the image (mmdebstrap, mkfs.ext4 -d; qemu-user for an arm64 one), qemu and its overlays
    arm64) packages+=(dpkg-dev binutils mmdebstrap arch-test qemu-user-static) ;;  # the build root (mmdebstrap, which needs arch-test for a foreign architecture); the arm64 CLI run by qemu-user for its completions
    pi) packages+=(dpkg-dev binutils mmdebstrap arch-test qemu-user-static qemu-system-arm qemu-utils dosfstools mtools fdisk e2fsprogs device-tree-compiler xz-utils python3) ;;  # the card image (mmdebstrap through qemu-user, mkfs.vfat and mcopy, sfdisk, mkfs.ext4 -d), the emulated Pi 3 (qemu's raspi3b, fdtput for its device tree)
    *) echo "usage: $0 run|test|bench|order|deb|vm|arm64|pi" >&2; exit 2 ;;
esac

if ! command -v swift >/dev/null 2>&1; then
    echo "Swift is not on PATH. Install the Swift 6 toolchain for Debian 12 / Raspberry Pi OS (see swift.org/install)," >&2
    echo "then run this again." >&2
    exit 1
fi

# chromedriver reaches the browser it starts at "localhost": a bare chroot or container without
# /etc/hosts cannot resolve that name, and every page test would fail with "unable to connect to
# renderer". Debian's installer (and Docker) always write the entry; add it where it is missing.
if [ "$what" = test ] || [ "$what" = bench ]; then
    if ! getent hosts localhost >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then
            echo "localhost does not resolve here (no /etc/hosts entry): adding '127.0.0.1 localhost' to /etc/hosts"
            printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >>/etc/hosts
        else
            echo "localhost does not resolve here; the page's tests need it: add '127.0.0.1 localhost' to /etc/hosts" >&2
            exit 1
        fi
    fi
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "installing: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "Reveille needs these Debian packages: ${missing[*]}" >&2
        echo "Install them, then run make again:" >&2
        echo "  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

# arm64 programs run here through qemu-user: binfmt_misc must know them (a container may not have
# it mounted, or systemd may not have registered qemu-user-static's entries).
# (`vm` only needs it for the arm64 image: there a failure is a warning.)
if { [ "$what" = arm64 ] || [ "$what" = vm ]; } && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    if ! { { [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; } &&
        /lib/systemd/systemd-binfmt /usr/lib/binfmt.d/qemu-aarch64.conf; }; then
        echo "binfmt_misc does not run arm64 programs here (qemu-user-static's entry could not be registered)" >&2
        [ "$what" = vm ] || exit 1
    fi
fi
