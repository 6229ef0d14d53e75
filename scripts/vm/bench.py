#!/usr/bin/env python3
"""The appliance, booted (docs/TESTING.md, "The appliance, booted"): the image of scripts/vm/image.sh booted
in qemu on a fresh overlay, driven from the host through its serial console (a root shell) and
qemu's monitor (power cuts). Nothing in the guest is a stand-in: systemd starts the package's units
at boot, the ring plays on the kernel's snd-aloop card and is captured on its other side.

    scripts/vm/bench.py IMAGEDIR --deb DEB --emulator PN532-EMULATOR [--arch amd64|arm64]
                        [--cuts N] [--seed S] [--json FILE]

amd64 (Debian 12, q35): boot, sound, keys, the reader on a serial port, app limits, an upgrade,
power cuts and boots without a real-time clock. arm64 (Debian 13, virt, cortex-a72, a Pi's
processor): boot, sound, keys, the reader on the PL011 UART and one power cut mid-ring.

Prints one line per check and a closing 'N passed, N failed'; exits 1 if any failed. Every run
starts from a new overlay under a temporary folder, which is removed at the end.
"""
import argparse
import datetime
import json
import math
import os
import random
import re
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time


class Guest:
    """One qemu machine on one overlay: its serial console (ttyS0) is a root shell, its monitor
    takes `system_reset` and `quit`. `boot()` starts it again on the same overlay (a power cut
    that lasted), with its real-time clock at `rtc` when given."""

    prompt = rb"root@reveille-vm[^\n]*# "  # the shell's prompt on the console

    def __init__(self, image_dir, work, accel, nfc_link=None, extra_disk=None, arch="amd64"):
        self.image_dir, self.work, self.accel, self.arch = image_dir, work, accel, arch
        self.nfc_link, self.extra_disk = nfc_link, extra_disk
        self.overlay = os.path.join(work, "overlay.qcow2")
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
             os.path.join(image_dir, "root.raw"), self.overlay], check=True)
        self.console_path = os.path.join(work, "console.sock")
        self.monitor_path = os.path.join(work, "monitor.sock")
        self.log = open(os.path.join(work, "console.log"), "ab")
        self.qemu = None
        self.boot()

    def boot(self, rtc=None):
        """Starts qemu; `rtc` (seconds since the epoch) sets the clock the guest finds at boot."""
        image = self.image_dir
        boot = ["-kernel", os.path.join(image, "vmlinuz"), "-initrd", os.path.join(image, "initrd.img")]
        flags = "root=/dev/vda rw quiet loglevel=3 systemd.show_status=0 fsck.mode=skip"
        console = ["-chardev", f"socket,id=console,path={self.console_path},server=on,wait=off"]
        if self.arch == "arm64":
            # A Pi's processor under TCG; the console on virtio (hvc0), the PL011 UART (ttyAMA0)
            # for the reader, as a PN532 on a Pi's header is on its UART.
            command = ["qemu-system-aarch64", "-machine", "virt", "-cpu", "cortex-a72", "-accel", self.accel,
                       "-m", "1024", "-smp", "2", "-nographic", "-nic", "none", *boot,
                       "-append", f"{flags} console=hvc0",
                       "-drive", f"file={self.overlay},if=none,id=root,format=qcow2,cache=writeback",
                       "-device", "virtio-blk-pci,drive=root",
                       *console, "-device", "virtio-serial-pci", "-device", "virtconsole,chardev=console",
                       "-monitor", f"unix:{self.monitor_path},server=on,wait=off"]
            command += (["-chardev", f"serial,id=nfc,path={self.nfc_link}", "-serial", "chardev:nfc"]
                        if self.nfc_link else ["-serial", "none"])
        else:
            # virtio-gpu is the kiosk's screen (bochs-drm, the standard VGA's driver, cannot import
            # buffers, which Debian 12's wlroots asks of any screen); the monitor's screendump sees it.
            command = ["qemu-system-x86_64", "-machine", "q35", "-accel", self.accel, "-m", "1024", "-smp", "2",
                       "-display", "none", "-vga", "virtio", "-nic", "none", *boot,
                       "-append", f"{flags} console=ttyS0,115200 mitigations=off",
                       "-drive", f"file={self.overlay},if=virtio,format=qcow2,cache=writeback",
                       *console, "-serial", "chardev:console",
                       "-monitor", f"unix:{self.monitor_path},server=on,wait=off"]
            if self.nfc_link:  # the guest's second serial port (ttyS1) is the emulated PN532's
                command += ["-chardev", f"serial,id=nfc,path={self.nfc_link}", "-serial", "chardev:nfc"]
        if self.extra_disk:  # /dev/vdb: what the bench hands in (the upgrade's package)
            command += ["-drive", f"file={self.extra_disk},if=virtio,format=raw,readonly=on"]
        if rtc is not None:
            command += ["-rtc", "base=" + time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(rtc))]
        for path in (self.console_path, self.monitor_path):
            if os.path.exists(path):
                os.unlink(path)
        self.started = time.monotonic()
        self.qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.console = self._connect(self.console_path)
        self.buffer = b""

    def _connect(self, path):
        deadline = time.monotonic() + 20
        while True:
            try:
                connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                connection.connect(path)
                return connection
            except OSError:
                if time.monotonic() > deadline or self.qemu.poll() is not None:
                    raise RuntimeError(f"qemu did not open {path}: {self.tail()}")
                time.sleep(0.1)

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.work, "console.log"), "rb") as f:
            return f.read()[-2000:].decode(errors="replace")

    def _read_until(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            match = regex.search(self.buffer)
            if match:
                self.buffer = self.buffer[match.end():]
                return match
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"waited {timeout} s for {pattern!r}; console: {self.buffer[-1500:]!r}")
            self.console.settimeout(min(remaining, 1.0))
            try:
                data = self.console.recv(65536)
            except socket.timeout:
                continue
            self.log.write(data)
            self.buffer += data

    def wait_for_shell(self, timeout=240):
        """Until the autologin shell answers; returns seconds since qemu (re)started."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.console.sendall(b"\r")
            try:
                self._read_until(self.prompt, 3)
                break
            except TimeoutError:
                continue
        else:
            raise TimeoutError(f"no shell in {timeout} s: {self.tail()}")
        self.console.sendall(b"stty -echo; export PS1= TERM=dumb; echo READY-$((6*7))\n")
        self._read_until(rb"READY-42", 10)
        return time.monotonic() - self.started

    def sh(self, command, timeout=60):
        """Runs `command` in the guest's shell: (exit status, output)."""
        mark = f"@@{random.randrange(1 << 30)}"
        self.buffer = b""
        self.console.sendall(f"{command}; echo {mark} $?\n".encode())
        match = self._read_until(rf"([\s\S]*?){mark} (\d+)".encode(), timeout)
        return int(match.group(2)), match.group(1).decode(errors="replace").replace("\r", "").strip()

    def check(self, command, timeout=60):
        status, output = self.sh(command, timeout)
        if status != 0:
            raise AssertionError(f"{command!r} exited {status}: {output[-1500:]}")
        return output

    def put(self, path, text):
        """Writes `text` to `path` in the guest (through base64: no quoting, no heredoc)."""
        import base64
        encoded = base64.b64encode(text.encode()).decode()
        self.check(f"echo {encoded} | base64 -d > {path}")

    def monitor(self, line):
        """One command to qemu's monitor."""
        monitor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        monitor.connect(self.monitor_path)
        monitor.sendall(line.encode() + b"\n")
        time.sleep(0.3)
        monitor.close()

    def screendump(self, png):
        """The guest's screen as qemu shows it (the monitor's screendump), saved as PNG; returns
        it as a `screens.Screen`."""
        from screens import Screen
        ppm = os.path.join(self.work, "screen.ppm")
        if os.path.exists(ppm):
            os.unlink(ppm)
        self.monitor(f"screendump {ppm}")
        deadline, size = time.monotonic() + 20, -1
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = os.path.getsize(ppm) if os.path.exists(ppm) else -1
            if now == size and now > 0:
                break
            size = now
        image = Screen.read_ppm(ppm)
        os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
        image.save_png(png)
        return image

    def power_cut(self):
        """The machine loses power: reset with no shutdown and no sync (qemu's system_reset)."""
        monitor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        monitor.connect(self.monitor_path)
        monitor.sendall(b"system_reset\n")
        time.sleep(0.3)
        monitor.close()
        self.started = time.monotonic()
        self.buffer = b""

    def stop(self):
        """Power off at once: qemu quits, nothing in the guest is synced or shut down."""
        if self.qemu and self.qemu.poll() is None:
            try:
                monitor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                monitor.connect(self.monitor_path)
                monitor.sendall(b"quit\n")
                monitor.close()
                self.qemu.wait(timeout=10)
            except Exception:
                self.qemu.kill()
                self.qemu.wait()
        self.console.close()

    def close(self):
        self.stop()
        self.log.close()


# What runs inside: a capture of the loopback card's other side (python3 in the guest), in periods
# of 10 ms. `capture.py SECONDS OUT`: OUT gets the wall-clock time of the first frame that is not
# silence (within a period), and the RMS of each 0.25 s, as JSON.
CAPTURE = r'''
import array, json, math, operator, subprocess, sys, time
try:
    from audioop import rms  # Python 3.12 and before (Debian 12)
except ImportError:  # Python 3.13 (Debian 13) has no audioop
    def rms(chunk, width):
        samples = array.array("h", chunk)
        return int(math.sqrt(sum(map(operator.mul, samples, samples)) / max(1, len(samples))))
seconds, out = int(sys.argv[1]), sys.argv[2]
rate, frame = 48000, 4
arecord = subprocess.Popen(["arecord", "-q", "-D", "plughw:Loopback,1,0", "-f", "S16_LE", "-r", str(rate),
                            "-c", "2", "-t", "raw", "-F", "10000", "-B", "500000", "-d", str(seconds)],
                           stdout=subprocess.PIPE)
# The capture's frames are counted: frame k was captured at start + k / rate. A period arrives no
# sooner than its last frame, so the earliest (arrival - frames so far / rate) is the start.
start, frames, first, chunks = None, 0, None, []
while True:
    chunk = arecord.stdout.read(480 * frame)
    if not chunk:
        break
    arrived = time.time()
    if first is None:
        sound = chunk.lstrip(b"\0")
        if sound:
            first = frames + (len(chunk) - len(sound)) // frame
    frames += len(chunk) // frame
    start = min(start, arrived - frames / rate) if start is not None else arrived - frames / rate
    chunks.append(chunk)
data = b"".join(chunks)
step = rate // 4 * frame
levels = [rms(data[i:i + step], 2) for i in range(0, len(data), step)]
json.dump({"start": start, "first": None if first is None else start + first / rate, "levels": levels},
          open(out, "w"))
'''

# A keypad made with the kernel's uinput (python3 in the guest): plugged in, found by the daemon's
# hot-plug, its keys pressed, unplugged. `keypad.py snooze`: KEY_SPACE. `keypad.py answer`: the
# answer key, then the problem read from `reveille status --json`, its digits and enter.
# `keypad.py plug SECONDS`: plugged in for that long, no key.
KEYPAD = r'''
import fcntl, json, os, struct, subprocess, sys, time
UI_SET_EVBIT, UI_SET_KEYBIT, UI_DEV_CREATE, UI_DEV_DESTROY = 0x40045564, 0x40045565, 0x5501, 0x5502
EV_SYN, EV_KEY = 0, 1
KEY_SPACE, KEY_KPENTER, KEY_KPASTERISK = 57, 96, 55
DIGITS = {0: 11, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8, 8: 9, 9: 10}
fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
for code in [KEY_SPACE, KEY_KPENTER, KEY_KPASTERISK] + list(DIGITS.values()):
    fcntl.ioctl(fd, UI_SET_KEYBIT, code)
os.write(fd, struct.pack("80sHHHHi" + "i" * 256, b"reveille-vm-keypad", 3, 0x1209, 0x0001, 1, 0, *([0] * 256)))
fcntl.ioctl(fd, UI_DEV_CREATE)
time.sleep(3)  # the daemon's hot-plug finds it
def press(code):
    for value in (1, 0):
        os.write(fd, struct.pack("llHHi", 0, 0, EV_KEY, code, value) + struct.pack("llHHi", 0, 0, EV_SYN, 0, 0))
        time.sleep(0.15)
if sys.argv[1] == "snooze":
    press(KEY_SPACE)
elif sys.argv[1] == "answer":
    press(KEY_KPASTERISK)
    time.sleep(1)
    problem = json.loads(subprocess.check_output(["reveille", "status", "--json"]))["session"]["problem"]
    value = sum(eval(term.replace("\u00d7", "*")) for term in problem.split("+"))
    for digit in str(value):
        press(DIGITS[int(digit)])
    press(KEY_KPENTER)
else:
    time.sleep(float(sys.argv[2]))
time.sleep(1)
fcntl.ioctl(fd, UI_DEV_DESTROY)
print("keypad done")
'''

SETTINGS = """# The VM bench: the ring on the snd-aloop card.
[audio]
devices = ["hw:Loopback,0,0"]
fade_in_seconds = 4
"""

# The reader as hardware.md configures a PN532 on a serial port: the guest's second UART on
# amd64, the PL011 (a Pi's header UART) on arm64.
NFC_PORT = {"amd64": "/dev/ttyS1", "arm64": "/dev/ttyAMA0"}
NFC_SETTINGS = """
[nfc]
device = "pn532_uart:{port}"
"""


def history(guest, label):
    """The history's entries of alarms labelled `label` (a prefix), as compact JSON filtered in the
    guest: after many power cuts the whole history is hundreds of lines, slow on a serial console."""
    keep = "label state dismissedBy scheduled snoozes".split()
    script = (f"import json,sys; print(json.dumps([{{k: e.get(k) for k in {keep!r}}} "
              f"for e in json.load(sys.stdin) if e['label'].startswith({label!r})]))")
    return json.loads(guest.check(f"reveille history --json | python3 -c {shlex.quote(script)}", timeout=120))


def status(guest):
    return json.loads(guest.check("reveille status --json"))


def answer(problem):
    return sum(math.prod(int(x) for x in term.split("×")) for term in problem.split("+"))


def dismiss(guest):
    for _ in range(4):
        session = status(guest).get("session")
        if not session or session["state"] not in ("ringing", "snoozed"):
            return
        problem = guest.check("reveille dismiss --problem")
        guest.sh(f"reveille dismiss --answer {answer(problem)}")


def ring_in(guest, seconds, label):
    guest.check(f"reveille alarm add --in {seconds}s --label {label} --challenge math --fade-in 4 >/dev/null")


def wait_ringing(guest, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        session = status(guest).get("session")
        if session and session["state"] == "ringing":
            return session
        time.sleep(0.5)
    raise AssertionError(f"no ring within {timeout} s: {status(guest)}")


TAG_UID = "04a1b2c3d4e5f6"


class Emulator:
    """The PN532 emulator of the test suite (Tests/pn532-emulator), on the host: its pseudo-terminal
    is the guest's ttyS1, as a reader wired to the Pi's serial port is the Pi's."""

    def __init__(self, binary, link):
        self.proc = subprocess.Popen([binary, link], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.proc.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError(f"pn532-emulator did not start: {ready!r}")

    def say(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if answer != "ok":
            raise RuntimeError(f"pn532-emulator: {line}: {answer}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.kill()
            self.proc.wait()


def guest_now(guest):
    """The guest's clock, as seen from the host: (guest seconds, host seconds) at one instant,
    within half the console's round trip."""
    sent = time.time()
    value = float(guest.check("date +%s.%N"))
    return value, (sent + time.time()) / 2


def wait_daemon(guest):
    guest.check("for i in $(seq 240); do reveille status >/dev/null 2>&1 && break; sleep 0.5; done; "
                "reveille status >/dev/null", 180)


def ring_at_next_minute(guest, label, options="--challenge math --fade-in 4", margin=15):
    """An alarm at the next whole minute at least `margin` s away; returns its instant."""
    now = int(float(guest.check("date +%s")))
    due = (now + margin + 59) // 60 * 60
    hhmm = guest.check(f"date -d @{due} +%H:%M")
    guest.check(f"reveille alarm add {hhmm} --label {label} {options} >/dev/null")
    return due


def boot_checks(guest, record, figures):
    """systemd starts the package's unit, which says READY; the page is served; doctor is clean."""
    figures["boot_to_shell_s"] = round(guest.wait_for_shell(), 1)
    guest.check("for i in $(seq 120); do systemctl is-active -q reveille && break; sleep 0.5; done; "
                "systemctl is-active reveille")
    ready_us = int(guest.check("systemctl show -p ActiveEnterTimestampMonotonic --value reveille"))
    figures["boot_to_ready_s"] = round(ready_us / 1e6, 1)
    status_text = guest.check("systemctl show -p StatusText --value reveille")
    record("boot: reveille.service started by systemd, READY", status_text.startswith("serving"),
           f"{figures['boot_to_ready_s']} s after the kernel started; status '{status_text}'")
    watchdog = guest.check("systemctl show -p WatchdogUSec --value reveille")
    record("boot: the unit's watchdog is armed", watchdog not in ("0", "infinity", ""), watchdog)
    # The page: reveille-web, started by its own unit, serves it on loopback. The first page's
    # instant, from the kernel's start (the guest's monotonic clock).
    page = guest.sh(
        "for i in $(seq 240); do python3 -c \"import urllib.request as u, time; "
        "print(u.urlopen('http://127.0.0.1:8080/', timeout=5).status, time.clock_gettime(time.CLOCK_MONOTONIC))\" "
        "2>/dev/null && break; sleep 0.25; done", 120)
    served = page[1].split()[-2:] if page[1] else []
    ok = len(served) == 2 and served[0] == "200"
    if ok:
        figures["boot_to_page_s"] = round(float(served[1]), 1)
    record("boot: reveille-web serves the page (its unit, on 127.0.0.1:8080)", ok,
           f"first page {figures.get('boot_to_page_s')} s after the kernel started" if ok else page[1][-200:])
    # systemctl reload: the daemon starts again in place; systemd sees the same process, active.
    pid = guest.check("systemctl show -p MainPID --value reveille")
    guest.check("systemctl reload reveille")
    time.sleep(12)  # beyond the unit's TimeoutStopSec: a reload taken for a stop would be killed by now
    state = dict(line.split("=", 1) for line in guest.check(
        "systemctl show -p ActiveState -p SubState -p MainPID -p NRestarts reveille").splitlines())
    record("boot: 'systemctl reload' starts it again in place; systemd keeps it active, same pid",
           state == {"ActiveState": "active", "SubState": "running", "MainPID": pid, "NRestarts": "0"},
           f"pid {pid}; after: {state}")
    doctor_status, doctor = guest.sh("reveille doctor --no-tone", 120)
    failures = [line for line in doctor.splitlines() if line.startswith("FAIL")]
    record("boot: 'reveille doctor' finds nothing failing", not failures, "; ".join(failures) or f"exit {doctor_status}")
    modules = guest.check("lsmod | grep -E '^(snd_aloop|uinput) ' | cut -d' ' -f1 | sort | tr '\\n' ' '")
    record("kernel: snd-aloop and uinput loaded", modules.split() == ["snd_aloop", "uinput"], modules)


def fade_in_rises(levels):
    """Whether a ring's RMS per 0.25 s (`levels`) is heard and rises with its fade-in: its first
    sound (over 100) is quieter than the loudest of the 4 s that follow it."""
    loud = [i for i, level in enumerate(levels) if level > 100]
    return bool(loud) and levels[loud[0]] < max(levels[loud[0]:loud[0] + 16])


def sound_checks(guest, record, figures):
    """A ring at a whole minute on the loopback card, captured on its other side: its first frame
    against its instant, the fade-in rising, silence after the dismissal."""
    guest.put("/tmp/capture.py", CAPTURE)
    due = ring_at_next_minute(guest, "sound")
    now = float(guest.check("date +%s.%N"))
    capture_seconds = int(due - now) + 14
    guest.check(f"rm -f /tmp/cap.json; (nice -n -10 python3 /tmp/capture.py {capture_seconds} /tmp/cap.json "
                ">/tmp/capture.log 2>&1 &); sleep 0.5")
    wait_ringing(guest, timeout=capture_seconds + 30)
    time.sleep(5)
    dismiss(guest)
    dismissed_guest = float(guest.check("date +%s.%N"))
    guest.check(f"for i in $(seq {capture_seconds * 4 + 120}); do [ -s /tmp/cap.json ] && break; sleep 0.25; done; "
                "[ -s /tmp/cap.json ]", capture_seconds + 120)
    captured = json.loads(guest.check("cat /tmp/cap.json"))
    levels, first, capture_start = captured["levels"], captured["first"], captured["start"]
    heard = any(level > 100 for level in levels)
    # After the dismissal the alarm's sound ends at once; the quiet acknowledgement that follows
    # (RMS under 1,000 against the ring's 8,000) may take a moment more on a slow guest; then silence.
    after = levels[int((dismissed_guest + 1 - capture_start) * 4):]
    stopped = heard and len(after) >= 12 and max(after) < 1000 and max(after[-8:]) < 30
    rising = fade_in_rises(levels)
    record("sound: the ring is heard on snd-aloop, rises with its fade-in, stops at dismissal",
           stopped and rising, f"RMS per 0.25 s: {levels}; dismissed {dismissed_guest - capture_start:.1f} s into the capture")
    figures["ring_rms_peak"] = max(levels) if levels else 0
    # Fire accuracy: a ring with no fade-in (a fade's first frames round to silence), at a whole
    # minute; its first frame that is not silence, against its instant.
    due = ring_at_next_minute(guest, "accuracy", "--challenge math --fade-in 0")
    now = float(guest.check("date +%s.%N"))
    capture_seconds = int(due - now) + 6
    guest.check(f"rm -f /tmp/cap.json; (nice -n -10 python3 /tmp/capture.py {capture_seconds} /tmp/cap.json "
                ">/tmp/capture.log 2>&1 &); sleep 0.5")
    wait_ringing(guest, timeout=capture_seconds + 30)
    dismiss(guest)
    guest.check(f"for i in $(seq {capture_seconds * 4 + 120}); do [ -s /tmp/cap.json ] && break; sleep 0.25; done; "
                "[ -s /tmp/cap.json ]", capture_seconds + 120)
    first = json.loads(guest.check("cat /tmp/cap.json"))["first"]
    if first is not None:
        figures["first_frame_after_instant_ms"] = round((first - due) * 1000)
    # The daemon's part of it: its log says when it started the ring, after the instant.
    started = re.search(r"accuracy rings \(due [0-9:]+, started \+([0-9.]+) ms\)",
                        guest.check("journalctl -u reveille --no-pager | grep 'accuracy rings' | tail -1"))
    if started:
        figures["ring_started_after_instant_ms"] = float(started.group(1))
    record("sound: the ring's first frame reaches snd-aloop right after its instant",
           first is not None and -0.05 <= first - due < 1.0,
           f"{figures.get('first_frame_after_instant_ms')} ms after {time.strftime('%H:%M:%S', time.gmtime(due))}, "
           f"the daemon started it at +{figures.get('ring_started_after_instant_ms')} ms "
           "(no fade-in; frames counted from the capture's start)")


def key_checks(guest, record):
    """A uinput keypad hot-plugged while the alarm rings snoozes it; another types the answer; one
    unplugged mid-ring leaves the alarm ringing."""
    guest.put("/tmp/keypad.py", KEYPAD)
    ring_in(guest, 2, "keys")
    wait_ringing(guest)
    guest.check("python3 /tmp/keypad.py plug 1", 60)
    still = status(guest).get("session") or {}
    guest.check("python3 /tmp/keypad.py snooze", 60)
    snoozed = status(guest).get("session") or {}
    record("keys: a keypad unplugged mid-ring leaves it ringing; a hot-plugged one's snooze key snoozes",
           still.get("state") == "ringing" and snoozed.get("state") == "snoozed" and snoozed.get("snoozeCount") == 1,
           f"after the unplug {still.get('state')}, after the key {snoozed.get('state')} "
           f"({snoozed.get('snoozeCount')} used)")
    guest.check("kill -0 $(systemctl show -p MainPID --value reveille)")
    dismiss(guest)
    ring_in(guest, 2, "answer")
    wait_ringing(guest)
    typed = guest.sh("python3 /tmp/keypad.py answer", 90)
    after = status(guest).get("session")
    last = next((entry for entry in history(guest, "answer") if entry.get("label") == "answer"), {})
    record("keys: the answer typed on a hot-plugged keypad dismisses",
           after is None and last.get("dismissedBy") == "math", f"{typed[1][-200:]}; history {last.get('state')}")


def nfc_checks(guest, emulator, record, figures):
    """libnfc's pn532_uart driver on the guest's ttyS1, configured as hardware.md says: a tag
    registered by a tap dismisses a tag-only alarm; math does not."""
    port = NFC_PORT[guest.arch]
    guest.put("/etc/reveille/reveille.toml", SETTINGS + NFC_SETTINGS.format(port=port))
    guest.check("systemctl restart reveille")
    wait_daemon(guest)
    guest.check("for i in $(seq 60); do reveille status --json | grep -q '\"condition\" : \"ok\"' && break; "
                "sleep 1; done", 90)
    reader = status(guest).get("reader", {})
    record(f"nfc: the reader on the guest's serial port is found (pn532_uart:{port})",
           reader.get("condition") == "ok", f"{reader}")
    # Registered by a tap, as a household does it.
    adding = f"reveille tag add --label bath --timeout 60 > /tmp/tag.out 2>&1 & echo $! > /tmp/tag.pid"
    guest.check(adding)
    time.sleep(3)
    emulator.say(f"present {TAG_UID}")
    guest.check("for i in $(seq 60); do kill -0 $(cat /tmp/tag.pid) 2>/dev/null || break; sleep 0.5; done", 60)
    emulator.say("remove")
    tags = guest.check("reveille tag list")
    record("nfc: a tag is registered by a tap on the reader", TAG_UID in tags.lower().replace(":", ""),
           tags.replace("\n", " | ")[:300])
    ring_in_options = "--challenge nfc --tag bath --fade-in 4"
    guest.check(f"reveille alarm add --in 2s --label tagonly {ring_in_options} >/dev/null")
    wait_ringing(guest)
    refused = guest.sh("reveille dismiss --answer 1")[0] != 0
    time.sleep(2)
    offset_guest, offset_host = guest_now(guest)
    presented = time.time()
    emulator.say(f"present {TAG_UID}")
    guest.check("for i in $(seq 100); do reveille status --json | grep -q '\"session\"' || break; sleep 0.2; done", 60)
    emulator.say("remove")
    logged = guest.check("journalctl -u reveille -o short-unix --no-pager | grep 'tagonly.*dismissed by tag' | tail -1")
    dismissed_guest = float(logged.split()[0]) if logged else None
    last = next((entry for entry in history(guest, "tagonly") if entry.get("label") == "tagonly"), {})
    ok = refused and last.get("dismissedBy") == "tag" and status(guest).get("session") is None
    if dismissed_guest is not None:
        figures["tag_to_dismissal_ms"] = round((dismissed_guest - offset_guest - (presented - offset_host)) * 1000)
    record("nfc: the registered tag dismisses a tag-only alarm through pn532_uart; math is refused", ok,
           f"math refused {refused}, history {last.get('dismissedBy')}; tag to dismissal "
           f"{figures.get('tag_to_dismissal_ms')} ms (guest log vs host clock)")


def kiosk_checks(guest, record, figures, screens):
    """reveille-kiosk: started by systemd at boot (cage and Chromium as its own user on tty1, the
    guest's VGA), the clock face on the screen (captured), and back by itself when the browser dies."""
    from screens import looks_like_face, wait_screen
    guest.check("for i in $(seq 300); do pgrep -u reveille-kiosk -x chromium >/dev/null && break; sleep 1; done; "
                "systemctl is-active reveille-kiosk", 330)
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "amd64-kiosk.png"), looks_like_face, 300)
    shown = float(guest.check("cut -d' ' -f1 /proc/uptime"))
    figures["kiosk_face_s"] = round(shown, 1)
    record("kiosk: reveille-kiosk started at boot, the clock face on the guest's screen (captured: amd64-kiosk.png)", ok,
           f"{detail}; by {shown:.0f} s after the kernel")
    pss = guest.check("for p in $(pgrep -u reveille-kiosk); do awk '/^Pss:/ {s+=$2} END {print s+0}' /proc/$p/smaps_rollup 2>/dev/null; done"
                      " | awk '{s+=$1} END {print int(s/1024)}'")
    figures["kiosk_pss_mib"] = int(pss)
    # The browser dies: cage ends with it, and systemd starts both again.
    before = guest.check("systemctl show -p NRestarts --value reveille-kiosk")
    guest.check("pkill -KILL -u reveille-kiosk -x chromium")
    guest.check("for i in $(seq 300); do [ $(systemctl show -p NRestarts --value reveille-kiosk) -gt " + before + " ] && "
                "pgrep -u reveille-kiosk -x chromium >/dev/null && break; sleep 1; done", 330)
    ok, detail, _ = wait_screen(guest, os.path.join(screens, "amd64-kiosk-again.png"), looks_like_face, 300)
    after = guest.check("systemctl show -p NRestarts --value reveille-kiosk")
    record("kiosk: the browser killed, the kiosk comes back by itself with the clock face", ok and int(after) > int(before),
           f"restarts {before} -> {after}; {detail}")


APPS = """# The VM bench: a game for kid outside its window.
[[app]]
name = "game"
paths = ["/usr/games/game"]
windows = ["{window}"]
users = ["kid"]
"""


def app_checks(guest, record):
    """fanotify on the guest's own root file system: a listed program is refused to the user the
    policy names, outside its window; other programs, root, and a chroot's programs run."""
    # The game is a copy of sleep: the guard knows programs by content, so sleep is the game too.
    guest.check("id kid >/dev/null 2>&1 || useradd -m kid; install -m 0755 /usr/bin/sleep /usr/games/game")
    hour = int(guest.check("date +%H"))
    window = f"{(hour + 2) % 24:02d}:00-{(hour + 3) % 24:02d}:00"
    guest.put("/etc/reveille/apps.toml", APPS.format(window=window))
    guest.check("chmod 0644 /etc/reveille/apps.toml")  # the daemon sees the change and merges it
    guest.check("for i in $(seq 60); do journalctl -u reveille --no-pager | grep -q '1 app in force' && break; "
                "sleep 1; done", 90)
    kid_game = guest.sh("su kid -s /bin/sh -c '/usr/games/game 0'")
    kid_sleep = guest.sh("su kid -s /bin/sh -c '/usr/bin/true'")
    root_game = guest.sh("/usr/games/game 0")
    record("apps: fanotify refuses the game to kid outside its window; kid's other programs and root run",
           kid_game[0] != 0 and kid_sleep[0] == 0 and root_game[0] == 0,
           f"kid game exit {kid_game[0]} ({kid_game[1][-120:]}), kid true {kid_sleep[0]}, root game {root_game[0]}")
    # A chroot of the guest's own, in a mount namespace of its own (as a container is): its programs
    # run, for kid too; the game is refused there as well.
    guest.check("mkdir -p /srv/jail")
    inside = ("unshare --mount sh -c 'mount --bind / /srv/jail && mount -t proc proc /srv/jail/proc && "
              "chroot --userspec=kid:kid /srv/jail /bin/sh -c \"/usr/bin/true && /usr/bin/ls / >/dev/null && echo RAN; "
              "/usr/games/game 0 && echo GAME-RAN\"'")
    jailed = guest.sh(inside, 60)
    root_jailed = guest.sh("unshare --mount sh -c 'mount --bind / /srv/jail && chroot /srv/jail /usr/bin/dpkg -s reveille >/dev/null && echo ROOT-RAN'", 60)
    record("apps: in a chroot in its own mount namespace, kid's programs run and the game is still refused; root's run",
           "RAN" in jailed[1] and "GAME-RAN" not in jailed[1] and "ROOT-RAN" in root_jailed[1],
           f"{jailed[1][-200:]} / {root_jailed[1][-80:]}")
    guest.check("rm -f /etc/reveille/apps.toml")


HOSTAPD = """interface={interface}
driver=nl80211
ssid={ssid}
hw_mode=g
channel={channel}
wpa=2
wpa_key_mgmt=WPA-PSK
rsn_pairwise=CCMP
wpa_passphrase={passphrase}
"""
ACCESS_POINT_NETWORK = "[Match]\nName={interface}\n\n[Network]\nAddress={subnet}.1/24\nDHCPServer=yes\n"


def wifi_checks(guest, record, figures):
    """Raspberry Pi Imager's Wi-Fi on simulated radios (mac80211_hwsim): the household's access
    point on one radio (hostapd, WPA2, a DHCP server); Imager's files, as Imager writes them (the
    key is the PBKDF2 of the passphrase), on the boot partition; the image's own unit applies them,
    and the clock's radio joins the network and takes an address. The key is nowhere in the
    journal, and the files are gone from the card."""
    import hashlib
    ssid, passphrase = "Household 5G", "correct horse battery"
    key = hashlib.pbkdf2_hmac("sha1", passphrase.encode(), ssid.encode(), 4096, 32).hex()
    guest.check("modprobe mac80211_hwsim radios=2 && for i in $(seq 20); do ip link show wlan1 >/dev/null 2>&1 && break; sleep 0.5; done")
    guest.put("/root/hostapd.conf", HOSTAPD.format(interface="wlan1", channel=6, ssid=ssid, passphrase=passphrase))
    guest.put("/etc/systemd/network/10-bench-access-point.network", ACCESS_POINT_NETWORK.format(interface="wlan1", subnet="192.168.77"))
    guest.check("hostapd -B -P /run/bench-hostapd.pid /root/hostapd.conf >/dev/null", 60)
    guest.check("mkdir -p /boot/firmware")
    guest.put("/boot/firmware/network-config",
              "network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n"
              f"      regulatory-domain: \"DE\"\n      access-points:\n        \"{ssid}\":\n"
              f"          password: \"{key}\"\n      optional: true\n")
    guest.put("/boot/firmware/user-data", "#cloud-config\nhostname: bedside\nmanage_etc_hosts: true\ntimezone: Europe/Berlin\n")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "image", "imager-settings.service")) as f:
        guest.put("/etc/systemd/system/imager-settings.service", f.read())
    began = time.monotonic()
    guest.check("systemctl daemon-reload && systemctl start imager-settings.service", 60)
    guest.check("systemctl enable -q systemd-networkd && systemctl restart systemd-networkd", 60)
    joined = guest.sh("for i in $(seq 90); do iw dev wlan0 link | grep -q 'SSID: Household 5G' && "
                      "ip -4 addr show wlan0 | grep -q 'inet 192.168.77.' && break; sleep 1; done; "
                      "iw dev wlan0 link | grep SSID; ip -4 -br addr show wlan0", 120)[1]
    figures["wifi_join_seconds"] = round(time.monotonic() - began, 1)
    record("wifi: Imager's settings join the household's WPA2 network on a simulated radio and take an address",
           "SSID: Household 5G" in joined and "192.168.77." in joined, joined.replace("\n", " / ")[-200:])
    # The network goes (the access point is switched off) and comes back: the daemon says so
    # (status, the journal), and the radio rejoins by itself.
    said = lambda words, seconds: guest.sh(f"for i in $(seq {seconds}); do reveille status | grep -q '{words}' && break; "
                                           "sleep 1; done; reveille status | grep -i network", seconds + 30)[1]
    online = said("network: connected", 30)
    guest.check("kill $(cat /run/bench-hostapd.pid)")
    gone = said("NETWORK: no network", 60)
    guest.check("hostapd -B -P /run/bench-hostapd.pid /root/hostapd.conf >/dev/null", 60)
    began = time.monotonic()
    back = said("network: connected", 120)
    figures["wifi_rejoin_seconds"] = round(time.monotonic() - began, 1)
    record("wifi: status says the network went and came back; the radio rejoined by itself",
           "network: connected" in online and "NETWORK: no network" in gone and "network: connected" in back,
           f"{online} / {gone} / {back}"[-240:])
    applied = guest.sh("cat /etc/hostname; readlink /etc/localtime; ls /boot/firmware; "
                       f"journalctl -b --no-pager | grep -c -e '{key}' -e '{passphrase}'")[1].split("\n")
    record("wifi: the host name and zone are set, the files leave the card, and the key is not in the journal",
           applied[0] == "bedside" and applied[1].endswith("Europe/Berlin") and applied[-1].strip() == "0"
           and not any(name in applied for name in ("user-data", "network-config")), " / ".join(applied)[-200:])
    guest.sh("kill $(cat /run/bench-hostapd.pid) 2>/dev/null; systemctl stop wpa_supplicant@wlan0; "
             "rm -f /etc/systemd/network/10-bench-access-point.network; echo reveille-vm > /etc/hostname; "
             "hostname reveille-vm; ln -sfn /usr/share/zoneinfo/Etc/UTC /etc/localtime; rmmod mac80211_hwsim", 60)


def wifi_join_checks(guest, record, figures):
    """The screen's way on real radios, through the daemon as the page asks it (the CLI here):
    the household's access point and an upstairs one (hostapd on two simulated radios), the
    clock on the household's from Imager's settings (`wifi` ran first); the networks heard, a
    wrong password (the clock stays on its network), then the upstairs one joined, its address
    taken, and kept by wpa_supplicant with the key only. Not in vm-smoke: `make vm-test-wifi`."""
    import hashlib
    ssid, passphrase = "Household 5G", "correct horse battery"
    upstairs, upstairs_passphrase = "Upstairs", "up the stairs 42"
    key = hashlib.pbkdf2_hmac("sha1", passphrase.encode(), ssid.encode(), 4096, 32).hex()
    guest.check("modprobe mac80211_hwsim radios=3 && for i in $(seq 20); do ip link show wlan2 >/dev/null 2>&1 && break; sleep 0.5; done")
    guest.put("/root/hostapd.conf", HOSTAPD.format(interface="wlan1", channel=6, ssid=ssid, passphrase=passphrase))
    guest.put("/root/hostapd-upstairs.conf",
              HOSTAPD.format(interface="wlan2", channel=11, ssid=upstairs, passphrase=upstairs_passphrase))
    guest.put("/etc/systemd/network/10-bench-access-point.network", ACCESS_POINT_NETWORK.format(interface="wlan1", subnet="192.168.77"))
    guest.put("/etc/systemd/network/11-bench-upstairs.network", ACCESS_POINT_NETWORK.format(interface="wlan2", subnet="192.168.78"))
    guest.put("/etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
              "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev\nupdate_config=1\nnetwork={\n"
              f"\tssid=\"{ssid}\"\n\tpsk={key}\n}}\n")
    guest.put("/etc/systemd/network/25-wireless.network", "[Match]\nName=wlan0\n\n[Network]\nDHCP=yes\n")
    guest.check("chmod 600 /etc/wpa_supplicant/wpa_supplicant-wlan0.conf && hostapd -B -P /run/bench-hostapd.pid /root/hostapd.conf >/dev/null", 60)
    guest.check("systemctl enable -q systemd-networkd && systemctl restart systemd-networkd && systemctl restart wpa_supplicant@wlan0", 60)
    guest.check("for i in $(seq 60); do iw dev wlan0 link | grep -q 'SSID: Household 5G' && break; sleep 1; done; iw dev wlan0 link | grep -q 'SSID: Household 5G'", 90)
    guest.check("hostapd -B -P /run/bench-hostapd2.pid /root/hostapd-upstairs.conf >/dev/null", 60)
    heard = guest.sh("for i in $(seq 5); do reveille wifi scan >/tmp/scan 2>&1; grep -q Upstairs /tmp/scan && break; "
                     "sleep 2; done; cat /tmp/scan", 120)[1]
    record("wifi: the daemon lists the networks its radio hears, each with its lock, the one it is on marked",
           "Upstairs" in heard and "* Household 5G" in heard and heard.count(" yes") >= 2, heard.replace("\n", " / ")[-240:])
    wrong = guest.sh("echo 'not the password' | reveille wifi join Upstairs; echo rc=$?; "
                     "for i in $(seq 30); do iw dev wlan0 link | grep -q 'SSID: Household 5G' && break; sleep 1; done; "
                     "iw dev wlan0 link | grep SSID", 120)[1]
    record("wifi: a wrong password is said as such, and the clock goes back to the network it knew",
           "wrong password for “Upstairs”" in wrong and "rc=1" in wrong and "SSID: Household 5G" in wrong,
           wrong.replace("\n", " / ")[-240:])
    began = time.monotonic()
    moved = guest.sh(f"echo '{upstairs_passphrase}' | reveille wifi join Upstairs; echo rc=$?; "
                     "iw dev wlan0 link | grep SSID; grep -c -e psk= /etc/wpa_supplicant/wpa_supplicant-wlan0.conf; "
                     f"grep -c '{upstairs_passphrase}' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf", 120)[1]
    figures["wifi_join_from_daemon_seconds"] = round(time.monotonic() - began, 1)
    lines = moved.split("\n")
    record("wifi: joined another network through the daemon, with its new address, saved by wpa_supplicant as a key",
           "joined “Upstairs” (address 192.168.78." in moved and "rc=0" in moved and "SSID: Upstairs" in moved
           and lines[-2].strip() == "2" and lines[-1].strip() == "0", moved.replace("\n", " / ")[-240:])
    gone = guest.sh(f"journalctl -b --no-pager | grep -c -e '{upstairs_passphrase}' -e 'not the password'")[1].strip()
    record("wifi: neither password is in the journal", gone == "0", gone)
    guest.sh("kill $(cat /run/bench-hostapd.pid) $(cat /run/bench-hostapd2.pid) 2>/dev/null; systemctl stop wpa_supplicant@wlan0; "
             "rm -f /etc/systemd/network/10-bench-access-point.network /etc/systemd/network/11-bench-upstairs.network "
             "/etc/systemd/network/25-wireless.network; rmmod mac80211_hwsim", 60)


PHONE_JOIN = r"""
import http.cookiejar, json, re, sys, urllib.request
code, network, password = sys.argv[1:4]
jar = http.cookiejar.CookieJar()
web = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
page = web.open("http://10.42.0.1:8080/", timeout=20).read().decode()
csrf = json.loads(re.search(r'<script id="cfg" type="application/json">(.*?)</script>', page, re.S).group(1))["csrf"]
def post(path, body, timeout=20):
    request = urllib.request.Request("http://10.42.0.1:8080" + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "X-Reveille-CSRF": csrf})
    return json.loads(web.open(request, timeout=timeout).read())
print("paired:", post("/pair", {"code": code}).get("ok"))
print("heard:", [n["name"] for n in post("/api/command", {"wifiScan": {}})["payload"]["wifi"]["networks"]])
try:
    print("join:", post("/api/command", {"wifiJoin": {"network": network, "password": password}}, timeout=60))
except Exception as error:  # the set-up network goes away as the clock joins: expected
    print("join: the set-up network went away:", error)
"""


def setup_network_checks(guest, record, figures):
    """A clock with no network sets itself up from a phone (hardware.md, "Wi-Fi"), on simulated
    radios: with the first set-up pending, the clock opens its own set-up network (wpa_supplicant
    as an access point, networkd's address and DHCP server on it); the voice says its code; a
    "phone" (a third radio in a network namespace of its own, with its own wpa_supplicant) joins
    it with that code, opens the page, pairs with the same code, and asks the clock to join the
    household's WPA2 network; the clock moves there and says its new address. Not in vm-smoke:
    `make vm-test-wifi`."""
    ssid, passphrase = "Household 5G", "correct horse battery"
    guest.check("modprobe mac80211_hwsim radios=3 && for i in $(seq 20); do ip link show wlan2 >/dev/null 2>&1 && break; sleep 0.5; done")
    guest.put("/root/hostapd.conf", HOSTAPD.format(interface="wlan1", channel=1, ssid=ssid, passphrase=passphrase))
    guest.put("/etc/systemd/network/10-bench-access-point.network", ACCESS_POINT_NETWORK.format(interface="wlan1", subnet="192.168.77"))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "image", "setup-network.network")) as f:
        guest.put("/etc/systemd/network/24-setup-network.network", f.read())
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "image", "wpa_supplicant-wlan0.conf")) as f:
        guest.put("/etc/wpa_supplicant/wpa_supplicant-wlan0.conf", f.read())
    guest.put("/etc/systemd/network/25-wireless.network", "[Match]\nName=wlan0\n\n[Network]\nDHCP=yes\n")
    guest.check("chmod 600 /etc/wpa_supplicant/wpa_supplicant-wlan0.conf && hostapd -B -P /run/bench-hostapd.pid /root/hostapd.conf >/dev/null", 60)
    guest.check("systemctl enable -q systemd-networkd && systemctl restart systemd-networkd && systemctl restart wpa_supplicant@wlan0", 60)
    # The phone: the third radio in a namespace of its own.
    guest.check("ip netns add phone && iw phy $(cat /sys/class/net/wlan2/phy80211/name) set netns name phone")
    # The clock, as a flashed one with no screen starts: the set-up pending, the page open to the network.
    guest.check("cp /etc/reveille/reveille.toml /root/reveille.toml.before && "
                "printf '\n[wifi]\nsetup_network = \"always\"\nsetup_network_wait_seconds = 5\n[web]\naddress = \"0.0.0.0\"\n' >> /etc/reveille/reveille.toml && "
                "install -o reveille -g reveille -m 0640 /dev/null /var/lib/reveille/first-setup && "
                "systemctl restart reveille reveille-web", 60)
    began = time.monotonic()
    opened = guest.sh("for i in $(seq 60); do reveille status --json | grep -q '\"setupNetwork\"' && break; sleep 1; done; "
                      "reveille status --json | grep setupNetwork; iw dev wlan0 info | grep -e type -e ssid; "
                      "ip -4 -br addr show wlan0", 120)[1]
    figures["setup_network_open_seconds"] = round(time.monotonic() - began, 1)
    name = re.search(r"Reveille-[0-9A-F]{4}", opened)
    record("setup network: no network, so the clock opens its own, with its address for phones",
           bool(name) and "type AP" in opened and "10.42.0.1" in opened, opened.replace("\n", " / ")[-240:])
    if not name:
        print(guest.sh("journalctl -u reveille -b --no-pager | grep -e 'wifi:' -e 'set-up' | tail -8 | cut -c1-240; "
                       "ls /sys/class/net/wlan0; cat /etc/reveille/reveille.toml | tail -6", 60)[1], flush=True)
        return
    said = guest.sh("journalctl -u reveille -b --no-pager | grep 'To set up this clock' | tail -1")[1]
    digits = re.search(r"with the code ([0-9 ,]+)\.", said)
    code = re.sub(r"[^0-9]", "", digits.group(1)) if digits else ""
    record("setup network: the voice says how to join it and its code", len(code) == 8, said[-200:])
    guest.put("/root/phone.conf", f"ctrl_interface=/run/phone-wpa\nnetwork={{\n\tssid=\"{name.group(0)}\"\n\tpsk=\"{code}\"\n}}\n")
    guest.put("/root/phone_join.py", PHONE_JOIN)
    began = time.monotonic()
    phone = guest.sh("ip netns exec phone sh -c 'ip link set lo up; ip link set wlan2 up; "
                     "wpa_supplicant -B -i wlan2 -c /root/phone.conf -P /run/bench-phone.pid >/dev/null; "
                     "for i in $(seq 30); do iw dev wlan2 link | grep -q SSID && break; sleep 1; done; "
                     "ip addr add 10.42.0.50/24 dev wlan2; iw dev wlan2 link | grep SSID; "
                     f"python3 /root/phone_join.py {code[:4]}-{code[4:]} \"{ssid}\" \"{passphrase}\"' 2>&1", 150)[1]
    record("setup network: a phone joins it with the code, pairs, and sees the networks the clock heard",
           f"SSID: {name.group(0)}" in phone and "paired: True" in phone and ssid in phone, phone.replace("\n", " / ")[-300:])
    moved = guest.sh("for i in $(seq 60); do iw dev wlan0 link | grep -q 'SSID: Household 5G' && "
                     "ip -4 addr show wlan0 | grep -q 'inet 192.168.77.' && break; sleep 1; done; "
                     "iw dev wlan0 link | grep SSID; ip -4 -br addr show wlan0; "
                     "for i in $(seq 20); do journalctl -u reveille -b --no-pager | grep -q 'Joined Household 5G' && break; sleep 1; done; "
                     "journalctl -u reveille -b --no-pager | grep -o 'Joined Household 5G[^\"]*' | tail -1; "
                     "reveille status --json | grep -c setupNetwork; "
                     f"grep -c -e '{passphrase}' -e '{name.group(0)}' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf", 150)[1]
    figures["setup_network_join_seconds"] = round(time.monotonic() - began, 1)
    lines = moved.split("\n")
    record("setup network: the clock moves to the household's network, says its address, closes its own, keeps only the key",
           "SSID: Household 5G" in moved and "192.168.77." in moved and "This clock is at 192 dot 168 dot 77" in moved
           and lines[-2].strip() == "0" and lines[-1].strip() == "0", moved.replace("\n", " / ")[-300:])
    guest.sh("kill $(cat /run/bench-hostapd.pid) $(cat /run/bench-phone.pid) 2>/dev/null; ip netns del phone; "
             "systemctl stop wpa_supplicant@wlan0; rm -f /var/lib/reveille/first-setup "
             "/etc/systemd/network/10-bench-access-point.network /etc/systemd/network/24-setup-network.network "
             "/etc/systemd/network/25-wireless.network; cp /root/reveille.toml.before /etc/reveille/reveille.toml; "
             "systemctl restart reveille reveille-web; rmmod mac80211_hwsim", 90)


SCHOOL_ICS = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//vm//EN\r\nBEGIN:VEVENT\r\nUID:b\r\nSUMMARY:Winter break\r\n"
              "DTSTART;VALUE=DATE:{start}\r\nDTEND;VALUE=DATE:{end}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")


def calendar_checks(guest, record, figures):
    """"Refresh now" on the booted appliance: the daemon only writes its request, systemd's
    reveille-calendar.path starts reveille-calendar.service as reveille-fetch, which fetches the
    web calendar (from a server on the guest's loopback) and the daemon reads it."""
    start = datetime.date.today() + datetime.timedelta(days=10)
    guest.check("mkdir -p /srv/www")
    guest.put("/srv/www/school.ics", SCHOOL_ICS.format(start=start.strftime("%Y%m%d"),
                                                       end=(start + datetime.timedelta(days=2)).strftime("%Y%m%d")))
    guest.check("chmod 0644 /srv/www/school.ics; (setsid python3 -m http.server 8088 --bind 127.0.0.1 --directory /srv/www "
                ">/dev/null 2>&1 &)")
    guest.check("for i in $(seq 50); do python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:8088/school.ics')\" "
                "2>/dev/null && break; sleep 0.2; done")
    guest.check("reveille calendar add school http://127.0.0.1:8088/school.ics --holidays >/dev/null")
    started_at = "systemctl show -P ExecMainStartTimestampMonotonic reveille-calendar.service"
    before = guest.check(started_at).strip()
    started = time.monotonic()
    asked = guest.sh("reveille calendar refresh --background")
    arrived = "grep -q 'calendar school: fetched 2' /tmp/listed && grep -q 'Winter break' /tmp/listed"
    fetched = guest.sh(f"for i in $(seq 120); do reveille calendar list > /tmp/listed; {arrived} && break; sleep 0.5; done; "
                       f"{arrived}", 90)
    figures["calendar_refresh_now_s"] = round(time.monotonic() - started, 1)
    after = guest.check(started_at).strip()
    user = guest.check("systemctl show -P User reveille-calendar.service; systemctl is-enabled reveille-calendar.path")
    listed = guest.sh("cat /tmp/listed")[1]
    record("calendar: Refresh now starts the fetcher through reveille-calendar.path (as reveille-fetch); the holidays arrive",
           asked[0] == 0 and fetched[0] == 0 and after not in ("", "0", before) and user.split() == ["reveille-fetch", "enabled"],
           f"{asked[1].strip()[:100]} / {figures['calendar_refresh_now_s']} s / {user.split()} / {listed.strip()[-160:]}")
    guest.sh("pkill -f 'http.server 8088'; reveille calendar rm school >/dev/null")


def upgrade_checks(guest, record):
    """The running appliance upgraded by apt to a newer build of the package, while an alarm comes
    due: it rings, and the settings, tags and alarms are kept."""
    guest.check("mkdir -p /mnt/hand-in && mount -o ro /dev/vdb /mnt/hand-in")
    before_version = guest.check("dpkg-query -W -f '${Version}' reveille")
    settings_before = guest.check("sha256sum /etc/reveille/reveille.toml | cut -c1-64")
    alarms_before = json.loads(guest.check("reveille alarm list --json"))
    guest.check("reveille alarm add --in 12s --label upgrade --challenge math --fade-in 4 >/dev/null")
    began = time.monotonic()
    result = guest.sh("DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
                      "/mnt/hand-in/reveille-upgrade.deb 2>&1 | tail -3", 300)
    took = time.monotonic() - began
    wait_daemon(guest)
    session = None
    for _ in range(60):
        session = status(guest).get("session")
        if session:
            break
        time.sleep(0.5)
    rung = [entry for entry in history(guest, "upgrade") if entry.get("label") == "upgrade"]
    dismiss(guest)
    after_version = guest.check("dpkg-query -W -f '${Version}' reveille")
    settings_after = guest.check("sha256sum /etc/reveille/reveille.toml | cut -c1-64")
    alarms_after = json.loads(guest.check("reveille alarm list --json"))
    tags = guest.check("reveille tag list")
    kept = (settings_before == settings_after and TAG_UID in tags.lower().replace(":", "")
            and {a["id"] for a in alarms_before} <= {a["id"] for a in alarms_after})
    record("upgrade: apt upgrades the running appliance; the alarm due meanwhile rings; settings, tags, alarms kept",
           after_version != before_version and (session is not None or bool(rung)) and kept,
           f"{before_version} -> {after_version} in {took:.0f} s; rang: {bool(session or rung)}; kept: {kept}; "
           f"apt: {result[1][-160:]}")
    guest.check("umount /mnt/hand-in")


def power_cut_checks(guest, record, figures, cuts, only_ringing=False):
    """Mid-ring (rings again, count kept), after a dismissal (does not ring again), at random
    instants, counted. `only_ringing`: every cut mid-ring."""
    survived, tried = 0, 0
    for cut in range(cuts):
        tried += 1
        try:
            snooze = cut % 2 == 0 and not only_ringing
            ring_in(guest, 2, f"cut{cut}")
            wait_ringing(guest)
            if snooze:
                guest.check("reveille snooze >/dev/null")
                expected = "snoozed"
            elif cut % 3 == 1 and not only_ringing:
                dismiss(guest)
                expected = None
            else:
                expected = "ringing"
            time.sleep(random.uniform(0, 1.5))
            before = status(guest)
            guest.power_cut()
            guest.wait_for_shell()
            wait_daemon(guest)
            after = status(guest)
            session = after.get("session")
            if expected is None:
                good = session is None
            else:
                good = (session is not None and session["alarmID"] == before["session"]["alarmID"]
                        and session["snoozeCount"] == before["session"]["snoozeCount"]
                        and session["state"] in (("snoozed", "ringing") if snooze else ("ringing",)))
            restored = any("restored" in p for p in after.get("stateProblems") or [])
            kind = "snoozed" if snooze else "dismissed" if expected is None else "ringing"
            if good and not restored:
                survived += 1
                print(f"     cut {cut} ({kind}): survived", flush=True)
            else:
                print(f"     cut {cut}: before {before.get('session')}, after {session}, problems "
                      f"{after.get('stateProblems')}", flush=True)
            dismiss(guest)
        except Exception as error:  # a cut that broke the bench still counts as not survived
            print(f"     cut {cut}: {error}", flush=True)
            try:
                guest.wait_for_shell(60)
            except Exception:
                pass
    figures["power_cuts"] = f"{survived} of {tried}"
    record(f"power cuts: {survived} of {tried} survived (mid-ring rings again with its count, "
           "a dismissed alarm does not ring again, no restore)", survived == tried and tried > 0)


def missed_labels(guest, prefix):
    entries = history(guest, prefix)
    return ({e["label"] for e in entries if e.get("state") == "missed"},
            {e["label"] for e in entries if e.get("state") != "missed"})


# What systemd-timesyncd does once it has set the clock (it is masked in the image).
SYNCED = "mkdir -p /run/systemd/timesync && touch /run/systemd/timesync/synchronized"


def rtc_checks(guest, record, figures):
    """No real-time clock: off, then booted with the clock a day behind; stepped forward as
    timesyncd would; then booted a day ahead and stepped back."""
    now = int(float(guest.check("date +%s")))
    # Three one-shots a few minutes on; the machine is off while they pass.
    for minutes, label in ((3, "rtc-a"), (4, "rtc-b"), (5, "rtc-c")):
        hhmm = guest.check(f"date -d @{(now // 60 + minutes) * 60} +%H:%M")
        guest.check(f"reveille alarm add {hhmm} --label {label} --challenge math >/dev/null")
    guest.check("sync")
    guest.stop()
    guest.boot(rtc=now - 86_400)
    guest.wait_for_shell()
    wait_daemon(guest)
    behind = status(guest)
    # Network time arrives: the clock is stepped to 20 minutes after the first one-shot passed
    # (all three are beyond the 15 minutes' grace), then timesyncd says it is synchronized.
    stepped_to = (now // 60 + 3) * 60 + 20 * 60
    guest.check(f"date -s @{stepped_to} >/dev/null && {SYNCED}")
    time.sleep(4)
    after = status(guest)
    missed, other = missed_labels(guest, "rtc-")
    record("no RTC: booted a day behind, nothing rings and status says why; stepped forward, the passed "
           "alarms are recorded missed, none rings",
           behind.get("clockWaiting") is not None and behind.get("session") is None
           and after.get("session") is None and missed == {"rtc-a", "rtc-b", "rtc-c"} and not other,
           f"behind: '{behind.get('clockWaiting')}'; after the step: session {after.get('session')}, "
           f"missed {sorted(missed)}, other {sorted(other)}")
    # The other way: booted a day ahead (a wrong RTC), then stepped back by network time. An alarm
    # due after the correction rings at its time, once.
    now = int(float(guest.check("date +%s")))
    due = (now // 60 + 4) * 60
    guest.check(f"reveille alarm add {guest.check(f'date -d @{due} +%H:%M')} --days daily --label rtc-daily "
                "--challenge math >/dev/null; sync")
    guest.stop()
    guest.boot(rtc=now + 86_400)
    guest.wait_for_shell()
    wait_daemon(guest)
    guest.check("rm -f /run/systemd/timesync/synchronized")
    corrected = int(float(guest.check("date +%s"))) - 86_400
    guest.check(f"date -s @{corrected} >/dev/null && {SYNCED}")
    rang = None
    deadline = time.monotonic() + max(0, due - corrected) + 60
    while time.monotonic() < deadline:
        session = status(guest).get("session")
        if session and session.get("label") == "rtc-daily":
            rang = float(guest.check("date +%s"))
            break
        time.sleep(1)
    dismiss(guest)
    daily = [e for e in history(guest, "rtc-daily") if e["label"] == "rtc-daily"]
    record("no RTC: booted a day ahead, then stepped back, the daily alarm rings at its real time, once",
           rang is not None and abs(rang - due) < 30 and len([e for e in daily if e.get("state") != "missed"]) == 1,
           f"due {time.strftime('%H:%M', time.gmtime(due))}, rang {'at +%.0f s' % (rang - due) if rang else 'no'}; "
           f"history {[(e['scheduled'], e['state']) for e in daily]}")


def make_hand_in(work, deb):
    """A small disk with a newer build of the package: the same package with its version raised."""
    tree = os.path.join(work, "deb-tree")
    subprocess.run(["dpkg-deb", "-R", deb, tree], check=True)
    control = os.path.join(tree, "DEBIAN", "control")
    text = open(control).read()
    version = re.search(r"^Version: (.*)$", text, re.M).group(1)
    open(control, "w").write(text.replace(f"Version: {version}", f"Version: {version}+vm1"))
    hand_in = os.path.join(work, "hand-in")
    os.makedirs(hand_in)
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "-b", tree,
                    os.path.join(hand_in, "reveille-upgrade.deb")], check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(tree)
    disk = os.path.join(work, "hand-in.raw")
    subprocess.run(["mkfs.ext4", "-q", "-F", "-d", hand_in, disk, "64M"], check=True)
    return disk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("image")
    parser.add_argument("--deb", required=True, help="the package the image holds (its upgrade is made from it)")
    parser.add_argument("--emulator", required=True, help="the pn532-emulator program")
    parser.add_argument("--cuts", type=int, default=int(os.environ.get("VM_CUTS", "10")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("VM_SEED", str(int(time.time())))))
    parser.add_argument("--accel", default=os.environ.get("VM_ACCEL", "tcg"))
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--only", help="run these checks only (comma-separated: boot,sound,keys,nfc,apps,"
                        "calendar,upgrade,power cuts,rtc,kiosk,wifi,wifi join,setup network), for working on one")
    parser.add_argument("--screens", default=".build/vm-screens", help="where the screen captures go")
    parser.add_argument("--arch", choices=["amd64", "arm64"], default="amd64",
                        help="arm64: a Pi's processor (qemu virt, cortex-a72), the named subset")
    options = parser.parse_args()
    random.seed(options.seed)
    work = tempfile.mkdtemp(prefix="reveille-vm-")
    results, figures = [], {"seed": options.seed, "accel": options.accel, "arch": options.arch}

    def record(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)

    emulator = Emulator(os.path.abspath(options.emulator), os.path.join(work, "nfc-link"))
    full = options.arch == "amd64"
    guest = Guest(os.path.abspath(options.image), work, options.accel, nfc_link=os.path.join(work, "nfc-link"),
                  extra_disk=make_hand_in(work, os.path.abspath(options.deb)) if full else None, arch=options.arch)
    began = time.monotonic()
    checks = [
        ("boot", lambda: boot_checks(guest, record, figures)),
        ("settings", lambda: (guest.put("/etc/reveille/reveille.toml", SETTINGS),
                              guest.check("systemctl restart reveille"), wait_daemon(guest))),
        ("sound", lambda: sound_checks(guest, record, figures)),
        ("keys", lambda: key_checks(guest, record)),
        ("nfc", lambda: nfc_checks(guest, emulator, record, figures)),
    ]
    if full:
        checks += [("kiosk", lambda: kiosk_checks(guest, record, figures, options.screens))]
    if full:
        checks += [
            ("wifi", lambda: wifi_checks(guest, record, figures)),
            ("wifi join", lambda: wifi_join_checks(guest, record, figures)),
            ("setup network", lambda: setup_network_checks(guest, record, figures)),
            ("apps", lambda: app_checks(guest, record)),
            ("calendar", lambda: calendar_checks(guest, record, figures)),
            ("upgrade", lambda: upgrade_checks(guest, record)),
            ("power cuts", lambda: power_cut_checks(guest, record, figures, options.cuts)),
            ("rtc", lambda: rtc_checks(guest, record, figures)),
        ]
    else:  # the arm64 subset: one power cut mid-ring
        checks += [("power cuts", lambda: power_cut_checks(guest, record, figures, 1, only_ringing=True))]
    if options.only:
        wanted = {"boot", "settings"} | set(options.only.split(","))
        checks = [(name, check) for name, check in checks if name in wanted]
    try:
        for name, check in checks:
            try:
                check()
            except Exception as error:
                record(f"{name}: the checks ran to their end", False, f"{error}")
                try:
                    guest.sh("true", 10)
                except Exception:
                    guest.wait_for_shell(120)
                print(guest.sh("journalctl -u reveille --no-pager -n 30 | cut -c1-240", 60)[1], flush=True)
    finally:
        guest.close()
        emulator.close()
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
