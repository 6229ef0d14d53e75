#!/usr/bin/env bash
# Installs a Reveille package in a fresh Debian 12 (debootstrap minbase: no Swift toolchain, no -dev
# package) on an overlay, as a clock would get it, and checks (docs/guide/installing.md):
# - `apt install ./reveille_*.deb` pulls only runtime libraries;
# - `reveilled --root DIR` starts, and `reveille status` and `reveille-web` answer;
# - an edited /etc/reveille/reveille.toml survives the install of a newer build;
# - `apt purge` leaves nothing behind but the users it made (Debian keeps system users).
#   scripts/deb-install-check.sh PACKAGE.deb        (as root; `make deb-check` builds and runs it)
# The base is made once under /var/tmp/reveille-deb-base (a few minutes); each run uses an overlay.
# DEB_SUITE and DEB_ARCH: another Debian and architecture (`make deb-check-arm64`: Debian 13 for
# arm64, its programs run by qemu-user), with a base of its own.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "run as root (chroot, mounts)" >&2; exit 1; }
deb=$(readlink -f "${1:?usage: $0 PACKAGE.deb}")
suite=${DEB_SUITE:-bookworm}
arch=${DEB_ARCH:-$(dpkg --print-architecture)}
default_base=/var/tmp/reveille-deb-base
[ "$suite/$arch" = "bookworm/$(dpkg --print-architecture)" ] || default_base=$default_base-$suite-$arch
base=${DEB_BASE:-$default_base}
started=$(date +%s)

if [ ! -d "$base/usr" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
    mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    debootstrap --variant=minbase --arch="$arch" "$suite" "$base" "${mirror:-http://deb.debian.org/debian}" >"$base.log" 2>&1 ||
        { rm -rf "$base"; echo "debootstrap failed: $base.log" >&2; exit 2; }
fi

run=$(mktemp -d /var/tmp/reveille-deb-check.XXXX)
root=$run/root
mkdir -p "$run/upper" "$run/work" "$root"
mount -t overlay overlay -o lowerdir="$base",upperdir="$run/upper",workdir="$run/work" "$root"
cleanup() {
    for point in /dev/pts /dev /proc; do umount -l "$root$point" 2>/dev/null || true; done
    umount -l "$root" 2>/dev/null || true
    rm -rf "$run"
}
trap cleanup EXIT
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp /etc/apt/apt.conf.d/99artifact-registry "$root/etc/apt/apt.conf.d/" 2>/dev/null || true

# The same package again as a newer build: the upgrade a household gets.
mkdir "$run/newer"
dpkg-deb -R "$deb" "$run/newer/tree"
sed -i 's/^Version: \(.*\)$/Version: \1.1/' "$run/newer/tree/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip -z1 --build "$run/newer/tree" "$root/tmp/newer.deb" >/dev/null
cp "$deb" "$root/tmp/reveille.deb"

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c '
    snapshot() { find / -xdev \( -path /proc -o -path /dev -o -path /tmp -o -path /var/lib/apt -o -path /var/cache -o -path /var/log -o -path /var/lib/dpkg -o -path /var/lib/systemd \) -prune -o -print | sort; }
    apt-get update -qq
    dpkg-query -W -f="\${Package}\n" | sort >/tmp/packages.before
    apt-get install -y -qq --no-install-recommends /tmp/reveille.deb >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }
    dpkg-query -W -f="\${Package}\n" | sort >/tmp/packages.after
    added=$(comm -13 /tmp/packages.before /tmp/packages.after | tr "\n" " ")
    echo "installed with: $added"
    case " $added " in *-dev\ *|*swift*) echo "FAIL: a development package or a toolchain came along" >&2; exit 1 ;; esac
    # What purge must leave is the system as it was with those libraries: purged, snapshot, again.
    dpkg --purge reveille >/dev/null
    snapshot >/tmp/files.before
    dpkg -i /tmp/reveille.deb >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }

    mkdir -p /tmp/clock
    reveilled --root /tmp/clock >/tmp/reveilled.log 2>&1 &
    daemon=$!
    for _ in $(seq 50); do reveille --root /tmp/clock status >/tmp/status.txt 2>/dev/null && break; sleep 0.1; done
    head -2 /tmp/status.txt || { echo "FAIL: reveille status did not answer" >&2; cat /tmp/reveilled.log >&2; exit 1; }
    reveille-web --root /tmp/clock --port 18080 >/tmp/web.log 2>&1 &
    web=$!
    for _ in $(seq 50); do
        if { exec 3<>/dev/tcp/127.0.0.1/18080; } 2>/dev/null; then
            printf "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3
            answer=$(head -1 <&3); exec 3>&-
            break
        fi
        sleep 0.1
    done
    echo "reveille-web: ${answer:-no answer}"
    case "${answer:-}" in *" 200 "*) ;; *) echo "FAIL: reveille-web did not serve the page" >&2; exit 1 ;; esac
    kill $web $daemon; wait $web $daemon 2>/dev/null || true

    echo "volume = 55  # mine" >>/etc/reveille/reveille.toml
    apt-get install -y -qq --no-install-recommends /tmp/newer.deb >/tmp/upgrade.log 2>&1 || { cat /tmp/upgrade.log; exit 1; }
    echo "upgraded to $(dpkg-query -W -f="\${Version}" reveille)"
    grep -q "volume = 55  # mine" /etc/reveille/reveille.toml || { echo "FAIL: the edited settings were replaced" >&2; exit 1; }
    echo "the edited reveille.toml was kept"

    mkdir -p /var/lib/reveille && touch /var/lib/reveille/state.sqlite  # as a running clock leaves it
    apt-get purge -y -qq reveille >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; exit 1; }
    snapshot >/tmp/files.after
    left=$(comm -13 /tmp/files.before /tmp/files.after | grep -v -e "^/etc/passwd-\?$" -e "^/etc/group-\?$" -e "^/etc/shadow-\?$" -e "^/etc/gshadow-\?$" -e "^/etc/\.pwd\.lock$" || true)
    if [ -n "$left" ]; then echo "FAIL: left after purge:" >&2; echo "$left" >&2; exit 1; fi
    echo "purged: nothing left but the system users it made ($(getent passwd reveille reveille-web reveille-fetch | cut -d: -f1 | tr "\n" " "))"
'
echo "deb-install-check: passed in $(( $(date +%s) - started )) s"
