#!/usr/bin/env python3
"""The page's figures of BENCHMARKS.md (issue 17), against release reveilled and reveille-web,
in Debian's headless Chromium over WebDriver (viewport 800x480, the Pi's 7" screen).

ring screen: a one-shot alarm due to the second rings while the page is open; the page notes the
             moment the ring screen has been painted (two animation frames after it was shown);
             the figure is that moment less the due instant (the daemon starts the ring within
             0.1 ms of it, BENCHMARKS.md).
snooze:      the page notes the moment SNOOZE is tapped; a `watch` client sees the daemon's
             snoozed session; the daemon logs how long after the request the PCM was dropped.
             The figure is tap -> snoozed event + request -> PCM dropped (a little over the truth:
             the event is sent after the stop is requested).
page weight: the bytes of GET / (the page fetches nothing else but its JSON and event stream).
a change:    alarms paused, then resumed, over the control socket (as the CLI does); the page notes
             the moment its clock face says so (a MutationObserver); the figure is that moment less
             the moment the request was sent (the same machine's clock).
idle:        reveille-web with one page open and following, nothing changing, from 20 s after the
             page's load (past the server's 15 s idle timeout, which closes what the load left open):
             context switches (wake-ups) summed over its threads, CPU, RSS; the daemon's too.

RINGS=10 IDLE_SECONDS=120 by default; scripts/bench_web.py [BINARIES] (default .build/release).
"""
import json, os, re, socket, statistics, sys, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "web"))
from webdriver import REPO, Browser, Clock, request, solve, status, wait_for
from benchlib import percentile, rss_mb, threads

RINGS = int(os.environ.get("RINGS", "10"))
IDLE_SECONDS = int(os.environ.get("IDLE_SECONDS", "120"))


def summary(values, unit="ms"):
    return (f"p50 {percentile(values, 50):.1f} {unit}, p95 {percentile(values, 95):.1f} {unit}, "
            f"max {max(values):.1f} {unit} ({len(values)} runs)")


def dismiss(clock):
    session = status(clock.sock).get("session")
    if session and session["state"] in ("ringing", "snoozed"):
        problem = request(clock.sock, {"problem": {}})["payload"]["ring"]["problem"]
        request(clock.sock, {"answer": {"value": solve(problem)}})


def watch_until_snoozed(sock_path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(b'{"v":1,"op":{"watch":{}}}\n')
    stream = s.makefile("rb")
    assert json.loads(stream.readline())["ok"]
    return s, stream


def main():
    binaries = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, ".build", "release")
    clock = Clock(binaries)
    browser = Browser()
    try:
        with urllib.request.urlopen(clock.url) as response:
            weight = len(response.read())
        browser.open(clock.url)
        wait_for(lambda: browser.run("return typeof S !== 'undefined' && S !== null"), what="the page")

        painted, snoozes = [], []
        for _ in range(RINGS):
            browser.run("window.ringShownAt = undefined; window.snoozeTappedAt = undefined;")
            reply = request(clock.sock, {"alarmAdd": {"spec": {"inSeconds": 2, "fadeInSeconds": 0, "maxSnoozes": 3}}})
            due = reply["payload"]["alarms"][0]["nextRing"]["instant"]
            shown = wait_for(lambda: browser.run("return window.ringShownAt"), what="the ring screen")
            painted.append(shown - due * 1000)
            time.sleep(0.3)
            sock, stream = watch_until_snoozed(clock.sock)
            browser.click("#snooze")
            for line in stream:
                event = json.loads(line)["event"]
                if event.get("session", {}).get("_0", event.get("session", {})).get("state") == "snoozed":
                    seen = time.time() * 1000
                    break
            sock.close()
            tapped = browser.run("return window.snoozeTappedAt")
            snoozes.append(seen - tapped)
            dismiss(clock)
            wait_for(lambda: not browser.visible("#ring"), what="the ring screen to go")
            time.sleep(0.3)
        stops = [float(m) for m in re.findall(r"sound: stopped on .*?, ([0-9.]+) ms after the request", clock.log())]

        # A change in the daemon (alarms paused over the socket, as the CLI does) -> the page shows it.
        browser.run("""window.changeSeen = undefined;
            new MutationObserver(() => { if (window.changeWanted && window.changeSeen === undefined
              && new RegExp(window.changeWanted).test(document.getElementById('next').textContent))
              window.changeSeen = performance.timeOrigin + performance.now(); })
              .observe(document.getElementById('next'), { childList: true, subtree: true, characterData: true });""")
        changes = []
        for i in range(RINGS):
            for wanted, op in (("^Paused", {"pause": {"until": "2030-01-01"}}), ("^(?!Paused)", {"resume": {}})):
                browser.run("window.changeSeen = undefined; window.changeWanted = arguments[0];", wanted)
                sent = time.time() * 1000
                assert request(clock.sock, op)["ok"]
                seen = wait_for(lambda: browser.run("return window.changeSeen"), what=f"the page to show {wanted}")
                changes.append(seen - sent)
                time.sleep(0.2)
        snooze_total = [a + b for a, b in zip(snoozes, stops)]  # one stop per ring: the snooze

        # Idle: a page open and following, nothing due for hours.
        request(clock.sock, {"alarmAdd": {"spec": {"time": time.strftime("%H:%M", time.localtime(time.time() + 4 * 3600)),
                                                   "days": "daily"}}})
        browser.open(clock.url)
        wait_for(lambda: browser.run("return typeof S !== 'undefined' && S !== null"), what="the page")
        # Past the server's idle timeout (WebServer.idleSeconds, 15 s), which closes the connections
        # the page's load left open: those closings are the load's, not the idle page's.
        time.sleep(20)
        web_before, daemon_before = threads(clock.web.pid), threads(clock.daemon.pid)
        time.sleep(IDLE_SECONDS)
        web_after, daemon_after = threads(clock.web.pid), threads(clock.daemon.pid)
        pages = browser.run("return document.visibilityState")

        def window(before, after):
            common = set(before) & set(after)
            return (sum(after[t][1] - before[t][1] for t in common), sum(after[t][0] - before[t][0] for t in common) / 1e6,
                    len(after))

        web_wakeups, web_cpu, web_threads = window(web_before, web_after)
        daemon_wakeups, daemon_cpu, _ = window(daemon_before, daemon_after)
        print("reveille-web, the clock's page (release build, headless Chromium 800x480)")
        print(f"   ring start -> ring screen painted: {summary(painted)}")
        print(f"   tap SNOOZE -> snoozed seen: {summary(snoozes)}")
        if stops:
            print(f"   request -> PCM dropped (daemon log): {summary(stops)}")
            print(f"   tap SNOOZE -> sound stopped: {summary(snooze_total)}")
        print(f"   a change in the daemon (pause, resume) -> the page showing it: {summary(changes)}")
        print(f"   page weight: {weight} bytes ({weight / 1024:.1f} KB), no other asset")
        print(f"   idle {IDLE_SECONDS} s with a page open ({pages}) and following: reveille-web {web_threads} threads, "
              f"wake-ups {web_wakeups} ({web_wakeups * 60 / IDLE_SECONDS:.2f} per minute), CPU {web_cpu:.2f} ms, "
              f"RSS {rss_mb(clock.web.pid):.1f} MB")
        print(f"   the daemon meanwhile (one watch client): wake-ups {daemon_wakeups}, CPU {daemon_cpu:.2f} ms, "
              f"RSS {rss_mb(clock.daemon.pid):.1f} MB")
    finally:
        browser.close()
        clock.close()


if __name__ == "__main__":
    main()
