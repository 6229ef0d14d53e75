#!/usr/bin/env python3
"""reveille-mqtt against a real broker: Debian's mosquitto, started here on a free loopback port
with TLS from a test CA, a password file and ACLs; Home Assistant played by a paho-mqtt client.
The clock is a real reveilled (sound into ALSA's file plugin) and a real reveille-mqtt.

    python3 Tests/mqtt/test_mqtt.py [BINARIES]    (default: .build/debug; `make test` runs it)
"""
import json, os, re, socket, ssl, shutil, signal, subprocess, sys, tempfile, threading, time, unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "web"))
from webdriver import REPO, end_session, free_port, request, ring_soon, solve, status, wait_for
from hostile_broker import HostileBroker

try:
    import paho.mqtt.client as paho
except ImportError:  # a Python of its own on PATH (pyenv): Debian's python3-paho-mqtt is pure Python
    sys.path.append("/usr/lib/python3/dist-packages")
    import paho.mqtt.client as paho

BINARIES = os.path.join(REPO, ".build", "debug")


def topic_name(name):
    """The bridge's TopicName.safe: letters, digits, _ and - kept (ASCII), anything else _, and a
    name that changed gets its FNV-1a hash."""
    kept = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name[:40])
    if kept == name and name:
        return name
    value = 2166136261
    for byte in name.encode():
        value = ((value ^ byte) * 16777619) % 2**32
    return (kept or "_") + "-" + f"{value:08x}"


# The clock of BridgeTests is a machine whose MQTT user is named as its host name, as the
# README's ACL asks: its topics and entities are then its user's.
MACHINE = topic_name(socket.gethostname())
PASSWORDS = {MACHINE: "machine-secret", "homeassistant": "ha-secret", "guest": "guest-secret",
             "clock": "clock-secret", "laptop": "laptop-secret"}


def readme_acl(name):
    """An ACL block of the guide (`<!-- acl: NAME -->` in docs/guide/smart-home.md), as written there."""
    with open(os.path.join(REPO, "docs", "guide", "smart-home.md")) as f:
        return re.search(r"<!-- acl: " + name + r" -->\n```\n(.*?)```", f.read(), re.S).group(1)


class Broker:
    """mosquitto with a TLS listener only: a CA and a server certificate for 127.0.0.1 made
    with openssl, users from a password file, and ACLs that let the clock write its own topics,
    Home Assistant send commands, and a guest only read."""

    def __init__(self, folder, acl=True):
        self.folder = folder
        self.port = free_port()
        self.process = None
        def run(*arguments):
            subprocess.run(arguments, cwd=folder, check=True, capture_output=True)
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
            "-days", "2", "-subj", "/CN=Reveille test CA")
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=127.0.0.1")
        with open(os.path.join(folder, "san.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
        open(os.path.join(folder, "passwd"), "w").close()
        for user, password in PASSWORDS.items():
            run("mosquitto_passwd", "-b", "passwd", user, password)
        with open(os.path.join(folder, "acl"), "w") as f:
            # The README's ACLs as written (each machine its own topics and entities; Home
            # Assistant's commands; the household's machines, block by block), and a guest with
            # no rights of Reveille's.
            f.write(readme_acl("machines") + "\n" + readme_acl("household") + "\nuser guest\n")
        with open(os.path.join(folder, "mosquitto.conf"), "w") as f:
            f.write(f"user root\npersistence false\nlog_dest stderr\nlog_type error\nlog_type warning\n"
                    f"listener {self.port} 127.0.0.1\ncafile {folder}/ca.pem\ncertfile {folder}/server.pem\n"
                    f"keyfile {folder}/server.key\nallow_anonymous false\npassword_file {folder}/passwd\n"
                    + (f"acl_file {folder}/acl\n" if acl else "") + "message_size_limit 1048576\n")
        self.start()

    def start(self):
        self.log = open(os.path.join(self.folder, "mosquitto.log"), "a")
        self.process = subprocess.Popen(["mosquitto", "-c", os.path.join(self.folder, "mosquitto.conf")],
                                        stdout=self.log, stderr=self.log)
        wait_for(lambda: self.answers(), what="mosquitto to listen")

    def answers(self):
        import socket
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()

    def close(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
        self.log.close()


class Subscriber:
    """Home Assistant, or a guest: a paho client over TLS that keeps every message it gets."""

    def __init__(self, broker, user="homeassistant", topics=("#",)):
        self.messages = []
        self.lock = threading.Lock()
        self.client = paho.Client(client_id=f"test-{user}-{time.monotonic_ns()}", protocol=paho.MQTTv311)
        self.client.username_pw_set(user, PASSWORDS[user])
        self.client.tls_set(ca_certs=os.path.join(broker.folder, "ca.pem"), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        self.client.on_message = self._got
        self.connected = threading.Event()
        self.client.on_connect = lambda client, data, flags, rc: (
            [client.subscribe(topic, 1) for topic in topics], self.connected.set())
        self.client.connect("127.0.0.1", broker.port, keepalive=30)
        self.client.loop_start()
        assert self.connected.wait(10), "the test's subscriber could not connect"

    def _got(self, client, data, message):
        with self.lock:
            self.messages.append((message.topic, message.payload.decode("utf-8", "replace"), message.retain,
                                  time.monotonic()))

    def latest(self, topic):
        with self.lock:
            for t, payload, _, _ in reversed(self.messages):
                if t == topic:
                    return payload
        return None

    def events(self, kind=None):
        with self.lock:
            found = [json.loads(p) for t, p, _, _ in self.messages if t.endswith("/event") and p]
        return [e for e in found if kind is None or e.get("event_type") == kind]

    def publish(self, topic, payload):
        return self.client.publish(topic, payload, qos=1).wait_for_publish(5)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


class Clock:
    """reveilled and reveille-mqtt under a temporary root."""

    def __init__(self, binaries, broker, root, base="reveille/clock", user="clock", household=None, apps=None,
                 shifted=False, hub=False, pins=""):
        self.binaries = binaries
        self.root = root
        self.base = base
        os.makedirs(os.path.join(root, "etc/reveille"), exist_ok=True)
        self.password_file = os.path.join(root, "etc/reveille/mqtt-password")
        with open(self.password_file, "w") as f:
            f.write(PASSWORDS[user] + "\n")
        if apps:
            with open(os.path.join(root, "etc/reveille/apps.toml"), "w") as f:
                f.write(apps)
        # `shifted`: the daemon reads its time through an offset file, which `advance` moves (wall
        # and elapsed). It reads the file often: not for figures of an idle daemon.
        self.offset = 0.0
        self.clock_file = os.path.join(root, "clock-offset") if shifted else None
        if self.clock_file:
            with open(self.clock_file, "w") as f:
                f.write("0 0")
        os.chmod(self.password_file, 0o600)
        with open(os.path.join(root, "etc/reveille/reveille.toml"), "w") as f:
            f.write(f"[audio]\ndevices = [\"file:'{root}/sound.wav',wav\"]\n[voice]\nenabled = false\n"
                    f"[mqtt]\nhost = \"127.0.0.1\"\nport = {broker.port}\nca_file = \"{broker.folder}/ca.pem\"\n"
                    f"username = \"{user}\"\npassword_file = \"{self.password_file}\"\n"
                    + (f"base_topic = \"{base}\"\n" if base else "")
                    + "keepalive_seconds = 10\n" + (f"household = \"{household}\"\n" if household else "")
                    + ("hub = true\n" if hub else "") + pins)
        self.sock = os.path.join(root, "run/reveille/control.sock")
        self.start_daemon()
        self.bridge = None
        self.start_bridge()

    def start_daemon(self):
        with open(os.path.join(self.root, "reveilled.out"), "a") as log:
            extra = ["--clock-offset-file", self.clock_file] if self.clock_file else []
            self.daemon = subprocess.Popen([os.path.join(self.binaries, "reveilled"), "--root", self.root, *extra],
                                           stdout=log, stderr=log)
        wait_for(self.up, what="reveilled to answer")

    def up(self):
        try:
            return request(self.sock, {"status": {}})["ok"]
        except OSError:
            return False

    def start_bridge(self):
        self.bridge_log = os.path.join(self.root, "reveille-mqtt.out")
        with open(self.bridge_log, "a") as log:
            self.bridge = subprocess.Popen([os.path.join(self.binaries, "reveille-mqtt"), "--root", self.root],
                                           stdout=log, stderr=log)
        wait_for(lambda: (self.health() or {}).get("connected"), what="reveille-mqtt to connect")

    def advance(self, seconds):
        """Makes `seconds` pass at once on the daemon's clock (wall and elapsed)."""
        self.offset += seconds
        with open(self.clock_file + ".new", "w") as f:
            f.write(f"{self.offset} {self.offset}")
        os.rename(self.clock_file + ".new", self.clock_file)

    def cli(self, *arguments):
        return subprocess.run([os.path.join(self.binaries, "reveille"), "--root", self.root, *arguments],
                              capture_output=True, text=True, timeout=30)

    def app(self, name):
        """`apps check NAME`'s view, as the overview has it: used minutes, seconds here and elsewhere."""
        apps = request(self.sock, {"appsOverview": {}})["payload"]["apps"]["apps"]
        return next((a for a in apps if a["name"] == name), None)

    def health(self):
        try:
            with open(os.path.join(self.root, "var/lib/reveille-mqtt/health.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def log(self):
        """The daemon's log."""
        with open(os.path.join(self.root, "reveilled.out")) as f:
            return f.read()

    def bridge_said(self):
        """The bridge's log."""
        with open(self.bridge_log) as f:
            return f.read()

    def rss_kb(self):
        with open(f"/proc/{self.bridge.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    def close(self):
        for process in (self.bridge, self.daemon):
            if process and process.poll() is None:
                process.terminate()
                process.wait()


class BridgeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="reveille-mqtt-test.")
        os.chmod(cls.folder, 0o755)
        cls.broker = Broker(cls.folder)
        cls.clock = Clock(BINARIES, cls.broker, os.path.join(cls.folder, "clock"), base=f"reveille/{MACHINE}",
                          user=MACHINE)
        cls.base = cls.clock.base

    @classmethod
    def tearDownClass(cls):
        cls.clock.close()
        cls.broker.close()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def setUp(self):
        end_session(self.clock)
        self.ha = Subscriber(self.broker)

    def tearDown(self):
        self.ha.close()

    def test_1_home_assistant_finds_the_clock_and_every_entity(self):
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "online", what="the clock online")
        request(self.clock.sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "mon-fri", "label": "work/#1"}}})
        wait_for(lambda: any(t.startswith("homeassistant/switch/") and "alarm_" in t for t, *_ in self.ha.messages),
                 what="the alarm's switch")
        configs = {t: json.loads(p) for t, p, _, _ in self.ha.messages if t.startswith("homeassistant/") and p}
        kinds = sorted({t.split("/")[1] for t in configs})
        self.assertEqual(kinds, ["binary_sensor", "button", "event", "sensor", "switch"])
        devices = {json.dumps(c["device"], sort_keys=True) for c in configs.values()}
        self.assertEqual(len(devices), 1, "one device for every entity")
        self.assertTrue(all(c["availability_topic"] == f"{self.base}/availability" for c in configs.values()))
        # Retained, so that Home Assistant finds them whenever it starts: a client that comes later gets them all.
        later = Subscriber(self.broker, topics=("homeassistant/#",))
        try:
            wait_for(lambda: {t for t, _, r, _ in later.messages if r} >= set(configs), what="every config retained")
        finally:
            later.close()
        wait_for(lambda: json.loads(self.ha.latest(f"{self.base}/next_ring") or "{}").get("at"), what="the next ring")
        self.assertEqual(self.ha.latest(f"{self.base}/ring_state"), "idle")

    def test_2_a_ring_is_seen_as_events_and_snooze_is_pressed_from_mqtt(self):
        added = ring_soon(self.clock, maxSnoozes=3)
        alarm = added["payload"]["alarms"][0]["id"]
        wait_for(lambda: self.ha.events("fired"), what="the fired event")
        # A one-shot is off once it rang: its switch says so, without a request or a restart.
        wait_for(lambda: self.ha.latest(f"{self.base}/alarm/{alarm}/enabled") == "OFF",
                 what="the one-shot's switch OFF after it rang")
        wait_for(lambda: self.ha.latest(f"{self.base}/ringing") == "ON", what="ringing ON")
        # Ringing is ON before `fired` comes: an automation on `fired` that checks Ringing sees it on.
        with self.ha.lock:
            order = [(t, p) for t, p, _, _ in self.ha.messages]
        fired = next(i for i, (t, p) in enumerate(order) if t.endswith("/event") and '"fired"' in p)
        self.assertIn((f"{self.base}/ringing", "ON"), order[:fired], "fired came before Ringing was ON")
        self.assertEqual(self.ha.latest(f"{self.base}/ring_state"), "ringing")
        self.ha.publish(f"{self.base}/snooze/press", "PRESS")
        wait_for(lambda: (status(self.clock.sock).get("session") or {}).get("state") == "snoozed", what="the snooze")
        wait_for(lambda: self.ha.events("snoozed"), what="the snoozed event")
        wait_for(lambda: self.ha.latest(f"{self.base}/ring_state") == "snoozed", what="ring state snoozed")
        # Nothing over MQTT dismisses: a made-up dismiss topic does nothing.
        self.ha.publish(f"{self.base}/dismiss", "PRESS")
        self.ha.publish(f"{self.base}/snooze/press", "DISMISS")
        time.sleep(0.5)
        self.assertEqual(status(self.clock.sock)["session"]["state"], "snoozed")
        end_session(self.clock)
        wait_for(lambda: self.ha.events("dismissed"), what="the dismissed event")
        self.assertEqual(self.ha.events("dismissed")[-1].get("by"), "math")
        wait_for(lambda: self.ha.latest(f"{self.base}/ringing") == "OFF", what="ringing OFF")

    def test_3_a_committed_alarms_switch_is_refused_and_shows_the_state_that_stands(self):
        reply = request(self.clock.sock, {"alarmAdd": {"spec": {"inSeconds": 7200, "label": "committed",
                                                                 "commitSeconds": 28800}}})
        alarm = reply["payload"]["alarms"][0]["id"]
        topic = f"{self.base}/alarm/{alarm}/enabled"
        wait_for(lambda: self.ha.latest(topic) == "ON", what="the alarm's switch ON")
        self.ha.publish(f"{self.base}/alarm/{alarm}/set", "OFF")
        wait_for(lambda: self.ha.events("refused"), what="the refusal")
        self.assertIn(f"alarm #{alarm}", self.ha.events("refused")[-1]["what"])
        alarms = request(self.clock.sock, {"alarmList": {}})["payload"]["alarms"]
        self.assertTrue(next(a for a in alarms if a["id"] == alarm)["enabled"])
        # The entity is told again what stands.
        wait_for(lambda: [p for t, p, _, _ in self.ha.messages if t == topic][-1] == "ON"
                 and len([1 for t, _, _, _ in self.ha.messages if t == topic]) >= 2, what="the standing state again")
        self.assertIn("refused over MQTT", self.clock.bridge_said())
        request(self.clock.sock, {"alarmRemove": {"id": alarm}})

    def test_4_the_broker_killed_mid_ring_loses_no_ring_and_gets_everything_again(self):
        ring_soon(self.clock)
        self.ha.close()
        self.broker.kill()
        # The ring goes on without the broker: the daemon never waits for the bridge.
        wait_for(lambda: not (self.clock.health() or {}).get("connected"), what="the bridge to see the broker gone")
        self.assertEqual(status(self.clock.sock)["session"]["state"], "ringing")
        self.broker.start()
        wait_for(lambda: (self.clock.health() or {}).get("connected"), seconds=40, what="the bridge to reconnect")
        self.ha = Subscriber(self.broker)
        # mosquitto kept nothing (no persistence): all that is there, the bridge published again.
        wait_for(lambda: self.ha.latest(f"{self.base}/ringing") == "ON", what="ringing republished")
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "online", what="availability republished")
        # Discovery topics name the clock's node and, in the object id, its device id.
        wait_for(lambda: any(t.startswith(f"homeassistant/button/{self.ha_node()}/") and t.endswith("_snooze/config") and p
                             for t, p, _, _ in list(self.ha.messages)), what="discovery again")
        end_session(self.clock)
        wait_for(lambda: self.ha.events("dismissed"), what="the dismissal after the outage")
        self.assertIn("connecting again", self.clock.bridge_said())

    def ha_node(self):
        return next(t.split("/")[2] for t, *_ in self.ha.messages if t.startswith("homeassistant/button/"))

    def test_5_a_lost_bridge_is_seen_through_its_last_will(self):
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "online", what="online")
        self.clock.bridge.send_signal(signal.SIGKILL)
        self.clock.bridge.wait()
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "offline", seconds=30,
                 what="the broker's last will (offline)")
        # Its health file still says connected; doctor sees that no bridge wrote it any more.
        self.assertTrue((self.clock.health() or {}).get("connected"))
        doctor = self.clock.cli("doctor", "--no-tone").stdout
        self.assertIn("reveille-mqtt is not running: it stopped without a word", doctor)
        self.clock.start_bridge()
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "online", what="online again")
        # Stopped as systemd stops it: doctor says so, and when its connection ended.
        began = self.clock.health()["since"]
        time.sleep(1.1)
        self.clock.bridge.send_signal(signal.SIGTERM)
        self.clock.bridge.wait()
        health = self.clock.health()
        self.assertEqual((health["connected"], health.get("stopped")), (False, True), health)
        self.assertGreater(health["lastConnected"], began, "last connected is when the connection ended")
        doctor = self.clock.cli("doctor", "--no-tone").stdout
        self.assertRegex(doctor, r"reveille-mqtt was stopped \d+ s ago, last connected to 127.0.0.1:\d+ \d+ s ago")
        self.assertNotIn("without a word", doctor)
        self.clock.start_bridge()
        wait_for(lambda: self.ha.latest(f"{self.base}/availability") == "online", what="online again")

    def test_6_malformed_flooding_and_oversized_messages_cost_little_and_change_nothing(self):
        wait_for(lambda: self.ha.latest(f"{self.base}/master") == "ON", what="the master switch")
        rss_before = self.clock.rss_kb()
        for i in range(2000):
            self.ha.client.publish(f"{self.base}/master/set", ["OFF", "on", "\x00\x01", "X" * 200][i % 4], qos=0)
        self.ha.client.publish(f"{self.base}/snooze/press", "P" * 200_000, qos=1).wait_for_publish(10)
        self.ha.client.publish(f"{self.base}/alarm/1;rm -rf/set", "OFF", qos=1).wait_for_publish(10)
        self.ha.client.publish(f"{self.base}/alarm/999999999999/set", "OFF", qos=1).wait_for_publish(10)
        wait_for(lambda: "too fast" in self.clock.bridge_said(), what="the rate limit")
        time.sleep(1)
        self.assertIsNone(self.clock.bridge.poll(), "the bridge died")
        self.assertTrue(self.clock.up())
        # The 200 kB message is dropped unread (the bridge takes at most 16,896 bytes): counted among
        # the ignored, never copied.
        self.assertNotIn("200000-byte", self.clock.bridge_said())
        # 2,000 ignored messages are a few lines of the log, not 2,000.
        self.assertLess(self.clock.bridge_said().count("ignored:"), 10)
        self.assertLess(self.clock.rss_kb() - rss_before, 4096, "the flood cost the bridge more than 4 MB")
        # Afterwards, a command is taken again, once the bucket refills.
        time.sleep(5)
        self.ha.publish(f"{self.base}/master/set", "ON")
        wait_for(lambda: status(self.clock.sock)["master"] == "on", what="the master switch ON again")

    def test_9_an_alarm_removed_while_the_bridge_was_down_leaves_home_assistant(self):
        reply = request(self.clock.sock, {"alarmAdd": {"spec": {"time": "05:10", "days": "sat", "label": "gone"}}})
        alarm = reply["payload"]["alarms"][0]["id"]
        config = lambda: next((t for t, p, _, _ in self.ha.messages
                               if t.startswith("homeassistant/switch/") and t.endswith(f"_alarm_{alarm}/config") and p), None)
        wait_for(config, what="the alarm's switch")
        topic = config()
        self.clock.bridge.terminate()
        self.clock.bridge.wait()
        request(self.clock.sock, {"alarmRemove": {"id": alarm}})
        self.clock.start_bridge()
        wait_for(lambda: self.ha.latest(topic) == "", what="the removed alarm's switch cleared")
        wait_for(lambda: self.ha.latest(f"{self.base}/alarm/{alarm}/enabled") == "", what="its state cleared")
        self.assertIn("left by an earlier run", self.clock.bridge_said())
        # A fresh subscriber finds nothing of it retained.
        late = Subscriber(self.broker)
        try:
            time.sleep(1)
            self.assertFalse([t for t, p, _, _ in late.messages if t == topic and p], "still retained")
        finally:
            late.close()

    def test_7_the_brokers_acls_keep_a_guest_and_another_machine_from_the_clock(self):
        """The README's ACL as written: a guest reads nothing of the clock's and commands nothing;
        another machine of the house (the laptop's user) cannot command the clock either."""
        wait_for(lambda: self.ha.latest(f"{self.base}/master") == "ON", what="Home Assistant reads the state")
        guest = Subscriber(self.broker, user="guest")
        laptop = Subscriber(self.broker, user="laptop", topics=(f"{self.base}/#",))
        try:
            time.sleep(1)
            self.assertEqual([t for t, *_ in guest.messages if t.startswith("reveille")], [], "the guest read the clock")
            self.assertEqual(laptop.messages, [], "another machine read the clock")
            for forger in (guest, laptop):
                forger.publish(f"{self.base}/master/set", "OFF")
                forger.publish(f"{self.base}/alarm/1/set", "OFF")
                forger.publish("homeassistant/switch/x/y/config", "{}")
            time.sleep(1)
            self.assertEqual(status(self.clock.sock)["master"], "on")
            self.assertIsNone(self.ha.latest("homeassistant/switch/x/y/config"))
            self.assertNotIn("done over MQTT", self.clock.bridge_said().split("alarms on")[-1])
        finally:
            guest.close()
            laptop.close()

    def test_8_a_password_file_others_may_read_is_refused(self):
        os.chmod(self.clock.password_file, 0o644)
        try:
            result = subprocess.run([os.path.join(BINARIES, "reveille-mqtt"), "--root", self.clock.root],
                                    capture_output=True, text=True, timeout=10)
        finally:
            os.chmod(self.clock.password_file, 0o600)
        self.assertEqual(result.returncode, 78)
        self.assertIn("chmod 600", result.stderr)


TICKER_POLICY = """[[app]]
name = "ticker"
paths = ["{path}"]
windows = ["00:00-23:59"]
limit_minutes = 5
users = ["root"]
"""


def ticker(root, mark):
    """A program of its own for the policy: sleep, with a byte after its end (so that its content,
    by which the guard knows it, is no other file's on this machine)."""
    path = os.path.join(root, "ticker")
    os.makedirs(root, exist_ok=True)
    shutil.copy("/usr/bin/sleep", path)
    with open(path, "ab") as f:
        f.write(mark.encode())
    os.chmod(path, 0o755)
    return path


def household_code(root):
    """The household code of the machine under `root` (its key made now, as its owner would)."""
    result = subprocess.run([os.path.join(BINARIES, "reveille-mqtt"), "--root", root, "--household-key"],
                            capture_output=True, text=True, check=True)
    return result.stdout.split("\n")[0]


def household(folder, broker):
    """A hub (user clock) and a member (user laptop) with their keys pinned, as the README says:
    the hub lists the laptop's code, the laptop pins the hub's."""
    codes = {user: household_code(os.path.join(folder, user)) for user in ("clock", "laptop")}
    pins = {"clock": f"machines = [\"laptop={codes['laptop']}\"]\n", "laptop": f"hub_key = \"{codes['clock']}\"\n"}
    clocks = {}
    for user, mark in (("clock", "A"), ("laptop", "B")):
        root = os.path.join(folder, user)
        policy = TICKER_POLICY.format(path=ticker(root, mark))
        clocks[user] = Clock(BINARIES, broker, root, base=f"reveille/{user}", user=user, household="smiths",
                             apps=policy, shifted=True, hub=user == "clock", pins=pins[user])
    for clock in clocks.values():
        wait_for(lambda: clock.app("ticker"), what="the policy loaded")
    return clocks, codes


class HouseholdFixture:
    """A hub (A, user clock) and a member (B, user laptop) with their keys pinned, on a broker of
    their own: with the README's ACLs (`acl`), or with none."""
    prefix, acl = "reveille-household-test.", True

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix=cls.prefix)
        os.chmod(cls.folder, 0o755)
        cls.broker = Broker(cls.folder, acl=cls.acl)
        cls.clocks, cls.codes = household(cls.folder, cls.broker)
        cls.a, cls.b = cls.clocks["clock"], cls.clocks["laptop"]

    @classmethod
    def tearDownClass(cls):
        for clock in cls.clocks.values():
            clock.close()
        cls.broker.close()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def hubs_retained(self):
        """Once B follows A's signed policy: the hub's policy and the clock's counts as the broker
        holds them (genuine, signed), read by a guest, to be moved or replayed."""
        wait_for(lambda: "the household's policy, from its hub clock" in self.b.cli("apps", "list").stdout,
                 what="B to follow A's signed policy")
        spy = Subscriber(self.broker, user="guest", topics=("reveille-household/#",))
        try:
            wait_for(lambda: spy.latest("reveille-household/smiths/hub/policy")
                     and spy.latest("reveille-household/smiths/usage/clock"), what="the hub's retained messages")
            return (spy.latest("reveille-household/smiths/hub/policy"), spy.latest("reveille-household/smiths/usage/clock"))
        finally:
            spy.close()


class HouseholdTests(HouseholdFixture, unittest.TestCase):
    """Two clocks of one household, with different roots, one broker: time used on one counts on
    the other, through a broker outage too; A is the household's hub, whose policy and grants B
    follows. Their clocks move on offset files: minutes pass at once."""

    def test_1_time_used_on_one_machine_counts_on_the_other_with_the_broker_up_and_down(self):
        a, b = self.a, self.b
        # A machine writes its own counts only (the broker's ACL, by user name): B cannot forge A's,
        # nor a guest anyone's.
        forger = Subscriber(self.broker, user="laptop", topics=())
        guest = Subscriber(self.broker, user="guest", topics=("reveille-household/#",))
        try:
            day = json.dumps({"day": request(b.sock, {"status": {}})["payload"]["status"]["now"][:10],
                              "usage": [{"user": "root", "app": "ticker", "seconds": 290}]})
            forger.publish("reveille-household/smiths/usage/clock", day)
            guest.publish("reveille-household/smiths/usage/laptop", day)
            time.sleep(1)
            self.assertIsNone(b.app("ticker").get("usedSecondsElsewhere"))
            self.assertIsNone(a.app("ticker").get("usedSecondsElsewhere"))
            # Nor does a guest read any machine's counts, or the hub's policy (retained for the machines).
            self.assertEqual(guest.messages, [], "a guest read the household")
        finally:
            forger.close()
            guest.close()
        # On A, the ticker runs (through `reveille run`, followed by its pid) for 3 minutes of A's clock.
        run = subprocess.Popen([os.path.join(BINARIES, "reveille"), "--root", a.root, "run", "ticker", "--", "3600"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: a.app("ticker") and "allowed" in a.cli("apps", "check", "ticker").stdout, what="ticker")
            time.sleep(0.5)
            a.advance(180)
            wait_for(lambda: (a.app("ticker") or {}).get("usedSecondsHere", 0) >= 180, what="A to count 3 minutes")
            # B hears it (A publishes at its keepalive, 10 s here, or at the next change), and counts it.
            wait_for(lambda: (b.app("ticker") or {}).get("usedSecondsElsewhere", 0) >= 180, seconds=30,
                     what="B to hear A's 3 minutes")
            self.assertEqual(b.app("ticker")["usedMinutes"], 3)
            self.assertIn("2 of 5 min left today", b.cli("apps", "check", "ticker").stdout)

            # The broker goes down. A counts on alone; B keeps A's last count.
            self.broker.kill()
            a.advance(60)
            wait_for(lambda: (a.app("ticker") or {}).get("usedSecondsHere", 0) >= 240, what="A to count 4 minutes")
            self.assertEqual(b.app("ticker")["usedSecondsElsewhere"] // 60, 3, "B keeps the last count it heard")
            self.assertIn("2 of 5 min left today", b.cli("apps", "check", "ticker").stdout)

            # The broker is back: the counts are reconciled.
            self.broker.start()
            wait_for(lambda: (b.app("ticker") or {}).get("usedSecondsElsewhere", 0) >= 240, seconds=60,
                     what="B to hear A's 4 minutes after the outage")

            # A reaches the household's 5 minutes: A ends its ticker; B refuses to start one.
            a.advance(70)
            wait_for(lambda: run.poll() is not None, seconds=30, what="A to end its ticker at the limit")
            wait_for(lambda: (b.app("ticker") or {}).get("usedSecondsElsewhere", 0) >= 300, seconds=30,
                     what="B to hear A's 5 minutes")
            refused = b.cli("run", "ticker", "--", "1")
            self.assertEqual(refused.returncode, 126, refused)
            self.assertIn("used up", refused.stderr)
            self.assertFalse(b.app("ticker")["allowed"])
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()

    def test_2_the_hubs_policy_and_grants_are_followed_and_only_the_hub_may_set_them(self):
        a, b = self.a, self.b
        hub_says = "the household's policy, from its hub clock"
        wait_for(lambda: hub_says in b.cli("apps", "list").stdout, what="B to follow A's policy")
        self.assertEqual(b.cli("apps", "export").stdout, a.cli("apps", "export").stdout)

        # A change on the hub reaches B; a change on B is refused there, and B's apps.toml is not used.
        drawing = ticker(os.path.join(a.root, "drawing"), "drawing")
        added = a.cli("apps", "add", "drawing", "--path", drawing, "--limit", "30", "--user", "root")
        self.assertEqual(added.returncode, 0, added)
        wait_for(lambda: "drawing" in b.cli("apps", "export").stdout, what="B to take A's new app")
        refused = b.cli("apps", "rm", "drawing")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("follows the household's app policy from clock", refused.stderr)
        with open(os.path.join(b.root, "etc/reveille/apps.toml"), "w") as f:
            f.write("")  # a child with the laptop's admin password would empty it: nothing changes
        wait_for(lambda: "is not enforced after a change" in b.log(), what="B to say apps.toml is not used")
        self.assertIn("drawing", b.cli("apps", "export").stdout)

        # Only the hub's user may write the household's policy: a policy B's user or a guest
        # publishes (emptying it) reaches no one.
        today = request(b.sock, {"status": {}})["payload"]["status"]["now"][:10]
        for user in ("laptop", "guest"):
            forger = Subscriber(self.broker, user=user, topics=())
            try:
                forger.publish("reveille-household/smiths/hub/policy", json.dumps({"hub": "clock", "policy": ""}))
                forger.publish("reveille-household/smiths/hub/grants",
                               json.dumps({"hub": "clock", "day": today,
                                           "grants": [{"app": "ticker", "user": "root", "minutes": 600}]}))
            finally:
                forger.close()
        time.sleep(1.5)
        self.assertIn("drawing", b.cli("apps", "export").stdout)
        self.assertEqual(b.app("ticker").get("grantMinutes", 0), 0)

        # The hub's grant counts on B too: the ticker, used up across the household, opens again there.
        self.assertFalse(b.app("ticker")["allowed"])
        granted = a.cli("apps", "grant", "ticker", "--minutes", "10")
        self.assertEqual(granted.returncode, 0, granted)
        wait_for(lambda: b.app("ticker").get("grantMinutes") == 10, what="B to take A's grant")
        self.assertTrue(b.app("ticker")["allowed"])
        self.assertIn("app grants from the household's hub clock", b.log())

        # B restarted still follows the hub, and keeps its policy and grant; and what the hub
        # changed while B's daemon was down reaches it when it is back.
        b.daemon.terminate()
        b.daemon.wait()
        removed = a.cli("apps", "rm", "drawing")
        self.assertEqual(removed.returncode, 0, removed)
        wait_for(lambda: "refused from the household: the household's policy from clock" in b.bridge_said(),
                 what="B's bridge to hear the hub's change with B's daemon down")
        b.start_daemon()
        self.assertIn(hub_says, b.cli("apps", "list").stdout)
        self.assertEqual(b.app("ticker").get("grantMinutes"), 10)
        wait_for(lambda: "drawing" not in b.cli("apps", "export").stdout, what="B to take the change it missed")


class SignedHouseholdTests(HouseholdFixture, unittest.TestCase):
    """The household on a broker with no ACL at all, where anyone may publish anything, retained:
    forged, moved and replayed messages from the hub and from machines change nothing on a
    member, and each is dropped with a line in its bridge's log."""

    prefix, acl = "reveille-signed-test.", False

    def test_forged_hub_and_count_messages_change_nothing_on_a_member(self):
        a, b = self.a, self.b
        # The hub's genuine messages as the broker holds them, to be moved and replayed below.
        old_policy, hub_counts = self.hubs_retained()
        self.assertTrue(old_policy.startswith('{"key":'), old_policy[:80])
        drawing = ticker(os.path.join(a.root, "drawing"), "drawing")
        added = a.cli("apps", "add", "drawing", "--path", drawing, "--limit", "30", "--user", "root")
        self.assertEqual(added.returncode, 0, added)
        wait_for(lambda: "drawing" in b.cli("apps", "export").stdout, what="B to take A's new app")
        before = b.cli("apps", "export").stdout

        today = request(b.sock, {"status": {}})["payload"]["status"]["now"][:10]
        counts = json.dumps({"day": today, "usage": [{"user": "root", "app": "ticker", "seconds": 290}]})
        grants = json.dumps({"hub": "clock", "day": today,
                             "grants": [{"app": "ticker", "user": "root", "minutes": 600}]})
        header, _, body = old_policy.partition("\n")
        forger = Subscriber(self.broker, user="guest", topics=())
        try:
            for topic, payload in [
                # Unsigned, as every message was before: an empty policy, 600 minutes, counts.
                ("hub/policy", json.dumps({"hub": "clock", "policy": ""})),
                ("hub/grants", grants),
                ("hub/machines", json.dumps({"hub": "clock", "machines": {"evil": self.codes["laptop"]}})),
                ("usage/clock", counts),
                # The hub's genuine signature on another body, and on another topic.
                ("hub/policy", header + "\n" + json.dumps({"hub": "clock", "policy": ""})),
                ("hub/grants", old_policy),
                ("usage/laptop", hub_counts),
                # An older genuine policy (without drawing) replayed.
                ("hub/policy", old_policy),
            ] + [(f"usage/filler{i}", counts) for i in range(40)]:
                forger.client.publish("reveille-household/smiths/" + topic, payload, qos=1, retain=True).wait_for_publish(5)
        finally:
            forger.close()
        # The hub's genuine grant, after them on the same connection: when B has it, B has read
        # them all; and B shows 10 minutes, not the forged 600 (a grant only ever rises).
        granted = a.cli("apps", "grant", "ticker", "--minutes", "10")
        self.assertEqual(granted.returncode, 0, granted)
        wait_for(lambda: b.app("ticker").get("grantMinutes") == 10, what="B to take A's signed grant")
        self.assertEqual(b.cli("apps", "export").stdout, before, "a forged or replayed policy changed B's")
        self.assertIsNone(b.app("ticker").get("usedSecondsElsewhere"), "forged counts reached B")
        self.assertIsNone(a.app("ticker").get("usedSecondsElsewhere"), "forged counts reached the hub")
        self.assertRegex(b.bridge_said(), r"ignored: from the household: .*(not signed|does not verify|a replay)")
        self.assertRegex(a.bridge_said(), r"ignored: from the household: .*(not signed|does not list|does not verify)")
        # B's bridge restarted gets the replayed policy, retained, first: the numbers it took are
        # kept on disk, and it still refuses it.
        b.bridge.terminate()
        b.bridge.wait()
        mark = len(b.bridge_said())
        b.start_bridge()
        wait_for(lambda: "a replay" in b.bridge_said()[mark:], what="B's bridge to drop the replay after a restart")
        time.sleep(1)
        self.assertEqual(b.cli("apps", "export").stdout, before, "a replay was taken after a restart")


class ReplayFloodTests(HouseholdFixture, unittest.TestCase):
    """On a broker with no ACL, anyone replays the household's genuine signed messages (the hub's
    retained policy, the clock's own counts) 50 times a second each: the member machine still
    takes the hub's next change of a limit, and its next grant, within seconds."""

    prefix, acl = "reveille-replay-test.", False

    def test_a_replay_flood_does_not_make_a_member_miss_the_hubs_change(self):
        a, b = self.a, self.b
        policy, counts = self.hubs_retained()
        replays = [("reveille-household/smiths/hub/policy", policy), ("reveille-household/smiths/usage/clock", counts)]
        stop = threading.Event()
        sent = [0]

        def flood():
            attacker = Subscriber(self.broker, user="guest", topics=())
            try:
                while not stop.is_set():
                    for topic, payload in replays:
                        attacker.client.publish(topic, payload, qos=0)
                        sent[0] += 1
                    time.sleep(0.01)
            finally:
                attacker.close()

        flooder = threading.Thread(target=flood, daemon=True)
        flooder.start()
        try:
            time.sleep(3)  # the flood has spent any shared rate limit by now
            self.assertIn("limit_minutes = 5", b.cli("apps", "export").stdout)
            changed = a.cli("apps", "edit", "ticker", "--limit", "10")
            self.assertEqual(changed.returncode, 0, changed)
            started = time.monotonic()
            wait_for(lambda: "limit_minutes = 10" in b.cli("apps", "export").stdout, seconds=10,
                     what="B to take the hub's new limit during the flood")
            took = time.monotonic() - started
            before = b.app("ticker").get("grantMinutes", 0)
            granted = a.cli("apps", "grant", "ticker", "--minutes", "20")
            self.assertEqual(granted.returncode, 0, granted)
            wait_for(lambda: b.app("ticker").get("grantMinutes", 0) > before, seconds=10,
                     what="B to take the hub's grant during the flood")
            self.assertEqual(b.app("ticker")["grantMinutes"], a.app("ticker")["grantMinutes"])
        finally:
            stop.set()
            flooder.join(10)
        self.assertGreater(sent[0], 50 * 3, "the flood did not flood")
        print(f"the hub's change reached the member in {took:.1f} s under {sent[0]} replays", file=sys.stderr)
        # The replays cost no line each: the bridge's log stays short.
        self.assertLess(b.bridge_said().count("\n"), 200, b.bridge_said()[-2000:])


class TwoClocksOfOneNameTests(unittest.TestCase):
    """Two clocks left at one host name (this machine's, for both), with one broker user and the
    default topics, on a broker with no ACL: each is its own device in Home Assistant, and neither
    bridge clears the other's entities (the second deleted the first's)."""

    def test_two_clocks_of_one_name_are_two_devices(self):
        folder = tempfile.mkdtemp(prefix="reveille-twins-test.")
        os.chmod(folder, 0o755)
        self.addCleanup(shutil.rmtree, folder, True)
        broker = Broker(folder, acl=False)
        self.addCleanup(broker.close)
        clocks = [Clock(BINARIES, broker, os.path.join(folder, name), base=None) for name in ("first", "second")]
        for clock in clocks:
            self.addCleanup(clock.close)
        for clock, label in zip(clocks, ("first's", "second's")):
            self.assertTrue(request(clock.sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "mon-fri",
                                                                       "label": label}}})["ok"])
        ha = Subscriber(broker, topics=("homeassistant/#", "reveille/#"))
        self.addCleanup(ha.close)

        def switches():
            with ha.lock:
                return {t: json.loads(p) for t, p, _, _ in ha.messages
                        if t.startswith("homeassistant/switch/") and t.endswith("_alarm_1/config") and p}

        wait_for(lambda: len(switches()) == 2, seconds=30, what="both clocks' alarm switches")
        time.sleep(3)  # each bridge has read what the broker retains, and cleared what it takes for its own
        late = Subscriber(broker, topics=("homeassistant/#", "reveille/#"))
        self.addCleanup(late.close)
        time.sleep(1.5)
        with late.lock:
            retained = {t: p for t, p, r, _ in late.messages if p}
        kept = [json.loads(retained[t]) for t in switches() if t in retained]
        self.assertEqual(len(kept), 2, f"a clock's switch was cleared by the other: {sorted(retained)[:20]}")
        self.assertEqual({c["name"] for c in kept}, {"Alarm 1 first's", "Alarm 1 second's"})
        devices = {c["device"]["identifiers"][0] for c in kept}
        self.assertEqual(len(devices), 2, f"one device for two clocks: {devices}")
        self.assertEqual(len({c["unique_id"] for c in kept}), 2)
        online = [t for t, p in retained.items() if t.endswith("/availability") and p == "online"]
        self.assertEqual(len(online), 2, online)


class HostileBrokerTests(unittest.TestCase):
    """A broker that attacks (Tests/mqtt/hostile_broker.py) and one that sends mutated packets, each
    against its own clock for REVEILLE_HOSTILE_SECONDS (60 by default), at once: the bridge never
    ends, its memory stays bounded, and the daemon goes on."""

    def test_a_broker_that_drops_each_connection_is_tried_less_and_less_often(self):
        """A broker that accepts and drops each connection at once, for 20 s: the bridge waits 1, 2,
        4, 8 s between tries (it tried about once a second, logging two lines each time)."""
        folder = tempfile.mkdtemp(prefix="reveille-flapping-test.")
        os.chmod(folder, 0o755)
        self.addCleanup(shutil.rmtree, folder, True)
        certificates = Broker(folder)
        certificates.close()
        port = free_port()
        broker = HostileBroker(os.path.join(folder, "server.pem"), os.path.join(folder, "server.key"), port, 20,
                               "drop").start()
        target = type("Target", (), {"port": port, "folder": folder})
        clock = Clock(BINARIES, target, os.path.join(folder, "clock"))
        self.addCleanup(clock.close)
        broker.join()
        said = clock.bridge_said()
        connected = said.count("connected to the broker at")
        self.assertGreaterEqual(broker.connections, 3, "the bridge kept trying")
        self.assertLessEqual(broker.connections, 6, f"{broker.connections} connections in 20 s:\n{said[-1500:]}")
        self.assertLessEqual(connected, 6, said[-1500:])
        self.assertIn("connecting again in 8 s", said)
        self.assertIsNone(clock.bridge.poll(), "the bridge ended")

    def test_a_hostile_or_fuzzing_broker_never_ends_the_bridge(self):
        seconds = float(os.environ.get("REVEILLE_HOSTILE_SECONDS", "60"))
        folder = tempfile.mkdtemp(prefix="reveille-hostile-test.")
        os.chmod(folder, 0o755)
        if not os.environ.get("REVEILLE_KEEP"):
            self.addCleanup(shutil.rmtree, folder, True)
        certificates = Broker(folder)  # its test CA and certificate; the real broker is not used
        certificates.close()
        brokers, clocks = {}, {}
        for mode in ("hostile", "fuzz"):
            port = free_port()
            brokers[mode] = HostileBroker(os.path.join(folder, "server.pem"), os.path.join(folder, "server.key"), port,
                                          seconds, mode, seed=7).start()
            target = type("Target", (), {"port": port, "folder": folder})
            clocks[mode] = Clock(BINARIES, target, os.path.join(folder, mode))
            self.addCleanup(clocks[mode].close)
        peak = {mode: 0 for mode in clocks}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for mode, clock in clocks.items():
                self.assertIsNone(clock.bridge.poll(), f"the {mode} broker ended the bridge:\n{clock.bridge_said()[-2000:]}")
                peak[mode] = max(peak[mode], clock.rss_kb())
            time.sleep(0.2)
        for mode, broker in brokers.items():
            broker.join()
            clock = clocks[mode]
            self.assertIsNone(clock.bridge.poll(), f"the {mode} broker ended the bridge:\n{clock.bridge_said()[-2000:]}")
            self.assertTrue(clock.up(), "the daemon goes on")
            self.assertGreater(broker.connections, 1, "the bridge connected again after each attack")
            print(f"{mode} broker, {seconds:.0f} s: {broker.connections} connections, bridge RSS at most "
                  f"{peak[mode] / 1024:.1f} MB; sent {broker.sent}")
            # Memory stays bounded: a packet that claims 200 MB is refused, not allocated.
            self.assertLess(peak[mode], 56 * 1024, f"the {mode} broker grew the bridge past 56 MB")


if __name__ == "__main__":
    if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]):
        BINARIES = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
