#!/usr/bin/env python3
"""The clock in a real Home Assistant: a trial, not part of `make test` (Home Assistant comes from
PyPI, about 400 MB with its frontend, and takes a minute to start).

    make ha-trial        (or: scripts/ha_trial.py HA_VENV [BINARIES] [PICTURE])

It starts mosquitto on a free loopback port (a password file and ACLs), reveilled and
reveille-mqtt as `nobody` under a temporary root (no guard: a trial must not judge this machine's
execs), and Home Assistant with a fresh configuration. It onboards Home Assistant through its own
API, adds the MQTT integration through its config flow (the same steps as the user's "Add
integration", no YAML), then checks that Home Assistant made every entity of the README's table
from the discovery alone, with the states the clock has. Last, Chromium shows the device's page,
saved as PICTURE (default docs/home-assistant.png). Everything it started is stopped.
"""
import json, os, pwd, shutil, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "web"))
from webdriver import REPO, Browser, end_session, free_port, request, ring_soon, status, wait_for

HA_VENV = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/ha/venv"
BINARIES = sys.argv[2] if len(sys.argv) > 2 else os.path.join(REPO, ".build", "debug")
PICTURE = sys.argv[3] if len(sys.argv) > 3 else os.path.join(REPO, "docs", "home-assistant.png")
NOBODY = pwd.getpwnam("nobody")


def as_nobody(arguments, **options):
    return subprocess.Popen(["setpriv", f"--reuid={NOBODY.pw_uid}", f"--regid={NOBODY.pw_gid}", "--clear-groups",
                             *arguments], **options)


class HomeAssistant:
    def __init__(self, folder, venv):
        self.config = os.path.join(folder, "ha")
        os.makedirs(self.config)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        with open(os.path.join(self.config, "configuration.yaml"), "w") as f:
            f.write("homeassistant:\n  name: Home\n  time_zone: Europe/London\n  country: GB\n"
                    "  unit_system: metric\nfrontend:\nconfig:\nhistory:\nlogbook:\n"
                    "automation: !include automations.yaml\ninput_boolean:\n  bedroom_light:\n    name: Bedroom light\n"
                    f"http:\n  server_host: 127.0.0.1\n  server_port: {self.port}\n")
        with open(os.path.join(self.config, "automations.yaml"), "w") as f:
            f.write("[]\n")
        self.log = open(os.path.join(folder, "home-assistant.out"), "w")
        self.process = subprocess.Popen([os.path.join(venv, "bin", "hass"), "-c", self.config],
                                        stdout=self.log, stderr=self.log)
        wait_for(self.answers, seconds=240, what="Home Assistant to answer")
        self.token = None

    def answers(self):
        try:
            urllib.request.urlopen(self.base + "/manifest.json", timeout=2)
            return True
        except (OSError, urllib.error.URLError):
            return False

    def call(self, path, body=None, form=False):
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if body is not None:
            if form:
                data = urllib.parse.urlencode(body).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
        with urllib.request.urlopen(urllib.request.Request(self.base + path, data=data, headers=headers),
                                    timeout=30) as answer:
            return json.loads(answer.read() or b"null")

    def template(self, text):
        """A template rendered by Home Assistant: what its own automations would see."""
        request = urllib.request.Request(self.base + "/api/template", data=json.dumps({"template": text}).encode(),
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.read().decode()

    def onboard(self):
        """The first user, the location and the rest of the welcome, as the onboarding page does."""
        client = self.base + "/"
        code = self.call("/api/onboarding/users", {"client_id": client, "name": "Household",
                                                   "username": "household", "password": "household-pw",
                                                   "language": "en"})["auth_code"]
        self.tokens = self.call("/auth/token", {"grant_type": "authorization_code", "code": code,
                                                "client_id": client}, form=True)
        self.token = self.tokens["access_token"]
        self.call("/api/onboarding/core_config", {})
        self.call("/api/onboarding/analytics", {})
        self.call("/api/onboarding/integration", {"client_id": client, "redirect_uri": client + "?auth_callback=1"})

    def add_mqtt(self, port, username, password):
        """Settings → Devices & services → Add integration → MQTT, through the same flow."""
        step = self.call("/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        while step.get("type") == "menu":
            step = self.call(f"/api/config/config_entries/flow/{step['flow_id']}", {"next_step_id": "broker"})
        step = self.call(f"/api/config/config_entries/flow/{step['flow_id']}",
                         {"broker": "127.0.0.1", "port": port, "username": username, "password": password})
        if step.get("type") != "create_entry":
            raise RuntimeError(f"the MQTT flow ended with {step}")

    def states(self):
        return {s["entity_id"]: s for s in self.call("/api/states")}

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def main():
    folder = tempfile.mkdtemp(prefix="reveille-ha-trial.")
    os.chmod(folder, 0o755)
    started = []
    try:
        # The broker: Home Assistant's user may read everything and send the clock's commands.
        broker_port = free_port()
        passwords = {"clock": "clock-pw", "ha": "ha-pw"}
        open(os.path.join(folder, "passwd"), "w").close()
        for user, password in passwords.items():
            subprocess.run(["mosquitto_passwd", "-b", os.path.join(folder, "passwd"), user, password], check=True)
        with open(os.path.join(folder, "acl"), "w") as f:
            f.write("user clock\ntopic readwrite reveille/#\ntopic readwrite homeassistant/#\n\n"
                    "user ha\ntopic readwrite homeassistant/#\ntopic read reveille/#\n"
                    "topic write reveille/+/master/set\ntopic write reveille/+/snooze/press\n"
                    "topic write reveille/+/alarm/+/set\ntopic write reveille/+/apps/answer\n")
        with open(os.path.join(folder, "mosquitto.conf"), "w") as f:
            f.write(f"user root\npersistence false\nlog_dest stderr\nlog_type error\n"
                    f"listener {broker_port} 127.0.0.1\nallow_anonymous false\n"
                    f"password_file {folder}/passwd\nacl_file {folder}/acl\n")
        broker_log = open(os.path.join(folder, "mosquitto.out"), "w")
        broker = subprocess.Popen(["mosquitto", "-c", os.path.join(folder, "mosquitto.conf")],
                                  stdout=broker_log, stderr=broker_log)
        started.append(broker)

        # The clock, as nobody: two alarms, one committed, and a limited app whose user asks for more.
        root = os.path.join(folder, "clock")
        os.makedirs(os.path.join(root, "etc/reveille"))
        game = os.path.join(root, "games/minecraft")
        os.makedirs(os.path.dirname(game))
        shutil.copy("/usr/bin/sleep", game)
        with open(os.path.join(root, "etc/reveille/mqtt-password"), "w") as f:
            f.write(passwords["clock"] + "\n")
        os.chmod(os.path.join(root, "etc/reveille/mqtt-password"), 0o600)
        with open(os.path.join(root, "etc/reveille/reveille.toml"), "w") as f:
            f.write(f"[audio]\ndevices = [\"file:'{root}/sound.wav',wav\"]\n[voice]\nenabled = false\n"
                    f"[mqtt]\nhost = \"127.0.0.1\"\nport = {broker_port}\nusername = \"clock\"\n"
                    f"password_file = \"{root}/etc/reveille/mqtt-password\"\nbase_topic = \"reveille/bedside\"\n")
        with open(os.path.join(root, "etc/reveille/apps.toml"), "w") as f:
            f.write(f"[[app]]\nname = \"minecraft\"\npaths = [\"{game}\"]\nwindows = [\"07:00-20:30\"]\n"
                    "limit_minutes = 60\nusers = [\"nobody\"]\n")
        subprocess.run(["chown", "-R", f"{NOBODY.pw_uid}:{NOBODY.pw_gid}", root], check=True)
        daemon_log = open(os.path.join(folder, "reveilled.out"), "w")
        started.append(as_nobody([os.path.join(BINARIES, "reveilled"), "--root", root],
                                 stdout=daemon_log, stderr=daemon_log))
        sock = os.path.join(root, "run/reveille/control.sock")
        wait_for(lambda: os.path.exists(sock) and request(sock, {"status": {}})["ok"], what="reveilled")

        def cli(*arguments):
            subprocess.run(["setpriv", f"--reuid={NOBODY.pw_uid}", f"--regid={NOBODY.pw_gid}", "--clear-groups",
                            os.path.join(BINARIES, "reveille"), "--root", root, *arguments],
                           check=True, capture_output=True)
        cli("alarm", "add", "6:45", "--days", "weekdays", "--label", "Work")
        cli("alarm", "add", "9:00", "--days", "sat", "--label", "Swimming")
        cli("apps", "ask", "minecraft", "--minutes", "30")
        bridge_log = open(os.path.join(folder, "reveille-mqtt.out"), "w")
        bridge = [as_nobody([os.path.join(BINARIES, "reveille-mqtt"), "--root", root],
                            stdout=bridge_log, stderr=bridge_log)]
        started.append(bridge[0])

        def restart_bridge():
            """Stops the bridge as systemd does, waits for its last will to be seen, starts it again."""
            bridge[0].terminate()
            bridge[0].wait()
            time.sleep(5)
            bridge[0] = as_nobody([os.path.join(BINARIES, "reveille-mqtt"), "--root", root],
                                  stdout=bridge_log, stderr=bridge_log)
            started.append(bridge[0])

        ha = HomeAssistant(folder, HA_VENV)
        started.append(ha)
        ha.onboard()
        ha.add_mqtt(broker_port, "ha", passwords["ha"])
        print(f"Home Assistant {ha.call('/api/config')['version']}: MQTT added through its config flow")

        # Every entity of the README's table, made by Home Assistant from the discovery alone.
        expected = {
            "sensor": ["next ring", "ring state", "time left", "requests"],
            "binary_sensor": ["ringing"], "switch": ["alarms", "work", "swimming"], "button": ["snooze"],
            "event": ["alarm"],
        }

        def ours():
            mqtt = set(json.loads(ha.template("{{ integration_entities('mqtt') | to_json }}")))
            return {k: v for k, v in ha.states().items() if k in mqtt}

        def entity(platform, word):
            return next((e for e in ours() if e.startswith(platform + ".") and word.replace(" ", "_") in e), None)

        def state(platform, word):
            return ours()[entity(platform, word)]
        wait_for(lambda: sum(len(words) for words in expected.values()) == len(ours())
                 and all(s["state"] != "unavailable" for s in ours().values()),
                 seconds=60, what="Home Assistant to make the clock's entities, available")
        found = ours()
        for name, known in sorted(found.items()):
            print(f"  {name:52} {known['state']:26} {known['attributes'].get('friendly_name', '')}")
        missing = [f"{platform}: {word}" for platform, words in expected.items() for word in words
                   if not entity(platform, word)]
        check(not missing, f"Home Assistant has no entity for {missing}")
        print(f"every entity of the table is there ({len(found)} entities), none unavailable")
        check(state("switch", "alarms")["state"] == "on" and state("switch", "work")["state"] == "on", "switches on")
        check(state("binary_sensor", "ringing")["state"] == "off", "not ringing")
        check(state("sensor", "ring state")["state"] == "idle", "ring state idle")
        check(state("sensor", "time left")["state"] == "60", "60 minutes left")
        check(state("sensor", "requests")["state"] == "1", "one request waiting")
        check(state("sensor", "next ring")["attributes"].get("device_class") == "timestamp", "next ring a timestamp")

        # The README's automation, with a helper standing in for the bedroom light.
        automation = {
            "alias": "Light on when the alarm rings",
            "triggers": [{"trigger": "state", "entity_id": entity("event", "alarm"),
                          "not_from": ["unavailable"]}],
            "conditions": [{"condition": "state", "entity_id": entity("event", "alarm"),
                            "attribute": "event_type", "state": "fired"}],
            "actions": [{"action": "input_boolean.turn_on", "target": {"entity_id": "input_boolean.bedroom_light"}}],
        }
        ha.call("/api/config/automation/config/light_on_ring", automation)
        wait_for(lambda: "automation.light_on_when_the_alarm_rings" in ha.states(), what="the automation to load")
        check(ha.states()["input_boolean.bedroom_light"]["state"] == "off", "the light off before the ring")

        # A ring: Home Assistant sees it fire, the automation turns the light on, and its Snooze
        # button snoozes the clock.
        class Bedside:
            pass
        bedside = Bedside()
        bedside.sock = sock
        bedside.log = lambda: open(os.path.join(folder, "reveilled.out")).read()
        ring_soon(bedside, seconds=2, label="Nap")
        wait_for(lambda: state("event", "alarm")["attributes"].get("event_type") == "fired",
                 what="Home Assistant to see the alarm fire")
        wait_for(lambda: state("binary_sensor", "ringing")["state"] == "on", what="Ringing on in Home Assistant")
        wait_for(lambda: ha.states()["input_boolean.bedroom_light"]["state"] == "on",
                 what="the README's automation to turn the light on")
        print("a ring: Home Assistant saw `fired`, and the README's automation turned the light on")
        # The bridge restarted during the ring: the event entity goes unavailable and comes back
        # with its last event, `fired`; that is no new ring, and the automation must not run again.
        ha.call("/api/services/input_boolean/turn_off", {"entity_id": "input_boolean.bedroom_light"})
        wait_for(lambda: ha.states()["input_boolean.bedroom_light"]["state"] == "off", what="the light off again")
        restart_bridge()
        wait_for(lambda: state("event", "alarm")["state"] == "unavailable", seconds=30,
                 what="the event entity unavailable while the bridge is away")
        wait_for(lambda: state("event", "alarm")["state"] != "unavailable", seconds=60,
                 what="the event entity back with the bridge")
        time.sleep(3)
        check(ha.states()["input_boolean.bedroom_light"]["state"] == "off",
              "the guide's automation turned the light on again when the bridge came back, with no new ring")
        print("the bridge restarted during the ring: the guide's automation did not run again")
        ha.call("/api/services/button/press", {"entity_id": entity("button", "snooze")})
        wait_for(lambda: (status(sock).get("session") or {}).get("state") == "snoozed",
                 what="the clock to snooze when Home Assistant pressed Snooze")
        wait_for(lambda: state("sensor", "ring state")["state"] == "snoozed"
                 and state("event", "alarm")["attributes"].get("event_type") == "snoozed",
                 what="Home Assistant to show the snooze")
        print("Snooze pressed in Home Assistant: the clock snoozed, and Home Assistant shows it")
        end_session(bedside)
        wait_for(lambda: state("sensor", "ring state")["state"] == "idle", what="the ring state idle again")

        # The device's page, as the household sees it: signed in by handing the page its tokens.
        device = ha.template("{{ device_id(integration_entities('mqtt') | first) }}")
        browser = Browser(width=1280, height=1100)
        try:
            browser.open(ha.base + "/")
            tokens = dict(ha.tokens, hassUrl=ha.base, clientId=ha.base + "/", expires=int(time.time() * 1000) + 3600_000)
            browser.run("localStorage.setItem('hassTokens', arguments[0]);", json.dumps(tokens))
            browser.open(f"{ha.base}/config/devices/device/{device}")
            time.sleep(8)
            browser.screenshot(PICTURE)
            print(f"the device's page: {PICTURE}")
        finally:
            browser.close()
    finally:
        if os.environ.get("HA_TRIAL_HOLD"):  # to look around: seconds to wait before stopping it all
            print(f"holding {folder} for {os.environ['HA_TRIAL_HOLD']} s", flush=True)
            time.sleep(float(os.environ["HA_TRIAL_HOLD"]))
        for process in reversed(started):
            if isinstance(process, HomeAssistant):
                process.close()
            elif process.poll() is None:
                process.terminate()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
