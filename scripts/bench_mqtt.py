#!/usr/bin/env python3
"""The smart home's figures of BENCHMARKS.md, against the release reveilled and reveille-mqtt, with
Debian's mosquitto on a free loopback port (TLS from a test CA, passwords, ACLs: the tests' broker).

latency:   one-shot alarms RINGS times, 10 s apart: the daemon's ring start (its log: due instant +
           how late it started) to a Home Assistant-like subscriber's receipt of the "fired" event.
idle:      the bridge connected, nothing happening, IDLE_SECONDS (keepalive 60 s): its wake-ups
           (voluntary context switches, all threads), CPU, RSS; and the daemon's wake-ups meanwhile.
reconnect: the broker killed and started again, REPEATS times: from the broker answering again to
           the bridge's availability "online" seen by the subscriber.
stall:     fire accuracy while the broker stalls (SIGSTOP: it accepts nothing, answers nothing),
           RINGS one-shots, against the same daemon's accuracy with a healthy broker.

    scripts/bench_mqtt.py [latency|idle|reconnect|stall|all]
"""
import json, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "mqtt"))
import test_mqtt
from test_mqtt import Broker, Clock, Subscriber, end_session, wait_for, request, status
from benchlib import percentile, rss_mb, threads


def summed(pid):
    """Voluntary context switches (wake-ups) and CPU nanoseconds of all the threads of `pid`."""
    figures = threads(pid).values()
    return sum(voluntary for _, voluntary in figures), sum(cpu for cpu, _ in figures)

BIN = os.path.normpath(os.path.join(HERE, "..", ".build", "release"))


class Bench:
    def __init__(self, keepalive=60):
        self.folder = tempfile.mkdtemp(prefix="reveille-bench-mqtt.")
        os.chmod(self.folder, 0o755)
        self.broker = Broker(self.folder)
        self.clock = Clock(BIN, self.broker, os.path.join(self.folder, "clock"))
        if keepalive != 10:
            toml = os.path.join(self.clock.root, "etc/reveille/reveille.toml")
            with open(toml) as f:
                text = f.read().replace("keepalive_seconds = 10", f"keepalive_seconds = {keepalive}")
            with open(toml, "w") as f:
                f.write(text)
            self.clock.bridge.terminate()
            self.clock.bridge.wait()
            self.clock.start_bridge()
        self.ha = Subscriber(self.broker)

    def rings(self, count):
        """Rings `count` one-shots 10 s apart; their start instants from the daemon's log, and the
        subscriber's receipt of each "fired"."""
        sock = self.clock.sock
        base = (int(time.time()) // 10 + 2) * 10
        dues = [base + 10 * i for i in range(count)]
        for due in dues:
            stamp = time.localtime(due)
            spec = {"time": time.strftime("%H:%M:%S", stamp), "date": time.strftime("%Y-%m-%d", stamp),
                    "fadeInSeconds": 0}
            assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
        for due in dues:
            while time.time() < due + 1:
                time.sleep(0.05)
            wait_for(lambda: (status(sock).get("session") or {}).get("state") == "ringing")
            end_session(self.clock)
        time.sleep(1)
        with open(os.path.join(self.clock.root, "reveilled.out")) as f:
            late = [float(m) for m in re.findall(r"rings \(due [0-9:]+, started ([+-][0-9.]+) ms\)", f.read())]
        late = late[-count:]
        with self.ha.lock:
            fired = [(json.loads(p), at) for t, p, _, at in self.ha.messages if t.endswith("/event") and '"fired"' in p]
        return dues, late, fired

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.ha.close()
        self.clock.close()
        self.broker.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def latency(count):
    with Bench(keepalive=60) as bench:
        # The subscriber stamps receipt with time.monotonic(); the wall clock is needed to compare
        # with the daemon's due instants: one offset, read now.
        offset = time.time() - time.monotonic()
        dues, late, fired = bench.rings(count)
        delays = []
        for (event, at), due, started in zip(fired[-count:], dues, late):
            delays.append((at + offset - (due + started / 1000)) * 1000)
        print(f"   {len(delays)} rings: the daemon's ring start to the subscriber's 'fired' event: "
              f"p50 {percentile(delays, 50):.2f} ms, p99 {percentile(delays, 99):.2f} ms, max {max(delays):.2f} ms")
        print(f"   (the daemon's own fire accuracy meanwhile: p50 {percentile(late, 50):.2f} ms, "
              f"max {max(late):.2f} ms)")


def idle(seconds):
    with Bench(keepalive=60) as bench:
        time.sleep(5)
        bridge, daemon = bench.clock.bridge.pid, bench.clock.daemon.pid
        b0, d0 = summed(bridge), summed(daemon)
        time.sleep(seconds)
        b1, d1 = summed(bridge), summed(daemon)
        minutes = seconds / 60
        print(f"   over {seconds} s idle, keepalive 60 s: reveille-mqtt {b1[0] - b0[0]} wake-ups "
              f"({(b1[0] - b0[0]) / minutes:.2f} per minute), CPU {(b1[1] - b0[1]) / 1e6:.3f} ms, "
              f"RSS {rss_mb(bridge):.1f} MB")
        print(f"   reveilled meanwhile: {d1[0] - d0[0]} wake-ups, CPU {(d1[1] - d0[1]) / 1e6:.3f} ms")


def reconnect(repeats):
    with Bench(keepalive=60) as bench:
        times = []
        base = bench.clock.base
        for _ in range(repeats):
            bench.ha.close()
            bench.broker.kill()
            wait_for(lambda: not (bench.clock.health() or {}).get("connected"), seconds=30)
            bench.broker.start()
            back = time.monotonic()
            bench.ha = Subscriber(bench.broker)
            wait_for(lambda: bench.ha.latest(f"{base}/availability") == "online", seconds=60)
            times.append(time.monotonic() - back)
        print(f"   {repeats} broker restarts: broker listening again to 'online' seen: "
              f"p50 {percentile(times, 50):.2f} s, max {max(times):.2f} s (the bridge retries after 1, 2, 4 ... 30 s)")


def stall(count):
    with Bench(keepalive=60) as bench:
        _, healthy, _ = bench.rings(count)
        bench.broker.process.send_signal(signal.SIGSTOP)
        try:
            _, stalled, _ = bench.rings(count)
        finally:
            bench.broker.process.send_signal(signal.SIGCONT)
        print(f"   fire accuracy, broker healthy: {len(healthy)} rings, p50 {percentile(healthy, 50):.2f} ms, "
              f"max {max(healthy):.2f} ms")
        print(f"   fire accuracy, broker stalled (SIGSTOP): {len(stalled)} rings, p50 {percentile(stalled, 50):.2f} ms, "
              f"max {max(stalled):.2f} ms")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    rings = int(os.environ.get("RINGS", "10"))
    if what in ("latency", "all"):
        print("== MQTT: ring event latency")
        latency(rings)
    if what in ("idle", "all"):
        print("== MQTT: the bridge idle")
        idle(int(os.environ.get("IDLE_SECONDS", "180")))
    if what in ("reconnect", "all"):
        print("== MQTT: reconnect after a broker restart")
        reconnect(int(os.environ.get("REPEATS", "5")))
    if what in ("stall", "all"):
        print("== MQTT: fire accuracy while the broker stalls")
        stall(rings)
