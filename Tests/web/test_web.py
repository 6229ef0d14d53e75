#!/usr/bin/env python3
"""The clock's page in real headless Chromium (Debian's chromium and chromium-driver, over
WebDriver), against real reveilled and reveille-web processes; sound goes through alsa-lib into
ALSA's file plugin. Each screen is saved as a screenshot under .build/web-screenshots/.

    python3 Tests/web/test_web.py [BINARIES]    (default: .build/debug; `make test` runs it)
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import (REPO, Browser, Clock, end_session, free_port, http, non_loopback_address, page_config, pair_as, pair_as_admin,
                       png_brightness, request, ring_soon, solve, status, wait_for)

BINARIES = os.path.join(REPO, ".build", "debug")
SHOTS = os.path.join(REPO, ".build", "web-screenshots")
# Sets a form field's value: browser.run(FILL, "f-time", "05:30").
FILL = "document.getElementById(arguments[0]).value = arguments[1];"
# The rule form's change by touch: "ring at" and the time picked, or "stay silent".
RULE = "ruleChange(arguments[0]);"


def one_pixel_png():
    """A PNG of one red pixel, made here."""
    import struct, zlib
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


class SSE:
    """A server-sent event stream read on a thread of its own, with `headers` (a device cookie)."""

    def __init__(self, url, headers):
        import http.client, threading, urllib.parse
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.connection.request("GET", parts.path, headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.chunks, self.lock = [], threading.Lock()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        try:
            while True:
                chunk = self.response.fp.read1(4096)
                if not chunk:
                    return
                with self.lock:
                    self.chunks.append(chunk.decode(errors="replace"))
        except (OSError, ValueError):
            return

    def text(self):
        with self.lock:
            return "".join(self.chunks)

    def close(self):
        try:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()


class PageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.address = non_loopback_address()
        # On every address, so that the same server can be reached as a stranger; loopback
        # browsers are still told apart by their address.
        cls.clock = Clock(BINARIES, address="0.0.0.0" if cls.address else "127.0.0.1")
        cls.browser = Browser()

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.clock.close()

    def setUp(self):
        end_session(self.clock)

    def shot(self, name):
        path = os.path.join(SHOTS, name + ".png")
        self.browser.screenshot(path)
        return path

    def open_page(self):
        self.browser.open(self.clock.url)
        wait_for(lambda: self.browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")

    def open_day(self, day):
        """Opens the page's month on `day` (this month or the next) and taps it: its sheet opens."""
        self.open_page()
        self.browser.click('nav button[data-view="month"]')
        if day[:7] != status(self.clock.sock)["now"][:7]:
            self.browser.click("#nextmonth")
        wait_for(lambda: self.browser.visible(f'.day[data-date="{day}"]'), what="the month grid")
        self.browser.click(f'.day[data-date="{day}"]')

    def paired_cookie(self, *flags):
        """The cookie of a device paired with a code from `reveille web pair FLAGS`, as a phone
        that typed it keeps it (plain HTTP, no browser)."""
        url = f"http://127.0.0.1:{self.clock.port}/"
        csrf = {"X-Reveille-CSRF": page_config(url)["csrf"], "Content-Type": "application/json"}
        code = self.clock.cli("web", "pair", *flags).stdout.split("\n")[0].split()[-1]
        status_, headers, body = http(url + "pair", "POST", json.dumps({"code": code}).encode(), csrf)
        self.assertEqual(status_, 200, body)
        return {"Cookie": headers["Set-Cookie"].split(";")[0]}

    def pair_browser_as_admin(self):
        reply = pair_as_admin(self.browser, self.clock)
        self.assertTrue(reply["ok"], reply)

    def test_1_the_clock_face_shows_the_next_ring_and_its_layer(self):
        reply = request(self.clock.sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "daily", "label": "work"}}})
        self.assertTrue(reply["ok"], reply)
        self.open_page()
        wait_for(lambda: "06:45" in (self.browser.text("#next") or ""), what="the next ring on the clock face")
        text = self.browser.text("#next")
        self.assertIn("Next:", text)
        self.assertIn("work", text)
        self.assertIn("as set", text)  # the deciding layer, named
        self.assertRegex(self.browser.text("#time"), r"^\d\d:\d\d$")
        self.shot("1-clock-face")
        # Night mode dims the page (on its own from 21:00 to 07:00; the button turns it on or off).
        night = lambda: self.browser.run("return document.body.classList.contains('night')")
        before = night()
        self.browser.click("#nightbtn")
        self.assertNotEqual(night(), before)
        self.shot("1-clock-face-night" if night() else "1-clock-face-day")
        self.browser.click("#nightbtn")

    def test_1b_the_face_marks_a_machine_with_no_network(self):
        """What the daemon says of the network (networkd's state, in its status) is a small mark on
        the face when there is none, gone when it is back; a machine networkd does not manage
        (here, the test's folder) shows nothing."""
        self.open_page()
        self.assertFalse(self.browser.visible("#netmark"))
        def with_network(network):
            self.browser.run("S.status.payload.status.network = arguments[0]; render();", network)
        with_network({"online": False, "state": "no-carrier", "words": "no network: the Wi-Fi or the cable is not connected"})
        self.assertTrue(self.browser.visible("#netmark"))
        self.assertEqual(self.browser.text("#netmark"), "⚠ No network — alarms still ring")
        self.shot("1b-clock-face-no-network")
        with_network({"online": True, "state": "routable", "words": "connected"})
        self.assertFalse(self.browser.visible("#netmark"))

    def test_2_an_alarm_takes_over_the_screen_and_snooze_snoozes(self):
        self.open_page()
        self.assertFalse(self.browser.visible("#ring"))
        ring_soon(self.clock, maxSnoozes=2, challenge="math")
        wait_for(lambda: self.browser.visible("#ring"), what="the ring screen")
        self.assertEqual(self.browser.text("#snooze"), "SNOOZE (2 left)")
        self.shot("2-ring-screen")
        self.browser.click("#snooze")
        wait_for(lambda: status(self.clock.sock)["session"]["state"] == "snoozed", what="the daemon to snooze")
        wait_for(lambda: "Snoozed until" in (self.browser.text("#ringwhen") or ""), what="the page to say snoozed")
        self.assertRegex(self.browser.text("#ringclock"), r"^\d\d:\d\d$", "the time, on the snoozed screen too")
        self.assertIn("sound: stopped", self.clock.log())
        self.shot("2-snoozed")

    def test_3_the_keypad_answers_the_problem_and_dismisses(self):
        self.open_page()
        ring_soon(self.clock, challenge="math")
        wait_for(lambda: self.browser.visible("#dismiss"), what="the DISMISS button")
        self.browser.click("#dismiss")
        wait_for(lambda: self.browser.visible("#problem"), what="the problem")
        problem = self.browser.text("#problem").removesuffix(" = ?")
        # A wrong answer gets a new problem, and the alarm keeps ringing.
        for key in str(solve(problem) + 1):
            self.browser.click(f'#keypad button[data-key="{key}"]')
        self.browser.click("#answer")
        wait_for(lambda: status(self.clock.sock)["session"]["wrongAnswers"] == 1, what="the wrong answer")
        wait_for(lambda: self.browser.text("#problem") != problem + " = ?", what="a new problem")
        self.assertEqual(status(self.clock.sock)["session"]["state"], "ringing")
        # At the 7" screen's 800x480: the time, every key and OK in view, and what the wrong answer
        # got said in the screen, never a toast over the keys.
        wait_for(lambda: "Not quite" in (self.browser.text("#ringnote") or ""), what="the answer's outcome on the ring screen")
        self.assertNotEqual(self.browser.run("return getComputedStyle(document.getElementById('toast')).display"), "block")
        self.assertRegex(self.browser.text("#ringclock"), r"^\d\d:\d\d$")
        outside = self.browser.run(
            "return [...document.querySelectorAll('#keypad button, #ringclock, #snooze')].filter(b => {"
            " const r = b.getBoundingClientRect(); return r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth;"
            "}).map(b => b.textContent)")
        self.assertEqual(outside, [], f"out of view at {self.browser.run('return [innerWidth, innerHeight]')}")
        problem = self.browser.text("#problem").removesuffix(" = ?")
        for key in str(solve(problem)):
            self.browser.click(f'#keypad button[data-key="{key}"]')
        self.shot("3-keypad")
        self.browser.click("#answer")
        wait_for(lambda: status(self.clock.sock).get("session", {}).get("state") != "ringing", what="the dismissal")
        wait_for(lambda: not self.browser.visible("#ring"), what="the ring screen to go")
        history = request(self.clock.sock, {"history": {"days": 1}})["payload"]["history"]
        self.assertEqual(history[0]["dismissedBy"], "math")
        # The page's history says the wrong answer, as the CLI's does.
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: "1 wrong answer" in (self.browser.text("#historyview") or ""), what="the wrong answer in the history")

    def test_4_a_tag_alarm_without_a_reader_falls_back_to_math(self):
        self.open_page()
        ring_soon(self.clock, challenge="nfc")
        wait_for(lambda: self.browser.visible("#ring"), what="the ring screen")
        session = status(self.clock.sock)["session"]
        self.assertTrue(session["fellBackToMath"])
        # The ring screen shows first; its buttons follow with the session's challenge.
        wait_for(lambda: self.browser.visible("#dismiss"), what="the math button")
        self.assertFalse(self.browser.visible("#tagprompt"))
        self.assertEqual(session["problemsLeft"], 3)
        wait_for(lambda: self.browser.text("#fallback") == "The tag reader is not working: solve 3 problems",
                 what="the fallback said")
        self.shot("4-tag-alarm-math-fallback")
        # Three hard problems on the keypad: each right answer brings the next, then it stops.
        self.browser.click("#dismiss")
        for left in (3, 2, 1):
            wait_for(lambda: self.browser.visible("#problem"), what="the problem")
            problem = self.browser.text("#problem").removesuffix(" = ?")
            self.assertEqual(problem.count("×"), 2, problem)
            for key in str(solve(problem)):
                self.browser.click(f'#keypad button[data-key="{key}"]')
            self.browser.click("#answer")
            if left > 1:
                wait_for(lambda: (status(self.clock.sock).get("session") or {}).get("problemsLeft", 1) == left - 1,
                         what="the next problem")
                wait_for(lambda: self.browser.text("#problem") != problem + " = ?", what="a new problem shown")
        wait_for(lambda: status(self.clock.sock).get("session") is None, what="the dismissal")

    def test_5_the_month_colours_each_day_by_its_deciding_layer(self):
        self.open_page()
        self.pair_browser_as_admin()
        today = status(self.clock.sock)["now"][:10]
        # A daily alarm; a rule moves Sundays, an override the day after tomorrow.
        request(self.clock.sock, {"alarmAdd": {"spec": {"time": "07:00", "days": "daily", "label": "month"}}})
        self.assertTrue(request(self.clock.sock, {"ruleAdd": {"days": "sun", "change": "09:30"}})["ok"])
        schedule = request(self.clock.sock, {"next": {"days": 16}})["payload"]["schedule"]["days"]
        override_day = schedule[2]["date"]
        self.assertTrue(request(self.clock.sock, {"overrideAdd": {"date": override_day, "change": "08:15"}})["ok"])
        sunday = next(d["date"] for d in schedule[1:] if d["weekday"] == "Sun" and d["date"] != override_day)
        self.open_page()
        self.browser.click('nav button[data-view="month"]')
        if sunday[:7] != today[:7]:
            self.browser.click("#nextmonth")
        wait_for(lambda: self.browser.visible(f'.day[data-date="{sunday}"]'), what="the month grid")
        classes = lambda date: self.browser.run(
            "const e = document.querySelector(`.day[data-date=\"${arguments[0]}\"]`); return e ? e.className : '';", date)
        self.assertIn("ring-rule", classes(sunday))
        if override_day[:7] == sunday[:7]:
            self.assertIn("ring-override", classes(override_day))
        self.shot("5-month")
        # Tapping a day: silence it. The day is struck through, coloured by its override.
        target = sunday
        self.browser.click(f'.day[data-date="{target}"]')
        wait_for(lambda: self.browser.visible("#dayoff"), what="the day's sheet")
        self.shot("5-day-sheet")
        self.browser.click("#dayoff")
        wait_for(lambda: "silent-override" in classes(target), what="the silenced day")
        decoration = self.browser.run(
            "return getComputedStyle(document.querySelector(`.day[data-date=\"${arguments[0]}\"] .t`)).textDecorationLine;",
            target)
        self.assertEqual(decoration, "line-through")
        overrides = request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]
        self.assertIn({"date": target, "change": "off"}, [{"date": o["date"], "change": o["change"]} for o in overrides])
        # ... and "remove override" gives the rule back.
        self.browser.click(f'.day[data-date="{target}"]')
        wait_for(lambda: self.browser.visible("#dayclear"), what="remove override")
        self.browser.click("#dayclear")
        wait_for(lambda: "ring-rule" in classes(target), what="the rule's colour again")
        self.shot("5-month-after")
        # A change made elsewhere (a phone, the CLI) reaches the open page by itself.
        self.assertTrue(request(self.clock.sock, {"overrideAdd": {"date": target, "change": "off"}})["ok"])
        wait_for(lambda: "silent-override" in classes(target), what="the page to follow the CLI's change")

    def test_6_forged_oversized_and_unknown_requests_are_refused(self):
        config = page_config(self.clock.url)
        command = self.clock.url + "api/command"
        alarms_before = request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]
        headers = {"Content-Type": "application/json"}
        body = json.dumps({"alarmRemove": {"id": 1}}).encode()
        code, _, text = http(command, "POST", body, headers)
        self.assertEqual(code, 403)
        self.assertIn(b"CSRF", text)
        code, _, text = http(command, "POST", body, {**headers, "X-Reveille-CSRF": config["csrf"],
                                                      "Origin": "http://evil.example"})
        self.assertEqual(code, 403)
        self.assertIn(b"another site", text)
        code, _, _ = http(command, "POST", b"x" * 20_000, {**headers, "X-Reveille-CSRF": config["csrf"]})
        self.assertEqual(code, 413)
        code, _, text = http(command, "POST", b"{not json", {**headers, "X-Reveille-CSRF": config["csrf"]})
        self.assertEqual(code, 400)
        code, _, text = http(command, "POST", json.dumps({"webPair": {"role": "admin", "name": "x"}}).encode(),
                             {**headers, "X-Reveille-CSRF": config["csrf"]})
        self.assertEqual(code, 403)
        self.assertIn(b"reveille command", text)
        # The kiosk (loopback, not paired) has the household's rights: it cannot remove alarms.
        code, _, text = http(command, "POST", body, {**headers, "X-Reveille-CSRF": config["csrf"]})
        self.assertEqual(code, 200)
        self.assertIn(b"permission denied", text)
        self.assertEqual(request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"], alarms_before)
        self.assertTrue(status(self.clock.sock))

    def test_7_an_unpaired_browser_elsewhere_is_refused_until_paired(self):
        if not self.address:
            self.skipTest("this machine has no non-loopback address to come from")
        url = f"http://{self.address}:{self.clock.port}/"
        self.assertEqual(page_config(url)["access"], "stranger")
        self.assertEqual(http(url + "api/state")[0], 403)
        self.assertEqual(http(url + "events")[0], 403)
        # A cookie that merely looks like a token opens nothing.
        forged = {"Cookie": "reveille_device=" + "ab" * 32}
        self.assertEqual(http(url + "events", headers=forged)[0], 403)
        self.assertEqual(http(url + "api/state", headers=forged)[0], 401)
        stranger = Browser()
        try:
            stranger.open(url)
            wait_for(lambda: stranger.visible("#paircode"), what="the pairing form")
            self.assertFalse(stranger.visible("#clock"))
            stranger.screenshot(os.path.join(SHOTS, "7-pairing.png"))
            code = self.clock.cli("web", "pair", "--name", "phone").stdout.split("\n")[0].split()[-1]
            # Typed by touch, on the page's own keypad (a kiosk has no keyboard): the dash comes by itself.
            stranger.click('#pairpad button[data-key="9"]')
            stranger.click('#pairpad button[data-key="⌫"]')
            for digit in code.replace("-", ""):
                stranger.click(f'#pairpad button[data-key="{digit}"]')
            self.assertEqual(stranger.run("return document.getElementById('paircode').value"),
                             code if "-" in code else code[:4] + "-" + code[4:])
            stranger.click("#pairbtn")
            wait_for(lambda: stranger.visible("#clock") and stranger.run("return !!S"), what="the paired page")
            self.assertEqual(stranger.run("return S.status.payload.status.role"), "user")
            self.assertIn("phone", self.clock.cli("web", "devices").stdout)
            stranger.screenshot(os.path.join(SHOTS, "7-paired.png"))
        finally:
            stranger.close()
        # Guessing from here: test_z (last, since it holds addresses off for ten minutes).

    def test_7b_another_local_user_on_loopback_is_no_kiosk_and_pairs(self):
        """Kiosk rights belong to the kiosk's user (here, whoever runs reveille-web: the tests'
        own), not to loopback: a second local user (nobody, through setpriv) on 127.0.0.1 is a
        stranger, refused until paired, as a child with a login would be."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv to be a second local user")
        url = f"http://127.0.0.1:{self.clock.port}/"
        self.assertEqual(page_config(url)["access"], "kiosk", "this machine's kiosk user lost its rights")
        code = self.clock.cli("web", "pair", "--name", "child").stdout.split("\n")[0].split()[-1]
        script = r"""
import json, re, sys, urllib.request, urllib.error
url, code = sys.argv[1], sys.argv[2]
def http(path, body=None, headers={}):
    request = urllib.request.Request(url + path, data=body, headers=headers, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()
_, _, page = http("")
config = json.loads(re.search(rb'<script id="cfg" type="application/json">(.*?)</script>', page).group(1))
csrf = {"X-Reveille-CSRF": config["csrf"], "Content-Type": "application/json"}
out = {"access": config["access"], "state": http("api/state")[0], "events": http("events")[0],
       "command": http("api/command", json.dumps({"appsOverview": {}}).encode(), csrf)[0]}
status, headers, _ = http("pair", json.dumps({"code": code}).encode(), csrf)
cookie = headers.get("Set-Cookie", "").split(";")[0]
out["pair"] = status
out["paired_state"] = http("api/state", headers={"Cookie": cookie})[0]
print(json.dumps(out))
"""
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                                 script, url, code], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        seen = json.loads(result.stdout)
        self.assertEqual(seen["access"], "stranger", seen)
        self.assertEqual((seen["state"], seen["events"], seen["command"]), (403, 403, 403), seen)
        self.assertEqual((seen["pair"], seen["paired_state"]), (200, 200), seen)
        self.assertIn("child", self.clock.cli("web", "devices").stdout)

    def test_10_a_thousand_half_sent_headers_do_not_keep_the_page_from_answering(self):
        import resource, socket
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
        held = []
        try:
            for _ in range(1100):
                s = socket.create_connection(("127.0.0.1", self.clock.port), timeout=5)
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                held.append(s)
            started = time.time()
            code, _, body = http(self.clock.url + "api/state")
            self.assertEqual(code, 200)
            self.assertLess(time.time() - started, 5)
            self.assertIn(b"status", body)
            # The server kept only the newest unfinished connections: the oldest were closed.
            closed = 0
            for s in held[:100]:
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        closed += 1
                except BlockingIOError:
                    pass
                except OSError:
                    closed += 1
            self.assertEqual(closed, 100)
        finally:
            for s in held:
                s.close()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def test_11_a_foreign_host_name_is_refused(self):
        import http.client as httpclient
        def get(host):
            connection = httpclient.HTTPConnection("127.0.0.1", self.clock.port, timeout=10)
            connection.request("GET", "/", headers={"Host": host})
            response = connection.getresponse()
            body = response.read()
            connection.close()
            return response.status, body
        code, body = get("evil.example:%d" % self.clock.port)
        self.assertEqual(code, 421)
        self.assertNotIn(b"csrf", body)
        self.assertEqual(get("localhost:%d" % self.clock.port)[0], 200)
        self.assertEqual(get("127.0.0.1:%d" % self.clock.port)[0], 200)

    def test_z_guesses_from_loopback_cannot_block_a_phones_valid_code(self):
        # Last (z): loopback is held off for ten minutes after it.

        if not self.address:
            self.skipTest("this machine has no non-loopback address to come from")
        import http.client as httpclient
        csrf = page_config(self.clock.url)["csrf"]
        answers = []
        for i in range(2, 22):
            connection = httpclient.HTTPConnection("127.0.0.1", self.clock.port, timeout=10,
                                                    source_address=("127.0.0.%d" % i, 0))
            connection.request("POST", "/pair", body=json.dumps({"code": "1111-00%02d" % i}),
                               headers={"Content-Type": "application/json", "X-Reveille-CSRF": csrf})
            answers.append(connection.getresponse().status)
            connection.close()
        self.assertEqual(answers, [403] * 5 + [429] * 15)
        code = self.clock.cli("web", "pair", "--name", "phone2").stdout.split("\n")[0].split()[-1]
        url = f"http://{self.address}:{self.clock.port}/"
        reply = http(url + "pair", "POST", json.dumps({"code": code}).encode(),
                     {"Content-Type": "application/json", "X-Reveille-CSRF": page_config(url)["csrf"]})
        self.assertEqual(reply[0], 200, reply)
        # Guessing from the phone's address: wrong codes are refused, then it is held off.
        csrf = page_config(url)["csrf"]
        codes = [http(url + "pair", "POST", json.dumps({"code": f"0000-000{i}"}).encode(),
                      {"Content-Type": "application/json", "X-Reveille-CSRF": csrf})[0] for i in range(6)]
        self.assertEqual(codes, [403, 403, 403, 403, 403, 429])

    def test_9_an_admin_adds_and_edits_from_the_lists_with_the_daemons_messages(self):
        self.admin_page()
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.visible("#f-save"), what="the alarm form")
        self.browser.run(FILL, "f-label", "gym")
        self.browser.run(FILL, "f-time", "05:30")
        self.browser.run(FILL, "f-days", "tue,thu")
        self.browser.click("#f-save")
        wait_for(lambda: any(a["label"] == "gym" and a["days"] == "tue,thu" and a["time"] == "05:30"
                             for a in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]),
                 what="the alarm added from the page")
        wait_for(lambda: "gym" in (self.browser.text("#lists") or ""), what="the list redrawn with it")
        # A mistake gets the daemon's own message, as the CLI would show it.
        self.browser.run(FILL, "f-days", "funday")
        self.browser.click("#f-save")
        cli = self.clock.cli("alarm", "add", "05:30", "--days", "funday")
        self.assertEqual(cli.returncode, 64)
        words = cli.stderr.strip().removeprefix("reveille: ").removeprefix("Error: ")
        wait_for(lambda: "funday" in (self.browser.text("#toast") or ""), what="the message")
        shown = self.browser.text("#toast")
        self.assertIn(shown[0].lower() + shown[1:], words)  # the same words, begun with a capital
        self.shot("9-lists-error")
        # A weekly rule, edited in place.
        rule = request(self.clock.sock, {"ruleAdd": {"days": "sat", "change": "off"}})["payload"]["rules"][0]
        self.open_page()
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.visible(f'button[data-act="ruleedit"][data-id="{rule["id"]}"]'), what="the rule")
        self.browser.click(f'button[data-act="ruleedit"][data-id="{rule["id"]}"]')
        self.browser.run(RULE, "10:15")
        self.browser.click("#r-add")
        wait_for(lambda: any(r["id"] == rule["id"] and r["change"] == "10:15"
                             for r in request(self.clock.sock, {"ruleList": {}})["payload"]["rules"]),
                 what="the rule changed from the page")
        self.shot("9-lists")
        phone = Browser(390, 844)
        try:
            phone.open(self.clock.url)
            wait_for(lambda: phone.run("return typeof S !== 'undefined' && S !== null"), what="the page on a phone")
            phone.screenshot(os.path.join(SHOTS, "9-phone-clock.png"))
            self.assertEqual(phone.run("return document.documentElement.scrollWidth <= window.innerWidth"), True)
            # Every tab fits, none cut off.
            self.assertEqual(phone.run("return [...document.querySelectorAll('nav button')]"
                                       ".every(b => b.scrollWidth <= b.clientWidth && b.getBoundingClientRect().right <= window.innerWidth)"), True)
        finally:
            phone.close()

    def test_12_alarms_are_paused_and_resumed_from_the_page(self):
        self.admin_page()
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.visible("#m-pause"), what="the master switch")
        try:
            self.browser.run("document.getElementById('m-until').value = arguments[0];", "2030-01-01")
            self.browser.click("#m-pauseuntil")
            wait_for(lambda: status(self.clock.sock)["master"] == "paused", what="alarms paused from the page")
            self.assertEqual(status(self.clock.sock)["pausedUntil"], "2030-01-01")
            wait_for(lambda: "Paused until Tue 1 Jan 2030" in (self.browser.text("#masterstate") or ""), what="the page saying so")
            # In a person's words: the CLI's commands stay in the CLI.
            self.assertNotIn("reveille", self.browser.text("#toast") or "")
            self.assertEqual(self.browser.run("return document.getElementById('layers').classList.contains('muted')"), True)
            self.shot("12-paused")
            self.browser.click("#m-resume")
            wait_for(lambda: status(self.clock.sock)["master"] == "on", what="alarms resumed from the page")
            wait_for(lambda: self.browser.visible("#m-pause"), what="the pause button back")
            self.assertEqual(self.browser.run("return document.getElementById('layers').classList.contains('muted')"), False)
            self.browser.click("#m-pause")
            wait_for(lambda: status(self.clock.sock)["master"] == "off", what="alarms off from the page")
            wait_for(lambda: "Off until resumed" in (self.browser.text("#masterstate") or ""), what="the page saying so")
            # Reminders have a switch of their own.
            self.browser.click("#m-reminders")
            wait_for(lambda: status(self.clock.sock).get("remindersOn") is False, what="reminders off from the page")
            wait_for(lambda: "Reminders: off" in (self.browser.text("#remindersstate") or ""), what="the page saying so")
            self.browser.click("#m-reminders")
            wait_for(lambda: status(self.clock.sock).get("remindersOn") is None, what="reminders on again")
        finally:
            request(self.clock.sock, {"resume": {}})
            request(self.clock.sock, {"remindersSwitch": {"on": True}})

    def public_file(self, name, text):
        """A file everyone may read, in a folder everyone may enter (as the daemon asks of a calendar)."""
        folder = tempfile.mkdtemp(prefix="reveille-web-public.")
        os.chmod(folder, 0o755)
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        return path

    def admin_page(self):
        self.open_page()
        if self.browser.run("return S.status.payload.status.role") != "admin":
            self.pair_browser_as_admin()
            self.open_page()

    def test_13_reminders_on_the_clock_face_a_chimes_banner_and_the_reminders_list(self):
        self.admin_page()
        now = status(self.clock.sock)["now"]  # "YYYY-MM-DD HH:MM:SS" on the clock's wall clock
        hour, minute = int(now[11:13]), int(now[14:16])
        if hour == 23 and minute >= 58:
            self.skipTest("too close to midnight for a reminder later today")
        later = f"{hour:02d}:{minute + 2:02d}" if minute < 58 else f"{hour + 1:02d}:00"
        reply = request(self.clock.sock, {"reminderAdd": {"spec": {"text": "vitamins", "time": later, "days": "daily",
                                                                   "body": "with a glass of water"}}})
        self.assertTrue(reply["ok"], reply)
        self.open_page()
        wait_for(lambda: f"{later} vitamins" in (self.browser.text("#reminderlist") or ""), what="today's reminder on the clock face")
        self.shot("13-clock-face-reminders")
        # A chime: a reminder calendar whose event starts in a few seconds chimes at its start.
        start = time.gmtime(time.time() + 4)
        calendar = self.public_file(
            "family.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//tests//EN\r\nBEGIN:VEVENT\r\nUID:dentist\r\n"
            "SUMMARY:Dentist\r\nLOCATION:Hauptstraße 5\r\n"
            f"DTSTART:{time.strftime('%Y%m%dT%H%M%SZ', start)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        added = request(self.clock.sock, {"calendarAdd": {"name": "family", "source": calendar, "purpose": "reminders",
                                                          "minutes": [0]}})
        self.assertTrue(added["ok"], added)
        try:
            try:
                wait_for(lambda: self.browser.visible("#chime"), seconds=20, what="the chime's banner")
            except AssertionError:
                raise AssertionError(f"no banner; the daemon's log: {self.clock.log()[-2000:]}")
            self.assertEqual(self.browser.text("#chimetext"), "Dentist")
            self.assertEqual(self.browser.text("#chimedetail"), "starting now, at Hauptstraße 5")
            self.shot("13-chime-banner")
            self.browser.click("#chime")
            self.assertFalse(self.browser.visible("#chime"))
        finally:
            request(self.clock.sock, {"calendarRemove": {"calendar": "family"}})
        # The Alarms tab lists reminders with their body, and adds and edits them.
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: "with a glass of water" in (self.browser.text("#reminders") or ""), what="the reminders list")
        self.browser.run(FILL, "q-text", "How did your session go?")
        self.browser.run(FILL, "q-body", "Reflect on your training")
        self.browser.run(FILL, "q-time", "19:00")
        self.browser.run(FILL, "q-days", "tue,thu")
        # A follow-up two hours later, and for one person. "For" lists the household's people (the
        # clock's login accounts, as the daemon reads them), or someone else by name (root here).
        self.browser.run(FILL, "q-then0", "7200")
        self.browser.run(FILL, "q-thentext0", "Stretched?")
        people = request(self.clock.sock, {"appCatalog": {}})["payload"]["apps"]["people"]
        wait_for(lambda: self.browser.run("return [...document.querySelectorAll('select[data-person=\"q-for\"] option')]"
                                          ".map(o => o.textContent)") == ["everyone", *people, "someone else…"],
                 what="the household's people to choose from")
        self.assertFalse(self.browser.visible("#q-for"), "a typed name where a list will do")
        self.browser.run("const s = document.querySelector('select[data-person=\"q-for\"]'); s.value = '*other';"
                         " s.dispatchEvent(new Event('change'));")
        self.assertTrue(self.browser.visible("#q-for"))
        self.browser.run(FILL, "q-for", "root")
        # "Someone else…" put the caret in the name's field, and on the clock's screen the page's
        # keyboard came up over the form: Done puts it away, as a person would.
        if self.browser.visible("#osk"):
            self.browser.click('#osk button[data-key="✓"]')
        self.browser.click("#q-save")
        added = lambda: [r for r in request(self.clock.sock, {"reminderList": {}})["payload"]["reminders"]
                         if r["text"] == "How did your session go?"]
        wait_for(lambda: added() and added()[0]["body"] == "Reflect on your training" and added()[0]["days"] == "tue,thu",
                 what="the reminder added from the page")
        self.assertEqual(added()[0]["followUps"], ["2 h: Stretched?"])
        self.assertEqual(added()[0].get("person"), "root")
        ident = added()[0]["id"]
        # The card says whom it is for and its follow-up; one for the household says so too.
        wait_for(lambda: "then 2 h later: “Stretched?”" in (self.browser.text("#reminders") or ""), what="the follow-up")
        self.assertIn("for root", self.browser.text("#reminders"))
        self.assertIn("for everyone", self.browser.text("#reminders"))
        wait_for(lambda: self.browser.visible(f'button[data-act="qedit"][data-id="{ident}"]'), what="its edit button")
        self.browser.click(f'button[data-act="qedit"][data-id="{ident}"]')
        self.assertEqual(self.browser.run("return document.getElementById('q-body').value"), "Reflect on your training")
        # The sheet shows what the reminder holds: its follow-up and its person.
        self.assertEqual(self.browser.run("return document.getElementById('q-then0').value"), "7200")
        self.assertEqual(self.browser.run("return document.getElementById('q-thentext0').value"), "Stretched?")
        self.assertEqual(self.browser.run("return document.getElementById('q-for').value"), "root")
        self.browser.run(FILL, "q-body", "")
        self.browser.run(FILL, "q-time", "19:30")
        self.browser.run("document.getElementById('q-enabled').checked = false;")
        self.browser.click("#q-save")
        wait_for(lambda: added()[0]["time"] == "19:30" and added()[0].get("body") is None, what="the reminder edited")
        self.assertEqual((added()[0]["enabled"], added()[0]["followUps"], added()[0].get("person")), (False, ["2 h: Stretched?"], "root"))
        self.shot("13-reminders")
        for reminder in request(self.clock.sock, {"reminderList": {}})["payload"]["reminders"]:
            request(self.clock.sock, {"reminderRemove": {"id": reminder["id"]}})

    def test_14_a_duplicate_rule_opens_the_existing_one_and_a_holiday_offers_a_one_time_alarm(self):
        self.admin_page()
        rule = request(self.clock.sock, {"ruleAdd": {"days": "wed", "change": "off"}})["payload"]["rules"][0]
        self.open_page()
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.visible("#r-add"), what="the rule form")
        self.browser.run(FILL, "r-days", "wed")
        self.browser.run(RULE, "09:00")
        self.browser.click("#r-add")
        wait_for(lambda: self.browser.text("#r-add") == "Save rule", what="the existing rule's editor")
        self.assertIn("Those days have a rule already", self.browser.text("#toast"))
        self.assertEqual(self.browser.run("return ruleChange()"), "09:00")
        self.browser.click("#r-add")
        wait_for(lambda: any(r["id"] == rule["id"] and r["change"] == "09:00"
                             for r in request(self.clock.sock, {"ruleList": {}})["payload"]["rules"]), what="the rule saved")
        request(self.clock.sock, {"ruleRemove": {"id": rule["id"]}})
        # A holiday of an alarm that skips holidays: no "Ring at…", a one-time alarm instead.
        for alarm in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]:
            request(self.clock.sock, {"alarmRemove": {"id": alarm["id"]}})
        self.assertTrue(request(self.clock.sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "daily", "label": "school",
                                                                        "skipHolidays": True}}})["ok"])
        schedule = request(self.clock.sock, {"next": {"days": 5}})["payload"]["schedule"]["days"]
        day = schedule[3]["date"]
        end = time.strftime("%Y%m%d", time.gmtime(time.mktime(time.strptime(day, "%Y-%m-%d")) + 86400 + 7200))
        calendar = self.public_file(
            "school.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//tests//EN\r\nBEGIN:VEVENT\r\nUID:h\r\n"
            f"SUMMARY:Snow day\r\nDTSTART;VALUE=DATE:{day.replace('-', '')}\r\nDTEND;VALUE=DATE:{end}\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n")
        self.assertTrue(request(self.clock.sock, {"calendarAdd": {"name": "school", "source": calendar}})["ok"])
        try:
            self.open_day(day)
            wait_for(lambda: self.browser.visible("#dayonce"), what="the holiday's sheet")
            self.assertFalse(self.browser.visible("#dayring"))
            sheet = self.browser.text("#daysheet")
            self.assertIn("silent (holiday: Snow day)", sheet)
            self.assertNotIn("holiday: holiday:", sheet)
            self.shot("14-holiday-sheet")
            self.browser.run("document.getElementById('dayat').value = '09:15';")
            self.browser.click("#dayonce")
            wait_for(lambda: any(a.get("date") == day and a["time"] == "09:15"
                                 for a in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]),
                     what="a one-time alarm on the holiday")
        finally:
            request(self.clock.sock, {"calendarRemove": {"calendar": "school"}})
            for alarm in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]:
                request(self.clock.sock, {"alarmRemove": {"id": alarm["id"]}})

    def test_26_ring_at_on_a_day_with_no_alarm_rings_as_the_household_ring(self):
        """A custody schedule's one-time ring from the month view, on a clock with no alarm: it
        rings, by itself, and the month and the clock face say so."""
        self.admin_page()
        for alarm in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]:
            request(self.clock.sock, {"alarmRemove": {"id": alarm["id"]}})
        day = request(self.clock.sock, {"next": {"days": 5}})["payload"]["schedule"]["days"][3]["date"]
        try:
            self.open_day(day)
            wait_for(lambda: self.browser.visible("#dayring"), what="the day's sheet")
            self.assertIn("nothing set", self.browser.text("#daysheet"))
            self.browser.run("document.getElementById('dayat').value = '09:40';")
            self.browser.click("#dayring")
            wait_for(lambda: status(self.clock.sock).get("nextRing"), what="a ring ahead")
            ring = status(self.clock.sock)["nextRing"]
            self.assertEqual((ring["date"], ring["time"], ring["alarmID"], ring["label"]), (day, "09:40", 0, "household ring"))
            wait_for(lambda: self.browser.text(f'.day[data-date="{day}"] .t') == "09:40", what="the month's cell")
            wait_for(lambda: "rings at 09:40" in self.browser.text("#daysheet"), what="the sheet's ring")
            self.shot("26-ring-at-with-no-alarm")
            self.browser.click('nav button[data-view="clock"]')
            wait_for(lambda: "household ring" in self.browser.text("#next"), what="the clock face's next ring")
            # Weekend mornings by a rule from the Alarms tab: they ring too.
            self.browser.click('nav button[data-view="lists"]')
            wait_for(lambda: self.browser.visible("#r-add"), what="the rule form")
            self.browser.run(FILL, "r-days", "sat,sun")
            self.browser.run(RULE, "09:05")
            self.browser.click("#r-add")
            weekend = lambda: [e for d in request(self.clock.sock, {"next": {"days": 8}})["payload"]["schedule"]["days"]
                               for e in d.get("lines", "").split(";") if e.startswith("09:05|0|rule|r")]
            wait_for(lambda: len(weekend()) >= 2, what="two weekend rings of the rule")
            for rule in request(self.clock.sock, {"ruleList": {}})["payload"]["rules"]:
                request(self.clock.sock, {"ruleRemove": {"id": rule["id"]}})
            # A disabled base with a live override, as the design says: disabled from the Alarms
            # tab, the alarm skips its base days and still rings on its override's day.
            for override in request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]:
                request(self.clock.sock, {"overrideRemove": {"id": override["id"]}})
            alarm = request(self.clock.sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "daily", "label": "school"}}})
            alarm_id = alarm["payload"]["alarms"][0]["id"]
            self.assertTrue(request(self.clock.sock, {"overrideAdd": {"alarmID": alarm_id, "date": day, "change": "08:10"}})["ok"])
            self.open_page()
            self.browser.click('nav button[data-view="lists"]')
            toggle = f'button[data-act="toggle"][data-id="{alarm_id}"]'
            wait_for(lambda: self.browser.visible(toggle), what="the alarm's on/off button")
            self.browser.click(toggle)
            wait_for(lambda: not next(a for a in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]
                                      if a["id"] == alarm_id)["enabled"], what="the alarm disabled")
            wait_for(lambda: "still ring it: override" in (self.browser.text("#toast") or ""), what="what still rings, said")
            self.assertNotIn("#", self.browser.text("#toast"), "a thing named by its CLI id on the page")
            ring = status(self.clock.sock)["nextRing"]
            self.assertEqual((ring["date"], ring["time"], ring["alarmID"]), (day, "08:10", alarm_id))
            self.open_day(day)
            wait_for(lambda: self.browser.text(f'.day[data-date="{day}"] .t') == "08:10", what="the override's ring in the month")
            self.shot("26-disabled-base-live-override")
        finally:
            for override in request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]:
                request(self.clock.sock, {"overrideRemove": {"id": override["id"]}})
            for rule in request(self.clock.sock, {"ruleList": {}})["payload"]["rules"]:
                request(self.clock.sock, {"ruleRemove": {"id": rule["id"]}})
            for alarm in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]:
                request(self.clock.sock, {"alarmRemove": {"id": alarm["id"]}})

    def test_15_the_apps_tab_shows_each_limited_users_apps_and_grants_to_the_one_chosen(self):
        self.admin_page()
        game = os.path.join(self.clock.root, "game")
        shutil.copy("/bin/true", game)
        policy = os.path.join(self.clock.root, "etc/reveille/apps.toml")
        with open(policy, "w") as f:
            f.write(f'[[app]]\nname = "game"\npaths = ["{game}"]\nlimit_minutes = 60\nusers = ["daemon", "nobody"]\n')
        overview = lambda: (request(self.clock.sock, {"appsOverview": {}}).get("payload") or {}).get("apps", {}).get("apps", [])
        try:
            wait_for(lambda: len(overview()) == 2, what="the policy read")
            self.open_page()
            self.browser.click('nav button[data-view="apps"]')
            wait_for(lambda: "nobody" in (self.browser.text("#apps") or ""), what="the limited users on the Apps tab")
            text = self.browser.text("#apps")
            self.assertIn("daemon", text)
            self.assertNotIn("root", text)
            self.shot("15-apps")
            index = [a["user"] for a in overview()].index("nobody")
            self.browser.click(f'button[data-app="{index}"]')
            wait_for(lambda: {a["user"]: a["grantMinutes"] for a in overview()} == {"daemon": 0, "nobody": 15},
                     what="15 minutes granted to nobody alone")
        finally:
            os.remove(policy)

    def test_16_the_kiosk_pairs_from_its_own_screen_at_the_port_it_is_served_on(self):
        kiosk = Browser()  # a fresh browser on this machine: the household's rights, no pairing yet
        try:
            kiosk.open(self.clock.url)
            wait_for(lambda: kiosk.run("return typeof S !== 'undefined' && S !== null"), what="the kiosk's page")
            self.assertEqual(kiosk.run("return S.status.payload.status.role"), "user")
            kiosk.click('nav button[data-view="lists"]')
            wait_for(lambda: kiosk.visible('button[data-act="pair"]'), what="the way to pair")
            kiosk.click('button[data-act="pair"]')
            self.assertTrue(kiosk.visible("#paircode"))
            paired = self.clock.cli("web", "pair", "--admin", "--name", "bedside")
            # The page's port, not the settings' default (reveille-web told the daemon where it serves).
            self.assertIn(f":{self.clock.port}/ and type it", paired.stdout)
            kiosk.run("document.getElementById('paircode').value = arguments[0];", paired.stdout.split("\n")[0].split()[-1])
            kiosk.click("#pairbtn")
            wait_for(lambda: kiosk.run("return !!S && S.status.payload.status.role === 'admin'"), what="admin rights")
        finally:
            kiosk.close()

    def test_42_the_kiosks_screen_sleeps_at_night_wakes_for_a_ring_and_its_waking_tap_presses_nothing(self):
        """hardware.md, "The kiosk": at night, a minute untouched, the kiosk's page goes black; a tap
        wakes it and lands on the black screen, not on the button under the finger; a ring wakes it
        by itself and keeps it awake; by day it stays on. (The minute is shortened here.)"""
        kiosk = Browser()  # a fresh browser on this machine is the kiosk (the shared one gets paired)
        try:
            self.sleeping_kiosk(kiosk)
        finally:
            kiosk.close()

    def sleeping_kiosk(self, kiosk):
        kiosk.open(self.clock.url)
        wait_for(lambda: kiosk.run("return typeof S !== 'undefined' && S !== null"), what="the kiosk's page")
        self.assertEqual(kiosk.run("return CFG.access"), "kiosk")
        kiosk.run("night.auto = false; document.body.classList.remove('night'); sleep.afterMs = 400; screenAwake();")
        time.sleep(1.2)
        self.assertFalse(kiosk.visible("#blank"), "by day the screen stays on")
        kiosk.run("document.body.classList.add('night'); screenAwake();")
        wait_for(lambda: kiosk.visible("#blank"), what="the screen asleep at night")
        kiosk.screenshot(os.path.join(SHOTS, "42-asleep.png"))
        # A tap where the Month tab is: the screen wakes, and the clock face is still what it shows.
        x, y = kiosk.run("const r = document.querySelector('nav button[data-view=\"month\"]').getBoundingClientRect();"
                                "return [r.x + r.width / 2, r.y + r.height / 2];")
        kiosk.tap_at(x, y)
        wait_for(lambda: not kiosk.visible("#blank"), what="the tap to wake the screen")
        self.assertEqual(kiosk.run("return view"), "clock", "the waking tap pressed the tab under it")
        self.assertTrue(kiosk.visible("#clock"))
        # Asleep again, then a ring: the ring screen is shown, and stays shown past the minute.
        wait_for(lambda: kiosk.visible("#blank"), what="the screen asleep again")
        ring_soon(self.clock, maxSnoozes=1, challenge="math")
        wait_for(lambda: kiosk.visible("#ring"), what="the ring screen, awake")
        time.sleep(1.2)
        self.assertFalse(kiosk.visible("#blank"), "the screen slept during a ring")
        kiosk.click("#dismiss")
        wait_for(lambda: kiosk.visible("#keypad"), what="the keypad, awake")
        time.sleep(1.2)
        self.assertFalse(kiosk.visible("#blank"), "the screen slept while the problem was asked")
        end_session(self.clock)
        wait_for(lambda: kiosk.visible("#blank"), what="asleep after the ring is over")

    # ---- Setting up apps (docs/guide/apps.md, "Setting up apps") ----

    def apps_page(self):
        self.admin_page()
        self.browser.click('nav button[data-view="apps"]')
        wait_for(lambda: self.browser.visible("#a-add"), what="the Apps sheet's Add button")

    def choose(self, field, value):
        """Sets a field as a person would: its value, then the change event the sheet listens to."""
        self.browser.run("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                         "e.dispatchEvent(new Event('change'));", field, value)

    def policy(self):
        return request(self.clock.sock, {"appList": {}})["payload"]["apps"]["policy"]

    def summary(self, name):
        return self.browser.run("const r = document.querySelector('#applist tr[data-name=\"' + arguments[0] + '\"] .summary');"
                                " return r ? r.textContent : null;", name)

    def remove_app(self, name):
        if any(a["name"] == name for a in self.policy()["apps"]):
            self.assertTrue(request(self.clock.sock, {"appRemove": {"name": name}})["ok"])

    def test_17b_a_limit_by_school_days_and_days_off_is_set_by_touch(self):
        """Limits that follow the holiday calendars, on the sheet: school days and days off, kept
        beside the weekdays' and shown in the summary; opened again, the sheet shows them."""
        self.apps_page()
        try:
            self.browser.click("#a-add")
            self.choose("a-name", "gamecal")
            self.choose("a-paths", "/usr/games/gamecal")
            self.choose("a-limitmode", "week")
            self.choose("a-wd", "60")
            self.choose("a-we", "120")
            self.choose("a-school", "45")
            self.choose("a-off", "180")
            self.browser.click("#a-save")
            wait_for(lambda: any(a["name"] == "gamecal" for a in self.policy()["apps"]), what="the app saved")
            app = next(a for a in self.policy()["apps"] if a["name"] == "gamecal")
            self.assertEqual((app["limits"]["school_days"], app["limits"]["days_off"], app["limits"]["mon"]), (45, 180, 60))
            wait_for(lambda: (self.summary("gamecal") or "").startswith("45m school days, 3h days off"),
                     what="the summary with the calendar's limits")
            self.assertIn("days_off = 180", self.clock.cli("apps", "export").stdout)
        finally:
            self.remove_app("gamecal")

    def test_17_a_reward_game_is_added_with_its_limits_and_window_and_its_summary_shows(self):
        self.apps_page()
        try:
            self.browser.click("#a-add")
            self.choose("a-name", "game")
            self.choose("a-paths", "/usr/games/game")
            self.choose("a-category", "reward")  # the stricter defaults are offered
            self.assertEqual(self.browser.run("return document.getElementById('a-wd').value"), "60")
            self.assertEqual(self.browser.run("return document.getElementById('a-we').value"), "120")
            self.assertEqual(self.browser.run("return document.getElementById('a-wdfrom').value"), "15:00")
            self.choose("a-wd", "120")
            self.choose("a-we", "180")
            self.shot("17-app-sheet")
            self.browser.click("#a-save")
            wait_for(lambda: self.summary("game") == "2h weekdays, 3h weekends · 15:00–20:00", what="the summary in the list")
            app = next(a for a in self.policy()["apps"] if a["name"] == "game")
            self.assertEqual(app["category"], "reward")
            self.assertEqual(app["limits"], {"mon": 120, "tue": 120, "wed": 120, "thu": 120, "fri": 120, "sat": 180, "sun": 180})
            self.assertFalse(self.browser.visible("#appsheet"))
            self.shot("17-apps-list")
        finally:
            self.remove_app("game")

    def test_27_an_app_is_picked_from_the_installed_ones(self):
        """The app picker: the clock's own .desktop files (under its root), a pick fills the
        program and the name, one that cannot be limited is offered but not pickable."""
        root = self.clock.root
        for path, text, mode in [
            ("usr/games/tuxgame", "#!/bin/sh\n", 0o755),
            ("usr/share/applications/tux.desktop", "[Desktop Entry]\nType=Application\nName=Tux Racer\nExec=tuxgame %U\n", 0o644),
            ("var/lib/snapd/desktop/applications/mines_mines.desktop",
             "[Desktop Entry]\nType=Application\nName=Mines\nExec=/snap/bin/mines\n", 0o644),
        ]:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(root, path), mode)
        self.apps_page()
        try:
            self.browser.click("#a-add")
            wait_for(lambda: self.browser.visible("#a-installed"), what="the installed apps")
            options = self.browser.run("return [...document.querySelectorAll('#a-installed option')].map(o => [o.textContent, o.disabled])")
            self.assertIn(["Mines — can't be limited", True], options)
            tux = self.browser.run("return [...document.querySelectorAll('#a-installed option')].find(o => o.textContent === 'Tux Racer').value")
            self.choose("a-installed", tux)
            wait_for(lambda: self.browser.run("return document.getElementById('a-paths').value") == root + "/usr/games/tuxgame",
                     what="the program filled in")
            self.assertEqual(self.browser.run("return document.getElementById('a-name').value"), "tux")
            self.choose("a-limitmode", "week")
            self.choose("a-wd", "30")
            self.choose("a-we", "60")
            self.shot("27-app-picker")
            self.browser.click("#a-save")
            wait_for(lambda: any(a["name"] == "tux" for a in self.policy()["apps"]), what="the picked app saved")
            self.assertEqual(next(a for a in self.policy()["apps"] if a["name"] == "tux")["paths"], [root + "/usr/games/tuxgame"])
            self.browser.click("#a-add")
            wait_for(lambda: self.browser.visible("#a-installed"), what="the installed apps again")
            self.assertIn("Tux Racer — limited as tux", self.browser.text("#a-installed"))
            self.browser.click("#a-cancel")
        finally:
            self.remove_app("tux")

    def test_27b_an_apps_icon_heads_its_sheet_and_several_are_added_at_once(self):
        """The sheet's header shows the icon the .desktop entry names (from the icon theme's
        folders, under the clock's root), or a letter tile; several apps are added at once, each
        not configured until its sheet is saved."""
        root = self.clock.root
        png = one_pixel_png()
        files = [
            ("usr/games/penguin", b"#!/bin/sh\n", 0o755), ("usr/games/snail", b"#!/bin/sh\n", 0o755),
            ("usr/games/crab", b"#!/bin/sh\n", 0o755),
            ("usr/share/applications/penguin.desktop",
             b"[Desktop Entry]\nType=Application\nName=Penguin\nExec=penguin\nIcon=penguin-game\n", 0o644),
            ("usr/share/applications/snail.desktop",
             b"[Desktop Entry]\nType=Application\nName=Snail\nExec=snail\nIcon=../../../etc/passwd\n", 0o644),
            ("usr/share/applications/crab.desktop", b"[Desktop Entry]\nType=Application\nName=Crab\nExec=crab\n", 0o644),
            ("usr/share/icons/hicolor/48x48/apps/penguin-game.png", png, 0o644),
        ]
        for path, data, mode in files:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "wb") as f:
                f.write(data)
            os.chmod(os.path.join(root, path), mode)
        # The server: the icon by its name, nothing by a path; an SVG would be sandboxed.
        status_code, headers, body = http(self.clock.url + "icon/penguin-game")
        self.assertEqual((status_code, headers.get("Content-Type"), body), (200, "image/png", png))
        self.assertIn("sandbox", headers.get("Content-Security-Policy"))
        self.assertEqual(http(self.clock.url + "icon/..%2F..%2Fetc%2Fpasswd")[0], 404)
        self.assertEqual(http(self.clock.url + "icon/nothing-here")[0], 404)
        self.apps_page()
        try:
            self.browser.click("#a-add")
            wait_for(lambda: self.browser.visible("#a-installed"), what="the installed apps")
            self.assertEqual(self.browser.run("return document.getElementById('a-icon').tagName"), "SPAN", "a tile before a pick")
            penguin = self.browser.run("return [...document.querySelectorAll('#a-installed option')].find(o => o.textContent === 'Penguin').value")
            self.choose("a-installed", penguin)
            wait_for(lambda: self.browser.run("const i = document.getElementById('a-icon'); return i.tagName === 'IMG' && i.complete && i.naturalWidth === 1"),
                     what="the penguin's icon in the sheet's header")
            snail = self.browser.run("return [...document.querySelectorAll('#a-installed option')].find(o => o.textContent === 'Snail').value")
            self.choose("a-installed", snail)
            wait_for(lambda: self.browser.run("const i = document.getElementById('a-icon'); return i.tagName === 'SPAN' && i.textContent.length === 1"),
                     what="a letter tile for an icon that is a path")
            self.browser.click("#a-cancel")
            # Several at once: each is added, not configured, and its card says so.
            self.browser.click("#a-add")
            wait_for(lambda: self.browser.visible("#a-installed"), what="the installed apps again")
            self.browser.run("document.getElementById('a-several').open = true;")
            for name in ("Penguin", "Crab"):
                self.browser.run("[...document.querySelectorAll('#a-several label')].find(l => l.textContent.trim() === arguments[0])"
                                 ".querySelector('input').click();", name)
            self.browser.click("#a-addseveral")
            wait_for(lambda: {"penguin", "crab"} <= {a["name"] for a in self.policy()["apps"]}, what="both apps added")
            for name in ("penguin", "crab"):
                wait_for(lambda: self.summary(name) == "⚠️ Not configured", what=f"{name} not configured")
                app = next(a for a in self.policy()["apps"] if a["name"] == name)
                self.assertFalse(app["configured"])
        finally:
            for name in ("penguin", "crab"):
                self.remove_app(name)

    def test_18_a_learning_app_cannot_be_saved_without_limits_nor_with_seven_minutes(self):
        self.apps_page()
        self.browser.click("#a-add")
        self.choose("a-name", "maths")
        self.choose("a-paths", "/usr/bin/maths")
        self.choose("a-category", "learning")
        self.assertIn("A learning app needs its daily limits", self.browser.text("#a-problems"))
        self.assertTrue(self.browser.run("return document.getElementById('a-save').disabled"))
        self.choose("a-limitmode", "week")
        self.choose("a-wd", "7")
        self.choose("a-we", "500")
        self.assertIn("Weekdays: use 0–480 minutes, in steps of 5", self.browser.text("#a-problems"))
        self.assertIn("Weekends: use 0–480 minutes, in steps of 5", self.browser.text("#a-problems"))
        self.assertTrue(self.browser.run("return document.getElementById('a-save').disabled"))
        # Forced past the page, the daemon refuses it too.
        reply = self.browser.run_async(
            "const done = arguments[arguments.length - 1];"
            "send({appPut: {setup: {name: 'maths', category: 'learning', paths: ['/usr/bin/maths'], limits: {}, users: [], enabled: true},"
            " adding: true, revision: null}}, true).then(done);")
        self.assertFalse(reply["ok"])
        self.assertIn("a learning app needs its daily limits", reply["error"]["message"])
        self.choose("a-wd", "30")
        self.choose("a-we", "60")
        self.assertFalse(self.browser.run("return document.getElementById('a-save').disabled"))
        self.browser.click("#a-cancel")
        self.assertFalse(any(a["name"] == "maths" for a in self.policy()["apps"]))

    def test_19_an_app_left_unconfigured_shows_the_warning(self):
        self.apps_page()
        self.assertEqual(self.clock.cli("apps", "add", "chess", "--path", "/usr/games/chess").returncode, 0)
        try:
            wait_for(lambda: self.summary("chess") == "⚠️ Not configured", what="the warning on the app")
            self.assertIn("1 app is not configured, and blocked until set up: chess", self.browser.text("#a-unset"))
            self.shot("19-not-configured")
            # Its card says so by its border too (grey), and a tap on it opens its sheet, where
            # "Full day" is chosen already (the per-app design); saved, the card is set (blue).
            border = ("const probe = document.createElement('i'); document.body.appendChild(probe);"
                      "probe.style.color = `var(${arguments[1]})`; const want = getComputedStyle(probe).color; probe.remove();"
                      "const cell = document.querySelector(`#applist tr[data-name='${arguments[0]}'] td`);"
                      "return getComputedStyle(cell).borderLeftColor === want;")
            self.assertTrue(self.browser.run(border, "chess", "--holiday"), "a grey border")
            self.assertIn("Tap to configure", self.browser.text("#applist tr[data-name='chess']"))
            self.browser.click("#applist tr[data-name='chess'] td")
            wait_for(lambda: self.browser.visible("#a-save"), what="its sheet, from a tap on the card")
            self.assertEqual(self.browser.run("return document.getElementById('a-hours').value"), "full")
            self.browser.click("#a-save")
            wait_for(lambda: self.summary("chess") not in (None, "⚠️ Not configured"), what="the card set up")
            self.assertTrue(self.browser.run(border, "chess", "--rule"), "a blue border")
            self.assertNotIn("Tap to configure", self.browser.text("#applist tr[data-name='chess']"))
        finally:
            self.remove_app("chess")

    def test_20_a_game_set_up_on_the_page_is_refused_outside_its_window_by_the_kernel(self):
        if os.geteuid() != 0:
            self.skipTest("needs root: fanotify permission events need CAP_SYS_ADMIN (CI runs as root)")
        game = os.path.join(self.clock.root, "page-game")
        with open("/usr/bin/true", "rb") as src, open(game, "wb") as dst:
            dst.write(src.read() + b"reveille page test")  # its own content: /usr/bin/true stays unlisted
        os.chmod(game, 0o755)
        self.assertEqual(subprocess.run([game]).returncode, 0)
        hour = (time.localtime().tm_hour + 3) % 24  # a window that is not now
        window = (f"{hour:02d}:00", f"{hour:02d}:30")
        self.apps_page()
        try:
            self.browser.click("#a-add")
            self.choose("a-name", "pagegame")
            self.choose("a-paths", game)
            self.choose("a-users", "root")
            self.choose("a-hours", "set")
            for field, value in (("a-wdfrom", window[0]), ("a-wdto", window[1]), ("a-wefrom", window[0]), ("a-weto", window[1])):
                self.choose(field, value)
            self.browser.click("#a-save")
            wait_for(lambda: self.summary("pagegame") is not None, what="the app in the list")
            def runs():
                try:
                    return subprocess.run([game]).returncode == 0
                except PermissionError:  # the exec itself refused: EPERM from fanotify
                    return False
            wait_for(lambda: not runs(), what="the kernel to refuse the game")
            with self.assertRaises(PermissionError):
                subprocess.run([game])
            log = self.clock.log()
            self.assertIn(f"app pagegame denied to root", log)
            self.assertIn(f"outside its hours ({window[0]}–{window[1]} today)", log)
        finally:
            self.remove_app("pagegame")

    def test_21_a_hand_edit_while_the_sheet_is_open_shows_and_nothing_is_lost(self):
        apps = os.path.join(self.clock.root, "etc/reveille/apps.toml")
        with open(apps, "w") as f:
            f.write('[[app]]\nname = "tv"\npaths = ["/usr/bin/tv"]\nlimit_minutes = 30\n')
        try:
            wait_for(lambda: any(a["name"] == "tv" for a in self.policy()["apps"]), what="apps.toml read")
            self.apps_page()
            wait_for(lambda: self.summary("tv") is not None, what="tv in the list")
            index = [a["name"] for a in self.policy()["apps"]].index("tv")
            self.browser.click(f'button[data-edit="{index}"]')
            self.choose("a-limitmode", "week")
            self.choose("a-wd", "45")
            self.choose("a-we", "90")
            # Root edits the file meanwhile: another app appears in the list, the sheet keeps what was typed.
            with open(apps, "a") as f:
                f.write('\n[[app]]\nname = "radio"\npaths = ["/usr/bin/radio"]\nlimit_minutes = 60\n')
            wait_for(lambda: self.summary("radio") == "1h daily · all day", what="the hand edit on the page")
            wait_for(lambda: self.browser.visible("#a-stale"), what="the sheet to say the apps changed")
            self.assertEqual(self.browser.run("return document.getElementById('a-wd').value"), "45")
            self.shot("21-changed-under-the-sheet")
            self.browser.click("#a-save")
            wait_for(lambda: "Save again to apply them" in (self.browser.text("#a-problems") or ""), what="the refusal, kept")
            self.assertEqual(self.browser.run("return document.getElementById('a-we').value"), "90")
            self.browser.click("#a-save")
            wait_for(lambda: self.summary("tv") == "45m weekdays, 1h30m weekends · all day", what="the sheet saved")
            names = [a["name"] for a in self.policy()["apps"]]
            self.assertIn("radio", names)  # the hand edit stands too
        finally:
            os.remove(apps)
            for name in ("tv", "radio"):
                self.remove_app(name)

    def test_22_a_request_for_more_time_is_approved_with_one_tap(self):
        self.apps_page()
        self.assertEqual(self.clock.cli("apps", "add", "game2", "--path", "/usr/games/game2", "--limit", "60",
                                        "--user", "root").returncode, 0)
        try:
            # Root asks on the apps socket, where anyone is only themselves.
            apps_sock = os.path.join(self.clock.root, "run/reveille/apps.sock")
            asked = request(apps_sock, {"appAsk": {"name": "game2", "minutes": 30, "why": "one more level"}})
            self.assertTrue(asked["ok"], asked)
            wait_for(lambda: self.browser.visible("#apprequests"), what="the request on the page")
            self.assertIn("root asks for 30 more minutes of game2 — “one more level”", self.browser.text("#apprequests"))
            self.shot("22-request")
            self.browser.click("button[data-approve]")
            wait_for(lambda: not self.browser.visible("#apprequests"), what="the request answered")
            check = request(self.clock.sock, {"appCheck": {"name": "game2", "user": "root"}})["payload"]["apps"]["apps"][0]
            self.assertEqual(check["grantMinutes"], 30)
            # Answered by the paired browser, by its name.
            answered = request(self.clock.sock, {"appRequests": {}})["payload"]["apps"]["requests"][-1]
            self.assertEqual((answered["state"], answered["answeredBy"]), ("approved", "kiosk"))
        finally:
            self.remove_app("game2")

    def test_22b_the_live_stream_tells_no_one_but_an_admin_about_a_child(self):
        """A phone paired without admin rights, and the kiosk, follow /events: another child's
        request for more time (its reason) and the app they run reach only an admin's browser; the
        others hear that something changed, as the commands refuse them `appRequests`."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv: the child who asks is another user (nobody)")
        url = f"http://127.0.0.1:{self.clock.port}/"

        streams = {"member": SSE(url + "events", self.paired_cookie("--name", "member-phone")),
                   "kiosk": SSE(url + "events", {}),
                   "admin": SSE(url + "events", self.paired_cookie("--admin", "--name", "parent-phone"))}
        added = self.clock.cli("apps", "add", "game8", "--path", "/usr/games/game8", "--limit", "60", "--user", "nobody")
        self.assertEqual(added.returncode, 0, added)
        try:
            for stream in streams.values():
                wait_for(lambda: "event: daemon" in stream.text(), what="the stream to open")
            apps_sock = os.path.join(self.clock.root, "run/reveille/apps.sock")
            # The child asks on the apps socket, as themselves (the test's folder let open to them).
            os.chmod(self.clock.root, 0o755)
            ask = ("import json, socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
                   "s.sendall((json.dumps({'v': 1, 'op': {'appAsk': {'name': 'game8', 'minutes': 30, "
                   "'why': 'private: talking to counsellor'}}}) + chr(10)).encode()); print(s.makefile().readline())")
            asked = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                                    "-c", ask, apps_sock], capture_output=True, text=True, timeout=30)
            self.assertIn('"ok":true', asked.stdout.replace(" ", ""), asked)
            wait_for(lambda: "counsellor" in streams["admin"].text(), what="the admin's stream to hear the request")
            for who in ("member", "kiosk"):
                wait_for(lambda: "data: {}" in streams[who].text(), what=f"the {who}'s stream to hear that something changed")
                text = streams[who].text()
                self.assertNotIn("counsellor", text, who)
                self.assertNotIn("appRequest", text, who)
                self.assertNotIn("game8", text, who)
            self.assertIn('"appRequest"', streams["admin"].text())
        finally:
            for stream in streams.values():
                stream.close()
            for asked in request(self.clock.sock, {"appRequests": {}})["payload"]["apps"]["requests"]:
                if asked["app"] == "game8" and asked["state"] == "waiting":
                    request(self.clock.sock, {"appAnswer": {"id": asked["id"], "approve": False}})
            self.remove_app("game8")

    def test_22c_a_childs_phone_shows_their_own_apps_and_asks_for_more(self):
        """A phone paired for a child (`web pair --for`) opens at that child's apps: the minutes
        left today, and "Ask for more", sent as the child, which an admin's stream hears and whose
        answer comes back to the phone. Another child's app, request and reason reach it neither
        by the page's state nor by its stream."""
        url = f"http://127.0.0.1:{self.clock.port}/"

        for app, user in (("game8", "nobody"), ("game9", "root")):
            added = self.clock.cli("apps", "add", app, "--path", f"/usr/games/{app}", "--limit", "60", "--user", user)
            self.assertEqual(added.returncode, 0, added)
        child_cookie = self.paired_cookie("--for", "nobody", "--name", "mia-phone")
        streams = {"child": SSE(url + "events", child_cookie),
                   "admin": SSE(url + "events", self.paired_cookie("--admin", "--name", "parent-phone"))}
        try:
            for stream in streams.values():
                wait_for(lambda: "event: daemon" in stream.text(), what="the stream to open")
            # Another child asks on their own account (root, on the apps socket), for a private reason.
            apps_sock = os.path.join(self.clock.root, "run/reveille/apps.sock")
            self.assertTrue(request(apps_sock, {"appAsk": {"name": "game9", "minutes": 20, "why": "private: a call"}})["ok"])
            wait_for(lambda: "a call" in streams["admin"].text(), what="the admin's stream to hear the other child")
            wait_for(lambda: "data: {}" in streams["child"].text(), what="the child's stream to hear that something changed")
            # The page's state for the child's phone: their apps, their requests, no one else's.
            status_, _, body = http(url + "api/state", headers=child_cookie)
            self.assertEqual(status_, 200)
            state = json.loads(body)
            self.assertEqual(state["status"]["payload"]["status"]["person"], "nobody")
            self.assertEqual([a["name"] for a in state["apps"]["payload"]["apps"]["apps"]], ["game8"])
            # Their own requests only (an earlier test's child, nobody, may have asked today too).
            self.assertEqual({r["user"] for r in state["appRequests"]["payload"]["apps"]["requests"]} - {"nobody"}, set())
            for secret in ("game9", "private: a call"):
                self.assertNotIn(secret, body.decode() if isinstance(body, bytes) else body)

            # The browser, paired for the child as a person types the code: it opens at their apps.
            self.open_page()
            self.assertTrue(pair_as(self.browser, self.clock, "--for", "nobody", "--name", "mia-laptop")["ok"])
            self.open_page()
            wait_for(lambda: self.browser.visible("#myapps"), what="the child's apps, opened by themselves")
            text = self.browser.text("#myapps")
            self.assertIn("game8", text)
            self.assertIn("60 min left", text)
            self.assertNotIn("game9", self.browser.text("#apps"))
            self.shot("22c-a-childs-apps")
            self.browser.click("#myapps button[data-ask]")
            wait_for(lambda: self.browser.visible("#asksheet"), what="the sheet that asks for more")
            self.browser.click('#asksheet button[data-minutes="30"]')
            self.browser.run("document.getElementById('ask-why').value = 'homework';")
            self.shot("22c-asking-for-more")
            self.browser.click("#ask-send")
            wait_for(lambda: "homework" in streams["admin"].text(), what="the admin's stream to hear the child ask")
            wait_for(lambda: "homework" in streams["child"].text(), what="the child's own stream to hear it too")
            wait_for(lambda: "waiting for an answer" in (self.browser.text("#myasks") or ""), what="the ask, waiting")
            asked = [r for r in request(self.clock.sock, {"appRequests": {}})["payload"]["apps"]["requests"]
                     if r["app"] == "game8" and r["state"] == "waiting"]
            self.assertEqual([(r["user"], r["minutes"], r["why"]) for r in asked], [("nobody", 30, "homework")])
            # The admin approves: the child's phone says so and counts the minutes in.
            self.assertTrue(request(self.clock.sock, {"appAnswer": {"id": asked[0]["id"], "approve": True}})["ok"])
            wait_for(lambda: "approved" in (self.browser.text("#myasks") or ""), what="the answer on the child's phone")
            wait_for(lambda: "90 min left" in (self.browser.text("#myapps") or ""), what="the minutes granted, counted in")
            self.shot("22c-approved")
            for secret in ("game9", "private: a call"):
                self.assertNotIn(secret, streams["child"].text())
                self.assertNotIn(secret, self.browser.text("body"))
        finally:
            for stream in streams.values():
                stream.close()
            for asked in request(self.clock.sock, {"appRequests": {}})["payload"]["apps"]["requests"]:
                if asked["app"] in ("game8", "game9") and asked["state"] == "waiting":
                    request(self.clock.sock, {"appAnswer": {"id": asked["id"], "approve": False}})
            self.remove_app("game8")
            self.remove_app("game9")
            # The browser is the household's again, as the next tests expect.
            self.pair_browser_as_admin()

    def fill_by_touch(self, field, text):
        """Taps `field` on the clock's own screen, checks the page's keyboard is up with the field
        in sight above it, clears it with ⌫ and types `text` on the keys; then Done."""
        b = self.browser
        # A field in a closed part of a sheet: its heading is tapped open first.
        if b.run("const d = document.getElementById(arguments[0]).closest('details'); return !!d && !d.open", field):
            b.run("document.getElementById(arguments[0]).closest('details').querySelector('summary').scrollIntoView({block: 'center'});", field)
            b.tap_at(*b.run("const r = document.getElementById(arguments[0]).closest('details').querySelector('summary')"
                            ".getBoundingClientRect(); return [r.x + 40, r.y + r.height / 2]", field))
        def tap_field():
            b.run("document.getElementById(arguments[0]).scrollIntoView({block: 'center'});", field)
            b.tap_at(*b.run("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                            "return [r.x + Math.min(r.width / 2, 60), r.y + r.height / 2]", field))
        tap_field()
        try:
            wait_for(lambda: b.visible("#osk"), seconds=3, what=f"the keyboard for {field}")
        except AssertionError:
            # A tap that landed as the page redrew the form (a change streamed from the clock)
            # reached the field it replaced: a person taps again.
            tap_field()
            wait_for(lambda: b.visible("#osk"), what=f"the keyboard for {field}")
        place = lambda: b.run("const f = document.getElementById(arguments[0]).getBoundingClientRect(),"
                              " k = document.getElementById('osk').getBoundingClientRect(); return [f.top, f.bottom, k.top]", field)
        try:
            wait_for(lambda: 0 <= place()[0] and place()[1] <= place()[2], seconds=2, what=f"{field} above the keyboard")
        except AssertionError:
            self.fail(f"{field} is not in sight above the keyboard: {place()}")
        for _ in b.run("return document.getElementById(arguments[0]).value", field):
            b.tap_at(*b.run("const k = document.querySelector('#osk button[data-key=\"⌫\"]').getBoundingClientRect();"
                            "return [k.x + k.width / 2, k.y + k.height / 2]"))
        type_by_touch(b, text)
        self.assertEqual(b.run("return document.getElementById(arguments[0]).value", field), text)
        b.tap_at(*b.run("const k = document.querySelector('#osk button[data-key=\"✓\"]').getBoundingClientRect();"
                        "return [k.x + k.width / 2, k.y + k.height / 2]"))
        wait_for(lambda: not b.visible("#osk"), what="the keyboard put away by Done")

    def test_25_every_field_is_filled_by_touch_on_the_clocks_own_screen(self):
        """The kiosk has no keyboard: every text field of every form (an alarm, a reminder, an app,
        a calendar, a tag) is filled on the page's own keyboard, by taps only, at 800x480, and
        minutes are picked; what is saved is what was typed."""
        self.admin_page()
        b = self.browser
        self.assertTrue(b.run("return !!CFG.screen"), "the test's browser is the clock's own screen")
        try:
            # An alarm: its label, and its snooze lengths (the keyboard opens on digits).
            b.click('nav button[data-view="lists"]')
            wait_for(lambda: b.visible("#f-save"), what="the alarm form")
            lengths = b.run("return document.querySelector('#lists input[inputmode=numeric]').id")
            self.fill_by_touch("f-label", "Early gym")
            self.assertEqual(b.run("return osk.numeric"), False)
            self.fill_by_touch(lengths, "9,7")
            b.click("#f-save")
            wait_for(lambda: any(a["label"] == "Early gym" for a in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]),
                     what="the alarm typed by touch")
            # A reminder: title, body and a follow-up's words.
            self.fill_by_touch("q-text", "Stretch")
            self.fill_by_touch("q-body", "two minutes, then water")
            self.choose("q-then0", "900")
            self.fill_by_touch("q-thentext0", "Done?")
            b.click("#q-save")
            wait_for(lambda: any(r["text"] == "Stretch" and r.get("body") == "two minutes, then water"
                                 for r in request(self.clock.sock, {"reminderList": {}})["payload"]["reminders"]),
                     what="the reminder typed by touch")
            # A calendar's name, address and words, a tag's label and UID.
            b.click('nav button[data-view="more"]')
            wait_for(lambda: b.visible("#c-name"), what="the calendars' form")
            self.fill_by_touch("c-name", "school")
            self.fill_by_touch("c-url", "https://example.org/term_2.ics?x=1&y=[a]")
            self.fill_by_touch("c-only", "break, holiday")
            self.fill_by_touch("c-except", "night")
            self.fill_by_touch("c-minutes", "15")
            self.fill_by_touch("t-label", "kitchen")
            self.fill_by_touch("t-uid", "04A1B2C3")
            b.click("#t-add")  # "Add by UID" once failed here: the page sent a timeout, which the daemon refused
            wait_for(lambda: any(t["label"] == "kitchen" and t["uid"].upper() == "04A1B2C3"
                                 for t in request(self.clock.sock, {"tagList": {}})["payload"]["tags"]),
                     what="the tag typed by touch")
            # An app: its name, program and people by the keyboard, its minutes by picking.
            b.click('nav button[data-view="apps"]')
            wait_for(lambda: b.visible("#a-add"), what="the Apps sheet's Add button")
            b.click("#a-add")
            self.fill_by_touch("a-name", "chess")
            self.fill_by_touch("a-paths", "/usr/games/chess")
            self.choose("a-limitmode", "week")
            self.assertEqual(b.run("return document.getElementById('a-wd').tagName"), "SELECT")
            self.choose("a-wd", "45")
            self.choose("a-we", "90")
            b.click("#a-save")
            wait_for(lambda: any(a["name"] == "chess" and a["limits"].get("mon") == 45 and a["limits"].get("sat") == 90
                                 for a in self.policy()["apps"]), what="the app typed and picked by touch")
            b.screenshot(os.path.join(SHOTS, "25-by-touch.png"))
        finally:
            for alarm in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]:
                if alarm["label"] == "Early gym":
                    request(self.clock.sock, {"alarmRemove": {"id": alarm["id"]}})
            for reminder in request(self.clock.sock, {"reminderList": {}})["payload"]["reminders"]:
                if reminder["text"] == "Stretch":
                    request(self.clock.sock, {"reminderRemove": {"id": reminder["id"]}})
            request(self.clock.sock, {"tagRemove": {"label": "kitchen"}})
            self.remove_app("chess")

    def test_23_a_request_outside_the_apps_hours_says_so_and_can_open_it_now(self):
        self.apps_page()
        # Hours that are not now: two hours from now on the clock's wall clock, for an hour.
        hour = int(status(self.clock.sock)["now"][11:13])
        hours = f"{(hour + 2) % 24:02d}:00-{(hour + 3) % 24:02d}:00"
        self.assertEqual(self.clock.cli("apps", "add", "game3", "--path", "/usr/games/game3", "--hours", hours, "--limit", "60",
                                        "--user", "root").returncode, 0)
        try:
            apps_sock = os.path.join(self.clock.root, "run/reveille/apps.sock")
            self.assertTrue(request(apps_sock, {"appAsk": {"name": "game3", "minutes": 20}})["ok"])
            wait_for(lambda: self.browser.visible("#apprequests .closed"), what="the request, said to be outside the hours")
            text = self.browser.text("#apprequests")
            self.assertIn("game3 is outside its hours (", text)
            self.assertIn("“Open now” lets root use it from now for 20 minutes", text)
            self.assertIn("Approve for later", text)
            self.shot("23-request-outside-hours")
            self.browser.click("button[data-open]")
            wait_for(lambda: not self.browser.visible("#apprequests"), what="the request answered")
            check = request(self.clock.sock, {"appCheck": {"name": "game3", "user": "root"}})["payload"]["apps"]["apps"][0]
            self.assertTrue(check["allowed"], check)
            self.assertIn("(opened by an admin until ", check["reason"])
            self.assertEqual(check["grantMinutes"], 20)
        finally:
            self.remove_app("game3")

    def test_31_every_alarm_setting_on_the_sheet_and_a_sound_chosen_and_heard(self):
        import wave
        folder = os.path.join(self.clock.root, "usr/local/share/sounds")
        os.makedirs(folder, exist_ok=True)
        bell = os.path.join(folder, "bell.wav")
        with wave.open(bell, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(b"\x00\x10" * 16000)
        for path in (self.clock.root, os.path.join(self.clock.root, "usr"), os.path.join(self.clock.root, "usr/local"),
                     os.path.join(self.clock.root, "usr/local/share"), folder):
            os.chmod(path, 0o755)
        os.chmod(bell, 0o644)
        self.admin_page()
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.run("return !!document.querySelector('#f-sound option[value$=\"bell.wav\"]')"),
                 what="the clock's sounds offered")
        self.choose("f-sound", bell)
        wav = os.path.join(self.clock.root, "sound.wav")
        before = os.path.getsize(wav) if os.path.exists(wav) else 0
        self.browser.click("#f-hear")
        wait_for(lambda: "Playing it for 5 seconds" in (self.browser.text("#toast") or ""), what="the sound heard")
        wait_for(lambda: os.path.exists(wav) and os.path.getsize(wav) > before, what="the sound on the device")
        request(self.clock.sock, {"soundStop": {}})
        # Every setting the CLI offers, set on the sheet, reaches the alarm.
        self.browser.run(FILL, "f-label", "every setting")
        self.browser.run(FILL, "f-time", "05:55")
        self.browser.run("for (const d of document.querySelectorAll('#alarmform details')) d.open = true;")
        for field, value in (("f-challenge", "any"), ("f-mathDifficulty", "hard"), ("f-mathProblems", "3"), ("f-maxSnoozes", "2"),
                             ("f-wakeCheckSeconds", "300"), ("f-escalateAfterSeconds", "600"), ("f-commitSeconds", "28800"), ("f-leadSeconds", "1200"),
                             ("f-fadeInSeconds", "60"), ("f-volumeCeiling", "70")):
            self.choose(field, value)
        self.browser.run(FILL, "f-snoozeMinutes", "9,7,5")
        self.browser.run("document.getElementById('f-volume').value = 60;")
        self.browser.click("#f-skipHolidays")
        self.browser.click("#f-leadSound")
        self.shot("31-alarm-sheet")
        self.browser.click("#f-save")
        alarms = lambda: [a for a in request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"] if a["label"] == "every setting"]
        wait_for(alarms, what="the alarm saved")
        a = alarms()[0]
        try:
            self.assertEqual((a["sound"], a["challenge"], a["mathDifficulty"], a["mathProblems"], a["maxSnoozes"], a["snoozeMinutes"],
                              a["laterSnoozeMinutes"], a["wakeCheckSeconds"], a["escalateAfterSeconds"], a["commitSeconds"],
                              a["leadSeconds"], a["leadSound"], a["skipHolidays"], a["volume"], a["fadeInSeconds"], a["time"],
                              a["volumeCeiling"]),
                             (bell, "any", "hard", 3, 2, 9, [7, 5], 300, 600, 28800, 1200, True, True, 60, 60, "05:55", 70))
            # The sheet opens on what was saved (once the list, redrawn on the daemon's change, shows it).
            edit = f'button[data-act="edit"][data-id="{a["id"]}"]'
            wait_for(lambda: self.browser.visible(edit), what="the saved alarm in the list")
            self.browser.click(edit)
            wait_for(lambda: self.browser.run("return document.getElementById('f-snoozeMinutes').value") == "9,7,5", what="the sheet on the alarm")
            self.assertEqual(self.browser.run("return document.getElementById('f-sound').value"), bell)
            self.assertEqual(self.browser.run("return document.getElementById('f-volumeCeiling').value"), "70")
        finally:
            request(self.clock.sock, {"alarmRemove": {"id": a["id"]}})

    def test_8_the_page_says_when_the_daemon_restarts_and_comes_back(self):
        self.open_page()
        self.clock.stop_daemon()
        wait_for(lambda: "not answering" in (self.browser.text("#banner") or ""), what="the page to say so")
        self.assertTrue(self.browser.visible("#banner"))
        self.shot("8-daemon-away")
        self.clock.start_daemon()
        wait_for(lambda: not self.browser.visible("#banner"), seconds=15, what="the page to reconnect")
        wait_for(lambda: "Next:" in (self.browser.text("#next") or "") or "No alarm" in (self.browser.text("#next") or ""),
                 what="the clock face again")


class FirstSetupPageTests(unittest.TestCase):
    """hardware.md, "The image": a flashed clock's first boot asks on its screen where it is, sets
    the zone, and shows a phone how to pair; once, and only on the kiosk."""

    def test_the_kiosk_asks_where_the_clock_is_sets_the_zone_and_shows_a_phones_code(self):
        clock = Clock(BINARIES, address="0.0.0.0", first_setup=True)
        browser = Browser()
        try:
            self.assertTrue(status(clock.sock)["setupPending"])
            browser.open(clock.url)
            wait_for(lambda: browser.visible("#setupset"), what="the set-up's question")
            self.assertFalse(browser.visible("#clock") and not browser.visible("#setup"))
            # Region, then place, by touch: the lists are the zones the browser knows.
            browser.run("const r = document.getElementById('setupregion'); r.value = 'Europe';"
                        "r.dispatchEvent(new Event('change'));")
            self.assertIn("Europe/Berlin", browser.run("return [...document.querySelectorAll('#setupplace option')].map(o => o.value)"))
            browser.run("document.getElementById('setupplace').value = 'Europe/Berlin';")
            browser.screenshot(os.path.join(SHOTS, "43-first-setup.png"))
            browser.click("#setupset")
            # This clock has no Wi-Fi adapter: said so, and the set-up goes on without.
            wait_for(lambda: "No Wi-Fi adapter" in (browser.text("#wifistate") or ""), what="no Wi-Fi adapter")
            self.assertEqual(browser.text("#wifiskip"), "Continue without Wi-Fi")
            # Where the emulated Pi's bench taps it (scripts/vm/screens.py), at 800x480.
            sys.path.insert(0, os.path.join(REPO, "scripts", "vm"))
            from screens import WIFI_CONTINUE
            centre = browser.run("const r = document.getElementById('wifiskip').getBoundingClientRect();"
                                 "return [r.x + r.width / 2, r.y + r.height / 2]")
            self.assertLess(max(abs(centre[0] - WIFI_CONTINUE[0]), abs(centre[1] - WIFI_CONTINUE[1])), 12, centre)
            browser.screenshot(os.path.join(SHOTS, "43-first-setup-no-wifi.png"))
            browser.click("#wifiskip")
            wait_for(lambda: browser.visible("#setupcode"), what="the phone's pairing code")
            code = browser.text("#setupcode")
            self.assertRegex(code, r"^\d{4}-\d{4}$")
            where = browser.text("#setupwhere")
            self.assertIn(f":{clock.port}/", where, "the address a phone opens, at the page's port")
            browser.screenshot(os.path.join(SHOTS, "43-first-setup-pair.png"))
            # The daemon follows the zone it set, and asks no more.
            wait_for(lambda: status(clock.sock)["timeZone"] == "Europe/Berlin", what="the daemon in Berlin's zone")
            self.assertNotIn("setupPending", status(clock.sock))
            self.assertFalse(os.path.exists(os.path.join(clock.root, "var/lib/reveille/first-setup")))
            # The code pairs a phone as an admin.
            phone = request(clock.sock, {"webRedeem": {"code": code}})
            self.assertTrue(phone["ok"], phone)
            self.assertEqual(phone["payload"]["web"]["devices"][0]["role"], "admin")
            browser.click("#setupdone")
            wait_for(lambda: not browser.visible("#setup"), what="the clock face after Done")
            self.assertTrue(browser.visible("#clock"))
            # Once: asked again, over the socket or by a page, it is refused and the zone stays.
            again = request(clock.sock, {"firstSetup": {"timeZone": "America/New_York"}})
            self.assertFalse(again["ok"])
            self.assertIn("set up already", again["error"]["message"])
            self.assertEqual(status(clock.sock)["timeZone"], "Europe/Berlin")
        finally:
            browser.close()
            clock.close()

    def test_a_zone_that_is_no_zone_is_refused_and_the_set_up_still_asks(self):
        clock = Clock(BINARIES, first_setup=True)
        try:
            for zone in ["../../etc/passwd", "Europe/Nowhere", "", "Europe//Berlin", "-x", "/etc/localtime"]:
                reply = request(clock.sock, {"firstSetup": {"timeZone": zone}})
                self.assertFalse(reply["ok"], zone)
                self.assertIn("not one this clock knows", reply["error"]["message"], zone)
            self.assertTrue(status(clock.sock)["setupPending"])
            self.assertEqual(os.readlink(os.path.join(clock.root, "etc/localtime")), "/usr/share/zoneinfo/UTC")
        finally:
            clock.close()


OSK_LAYERS = {"abc": ["qwertyuiop", "asdfghjkl", "zxcvbnm", ", ."], "123": ["1234567890", "-/:;()$&@\"", ".,?!'_"],
              "#+=": ["[]{}#%^*+=", "_\\|~<>`", ".,?!'"]}


def type_by_touch(browser, text):
    """Types `text` on the page's own keyboard with taps only (no key events), switching its
    layers as a person would: ⇧ for a capital, 123 and #+= for the rest."""
    def tap(key):
        # The layer a key switched to is drawn as the tap is handled, which a browser may do
        # after its driver answers (WPE): the key is looked for until it is there.
        where = lambda: browser.run("const b = [...document.querySelectorAll('#osk button')].find(b => b.dataset.key === arguments[0]);"
                                    "if (!b) return null; const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];", key)
        try:
            rect = wait_for(where, seconds=3, what=f"the key {key!r}")
        except AssertionError:
            raise AssertionError(f"no key {key!r} on the keyboard's layer now")
        # Every key changes something: the field's text or the layer. WPE's driver, under load,
        # now and then drops a tap it acknowledged: a finger taps again.
        seen = "return [osk.layer, osk.target ? osk.target.value : null]"
        before = browser.run(seen)
        browser.tap_at(*rect)
        try:
            wait_for(lambda: browser.run(seen) != before, seconds=1.5, what=f"the key {key!r} taken")
        except AssertionError:
            browser.tap_at(*rect)
            wait_for(lambda: browser.run(seen) != before, seconds=3, what=f"the key {key!r} taken")
    # The way from one layer to another, a key at a time.
    ways = {("abc", "123"): ["123"], ("abc", "#+="): ["123", "#+="], ("123", "abc"): ["abc"], ("123", "#+="): ["#+="],
            ("#+=", "abc"): ["abc"], ("#+=", "123"): ["123"]}
    layer = browser.run("return osk.layer")
    for char in text:
        if char == " ":
            tap(" ")
            continue
        want = next(name for name, rows in OSK_LAYERS.items() if any(char.lower() in row for row in rows) and
                    (name == "abc") == char.isalpha())
        if want != layer:
            for key in ways[(layer if layer != "ABC" else "abc", want)]:
                tap(key)
            layer = want
        if char.isupper():
            tap("⇧")  # one capital, then small letters again
        tap(char)


class WifiPageTests(unittest.TestCase):
    """hardware.md, "Wi-Fi": the first set-up asks which Wi-Fi after the zone, the password is
    typed on the page's own keyboard by touch alone, and an admin changes networks under More.
    Against a played wpa_supplicant (webdriver.FakeSupplicant); the real one is the VM bench's."""

    PASSWORD = "Correct horse 7!"

    def test_the_first_set_up_joins_the_households_wifi_by_touch_alone(self):
        self.first_set_up_by_touch(Browser, "")

    def first_set_up_by_touch(self, make, shot):
        clock = Clock(BINARIES, address="0.0.0.0", first_setup=True, wifi={"Household": self.PASSWORD})
        browser = make()
        try:
            browser.open(clock.url)
            wait_for(lambda: browser.visible("#setupset"), what="the set-up's question")
            browser.run("document.getElementById('setupplace').value = 'Europe/London';")
            browser.click("#setupset")
            wait_for(lambda: browser.run("return document.querySelectorAll('#wifilist button').length") == 4,
                     what="the networks heard")
            rows = browser.run("return [...document.querySelectorAll('#wifilist button')].map(b => [b.textContent, b.disabled])")
            # Strongest first, a lock on the protected ones; an enterprise network cannot be picked.
            self.assertEqual([r[0].split("▮")[0].split("needs")[0].strip() for r in rows],
                             ["Household", "Neighbours", "Office", "Café"])
            locks = browser.run("return [...document.querySelectorAll('#wifilist button')].map(b => !!b.querySelector('svg.lock'))")
            self.assertEqual(locks, [True, True, True, False])
            self.assertTrue(rows[0][0].endswith("▮▮▮▮"))
            self.assertEqual([r[1] for r in rows], [False, False, True, False])
            self.assertIn("Tap yours", browser.text("#wifinote"))
            browser.screenshot(os.path.join(SHOTS, "44-" + shot + "wifi-list.png"))
            self.assertFalse(browser.visible("#osk"), "no keyboard before a field is touched")
            browser.click("#wifilist button[data-net='0']")
            wait_for(lambda: browser.visible("#osk"), what="the keyboard for the password")
            self.assertEqual(browser.text("#wifititle"), "The password of “Household”")
            # A wrong password: said in a person's words, and asked again.
            type_by_touch(browser, "wrong one")
            self.assertEqual(browser.run("return document.getElementById('wifipw').value"), "wrong one")
            browser.tap_at(*browser.run("const r = document.getElementById('wifijoin').getBoundingClientRect();"
                                        "return [r.x + r.width / 2, r.y + r.height / 2]"))
            wait_for(lambda: "Wrong password" in (browser.text("#wifistate") or ""), what="the wrong password said")
            self.assertEqual(browser.text("#wifistate"), "Wrong password for “Household”: check it and type it again")
            self.assertTrue(browser.visible("#wifipw"))
            browser.screenshot(os.path.join(SHOTS, "44-" + shot + "wifi-wrong-password.png"))
            # Typed again, shown while typed, every key in reach above the keyboard.
            browser.click("#wifiback")
            browser.click("#wifilist button[data-net='0']")
            wait_for(lambda: browser.visible("#osk"), what="the keyboard again")
            self.assertEqual(browser.run("return document.getElementById('wifipw').value"), "")
            browser.click("#wifishow")
            type_by_touch(browser, self.PASSWORD)
            self.assertEqual(browser.run("return document.getElementById('wifipw').value"), self.PASSWORD)
            self.assertEqual(browser.run("return document.getElementById('wifipw').type"), "text")
            covered = browser.run(
                "const k = document.getElementById('osk').getBoundingClientRect().top;"
                "return ['wifipw', 'wifijoin', 'wifiback', 'wifishow'].filter(id => document.getElementById(id).getBoundingClientRect().bottom > k)")
            self.assertEqual(covered, [], "what the keyboard covers")
            browser.screenshot(os.path.join(SHOTS, "44-" + shot + "wifi-keyboard.png"))
            browser.tap_at(*browser.run("const r = document.getElementById('wifijoin').getBoundingClientRect();"
                                        "return [r.x + r.width / 2, r.y + r.height / 2]"))
            wait_for(lambda: browser.visible("#setupcode"), seconds=20, what="the pairing code after the join")
            self.assertTrue(browser.text("#setupwhere").startswith("Joined “Household”. On a phone"))
            self.assertRegex(browser.text("#setupcode"), r"^\d{4}-\d{4}$")
            self.assertFalse(browser.visible("#osk"))
            browser.screenshot(os.path.join(SHOTS, "44-" + shot + "wifi-joined.png"))
            # Only the key reached the Wi-Fi service; the password is in no log, state or status.
            import hashlib
            key = hashlib.pbkdf2_hmac("sha1", self.PASSWORD.encode(), b"Household", 4096, 32).hex()
            self.assertIn(f"SET_NETWORK 2 psk {key}", clock.wifi.commands)
            self.assertIn("SAVE_CONFIG", clock.wifi.commands)
            def read(path):
                with open(os.path.join(clock.root, path), "rb") as f:
                    return f.read().decode("latin-1")
            texts = [clock.log(), read("reveille-web.out"), json.dumps(status(clock.sock)), read("var/lib/reveille/state.sqlite")]
            for text in texts:
                self.assertNotIn(self.PASSWORD, text)
                self.assertNotIn("wrong one", text)
            self.assertEqual(status(clock.sock)["timeZone"], "Europe/London")
        finally:
            browser.close()
            clock.close()

    def test_out_of_reach_back_to_the_list_and_more_network_is_an_admins(self):
        clock = Clock(BINARIES, wifi={"Household": self.PASSWORD})
        browser = Browser()
        try:
            browser.open(clock.url)
            wait_for(lambda: browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")
            browser.click("nav button[data-view='more']")
            wait_for(lambda: browser.visible("#networkview h3"), what="the network sheet")
            # The kiosk, unpaired, has the household's user rights: no Wi-Fi button, and refused anyway.
            self.assertFalse(browser.visible("#n-wifi"))
            self.assertIn("only an admin", request(clock.sock, {"wifiScan": {}}, cap="user")["error"]["message"])
            self.assertTrue(pair_as_admin(browser, clock)["ok"])
            browser.open(clock.url)
            wait_for(lambda: browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")
            browser.click("nav button[data-view='more']")
            wait_for(lambda: browser.visible("#n-wifi"), what="the admin's Wi-Fi button")
            browser.click("#n-wifi")
            wait_for(lambda: browser.run("return document.querySelectorAll('#wifilist button').length") == 4, what="the list")
            self.assertEqual(browser.text("#wifiskip"), "Close")
            # An open network joins at a tap; one that went out of reach says so, and the list comes back.
            clock.wifi.gone.add("Neighbours")
            browser.click("#wifilist button[data-net='1']")
            browser.click("#wifipw")
            type_by_touch(browser, "neighbourly")
            browser.click("#wifijoin")
            wait_for(lambda: "out of reach" in (browser.text("#wifistate") or ""), seconds=20, what="out of reach said")
            wait_for(lambda: browser.visible("#wifilist button"), what="the list again")
            self.assertTrue(browser.text("#wifistate").startswith("“Neighbours” is out of reach"))
            browser.click("#wifilist button[data-net='3']")
            wait_for(lambda: not browser.visible("#wifi"), seconds=20, what="the open network joined")
            wait_for(lambda: "joined “café”" in (browser.text("#toast") or "").lower(), what="the toast")
        finally:
            browser.close()
            clock.close()


class SetupNetworkPageTests(unittest.TestCase):
    """hardware.md, "Wi-Fi": a clock with no screen opens its own set-up network; a phone on it,
    paired as an admin with the code the voice said, sets the zone and picks the household's
    network, told first that the clock will leave the set-up network. Against a played
    wpa_supplicant (webdriver.FakeSupplicant)."""

    def test_a_phone_on_the_set_up_network_sets_the_zone_and_moves_the_clock_to_the_households_wifi(self):
        clock = Clock(BINARIES, first_setup=True, wifi={"Household": WifiPageTests.PASSWORD},
                      settings="[wifi]\nsetup_network_wait_seconds = 1\n")
        browser = Browser(width=390, height=800)  # a phone
        try:
            wait_for(lambda: status(clock.sock).get("setupNetwork") == "Reveille-00A3", what="the set-up network")
            self.assertIn("the set-up network Reveille-00A3 is open", clock.log())  # its words: SetupNetworkTests
            browser.open(clock.url)
            self.assertTrue(pair_as_admin(browser, clock, name="phone")["ok"])
            browser.open(clock.url)
            wait_for(lambda: browser.visible("#setupset"), what="the set-up on the phone")
            browser.run("document.getElementById('setupplace').value = 'Europe/Paris';")
            browser.click("#setupset")
            wait_for(lambda: browser.run("return document.querySelectorAll('#wifilist button').length") == 4,
                     what="the networks the clock heard before it opened its own")
            # The daemon follows the zone link it set (inotify): a moment later.
            wait_for(lambda: status(clock.sock)["timeZone"] == "Europe/Paris", what="the zone set from the phone")
            self.assertFalse(browser.visible("#wifiskip"), "a screenless clock must join")
            browser.click("#wifilist button[data-net='0']")
            browser.run("document.getElementById('wifipw').value = arguments[0];", WifiPageTests.PASSWORD)
            browser.click("#wifijoin")
            wait_for(lambda: not browser.visible("#wifi"), seconds=20, what="joined")
            wait_for(lambda: "wifi: on Household; the set-up network is closed" in clock.log(), what="the set-up network closed")
            self.assertNotIn("setupNetwork", status(clock.sock))
            self.assertNotIn(WifiPageTests.PASSWORD, clock.log())
        finally:
            browser.close()
            clock.close()


class BacklightPageTests(unittest.TestCase):
    """hardware.md, "The screen's backlight": the kiosk's page says what it shows and the daemon
    sets the backlight: dim in night mode, off while the night's black screen is up, back at a
    touch and at a bedside key (its watch event), full at a ring."""

    def test_the_backlight_follows_the_kiosks_night_its_black_screen_a_touch_a_key_and_a_ring(self):
        clock = Clock(BINARIES, backlight=True, settings="[screen]\nday_percent = 80\nnight_percent = 10\n")
        browser = Browser()
        level = lambda: open(clock.brightness).read().strip()
        try:
            browser.open(clock.url)
            wait_for(lambda: browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")
            night = browser.run("return document.body.classList.contains('night')")
            wait_for(lambda: level() == ("26" if night else "204"), what="the backlight for the page's mode")
            if not night:
                browser.click("#nightbtn")
            wait_for(lambda: level() == "26", what="dim in night mode")
            # A quiet minute (shortened) at night: the page goes black, the backlight off.
            browser.run("sleep.afterMs = 300; screenAwake();")
            wait_for(lambda: browser.visible("#blank"), what="the night's black screen")
            wait_for(lambda: level() == "0", what="the backlight off")
            # A touch wakes both.
            browser.tap_at(400, 240)
            wait_for(lambda: level() == "26", what="dim again after a touch")
            wait_for(lambda: browser.visible("#blank"), what="black again")
            wait_for(lambda: level() == "0", what="off again")
            # A bedside key's event, as the daemon streams it (BedsideTests hears the daemon send it), wakes it too.
            wait_for(lambda: browser.visible("#blank"), what="black again")
            wait_for(lambda: level() == "0", what="off again")
            browser.run("heard({screenWake: true});")
            wait_for(lambda: level() == "26", what="dim again after a key")
            # A ring: full, and the page shows it (its quiet minute a minute again).
            browser.run("sleep.afterMs = 60000; screenAwake();")
            ring_soon(clock, label="morning")
            wait_for(lambda: level() == "255", what="full at a ring")
            wait_for(lambda: browser.visible("#ring"), what="the ring screen")
            end_session(clock)
            wait_for(lambda: level() == "26", what="dim after the ring (night mode, awake)")
        finally:
            browser.close()
            clock.close()


class DesignRowsPageTests(unittest.TestCase):
    """The school-calendar design's rows on the page, against a daemon of their own with no alarm:
    a day nothing covers, the household ring's days, the lists in the layers' colours, an override
    edited in its day's sheet."""

    @classmethod
    def setUpClass(cls):
        cls.clock = Clock(BINARIES)
        cls.browser = Browser()

    tearDownClass = classmethod(PageTests.tearDownClass.__func__)
    setUp = PageTests.setUp
    open_page = PageTests.open_page

    def admin(self):
        self.open_page()
        self.assertTrue(pair_as_admin(self.browser, self.clock, "design")["ok"])
        self.open_page()
        wait_for(lambda: self.browser.run("return !!S && S.status.payload.status.role === 'admin'"), what="admin rights")

    def tap(self, day):
        self.browser.click('nav button[data-view="month"]')
        if day[:7] != status(self.clock.sock)["now"][:7]:
            self.browser.click("#nextmonth")
        wait_for(lambda: self.browser.visible(f'.day[data-date="{day}"]'), what="the month grid")
        self.browser.click(f'.day[data-date="{day}"]')

    def test_40_a_day_nothing_covers_says_so_and_a_layers_day_opens_its_sheet(self):
        self.admin()
        now = status(self.clock.sock)["now"][:10]
        days = request(self.clock.sock, {"next": {"days": 14}})["payload"]["schedule"]["days"]
        empty = days[2]["date"]
        self.tap(empty)
        wait_for(lambda: "there is nothing to silence" in (self.browser.text("#toast") or ""), what="the toast")
        self.assertIn("as the household ring", self.browser.text("#toast"))
        # Its sheet offers a ring (the household's), not a silence of nothing.
        wait_for(lambda: self.browser.visible("#dayring"), what="the day's sheet")
        self.assertFalse(self.browser.visible("#dayoff"), "“Silence this day” on a day nothing rings")
        # A weekly rule for all alarms makes its days alarm days (the household ring): a tap opens the sheet.
        weekday = time.strftime("%a", time.strptime(empty, "%Y-%m-%d")).lower()[:3]
        rule = request(self.clock.sock, {"ruleAdd": {"days": weekday, "change": "09:00"}})
        self.assertTrue(rule["ok"], rule)
        try:
            wait_for(lambda: self.browser.run("return !!document.querySelector(arguments[0])", f'.day[data-date="{empty}"][data-layer="rule"]'),
                     what="the day as the rule's")
            self.browser.click(f'.day[data-date="{empty}"]')
            wait_for(lambda: self.browser.visible("#daysheet"), what="the day's sheet")
            self.assertIn("rings at 09:00", self.browser.text("#daysheet"))
            self.assertTrue(self.browser.visible("#dayoff"))
        finally:
            request(self.clock.sock, {"ruleRemove": {"id": rule["payload"]["rules"][0]["id"]}})
        self.assertNotEqual(now, empty)

    def test_41_the_lists_wear_the_layers_colours_and_an_override_is_edited_in_its_days_sheet(self):
        alarm = request(self.clock.sock, {"alarmAdd": {"spec": {"time": "06:30", "days": "daily", "label": "school"}}})
        ident = alarm["payload"]["alarms"][0]["id"]
        day = request(self.clock.sock, {"next": {"days": 14}})["payload"]["schedule"]["days"][3]["date"]
        override = request(self.clock.sock, {"overrideAdd": {"date": day, "change": "07:10", "alarmID": ident}})
        self.assertTrue(override["ok"], override)
        rule = request(self.clock.sock, {"ruleAdd": {"days": "sun", "change": "off"}})
        try:
            self.admin()
            self.browser.click('nav button[data-view="lists"]')
            wait_for(lambda: self.browser.visible("#overridesheet"), what="the lists")
            colours = self.browser.run(
                "const probe = document.createElement('i'); document.body.appendChild(probe);"
                "const of = (v) => { probe.style.color = `var(${v})`; return getComputedStyle(probe).color; };"
                "const out = { rule: of('--rule'), override: of('--override'),"
                " rules: getComputedStyle(document.getElementById('rulesheet')).borderLeftColor,"
                " overrides: getComputedStyle(document.getElementById('overridesheet')).borderLeftColor };"
                "probe.remove(); return out;")
            self.assertEqual(colours["rules"], colours["rule"])
            self.assertEqual(colours["overrides"], colours["override"])
            # The override's row: Edit opens its day's sheet, filled in with it.
            self.browser.click(f'button[data-act="overrideedit"][data-id="{override["payload"]["overrides"][0]["id"]}"]')
            wait_for(lambda: self.browser.visible("#daysheet") and self.browser.visible("#month"), what="the day's sheet")
            self.assertTrue(self.browser.visible("#dayclear"), "its Remove override")
            self.assertEqual(self.browser.run("return document.getElementById('dayat').value"), "07:10")
            self.assertEqual(self.browser.run("return document.getElementById('dayfor').value"), str(ident))
            self.browser.run("setPicker('dayat', '07:20');")
            self.browser.click("#dayring")
            wait_for(lambda: any(o["date"] == day and o["change"] == "07:20"
                                 for o in request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]),
                     what="the override changed in place")
            self.assertEqual(len(request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]), 1)
        finally:
            request(self.clock.sock, {"ruleRemove": {"id": rule["payload"]["rules"][0]["id"]}})
            request(self.clock.sock, {"alarmRemove": {"id": ident}})


class WakingPageTests(unittest.TestCase):
    """The wake-up check, the sunrise and the screen's part in them, against a daemon whose clock
    the test moves (its own daemon: the other tests keep the real time)."""

    @classmethod
    def setUpClass(cls):
        cls.clock = Clock(BINARIES, shifted=True)
        cls.browser = Browser()

    tearDownClass = classmethod(PageTests.tearDownClass.__func__)
    setUp = PageTests.setUp
    open_page = PageTests.open_page
    open_day = PageTests.open_day
    shot = PageTests.shot

    def test_23c_a_chime_leaves_the_tabs_in_reach_and_a_toast_leaves_the_day_sheet(self):
        """A chime's band sits under the tabs (it covered them for a minute); a toast over an open
        day's sheet is said at the top (it covered the sheet's button); a one-shot set to the second
        shows its HH:MM in the month (the phone's cell cut it to "16:54:")."""
        self.open_page()
        self.browser.run("showChime({text: 'piano practice', detail: 'scales first', key: 'k', origin: 'reminder'})")
        wait_for(lambda: self.browser.visible("#chime"), what="the chime's band")
        covered = self.browser.run(
            "return [...document.querySelectorAll('nav button')].filter((b) => { const r = b.getBoundingClientRect();"
            " const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !(at === b || b.contains(at)); })"
            ".map((b) => b.textContent)")
        self.assertEqual(covered, [], "tabs under the chime")
        self.browser.run("document.getElementById('chime').hidden = true;")
        added = request(self.clock.sock, {"alarmAdd": {"spec": {"inSeconds": 3 * 86400 + 7, "label": "seconds"}}})
        self.assertTrue(added["ok"], added)
        try:
            ring = next(r for r in [status(self.clock.sock)["nextRing"]] if r)
            self.open_day(ring["date"])
            wait_for(lambda: self.browser.visible("#daysheet"), what="the day's sheet")
            cell = self.browser.text(f'.day[data-date="{ring["date"]}"] .t')
            self.assertRegex(cell, r"^\d\d:\d\d$", "the month's cell shows HH:MM")
            self.browser.run("toast('Nothing set this day')")
            overlap = self.browser.run(
                "const t = document.getElementById('toast').getBoundingClientRect();"
                "return [...document.querySelectorAll('#daysheet button')].filter((b) => { const r = b.getBoundingClientRect();"
                " return r.width && !(r.bottom <= t.top || r.top >= t.bottom || r.right <= t.left || r.left >= t.right); })"
                ".map((b) => b.textContent)")
            self.assertEqual(overlap, [], "the toast covers the day's sheet")
        finally:
            request(self.clock.sock, {"alarmRemove": {"id": added["payload"]["alarms"][0]["id"]}})

    def test_23b_no_snoozes_left_opens_the_problem(self):
        """With its snoozes spent, the snooze button says so, at full contrast, and a tap on it opens
        the problem: snoozing past the limit asks for the proof instead."""
        self.open_page()
        ring_soon(self.clock, maxSnoozes=1, label="limit")
        self.assertTrue(request(self.clock.sock, {"snooze": {}})["ok"])
        self.clock.advance(9 * 60 + 1)
        wait_for(lambda: self.browser.visible("#snooze") and "NO SNOOZES LEFT" in self.browser.text("#snooze"),
                 what="the ring again, with no snoozes left")
        self.assertFalse(self.browser.run("return document.getElementById('snooze').disabled"))
        self.browser.click("#snooze")
        wait_for(lambda: self.browser.visible("#problem") and "= ?" in self.browser.text("#problem"),
                 what="the problem, opened by the spent snooze button")
        self.assertEqual(status(self.clock.sock)["session"]["state"], "ringing")
        self.shot("23b-no-snoozes-left")
        end_session(self.clock)

    def test_23_the_page_asks_are_you_up_and_a_tap_answers(self):
        self.open_page()
        ring_soon(self.clock, wakeCheckSeconds=60, label="up")
        end_session(self.clock)
        wait_for(lambda: not self.browser.visible("#ring"), what="the ring screen to go")
        self.assertFalse(self.browser.visible("#awake"))
        self.clock.advance(61)
        wait_for(lambda: (status(self.clock.sock).get("wakeCheck") or {}).get("state") == "asking", what="the check to ask")
        wait_for(lambda: self.browser.visible("#awake"), what="the page to ask")
        self.assertIn("rings again at", self.browser.text("#awakewhen"))
        self.shot("23-are-you-up")
        self.browser.click("#awakeyes")
        wait_for(lambda: status(self.clock.sock).get("wakeCheck") is None, what="the check to pass")
        wait_for(lambda: not self.browser.visible("#awake"), what="the question to go")
        history = request(self.clock.sock, {"history": {"days": 1}})["payload"]["history"]
        self.assertEqual(history[-1].get("wakeCheck"), "passed")
        # This browser (loopback, not paired) is no admin's: nothing about the household's people
        # reaches it, not the history, the calendars or the apps, whatever the kiosk's address.
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: "paired as an admin" in (self.browser.text("#historyview") or ""), what="the history refused")
        self.assertNotIn("answered", self.browser.text("#historyview"))
        self.assertIn("paired as an admin", self.browser.text("#calendars"))
        self.browser.click('nav button[data-view="apps"]')
        wait_for(lambda: "paired as an admin" in (self.browser.text("#appslist") or ""), what="the apps refused")
        state = self.browser.run("return fetch('/api/state').then(r => r.json())")
        self.assertEqual(state["apps"]["error"]["code"], "forbidden")
        self.assertNotIn("payload", state["appRequests"])
        reply = self.browser.run(
            "return fetch('/api/command', {method: 'POST', headers: {'Content-Type': 'application/json',"
            " 'X-Reveille-CSRF': CFG.csrf}, body: JSON.stringify({history: {days: 1}})}).then(r => r.json())")
        self.assertEqual(reply["error"]["code"], "forbidden")
        # An admin's browser sees the check in the history.
        admin = Browser()
        try:
            admin.open(self.clock.url)
            wait_for(lambda: admin.run("return typeof S !== 'undefined' && S !== null"), what="the admin's page")
            self.assertTrue(pair_as_admin(admin, self.clock, "history")["ok"])
            admin.open(self.clock.url)
            wait_for(lambda: admin.run("return !!S && S.status.payload.status.role === 'admin'"), what="admin rights")
            admin.click('nav button[data-view="more"]')
            wait_for(lambda: "answered “Are you up?”" in (admin.text("#historyview") or ""), what="the check in the history")
        finally:
            admin.close()
        self.assertIn("wake-up check of alarm", self.clock.log())
        self.assertIn("passed (the page", self.clock.log())

    def test_28_a_chime_asked_again_from_the_banner_chimes_again(self):
        # An "off" override for all alarms today (another test's) would silence the chime too.
        for override in request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]:
            request(self.clock.sock, {"overrideRemove": {"id": override["id"]}})
        self.open_page()
        now = status(self.clock.sock)["now"]
        hour, minute = int(now[11:13]), int(now[14:16])
        if hour == 23 and minute >= 58:
            self.skipTest("too close to midnight on the daemon's clock for a reminder today")
        later = f"{hour:02d}:{minute + 1:02d}" if minute < 59 else f"{hour + 1:02d}:00"
        reply = request(self.clock.sock, {"reminderAdd": {"spec": {"text": "stretch", "time": later, "date": now[:10],
                                                                   "body": "two minutes"}}})
        self.assertTrue(reply["ok"], reply)
        self.clock.advance(61)
        try:
            wait_for(lambda: self.browser.visible("#chime"), seconds=20, what="the chime's banner")
        except AssertionError:
            raise AssertionError(f"no banner: added {reply}, status {status(self.clock.sock)}, log: {self.clock.log()[-3000:]}")
        self.assertEqual(self.browser.text("#chimetext"), "stretch")
        self.shot("28-chime-banner-again")
        self.browser.click("#chimeagain")
        wait_for(lambda: not self.browser.visible("#chime"), what="the banner to close")
        # Two days: the chime again, ten minutes on, may fall after midnight on the daemon's clock,
        # which the tests before this one moved on by hours (one run failed so, at 23:5x).
        ahead = lambda: request(self.clock.sock, {"next": {"days": 2}})["payload"]["schedule"].get("reminders") or []
        wait_for(lambda: any(r["text"] == "stretch" and r["origin"].startswith("again:") for r in ahead()), what="the chime again ahead")
        self.assertIn("chimes again at", self.clock.log())
        self.clock.advance(600)
        wait_for(lambda: self.browser.visible("#chime"), seconds=20, what="the banner again, ten minutes on")
        self.assertEqual(self.browser.text("#chimetext"), "stretch")
        self.assertEqual(self.browser.text("#chimedetail"), "two minutes")
        self.browser.click("#chime")

    def test_24_the_page_is_a_sunrise_before_the_ring(self):
        self.open_page()
        # Rings in 21 minutes, with a 20-minute sunrise: it begins a minute from now.
        reply = request(self.clock.sock, {"alarmAdd": {"spec": {"inSeconds": 21 * 60, "fadeInSeconds": 0,
                                                                "label": "sun", "leadSeconds": 20 * 60}}})
        self.assertTrue(reply["ok"], reply)
        self.assertFalse(self.browser.visible("#sunrise"))
        brightness = []
        for name, step in (("start", 61), ("middle", 10 * 60), ("end", 9 * 60 + 30)):
            self.clock.advance(step)
            wait_for(lambda: status(self.clock.sock).get("sunrise") is not None, what="the sunrise to begin")
            self.browser.run("load()")  # the page reads the daemon's (moved) time again
            wait_for(lambda: self.browser.visible("#sunrise"), what="the sunrise on the page")
            time.sleep(0.3)
            brightness.append(png_brightness(self.shot(f"24-sunrise-{name}")))
        self.assertIn("sunrise for alarm #", self.clock.log())
        self.assertLess(brightness[0], 40, brightness)           # dark red at the start
        self.assertGreater(brightness[1], brightness[0] + 20, brightness)
        self.assertGreater(brightness[2], brightness[1] + 40, brightness)
        self.assertGreater(brightness[2], 180, brightness)       # warm white at the end
        # The ring comes: the light gives way to the ring screen.
        self.clock.advance(40)
        wait_for(lambda: (status(self.clock.sock).get("session") or {}).get("state") == "ringing", what="the ring")
        wait_for(lambda: self.browser.visible("#ring") and not self.browser.visible("#sunrise"), what="the ring screen")
        self.shot("24-sunrise-then-ring")

    def test_25_silencing_a_committed_day_asks_the_alarms_problem_first(self):
        self.open_page()
        reply = pair_as_admin(self.browser, self.clock)
        self.assertTrue(reply["ok"], reply)
        # Rings in two hours, committed for eight: the window is open.
        reply = request(self.clock.sock, {"alarmAdd": {"spec": {"inSeconds": 7200, "label": "committed",
                                                                "commitSeconds": 8 * 3600}}})
        self.assertTrue(reply["ok"], reply)
        alarm_id = reply["payload"]["alarms"][0]["id"]
        day = status(self.clock.sock)["nextRing"]["date"]
        self.open_day(day)
        wait_for(lambda: self.browser.visible("#dayoff"), what="the day's sheet")
        self.browser.click("#dayoff")
        wait_for(lambda: self.browser.visible("#unlock"), what="the alarm's challenge")
        self.assertIn("is committed: prove you are awake first", self.browser.text("#unlockwhy"))
        self.assertEqual(request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"], [])
        problem = self.browser.text("#unlockproblem").removesuffix(" = ?")
        self.shot("25-committed-day-keypad")
        for key in str(solve(problem)):
            self.browser.click(f'#unlockpad button[data-key="{key}"]')
        self.browser.click("#unlockok")
        wait_for(lambda: not self.browser.visible("#unlock"), what="the challenge to close")
        overrides = lambda: request(self.clock.sock, {"overrideList": {}})["payload"]["overrides"]
        wait_for(lambda: len(overrides()) == 1, what="the day silenced after the challenge")
        self.assertEqual(overrides()[0]["date"], day)
        self.assertIn(f"alarm #{alarm_id} committed unlocked by math", self.clock.log())
        request(self.clock.sock, {"alarmRemove": {"id": alarm_id}})


class ReaderPageTests(unittest.TestCase):
    """The More tab against a daemon with an (emulated) NFC reader: a tag registered by its tap,
    a calendar added by its web address, the history."""

    @classmethod
    def setUpClass(cls):
        cls.clock = Clock(BINARIES, reader=True)
        cls.browser = Browser()

    tearDownClass = classmethod(PageTests.tearDownClass.__func__)
    open_page = PageTests.open_page
    pair_browser_as_admin = PageTests.pair_browser_as_admin
    admin_page = PageTests.admin_page
    shot = PageTests.shot

    def test_29_a_tag_is_registered_by_its_tap_from_the_page(self):
        self.admin_page()
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: self.browser.visible("#t-tap"), what="the tags")
        self.browser.run(FILL, "t-label", "kitchen")
        self.browser.click("#t-tap")
        wait_for(lambda: "Tap the tag on the reader now" in (self.browser.text("#t-wait") or ""), what="the page waiting for the tap")
        self.assertTrue(self.browser.run("return document.getElementById('t-tap').disabled"))
        self.shot("29-tag-waiting")
        # The page's request is held while the tap is awaited; the page's other requests are not.
        self.assertTrue(self.browser.run_async(
            "const done = arguments[arguments.length - 1]; send({status: {}}, true, true).then((r) => done(r.ok));"))
        self.assertEqual(self.clock.reader_say("present 04A1B2C3"), "ok")
        wait_for(lambda: any(t["label"] == "kitchen" for t in request(self.clock.sock, {"tagList": {}})["payload"]["tags"]),
                 what="the tag registered")
        wait_for(lambda: "Registered “kitchen”" in (self.browser.text("#t-wait") or ""), what="the page saying so")
        wait_for(lambda: "04A1B2C3" in (self.browser.text("#tagsview") or "").upper().replace(":", ""), what="the tag listed")
        self.clock.reader_say("remove")
        self.shot("29-tag-registered")
        # Removed from the page.
        self.browser.run("window.confirm = () => true;")
        self.browser.click('button[data-tagrm="kitchen"]')
        wait_for(lambda: request(self.clock.sock, {"tagList": {}})["payload"]["tags"] == [], what="the tag removed")

    def test_30_a_calendar_is_added_by_its_address_and_a_file_is_not(self):
        self.admin_page()
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: self.browser.visible("#c-add"), what="the calendars")
        # A path on the clock's disk is the CLI's: refused by the page's server whatever the page sends.
        reply = self.browser.run_async(
            "const done = arguments[arguments.length - 1];"
            "send({calendarAdd: {name: 'secret', source: '/etc/passwd'}}, true, true).then(done);")
        self.assertFalse(reply["ok"])
        self.assertIn("not from the page", reply["error"]["message"])
        # The school's server, on loopback.
        folder = os.path.join(self.clock.root, "www")
        os.makedirs(folder)
        with open(os.path.join(folder, "school.ics"), "w") as f:
            f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//tests//EN\r\nBEGIN:VEVENT\r\nUID:b\r\nSUMMARY:Winter break\r\n"
                    "DTSTART;VALUE=DATE:20261221\r\nDTEND;VALUE=DATE:20261223\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", folder],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(server.wait)
        self.addCleanup(server.terminate)
        self.browser.run(FILL, "c-name", "school")
        self.browser.run(FILL, "c-url", f"http://127.0.0.1:{port}/school.ics")
        self.browser.run("document.getElementById('c-options').open = true;")
        self.browser.run(FILL, "c-only", "break|holiday")
        self.browser.click("#c-add")
        wait_for(lambda: any(c["name"] == "school" for c in request(self.clock.sock, {"calendarList": {}})["payload"]["calendars"]),
                 what="the web calendar added")
        wait_for(lambda: "fetched never" in (self.browser.text("#calendars") or ""), what="the calendar listed, not fetched yet")
        # "Refresh now": the daemon asks the clock's fetcher (it never fetches itself), and the page says so.
        self.browser.click("#c-refresh")
        wanted = os.path.join(self.clock.root, "run/reveille/calendar-fetch-wanted")
        wait_for(lambda: os.path.exists(wanted), what="the fetch asked for")
        wait_for(lambda: "Fetching now (asked at" in (self.browser.text("#calendars") or ""), what="the fetch shown under way")
        self.shot("30-calendars-fetching")
        # What reveille-calendar.path starts on the clock: the fetcher, which honours the request.
        # (Its cache must be readable by everyone, as on the clock: the test's root is mkdtemp's 0700.)
        os.chmod(self.clock.root, 0o755)
        fetched = self.clock.cli("calendar", "refresh")
        self.assertEqual(fetched.returncode, 0, fetched.stdout + fetched.stderr)
        wait_for(lambda: "next about" in (self.browser.text("#calendars") or ""), seconds=15, what="the fetch shown arrived")
        text = self.browser.text("#calendars")
        self.assertIn("2 holiday days ahead", text)
        self.assertIn("all-day events matching break|holiday", text)
        self.assertIn("Winter break", text)
        self.shot("30-calendars")
        self.browser.run("window.confirm = () => true;")
        self.browser.click('button[data-calrm="school"]')
        wait_for(lambda: request(self.clock.sock, {"calendarList": {}})["payload"]["calendars"] == [], what="the calendar removed")
        # A reminder calendar: its minutes before each event and whom it is for, from the same fold.
        wait_for(lambda: self.browser.visible("#c-add"), what="the calendars again")
        self.browser.run(FILL, "c-name", "family")
        self.browser.run(FILL, "c-url", f"http://127.0.0.1:{port}/school.ics")
        self.browser.run(FILL, "c-purpose", "reminders")
        self.browser.run("document.getElementById('c-options').open = true;")
        self.browser.run(FILL, "c-minutes", "60, 15")
        self.browser.run(FILL, "c-for", "root")
        self.browser.click("#c-add")
        family = lambda: [c for c in request(self.clock.sock, {"calendarList": {}})["payload"]["calendars"] if c["name"] == "family"]
        wait_for(lambda: family(), what="the reminder calendar added")
        self.assertEqual((family()[0]["purpose"], family()[0]["minutes"], family()[0].get("person")), ("reminders", [60, 15], "root"))
        request(self.clock.sock, {"calendarRemove": {"calendar": "family"}})


class HubMemberPageTests(unittest.TestCase):
    """A machine of a household that follows its hub's app policy: the page shows whose policy
    it is and offers no change (the daemon would refuse it)."""

    @classmethod
    def setUpClass(cls):
        cls.clock = Clock(BINARIES, settings='[mqtt]\nhost = "127.0.0.1"\nhousehold = "smiths"\n')
        cls.browser = Browser()

    tearDownClass = classmethod(PageTests.tearDownClass.__func__)
    open_page = PageTests.open_page
    admin_page = PageTests.admin_page
    pair_browser_as_admin = PageTests.pair_browser_as_admin
    shot = PageTests.shot

    def test_32_a_member_of_the_household_shows_the_hubs_policy_and_offers_no_change(self):
        policy = '[[app]]\nname = "chess"\npaths = ["/usr/games/chess"]\nlimit_minutes = 30\n'
        reply = request(self.clock.sock, {"appsFromHub": {"hub": "clock", "policy": policy}})
        self.assertTrue(reply["ok"], reply)
        self.admin_page()
        self.browser.click('nav button[data-view="apps"]')
        wait_for(lambda: self.browser.visible("#a-hub"), what="the hub's note on the Apps sheet")
        self.assertIn("The household's policy, from its hub clock since ", self.browser.text("#a-hub"))
        self.assertIn("chess", self.browser.text("#applist"))
        self.assertFalse(self.browser.visible("#a-add"))
        self.assertEqual(self.browser.run("return document.querySelectorAll('#applist button[data-edit]').length"), 0)
        self.shot("32-hub-member")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BINARIES = os.path.abspath(sys.argv.pop(1))
    if not shutil.which("chromedriver"):
        sys.exit("chromedriver is missing: scripts/install-deps.sh test installs chromium and chromium-driver")
    print(f"screenshots: {SHOTS}")
    unittest.main(verbosity=2)
