#!/usr/bin/env python3
"""Every screen of the page as a person sees it, in real headless Chromium against real reveilled
and reveille-web: at the Raspberry Pi touchscreen's 800x480 and a phone's 390x844, in day and in
night mode. On each screen the rendered page is measured:

- nothing wider than the screen (no sideways scrolling);
- every text's contrast against what is behind it, from the rendered colours (WCAG AA: 4.5:1;
  exempt, as WCAG exempts them: disabled controls, the greyed past days, the sunrise's light);
- on the ring, snooze, wake-up check and unlock screens, every primary control (the keypad and
  its OK, SNOOZE, YES I'M UP, Cancel) and the time inside the screen without scrolling.

A screenshot of each is kept under .build/web-screenshots/screens/ for a person to look at.

    python3 Tests/web/test_screens.py [BINARIES]    (default: .build/debug; `make test` runs it)
"""
import os, shutil, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import REPO, Browser, Clock, WPEBrowser, pair_as_admin, request, solve, status, wait_for

BINARIES = os.path.join(REPO, ".build", "debug")
SHOTS = os.path.join(REPO, ".build", "web-screenshots", "screens")

# Colours and what is shown, in the page: shared by the measures below.
SEEN = r"""
const parse = (c) => { const m = (c || "").match(/[\d.]+/g); if (!m) return null;
  return { r: +m[0], g: +m[1], b: +m[2], a: m.length > 3 ? +m[3] : 1 }; };
const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
  b: top.b * top.a + under.b * (1 - top.a), a: 1 });
const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const shown = (e) => { if (e.closest("[hidden]")) return false; const r = e.getBoundingClientRect();
  const s = getComputedStyle(e); return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
// What is behind an element: its own background over its ancestors', each with its opacity.
const behind = (e) => { const chain = []; for (let x = e; x; x = x.parentElement) chain.unshift(x);
  let bg = { r: 255, g: 255, b: 255, a: 1 };
  for (const x of chain) { const c = parse(getComputedStyle(x).backgroundColor); if (c && c.a > 0) bg = over(c, bg); }
  return bg; };
const opacity = (e) => { let o = 1; for (let x = e; x; x = x.parentElement) o *= +getComputedStyle(x).opacity; return o; };
"""

# What is measured, in the page: returns {overflow, contrast, outside, time}.
AUDIT = SEEN + r"""
const primary = arguments[0];
const exempt = (e) => e.disabled || e.closest("button:disabled, select:disabled, .past, #sunrise, option");
const contrast = [];
for (const e of document.querySelectorAll("body *")) {
  if (["SCRIPT", "STYLE", "OPTION"].includes(e.tagName) || !shown(e) || exempt(e)) continue;
  const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || ["INPUT", "SELECT", "BUTTON"].includes(e.tagName) && (e.value || e.textContent).trim();
  if (!own || (e.tagName === "INPUT" && ["hidden", "checkbox", "range"].includes(e.type))) continue;
  const bg = behind(e), fg = parse(getComputedStyle(e).color);
  const seen = over({ ...fg, a: fg.a * opacity(e) }, bg);
  const r = ratio(seen, bg);
  if (r < 4.5) contrast.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} "${(e.value || e.textContent).trim().slice(0, 40)}" ${r.toFixed(2)}:1`);
}
const overflow = document.documentElement.scrollWidth > innerWidth + 1
  ? [...document.querySelectorAll("body *")].filter((e) => shown(e) && e.getBoundingClientRect().right > innerWidth + 1)
      .slice(-5).map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className} right ${Math.round(e.getBoundingClientRect().right)}`)
  : [];
const outside = [];
for (const css of primary) for (const e of document.querySelectorAll(css)) {
  if (!shown(e)) continue;
  const r = e.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5)
    outside.push(`${css} "${e.textContent.trim().slice(0, 20)}" at ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`);
}
// The CLI's words and the machine's formats: a command, a flag, a settings file or key, an ISO date,
// a "#id" name, a day range or list ("mon-fri", "sat,sun"), a pipe list ("a|b"), a file path, a
// command to type (sudo), a document to read (.md), a range in the CLI's help ("0-100", "1h-24h").
const cliWords = new RegExp([
  String.raw`'reveille |\breveille (?:alarm|rule|override|apps|tag|calendar|reminder|pause|resume|unlock|dismiss|snooze|sound|next|status|doctor|web|history|stats|month)\b`,
  String.raw`(?:^|\s)--[a-z]{2,}|\.toml\b|\b\d{4}-\d\d-\d\d\b|\[(?:nfc|audio|mqtt|voice|web|input)\]|secret`,
  String.raw`#\d`, String.raw`\b(?:mon|tue|wed|thu|fri|sat|sun)[-,](?:mon|tue|wed|thu|fri|sat|sun)\b`,
  String.raw`\w\|\w`, String.raw`(?:^|[\s(])/(?:etc|var|usr|home|run|tmp|opt|srv)/`, String.raw`\bsudo\b|\.md\b`,
  String.raw`\b\d+-\d+ \(default|\b\d+h-\d+h\b|\b\d+,\d+,\d+\b`,
].join("|"));
const cli = [];
for (const e of document.querySelectorAll("body *")) {
  if (["SCRIPT", "STYLE"].includes(e.tagName) || !shown(e)) continue;
  for (const n of e.childNodes) {
    if (n.nodeType === 3 && cliWords.test(n.textContent)) cli.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} "${n.textContent.trim().slice(0, 90)}"`);
  }
  // What a field asks for in grey is words on the screen too.
  const hint = e.getAttribute("placeholder") || e.getAttribute("title") || "";
  if (hint && cliWords.test(hint)) cli.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} [${hint.slice(0, 90)}]`);
}
return { contrast, overflow, outside, cli };
"""

RING_PATH = ["#ringclock", "#snooze", "#dismiss", "#keypad button", "#awakeyes", "#awakeclock", "#unlockpad button",
             "#unlockcancel", "#unlockclock", "#ringwhy"]
# The time, shown on each screen of the ring path (and read there: HH:MM).
CLOCKS = {"ring": "#ringclock", "ring-answering": "#ringclock", "snoozed": "#ringclock", "ring-after-check": "#ringclock",
          "are-you-up": "#awakeclock", "unlock": "#unlockclock"}


# The ring and unlock screens in every state they can be in, rendered by the page's own code from
# sessions of the daemon's wire shape, each laid out and measured in one pass in the page: every
# primary control (each key, OK, Cancel, SNOOZE, DISMISS) and the time inside the screen and not
# covered by anything else (the element at its centre is itself), and each text of the screen at
# WCAG AA contrast. Returns the problems found and how many states were measured.
SWEEP = SEEN + r"""
const [combos, unlocks, keep] = arguments;
const problems = [];
const saved = { status: S.status, shown: problemShown, entry: entry };
function check(name, screen, primary, clock) {
  const root = document.getElementById(screen);
  for (const css of primary) {
    const found = [...root.querySelectorAll(css)];
    if (!found.length || !found.some(shown)) { problems.push(`${name}: ${css} is not shown`); continue; }
    for (const e of found) {
      if (!shown(e)) continue;
      const r = e.getBoundingClientRect();
      if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) {
        problems.push(`${name}: ${css} "${e.textContent.trim().slice(0, 12)}" outside the screen (${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight})`);
        continue;
      }
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!at || !(at === e || e.contains(at))) problems.push(`${name}: ${css} "${e.textContent.trim().slice(0, 12)}" covered by ${at ? at.tagName.toLowerCase() + (at.id ? "#" + at.id : "") : "nothing"}`);
    }
  }
  const time = document.getElementById(clock).textContent;
  if (!/^\d\d:\d\d$/.test(time)) problems.push(`${name}: the time is not shown (${JSON.stringify(time)})`);
  for (const e of root.querySelectorAll("*")) {
    if (!shown(e) || e.disabled) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const bg = behind(e), fg = parse(getComputedStyle(e).color);
    const r = ratio(over({ ...fg, a: fg.a * opacity(e) }, bg), bg);
    if (r < 4.5) problems.push(`${name}: low contrast ${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} ${r.toFixed(2)}:1`);
  }
}
const clear = (id) => { const e = document.getElementById(id); if (e) e.textContent = ""; };
let measured = 0;
try {
  for (const c of combos) {
    S.status = { ok: true, payload: { status: c.status } };
    problemShown = false; entry = "";
    clear("ringnote");
    renderRing();
    if (c.problem) showProblem(c.problem);
    if (c.note) toast(c.note, c.error);
    const primary = ["#ringclock"];
    if (c.status.session.state === "ringing") primary.push("#snooze");
    if (c.problem) primary.push("#keypad button", "#answer", "#ringcancel", "#problem", "#ringnote");
    else if (!$("dismiss").hidden) primary.push("#dismiss");
    check(c.name, "ring", primary, "ringclock");
    // Every reason that holds is said, a line each (a silent speaker did hide the others).
    const session = c.status.session, ringing = session.state === "ringing";
    const reasons = (c.status.silent ? 1 : 0) + (ringing && ["snooze", "wake-check"].includes(session.reason) ? 1 : 0);
    const said = $("ringwhy").hidden ? 0 : $("ringwhy").textContent.split("\n").filter(Boolean).length;
    if (said !== reasons) problems.push(`${c.name}: ${said} reason lines shown of ${reasons}`);
    measured++;
  }
  if (unlocks.length) { problemShown = false; S.status = saved.status; renderRing(); }
  for (const u of unlocks) {
    unlocking.alarmID = 1; unlocking.text = ""; clear("unlocknote");
    $("unlockwhy").textContent = u.why;
    $("unlocktag").hidden = !u.tag; $("unlockmath").hidden = !u.problem;
    $("unlockproblem").textContent = u.problem ? u.problem + " = ?" : "";
    $("unlock").hidden = false;
    if (u.note) toast(u.note, true);
    check(u.name, "unlock", ["#unlockclock", "#unlockcancel"].concat(u.problem ? ["#unlockpad button", "#unlockok"] : []), "unlockclock");
    measured++;
  }
} finally {
  // Kept as the last state left it, for a screenshot (`keep`); else the page as it was.
  if (!keep) {
    $("unlock").hidden = true; clear("unlocknote");
    S.status = saved.status; problemShown = saved.shown; entry = saved.entry; renderRing();
  }
}
return { problems, measured };
"""


def ring_states():
    """Every combination of what the ring screen shows: why it rings, the problem's difficulty,
    the snoozes left, the answer's message, answering or not, a short or the longest label."""
    reasons = {
        "fresh": ({}, {}),
        "after-snooze": ({"reason": "snooze", "snoozeCount": 2}, {}),
        "after-wake-check": ({"reason": "wake-check"}, {}),
        "escalated": ({"escalated": True}, {}),
        "silent": ({}, {"silent": True}),
        # Every reason at once: a ring no one hears that rings again after a snooze or a check.
        "silent-after-snooze": ({"reason": "snooze", "snoozeCount": 2}, {"silent": True}),
        "silent-after-wake-check": ({"reason": "wake-check"}, {"silent": True}),
        "fallback": ({"challenge": "nfc", "fellBackToMath": True, "readerLostSecondsBeforeRing": 120,
                      "problemsLeft": 3}, {"reader": {"condition": "unplugged"}}),
        "tag": ({"challenge": "nfc"}, {"reader": {"condition": "ok"}}),
        "tag-on-reader": ({"challenge": "any", "tagOnReader": True}, {"reader": {"condition": "ok"}}),
        "snoozed": ({"state": "snoozed", "snoozedUntil": "06:54:00", "snoozeCount": 1}, {}),
    }
    problems = {"easy": "47 + 38", "medium": "47 × 83 + 29", "hard": "97 × 88 + 76 × 99"}
    snoozes = {"snoozes-left": (3, 1), "no-snoozes": (3, 3), "unlimited": (0, 1)}
    notes = {"no-note": None, "wrong": ("Not quite. Here is a new one.", True),
             "right-more": ("Right. 2 more problems (the tag reader is not working).", False)}
    labels = {"short": "work", "long": "Kid school, the long way round by the bakery and the bus stop (Mon)"}
    for reason, (session_extra, status_extra) in reasons.items():
        for snooze, (most, used) in snoozes.items():
            for label_name, label in labels.items():
                for answering in [None] + list(problems):
                    if answering and session_extra.get("state") == "snoozed":
                        continue  # a snoozed alarm is dismissed by a tag, or rings again first
                    if answering and reason == "tag":
                        continue  # tag only, with a working reader: no problem is offered
                    for note_name, note in notes.items():
                        if not answering and note_name == "right-more":
                            continue
                        session = {"id": 7, "alarmID": 2, "label": label, "state": "ringing", "challenge": "math",
                                   "scheduledTime": "06:45:00", "snoozeCount": used, "maxSnoozes": most,
                                   "fellBackToMath": False, "howToDismiss": "", **session_extra}
                        status = {"role": "admin", "timeZone": "Europe/Berlin", "silent": False,
                                  "reader": {"condition": "none"}, **status_extra, "session": session}
                        yield {"name": f"{reason}/{snooze}/{label_name}/{answering or 'not-answering'}/{note_name}",
                               "status": status, "problem": problems.get(answering), "note": note and note[0],
                               "error": bool(note and note[1])}


def unlock_states():
    whys = {"short": "This change lets “work” ring less, and it is committed: prove you are awake first.",
            "long": "This change lets “Kid school, the long way round by the bakery and the bus stop (Mon)” ring less,"
                    " and it is committed: prove you are awake first."}
    for why_name, why in whys.items():
        for kind, (tag, problem) in {"math": (False, "97 × 88 + 76 × 99"), "tag": (True, None),
                                     "tag-or-math": (True, "47 × 83 + 29")}.items():
            for note in (None, "Not quite. Here is a new one."):
                yield {"name": f"unlock/{kind}/{why_name}/{'wrong' if note else 'no-note'}", "why": why, "tag": tag,
                       "problem": problem, "note": note}


class ScreenTests(unittest.TestCase):
    """Each size is one test: the screens are set up in turn, each measured in day and night mode."""

    @classmethod
    def setUpClass(cls):
        cls.clock = Clock(BINARIES, shifted=True)

    @classmethod
    def tearDownClass(cls):
        cls.clock.close()

    def test_800x480_the_pi_touchscreen(self):
        self.every_screen(800, 480)

    def test_390x844_a_phone(self):
        self.every_screen(390, 844)

    def test_the_ring_screen_in_every_state(self):
        """The ring and unlock screens in every combination of their states, at 800x480 and at
        390x844, by day and by night: the keypad, OK, Cancel and the time in view and uncovered."""
        self.sweep([(Browser, 800, 480), (Browser, 390, 844)])

    def test_the_ring_screen_in_every_state_in_wpe_webkit(self):
        """The same sweep at 800x480 in WPE WebKit (cog, WPEWebDriver, on a headless Weston output
        of that size): the engine the kiosk uses on a small board."""
        missing = [p for p in ("cog", "WPEWebDriver", "weston") if not shutil.which(p)]
        if missing:
            self.skipTest(f"needs {', '.join(missing)} (apt install cog wpewebkit-driver weston)")
        self.sweep([(WPEBrowser, 800, 480)], engine="WPE WebKit")

    def sweep(self, browsers, engine="Chromium"):
        combos, unlocks = list(ring_states()), list(unlock_states())
        self.assertGreater(len(combos), 300)
        problems = []
        for make, width, height in browsers:
            browser = make(width, height)
            try:
                self.browser = browser
                self.admin()
                for mode in ("day", "night"):
                    browser.run("night.auto = false; document.body.classList.toggle('night', arguments[0]);", mode == "night")
                    found = browser.run(SWEEP, combos, unlocks)
                    self.assertEqual(found["measured"], len(combos) + len(unlocks))
                    problems += [f"{width}x{height} {mode} {p}" for p in found["problems"]]
                    # A picture of the fullest states, for a person to look at.
                    for name in ("after-wake-check/no-snoozes/long/hard/right-more", "fallback/snoozes-left/long/hard/wrong"):
                        combo = next(c for c in combos if c["name"] == name)
                        browser.run("window.savedStatus = S.status;")
                        browser.run(SWEEP, [combo], [], True)
                        self.assertTrue(browser.visible("#ring"), name)
                        browser.screenshot(os.path.join(
                            SHOTS, f"{width}x{height}-{engine.split()[0].lower()}-sweep-{name.replace('/', '-')}-{mode}.png"))
                        browser.run("S.status = window.savedStatus; problemShown = false; renderRing();")
            finally:
                browser.close()
        print(f"ring screen sweep in {engine}: {len(combos)} ring states and {len(unlocks)} unlock states, "
              f"at {len(browsers)} size{'s' if len(browsers) > 1 else ''}, day and night")
        if problems:
            self.fail(f"{len(problems)} problems:\n" + "\n".join(problems[:80]))

    def every_screen(self, width, height):
        self.browser = Browser(width, height)
        self.addCleanup(self.browser.close)
        self.problems, self.size = [], f"{width}x{height}"
        sock = self.clock.sock
        for override in request(sock, {"overrideList": {}})["payload"]["overrides"]:
            request(sock, {"overrideRemove": {"id": override["id"]}})
        work = request(sock, {"alarmAdd": {"spec": {"time": "06:45", "days": "mon-fri", "label": "work", "commitSeconds": 0}}})
        self.assertTrue(work["ok"], work)
        self.addCleanup(request, sock, {"alarmRemove": {"id": work["payload"]["alarms"][0]["id"]}})
        # What the daemon says in the CLI's words (a tag alarm with no reader, a passed one-time
        # alarm, a web calendar not fetched yet, with a password in its address) is shown in a
        # person's: the measure looks for commands, flags, settings keys, ISO dates and the password.
        tag = request(sock, {"alarmAdd": {"spec": {"time": "05:30", "days": "sat", "label": "tag", "challenge": "nfc"}}})
        self.assertTrue(tag["ok"], tag)
        self.addCleanup(request, sock, {"alarmRemove": {"id": tag["payload"]["alarms"][0]["id"]}})
        nap = request(sock, {"alarmAdd": {"spec": {"inSeconds": 2, "label": "nap", "enabled": False}}})
        self.addCleanup(request, sock, {"alarmRemove": {"id": nap["payload"]["alarms"][0]["id"]}})
        web = request(sock, {"calendarAdd": {"name": "club", "source": "https://leo:secret@127.0.0.1:9/club.ics",
                                             "purpose": "reminders"}})
        self.assertTrue(web["ok"], web)
        self.addCleanup(request, sock, {"calendarRemove": {"calendar": "club"}})
        self.clock.advance(5)
        # The kiosk before it is paired with admin rights: the Alarms tab says how to get them, in
        # a person's words.
        self.browser.open(self.clock.url)
        wait_for(lambda: self.browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: "admin of the clock" in (self.browser.text("#lists") or ""), what="the unpaired Alarms tab")
        self.measure("alarms-unpaired")
        self.admin()
        # The clock face, the month and a day's sheet, the lists, apps, and more.
        self.measure("clock")
        self.browser.click('nav button[data-view="month"]')
        self.measure("month")
        # By night every layer's colour is a red: they differ by their pattern too, not by hue alone.
        self.browser.run("night.auto = false; document.body.classList.add('night');")
        chips = self.browser.run("return [...document.querySelectorAll('.legend .chip')].map((c) => "
                                 "[c.className, getComputedStyle(c).borderTopStyle, getComputedStyle(c).backgroundColor])")
        self.assertEqual(len({style for _, style, _ in chips}), len(chips), f"layers alike by night: {chips}")
        self.assertEqual(len({colour for _, _, colour in chips}), len(chips), f"layers alike by night: {chips}")
        day = status(sock)["nextRing"]["date"]
        if day[:7] != status(sock)["now"][:7]:
            self.browser.click("#nextmonth")
        self.browser.click(f'.day[data-date="{day}"]')
        wait_for(lambda: self.browser.visible("#daysheet"), what="the day's sheet")
        top = self.browser.run("return document.getElementById('daysheet').getBoundingClientRect().top")
        self.assertLess(top, height, "the day's sheet opens in view")
        self.measure("day-sheet")
        self.browser.click('nav button[data-view="lists"]')
        wait_for(lambda: self.browser.visible("#f-save"), what="the alarm sheet")
        self.browser.run("for (const d of document.querySelectorAll('#alarmform details')) d.open = true;")
        self.measure("alarms")
        self.browser.click('nav button[data-view="apps"]')
        wait_for(lambda: self.browser.visible("#a-add"), what="the apps list")
        self.browser.click("#a-add")
        self.measure("app-sheet")
        self.browser.click("#a-cancel")
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: self.browser.visible("#stats") or "No rings yet" in (self.browser.text("#historyview") or ""),
                 what="history")
        self.measure("more")
        self.browser.run("showPairing()")
        self.measure("pairing", ["#pairpad button", "#pairbtn", "#paircode"])
        # Paused: the face says until when, and the next ring after it.
        until = request(sock, {"next": {"days": 30}})["payload"]["schedule"]["days"][10]["date"]
        self.assertTrue(request(sock, {"pause": {"until": until}})["ok"])
        try:
            self.browser.click('nav button[data-view="clock"]')
            wait_for(lambda: "Paused until" in (self.browser.text("#next") or ""), what="the paused face")
            self.assertIn("next ring", self.browser.text("#next"))
            self.measure("clock-paused")
        finally:
            request(sock, {"resume": {}})
        # The ring path: ringing, answering, snoozed, the wake-up check, the unlock keypad.
        reply = request(sock, {"alarmAdd": {"spec": {"inSeconds": 1, "fadeInSeconds": 0, "label": "screen test",
                                                     "maxSnoozes": 3, "wakeCheckSeconds": 60}}})
        self.assertTrue(reply["ok"], reply)
        wait_for(lambda: self.browser.visible("#ring"), what="the ring screen")
        self.measure("ring", RING_PATH)
        self.browser.click("#dismiss")
        wait_for(lambda: self.browser.visible("#problem"), what="the problem")
        self.browser.click('#keypad button[data-key="1"]')
        self.browser.click("#answer")
        wait_for(lambda: "Not quite" in (self.browser.text("#ringnote") or ""), what="a wrong answer said")
        self.measure("ring-answering", RING_PATH)
        self.browser.click("#snooze")
        wait_for(lambda: "Snoozed until" in (self.browser.text("#ringwhen") or ""), what="the snoozed screen")
        self.measure("snoozed", RING_PATH)
        self.clock.advance(9 * 60 + 1)
        wait_for(lambda: "Snooze over" in (self.browser.text("#ringwhy") or ""), seconds=15, what="the ring after the snooze")
        problem = request(sock, {"problem": {}})["payload"]["ring"]["problem"]
        self.assertTrue(request(sock, {"answer": {"value": solve(problem)}})["payload"]["ring"]["correct"])
        self.clock.advance(61)
        wait_for(lambda: self.browser.visible("#awake"), seconds=15, what="“Are you up?”")
        self.measure("are-you-up", RING_PATH)
        self.clock.advance(5 * 60)
        wait_for(lambda: "you did not answer" in (self.browser.text("#ringwhy") or ""), seconds=15,
                 what="the ring after an unanswered check, saying why")
        self.measure("ring-after-check", RING_PATH)
        problem = request(sock, {"problem": {}})["payload"]["ring"]["problem"]
        request(sock, {"answer": {"value": solve(problem)}})
        wait_for(lambda: not self.browser.visible("#ring"), what="the ring screen to go")
        # The history says the check went unanswered.
        self.browser.click('nav button[data-view="more"]')
        wait_for(lambda: "“Are you up?” went unanswered" in (self.browser.text("#historyview") or ""), seconds=15,
                 what="the failed wake-up check in the history")
        # The unlock keypad (the screen a committed change asks first).
        self.browser.run("unlockFirst(arguments[0], '')", work["payload"]["alarms"][0]["id"])
        wait_for(lambda: self.browser.visible("#unlock"), what="the unlock screen")
        self.measure("unlock", RING_PATH)
        self.browser.click("#unlockcancel")
        self.assertEqual(self.problems, [], "\n".join(self.problems))

    def admin(self):
        self.browser.open(self.clock.url)
        wait_for(lambda: self.browser.run("return typeof S !== 'undefined' && S !== null"), what="the page's state")
        reply = pair_as_admin(self.browser, self.clock, "screens")
        self.assertTrue(reply["ok"], reply)
        self.browser.open(self.clock.url)
        wait_for(lambda: self.browser.run("return !!S && S.status.payload.status.role === 'admin'"), what="admin rights")

    def measure(self, screen, primary=()):
        """Measures the screen shown in day mode, then in night mode, and keeps a screenshot of each."""
        if screen in CLOCKS:
            shown = self.browser.run("const e = document.querySelector(arguments[0]); return e && !e.closest('[hidden]') ? e.textContent : ''",
                                     CLOCKS[screen])
            if not (len(shown) == 5 and shown[2] == ":" and shown.replace(":", "").isdigit()):
                self.problems.append(f"{self.size} {screen}: the time is not shown ({shown!r})")
        for mode in ("day", "night"):
            self.browser.run("night.auto = false; document.body.classList.toggle('night', arguments[0]);"
                             "window.scrollTo(0, 0);", mode == "night")
            self.browser.run_async("requestAnimationFrame(() => requestAnimationFrame(arguments[arguments.length - 1]))")
            found = self.browser.run(AUDIT, list(primary))
            self.browser.screenshot(os.path.join(SHOTS, f"{self.size}-{screen}-{mode}.png"))
            if not primary:  # a page that scrolls: all of it too
                self.browser.full_screenshot(os.path.join(SHOTS, f"{self.size}-{screen}-{mode}-whole.png"))
            for kind, words in (("contrast", "low contrast"), ("overflow", "wider than the screen"),
                                ("outside", "outside the screen"), ("cli", "the CLI's words")):
                for item in found[kind]:
                    self.problems.append(f"{self.size} {screen} ({mode}): {words}: {item}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BINARIES = os.path.abspath(sys.argv.pop(1))
    if not shutil.which("chromedriver"):
        sys.exit("chromedriver is missing: scripts/install-deps.sh test installs chromium and chromium-driver")
    print(f"screenshots: {SHOTS}")
    unittest.main(verbosity=2)
