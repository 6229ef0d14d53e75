#!/usr/bin/env python3
"""The appliance, booted (README, "The appliance, booted"): the image of scripts/vm/image.sh booted
in qemu on a fresh overlay, driven from the host through its serial console (a root shell) and
qemu's monitor (power cuts). Nothing in the guest is a stand-in: systemd starts the package's units
at boot, the ring plays on the kernel's snd-aloop card and is captured on its other side.

    scripts/vm/bench.py IMAGEDIR [--cuts N] [--seed S] [--json FILE]

Prints one line per check and a closing 'N passed, N failed'; exits 1 if any failed. Every run
starts from a new overlay under a temporary folder, which is removed at the end.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time


class Guest:
    """One qemu machine: its serial console is a root shell, its monitor takes `system_reset`."""

    def __init__(self, image_dir, work, accel):
        self.work = work
        self.overlay = os.path.join(work, "overlay.qcow2")
        subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
             os.path.join(image_dir, "root.raw"), self.overlay], check=True)
        self.console_path = os.path.join(work, "console.sock")
        self.monitor_path = os.path.join(work, "monitor.sock")
        self.log = open(os.path.join(work, "console.log"), "wb")
        command = [
            "qemu-system-x86_64", "-machine", "q35", "-accel", accel, "-m", "1024", "-smp", "2",
            "-nographic", "-nic", "none",
            "-kernel", os.path.join(image_dir, "vmlinuz"), "-initrd", os.path.join(image_dir, "initrd.img"),
            "-append", "root=/dev/vda rw console=ttyS0,115200 quiet loglevel=3 mitigations=off "
                       "systemd.show_status=0 fsck.mode=skip",
            "-drive", f"file={self.overlay},if=virtio,format=qcow2,cache=writeback",
            "-chardev", f"socket,id=console,path={self.console_path},server=on,wait=off",
            "-serial", "chardev:console",
            "-monitor", f"unix:{self.monitor_path},server=on,wait=off",
        ]
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
                self._read_until(rb"root@reveille-vm[^\n]*# ", 3)
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
        if self.qemu.poll() is None:
            try:
                monitor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                monitor.connect(self.monitor_path)
                monitor.sendall(b"quit\n")
                monitor.close()
                self.qemu.wait(timeout=10)
            except Exception:
                self.qemu.kill()
                self.qemu.wait()
        self.log.close()


# What runs inside: the RMS of a captured WAV in windows of 0.25 s (python3 in the guest).
RMS = r'''
import sys, wave, struct, math
w = wave.open(sys.argv[1]); n = w.getnframes(); c = w.getnchannels(); r = w.getframerate()
data = struct.unpack("<%dh" % (n * c), w.readframes(n)); step = r // 4 * c
print(" ".join("%.0f" % math.sqrt(sum(x * x for x in data[i:i + step]) / max(1, len(data[i:i + step])))
               for i in range(0, len(data), step)))
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("image")
    parser.add_argument("--cuts", type=int, default=int(os.environ.get("VM_CUTS", "10")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("VM_SEED", str(int(time.time())))))
    parser.add_argument("--accel", default=os.environ.get("VM_ACCEL", "tcg"))
    parser.add_argument("--json", help="write the figures here")
    options = parser.parse_args()
    random.seed(options.seed)
    work = tempfile.mkdtemp(prefix="reveille-vm-")
    results, figures = [], {"seed": options.seed, "accel": options.accel}

    def record(name, ok, detail=""):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)

    guest = Guest(os.path.abspath(options.image), work, options.accel)
    try:
        # Boot: systemd starts the package's unit, which says READY.
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
        # The page: reveille-web, started by its own unit, serves it on loopback.
        page = guest.sh(
            "for i in $(seq 60); do python3 -c \"import urllib.request as u; "
            "print(u.urlopen('http://127.0.0.1:8080/', timeout=5).status)\" 2>/dev/null && break; sleep 1; done", 120)
        record("boot: reveille-web serves the page (its unit, on 127.0.0.1:8080)", page[1].endswith("200"), page[1][-200:])
        doctor_status, doctor = guest.sh("reveille doctor --no-tone", 120)
        failures = [line for line in doctor.splitlines() if line.startswith("FAIL")]
        record("boot: 'reveille doctor' finds nothing failing", not failures, "; ".join(failures) or f"exit {doctor_status}")
        modules = guest.check("lsmod | grep -E '^(snd_aloop|uinput) ' | cut -d' ' -f1 | sort | tr '\\n' ' '")
        record("kernel: snd-aloop and uinput loaded", modules.split() == ["snd_aloop", "uinput"], modules)

        # Sound: a ring on the loopback card, captured on its other side.
        guest.put("/etc/reveille/reveille.toml", SETTINGS)
        guest.check("systemctl restart reveille && sleep 1 && systemctl is-active reveille")
        capture_seconds = 25
        guest.check(f"rm -f /tmp/cap.wav; (arecord -q -D plughw:Loopback,1,0 -f S16_LE -r 48000 -c 2 "
                    f"-d {capture_seconds} /tmp/cap.wav &) ; sleep 0.5")
        captured_from = time.monotonic()
        ring_in(guest, 2, "sound")
        wait_ringing(guest)
        time.sleep(5)
        dismiss(guest)
        dismissed_at = time.monotonic() - captured_from
        time.sleep(max(0, capture_seconds + 1 - (time.monotonic() - captured_from)))
        guest.put("/tmp/rms.py", RMS)
        levels = [int(x) for x in guest.check("python3 /tmp/rms.py /tmp/cap.wav", 300).split()]
        loud = [i for i, level in enumerate(levels) if level > 100]
        # The tone beeps (gaps of silence between beeps): after the dismissal, 3 s with no beep.
        after = levels[int((dismissed_at + 1) * 4):]
        ok = bool(loud) and len(after) >= 12 and max(after) < 30
        rising = bool(loud) and levels[loud[0]] < max(levels[loud[0]:loud[0] + 16])
        record("sound: the ring is heard on snd-aloop, rises with its fade-in, stops at dismissal",
               ok and rising, f"RMS per 0.25 s: {levels}; dismissed at {dismissed_at:.1f} s")
        figures["ring_rms_peak"] = max(levels) if levels else 0

        # Keys: a uinput keypad hot-plugged while the alarm rings snoozes it; another types the
        # answer; one unplugged mid-ring leaves the alarm ringing.
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
        guest.check("reveille alarm list --json >/dev/null")
        guest.check(f"kill -0 $(systemctl show -p MainPID --value reveille)")
        # The snooze ends (9 min): the test's clock is the guest's; dismiss it by keys when it rings again.
        dismiss(guest)
        ring_in(guest, 2, "answer")
        wait_ringing(guest)
        typed = guest.sh("python3 /tmp/keypad.py answer", 90)
        after = status(guest).get("session")
        history = json.loads(guest.check("reveille history --json"))
        last = next((entry for entry in history if entry.get("label") == "answer"), {})
        record("keys: the answer typed on a hot-plugged keypad dismisses",
               after is None and last.get("dismissedBy") == "math", f"{typed[1][-200:]}; history {last.get('state')}")

        # Power cuts: mid-ring (rings again, count kept), after a dismissal (does not ring again).
        survived, tried = 0, 0
        for cut in range(options.cuts):
            tried += 1
            try:
                snooze = cut % 2 == 0
                ring_in(guest, 2, f"cut{cut}")
                wait_ringing(guest)
                if snooze:
                    guest.check("reveille snooze >/dev/null")
                    expected = "snoozed"
                elif cut % 3 == 1:
                    dismiss(guest)
                    expected = None
                else:
                    expected = "ringing"
                time.sleep(random.uniform(0, 1.5))
                before = status(guest)
                guest.power_cut()
                guest.wait_for_shell()
                guest.check("for i in $(seq 120); do reveille status >/dev/null 2>&1 && break; sleep 0.5; done; "
                            "reveille status >/dev/null")
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
    except Exception as error:
        record("the bench ran to its end", False, f"{error}")
    finally:
        guest.stop()
        shutil.rmtree(work, ignore_errors=True)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(figures, f, indent=1)
    print("figures:", json.dumps(figures))
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
