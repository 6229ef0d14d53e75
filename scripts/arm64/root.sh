#!/usr/bin/env bash
# The build roots for arm64 (docs/TESTING.md, "Building for a Raspberry Pi"), made by mmdebstrap:
# - OUTDIR: Debian unstable for amd64, whose swiftlang 6.2.3 runs on this machine (Debian 13's is
#   6.0.3, older than the package's tools version; unstable's needs glibc 2.42, so it lives in a
#   root of its own, never on the host), with arm64's Swift runtime and modules unpacked in
#   /opt/swift-arm64 (the compiler's resource folder for the target) and binutils for aarch64;
# - OUTDIR/opt/sysroot-arm64: Debian 13 (trixie, which Raspberry Pi OS is built on) for arm64, with
#   the project's libraries: the programs are compiled and linked against it, so they need nothing
#   newer than Debian 13 has, and the package is made in it (its dpkg-shlibdeps, run by qemu-user).
#   scripts/arm64/root.sh OUTDIR
# Cached: does nothing when OUTDIR/.key names this script. Root only.
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
key=$(sha256sum "$0" | cut -c1-16)
if [ -f "$out/.key" ] && [ "$(cat "$out/.key")" = "$key" ]; then
    echo "arm64 build roots: cached ($out)"
    exit 0
fi
rm -rf "$out"
# mmdebstrap wants the folder's parent to exist (a fresh clone has no .build/arm64).
mkdir -p "$(dirname "$out")"
started=$(date +%s)
# The mirror serves unstable's lists past their Valid-Until (NOTES.md): apt is told not to mind.
mmdebstrap --quiet --variant=apt --mode=root \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --include=swiftlang,g++,pkgconf,git,ca-certificates,file,binutils-aarch64-linux-gnu \
    --customize-hook='chroot "$1" sh -c "cd /tmp && dpkg --add-architecture arm64 && apt-get update -qq &&
        apt-get download -qq swiftlang:arm64 libswiftlang:arm64 && mkdir -p /opt/swift-arm64 &&
        for deb in /tmp/*swiftlang_*_arm64.deb; do dpkg -x \$deb /opt/swift-arm64; done && rm /tmp/*.deb"' \
    sid "$out" http://deb.debian.org/debian
# The project's libraries (install-deps.sh's list), and what make-deb.sh runs.
mmdebstrap --quiet --variant=apt --mode=root --architectures=arm64 \
    --include=libical-dev,libcurl4-openssl-dev,libsqlite3-dev,libasound2-dev,libsndfile1-dev,libnfc-dev,libsystemd-dev,libevdev-dev,libgcrypt20-dev,libespeak-ng-dev,libmosquitto-dev,libyaml-dev,libc6-dev,libstdc++-14-dev,dpkg-dev,binutils,git,file \
    trixie "$out/opt/sysroot-arm64" http://deb.debian.org/debian
# The Swift runtime where a Swift SDK keeps it, in the sysroot: the driver links swiftrt.o from there.
for folder in swift swift_static; do
    ln -s "/opt/swift-arm64/usr/libexec/swift/lib/$folder" "$out/opt/sysroot-arm64/usr/lib/$folder"
done
echo "$key" >"$out/.key"
echo "arm64 build roots: made in $(($(date +%s) - started)) s ($out)"
