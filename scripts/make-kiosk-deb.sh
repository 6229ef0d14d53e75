#!/usr/bin/env bash
# Builds reveille-kiosk_VERSION_all.deb: the clock's touchscreen as part of the appliance
# (hardware.md, "The kiosk"). Chromium in the cage Wayland compositor as the reveille-kiosk user,
# on tty1 at boot, with no desktop; the same version as reveille, which it depends on.
#   scripts/make-kiosk-deb.sh OUTDIR
# Prints the path of the package.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: $0 OUTDIR}
base=$(sed -n 's/^public let reveilleVersion = "\(.*\)"$/\1/p' Sources/ReveilleProtocol/Paths.swift)
count=$(git rev-list --count HEAD 2>/dev/null || echo 0)
version="$base+git$count"
maintainer=${DEB_MAINTAINER:-Reveille maintainers <reveille@example.org>}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/root
install -D -m 0644 kiosk/reveille-kiosk.service "$stage/usr/lib/systemd/system/reveille-kiosk.service"
install -D -m 0644 kiosk/reveille-kiosk.sysusers "$stage/usr/lib/sysusers.d/reveille-kiosk.conf"
install -D -m 0644 kiosk/reveille-kiosk.pam "$stage/etc/pam.d/reveille-kiosk"
install -D -m 0644 kiosk/default "$stage/etc/default/reveille-kiosk"
install -D -m 0755 kiosk/kiosk "$stage/usr/libexec/reveille-kiosk/kiosk"
doc=$stage/usr/share/doc/reveille-kiosk
install -D -m 0644 docs/copyright "$doc/copyright"
printf 'reveille (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
    "$version" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$maintainer" "$(date -R)" |
    gzip -9n >"$doc/changelog.gz"
install -d -m 0755 "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: reveille-kiosk
Source: reveille
Version: $version
Architecture: all
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: reveille (>= $base), cage, chromium, xwayland, systemd, libpam-systemd
Section: utils
Priority: optional
Homepage: https://github.com/reveille/reveille
Description: touchscreen kiosk of the Reveille alarm clock
 Shows the clock's page (reveille-web) full screen on the first virtual
 console at boot: Chromium in the cage Wayland compositor, as a user of its
 own, with no desktop. Its browser has the household's rights on the clock
 without pairing; at night the screen goes black and the tap that wakes it
 presses nothing. For a clock with no desktop: on a machine with one, open
 the page in its browser instead.
CONTROL
printf '/etc/pam.d/reveille-kiosk\n/etc/default/reveille-kiosk\n' >"$stage/DEBIAN/conffiles"
cat >"$stage/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    systemd-sysusers /usr/lib/sysusers.d/reveille-kiosk.conf
fi
if [ "$1" = configure ] || [ "$1" = abort-upgrade ]; then
    if command -v deb-systemd-helper >/dev/null 2>&1; then
        deb-systemd-helper unmask reveille-kiosk.service >/dev/null || true
        if deb-systemd-helper --quiet was-enabled reveille-kiosk.service; then
            deb-systemd-helper enable reveille-kiosk.service >/dev/null || true
        else
            deb-systemd-helper update-state reveille-kiosk.service >/dev/null || true
        fi
    fi
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload >/dev/null || true
        if command -v deb-systemd-invoke >/dev/null 2>&1; then
            deb-systemd-invoke restart reveille-kiosk.service >/dev/null || true
        fi
    fi
fi
exit 0
SCRIPT
cat >"$stage/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ] && command -v deb-systemd-invoke >/dev/null 2>&1; then
    deb-systemd-invoke stop reveille-kiosk.service >/dev/null || true
fi
exit 0
SCRIPT
cat >"$stage/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if command -v deb-systemd-helper >/dev/null 2>&1; then
    [ "$1" = remove ] && deb-systemd-helper mask reveille-kiosk.service >/dev/null || true
    if [ "$1" = purge ]; then
        deb-systemd-helper purge reveille-kiosk.service >/dev/null || true
        deb-systemd-helper unmask reveille-kiosk.service >/dev/null || true
    fi
fi
exit 0
SCRIPT
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"
mkdir -p "$out"
package=$out/reveille-kiosk_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$package" >/dev/null
echo "$package"
