#!/usr/bin/env python3
"""Ring benchmarks of BENCHMARKS.md (issue 3), against a release reveilled.

fire: one-shot alarms 10 s apart, each dismissed by math as soon as it rings; the daemon logs how
      late each ring started after its due instant. In the same run, Debian's cron runs a job every
      minute that writes the time it started, which is compared with the minute it was due.
      The same run gives the sound figures (issue 4) from the daemon's log: ring start to the first
      frame written to ALSA, and dismissal (stop requested) to the PCM dropped.
hostile: fire accuracy while clients flood, pipeline without reading and hold connections, and
      root's `status` latency meanwhile.
slowcalendar: fire accuracy while every calendar read takes 20 s (a reveille-calendar that sleeps
      first, beside a copy of the daemon), the calendar rewritten a second before each ring.
ringing: CPU of the daemon while it rings a 48 kHz stereo WAV file for a while.
idle: a daemon holding alarms none of which is due soon, following the system's time zone; CPU
      time (per-thread schedstat, ns), context switches (each a wake-up of a thread) and RSS over
      a few minutes, scaled to an hour.

Sound goes through real alsa-lib into ALSA's file plugin (there is no sound card here); the
daemon paces its writes to the wall clock, as a real device would.
"""
import json, math, os, re, shutil, signal, socket, statistics, struct, subprocess, sys, tempfile, time, wave

from benchlib import percentile

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


def daemon_status(sock_path):
    """The daemon's status (the `status` payload)."""
    return request(sock_path, {"status": {}})["payload"]["status"]


def current_problem(sock_path):
    """The current math problem of the ringing alarm, as shown."""
    return request(sock_path, {"problem": {}})["payload"]["ring"]["problem"]


def send_answer(sock_path, value):
    """Answers the problem; True when right."""
    return request(sock_path, {"answer": {"value": value}})["payload"]["ring"]["correct"]


def solve(problem):
    return sum(eval_product(term) for term in problem.split(" + "))


def eval_product(term):
    result = 1
    for factor in term.split(" × "):
        result *= int(factor)
    return result


class Watch:
    """A `watch` stream (what `reveille status --watch` follows): the daemon pushes each change as
    it happens, so the moment of a dismissal is seen without polling."""

    def __init__(self, sock_path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock_path)
        self.sock.sendall(json.dumps({"v": 1, "op": {"watch": {}}}).encode() + b"\n")
        self.file = self.sock.makefile("rb")
        assert json.loads(self.file.readline())["ok"]

    def until(self, wanted):
        for line in self.file:
            if wanted(json.loads(line)["event"]):
                return
        raise RuntimeError("the watch stream ended")

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.file.close()
        self.sock.close()


def start_daemon(root, *extra, settings="", command=None, wait_seconds=10):
    """A release reveilled under `root`, its sound captured by ALSA's file plugin; `settings` is
    added to its reveille.toml. `command` runs another executable, or the daemon under a tool."""
    os.makedirs(os.path.join(root, "etc/reveille"), exist_ok=True)
    with open(os.path.join(root, "etc/reveille/reveille.toml"), "w") as f:
        f.write(f"[audio]\ndevices = [\"file:'{root}/sound.wav',wav\"]\n{settings}")
    log = open(os.path.join(root, "reveilled.out"), "w")
    command = command or [os.path.join(BIN, "reveilled")]
    proc = subprocess.Popen([*command, "--root", root, *extra], stdout=log, stderr=log)
    sock = os.path.join(root, "run/reveille/control.sock")
    for _ in range(wait_seconds * 20):
        try:
            request(sock, {"status": {}})
            return proc, sock
        except OSError:
            time.sleep(0.05)
    sys.exit("reveilled did not start")


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
                status = daemon_status(sock)
                if status.get("session"):
                    break
                time.sleep(0.05)
            problem = current_problem(sock)
            assert send_answer(sock, solve(problem))
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
    first = [float(m) for m in re.findall(r"sound: first frame on .*?, ([0-9.]+) ms after the start", text)]
    stop = [float(m) for m in re.findall(r"sound: stopped on .*?, ([0-9.]+) ms after the request", text)]
    shutil.rmtree(root)
    print(f"   reveilled: {len(late)} fires, late by p50 {percentile(late, 50):.2f} ms, "
          f"p99 {percentile(late, 99):.2f} ms, max {max(late):.2f} ms")
    if cron:
        print(f"   cron:      {len(cron)} fires, late by p50 {percentile(cron, 50):.1f} ms, "
              f"p99 {percentile(cron, 99):.1f} ms, max {max(cron):.1f} ms")
    else:
        print("   cron:      no fires recorded (is cron installed?)")
    print(f"   sound, ring start to first frame written: {len(first)} rings, p50 {percentile(first, 50):.2f} ms, "
          f"p99 {percentile(first, 99):.2f} ms, max {max(first):.2f} ms")
    print(f"   sound, dismissal to PCM dropped: {len(stop)} stops, p50 {percentile(stop, 50):.2f} ms, "
          f"p99 {percentile(stop, 99):.2f} ms, max {max(stop):.2f} ms")


def add_one_shots(sock, count):
    """One-shots 10 s apart from the next round ten seconds plus 30 s; their due instants."""
    base = (int(time.time()) // 10 + 3) * 10
    dues = [base + 10 * i for i in range(count)]
    for due in dues:
        stamp = time.gmtime(due)
        spec = {"time": time.strftime("%H:%M:%S", stamp), "date": time.strftime("%Y-%m-%d", stamp)}
        assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
    return dues


def slow_calendar(count):
    """Fire accuracy while calendar reads take 20 s each: a copy of the daemon beside a
    reveille-calendar that sleeps 20 s before reading, the calendar file rewritten a second before
    every ring (each write starts a read, or queues one behind the read under way)."""
    root = tempfile.mkdtemp(prefix="reveille-slowcal.")
    bin_dir = os.path.join(root, "bin")
    os.makedirs(bin_dir)
    try:
        os.link(os.path.join(BIN, "reveilled"), os.path.join(bin_dir, "reveilled"))
    except OSError:
        shutil.copy(os.path.join(BIN, "reveilled"), os.path.join(bin_dir, "reveilled"))
    reader = os.path.join(bin_dir, "reveille-calendar")
    with open(reader, "w") as f:
        f.write(f"#!/bin/sh\nsleep 20\nexec {os.path.join(BIN, 'reveille-calendar')} \"$@\"\n")
    os.chmod(reader, 0o755)
    calendar = os.path.join(root, "cal", "holidays.ics")
    os.makedirs(os.path.dirname(calendar))
    os.chmod(root, 0o755)

    def write_calendar(n):
        with open(calendar, "w") as f:
            f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\n"
                    f"UID:h{n}\r\nSUMMARY:Holiday {n}\r\nDTSTART;VALUE=DATE:20300101\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        os.chmod(calendar, 0o644)

    write_calendar(0)
    os.chmod(os.path.dirname(calendar), 0o755)
    proc, sock = start_daemon(root, "--time-zone", "UTC", command=[os.path.join(bin_dir, "reveilled")])
    try:
        started = time.time()
        answer = request(sock, {"calendarAdd": {"name": "slow", "source": calendar}})
        assert answer["ok"], answer
        print(f"   calendar add, its file read by the slow reader: answered after {time.time() - started:.1f} s", flush=True)
        dues = add_one_shots(sock, count)
        statuses = []
        for n, due in enumerate(dues, start=1):
            while time.time() < due - 1:
                time.sleep(0.05)
            write_calendar(n)
            while time.time() < due + 0.5:
                time.sleep(0.05)
            t = time.time()
            daemon_status(sock)
            statuses.append((time.time() - t) * 1000)
            problem = current_problem(sock)
            assert send_answer(sock, solve(problem))
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    text = open(os.path.join(root, "reveilled.out")).read()
    late = [float(m) for m in re.findall(r"rings \(due [0-9:]+, started ([+-][0-9.]+) ms\)", text)]
    subprocess.run(["pkill", "-f", reader])
    shutil.rmtree(root, ignore_errors=True)
    print(f"   reveilled: {len(late)} fires, each during a 20 s calendar read, late by p50 {percentile(late, 50):.2f} ms, "
          f"p99 {percentile(late, 99):.2f} ms, max {max(late):.2f} ms")
    print(f"   status half a second after each ring: p50 {percentile(statuses, 50):.1f} ms, max {max(statuses):.1f} ms")


HOLDER = r"""
import json, socket, sys, time
path, watches, drips = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
held = []
for i in range(watches + drips):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    try:
        s.sendall((json.dumps({"v": 1, "op": {"watch": {}}}) + "\n").encode() if i < watches else b'{"v":1,')
    except OSError:
        pass
    held.append(s)
time.sleep(3600)
"""


def hostile(count):
    """Fire accuracy while clients do their worst: two clients asking ten years of `next` back to
    back (the loop is never idle), four connections each pipelining thousands of those requests
    without reading a reply, and a household member (nobody, as the socket group) holding 40
    `watch` streams and 32 half-sent requests. Also root's `status` latency meanwhile."""
    import threading
    root = tempfile.mkdtemp(prefix="reveille-hostile.")
    os.chmod(root, 0o755)
    proc, sock = start_daemon(root, "--time-zone", "UTC", "--socket-group", "nogroup")
    stop = threading.Event()
    busy_requests = [0]

    def busy():
        while not stop.is_set():
            try:
                request(sock, {"next": {"days": 3660}})
                busy_requests[0] += 1
            except (OSError, ValueError):  # ValueError: the daemon stopped mid-answer, at the end
                time.sleep(0.01)

    pipes = []
    holder = None
    try:
        for minute in range(10):
            request(sock, {"alarmAdd": {"spec": {"time": f"06:{10 + minute}", "days": "mon-fri"}}})
        # First the household member alone, holding every connection it may and more.
        holder = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                   sys.executable, "-c", HOLDER, sock, "40", "32"])
        time.sleep(2)
        held_ms = []
        for _ in range(100):
            t = time.perf_counter()
            daemon_status(sock)
            held_ms.append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)
        print(f"   root's status with 40 watch streams and 32 half-sent requests held by one user: "
              f"p50 {percentile(held_ms, 50):.1f} ms, p99 {percentile(held_ms, 99):.1f} ms, max {max(held_ms):.1f} ms",
              flush=True)
        threads = [threading.Thread(target=busy, daemon=True) for _ in range(2)]
        for thread in threads:
            thread.start()
        line = (json.dumps({"v": 1, "op": {"next": {"days": 3660}}}) + "\n").encode()
        for _ in range(4):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            s.setblocking(False)
            data = line * 5000
            sent = 0
            for _ in range(200):
                try:
                    sent += s.send(data[sent:])
                except BlockingIOError:
                    break
            pipes.append(s)
        time.sleep(1)
        dues = add_one_shots(sock, count)
        print(f"   {count} one-shots, 10 s apart, under hostile clients (about {count * 10 // 60 + 1} min)", flush=True)
        status_ms = []
        for due in dues:
            while time.time() < due + 0.5:
                t = time.perf_counter()
                daemon_status(sock)
                status_ms.append((time.perf_counter() - t) * 1000)
                time.sleep(0.2)
            for _ in range(100):
                if daemon_status(sock).get("session"):
                    break
                time.sleep(0.05)
            assert send_answer(sock, solve(current_problem(sock)))
        rss = int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{proc.pid}/status").read()).group(1))
    finally:
        stop.set()
        if holder:
            holder.kill()
            holder.wait()
        for s in pipes:
            s.close()
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
    text = open(os.path.join(root, "reveilled.out")).read()
    late = [float(m) for m in re.findall(r"rings \(due [0-9:]+, started ([+-][0-9.]+) ms\)", text)]
    refused = text.count("refused: uid 65534 already has 8 connections open")
    shutil.rmtree(root)
    print(f"   reveilled: {len(late)} fires, late by p50 {percentile(late, 50):.2f} ms, "
          f"p99 {percentile(late, 99):.2f} ms, max {max(late):.2f} ms")
    print(f"   root's status meanwhile (behind the floods, and held back 0.25 s before each ring): {len(status_ms)} requests, p50 {percentile(status_ms, 50):.1f} ms, "
          f"p99 {percentile(status_ms, 99):.1f} ms, max {max(status_ms):.1f} ms")
    print(f"   busy clients answered {busy_requests[0]} ten-year `next` requests; "
          f"nobody's connections refused: {refused} of 72; RSS at the end {rss / 1024:.1f} MB")


def process_cpu_ns(pid):
    return sum(threads(pid)[t][0] for t in threads(pid))


def ringing(seconds):
    root = tempfile.mkdtemp(prefix="reveille-ringing.")
    sound = os.path.join(root, "stereo-48k.wav")
    with wave.open(sound, "wb") as w:  # 10 s of a 440 Hz sine, 48 kHz, stereo, 16-bit
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(b"".join(struct.pack("<hh", v, v) for v in
                               (int(12000 * math.sin(2 * math.pi * 440 * i / 48000)) for i in range(480000))))
    # A sound file named in a request must be one everyone may read, in folders everyone may search.
    os.chmod(root, 0o755)
    os.chmod(sound, 0o644)
    proc, sock = start_daemon(root, "--time-zone", "UTC")
    try:
        spec = {"inSeconds": 1, "sound": sound, "fadeInSeconds": 5}
        assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
        for _ in range(100):
            if daemon_status(sock).get("session"):
                break
            time.sleep(0.05)
        time.sleep(1)
        before, started = process_cpu_ns(proc.pid), time.monotonic()
        time.sleep(seconds)
        cpu, wall = process_cpu_ns(proc.pid) - before, time.monotonic() - started
        line = daemon_status(sock)["sound"]
        problem = current_problem(sock)
        assert send_answer(sock, solve(problem))
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
        shutil.rmtree(root)
    print(f"   {line}")
    print(f"   over {wall:.1f} s of ringing: CPU {cpu / 1e6:.1f} ms, i.e. {100 * cpu / 1e9 / wall:.2f} % of one core")


def threads(pid):
    """Per thread of `pid`: CPU nanoseconds (schedstat) and context switches, voluntary and not."""
    figures = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            cpu = int(f.read().split()[0])
        switches = {}
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches[line.split(":")[0]] = int(line.split()[1])
        figures[tid] = (cpu, switches["voluntary_ctxt_switches"], switches["nonvoluntary_ctxt_switches"])
    return figures


def idle_window(proc, sock, seconds):
    """The daemon's threads over `seconds` with no request, measured from outside: CPU (ms),
    wake-ups and preemptions summed over its threads, then its resources. None, said why, if its
    threads came or went: the per-thread counters would not add up."""
    before = threads(proc.pid)
    time.sleep(seconds)
    after = threads(proc.pid)
    resources = daemon_status(sock)["resources"]
    if set(before) != set(after):
        print(f"   threads changed during the window ({sorted(before)} -> {sorted(after)}): figures not comparable")
        return None
    return {"threads": len(after), "cpu_ms": sum(after[t][0] - before[t][0] for t in after) / 1e6,
            "wakeups": sum(after[t][1] - before[t][1] for t in after),
            "preempted": sum(after[t][2] - before[t][2] for t in after), "resources": resources}


def idle_lines(window, seconds, what):
    """The two lines every idle figure prints: CPU and wake-ups over the window, then RSS."""
    cpu_ms, wakeups, resources = window["cpu_ms"], window["wakeups"], window["resources"]
    return [f"   over {seconds} s idle with {what}, {window['threads']} threads: CPU {cpu_ms:.3f} ms "
            f"({cpu_ms * 3600 / seconds:.2f} ms per hour), wake-ups {wakeups} ({wakeups * 60 / seconds:.2f} per minute)",
            f"   RSS {resources['rssKilobytes'] / 1024:.1f} MB ({resources['anonymousKilobytes'] / 1024:.1f} MB anonymous)"]


def idle(seconds, with_calendar=True):
    root = tempfile.mkdtemp(prefix="reveille-idle.")
    proc, sock = start_daemon(root)  # the system's zone, followed: the default on a device
    try:
        now = time.localtime(time.time() + 3 * 3600)
        for i in range(10):
            spec = {"time": f"{(now.tm_hour + i // 4) % 24:02d}:{(i * 7) % 60:02d}", "days": "daily"}
            assert request(sock, {"alarmAdd": {"spec": spec}})["ok"]
        # And a holiday calendar (the engine benchmark's five years, 2,000 events; CALENDAR=0: none, and no reminders):
        # its folder is watched, which must cost nothing while nothing changes.
        if with_calendar:
            calendar = os.path.join(root, "holidays.ics")
            subprocess.run([os.path.join(BIN, "reveille-bench"), "calendar", calendar], check=True)
            os.chmod(calendar, 0o644)
            os.chmod(root, 0o755)
            assert request(sock, {"calendarAdd": {"name": "holidays", "source": calendar}})["ok"]
            # And reminders: a reminder calendar (two years of a household's events, chiming 60 and
            # 15 minutes before each, or at its own VALARM) and three reminders with a follow-up,
            # none due in the window: the machine wakes for the next chime, not before.
            reminders = os.path.join(root, "reminders.ics")
            subprocess.run([os.path.join(BIN, "reveille-bench"), "reminders", reminders], check=True)
            os.chmod(reminders, 0o644)
            assert request(sock, {"calendarAdd": {"name": "club", "source": reminders, "purpose": "reminders",
                                                  "minutes": [60, 15]}})["ok"]
            for i in range(3):
                spec = {"text": f"reminder {i}", "time": f"{(now.tm_hour + i) % 24:02d}:30",
                        "followUps": [{"afterSeconds": 7200, "text": "follow-up"}]}
                assert request(sock, {"reminderAdd": {"spec": spec}})["ok"]
            if os.environ.get("CHIME_IN_WINDOW") == "1":
                # One reminder that chimes inside the window (a minute into it, or two): what
                # one chime costs, all threads together (the timer, the audio thread's writes).
                due = time.localtime(time.time() + 5 + 120)
                spec = {"text": "in the window", "time": f"{due.tm_hour:02d}:{due.tm_min:02d}",
                        "date": time.strftime("%Y-%m-%d", due)}
                assert request(sock, {"reminderAdd": {"spec": spec}})["ok"]
        time.sleep(5)  # the connection threads of those requests have ended
        # The daemon's threads do not come and go while it is idle (no dispatch worker pool).
        window = idle_window(proc, sock, seconds)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
        shutil.rmtree(root)
    if not window:
        return
    minutes = seconds / 60
    status = window["resources"]
    print(f"   over {seconds} s idle with 10 alarms set (the next one hours away)"
          f"{', a holiday calendar, a reminder calendar and 3 reminders' if with_calendar else ''}, {window['threads']} threads:")
    print(f"   CPU {window['cpu_ms']:.3f} ms, i.e. {window['cpu_ms'] * 60 / minutes:.2f} ms per idle hour")
    print(f"   wake-ups (voluntary context switches, all threads) {window['wakeups']}, "
          f"i.e. {window['wakeups'] / minutes:.2f} per minute ({window['preempted']} preemptions)")
    print(f"   RSS {status['rssKilobytes'] / 1024:.1f} MB: {status['anonymousKilobytes'] / 1024:.1f} MB anonymous "
          f"(heap, stacks), the rest file-backed pages of the executable; peak {status['peakRSSKilobytes'] / 1024:.1f} MB")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("fire", "all"):
        print("== fire accuracy: scheduled instant to ring start")
        fire(int(os.environ.get("FIRES", "50")))
    if what in ("hostile", "all"):
        print("== fire accuracy under hostile clients")
        hostile(int(os.environ.get("FIRES", "50")) // 2)
    if what in ("slowcalendar", "all"):
        print("== fire accuracy while calendar reads take 20 s")
        slow_calendar(int(os.environ.get("FIRES", "50")) // 5)
    if what in ("ringing", "all"):
        print("== CPU while ringing a 48 kHz stereo file")
        ringing(int(os.environ.get("RINGING_SECONDS", "30")))
    if what in ("idle", "all"):
        print("== idle daemon")
        idle(int(os.environ.get("IDLE_SECONDS", "300")), os.environ.get("CALENDAR", "1") != "0")
