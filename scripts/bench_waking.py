#!/usr/bin/env python3
"""Waking up, enforced (BENCHMARKS.md, "Waking up, enforced"): how fast the release daemon acts on
its own clock. Each figure is read from the daemon's log (its own millisecond timestamps):

- a device that stops: the alarm rings into ALSA's file plugin writing to a FIFO whose reader
  stops after one second (the write blocks for good); from the last write that went through to
  the first frame on the backup device;
- the wake-up check: the daemon's clock is stepped a second past its instant (the test clock's
  offset file); from the daemon noticing the step to the prompt's first frame;
- escalation: the same, to the sound rising.

    scripts/bench_waking.py [BINARIES]    (default: .build/release; `make bench` runs it)
    RUNS=5 by default.
"""
import datetime, json, os, re, shutil, socket, subprocess, sys, tempfile, threading, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from benchlib import request, wait_for  # noqa: E402

BINARIES = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, ".build", "release")
RUNS = int(os.environ.get("RUNS", "5"))


def stamp(line):
    """The log line's time, in seconds (the daemon's clock, which the offset file moves)."""
    return datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f").timestamp()


class Daemon:
    def __init__(self, audio):
        self.root = tempfile.mkdtemp(prefix="reveille-bench-waking.")
        os.makedirs(os.path.join(self.root, "etc/reveille"))
        with open(os.path.join(self.root, "etc/reveille/reveille.toml"), "w") as f:
            f.write(audio + "[voice]\nenabled = false\n")
        self.clock = os.path.join(self.root, "clock-offset")
        self.offset = 0.0
        self.advance(0)
        self.out = open(os.path.join(self.root, "reveilled.out"), "w")
        self.process = subprocess.Popen(
            [os.path.join(BINARIES, "reveilled"), "--root", self.root, "--clock-offset-file", self.clock],
            stdout=self.out, stderr=self.out)
        self.sock = os.path.join(self.root, "run/reveille/control.sock")
        wait_for(lambda: os.path.exists(self.sock), 15)
        time.sleep(0.2)

    def advance(self, seconds):
        self.offset += seconds
        with open(self.clock + ".new", "w") as f:
            f.write(f"{self.offset} {self.offset}")
        os.rename(self.clock + ".new", self.clock)

    def log(self):
        with open(os.path.join(self.root, "reveilled.out")) as f:
            return f.read().splitlines()

    def line(self, text):
        return next((l for l in self.log() if text in l), None)

    def ring(self, **spec):
        reply = request(self.sock, {"alarmAdd": {"spec": {"inSeconds": 1, "fadeInSeconds": 0, **spec}}})
        assert reply["ok"], reply
        wait_for(lambda: (request(self.sock, {"status": {}})["payload"]["status"].get("session") or {}).get("state") == "ringing")

    def dismiss(self):
        problem = request(self.sock, {"problem": {}})["payload"]["ring"]["problem"]
        a = [int(x) for x in re.findall(r"\d+", problem)]
        value = a[0] + a[1] if "×" not in problem else (a[0] * a[1] + a[2] if len(a) == 3 else a[0] * a[1] + a[2] * a[3])
        assert request(self.sock, {"answer": {"value": value}})["payload"]["ring"]["correct"]

    def close(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


def noticed(daemon):
    """When the daemon last saw its clock step: the log's "the clock jumped" line."""
    return stamp([l for l in daemon.log() if "the clock jumped by" in l][-1])


def stalled_device():
    folder = tempfile.mkdtemp(prefix="reveille-bench-stall.")
    fifo, backup = os.path.join(folder, "card"), os.path.join(folder, "backup.wav")
    os.mkfifo(fifo)
    last = {}

    def reader():
        fd = os.open(fifo, os.O_RDONLY)
        got = 0
        while got < 96000:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            got += len(chunk)
        last["fd"] = fd
        last["at"] = time.time()  # the last read: the pipe's 64 KiB fill, then the writer blocks
    threading.Thread(target=reader, daemon=True).start()
    daemon = Daemon(f"[audio]\ndevices = [\"file:'{fifo}',raw\"]\nbackup_devices = [\"file:'{backup}',wav\"]\n")
    try:
        daemon.ring()
        wait_for(lambda: daemon.line(f"first frame on file:'{backup}'"), 20)
        stuck = daemon.line("is stuck in a call that does not return")
        first = daemon.line(f"first frame on file:'{backup}'")
        daemon.dismiss()
        return stamp(first) - last["at"], stamp(stuck) - last["at"]
    finally:
        daemon.close()
        if "fd" in last:
            os.close(last["fd"])
        shutil.rmtree(folder, ignore_errors=True)


def wake_check_and_escalation():
    folder = tempfile.mkdtemp(prefix="reveille-bench-wake.")
    daemon = Daemon(f"[audio]\ndevices = [\"file:'{folder}/sound.wav',wav\"]\n")
    try:
        # The daemon's clock is stepped past each instant (as time sync would): the figure is from
        # the daemon noticing the step (its "the clock jumped" line) to what it did.
        daemon.ring(wakeCheckSeconds=60)
        daemon.dismiss()
        wait_for(lambda: daemon.line("sound: stopped"))
        count = len([l for l in daemon.log() if "first frame on" in l])
        daemon.advance(61)
        wait_for(lambda: len([l for l in daemon.log() if "first frame on" in l]) > count)
        check = stamp([l for l in daemon.log() if "first frame on" in l][-1]) - noticed(daemon)
        request(daemon.sock, {"awake": {}})
        daemon.ring(escalateAfterSeconds=60)
        daemon.advance(61)
        wait_for(lambda: daemon.line("rising to full volume"))
        rise = stamp(daemon.line("rising to full volume")) - noticed(daemon)
        daemon.dismiss()
        return check, rise
    finally:
        daemon.close()
        shutil.rmtree(folder, ignore_errors=True)


def main():
    stalls, found, checks, rises = [], [], [], []
    for _ in range(RUNS):
        to_backup, to_found = stalled_device()
        stalls.append(to_backup)
        found.append(to_found)
        check, rise = wake_check_and_escalation()
        checks.append(check)
        rises.append(rise)
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"waking: {RUNS} runs of each (release daemon, its own log's timestamps)")
    print(f"  reader stops -> writer found stuck: median {med(found):.2f} s, max {max(found):.2f} s")
    print(f"  reader stops -> first frame on the backup: median {med(stalls):.2f} s, max {max(stalls):.2f} s")
    print(f"  wake-up check noticed -> prompt's first frame: median {med(checks) * 1000:.1f} ms, max {max(checks) * 1000:.1f} ms")
    print(f"  escalation noticed -> sound rising: median {med(rises) * 1000:.1f} ms, max {max(rises) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
