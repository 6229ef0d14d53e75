#!/usr/bin/env python3
"""`make vm-test-pi` (docs/TESTING.md, "The image on an emulated Pi 3"): the card image of `make
image-pi` booted twice under TCG, with the image's own kernel, initramfs and command line read
from its boot partition, the PN532 emulator on the PL011 (ttyAMA0) and a shell from systemd's
debug shell asked for on the kernel's command line (the image has no root shell, no password):

1. as a Raspberry Pi 3 (qemu's raspi3b: BCM2837, four Cortex-A53, 1 GiB, its SD card and UARTs,
   the image's bcm2837-rpi-3-b.dtb with Bluetooth taken off the PL011 as `dtoverlay=disable-bt`
   does): a power cut while the first boot grows the root file system, the first boot done,
   READY, a ring heard from a USB sound card on the Pi's USB (qemu's usb-audio, written to a WAV
   file), a tag registered and a ring dismissed by it through pn532_uart, a power cut mid-ring;
2. on qemu's virt board with a virtio GPU at 800x480 and a USB tablet (Debian's arm64 kernel has
   no simpledrm, so cage gets no screen on the emulated Pi's framebuffer): the first boot's
   set-up on the screen, the face, a ring with its keypad and the tag, captured through qemu's
   monitor (screendump) into --screens; memory with the kiosk running.
    scripts/pi/bench.py IMAGE --emulator PN532_EMULATOR [--json FIGURES] [--screens DIR]
"""
import argparse, array, json, math, os, re, shutil, socket, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
import bench as vm  # noqa: E402  (the VM bench's guest, emulator and checks)
from screens import (DISMISS, DONE, SET_ZONE, WIFI_CONTINUE, looks_like_face, looks_like_keypad, looks_like_pairing,  # noqa: E402
                     looks_like_ring, looks_like_setup, wait_screen)

# The framebuffer qemu's raspi3b shows: 800x480 (the Pi's 7" touchscreen), 32 bits, at the base
# qemu gives it (the top 64 MiB of the 1 GiB are the GPU's; the framebuffer 1 MiB into them).
WIDTH, HEIGHT = 800, 480
FB_BASE = 0x3C100000


def partition_offset(image, number):
    table = json.loads(subprocess.run(["sfdisk", "-J", image], check=True, capture_output=True, text=True).stdout)
    part = table["partitiontable"]["partitions"][number - 1]
    return part["start"] * table["partitiontable"].get("sectorsize", 512)


class PiGuest(vm.Guest):
    prompt = rb"root@reveille[^\n]*# "

    def __init__(self, image, work, nfc_link, machine="raspi3b"):
        self.machine = machine
        self.work, self.accel, self.arch = work, "tcg", "arm64"
        self.nfc_link, self.extra_disk = nfc_link, None
        boot = f"{image}@@{partition_offset(image, 1)}"
        names = subprocess.run(["mdir", "-b", "-i", boot, "::"], check=True, capture_output=True, text=True).stdout.split()
        pick = lambda prefix: sorted(n for n in names if n.lstrip(":/").startswith(prefix))[-1].lstrip(":/")
        self.files = {}
        for key, name in (("kernel", pick("vmlinuz-")), ("initrd", pick("initrd.img-")),
                          ("dtb", "bcm2837-rpi-3-b.dtb"), ("cmdline", "cmdline.txt")):
            self.files[key] = os.path.join(work, name)
            subprocess.run(["mcopy", "-o", "-i", boot, "::" + name, self.files[key]], check=True)
        self.cmdline = open(self.files["cmdline"]).read().strip()
        dtb = self.files["dtb"]
        # What the firmware adds on a Pi: the framebuffer it configured (simpledrm drives it).
        node = f"/framebuffer@{FB_BASE:x}"  # at the root: /chosen has no ranges to translate through
        for args in (["-c", dtb, node], ["-t", "s", dtb, node, "compatible", "simple-framebuffer"],
                     ["-t", "x", dtb, node, "reg", f"{FB_BASE:x}", f"{WIDTH * HEIGHT * 4:x}"],
                     ["-t", "u", dtb, node, "width", str(WIDTH)], ["-t", "u", dtb, node, "height", str(HEIGHT)],
                     ["-t", "u", dtb, node, "stride", str(WIDTH * 4)], ["-t", "s", dtb, node, "format", "a8r8g8b8"],
                     ["-t", "s", dtb, node, "status", "okay"]):
            subprocess.run(["fdtput", *args], check=True)
        # dtoverlay=disable-bt: the PL011 is a serial port, not Bluetooth's.
        subprocess.run(["fdtput", "-r", dtb, "/soc/serial@7e201000/bluetooth"], check=False)
        self.overlay = os.path.join(work, "sd.qcow2")
        # The card: 4 GiB (qemu wants a power of two), the image at its start; the first boot grows into it.
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", os.path.abspath(image),
                        self.overlay, "4G"], check=True)
        self.console_path = os.path.join(work, "console.sock")
        self.monitor_path = os.path.join(work, "monitor.sock")
        self.qmp_path = os.path.join(work, "qmp.sock")
        self.speaker_path = os.path.join(work, "speaker.wav")
        self.log = open(os.path.join(work, "console.log"), "ab")
        self.qemu = None
        self.boot()

    def boot(self, rtc=None):
        if self.machine == "virt":
            return self.boot_virt()
        command = ["qemu-system-aarch64", "-M", "raspi3b", "-accel", "tcg",
                   "-kernel", self.files["kernel"], "-initrd", self.files["initrd"], "-dtb", self.files["dtb"],
                   # simplefb (fbdev, built in) would take the framebuffer before simpledrm (DRM, which
                   # cage needs) could: kept from starting, as the firmware's KMS driver would on a Pi.
                   "-append", self.cmdline + " systemd.debug_shell=ttyS1 systemd.show_status=0"
                   " initcall_blacklist=simplefb_init,simplefb_driver_init",
                   "-drive", f"file={self.overlay},if=sd,format=qcow2",
                   "-chardev", f"serial,id=nfc,path={self.nfc_link}", "-serial", "chardev:nfc",
                   "-chardev", f"socket,id=console,path={self.console_path},server=on,wait=off",
                   "-serial", "chardev:console", "-display", "none",
                   "-global", f"bcm2835-fb.xres={WIDTH}", "-global", f"bcm2835-fb.yres={HEIGHT}",
                   "-global", "bcm2835-fb.bpp=32", "-device", "usb-tablet",
                   # A USB sound card on the Pi's own USB (dwc2), its output written to a WAV file.
                   "-audiodev", f"wav,id=speaker,path={self.speaker_path}", "-device", "usb-audio,audiodev=speaker",
                   "-monitor", f"unix:{self.monitor_path},server=on,wait=off"]
        for path in (self.console_path, self.monitor_path):
            if os.path.exists(path):
                os.unlink(path)
        self.started = time.monotonic()
        self.qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.console = self._connect(self.console_path)
        self.buffer = b""

    def boot_virt(self):
        """The same card on qemu's `virt` board (Cortex-A72) with a virtio GPU at 800x480, the
        image's own kernel and initramfs: the screen Debian's kernel cannot give cage on the
        emulated Pi 3 (it has no simpledrm). The shell on a virtio console, the PL011 the reader's."""
        command = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024", "-accel", "tcg",
                   "-kernel", self.files["kernel"], "-initrd", self.files["initrd"],
                   # The getty systemd puts on a virtual console would share hvc0 with the debug shell.
                   "-append", self.cmdline + " systemd.debug_shell=hvc0 systemd.show_status=0 systemd.mask=serial-getty@hvc0.service",
                   "-drive", f"file={self.overlay},if=none,id=root,format=qcow2", "-device", "virtio-blk-pci,drive=root",
                   "-device", f"virtio-gpu-pci,xres={WIDTH},yres={HEIGHT}", "-device", "qemu-xhci", "-device", "usb-tablet",
                   # The speaker a bedside clock has (so the ring screen does not say it has none).
                   "-audiodev", f"wav,id=speaker,path={self.speaker_path}", "-device", "usb-audio,audiodev=speaker",
                   "-chardev", f"socket,id=console,path={self.console_path},server=on,wait=off",
                   "-device", "virtio-serial-pci", "-device", "virtconsole,chardev=console",
                   "-chardev", f"serial,id=nfc,path={self.nfc_link}", "-serial", "chardev:nfc",
                   # No network: the default NIC's option ROM (efi-virtio.rom) is a package of its own.
                   "-nic", "none", "-display", "none", "-monitor", f"unix:{self.monitor_path},server=on,wait=off",
                   "-qmp", f"unix:{self.qmp_path},server=on,wait=off"]
        for path in (self.console_path, self.monitor_path, self.qmp_path):
            if os.path.exists(path):
                os.unlink(path)
        self.started = time.monotonic()
        self.qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.console = self._connect(self.console_path)
        self.buffer = b""

    def tap(self, x, y):
        """A finger on the screen: the USB tablet (absolute, as a touchscreen is) at x, y, pressed
        and let go, through QMP's input-send-event (the monitor's mouse_move moves only a relative
        mouse)."""
        events = [
            [{"type": "abs", "data": {"axis": "x", "value": x * 32767 // (WIDTH - 1)}},
             {"type": "abs", "data": {"axis": "y", "value": y * 32767 // (HEIGHT - 1)}}],
            [{"type": "btn", "data": {"down": True, "button": "left"}}],
            [{"type": "btn", "data": {"down": False, "button": "left"}}],
        ]
        qmp = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        qmp.connect(self.qmp_path)
        reader = qmp.makefile("rb")
        reader.readline()  # the greeting
        for command in [{"execute": "qmp_capabilities"}] + [
                {"execute": "input-send-event", "arguments": {"events": group}} for group in events]:
            qmp.sendall(json.dumps(command).encode() + b"\n")
            while True:  # its answer (events may come first)
                answer = json.loads(reader.readline())
                if "return" in answer or "error" in answer:
                    break
            if "error" in answer:
                raise RuntimeError(f"qmp {command['execute']}: {answer['error']}")
            time.sleep(0.1)
        qmp.close()


def first_boot_checks(guest, record, figures):
    """A power cut while the first boot grows the file system, then the first boot done."""
    guest.wait_for_shell(600)
    landed = "not reached"
    for _ in range(600):
        state = guest.sh("systemctl is-active reveille-firstboot", 30)[1]
        if state == "activating":
            guest.power_cut()
            landed = "while it ran"
            break
        if state in ("active", "failed"):
            landed = f"after it ({state})"
            break
        time.sleep(0.2)
    figures["first_boot_cut"] = landed
    guest.wait_for_shell(600)
    guest.check("for i in $(seq 600); do [ -e /var/lib/reveille-image/first-boot ] || break; sleep 1; done", 700)
    size = int(guest.check("findmnt -bno SIZE /"))
    errors = guest.sh("journalctl -k -b --no-pager 2>/dev/null | grep -c 'EXT4-fs error'", 60)[1]
    state = guest.sh("systemctl is-active reveille-firstboot", 30)[1]
    record(f"first boot: cut by a power cut {landed}, then done: the root file system grown to the card, no ext4 error",
           size > 3 * 2**30 and errors.strip() == "0" and state == "active",
           f"root {size / 2**30:.2f} GiB of a 4 GiB card; ext4 errors {errors}; service {state}")
    figures["root_gib"] = round(size / 2**30, 2)
    host = guest.check("hostname")
    keys = guest.check("ls /etc/ssh/ | grep -c '^ssh_host_.*_key$'")
    ssh = guest.sh("systemctl is-active ssh.service", 30)[1]
    record("first boot: hostname reveille, this machine's own SSH host keys, SSH off (no 'ssh' file on the boot partition)",
           host == "reveille" and int(keys) >= 2 and ssh != "active", f"{host}, {keys} host keys, ssh {ssh}")


def ready_checks(guest, record, figures):
    guest.check("for i in $(seq 600); do systemctl is-active -q reveille && break; sleep 1; done; systemctl is-active reveille", 700)
    ready = int(guest.check("systemctl show -p ActiveEnterTimestampMonotonic --value reveille")) / 1e6
    text = guest.check("systemctl show -p StatusText --value reveille")
    figures[f"{guest.machine}_boot_to_ready_s"] = round(ready, 1)
    record(f"{guest.machine}: boot: reveille.service READY", text.startswith("serving"), f"{ready:.1f} s after the kernel; '{text}'")
    vm.wait_daemon(guest)


def kiosk_checks(guest, record, figures, screens):
    guest.check("for i in $(seq 600); do pgrep -u reveille-kiosk -x chromium >/dev/null && break; sleep 1; done; "
                "systemctl is-active reveille-kiosk", 700)
    started = float(guest.check("cut -d' ' -f1 /proc/uptime"))
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-setup.png"), looks_like_setup, 900)
    shown = float(guest.check("cut -d' ' -f1 /proc/uptime"))
    figures["kiosk_setup_s"] = round(shown, 1)
    record("first boot: the kiosk at boot asks where the clock is on the screen (captured: pi-setup.png)", ok,
           f"{detail}; shown {shown:.0f} s after the kernel ({shown - started:.0f} s after Chromium started)")
    # Set by a tap (the first zone of Europe, the screen's first choice), then "Which Wi-Fi?" (the
    # virt board has no Wi-Fi adapter: it says so, and goes on without), then the phone's code.
    guest.tap(*SET_ZONE)
    time.sleep(5)
    guest.screendump(os.path.join(screens, "pi-wifi.png"))
    guest.tap(*WIFI_CONTINUE)
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-pair.png"), looks_like_pairing, 300)
    zone = guest.check("timedatectl show -p Timezone --value")
    daemon = vm.status(guest)
    if zone != daemon.get("timeZone"):  # what each of them read, for the log
        print(guest.sh("ls -l /etc/localtime; journalctl -b --no-pager -o short-monotonic "
                       "-u systemd-timedated -u reveille -u dbus | grep -i -E 'zone|timedate|set-up' | tail -20", 60)[1], flush=True)
    record("first boot: the zone set from the screen (systemd-timedated, the package's polkit rule), "
           "a phone's code shown (captured: pi-pair.png)",
           ok and zone.startswith("Europe/") and daemon.get("timeZone") == zone and not daemon.get("setupPending"),
           f"{detail}; system zone {zone}, the daemon's {daemon.get('timeZone')}, set-up pending {daemon.get('setupPending')}")
    guest.tap(*DONE)
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-face.png"), looks_like_face, 300)
    record("kiosk: the clock face on the screen after Done (captured: pi-face.png)", ok, detail)
    # Memory with everything running: what is left, and each service's share (its cgroup).
    available = int(guest.check("awk '/MemAvailable/ {print $2}' /proc/meminfo")) // 1024
    total = int(guest.check("awk '/MemTotal/ {print $2}' /proc/meminfo")) // 1024
    used = {}
    for unit in ("reveille", "reveille-web", "reveille-kiosk"):
        value = guest.check(f"systemctl show -p MemoryCurrent --value {unit}")
        used[unit] = round(int(value) / 2**20, 1) if value.isdigit() else value
    pss = guest.check("for p in $(pgrep -u reveille-kiosk); do awk '/^Pss:/ {s+=$2} END {print s+0}' /proc/$p/smaps_rollup 2>/dev/null; done"
                      " | awk '{s+=$1} END {print int(s/1024)}'")
    figures["memory"] = {"total_mib": total, "available_mib": available, "services_mib": used, "kiosk_pss_mib": int(pss)}
    record("kiosk: memory measured with the kiosk running (virt, 1 GiB, the image's own services)", available > 0,
           f"MemAvailable {available} of {total} MiB; cgroups {used}; the kiosk's PSS {pss} MiB")


def speaker_levels(path, start, end, rate=44100):
    """The RMS of each 0.25 s of the left channel between byte offsets `start` and `end` of qemu's
    WAV output (16-bit stereo at 44.1 kHz, its header of 44 bytes written first)."""
    with open(path, "rb") as f:
        f.seek(max(start, 44))
        data = f.read(max(0, end - max(start, 44)))
    samples = array.array("h", data[:len(data) // 4 * 4])[::2]
    step = rate // 4
    return [int(math.sqrt(sum(x * x for x in samples[i:i + step]) / len(samples[i:i + step])))
            for i in range(0, len(samples), step)]


def usb_sound_checks(guest, record, figures):
    """A ring on a USB sound card plugged into the Pi's USB (qemu's usb-audio on the dwc2
    controller), heard on the host: it rises with its fade-in and ends at the dismissal. The image
    names no device: ALSA's default is the only card."""
    cards = guest.check("cat /proc/asound/cards")
    found = "USB Audio" in cards
    size = lambda: os.path.getsize(guest.speaker_path) if os.path.exists(guest.speaker_path) else 0
    before = size()
    vm.ring_in(guest, 3, "speaker")
    vm.wait_ringing(guest, 120)
    time.sleep(8)
    vm.dismiss(guest)
    time.sleep(1)
    dismissed = size()
    time.sleep(4)
    after = size()
    levels = speaker_levels(guest.speaker_path, before, dismissed)
    tail = speaker_levels(guest.speaker_path, dismissed, after)
    rising = vm.fade_in_rises(levels) and max(levels) > 2000
    quiet = not tail or max(tail) < 1000
    figures["usb_sound"] = {"seconds_heard": round(len(levels) / 4, 1), "rms_peak": max(levels, default=0)}
    record("sound: the ring on a USB sound card on the Pi's USB (dwc2), heard on the host: it rises with its "
           "fade-in and stops at the dismissal", found and rising and quiet,
           f"card {'found' if found else 'missing: ' + cards[:80]}; RMS per 0.25 s {levels}; after the dismissal {tail}")


def ring_and_tag_checks(guest, emulator, record, figures, screens):
    # The reader as hardware.md wires a PN532 to the header UART, added to the image's own settings.
    guest.check("sed -i 's|^#device = \"pn532_uart:/dev/nfc-reader\"|device = \"pn532_uart:/dev/ttyAMA0\"|' "
                "/etc/reveille/reveille.toml && grep -q '^device = \"pn532_uart:/dev/ttyAMA0\"' /etc/reveille/reveille.toml")
    guest.check("systemctl restart reveille")
    vm.wait_daemon(guest)
    guest.check("for i in $(seq 120); do reveille status --json | grep -q '\"condition\" : \"ok\"' && break; sleep 1; done", 150)
    reader = vm.status(guest).get("reader", {})
    record("nfc: the reader on the PL011 (pn532_uart:/dev/ttyAMA0) is found", reader.get("condition") == "ok", f"{reader}")
    guest.check("reveille tag add --label bedside --timeout 90 > /tmp/tag.out 2>&1 & echo $! > /tmp/tag.pid")
    time.sleep(4)
    emulator.say(f"present {vm.TAG_UID}")
    guest.check("for i in $(seq 120); do kill -0 $(cat /tmp/tag.pid) 2>/dev/null || break; sleep 0.5; done", 90)
    emulator.say("remove")
    tags = guest.check("reveille tag list")
    record("nfc: a tag registered by a tap on the reader", vm.TAG_UID in tags.lower().replace(":", ""), tags.replace("\n", " | ")[:200])
    # A ring a tag or math stops: the keypad is in view beside the time.
    guest.check("reveille alarm add --in 3s --label bedside --challenge any --tag bedside >/dev/null")
    vm.wait_ringing(guest, 60)
    if screens is None:
        emulator.say(f"present {vm.TAG_UID}")
        guest.check("for i in $(seq 150); do reveille status --json | grep -q '\"session\"' || break; sleep 0.2; done", 60)
        emulator.say("remove")
        history = json.loads(guest.check("reveille history --json", 120))
        last = next((entry for entry in history if entry.get("label") == "bedside"), {})
        record("nfc: the tag through pn532_uart on the Pi 3's PL011 dismissed the ring", last.get("dismissedBy") == "tag",
               f"{last.get('dismissedBy')}")
        return
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-ringing.png"), looks_like_ring, 300)
    record("kiosk: the ring screen on the screen, the time, SNOOZE and DISMISS (captured: pi-ringing.png)", ok, detail)
    # DISMISS tapped on the screen (a USB tablet standing in for the touchscreen): the problem and its keypad.
    guest.tap(*DISMISS)
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-keypad.png"), looks_like_keypad, 180)
    record("kiosk: DISMISS tapped on the screen: the keypad in view beside the time (captured: pi-keypad.png)", ok, detail)
    emulator.say(f"present {vm.TAG_UID}")
    guest.check("for i in $(seq 150); do reveille status --json | grep -q '\"session\"' || break; sleep 0.2; done", 60)
    emulator.say("remove")
    history = json.loads(guest.check("reveille history --json", 120))
    last = next((entry for entry in history if entry.get("label") == "bedside"), {})
    record("nfc: the tag through pn532_uart on the PL011 dismissed the ring", last.get("dismissedBy") == "tag", f"{last.get('dismissedBy')}")
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "pi-dismissed.png"), looks_like_face, 300)
    record("kiosk: the clock face again after the tag (captured: pi-dismissed.png)", ok, detail)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("image")
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--json")
    parser.add_argument("--screens", default=".build/pi-screens")
    parser.add_argument("--only", choices=["raspi3b", "virt"], help="one of the two boots, for working on it")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="reveille-pi-")
    results, figures = [], {"machine": "raspi3b", "accel": "tcg"}

    def record(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)

    began = time.monotonic()
    image = os.path.abspath(options.image)

    def run(machine, checks):
        """One boot of the card on `machine`, its checks in order; one that breaks is recorded and
        the next goes on."""
        part = os.path.join(work, machine)
        os.makedirs(part)
        emulator = vm.Emulator(os.path.abspath(options.emulator), os.path.join(part, "nfc-link"))
        guest = PiGuest(image, part, os.path.join(part, "nfc-link"), machine)
        try:
            for name, check in checks:
                try:
                    check(guest, emulator)
                except Exception as error:
                    record(f"{machine}: {name}: the checks ran to their end", False, f"{error}")
                    try:
                        guest.sh("true", 10)
                    except Exception:
                        guest.wait_for_shell(300)
                    print(guest.sh("journalctl -b --no-pager -n 40 | cut -c1-240", 60)[1], flush=True)
        finally:
            guest.close()
            emulator.close()

    try:
        # The Pi 3 itself: its board, SD card, UARTs; the first boot, the reader, power cuts.
        if options.only in (None, "raspi3b"):
          run("raspi3b", [
            ("first boot", lambda g, e: first_boot_checks(g, record, figures)),
            ("ready", lambda g, e: ready_checks(g, record, figures)),
            ("usb sound", lambda g, e: usb_sound_checks(g, record, figures)),
            ("tag", lambda g, e: ring_and_tag_checks(g, e, record, figures, None)),
            ("power cut", lambda g, e: vm.power_cut_checks(g, record, figures, 1, only_ringing=True))])
        # The same card with a screen cage can drive: the first boot's set-up and the kiosk's screens.
        if options.only in (None, "virt"):
          run("virt", [
            ("ready", lambda g, e: (g.wait_for_shell(900), ready_checks(g, record, figures))),
            ("kiosk", lambda g, e: kiosk_checks(g, record, figures, options.screens)),
            ("ring and tag", lambda g, e: ring_and_tag_checks(g, e, record, figures, options.screens))])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures["bench_minutes"] = round((time.monotonic() - began) / 60, 1)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(figures, f, indent=1)
    print("figures:", json.dumps(figures))
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
