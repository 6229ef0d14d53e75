"""What the Python benchmarks share: one request on a control socket, and waiting for a condition."""
import json, socket, time


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
