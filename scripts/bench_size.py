#!/usr/bin/env python3
"""The programs' size and what it costs or saves at run time, for one or more release builds side by
side (BENCHMARKS.md, "Smaller programs"):

    scripts/bench_size.py [BINARIES ...]      (default .build/release)

For each folder of programs (reveille and reveille-calendar, and reveilled and reveille-web as
programs or as links to reveille):
- each program's size stripped as the package strips it (`strip --strip-unneeded`), a link
  counted once, and all of them together;
- `reveilled --root` on a fresh folder → `reveille status` answered, RUNS times (median, max);
- `reveille status` wall time, RUNS × 2 runs after 5 warm-up runs (median);
- the daemon's RSS and PSS with 10 alarms after IDLE_SECONDS idle, and reveille-web's after one
  page load and IDLE_SECONDS idle (smaps_rollup).
RUNS=15 IDLE_SECONDS=30 by default.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

RUNS = int(os.environ.get("RUNS", "15"))
IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "30"))
PROGRAMS = ["reveille", "reveille-calendar", "reveilled", "reveille-web"]


def stripped_sizes(folder):
    sizes, seen = {}, {}
    with tempfile.TemporaryDirectory() as scratch:
        for program in PROGRAMS:
            path = os.path.realpath(os.path.join(folder, program))
            if path in seen:
                sizes[program] = f"link to {seen[path]}"
                continue
            seen[path] = program
            copy = os.path.join(scratch, program)
            subprocess.run(["strip", "--strip-unneeded", "-o", copy, path], check=True)
            sizes[program] = os.path.getsize(copy)
    return sizes


def rss_mb(pid):
    """VmRSS and Pss (the pages shared with other processes, such as the daemon and the page's
    server sharing one program, counted in part), in MB."""
    figures = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            name, _, value = line.partition(":")
            if name in ("Rss", "Pss"):
                figures[name] = int(value.split()[0]) / 1024
    return figures.get("Rss", float("nan")), figures.get("Pss", float("nan"))


def start_daemon(folder, root):
    process = subprocess.Popen(
        [os.path.join(folder, "reveilled"), "--root", root, "--time-zone", "UTC"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process


def status(folder, root):
    return subprocess.run([os.path.join(folder, "reveille"), "--root", root, "status"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def start_to_serving(folder):
    times = []
    for _ in range(RUNS):
        root = tempfile.mkdtemp(prefix="reveille-size-")
        started = time.perf_counter()
        daemon = start_daemon(folder, root)
        while not status(folder, root):
            if time.perf_counter() - started > 10:
                sys.exit(f"{folder}: reveilled did not answer within 10 s")
        times.append((time.perf_counter() - started) * 1000)
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(root, ignore_errors=True)
    return statistics.median(times), max(times)


def status_time(folder, root):
    command = [os.path.join(folder, "reveille"), "--root", root, "status"]
    for _ in range(5):
        subprocess.run(command, stdout=subprocess.DEVNULL)
    times = []
    for _ in range(RUNS * 2):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def idle_figures(folder):
    root = tempfile.mkdtemp(prefix="reveille-size-")
    daemon = start_daemon(folder, root)
    web = None
    try:
        deadline = time.time() + 10
        while not status(folder, root):
            if time.time() > deadline:
                sys.exit(f"{folder}: reveilled did not start")
        for hour in range(10):
            subprocess.run([os.path.join(folder, "reveille"), "--root", root, "alarm", "add", f"{hour + 6:02d}:15",
                            "--days", "mon-fri"], stdout=subprocess.DEVNULL, check=True)
        status_ms = status_time(folder, root)
        port = 18000 + os.getpid() % 1000
        web = subprocess.Popen([os.path.join(folder, "reveille-web"), "--root", root, "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                if time.time() > deadline:
                    sys.exit(f"{folder}: reveille-web did not serve the page")
                time.sleep(0.05)
        time.sleep(IDLE_SECONDS)
        return status_ms, rss_mb(daemon.pid), rss_mb(web.pid), len(page)
    finally:
        for process in [web, daemon]:
            if process:
                process.terminate()
                process.wait()
        shutil.rmtree(root, ignore_errors=True)


def main():
    folders = sys.argv[1:] or [".build/release"]
    print(f"== {RUNS} starts, {RUNS * 2} status runs, {IDLE_SECONDS:.0f} s idle; {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for folder in folders:
        sizes = stripped_sizes(folder)
        total = sum(size for size in sizes.values() if isinstance(size, int))
        print(f"== {folder}")
        for program, size in sizes.items():
            print(f"   {program}: " + (f"{size / 1e6:.1f} MB stripped" if isinstance(size, int) else size))
        print(f"   all programs: {total / 1e6:.1f} MB stripped")
        median, worst = start_to_serving(folder)
        print(f"   reveilled start → status answered: median {median:.1f} ms, max {worst:.1f} ms")
        status_ms, daemon_mb, web_mb, page = idle_figures(folder)
        print(f"   reveille status: median {status_ms:.1f} ms")
        print(f"   idle after {IDLE_SECONDS:.0f} s: reveilled RSS {daemon_mb[0]:.1f} MB, PSS {daemon_mb[1]:.1f} MB "
              f"(10 alarms); reveille-web RSS {web_mb[0]:.1f} MB, PSS {web_mb[1]:.1f} MB (after one page load, "
              f"{page} bytes)")


if __name__ == "__main__":
    main()
