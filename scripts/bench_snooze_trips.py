#!/usr/bin/env python3
"""Requests reveille-mqtt makes to reveilled for one Snooze pressed in Home Assistant: a real
mosquitto, daemon and bridge (Tests/mqtt's), the bridge's connect() calls to the control socket
counted by strace from the press until the state settles (BENCHMARKS.md). Each request is one
connection, so connections = round trips.

    scripts/bench_snooze_trips.py [BINARIES]     (default .build/debug; PRESSES=5)
"""
import os, re, subprocess, sys, tempfile, time, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "mqtt"))
import test_mqtt
from test_mqtt import Broker, Clock, Subscriber, MACHINE
from webdriver import ring_soon, end_session, status, wait_for

binaries = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(test_mqtt.REPO, ".build", "debug")
presses = int(os.environ.get("PRESSES", "5"))
folder = tempfile.mkdtemp(prefix="reveille-trips.")
os.chmod(folder, 0o755)
broker = Broker(folder)
clock = Clock(binaries, broker, os.path.join(folder, "clock"), base=f"reveille/{MACHINE}", user=MACHINE)
ha = Subscriber(broker)
counts = []
try:
    for _ in range(presses):
        end_session(clock)
        ring_soon(clock, 1)
        wait_for(lambda: ha.latest(clock.base + "/ring_state") == "ringing", what="ringing in HA")
        time.sleep(1.5)
        trace = os.path.join(folder, "strace.out")
        tracer = subprocess.Popen(["strace", "-f", "-e", "trace=connect", "-o", trace, "-p", str(clock.bridge.pid)],
                                  stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        ha.publish(clock.base + "/snooze/press", "PRESS")
        wait_for(lambda: ha.latest(clock.base + "/ring_state") == "snoozed", what="snoozed in HA")
        time.sleep(2.0)  # everything the press set off has been read and published
        tracer.terminate()
        tracer.wait()
        with open(trace) as f:
            counts.append(sum(1 for line in f if "control.sock" in line))
    print(f"requests to reveilled per Snooze press over MQTT: {counts} (median {sorted(counts)[len(counts) // 2]})")
finally:
    ha.close()
    clock.close()
    broker.close()
    shutil.rmtree(folder, ignore_errors=True)
