#!/usr/bin/env python3
"""App guard benchmark of BENCHMARKS.md (issues 6 and 13), as root (fanotify needs CAP_SYS_ADMIN).

exec latency of a small binary (a copy of /usr/bin/true with 8 bytes after its end, so that
same-size variants can be made), measured by hyperfine without a shell (-N): with no guard; with
reveilled guarding it (listed in apps.toml, allowed all day: known by content, every exec on the
file system answered); an unlisted binary of another size on the same marked file system; and,
in the same run, the listed copy under fapolicyd (Debian's package, permissive mode so that it
decides but never blocks, with one rule allowing everything, running as root for the run), if
fapolicyd is installed.

Then the hash cache's effect: VARIANTS unlisted files of the listed one's size (so each is
hashed), each executed once (its first exec: fstat, ELF header, SHA-256), then each again
(answered from the verdict cache), timed around posix_spawn + waitpid.
"""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
from bench_ring import daemon_status, start_daemon  # noqa: E402

RUNS = int(os.environ.get("EXECS", "2000"))
VARIANTS = int(os.environ.get("VARIANTS", "300"))


def program(path, tail):
    """/usr/bin/true with 8 bytes after its end: same size for every tail, another content."""
    with open("/usr/bin/true", "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data + tail)
    os.chmod(path, 0o755)


def spawn_times(paths):
    """Milliseconds from posix_spawn to the child reaped, for each path in turn."""
    times = []
    for path in paths:
        start = time.perf_counter_ns()
        pid = os.posix_spawn(path, [path], {})
        os.waitpid(pid, 0)
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times


def hyperfine(command, label, folder):
    out = os.path.join(folder, label + ".json")
    subprocess.run(["hyperfine", "-N", "--warmup", "100", "--runs", str(RUNS), "--export-json", out, command],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result = json.load(open(out))["results"][0]
    return result["median"] * 1000, result["mean"] * 1000


def main():
    if os.getuid() != 0:
        sys.exit("bench_apps.py needs root: fanotify permission events need CAP_SYS_ADMIN")
    folder = tempfile.mkdtemp(prefix="reveille-apps.")
    listed = os.path.join(folder, "listed")
    unlisted = os.path.join(folder, "unlisted")
    program(listed, b"LISTED00")
    program(unlisted, b"UNLISTED-OTHER-SIZE")
    variants = [os.path.join(folder, f"variant-{n}") for n in range(VARIANTS)]
    for n, path in enumerate(variants):
        program(path, b"V%07d" % n)
    figures = {}
    cache = {}
    try:
        figures["no guard"] = hyperfine(listed, "none", folder)
        cache["no guard"] = spawn_times(variants)
        root = os.path.join(folder, "root")
        os.makedirs(os.path.join(root, "etc/reveille"))
        with open(os.path.join(root, "etc/reveille/apps.toml"), "w") as f:
            f.write(f'[[app]]\nname = "bench"\npaths = ["{listed}"]\nwindows = ["00:00-24:00"]\n')
        proc, sock = start_daemon(root, "--log-level", "warning")
        try:
            status = daemon_status(sock)["appGuard"]
            assert status["mode"] == "fanotify" and "1 of 1 executable known by content" in status["detail"], status
            print(f"   guard: {status['detail']}: {' '.join(status['watched'])}")
            figures["reveilled, listed"] = hyperfine(listed, "listed", folder)
            figures["reveilled, unlisted"] = hyperfine(unlisted, "unlisted", folder)
            cache["first exec (hashed)"] = spawn_times(variants)
            cache["later execs (cached)"] = spawn_times(variants)
        finally:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait()
        if shutil.which("fapolicyd"):
            figures["fapolicyd, listed"] = with_fapolicyd(lambda: hyperfine(listed, "fapolicyd", folder), folder)
        else:
            print("   fapolicyd: not installed (apt-get install fapolicyd): no comparison")
    finally:
        shutil.rmtree(folder)
    base = figures["no guard"][0]
    for label, (median, mean) in figures.items():
        extra = "" if label == "no guard" else f"  ({median - base:+.3f} ms median)"
        print(f"   {label:22} median {median:.3f} ms, mean {mean:.3f} ms over {RUNS} execs{extra}")
    if cache:
        print(f"   same-size unlisted files, {VARIANTS} of them, posix_spawn to reaped:")
        for label, times in cache.items():
            times.sort()
            print(f"   {label:22} median {statistics.median(times):.3f} ms, p95 {times[int(len(times) * 0.95)]:.3f} ms")


def with_fapolicyd(measure, folder):
    """Runs `measure` while fapolicyd (permissive, one allow-all rule) watches the file systems."""
    rules = "/etc/fapolicyd/rules.d"
    conf = "/etc/fapolicyd/fapolicyd.conf"
    saved = os.path.join(folder, "rules.d")
    shutil.copytree(rules, saved)
    shutil.copy(conf, os.path.join(folder, "fapolicyd.conf"))
    # It drops to its own user at start, which fails in a container: keep it root for the run.
    text = open(conf).read().replace("uid = fapolicyd", "uid = root").replace("gid = fapolicyd", "gid = root")
    open(conf, "w").write(text)
    try:
        for name in os.listdir(rules):
            os.remove(os.path.join(rules, name))
        with open(os.path.join(rules, "10-bench.rules"), "w") as f:
            f.write("allow perm=any all : all\n")
        subprocess.run(["fagenrules", "--load"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        daemon = subprocess.Popen(["fapolicyd", "--permissive", "--debug-deny"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        listening = False
        for line in daemon.stderr:
            if "Starting to listen for events" in line:
                listening = True
                break
        if not listening:
            raise SystemExit("fapolicyd did not start (see: fapolicyd --permissive --debug)")
        # It logs every decision in debug mode: drain its output so that it never blocks on it.
        import threading
        threading.Thread(target=lambda: [None for _ in daemon.stderr], daemon=True).start()
        try:
            return measure()
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait()
    finally:
        for name in os.listdir(rules):
            os.remove(os.path.join(rules, name))
        for name in os.listdir(saved):
            shutil.copy(os.path.join(saved, name), rules)
        shutil.copy(os.path.join(folder, "fapolicyd.conf"), conf)
        subprocess.run(["fagenrules", "--load"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    print("== exec latency with the app guard")
    main()
