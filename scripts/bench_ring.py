#!/usr/bin/env python3
"""Ring benchmarks of BENCHMARKS.md (issue 3), against a release reveilled.

fire: one-shot alarms 10 s apart, each dismissed by math as soon as it rings; the daemon logs how
      late each ring started after its due instant. In the same run, Debian's cron runs a job every
      minute that writes the time it started, which is compared with the minute it was due.
idle: a daemon holding alarms none of which is due soon; CPU time (per-thread schedstat), context
      switches (each one a wake-up of a thread) and RSS over a few minutes, scaled to an hour.
"""
import json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

BIN = os.path.join(os.path.dirname(__file__), "..", ".build", "release")


def request(sock_path, op):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock_path)
        s.sendall(json.dumps({"v": 1, "op": op}).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def solve(problem):
    return sum(eval_product(term) for term in problem.split(" + "))


def eval_product(term):
    result = 1
    for factor in term.split(" × "):
        result *= int(factor)
    return result


def start_daemon(root, *extra):
    log = open(os.path.join(root, "reveilled.out"), "w")
    proc = subprocess.Popen([os.path.join(BIN, "reveilled"), "--root", root, *extra], stdout=log, stderr=log)
    sock = os.path.join(root, "run/reveille/control.sock")
    for _ in range(200):
        try:
            request(sock, {"status": {}})
            return proc, sock
        except OSError:
            time.sleep(0.05)
    sys.exit("reveilled did not start")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def fire(count):
    root = tempfile.mkdtemp(prefix="reveille-fire.")
    proc, sock = start_daemon(root, "--time-zone", "UTC")
    cron_log = os.path.join(root, "cron-fires")
    cron_file = "/etc/cron.d/reveille-bench"
    started_cron = None
    try:
        with open(cron_file, "w") as f:
            f.write(f"* * * * * root /bin/date +\\%s.\\%N >> {cron_log}\n")
        if subprocess.run(["pgrep", "-x", "cron"], capture_output=True).returncode != 0:
            subprocess.run(["cron"], check=True)
            started_cron = True
        base = (int(time.time()) // 10 + 3) * 10
        dues = [base + 10 * i for i in range(count)]
        for due in dues:
            stamp = time.gmtime(due)
            spec = {"time": time.strftime("%H:%M:%S", stamp), "date": time.strftime("%Y-%m-%d", stamp)}
            answer = request(sock, {"alarmAdd": {"spec": spec}})
            assert answer["ok"], answer
        print(f"   {count} one-shots, 10 s apart, from {time.strftime('%H:%M:%S', time.gmtime(base))} UTC "
              f"(about {count * 10 // 60 + 1} min)", flush=True)
        for due in dues:
            while time.time() < due + 0.5:
                time.sleep(0.05)
            for _ in range(100):
                status = request(sock, {"status": {}})["status"]
                if status.get("session"):
                    break
                time.sleep(0.05)
            problem = request(sock, {"problem": {}})["problem"]
            assert request(sock, {"answer": {"value": solve(problem)}})["correct"]
        end = time.time()
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
        os.remove(cron_file)
        if started_cron:
            subprocess.run(["pkill", "-x", "cron"])
    text = open(os.path.join(root, "reveilled.out")).read()
    late = [float(m) for m in re.findall(r"rings \(due [0-9:]+, started ([+-][0-9.]+) ms\)", text)]
    cron = []
    if os.path.exists(cron_log):
        for line in open(cron_log):
            t = float(line)
            if base - 60 <= t <= end:
                cron.append((t - (t // 60) * 60) * 1000)
    shutil.rmtree(root)
    print(f"   reveilled: {len(late)} fires, late by p50 {percentile(late, 50):.2f} ms, "
          f"p99 {percentile(late, 99):.2f} ms, max {max(late):.2f} ms")
    if cron:
        print(f"   cron:      {len(cron)} fires, late by p50 {percentile(cron, 50):.1f} ms, "
              f"p99 {percentile(cron, 99):.1f} ms, max {max(cron):.1f} ms")
    else:
        print("   cron:      no fires recorded (is cron installed?)")


def idle(seconds):
    root = tempfile.mkdtemp(prefix="reveille-idle.")
    proc, sock = start_daemon(root)  # the system's zone, followed: the default on a device
    try:
        now = time.localtime(time.time() + 3 * 3600)
        for i in range(10):
            spec = {"time": f"{(now.tm_hour + i // 4) % 24:02d}:{(i * 7) % 60:02d}", "days": "daily"}
            assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
        time.sleep(5)
        # The daemon's own getrusage: every thread, including those that came and went. First nine
        # status requests back to back, to know what one costs (the median), so it can be taken out.
        samples = [request(sock, {"status": {}})["status"]["resources"] for _ in range(9)]
        per_request_cpu = statistics.median(
            later["cpuMicroseconds"] - earlier["cpuMicroseconds"] for earlier, later in zip(samples, samples[1:]))
        per_request_wakeups = statistics.median(
            later["wakeups"] - earlier["wakeups"] for earlier, later in zip(samples, samples[1:]))
        b = samples[-1]
        time.sleep(seconds)
        c = request(sock, {"status": {}})["status"]["resources"]
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
        shutil.rmtree(root)
    print(f"   (one status request costs {per_request_cpu / 1000:.2f} ms CPU and {per_request_wakeups:.0f} wake-ups; taken out)")
    cpu_ms = max(0, c["cpuMicroseconds"] - b["cpuMicroseconds"] - per_request_cpu) / 1000
    wakeups = max(0, c["wakeups"] - b["wakeups"] - per_request_wakeups)
    minutes = seconds / 60
    print(f"   over {seconds} s idle with 10 alarms set (the next one hours away):")
    print(f"   CPU {cpu_ms:.2f} ms, i.e. {cpu_ms * 60 / minutes:.1f} ms per idle hour")
    print(f"   thread wake-ups (voluntary context switches, all threads) {wakeups}, i.e. {wakeups / minutes:.1f} per minute")
    print(f"   RSS {c['rssKilobytes'] / 1024:.1f} MB: {c['anonymousKilobytes'] / 1024:.1f} MB anonymous (heap, stacks), "
          f"the rest file-backed pages of the executable; peak {c['peakRSSKilobytes'] / 1024:.1f} MB")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("fire", "all"):
        print("== fire accuracy: scheduled instant to ring start")
        fire(int(os.environ.get("FIRES", "50")))
    if what in ("idle", "all"):
        print("== idle daemon")
        idle(int(os.environ.get("IDLE_SECONDS", "300")))
