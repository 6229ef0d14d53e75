#!/usr/bin/env python3
"""Bedside controls benchmarks of BENCHMARKS.md (issue 15). No keypad here: a FIFO given as the
device path is fed the kernel's `struct input_event` records, as the tests do.

snooze: key pressed (the press and release written) -> the watch stream says snoozed; the daemon
        logs how long the sound took to drop after that.
enter:  enter written after the right digits -> the watch stream says dismissed; same log.
voice:  answering begins -> the first frame of the spoken problem written to ALSA, from the
        daemon's log (it stamps the sentence when the key asks for it, and the frame when it is
        mixed), with how much sound was already queued ahead of that frame.
idle:   a daemon with the keypad attached and nothing ringing: CPU, wake-ups, RSS; then RSS once
        the voice has spoken (espeak-ng's data is loaded at the first sentence).
"""
import os, re, shutil, signal, struct, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
from bench_ring import (Watch, current_problem, daemon_status, idle_lines, idle_window, percentile,  # noqa: E402
                        request, send_answer, solve, start_daemon)

KEY = {"space": 57, "enter": 96, "asterisk": 55,
       **{str(d): c for d, c in zip("0123456789", (82, 79, 80, 81, 75, 76, 77, 71, 72, 73))}}


def event(code, value):
    """struct input_event: a zero time (two longs), EV_KEY, the code, the value; then EV_SYN."""
    return struct.pack("llHHi", 0, 0, 1, code, value) + struct.pack("llHHi", 0, 0, 0, 0, 0)


def tap(writer, name):
    os.write(writer, event(KEY[name], 1) + event(KEY[name], 0))


def keypad_daemon(root):
    os.makedirs(root, exist_ok=True)
    keypad = os.path.join(root, "keypad")
    os.mkfifo(keypad)
    proc, sock = start_daemon(root, "--time-zone", "UTC", settings=f'[input]\ndevices = ["{keypad}"]\n')
    for _ in range(100):
        try:
            return proc, sock, os.open(keypad, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the daemon did not open the keypad")


def ring(sock):
    spec = {"inSeconds": 1, "fadeInSeconds": 0, "maxSnoozes": 0}
    assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
    while not daemon_status(sock).get("session"):
        time.sleep(0.05)
    time.sleep(0.3)


def keys(root, count):
    proc, sock, writer = keypad_daemon(root)
    snoozed, dismissed = [], []
    try:
        for _ in range(count):
            ring(sock)
            with Watch(sock) as watch:
                start = time.monotonic()
                tap(writer, "space")
                watch.until(lambda e: e.get("session", {}).get("state") == "snoozed")
                snoozed.append((time.monotonic() - start) * 1000)
            send_answer(sock, solve(current_problem(sock)))  # ends the session while snoozed
            time.sleep(0.2)

            ring(sock)
            tap(writer, "asterisk")  # answering begins: the problem is asked for and said
            time.sleep(0.5)
            for digit in str(solve(current_problem(sock))):
                tap(writer, digit)
            time.sleep(0.2)
            with Watch(sock) as watch:
                start = time.monotonic()
                tap(writer, "enter")
                watch.until(lambda e: e.get("session", {}).get("state") == "dismissed")
                dismissed.append((time.monotonic() - start) * 1000)
            time.sleep(0.3)
    finally:
        os.close(writer)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    text = open(os.path.join(root, "reveilled.out")).read()
    stops = [float(m) for m in re.findall(r"sound: stopped on .*?, ([0-9.]+) ms after the request", text)]
    spoken = [(float(a), float(b)) for a, b in
              re.findall(r"voice: first frame of \"[^\"]*\" written ([0-9.]+) ms after it was asked, ([0-9]+) ms", text)]
    return snoozed, dismissed, stops, spoken


def idle(root, seconds):
    proc, sock, writer = keypad_daemon(root)
    try:
        time.sleep(3)
        inputs = daemon_status(sock)["inputs"]
        time.sleep(2)
        window = idle_window(proc, sock, seconds)
        tap(writer, "space")  # nothing rings: the voice says the time and the next ring
        time.sleep(3)
        spoken = daemon_status(sock)["resources"]
    finally:
        os.close(writer)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    if not window:
        return
    print(f"   buttons: {', '.join(i['condition'] + ' ' + i['path'] for i in inputs)}")
    print("\n".join(idle_lines(window, seconds, "the keypad attached")))
    print(f"   after the voice has spoken once: RSS {spoken['rssKilobytes'] / 1024:.1f} MB "
          f"({spoken['anonymousKilobytes'] / 1024:.1f} MB anonymous)")


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    root = tempfile.mkdtemp(prefix="reveille-input.")
    try:
        if what in ("keys", "all"):
            count = int(os.environ.get("PRESSES", "30"))
            print("== key pressed -> alarm snoozed or dismissed, keypad on a FIFO")
            snoozed, dismissed, stops, spoken = keys(os.path.join(root, "keys"), count)
            snooze_stops, dismiss_stops = stops[0::2], stops[1::2]
            print(f"   snooze key -> snoozed, {len(snoozed)} presses: p50 {percentile(snoozed, 50):.1f} ms, "
                  f"p95 {percentile(snoozed, 95):.1f} ms; then PCM dropped: p95 {percentile(snooze_stops, 95):.1f} ms")
            total = [a + b for a, b in zip(snoozed, snooze_stops)]
            print(f"   snooze key -> sound stopped (sum, an upper bound): p50 {percentile(total, 50):.1f} ms, "
                  f"p95 {percentile(total, 95):.1f} ms (target: p95 at most 20 ms)")
            total = [a + b for a, b in zip(dismissed, dismiss_stops)]
            print(f"   enter on the right answer -> sound stopped (sum): p50 {percentile(total, 50):.1f} ms, "
                  f"p95 {percentile(total, 95):.1f} ms (target: p95 at most 50 ms)")
            asked = [a for a, _ in spoken]
            heard = [a + b for a, b in spoken]
            print(f"   answering begins -> first spoken frame written, {len(spoken)} problems: "
                  f"p50 {percentile(asked, 50):.1f} ms, p95 {percentile(asked, 95):.1f} ms (target: at most 300 ms)")
            print(f"   ... plus the sound already queued ahead of it (the file plugin is paced 0.3 s ahead; a card's "
                  f"buffer holds 0.1 s): p50 {percentile(heard, 50):.1f} ms, p95 {percentile(heard, 95):.1f} ms")
        if what in ("idle", "all"):
            seconds = int(os.environ.get("IDLE_SECONDS", "120"))
            print("== idle daemon with a keypad attached")
            idle(os.path.join(root, "idle"), seconds)
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
