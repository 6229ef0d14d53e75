#!/usr/bin/env bash
# The appliance's disk image for the VM bench (docs/TESTING.md, "The appliance, booted"): Debian made from
# Debian's packages by mmdebstrap, with a Debian kernel (snd-aloop, uinput, fanotify), and the
# project's .deb installed by apt inside it, as a household installs it. amd64: Debian 12, the
# console on ttyS0. arm64: Debian 13 (what Raspberry Pi OS is built on), made through qemu-user,
# the console on hvc0 (virtio), so that ttyAMA0 is free for the reader, as on a Pi.
#   scripts/vm/image.sh DEB OUTDIR [amd64|arm64] [KIOSK_DEB]
# KIOSK_DEB: reveille-kiosk installed too (with Chromium and cage), its unit enabled, as on a clock.
# Writes OUTDIR/root.raw (ext4), OUTDIR/vmlinuz, OUTDIR/initrd.img and OUTDIR/key; does nothing
# when OUTDIR/key already names this package and this script (the cache). Root only.
set -euo pipefail
deb=$(readlink -f "${1:?usage: $0 DEB OUTDIR}")
out=${2:?usage: $0 DEB OUTDIR}
arch=${3:-amd64}
kiosk=${4:+$(readlink -f "$4")}
case "$arch" in
    amd64) suite=bookworm console=ttyS0 ;;
    arm64) suite=trixie console=hvc0 ;;
    *) echo "usage: $0 DEB OUTDIR [amd64|arm64]" >&2; exit 64 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
key=$(cat "$deb" ${kiosk:+"$kiosk"} "$here/image.sh" | sha256sum | cut -c1-16)
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] && [ -f "$out/root.raw" ]; then
    echo "vm image: cached ($out, key $key)"
    exit 0
fi
mkdir -p "$out"
rm -f "$out/key" "$out/root.raw"
tree=$(mktemp -d /var/tmp/reveille-vm-tree.XXXXXX)
trap 'rm -rf "$tree"' EXIT
rmdir "$tree"
started=$(date +%s)
# Debian 13's login on hvc0 ends as soon as it begins (autologin, then the getty again, in a loop):
# there the bench's shell is a root shell on the console, as systemd's debug-shell.service is.
export CONSOLE_SHELL="[Unit]
Description=the VM bench's root shell on $console
BindsTo=dev-$console.device
After=dev-$console.device sysinit.target
[Service]
ExecStart=/bin/bash -l
WorkingDirectory=/root
Environment=HOME=/root TERM=dumb
StandardInput=tty
StandardOutput=tty
TTYPath=/dev/$console
Restart=always
[Install]
WantedBy=multi-user.target"
# A lean system: systemd and udev, the kernel and its initramfs, ALSA's tools to capture the
# loopback card, python3 for the checks run inside, evtest-free (uinput is driven from python);
# the system bus, iproute2, wpa_supplicant, hostapd and iw for the Wi-Fi on simulated radios
# (mac80211_hwsim).
mmdebstrap --quiet --variant=apt --mode=root --architectures="$arch" \
    --include=systemd-sysv,udev,kmod,linux-image-"$arch",initramfs-tools,alsa-utils,python3,procps,util-linux,e2fsprogs,dbus,iproute2,wpasupplicant,hostapd,iw \
    --customize-hook="copy-in $deb ${kiosk:+$kiosk} /tmp" \
    --customize-hook='chroot "$1" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/*.deb"' \
    --customize-hook='rm -f "$1"/tmp/*.deb' \
    --customize-hook='echo reveille-vm > "$1/etc/hostname"' \
    --customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" > "$1/etc/fstab"' \
    --customize-hook='sed -i "s/^root:[^:]*:/root::/" "$1/etc/shadow"' \
    --customize-hook='mkdir -p "$1/etc/systemd/system/serial-getty@'"$console"'.service.d"' \
    --customize-hook='printf "[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200 %%I dumb\n" > "$1/etc/systemd/system/serial-getty@'"$console"'.service.d/autologin.conf"' \
    --customize-hook='printf "snd-aloop\nuinput\n" > "$1/etc/modules-load.d/reveille-vm.conf"' \
    --customize-hook='[ '"$arch"' = amd64 ] || { printf "%s\n" "$CONSOLE_SHELL" > "$1/etc/systemd/system/bench-console.service" &&
        chroot "$1" systemctl enable bench-console.service && chroot "$1" systemctl mask serial-getty@hvc0.service; }' \
    --customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_reap.service systemd-timesyncd.service 2>/dev/null || true' \
    --customize-hook='cp "$1"/boot/vmlinuz-* '"$out"'/vmlinuz && cp "$1"/boot/initrd.img-* '"$out"'/initrd.img' \
    "$suite" "$tree"
chmod 0644 "$out/vmlinuz" "$out/initrd.img"
mkfs.ext4 -q -F -L root -d "$tree" "$out/root.raw" 2G
echo "$key" >"$out/key"
echo "vm image: built in $(($(date +%s) - started)) s ($out, key $key)"
