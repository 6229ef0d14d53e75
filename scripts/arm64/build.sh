#!/usr/bin/env bash
# The release programs for arm64 (a Raspberry Pi 3, 4, 5 or Zero 2 W on a 64-bit OS), built on this
# amd64 machine by Debian unstable's swiftlang in the root of scripts/arm64/root.sh: cross-compiled
# (--triple aarch64-unknown-linux-gnu) against Debian 13's arm64 libraries (the sysroot) and arm64's
# Swift runtime, linked by lld. Then the glibc check, and the package, made by make-deb.sh in the
# arm64 sysroot (its own dpkg-shlibdeps and binutils, run by qemu-user through binfmt_misc).
#   scripts/arm64/build.sh ROOT MANPAGES OUTDIR
# The programs land in .build/arm64/programs; the package in OUTDIR. Root only (chroot). The
# completions are made by the arm64 `reveille` itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(readlink -f "${1:?usage: $0 ROOT MANPAGES OUTDIR}")
manpages=${2:?usage: $0 ROOT MANPAGES OUTDIR}
out=${3:?usage: $0 ROOT MANPAGES OUTDIR}
repo=$(pwd)
# Debian 13 (trixie, and Raspberry Pi OS on it) has glibc 2.41: no program may need a newer symbol.
glibc_max=2.41

mounts=()
cleanup() {
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind FROM TO-IN-ROOT
    mkdir -p "$root$2"
    mount --bind "$1" "$root$2"
    mounts+=("$root$2")
}
sysroot=/opt/sysroot-arm64
bind /proc /proc
bind /dev /dev
bind "$repo" /src
bind /proc "$sysroot/proc"
bind /dev "$sysroot/dev"
bind "$repo" "$sysroot/src"
# The Swift packages: the machine's URL rewrite to its local copies, as on the host.
if [ -f /etc/gitconfig ]; then
    cp /etc/gitconfig "$root/etc/gitconfig"
    for folder in $(git config --system --get-regexp '^url\..*\.insteadof$' | sed -E 's/^url\.(.*)\.insteadof .*/\1/' | sort -u); do
        [ -d "$folder" ] && bind "$folder" "$folder"
    done
fi

products="reveilled reveille reveille-calendar"
started=$(date +%s)
chroot "$root" env -i PATH=/usr/bin:/bin HOME=/root NO_FOUNDATION_FLAGS="${NO_FOUNDATION_FLAGS:-}" \
    PKG_CONFIG_SYSROOT_DIR=$sysroot \
    PKG_CONFIG_PATH=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig \
    PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig \
    sh -ec '
    cd /src
    for product in '"$products"'; do
        swift build -c release --triple aarch64-unknown-linux-gnu --scratch-path .build/arm64 \
            --static-swift-stdlib -Xswiftc -resource-dir -Xswiftc /opt/swift-arm64/usr/libexec/swift/lib/swift_static \
            -Xswiftc -sdk -Xswiftc '"$sysroot"' -Xcc --sysroot='"$sysroot"' \
            $NO_FOUNDATION_FLAGS --product $product
    done'
build=.build/arm64/aarch64-unknown-linux-gnu/release
programs=.build/arm64/programs
rm -rf "$programs"
mkdir -p "$programs"
for product in $products; do cp "$build/$product" "$programs/"; done
ln -s reveilled "$programs/reveille-web"
ln -s reveilled "$programs/reveille-notify"
ln -s reveilled "$programs/reveille-mqtt"
echo "arm64: built in $(($(date +%s) - started)) s"
file -L "$programs/reveilled"

# No symbol newer than Debian 13's glibc.
symbols() { chroot "$root" aarch64-linux-gnu-objdump -T "/src/$programs/$1" 2>/dev/null; }
newest=$(for product in $products; do symbols "$product"; done | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)
echo "arm64: the newest glibc symbol needed is $newest (Debian 13 has $glibc_max)"
if [ "$(printf '%s\n%s\n' "${newest#GLIBC_}" "$glibc_max" | sort -V | tail -1)" != "$glibc_max" ]; then
    echo "arm64: the programs need glibc ${newest#GLIBC_}, newer than Debian 13's $glibc_max:" >&2
    for product in $products; do symbols "$product" | grep "$newest" >&2; done
    exit 1
fi

# The package, by the same script as amd64's, in the arm64 sysroot (run by qemu-user).
mkdir -p "$out"
chroot "$root$sysroot" env -i PATH=/usr/bin:/bin HOME=/root \
    sh -c "cd /src && git config --global --add safe.directory /src && scripts/make-deb.sh $programs $manpages .build/arm64" >/dev/null
mv .build/arm64/reveille_*_arm64.deb .build/arm64/reveille-dbgsym_*_arm64.deb "$out/"
ls -l "$out"/reveille_*_arm64.deb
