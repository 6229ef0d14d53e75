#!/usr/bin/env bash
# Installs (or uninstalls) Reveille's files. Run through `make install` / `make uninstall`.
#   scripts/install.sh install BINARIES [MANPAGES]    BINARIES: the folder holding reveilled (also
#                                                     reveille-web, reveille-notify and reveille-mqtt),
#                                                     reveille, reveille-calendar
#   scripts/install.sh uninstall
# PREFIX (default /usr/local) and DESTDIR (default empty: the live system) as usual. Existing
# /etc/reveille/reveille.toml and apps.toml are never overwritten; uninstall leaves settings,
# policy and state alone.
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:-}
prefix=${PREFIX:-/usr/local}
dest=${DESTDIR:-}
bindir=$prefix/bin
docdir=$prefix/share/doc/reveille

# Installed path -> mode, for install and uninstall alike.
files=(
    "$bindir/reveilled"
    "$bindir/reveille"
    "$bindir/reveille-web"
    "$bindir/reveille-notify"
    "$bindir/reveille-calendar"
    "$bindir/reveille-mqtt"
    "/etc/xdg/autostart/reveille-notify.desktop"
    "$prefix/lib/systemd/system/reveille.service"
    "$prefix/lib/systemd/system/reveille-web.service"
    "$prefix/lib/systemd/system/reveille-calendar.service"
    "$prefix/lib/systemd/system/reveille-calendar.timer"
    "$prefix/lib/systemd/system/reveille-calendar.path"
    "$prefix/lib/systemd/system/reveille-mqtt.service"
    "$prefix/lib/sysusers.d/reveille.conf"
    "$prefix/lib/tmpfiles.d/reveille.conf"
    "$prefix/share/polkit-1/rules.d/60-reveille-timezone.rules"
    "/etc/udev/rules.d/70-reveille.rules"
    "/etc/modprobe.d/reveille-nfc.conf"
    "$prefix/share/bash-completion/completions/reveille"
    "$prefix/share/zsh/site-functions/_reveille"
    "$prefix/share/fish/vendor_completions.d/reveille.fish"
    "$prefix/share/man/man1/reveille.1"
    "$prefix/share/man/man8/reveilled.8"
    "$prefix/share/man/man8/reveille-web.8"
    "$prefix/share/man/man8/reveille-calendar.8"
    "$prefix/share/man/man8/reveille-mqtt.8"
    "$prefix/share/man/man5/reveille.toml.5"
    "$prefix/share/man/man5/apps.toml.5"
    "$docdir/README.md"
    "$docdir/hardware.md"
    "$docdir/reveille.toml.example"
    "$docdir/apps.toml.example"
)
# The guide, by topic (docs/guide: README.md's "The manual").
for page in docs/guide/*.md; do files+=("$docdir/guide/${page##*/}"); done

live() { [ -z "$dest" ] && [ "$(id -u)" -eq 0 ]; }

case "$action" in
install)
    binaries=${2:?usage: $0 install BINARIES [MANPAGES]}
    manpages=${3:-}
    for binary in reveilled reveille reveille-calendar; do
        [ -x "$binaries/$binary" ] || { echo "no $binaries/$binary: build first (make install does)" >&2; exit 1; }
    done
    install -d -m 0755 "$dest$bindir" "$dest$prefix/lib/systemd/system" "$dest$prefix/lib/sysusers.d" \
        "$dest$prefix/lib/tmpfiles.d" "$dest$prefix/share/polkit-1/rules.d" \
        "$dest/etc/udev/rules.d" "$dest/etc/modprobe.d" "$dest/etc/xdg/autostart" "$dest$prefix/share/bash-completion/completions" \
        "$dest$prefix/share/zsh/site-functions" "$dest$prefix/share/fish/vendor_completions.d" \
        "$dest$prefix/share/man/man1" "$dest$prefix/share/man/man5" "$dest$prefix/share/man/man8" "$dest$docdir" \
        "$dest$docdir/guide" "$dest/etc/reveille/hooks.d"
    # The daemon and the page's server are one program (docs/guide/installing.md):
    # reveille-web, the MQTT bridge reveille-mqtt and the desktop notifier reveille-notify are
    # links to reveilled, which becomes what it is called.
    install -m 0755 "$binaries/reveilled" "$binaries/reveille" "$binaries/reveille-calendar" "$dest$bindir/"
    ln -sfn reveilled "$dest$bindir/reveille-web"
    ln -sfn reveilled "$dest$bindir/reveille-notify"
    ln -sfn reveilled "$dest$bindir/reveille-mqtt"
    # Every graphical session starts its user's notifier (docs/guide/apps.md, "A child's side").
    sed -e "s|@BINDIR@|$bindir|g" config/reveille-notify.desktop >"$dest/etc/xdg/autostart/reveille-notify.desktop"
    chmod 0644 "$dest/etc/xdg/autostart/reveille-notify.desktop"
    for unit in reveille.service reveille-web.service reveille-calendar.service reveille-calendar.timer reveille-calendar.path \
        reveille-mqtt.service; do
        sed -e "s|@BINDIR@|$bindir|g" -e "s|@DOCDIR@|$docdir|g" "systemd/$unit" >"$dest$prefix/lib/systemd/system/$unit"
        chmod 0644 "$dest$prefix/lib/systemd/system/$unit"
    done
    install -m 0644 systemd/reveille.sysusers "$dest$prefix/lib/sysusers.d/reveille.conf"
    install -m 0644 systemd/reveille.tmpfiles "$dest$prefix/lib/tmpfiles.d/reveille.conf"
    install -m 0644 systemd/reveille-timezone.rules "$dest$prefix/share/polkit-1/rules.d/60-reveille-timezone.rules"
    install -m 0644 udev/70-reveille.rules "$dest/etc/udev/rules.d/70-reveille.rules"
    install -m 0644 udev/reveille-nfc-blacklist.conf "$dest/etc/modprobe.d/reveille-nfc.conf"
    "$binaries/reveille" --generate-completion-script bash >"$dest$prefix/share/bash-completion/completions/reveille"
    "$binaries/reveille" --generate-completion-script zsh >"$dest$prefix/share/zsh/site-functions/_reveille"
    "$binaries/reveille" --generate-completion-script fish >"$dest$prefix/share/fish/vendor_completions.d/reveille.fish"
    chmod 0644 "$dest$prefix/share/bash-completion/completions/reveille" "$dest$prefix/share/zsh/site-functions/_reveille" \
        "$dest$prefix/share/fish/vendor_completions.d/reveille.fish"
    if [ -n "$manpages" ]; then
        install -m 0644 "$manpages/reveille/reveille.1" "$dest$prefix/share/man/man1/reveille.1"
        sed -e 's/^\.Dt REVEILLED 1$/.Dt REVEILLED 8/' "$manpages/reveilled/reveilled.1" >"$dest$prefix/share/man/man8/reveilled.8"
        sed -e 's/^\.Dt REVEILLE-WEB 1$/.Dt REVEILLE-WEB 8/' "$manpages/reveille-web/reveille-web.1" >"$dest$prefix/share/man/man8/reveille-web.8"
        sed -e 's/^\.Dt REVEILLE-CALENDAR 1$/.Dt REVEILLE-CALENDAR 8/' "$manpages/reveille-calendar/reveille-calendar.1" >"$dest$prefix/share/man/man8/reveille-calendar.8"
        sed -e 's/^\.Dt REVEILLE-MQTT 1$/.Dt REVEILLE-MQTT 8/' "$manpages/reveille-mqtt/reveille-mqtt.1" >"$dest$prefix/share/man/man8/reveille-mqtt.8"
        chmod 0644 "$dest$prefix/share/man/man8/reveilled.8" "$dest$prefix/share/man/man8/reveille-web.8" \
            "$dest$prefix/share/man/man8/reveille-calendar.8" "$dest$prefix/share/man/man8/reveille-mqtt.8"
    fi
    install -m 0644 README.md hardware.md "$dest$docdir/"
    install -m 0644 docs/guide/*.md "$dest$docdir/guide/"
    # The two files' pages, made from the examples by scripts/file_manpage.py (committed, checked by a test).
    install -m 0644 man/reveille.toml.5 man/apps.toml.5 "$dest$prefix/share/man/man5/"
    for file in reveille.toml apps.toml; do
        install -m 0644 "config/$file" "$dest$docdir/$file.example"
        if [ -e "$dest/etc/reveille/$file" ]; then
            echo "kept $dest/etc/reveille/$file (yours); the current example is $docdir/$file.example"
        else
            install -m 0644 "config/$file" "$dest/etc/reveille/$file"
        fi
    done
    if live; then
        command -v systemd-sysusers >/dev/null && systemd-sysusers "$prefix/lib/sysusers.d/reveille.conf"
        command -v systemd-tmpfiles >/dev/null && systemd-tmpfiles --create "$prefix/lib/tmpfiles.d/reveille.conf"
        command -v udevadm >/dev/null && udevadm control --reload 2>/dev/null || true
        [ -d /run/systemd/system ] && systemctl daemon-reload
        echo "installed. Next: sudo systemctl enable --now reveille reveille-web reveille-calendar.timer reveille-calendar.path; then reveille doctor"
    else
        echo "installed under ${dest:-/} (PREFIX $prefix)"
    fi
    ;;
uninstall)
    if live && [ -d /run/systemd/system ]; then systemctl disable --now reveille-calendar.path reveille-calendar.timer reveille-web reveille 2>/dev/null || true; fi
    for file in "${files[@]}"; do rm -f "$dest$file"; done
    rmdir "$dest$docdir/guide" "$dest$docdir" 2>/dev/null || true
    live && [ -d /run/systemd/system ] && systemctl daemon-reload
    echo "uninstalled; kept /etc/reveille (settings, app policy, hooks) and /var/lib/reveille (alarms, history, usage)"
    ;;
*)
    echo "usage: $0 install BINARIES [MANPAGES] | uninstall" >&2
    exit 2
    ;;
esac
