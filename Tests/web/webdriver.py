"""A small WebDriver client (W3C protocol over HTTP, standard library only) for Debian's chromium
and chromium-driver, and the processes the page tests and benchmarks need: reveilled (sound
captured by ALSA's file plugin), reveille-web and chromedriver."""
import base64, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(sock_path, op, **envelope):
    """One request on the control socket, as the CLI sends it."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock_path)
        s.sendall(json.dumps({"v": 1, "op": op, **envelope}).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def status(sock_path):
    return request(sock_path, {"status": {}})["payload"]["status"]


def solve(problem):
    """`37 × 4 + 19` as the daemon shows it."""
    total = 0
    for term in problem.split(" + "):
        product = 1
        for factor in term.split(" × "):
            product *= int(factor)
        total += product
    return total


def wait_for(condition, seconds=10, what="a condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def ring_soon(clock, seconds=1, **spec):
    """A one-shot alarm `seconds` from now on `clock` (anything with the daemon's `sock` and its
    `log()`); waits until it rings, and returns the daemon's reply to the `alarm add`."""
    spec = {"inSeconds": seconds, "fadeInSeconds": 0, "label": "test ring", **spec}
    reply = request(clock.sock, {"alarmAdd": {"spec": spec}})
    assert reply["ok"], reply
    try:
        wait_for(lambda: (status(clock.sock).get("session") or {}).get("state") == "ringing", what="the alarm to ring")
    except AssertionError:
        raise AssertionError(f"no ring: added {reply}, status {status(clock.sock)}, log: {clock.log()[-3000:]}")
    return reply


def end_session(clock):
    """Dismisses whatever rings or is snoozed, by math over the socket."""
    # Math standing in for a tag asks more than one right answer: answer until it is over.
    for _ in range(5):
        session = status(clock.sock).get("session")
        if not session or session["state"] not in ("ringing", "snoozed"):
            return
        problem = request(clock.sock, {"problem": {}})["payload"]["ring"]["problem"]
        assert request(clock.sock, {"answer": {"value": solve(problem)}})["payload"]["ring"]["correct"]


class FakeSupplicant:
    """wpa_supplicant's control socket for wlan0 (its protocol as wpa_supplicant 2.10 speaks it),
    played under the clock's root: the networks it hears, and how a join goes. A network of
    `passwords` is joined with the WPA key of its password (PBKDF2, as the daemon sends it); one
    not heard is out of reach. The real wpa_supplicant on simulated radios is the VM bench's."""

    HEARD = [("Household", -48, "[WPA2-PSK-CCMP][ESS]"), ("Neighbours", -67, "[WPA2-PSK-CCMP][ESS]"),
             ("Café", -80, "[ESS]"), ("Office", -72, "[WPA2-EAP-CCMP][ESS]")]

    def __init__(self, root, passwords):
        import hashlib, threading
        self.path = os.path.join(root, "run/wpa_supplicant/wlan0")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.keys = {name: hashlib.pbkdf2_hmac("sha1", pw.encode(), name.encode(), 4096, 32).hex()
                     for name, pw in passwords.items()}
        self.commands, self.networks, self.next_id, self.joined, self.listener = [], {0: {"ssid": "old"}}, 1, None, None
        self.gone = set()  # names heard in a scan that a join no longer finds
        self.joins = 0  # each join gets another address, as a new network's router gives
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                data, sender = self.sock.recvfrom(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            reply, events = self._answer(data.decode(), sender)
            self.sock.sendto(reply.encode(), sender)
            for event in events:
                self.sock.sendto(event.encode(), self.listener)

    def _answer(self, line, sender):
        self.commands.append(line)
        words = line.split(" ")
        verb = words[0]
        if verb == "ATTACH":
            self.listener = sender
            return "OK\n", []
        if verb == "SCAN":
            return "OK\n", ["<3>CTRL-EVENT-SCAN-RESULTS "]
        if verb == "SCAN_RESULTS":
            rows = [f"02:00:00:00:0{i}:00\t2412\t{signal}\t{flags}\t{name}" for i, (name, signal, flags) in enumerate(self.HEARD)]
            return "bssid / frequency / signal level / flags / ssid\n" + "\n".join(rows) + "\n", []
        if verb == "STATUS":
            if not self.joined:
                return "wpa_state=SCANNING\n", []
            return f"wpa_state=COMPLETED\nssid={self.joined}\nip_address=192.168.77.{19 + self.joins}\n", []
        if verb == "LIST_NETWORKS":
            rows = [f"{i}\t{n.get('ssid', '')}\tany\t" for i, n in sorted(self.networks.items())]
            return "network id / ssid / bssid / flags\n" + "\n".join(rows) + "\n", []
        if verb == "ADD_NETWORK":
            self.networks[self.next_id] = {}
            self.next_id += 1
            return f"{self.next_id - 1}\n", []
        if verb == "SET_NETWORK" and len(words) == 4:
            value = bytes.fromhex(words[3]).decode() if words[2] == "ssid" else words[3]
            self.networks[int(words[1])][words[2]] = value
            return "OK\n", []
        if verb == "SELECT_NETWORK":
            number = int(words[1])
            network = self.networks[number]
            name = network.get("ssid")
            if network.get("mode") == "2":  # an access point: the set-up network, up at once
                self.joined = None
                return "OK\n", ["<3>AP-ENABLED "]
            if name not in [n for n, _, _ in self.HEARD] or name in self.gone:
                return "OK\n", ["<3>CTRL-EVENT-NETWORK-NOT-FOUND"] * 3
            if network.get("key_mgmt") == "NONE" and name == "Café" or network.get("psk") == self.keys.get(name):
                self.joined = name
                self.joins += 1
                return "OK\n", [f"<3>CTRL-EVENT-CONNECTED - Connection to 02:00:00:00:01:00 completed [id={number} id_str=]"]
            return "OK\n", [f'<3>CTRL-EVENT-SSID-TEMP-DISABLED id={number} ssid="{name}" auth_failures=1 duration=10 reason=WRONG_KEY']
        if verb == "REMOVE_NETWORK":
            self.networks.pop(int(words[1]), None)
            return "OK\n", []
        if verb in ("ENABLE_NETWORK", "SAVE_CONFIG"):
            return "OK\n", []
        return "UNKNOWN COMMAND\n", []

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class Clock:
    """reveilled and reveille-web under a temporary root, as `make run` starts them."""

    def __init__(self, binaries, address="127.0.0.1", shifted=False, reader=False, settings="", first_setup=False,
                 wifi=None, backlight=False):
        self.binaries = binaries
        self.root = tempfile.mkdtemp(prefix="reveille-web-test.")
        # `backlight`: a display's backlight as /sys/class/backlight has one (0 to 255), under the root.
        self.brightness = os.path.join(self.root, "sys/class/backlight/panel/brightness")
        if backlight:
            os.makedirs(os.path.dirname(self.brightness))
            for name in ("max_brightness", "brightness"):
                with open(os.path.join(os.path.dirname(self.brightness), name), "w") as f:
                    f.write("255\n")
        # `wifi`: a played wpa_supplicant (FakeSupplicant) that joins these networks with these passwords.
        self.wifi = FakeSupplicant(self.root, wifi) if wifi is not None else None
        if wifi is not None:  # the Wi-Fi adapter, as /sys/class/net shows one
            os.makedirs(os.path.join(self.root, "sys/class/net/wlan0/wireless"))
            with open(os.path.join(self.root, "sys/class/net/wlan0/address"), "w") as f:
                f.write("02:00:00:00:00:a3\n")
        # `first_setup`: as a flashed image starts, the set-up asked on the screen (its marker in the
        # state folder), the zone UTC by the folder's own zone link, which the set-up replaces.
        if first_setup:
            os.makedirs(os.path.join(self.root, "var/lib/reveille"))
            open(os.path.join(self.root, "var/lib/reveille/first-setup"), "w").close()
            os.makedirs(os.path.join(self.root, "etc"), exist_ok=True)
            os.symlink("/usr/share/zoneinfo/UTC", os.path.join(self.root, "etc/localtime"))
        # `reader`: an emulated PN532 on a pseudo-terminal (tests/pn532-emulator), driven by `reader_say`.
        self.reader = None
        nfc = ""
        if reader:
            link = os.path.join(self.root, "nfc-reader")
            self.reader = subprocess.Popen([os.path.join(binaries, "pn532-emulator"), link], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, text=True)
            assert self.reader.stdout.readline().startswith("ready"), "the emulated reader did not start"
            nfc = f"[nfc]\ndevice = \"pn532_uart:{link}\"\n"
        # `shifted`: the daemon reads its time through an offset file, which `advance` moves.
        self.offset = 0.0
        self.clock_file = os.path.join(self.root, "clock-offset") if shifted else None
        if self.clock_file:
            with open(self.clock_file, "w") as f:
                f.write("0 0")
        os.makedirs(os.path.join(self.root, "etc/reveille"))
        with open(os.path.join(self.root, "etc/reveille/reveille.toml"), "w") as f:
            f.write(f"[audio]\ndevices = [\"file:'{self.root}/sound.wav',wav\"]\n[voice]\nenabled = false\n{nfc}{settings}")
        self.sock = os.path.join(self.root, "run/reveille/control.sock")
        self.daemon = None
        self.start_daemon()
        self.port = free_port()
        with open(os.path.join(self.root, "reveille-web.out"), "w") as log:
            self.web = subprocess.Popen(
                [os.path.join(binaries, "reveille-web"), "--root", self.root, "--address", address,
                 "--port", str(self.port)], stdout=log, stderr=log)
        wait_for(lambda: self.answers("/"), what="reveille-web to serve")
        self.url = f"http://127.0.0.1:{self.port}/"

    def start_daemon(self):
        with open(os.path.join(self.root, "reveilled.out"), "a") as log:
            extra = ["--clock-offset-file", self.clock_file] if self.clock_file else []
            self.daemon = subprocess.Popen([os.path.join(self.binaries, "reveilled"), "--root", self.root, *extra],
                                           stdout=log, stderr=log)
        def up():
            try:
                return request(self.sock, {"status": {}})["ok"]
            except OSError:
                return False
        wait_for(up, what="reveilled to answer")

    def stop_daemon(self):
        self.daemon.send_signal(signal.SIGTERM)
        self.daemon.wait()

    def advance(self, seconds):
        """Makes `seconds` pass at once on the daemon's clock (wall and elapsed)."""
        self.offset += seconds
        with open(self.clock_file + ".new", "w") as f:
            f.write(f"{self.offset} {self.offset}")
        os.rename(self.clock_file + ".new", self.clock_file)

    def answers(self, path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as response:
                return response.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def cli(self, *arguments):
        return subprocess.run([os.path.join(self.binaries, "reveille"), "--root", self.root, *arguments],
                              capture_output=True, text=True, timeout=30)

    def log(self):
        with open(os.path.join(self.root, "reveilled.out")) as f:
            return f.read()

    def reader_say(self, line):
        """A command to the emulated reader (`present 04A1B2C3`, `remove`); its answer."""
        self.reader.stdin.write(line + "\n")
        self.reader.stdin.flush()
        return self.reader.stdout.readline().strip()

    def close(self):
        if self.reader and self.reader.poll() is None:
            self.reader.stdin.write("quit\n")
            self.reader.stdin.flush()
            self.reader.wait(timeout=10)
        for process in (self.web, self.daemon):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait()
        if self.wifi:
            self.wifi.close()
        shutil.rmtree(self.root, ignore_errors=True)


class Browser:
    """Headless Chromium driven by chromedriver, at the size of the Pi's 7" touchscreen."""

    def __init__(self, width=800, height=480):
        self.port = free_port()
        self.driver = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_for(self._ready, what="chromedriver to start")
        self.profile = tempfile.mkdtemp(prefix="reveille-chromium.")
        # The viewport set exactly (a window size would include the browser's own frame).
        options = {"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            f"--window-size={width},{height + 200}", f"--user-data-dir={self.profile}"],
                   "mobileEmulation": {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0,
                                                         "touch": True}}}
        if os.path.exists("/usr/bin/chromium"):
            options["binary"] = "/usr/bin/chromium"
        session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}})
        self.session = f"/session/{session['sessionId']}"

    def _ready(self):
        try:
            return self._call("GET", "/status").get("ready")
        except OSError:
            return False

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as error:
            raise AssertionError(f"WebDriver {method} {path}: {error.read().decode()[:500]}")

    def open(self, url):
        self._call("POST", self.session + "/url", {"url": url})

    def run(self, script, *args):
        return self._call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script, *args):
        return self._call("POST", self.session + "/execute/async", {"script": script, "args": list(args)})

    def click(self, css):
        """Clicks the element as a finger would (WebDriver refuses what is covered or hidden). The
        page redraws on every change the daemon reports: an element replaced between finding and
        clicking is found again."""
        for attempt in range(3):
            element = self._call("POST", self.session + "/element", {"using": "css selector", "value": css})
            key = next(iter(element))
            try:
                return self._call("POST", f"{self.session}/element/{element[key]}/click", {})
            except AssertionError as error:
                if "stale element" not in str(error) or attempt == 2:
                    raise

    def tap_at(self, x, y):
        """A finger's tap at a point of the viewport (WebDriver's touch actions): it lands on whatever
        is on top there, as on the kiosk's touchscreen."""
        finger = {"type": "pointer", "id": "finger", "parameters": {"pointerType": "touch"},
                  "actions": [{"type": "pointerMove", "duration": 0, "x": int(x), "y": int(y)},
                              {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}
        self._call("POST", self.session + "/actions", {"actions": [finger]})
        self._call("DELETE", self.session + "/actions")

    def text(self, css):
        return self.run("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)

    def visible(self, css):
        return self.run("const e = document.querySelector(arguments[0]);"
                        "return !!e && !e.closest('[hidden]') && e.getClientRects().length > 0;", css)

    def screenshot(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(self._call("GET", self.session + "/screenshot")))

    def full_screenshot(self, path):
        """The whole page, scrolled parts too (Chromium's own capture, through chromedriver)."""
        height = self.run("return Math.max(document.documentElement.scrollHeight, innerHeight)")
        width = self.run("return innerWidth")
        shot = self._call("POST", self.session + "/goog/cdp/execute", {
            "cmd": "Page.captureScreenshot",
            "params": {"captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self._call("DELETE", self.session)
        except Exception:
            pass
        self.driver.send_signal(signal.SIGTERM)
        self.driver.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


class WPEBrowser(Browser):
    """WPE WebKit, the kiosk's engine on a small board: cog driven by WPEWebDriver
    (wpewebkit-driver), drawn on a headless Weston output of exactly `width`x`height` (cog's
    Wayland view made that size), touch included. The same calls as `Browser`."""

    def __init__(self, width=800, height=480):
        self.runtime = tempfile.mkdtemp(prefix="reveille-wpe.")
        os.chmod(self.runtime, 0o700)
        socket_name = "wayland-reveille"
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, WAYLAND_DISPLAY=socket_name,
                   COG_PLATFORM_WL_VIEW_WIDTH=str(width), COG_PLATFORM_WL_VIEW_HEIGHT=str(height))
        self.compositor = subprocess.Popen(["weston", "--backend=headless-backend.so", f"--width={width}",
                                            f"--height={height}", f"--socket={socket_name}", "--idle-time=0"],
                                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: os.path.exists(os.path.join(self.runtime, socket_name)), what="weston's socket")
        self.port = free_port()
        # In a process group of its own: the cog it starts is ended with it (cog outlives both its
        # driver and its compositor otherwise).
        self.driver = subprocess.Popen(["WPEWebDriver", f"--port={self.port}"], env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        wait_for(self._ready, what="WPEWebDriver to start")
        self.profile = tempfile.mkdtemp(prefix="reveille-wpe-profile.")
        options = {"binary": "/usr/bin/cog", "args": ["--automation", "--platform=wl"]}
        session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": {"wpe:browserOptions": options}}})
        self.session = f"/session/{session['sessionId']}"

    def _ready(self):
        try:
            return bool(self._call("GET", "/status"))
        except OSError:
            return False

    def full_screenshot(self, path):
        self.screenshot(path)

    def close(self):
        try:
            self._call("DELETE", self.session)
        except Exception:
            pass
        try:
            os.killpg(self.driver.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.driver.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
        self.compositor.send_signal(signal.SIGTERM)
        self.compositor.wait()
        shutil.rmtree(self.runtime, ignore_errors=True)


def http(url, method="GET", body=None, headers=None):
    """(status, headers, body) of one plain HTTP request."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def page_config(url):
    """The page's CSRF token and how it sees the browser, as embedded in the page."""
    _, _, body = http(url)
    return json.loads(re.search(rb'<script id="cfg" type="application/json">(.*?)</script>', body).group(1))


def pair_as_admin(browser, clock, name="kiosk"):
    """Pairs the page open in `browser` with admin rights, as a person types the code from
    `reveille web pair --admin`; returns the server's reply."""
    return pair_as(browser, clock, "--admin", "--name", name)


def pair_as(browser, clock, *flags):
    """Pairs the page open in `browser` with a code from `reveille web pair FLAGS`, typed as a
    person would; returns the server's reply."""
    code = clock.cli("web", "pair", *flags).stdout.split("\n")[0].split()[-1]
    return browser.run_async(
        "const done = arguments[arguments.length - 1];"
        "fetch('/pair', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Reveille-CSRF': CFG.csrf},"
        " body: JSON.stringify({code: arguments[0]})}).then(r => r.json()).then(done, e => done(String(e)));", code)


def non_loopback_address():
    """An address of this machine that is not loopback (a stranger's view of reveille-web), or None."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    except OSError:
        return None
    return next((a for a in out if "." in a and not a.startswith("127.")), None)


def png_brightness(path):
    """The mean brightness (0-255, Rec. 601 luma) of an 8-bit RGB or RGBA PNG, as Chromium saves
    its screenshots: the chunks inflated, each row's filter undone (PNG spec, section 9)."""
    import struct, zlib
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG layout {header}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    previous = bytearray(stride)
    total, position = 0.0, 0
    for _ in range(height):
        kind, line = raw[position], bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        for x in range(0, stride, channels):
            total += 0.299 * line[x] + 0.587 * line[x + 1] + 0.114 * line[x + 2]
        previous = line
    return total / (width * height)
