"""What the Python benchmarks share: one request on a control socket, waiting for a condition,
percentiles, and a process's threads and memory from /proc."""
import json, os, socket, time


def request(path, op):
    """One request line on the socket at `path`, its reply decoded."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.sendall((json.dumps({"v": 1, "op": op}) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return json.loads(data)


def wait_for(condition, seconds=10):
    """Polls `condition` every 20 ms; stops the benchmark when it does not hold in time."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    raise SystemExit("timed out")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def threads(pid):
    """Per thread of `pid`: CPU nanoseconds (schedstat) and voluntary context switches (wake-ups)."""
    figures = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            cpu = int(f.read().split()[0])
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            voluntary = next(int(l.split()[1]) for l in f if l.startswith("voluntary_ctxt_switches"))
        figures[tid] = (cpu, voluntary)
    return figures


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
