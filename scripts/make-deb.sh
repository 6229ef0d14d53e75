#!/usr/bin/env bash
# Builds reveille_VERSION_ARCH.deb with Debian's own tools (dpkg-deb, dpkg-shlibdeps). `make deb`
# runs it on the release build; the packaging test runs it on the debug build.
#   scripts/make-deb.sh BINARIES MANPAGES OUTDIR
# BINARIES: the folder holding reveilled (also reveille-web and reveille-mqtt), reveille, reveille-calendar; MANPAGES:
# swift-argument-parser's generated pages (make man). DEB_COMPRESSION (xz by default; the test
# uses gzip -1 for speed). DEB_UNPACKAGED_LIBRARIES=1 lets the programs link libraries no package
# owns (the debug build's Swift runtime under the toolchain: the packaging test's package is
# checked, never installed). Prints the path of the package; reveille-dbgsym_VERSION_ARCH.deb, the
# programs' debug information, is written beside it.
#
# What the package is (docs/guide/installing.md):
# - the programs, stripped, in /usr/bin; units, sysusers.d and tmpfiles.d in /usr/lib; man pages
#   and completions in their Debian places; README, hardware.md and the settings' examples in
#   /usr/share/doc/reveille;
# - conffiles: /etc/reveille/reveille.toml and apps.toml, the udev rule and the modprobe file (an
#   edited one is kept across upgrades, as dpkg does for every conffile);
# - maintainer scripts: users and folders by systemd-sysusers and systemd-tmpfiles, units enabled
#   and (re)started with deb-systemd-helper and deb-systemd-invoke where present (as debhelper's
#   snippets do), udev rules reloaded and the reader's subsystems triggered; purge removes the
#   state (/var/lib/reveille) and the calendars' cache.
set -euo pipefail
cd "$(dirname "$0")/.."

binaries=${1:?usage: $0 BINARIES MANPAGES OUTDIR}
manpages=${2:?usage: $0 BINARIES MANPAGES OUTDIR}
out=${3:?usage: $0 BINARIES MANPAGES OUTDIR}
compression=${DEB_COMPRESSION:-xz}
level=${DEB_COMPRESSION_LEVEL:-6}

arch=$(dpkg --print-architecture)
base=$(sed -n 's/^public let reveilleVersion = "\(.*\)"$/\1/p' Sources/ReveilleProtocol/Paths.swift)
# Each commit a newer version, so that installing a later build is an upgrade.
count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
version="$base+git$count"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/root

# The files, where `make install` puts them with PREFIX=/usr.
PREFIX=/usr DESTDIR=$stage scripts/install.sh install "$binaries" "$manpages" >/dev/null
rm -rf "$stage/etc/reveille/hooks.d"  # made by the postinst (an empty folder is no conffile)
# The symbols split off, as dh_strip does: each program's debug information goes to the
# reveille-dbgsym package under /usr/lib/debug/.build-id/, where gdb and systemd-coredump look.
debug=$work/debug
build_ids=()
for program in reveilled reveille reveille-calendar; do  # reveille-web, reveille-mqtt and reveille-notify are links to reveilled
    id=$(readelf -n "$stage/usr/bin/$program" | sed -n 's/^ *Build ID: //p')
    [ -n "$id" ] || { echo "$program has no build id" >&2; exit 1; }
    build_ids+=("$id")
    install -d -m 0755 "$debug/usr/lib/debug/.build-id/${id:0:2}"
    objcopy --only-keep-debug --compress-debug-sections "$stage/usr/bin/$program" \
        "$debug/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
    chmod 0644 "$debug/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
    strip --strip-unneeded "$stage/usr/bin/$program"
done
# Debian's places and forms: man pages compressed, completions without a #! line, the copyright
# file, the changelog (a native package's: no Debian revision in the version).
gzip -9n "$stage"/usr/share/man/man*/*
sed -i '1{/^#!/d}' "$stage/usr/share/bash-completion/completions/reveille"
doc=$stage/usr/share/doc/reveille
install -m 0644 docs/copyright "$doc/copyright"
maintainer=${DEB_MAINTAINER:-Reveille maintainers <reveille@example.org>}
printf 'reveille (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
    "$version" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$maintainer" "$(date -R)" |
    gzip -9n >"$doc/changelog.gz"

# Depends: what the programs link, as dpkg-shlibdeps finds it (it reads debian/control); and
# libespeak-ng1 and libmosquitto1 by hand: the voice opens the one at its first sentence, and
# reveille-mqtt the other when it starts (dlopen), so no tool sees them.
mkdir -p "$work/debian"
install -d -m 0755 "$stage/DEBIAN"  # before dpkg-shlibdeps, which finds the package's root by it
printf 'Source: reveille\n\nPackage: reveille\nArchitecture: any\n' >"$work/debian/control"
lenient=()
[ "${DEB_UNPACKAGED_LIBRARIES:-0}" = 1 ] && lenient=(--ignore-missing-info)
# (Its note that the files are not under debian/PACKAGE is about debhelper's layout: dropped.)
shlibs=$(cd "$work" && dpkg-shlibdeps "${lenient[@]}" -O "${stage#"$work"/}"/usr/bin/reveilled "${stage#"$work"/}"/usr/bin/reveille \
    "${stage#"$work"/}"/usr/bin/reveille-calendar 2> >(grep -v "should already be installed in their package's directory" >&2) |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || { echo "dpkg-shlibdeps found no libraries" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOF
Package: reveille
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $shlibs, libespeak-ng1, espeak-ng-data, libmosquitto1, systemd, tzdata
Recommends: chromium
Section: utils
Priority: optional
Homepage: https://github.com/reveille/reveille
Description: bedside alarm clock controller for a Raspberry Pi
 reveilled rings alarms through ALSA; a registered NFC tag or a math answer
 silences them, with limited snoozes. Weekly rules, date overrides, holiday and
 reminder calendars, a voice, bedside keys, per-app time windows and daily
 limits (fanotify), a command line, a kiosk page (reveille-web) and a bridge
 to Home Assistant through an MQTT broker (reveille-mqtt, off until configured).
EOF

cat >"$stage/DEBIAN/conffiles" <<EOF
/etc/reveille/reveille.toml
/etc/reveille/apps.toml
/etc/udev/rules.d/70-reveille.rules
/etc/modprobe.d/reveille-nfc.conf
/etc/xdg/autostart/reveille-notify.desktop
EOF

units="reveille.service reveille-web.service reveille-calendar.timer reveille-calendar.path"
# Installed off (as debhelper's --no-enable): the MQTT bridge has nothing to do until [mqtt] names a broker.
off_units="reveille-mqtt.service"

cat >"$stage/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
    systemd-sysusers /usr/lib/sysusers.d/reveille.conf
    systemd-tmpfiles --create /usr/lib/tmpfiles.d/reveille.conf || true
    install -d -m 0755 /etc/reveille/hooks.d
    if command -v udevadm >/dev/null 2>&1; then
        udevadm control --reload-rules 2>/dev/null || true
        udevadm trigger --subsystem-match=usb --subsystem-match=tty --subsystem-match=input --action=change 2>/dev/null || true
    fi
fi
# As debhelper's dh_installsystemd snippets: enable on first install (unless masked), then
# reload and (re)start where systemd runs.
if [ "\$1" = configure ] || [ "\$1" = abort-upgrade ] || [ "\$1" = abort-deconfigure ] || [ "\$1" = abort-remove ]; then
    for unit in $units; do
        if command -v deb-systemd-helper >/dev/null 2>&1; then
            deb-systemd-helper unmask "\$unit" >/dev/null || true
            if deb-systemd-helper --quiet was-enabled "\$unit"; then
                deb-systemd-helper enable "\$unit" >/dev/null || true
            else
                deb-systemd-helper update-state "\$unit" >/dev/null || true
            fi
        fi
    done
    for unit in $off_units; do
        if command -v deb-systemd-helper >/dev/null 2>&1; then
            deb-systemd-helper update-state "\$unit" >/dev/null || true
        fi
    done
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload >/dev/null || true
        if command -v deb-systemd-invoke >/dev/null 2>&1; then
            deb-systemd-invoke restart $units >/dev/null || true
            deb-systemd-invoke try-restart $off_units >/dev/null || true
        fi
    fi
fi
exit 0
EOF

cat >"$stage/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "\$1" = remove ]; then
    if command -v deb-systemd-invoke >/dev/null 2>&1; then
        deb-systemd-invoke stop $units $off_units reveille-calendar.service >/dev/null || true
    fi
fi
exit 0
EOF

cat >"$stage/DEBIAN/postrm" <<EOF
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if [ "\$1" = remove ] && command -v deb-systemd-helper >/dev/null 2>&1; then
    for unit in $units $off_units; do deb-systemd-helper mask "\$unit" >/dev/null || true; done
fi
if [ "\$1" = purge ]; then
    if command -v deb-systemd-helper >/dev/null 2>&1; then
        for unit in $units $off_units; do
            deb-systemd-helper purge "\$unit" >/dev/null || true
            deb-systemd-helper unmask "\$unit" >/dev/null || true
        done
    fi
    # The clock's state and the fetched calendars; /etc/reveille goes with its conffiles (dpkg),
    # and what an admin added there (hooks) stays.
    rm -rf /var/lib/reveille /var/lib/reveille-mqtt /var/cache/reveille-calendars /run/reveille
    rmdir /etc/reveille/hooks.d /etc/reveille 2>/dev/null || true
fi
exit 0
EOF
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"

mkdir -p "$out"
install -d -m 0755 "$debug/DEBIAN" "$debug/usr/share/doc"
ln -s reveille "$debug/usr/share/doc/reveille-dbgsym"
cat >"$debug/DEBIAN/control" <<CONTROL
Package: reveille-dbgsym
Source: reveille
Version: $version
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$debug" | cut -f1)
Depends: reveille (= $version)
Section: debug
Priority: optional
Description: debug symbols for reveille
Build-Ids: ${build_ids[*]}
CONTROL
dpkg-deb --root-owner-group -Z"$compression" -z"$level" --build "$debug" \
    "$out/reveille-dbgsym_${version}_$arch.deb" >/dev/null
package=$out/reveille_${version}_$arch.deb
dpkg-deb --root-owner-group -Z"$compression" -z"$level" --build "$stage" "$package" >/dev/null
echo "$package"
