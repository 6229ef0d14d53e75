#!/usr/bin/env python3
"""The desktop notifier, idle and at work (BENCHMARKS.md, "A child's notifier").

    scripts/bench_notify.py [BINARIES]    (default: .build/release; `make bench` runs it, as root)

Starts the release daemon under a temporary root, a session bus of its own (dbus-daemon), and
`reveille-notify` (as nobody) following the apps socket. Measures over IDLE_SECONDS its wake-ups
(voluntary context switches summed over its threads), CPU and RSS/PSS; then up to five requests
for more time (the most a user may make in a day) answered by an admin, each a notice: the time
from the answer to the notifier's Notify call having gone through the bus and come back (no
notification service owns the name here, so the bus answers it; the notifier logs each).
"""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from benchlib import request, wait_for  # noqa: E402

BINARIES = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, ".build", "release")
IDLE_SECONDS = int(os.environ.get("IDLE_SECONDS", "60"))


def figures(pid):
    switches = cpu = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            cpu += int(f.read().split()[0])
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            switches += next(int(l.split()[1]) for l in f if l.startswith("voluntary_ctxt_switches"))
    return switches, cpu


def memory(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        values = {l.split(":")[0]: int(l.split()[1]) for l in f if l.split(":")[0] in ("Rss", "Pss")}
    return values["Rss"] / 1024, values["Pss"] / 1024


def main():
    if os.geteuid() != 0:
        raise SystemExit("run as root: the notifier runs as another user (setpriv), as a child's would")
    root = tempfile.mkdtemp(prefix="reveille-bench-notify.")
    os.makedirs(os.path.join(root, "etc/reveille"))
    with open(os.path.join(root, "etc/reveille/reveille.toml"), "w") as f:
        f.write("[voice]\nenabled = false\n")
    bus_dir = os.path.join(root, "bus")
    os.makedirs(bus_dir)
    os.chmod(root, 0o755)
    os.chmod(bus_dir, 0o755)
    address = f"unix:path={bus_dir}/socket"
    with open(os.path.join(bus_dir, "session.conf"), "w") as f:
        f.write(f"""<busconfig><type>session</type><listen>{address}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/><allow own="*"/></policy></busconfig>""")
    processes = []
    try:
        bus = subprocess.Popen(["dbus-daemon", f"--config-file={bus_dir}/session.conf", "--nofork", "--nopidfile"])
        processes.append(bus)
        wait_for(lambda: os.path.exists(f"{bus_dir}/socket"))
        os.chmod(f"{bus_dir}/socket", 0o777)
        daemon = subprocess.Popen([os.path.join(BINARIES, "reveilled"), "--root", root],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(daemon)
        sock = os.path.join(root, "run/reveille/control.sock")
        wait_for(lambda: os.path.exists(sock) and request(sock, {"status": {}})["ok"])
        assert request(sock, {"appPut": {"setup": {"name": "game", "paths": ["/usr/games/none"], "limits": {"mon": 60,
                       "tue": 60, "wed": 60, "thu": 60, "fri": 60, "sat": 60, "sun": 60}, "users": ["nobody"],
                       "enabled": True}, "adding": True, "revision": None}})["ok"]
        notifier = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                     os.path.join(BINARIES, "reveille-notify"), "--root", root],
                                    env={"DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"},
                                    stderr=subprocess.PIPE, text=True, bufsize=1)
        processes.append(notifier)
        while "following" not in notifier.stderr.readline():
            pass
        time.sleep(2)
        before = figures(notifier.pid)
        time.sleep(IDLE_SECONDS)
        after = figures(notifier.pid)
        rss, pss = memory(notifier.pid)
        wakeups = after[0] - before[0]
        print(f"reveille-notify idle {IDLE_SECONDS} s: wake-ups {wakeups} ({wakeups * 60 / IDLE_SECONDS:.2f} per minute), "
              f"CPU {(after[1] - before[1]) / 1e6:.2f} ms, RSS {rss:.1f} MB, PSS {pss:.1f} MB")

        apps_sock = os.path.join(root, "run/reveille/apps.sock")
        latencies = []
        for i in range(5):
            # nobody asks (over the apps socket, as nobody would), then an admin answers.
            asked = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                    os.path.join(BINARIES, "reveille"), "--root", root, "apps", "ask", "game",
                                    "--minutes", "5"], capture_output=True, text=True)
            if asked.returncode != 0:
                break  # five a day: a new daemon day would be needed for more
            rid = request(sock, {"appRequests": {}})["payload"]["apps"]["requests"][-1]["id"]
            start = time.monotonic()
            assert request(sock, {"appAnswer": {"id": rid, "approve": True}})["ok"]
            while "approved" not in notifier.stderr.readline():
                pass
            latencies.append((time.monotonic() - start) * 1000)
        latencies.sort()
        if latencies:
            print(f"answer -> Notify on the bus: p50 {latencies[len(latencies) // 2]:.2f} ms, "
                  f"max {latencies[-1]:.2f} ms ({len(latencies)} answers; at most five requests a day per user)")
        rss_after, pss_after = memory(notifier.pid)
        print(f"reveille-notify after them: RSS {rss_after:.1f} MB, PSS {pss_after:.1f} MB")
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGKILL)
            process.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
