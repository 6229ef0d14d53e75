#!/usr/bin/env bash
# `make image-pi` (hardware.md, "The image"): a card image for a Raspberry Pi 3, 4 or 5, made from
# Debian's packages by mmdebstrap, through qemu-user: Debian 13 arm64 with its kernel and
# raspi-firmware, the reveille and reveille-kiosk packages installed by apt and enabled, no desktop.
#   scripts/pi/image.sh REVEILLE_DEB KIOSK_DEB OUT.img [CACHE]
# OUT.img: an MBR card image, a FAT boot partition (the firmware, the kernel, config.txt) and the
# root file system (ext4), grown to the card on the first boot. The Debian part (everything but
# the project's two packages) is kept in CACHE/base.tar, made again when this script changes.
# Root only (mmdebstrap, chroot).
set -euo pipefail
usage="usage: $0 REVEILLE_DEB KIOSK_DEB OUT.img [CACHE]"
deb=$(readlink -f "${1:?$usage}")
kiosk=$(readlink -f "${2:?$usage}")
out=${3:?$usage}
cache=${4:-$(dirname "$out")/pi-base}
here=$(cd "$(dirname "$0")/../.." && pwd)
started=$(date +%s)
mkdir -p "$cache"

# 1. Debian: systemd, the Pi's kernel and firmware (raspi-firmware, Wi-Fi's), the network
#    (networkd, resolved with multicast DNS, timesyncd), SSH installed but off, growpart for the
#    first boot, fonts for the page, and what the two packages need (Chromium, cage, ALSA, libnfc).
key=$(grep -e '--include=' "$0" | sha256sum | cut -c1-16)  # made again when its packages change
if [ "$(cat "$cache/base.key" 2>/dev/null)" != "$key" ] || [ ! -f "$cache/base.tar" ]; then
    rm -f "$cache/base.tar" "$cache/base.key"
    # raspi-firmware's scripts write to /boot/firmware only where something is mounted there (the
    # card's boot partition on a Pi): here a bind mount of the tree's own folder, undone at the end.
    mmdebstrap --variant=apt --mode=root --architectures=arm64 --components=main,non-free-firmware \
        --dpkgopt=force-unsafe-io --dpkgopt=force-confdef --dpkgopt=force-confold \
        --include=systemd-sysv,udev,kmod,dbus,libpam-systemd,linux-image-arm64,initramfs-tools,raspi-firmware,firmware-brcm80211,wpasupplicant,systemd-timesyncd,systemd-resolved,iproute2,openssh-server,cloud-guest-utils,e2fsprogs,dosfstools,fdisk,fonts-dejavu-core,tzdata,ca-certificates,alsa-utils,libnfc-bin,procps,cage,chromium,xwayland,espeak-ng-data,libespeak-ng1,libmosquitto1,libical3t64,libcurl4t64,libsqlite3-0,libasound2t64,libsndfile1,libnfc6,libevdev2,libgcrypt20,unattended-upgrades \
        `# raspi-firmware: the console on the screen only (the header's UART is the reader's), the root by its label` \
        --essential-hook='mkdir -p "$1/etc/default" && printf "CONSOLES=\"tty1\"\nROOTPART=LABEL=RVL-ROOT\n" >"$1/etc/default/raspi-firmware"' \
        --setup-hook='mkdir -p "$1/boot/firmware" && mount --bind "$1/boot/firmware" "$1/boot/firmware"' \
        --customize-hook='umount "$1/boot/firmware"' \
        trixie "$cache/base.tar" http://deb.debian.org/debian
    echo "$key" >"$cache/base.key"
    echo "pi image: Debian's part made in $(($(date +%s) - started)) s"
fi

# 2. The appliance: the two packages by apt in a chroot (qemu-user), the image's own settings.
work=$(mktemp -d /var/tmp/reveille-pi.XXXXXX)
tree=$work/tree
cleanup() {
    for m in boot/firmware dev/pts dev sys proc; do umount "$tree/$m" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$tree"
tar -C "$tree" -xf "$cache/base.tar"
mount -t proc proc "$tree/proc"
mount --bind /sys "$tree/sys"
mount --bind /dev "$tree/dev"
mount --bind /dev/pts "$tree/dev/pts"
# raspi-firmware's kernel hook writes to /boot/firmware only where something is mounted there.
mount --bind "$tree/boot/firmware" "$tree/boot/firmware"
# apt inside fetches polkitd with this machine's resolver; the image's own (resolved's stub) is put back after.
rm -f "$tree/etc/resolv.conf" && cp /etc/resolv.conf "$tree/etc/resolv.conf"
cp "$deb" "$kiosk" "$tree/tmp/"
# polkitd: timedated lets the daemon set the zone chosen on the first boot's screen (the package's rule).
chroot "$tree" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb") /tmp/$(basename "$kiosk") polkitd >/dev/null"
rm -f "$tree"/tmp/*.deb
# The kernel hook again, now that the mount is there (raspi-firmware's own, as an upgrade runs it).
chroot "$tree" sh -c 'for k in /boot/vmlinuz-*; do /etc/kernel/postinst.d/z50-raspi-firmware "${k#/boot/vmlinuz-}"; done'
echo reveille >"$tree/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 reveille\n::1 localhost ip6-localhost ip6-loopback\n' >"$tree/etc/hosts"
printf 'LABEL=RVL-ROOT / ext4 defaults,noatime,commit=60,errors=remount-ro 0 1\nLABEL=RVL-BOOT /boot/firmware vfat defaults,noatime,umask=0022 0 2\n' >"$tree/etc/fstab"
install -D -m 0644 "$here/image/journald.conf" "$tree/etc/systemd/journald.conf.d/reveille-image.conf"
install -D -m 0644 "$here/image/wired.network" "$tree/etc/systemd/network/20-wired.network"
# The Wi-Fi: wpa_supplicant for wlan0, started when the adapter appears (a board without one
# starts nothing and fails nothing), with no network until one is joined.
install -D -m 0644 "$here/image/wireless.network" "$tree/etc/systemd/network/25-wireless.network"
install -D -m 0644 "$here/image/setup-network.network" "$tree/etc/systemd/network/24-setup-network.network"
install -D -m 0600 "$here/image/wpa_supplicant-wlan0.conf" "$tree/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
install -d "$tree/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants"
ln -sf /lib/systemd/system/wpa_supplicant@.service \
    "$tree/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service"
install -D -m 0644 "$here/image/reveille-firstboot.service" "$tree/etc/systemd/system/reveille-firstboot.service"
install -D -m 0644 "$here/image/ssh-from-boot.service" "$tree/etc/systemd/system/ssh-from-boot.service"
install -D -m 0644 "$here/image/imager-settings.service" "$tree/etc/systemd/system/imager-settings.service"
install -D -m 0755 "$here/image/firstboot" "$tree/usr/libexec/reveille-image/firstboot"
install -d "$tree/var/lib/reveille-image" && touch "$tree/var/lib/reveille-image/first-boot"
# The screen's set-up: the daemon asks where the clock is until it is told (then removes this).
chroot "$tree" install -d -o reveille -g reveille -m 0750 /var/lib/reveille
chroot "$tree" install -o reveille -g reveille -m 0640 /dev/null /var/lib/reveille/first-setup
chroot "$tree" systemctl enable -q reveille-firstboot.service ssh-from-boot.service imager-settings.service \
    systemd-networkd.service \
    systemd-resolved.service systemd-timesyncd.service reveille-kiosk.service
chroot "$tree" systemctl disable -q ssh.service ssh.socket 2>/dev/null || true
# Security updates, unattended, never near a ring (hardware.md, "Updates").
install -D -m 0644 "$here/image/20auto-upgrades" "$tree/etc/apt/apt.conf.d/20auto-upgrades"
for unit in apt-daily.service apt-daily-upgrade.service; do
    install -D -m 0644 "$here/image/apt-near-rings.conf" "$tree/etc/systemd/system/$unit.d/reveille.conf"
done
install -D -m 0644 "$here/image/apt-daily.timer.conf" "$tree/etc/systemd/system/apt-daily.timer.d/reveille.conf"
install -D -m 0644 "$here/image/apt-daily-upgrade.timer.conf" "$tree/etc/systemd/system/apt-daily-upgrade.timer.d/reveille.conf"
chroot "$tree" systemctl mask -q man-db.timer e2scrub_all.timer 2>/dev/null || true
chroot "$tree" systemctl set-default -q multi-user.target
# The page on the home network, so that a phone can pair (every browser but the kiosk must).
sed -i 's/^#address = "127.0.0.1"/address = "0.0.0.0"/' "$tree/etc/reveille/reveille.toml"
# Nothing shared between cards: no host keys, no machine id, no root password.
rm -f "$tree"/etc/ssh/ssh_host_* && : >"$tree/etc/machine-id"
sed -i 's/^root:[^:]*:/root:*:/' "$tree/etc/shadow"
ln -sf ../run/systemd/resolve/stub-resolv.conf "$tree/etc/resolv.conf"
apt-get -qq clean -o RootDir="$tree" 2>/dev/null || rm -rf "$tree"/var/cache/apt/archives/*.deb
for m in boot/firmware dev/pts dev sys proc; do umount "$tree/$m"; done
ls "$tree/boot/firmware" | grep -q '^bcm2837-rpi-3-b.dtb$' || { echo "image: no Pi 3 device tree on the boot partition" >&2; exit 1; }
grep -q 'root=LABEL=RVL-ROOT' "$tree/boot/firmware/cmdline.txt" || { echo "image: cmdline.txt does not name the root: $(cat "$tree/boot/firmware/cmdline.txt")" >&2; exit 1; }

# 3. The card: boot (FAT32, 256 MiB at 4 MiB), root (ext4: what the tree holds, and a quarter more).
boot_mib=256
root_mib=$(( $(du -sm --exclude=./boot/firmware "$tree" | cut -f1) * 5 / 4 + 64 ))
mkfs.vfat -F 32 -n RVL-BOOT -C "$work/boot.img" $((boot_mib * 1024)) >/dev/null
mcopy -s -i "$work/boot.img" "$tree"/boot/firmware/* ::/
rm -rf "${tree:?}"/boot/firmware/*
mkfs.ext4 -q -F -L RVL-ROOT -d "$tree" "$work/root.img" "${root_mib}M"
total_mib=$((4 + boot_mib + root_mib))
rm -f "$out"
truncate -s "${total_mib}M" "$out"
printf 'label: dos\nstart=4MiB, size=%sMiB, type=c, bootable\nstart=%sMiB, type=83\n' "$boot_mib" $((4 + boot_mib)) |
    sfdisk --quiet "$out"
dd if="$work/boot.img" of="$out" bs=1M seek=4 conv=notrunc,sparse status=none
dd if="$work/root.img" of="$out" bs=1M seek=$((4 + boot_mib)) conv=notrunc,sparse status=none
# Raspberry Pi Imager's repository file for this image: with cloud-init's init format, Imager offers
# its OS customisation (Wi-Fi, host name, time zone, SSH keys), which imager-settings.service
# applies at the first boot. Imager: App Options, Content repository, Use custom file.
size=$(stat -c %s "$out")
sum=$(sha256sum "$out" | cut -d' ' -f1)
cat >"${out%.img}.json" <<JSON
{"os_list": [{"name": "Reveille", "description": "The Reveille bedside alarm clock (Debian 13, arm64)",
  "url": "file://$(realpath "$out")", "extract_size": $size, "extract_sha256": "$sum",
  "image_download_size": $size, "image_download_sha256": "$sum", "release_date": "$(date +%F)",
  "init_format": "cloudinit", "devices": ["pi5-64bit", "pi4-64bit", "pi3-64bit"]}]}
JSON
echo "pi image: $out, $total_mib MiB, made in $(($(date +%s) - started)) s"
