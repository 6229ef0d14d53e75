#!/usr/bin/env python3
"""NFC benchmarks of BENCHMARKS.md (issue 5), on the emulated PN532 (no reader here).

tag: tag placed on the reader -> audio stopped, for a ringing alarm that takes the tag. Placed:
     the moment the emulator is told to present the tag. Dismissed: the moment the daemon's `watch`
     stream says the session was dismissed; the daemon has asked the audio output to stop by then, and
     logs how long the drop took after that request: the sum is an upper bound of placed -> stopped.
     In the same run, on the same emulator, libnfc's own `nfc-poll` detecting the same tag.
idle: a daemon with the reader attached and nothing ringing: CPU and wake-ups over a while.
"""
import os, random, re, select, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
from bench_ring import (BIN, Watch, daemon_status, idle_lines, idle_window, percentile, request,  # noqa: E402
                        start_daemon, threads)

UID = "04A1B2C3D4E5F6"


class Emulator:
    def __init__(self, link):
        self.proc = subprocess.Popen([os.path.join(BIN, "pn532-emulator"), link], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.proc.stdout.readline().startswith("ready")

    def say(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "ok"

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def nfc_poll(emulator, link, count):
    times = []
    for _ in range(count):
        proc = subprocess.Popen(["stdbuf", "-oL", "nfc-poll"], env={**os.environ, "LIBNFC_DEVICE": f"pn532_uart:{link}"},
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        for line in proc.stdout:
            if "will poll during" in line:
                break
        time.sleep(0.2 + random.uniform(0, 0.01))  # a tap lands anywhere in the chip's poll cycle
        start = time.monotonic()
        emulator.say(f"present {UID}")
        for line in proc.stdout:
            if "UID (NFCID1)" in line:
                times.append((time.monotonic() - start) * 1000)
                break
        emulator.say("remove")
        proc.kill()
        proc.wait()
    return times


def reader_settings(link):
    return f'[nfc]\ndevice = "pn532_uart:{link}"\n'


def daemon_tag(root, link, emulator, count):
    proc, sock = start_daemon(root, "--time-zone", "UTC", settings=reader_settings(link))
    dismissed = []
    try:
        assert request(sock, {"tagAdd": {"label": "bathroom", "uid": UID, "timeoutSeconds": 5}})["ok"]
        for _ in range(count):
            spec = {"inSeconds": 1, "challenge": "nfc", "fadeInSeconds": 0}
            assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
            while not daemon_status(sock).get("session"):
                time.sleep(0.05)
            time.sleep(0.3 + random.uniform(0, 0.01))  # as for nfc-poll: anywhere in a poll cycle
            with Watch(sock) as watch:
                start = time.monotonic()
                emulator.say(f"present {UID}")
                watch.until(lambda event: event.get("session", {}).get("state") == "dismissed")
                dismissed.append((time.monotonic() - start) * 1000)
            emulator.say("remove")
            time.sleep(0.3)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    text = open(os.path.join(root, "reveilled.out")).read()
    stops = [float(m) for m in re.findall(r"sound: stopped on .*?, ([0-9.]+) ms after the request", text)]
    by_tag = text.count("dismissed by tag")
    return dismissed, stops, by_tag


def ringing_cpu(root, link, seconds):
    """The daemon's CPU while an NFC alarm rings unanswered and the reader polls for the tap. In a
    state folder of its own: the ring is left unanswered, and a daemon started later on the same
    state would (rightly) ring it again."""
    root = os.path.join(root, "ringing")
    proc, sock = start_daemon(root, "--time-zone", "UTC", settings=reader_settings(link))
    try:
        spec = {"inSeconds": 1, "challenge": "nfc", "fadeInSeconds": 0}
        assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
        while not daemon_status(sock).get("session"):
            time.sleep(0.05)
        time.sleep(1)
        before = threads(proc.pid)
        time.sleep(seconds)
        after = threads(proc.pid)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    cpu = sum(after[t][0] - before.get(t, (0, 0, 0))[0] for t in after) / 1e9
    print(f"   ringing {seconds} s with the reader polling for a tap: CPU {cpu / seconds * 100:.1f} % of one core "
          f"(sound and reader together)")


def idle(root, link, seconds):
    proc, sock = start_daemon(root, settings=reader_settings(link))
    try:
        time.sleep(3)  # the reader has opened
        health = daemon_status(sock)["reader"]
        time.sleep(3)  # that request's connection thread has ended
        window = idle_window(proc, sock, seconds)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    if not window:
        return
    print(f"   reader: {health['condition']} ({health['detail']})")
    print("\n".join(idle_lines(window, seconds, "the reader attached")))


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    count = int(os.environ.get("TAGS", "30"))
    root = tempfile.mkdtemp(prefix="reveille-nfc.")
    link = os.path.join(root, "nfc-reader")
    emulator = Emulator(link)
    try:
        if what in ("tag", "all"):
            print("== tag placed -> alarm stopped, on the emulated PN532")
            polls = nfc_poll(emulator, link, count)
            print(f"   nfc-poll (libnfc's example, InAutoPoll): tag placed -> UID printed, {len(polls)} taps: "
                  f"p50 {percentile(polls, 50):.1f} ms, p95 {percentile(polls, 95):.1f} ms, max {max(polls):.1f} ms")
            dismissed, stops, by_tag = daemon_tag(root, link, emulator, count)
            total = [d + s for d, s in zip(dismissed, stops)]
            print(f"   reveilled: tag placed -> session dismissed, {len(dismissed)} rings ({by_tag} by tag): "
                  f"p50 {percentile(dismissed, 50):.1f} ms, p95 {percentile(dismissed, 95):.1f} ms, max {max(dismissed):.1f} ms")
            print(f"   reveilled: dismissal -> PCM dropped: p50 {percentile(stops, 50):.1f} ms, "
                  f"p95 {percentile(stops, 95):.1f} ms")
            print(f"   reveilled: tag placed -> audio stopped (sum, an upper bound): p50 {percentile(total, 50):.1f} ms, "
                  f"p95 {percentile(total, 95):.1f} ms, max {max(total):.1f} ms")
            print(f"   median tag -> audio stopped over nfc-poll's median: "
                  f"{percentile(total, 50) / percentile(polls, 50):.2f}x (target: at most 1.5x, and p95 at most 100 ms)")
        if what in ("ringing", "all"):
            print("== ringing, the reader polling")
            ringing_cpu(root, link, int(os.environ.get("RINGING_SECONDS", "10")))
        if what in ("idle", "all"):
            print("== idle daemon with the reader attached")
            idle(root, link, int(os.environ.get("IDLE_SECONDS", "120")))
    finally:
        emulator.close()
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
