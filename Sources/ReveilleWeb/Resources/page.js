"use strict";
const CFG = JSON.parse(document.getElementById("cfg").textContent);
const $ = (id) => document.getElementById(id);
// Milliseconds the daemon's clock is ahead of this browser's (its status says its time).
let skew = 0;
let S = null, view = "clock", monthOffset = 0, entry = "", problemShown = false, selectedDay = null;
// What the Alarms tab's forms edit (an id, or null to add): kept across redraws.
const editing = { alarm: null, rule: null, reminder: null };
const esc = (t) => String(t ?? "").replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
const payload = (reply, kind) => (reply && reply.ok && reply.payload) ? reply.payload[kind] : null;
const isAdmin = () => { const st = payload(S && S.status, "status"); return st && (st.role === "admin" || st.role === "owner"); };
// The child a phone is paired for: its Apps tab is theirs (their apps, minutes left, asking for more).
const childName = () => { const st = payload(S && S.status, "status"); return st && st.person ? st.person : null; };

// The daemon's words are the CLI's too; on a screen, the commands they name ('reveille resume',
// "(--commit 8h)"), its settings file and keys ("[nfc] device in reveille.toml") are left out:
// what the page offers instead is on its own buttons. Its dates are the page's ("Sat 28 Nov,
// 07:29"), never ISO. Every text of the daemon's that the page shows goes through here.
const COMMANDS = "alarm|rule|override|apps|tag|calendar|reminder|pause|resume|unlock|dismiss|snooze|sound|next|status|doctor|web|history|stats|month|run";
const FLAG_WORDS = { challenge: "the challenge", commit: "the commitment", "skip-holidays": "“skip holidays”",
  date: "the date", until: "until", "max-snoozes": "the snoozes", "snooze-minutes": "the snooze length",
  "wake-check": "the wake-up check", "escalate-after": "the escalation", lead: "the sunrise", volume: "the volume",
  "fade-in": "the fade-in", sound: "the sound", "lead-sound": "the sunrise's sound", only: "only", except: "except",
  holidays: "holidays", reminders: "reminders", minutes: "minutes", "open-now": "open now", "for": "for" };
function personWords(text) {
  let t = String(text || "");
  const command = new RegExp("'reveille [^']*'|\\breveille (?:" + COMMANDS + ")\\b[^;,.)'\"]*", "g");
  // A parenthesis that names a command, a flag, a settings file or a key goes whole.
  t = t.replace(/\s*\([^()]*(?:'reveille |\breveille [a-z]|\.toml|--[a-z]|\[[a-z]+\])[^()]*\)/g, "");
  // A clause that only says which command to run goes with it.
  t = t.replace(new RegExp("[;,]\\s*[^;,]*(?:" + command.source + ")[^;]*", "g"), "");
  t = t.replace(new RegExp("\\s*(?:with |by |until |run |see |try )?(?:" + command.source + ")", "g"), "");
  t = t.replace(/\breveille\.toml\b/g, "the clock's settings").replace(/\bapps\.toml\b/g, "the app limits");
  t = t.replace(/--([a-z][a-z-]*)(?: (nfc|math|any))?/g, (m, flag, value) =>
    flag === "challenge" && value ? "“stop by " + (value === "nfc" ? "tag" : value === "math" ? "math" : "tag or math") + "”"
      : (FLAG_WORDS[flag] || flag.replace(/-/g, " ")) + (value ? " " + value : ""));
  // Things are named by their label or time, not the CLI's "#id": "alarm #5 work" → "alarm work".
  t = t.replace(/\b(alarm|alarms|override|rule|reminder|request|tag|session)s? #\d+\b/gi, "$1").replace(/(^|\s)#\d+\b ?/g, "$1");
  t = t.replace(/\b\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d)?)?\b/g, (stamp) => fmtDate(stamp).replace(/ (\d\d:\d\d)$/, ", $1"));
  t = t.replace(/\s+([;,.:])/g, "$1").replace(/[;,:]\s*$/, "").replace(/\s{2,}/g, " ").trim();
  return /^https?:/.test(t) ? t : t.charAt(0).toUpperCase() + t.slice(1);
}
/** An alarm's name: its label, else its time ("Alarm at 06:45"); never its "#id". */
function alarmWords(id, label) {
  if (label) return label;
  const a = (payload(S && S.alarms, "alarms") || []).find((x) => x.id === id);
  return a ? "Alarm at " + a.time.slice(0, 5) : "Alarm";
}
/** A text of the daemon's, escaped for HTML, in a person's words. */
const say = (text) => esc(personWords(text));
function toast(text, error) {
  text = personWords(text);
  // On the unlock and ring screens, what a request answered is said in the screen, beside the
  // keypad: a toast would cover it (or Cancel).
  const note = !$("unlock").hidden ? $("unlocknote") : !$("ring").hidden ? $("ringnote") : null;
  if (note) {
    note.textContent = text; note.className = error ? "error" : "";
    clearTimeout(toast.noteTimer); toast.noteTimer = setTimeout(() => { note.textContent = ""; }, 6000);
    return;
  }
  const t = $("toast"); t.textContent = text; t.className = error ? "error" : ""; t.style.display = "block";
  // Over an open sheet at the bottom (a day's, an app's), the toast is said at the top instead.
  const sheet = ["daysheet", "appsheet", "alarmform"].map($).find((e) => e && !e.hidden && e.offsetParent);
  if (sheet && sheet.getBoundingClientRect().bottom > innerHeight - 120) t.classList.add("top");
  clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.style.display = "none"; }, error ? 6000 : 3000);
}
function banner(text) { $("banner").hidden = !text; $("banner").textContent = text || ""; }

// ---- Dates and times: one way everywhere, 24-hour, with weekday names, whatever the browser's
// locale ("Mon 7 Dec", "Mon 7 Dec 06:45"; the year only when it is not this one). ----
const WEEKDAY = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTH = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTHLONG = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
function thisYear() { const st = payload(S && S.status, "status"); return st ? Number(st.now.slice(0, 4)) : new Date().getFullYear(); }
// "2026-12-07" (or "2026-12-07 06:45[:ss]") as "Mon 7 Dec [2027] [06:45]"; anything else as it is.
function fmtDate(text) {
  const m = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d:\d\d))?/.exec(String(text || ""));
  if (!m) return String(text || "");
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const wd = new Date(Date.UTC(y, mo - 1, d)).getUTCDay();
  return WEEKDAY[wd] + " " + d + " " + MONTH[mo - 1] + (y !== thisYear() ? " " + y : "") + (m[4] ? " " + m[4] : "");
}
// A day set as the daemon writes it ("mon-fri", "sat,sun", "mon,wed-fri", "daily") in words:
// "Mon to Fri", "Sat and Sun", "Mon, Wed to Fri", "every day".
function fmtDays(text) {
  const NAMES = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };
  const t = String(text || "").trim();
  if (t === "daily") return "every day";
  if (t === "never" || !t) return "no day";
  const parts = t.split(",").map((p) => p.split("-").map((d) => NAMES[d] || d).join(" to "));
  return parts.length > 1 ? parts.slice(0, -1).join(", ") + " and " + parts[parts.length - 1] : parts[0];
}
const pad2 = (n) => String(n).padStart(2, "0");
// Pickers of the page's own (the browser's follow its locale: AM/PM, mm/dd/yyyy). The value is in a
// hidden input named `id` ("HH:MM", "YYYY-MM-DD" or ""), which the selects write.
// The rule form's change, "HH:MM" or "off", read from (or, given one, set on) its touch pickers.
function ruleChange(change) {
  if (change !== undefined) {
    $("r-mode").value = change === "off" ? "off" : "at";
    if (change !== "off") setPicker("r-at", change);
  }
  return $("r-mode").value === "off" ? "off" : $("r-at").value;
}
// Sets a time picker's selects (and so its value) to "HH:MM".
function setPicker(id, value) {
  const [h, m] = value.split(":");
  for (const [part, v] of [["h", h], ["m", m]]) {
    const select = document.querySelector('select[data-for="' + id + '"][data-part="' + part + '"]');
    if (select) { select.value = v; select.dispatchEvent(new Event("change", { bubbles: true })); }
  }
}
function timePicker(id, value) {
  const [h, m] = /^\d\d:\d\d/.test(value || "") ? value.split(":") : ["07", "00"];
  let hours = "", minutes = "";
  for (let i = 0; i < 24; i++) hours += '<option' + (pad2(i) === h ? " selected" : "") + ">" + pad2(i) + "</option>";
  for (let i = 0; i < 60; i++) minutes += '<option' + (pad2(i) === m.slice(0, 2) ? " selected" : "") + ">" + pad2(i) + "</option>";
  return '<span class="picker"><select data-for="' + id + '" data-part="h" aria-label="hour">' + hours + '</select>:<select data-for="' + id +
    '" data-part="m" aria-label="minute">' + minutes + '</select><input type="hidden" id="' + id + '" value="' + esc(h + ":" + m.slice(0, 2)) + '"></span>';
}
function datePicker(id, value, blank) {
  const st = payload(S && S.status, "status"), today = st ? st.now.slice(0, 10) : new Date().toISOString().slice(0, 10);
  let [y, mo] = today.split("-").map(Number);
  const chosen = /^\d{4}-\d\d-\d\d$/.test(value || "") ? value : "";
  let months = blank ? '<option value="">' + esc(blank) + "</option>" : "";
  for (let i = 0; i < 25; i++) {
    const key = y + "-" + pad2(mo);
    months += '<option value="' + key + '"' + (chosen.slice(0, 7) === key ? " selected" : "") + ">" + MONTH[mo - 1] + " " + y + "</option>";
    if (++mo > 12) { mo = 1; y++; }
  }
  return '<span class="picker"><select data-for="' + id + '" data-part="month" aria-label="month">' + months + '</select><select data-for="' + id +
    '" data-part="day" aria-label="day"></select><input type="hidden" id="' + id + '" value="' + esc(chosen) + '"></span>';
}
// Fills each picker's day list for its month and keeps the hidden value in step; `root` just drawn.
function wirePickers(root) {
  for (const input of root.querySelectorAll(".picker input[type=hidden]")) {
    const picker = input.parentElement, part = (name) => picker.querySelector('select[data-part="' + name + '"]');
    const write = () => {
      if (part("h")) { input.value = part("h").value + ":" + part("m").value; return; }
      const month = part("month").value, day = part("day");
      day.hidden = !month;
      if (!month) { input.value = ""; return; }
      const [y, m] = month.split("-").map(Number), count = new Date(Date.UTC(y, m, 0)).getUTCDate();
      const keep = Math.min(Number(day.value || (input.value.slice(0, 7) === month ? input.value.slice(8) : 1)) || 1, count);
      let options = "";
      for (let d = 1; d <= count; d++) options += '<option value="' + d + '"' + (d === keep ? " selected" : "") + ">" +
        WEEKDAY[new Date(Date.UTC(y, m - 1, d)).getUTCDay()] + " " + d + "</option>";
      day.innerHTML = options;
      input.value = month + "-" + pad2(day.value);
    };
    for (const select of picker.querySelectorAll("select")) select.addEventListener("change", write);
    // A value set from outside (kept across a redraw) shows in the selects.
    if (part("h")) { const [h, m] = (input.value || "07:00").split(":"); part("h").value = h; part("m").value = m; }
    else if (input.value) { part("month").value = input.value.slice(0, 7); part("day").innerHTML = ""; }
    write();
  }
}

// Each load is numbered: a snapshot asked for before a newer one is dropped when it arrives, since
// it may predate a change already shown (a ring that just began would vanish until the next one).
let loadSeq = 0;
async function load() {
  const seq = ++loadSeq;
  let response;
  try { response = await fetch("/api/state", { cache: "no-store" }); }
  catch (e) { banner("Cannot reach the clock's web server; retrying…"); return; }
  if (response.status === 401) { location.reload(); return; }
  if (!response.ok) { banner("The web server refused: " + response.status); return; }
  const state = await response.json();
  if (seq !== loadSeq) return;
  S = state;
  const stNow = payload(S.status, "status");
  if (stNow) skew = stNow.nowInstant * 1000 - Date.now();
  banner(S.daemon === false ? "The clock's daemon is not answering; reconnecting…" : "");
  // A child's phone opens at their apps, once: what it is for.
  if (childName() && !asking.opened) { asking.opened = true; if (view === "clock") show("apps"); }
  render();
  tick();
}

async function send(op, quiet, noload) {
  let response;
  try {
    response = await fetch("/api/command", { method: "POST", cache: "no-store",
      headers: { "Content-Type": "application/json", "X-Reveille-CSRF": CFG.csrf }, body: JSON.stringify(op) });
  } catch (e) { toast("The clock did not answer; try again", true); return null; }
  if (response.status === 401) { location.reload(); return null; }
  const reply = await response.json().catch(() => null);
  if (!reply) { toast("The clock sent nothing readable (" + response.status + ")", true); return null; }
  // Within an alarm's commitment: its challenge first, then the change again.
  if (!reply.ok && reply.error && reply.error.code === "challenge-first" && reply.error.alarmID) {
    if (await unlockFirst(reply.error.alarmID, reply.error.message)) return send(op, quiet);
    load();
    return reply;
  }
  if (noload) return reply;
  if (!reply.ok) toast(reply.error ? reply.error.message : "refused", true);
  else if (!quiet && reply.message) toast(reply.message + (reply.warnings ? " — " + reply.warnings.join("; ") : ""));
  load();
  return reply;
}

// ---- Clock face ----
function zoneParts(date, options) {
  const st = payload(S && S.status, "status");
  try { return new Intl.DateTimeFormat("en-GB", { timeZone: st ? st.timeZone : undefined, ...options }).format(date); }
  catch (e) {
    // A zone the browser does not know (the system's tzdata is newer): the daemon's offset.
    const m = st && /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)/.exec(st.now);
    if (!m) return new Intl.DateTimeFormat("en-GB", options).format(date);
    const offset = Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6]) - st.nowInstant * 1000;
    return new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", ...options }).format(new Date(date.getTime() + offset));
  }
}
function tick() {
  const now = new Date();
  $("time").textContent = zoneParts(now, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  $("ringclock").textContent = $("time").textContent;
  $("awakeclock").textContent = $("time").textContent;
  $("unlockclock").textContent = $("time").textContent;
  $("date").textContent = zoneParts(now, { weekday: "long", day: "numeric", month: "long" });
  const hour = Number(zoneParts(now, { hour: "2-digit", hourCycle: "h23" }));
  // Night by the daemon's clock (its status says), else by this browser's reading of it.
  const st = payload(S && S.status, "status");
  if (night.auto) document.body.classList.toggle("night", st && st.night != null ? st.night : hour >= 21 || hour < 7);
  if (!$("blank").hidden && !document.body.classList.contains("night")) screenAwake();
  reportLight();
  clearTimeout(tick.timer);
  tick.timer = setTimeout(tick, 60000 - (now.getSeconds() * 1000 + now.getMilliseconds()) + 50);
}
const night = { auto: true };
$("nightbtn").onclick = () => { night.auto = false; document.body.classList.toggle("night"); reportLight(); };
// The clock's own screen tells the daemon what it shows, and the backlight follows: dim at night,
// off while the night's black screen is up (a ring lights it whatever this says).
const light = { said: null };
function reportLight() {
  if (!CFG.screen) return;
  const shows = !$("blank").hidden ? "dark" : document.body.classList.contains("night") ? "night" : "day";
  if (shows === light.said) return;
  light.said = shows;
  send({ screenLight: { shows } }, true, true).then((reply) => { if (!reply || !reply.ok) light.said = null; });
}

const challengeWords = { math: "math", nfc: "tag only", any: "tag or math" };
const layerNames = { base: "as set", rule: "weekly rule", override: "date override", holiday: "holiday",
  paused: "paused", disabled: "disabled", zone: "time zone" };
function entries(report, day) {
  if (!day.lines) return [];
  return day.lines.split(";").map((line) => {
    if (/^\d+$/.test(line)) return { time: report.times[line], id: Number(line), layer: "base", rings: true, note: "" };
    const f = line.split("|");
    return { time: f[0], id: Number(f[1]), layer: f[2], rings: f[3] === "r", note: f.slice(4).join("|") };
  });
}
function renderClock() {
  const st = payload(S.status, "status");
  const report = payload(S.schedule, "schedule");
  if (!st) { $("next").textContent = S.status && S.status.error ? personWords(S.status.error.message) : ""; return; }
  // A small mark when the machine has no network: the alarms ring anyway, phones cannot reach it.
  const offline = st.network && !st.network.online;
  $("netmark").hidden = !offline;
  $("netmark").textContent = offline ? "⚠ No network — alarms still ring" : "";
  let layer = null;
  if (st.nextRing && report) {
    for (const day of report.days) if (day.date === st.nextRing.date)
      for (const e of entries(report, day)) if (e.id === st.nextRing.alarmID && e.rings) { layer = layer || e.layer; }
  }
  // Paused: until when, and the ring that comes after (the schedule knows it; 62 days ahead).
  const after = st.master === "on" ? null : firstRing(report);
  const ringText = (date, time) => (date === st.now.slice(0, 10) ? "today " : fmtDate(date) + " ") + time.slice(0, 5);
  $("next").innerHTML = st.master !== "on"
    ? '<span class="bad">' + (st.master === "off" ? "Alarms are off" : "Paused until " + esc(fmtDate(st.pausedUntil))) + "</span>" +
      (after ? " — next ring <b>" + esc(ringText(after.date, after.time)) + "</b>" : st.master === "off" ? " until resumed" : "")
    : st.nextRing
    ? "Next: <b>" + esc(ringText(st.nextRing.date, st.nextRing.time)) + "</b> " + esc(st.nextRing.label) +
      (layer ? ' <span class="chip l-' + esc(layer) + '">' + esc(layerNames[layer] || layer) + "</span>" : "")
    : "No alarm set";
  renderAsking();
  $("earlydismiss").hidden = !st.earlyDismissal;
  const today = report && report.days.find((d) => d.date === st.now.slice(0, 10));
  const rings = today ? entries(report, today).filter((e) => e.rings) : [];
  $("todaylist").textContent = rings.length ? "Still today: " + rings.map((e) => e.time + " " + (report.labels[e.id] || "#" + e.id)).join(", ") : "";
  // Today's reminders still to chime (none when they are switched off, paused or silenced).
  const hm = st.now.slice(11, 16);
  const chimes = ((report && report.reminders) || []).filter((r) => r.date === st.now.slice(0, 10) && r.time >= hm && !r.silenced);
  $("reminderlist").textContent = st.remindersOn === false ? "Reminders are off"
    : chimes.length ? "Reminders today: " + chimes.map((r) => r.time + " " + r.text).join(", ") : "";
}

// The first day of the schedule that rings (what comes after a pause).
function firstRing(report) {
  for (const day of (report && report.days) || []) {
    const ring = entries(report, day).find((e) => e.rings);
    if (ring) return { date: day.date, time: ring.time };
  }
  return null;
}
// An admin sees, on the clock face, who is asking for more time (answered on the Apps tab).
function renderAsking() {
  const waiting = isAdmin() ? ((payload(S.appRequests, "apps") || {}).requests || []).filter((r) => r.state === "waiting") : [];
  $("asking").hidden = !waiting.length;
  $("asking").innerHTML = waiting.length ? '<button id="askingbtn" class="primary">' + esc(waiting.map((r) => r.user + " asks for " + r.minutes +
    " more minutes of " + r.app).join("; ")) + " — answer</button>" : "";
  if (waiting.length) $("askingbtn").onclick = () => show("apps");
}

// A chime's banner: its text and the line under it, for a minute (a tap closes it).
function showChime(chime) {
  showChime.key = chime.key;
  $("chimeagain").hidden = !chime.key;
  $("chimetext").textContent = chime.text;
  $("chimedetail").textContent = chime.detail || "";
  $("chime").hidden = false;
  clearTimeout(showChime.timer);
  showChime.timer = setTimeout(() => { $("chime").hidden = true; }, 60000);
}
$("chime").onclick = () => { $("chime").hidden = true; };
// "Again in 10 minutes": the chime comes back then (reminder again).
$("chimeagain").onclick = async (event) => {
  event.stopPropagation();
  $("chime").hidden = true;
  const reply = await send({ chimeAgain: { key: showChime.key } }, true);
  if (reply) toast(reply.ok ? reply.message : reply.error.message, !reply.ok);
};

$("earlydismiss").onclick = async () => {
  const reply = await send({ dismissNext: {} }, true);
  if (reply && reply.ok) toast(reply.message);
};

// ---- The wake-up check and the sunrise ----
function renderAwake() {
  const st = payload(S && S.status, "status");
  const check = st && st.wakeCheck;
  const ringing = st && st.session && (st.session.state === "ringing" || st.session.state === "snoozed");
  const asking = !!check && check.state === "asking" && !ringing;
  $("awake").hidden = !asking;
  if (asking) $("awakewhen").textContent = alarmWords(check.alarmID, check.label) + " rings again at " + check.deadline + " unless you answer";
}
$("awakeyes").onclick = async () => {
  const reply = await send({ awake: {} }, true);
  if (reply && reply.ok) { toast("Good morning"); $("awake").hidden = true; }
};
// The light's colour at `p` (0 to 1 of the lead): dark red, through orange, to warm white.
function sunriseColour(p) {
  const stops = [[0, [40, 0, 0]], [0.35, [150, 30, 0]], [0.7, [255, 140, 40]], [1, [255, 236, 200]]];
  let i = 1;
  while (i < stops.length - 1 && p > stops[i][0]) i++;
  const [a, ca] = stops[i - 1], [b, cb] = stops[i];
  const t = Math.min(1, Math.max(0, (p - a) / (b - a)));
  return ca.map((c, k) => Math.round(c + (cb[k] - c) * t));
}
const sunriseClosed = { ringsAt: null };
function renderSunrise() {
  const st = payload(S && S.status, "status");
  const sun = st && st.sunrise;
  const ringing = st && st.session && st.session.state === "ringing";
  const shown = !!sun && !ringing && sunriseClosed.ringsAt !== sun.ringsAt;
  $("sunrise").hidden = !shown;
  clearTimeout(renderSunrise.timer);
  if (!shown) return;
  const now = (Date.now() + skew) / 1000;
  const p = Math.min(1, Math.max(0, (now - sun.startsAt) / Math.max(1, sun.ringsAt - sun.startsAt)));
  const [r, g, b] = sunriseColour(p);
  $("sunrise").style.background = "rgb(" + r + ", " + g + ", " + b + ")";
  window.sunriseProgress = p;
  $("sunrisetime").textContent = zoneParts(new Date(Date.now() + skew), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  $("sunrisenote").textContent = alarmWords(sun.alarmID, sun.label) + " at " + sun.time;
  renderSunrise.timer = setTimeout(renderSunrise, 5000);
}
$("sunrise").onclick = () => { const st = payload(S && S.status, "status"); sunriseClosed.ringsAt = st && st.sunrise ? st.sunrise.ringsAt : null; renderSunrise(); };

// ---- Ring screen ----
function renderRing() {
  const st = payload(S && S.status, "status");
  const session = st && st.session;
  const active = session && (session.state === "ringing" || session.state === "snoozed");
  if (!active) { $("ring").hidden = true; problemShown = false; entry = ""; return; }
  const wasHidden = $("ring").hidden;
  $("ring").hidden = false;
  $("ringwhat").textContent = alarmWords(session.alarmID, session.label);
  const left = session.maxSnoozes === 0 ? null : session.maxSnoozes - session.snoozeCount;
  $("ringwhen").textContent = session.state === "snoozed" ? "Snoozed until " + session.snoozedUntil.slice(0, 5)
    : "Set for " + session.scheduledTime.slice(0, 5) + (session.escalated ? " · now at full volume" : "");
  // Why it rings now, and a ring no one hears, said where it is seen: every reason that holds, a line each.
  const why = [st.silent ? "THE ALARM IS SILENT: no speaker works" : "",
    session.state !== "ringing" ? ""
    : session.reason === "wake-check" ? "Ringing again: you did not answer “Are you up?”"
    : session.reason === "snooze" ? "Snooze over (" + session.snoozeCount + (session.maxSnoozes ? " of " + session.maxSnoozes : "") + ")"
    : ""].filter(Boolean).join("\n");
  $("ringwhy").hidden = !why; $("ringwhy").textContent = why;
  const snooze = $("snooze");
  snooze.hidden = session.state !== "ringing";
  // None left: snoozing past the limit asks the problem (or the tag) instead, so the button opens it.
  snooze.classList.toggle("spent", left === 0);
  snooze.textContent = left === 0 ? "NO SNOOZES LEFT" : "SNOOZE" + (left === null ? "" : " (" + left + " left)");
  const tagOnly = session.challenge === "nfc" && !session.fellBackToMath;
  const reader = st.reader && st.reader.condition;
  $("tagprompt").hidden = !(session.challenge !== "math" && !session.fellBackToMath);
  $("tagprompt").textContent = session.tagOnReader ? "Lift the tag off the reader, then tap it again"
    : "Tap your tag on the reader" + (session.challenge === "any" ? ", or solve the problem" : "");
  // Math standing in for the tag: how many problems, and since when the reader is gone.
  const lost = session.readerLostSecondsBeforeRing;
  $("fallback").hidden = !session.fellBackToMath;
  $("fallback").textContent = !session.fellBackToMath ? ""
    : "The tag reader is not working" + (lost == null ? "" : lost === 0 ? " (it stopped during the ring)"
      : " (it stopped " + Math.max(1, Math.round(lost / 60)) + " min before the ring)")
      + (session.problemsLeft ? ": solve " + session.problemsLeft + " problems" : "");
  $("dismiss").hidden = problemShown || (tagOnly && reader === "ok");
  $("mathbox").hidden = !problemShown;
  $("ring").classList.toggle("answering", problemShown);
  if (wasHidden) requestAnimationFrame(() => requestAnimationFrame(() => {
    window.ringShownAt = performance.timeOrigin + performance.now();
  }));
}
$("snooze").onclick = () => {
  if ($("snooze").classList.contains("spent")) {
    if (!$("dismiss").hidden) $("dismiss").onclick();
    else toast("No snoozes left: " + $("tagprompt").textContent.toLowerCase() + " to stop it", true);
    return;
  }
  window.snoozeTappedAt = performance.timeOrigin + performance.now(); send({ snooze: {} }, true);
};
// Cancel puts the problem away: DISMISS (and the tag's prompt) come back.
$("ringcancel").onclick = () => { problemShown = false; entry = ""; renderRing(); };
$("dismiss").onclick = async () => {
  const reply = await send({ problem: {} }, true);
  const ring = payload(reply, "ring");
  if (ring && ring.problem) { showProblem(ring.problem); }
};
function showProblem(text) {
  problemShown = true; entry = ""; $("problem").textContent = text + " = ?"; $("entry").innerHTML = "&nbsp;";
  $("mathbox").hidden = false; $("dismiss").hidden = true; $("ring").classList.add("answering");
}
// A keypad of digits into `field` (a holder of the text typed), OK calling `ok`.
function buildKeypad(pad, field, shown, okId, ok) {
  const type = (key) => {
    let text = field.text;
    if (key === "⌫") text = text.slice(0, -1);
    else if (key === "±") text = text.startsWith("-") ? text.slice(1) : "-" + text;
    else if (text.replace("-", "").length < 6) text += key;
    field.text = text;
    $(shown).textContent = text || "\u00a0";
  };
  for (const key of ["1", "2", "3", "⌫", "4", "5", "6", "±", "7", "8", "9", "OK", "0"]) {
    const b = document.createElement("button"); b.textContent = key;
    if (key === "OK") { b.id = okId; b.className = "primary"; b.onclick = ok; }
    else { b.dataset.key = key; b.onclick = () => type(key); }
    $(pad).appendChild(b);
  }
}
(function keypad() {
  const field = { get text() { return entry; }, set text(value) { entry = value; } };
  const answer = async () => {
    if (!/^-?\d+$/.test(entry)) { toast("Type the answer first", true); return; }
    const reply = await send({ answer: { value: Number(entry) } }, true);
    const ring = payload(reply, "ring");
    if (ring && ring.correct === false) { toast("Not quite. Here is a new one.", true); showProblem(ring.problem); }
    else if (ring && ring.correct && ring.problem) {
      const left = ring.session.problemsLeft || 1;
      // The reader is named only when the daemon says math stands in for the tag.
      toast("Right. " + left + (left === 1 ? " more problem" : " more problems") +
        (ring.session.fellBackToMath ? " (the tag reader is not working)." : "."));
      showProblem(ring.problem);
    }
    else if (ring && ring.correct) { toast("Good morning"); problemShown = false; }
  };
  buildKeypad("keypad", field, "entry", "answer", answer);
})();

// ---- Commitment: the alarm's challenge before a change that weakens its next ring ----
const unlocking = { alarmID: null, text: "", done: null };
async function unlockFirst(alarmID, why) {
  const reply = await send({ unlock: { alarmID: alarmID } }, true);
  const info = payload(reply, "unlock");
  if (!info) return false;
  if (info.unlocked) return true;
  unlocking.alarmID = alarmID; unlocking.text = ""; $("unlocknote").textContent = "";
  // In a person's words (the daemon's name the CLI's commands).
  const alarm = (payload(S.alarms, "alarms") || []).find((a) => a.id === alarmID);
  $("unlockwhy").textContent = "This change lets " + "“" + alarmWords(alarmID, alarm && alarm.label) + "”" +
    " ring less, and it is committed: prove you are awake first.";
  $("unlocktag").hidden = !info.tag;
  $("unlockmath").hidden = !info.problem;
  $("unlockproblem").textContent = info.problem ? info.problem + " = ?" : "";
  $("unlockentry").innerHTML = "&nbsp;";
  $("unlock").hidden = false;
  clearInterval(unlocking.poll);
  // A tag is seen by the daemon, not the page: ask it now and then whether it was tapped.
  if (info.tag) unlocking.poll = setInterval(async () => {
    const r = await send({ unlock: { alarmID: alarmID } }, true);
    const i = payload(r, "unlock");
    if (i && i.unlocked) closeUnlock(true);
  }, 1000);
  return new Promise((resolve) => { unlocking.done = resolve; });
}
function closeUnlock(unlocked) {
  clearInterval(unlocking.poll);
  $("unlock").hidden = true;
  if (unlocking.done) { const done = unlocking.done; unlocking.done = null; done(unlocked); }
}
buildKeypad("unlockpad", unlocking, "unlockentry", "unlockok", async () => {
  if (!/^-?\d+$/.test(unlocking.text)) { toast("Type the answer first", true); return; }
  const reply = await send({ unlock: { alarmID: unlocking.alarmID, answer: Number(unlocking.text) } }, true);
  const info = payload(reply, "unlock");
  unlocking.text = ""; $("unlockentry").innerHTML = "&nbsp;";
  if (info && info.unlocked) closeUnlock(true);
  else if (info && info.problem) { toast("Not quite. Here is a new one.", true); $("unlockproblem").textContent = info.problem + " = ?"; }
});
$("unlockcancel").onclick = () => closeUnlock(false);

// ---- Month ----
function dayInfo(report, overrides, date) {
  const day = report && report.days.find((d) => d.date === date);
  const list = day ? entries(report, day) : [];
  const ring = list.find((e) => e.rings);
  const silent = list.find((e) => !e.rings && e.layer !== "base");
  const override = (overrides || []).find((o) => o.date === date);
  return { day, ring, silent, override, list };
}
function renderMonth() {
  const st = payload(S.status, "status"), report = payload(S.schedule, "schedule");
  if (!st) return;
  const today = st.now.slice(0, 10);
  const [y, m] = today.split("-").map(Number);
  const first = new Date(Date.UTC(y, m - 1 + monthOffset, 1));
  $("monthname").textContent = MONTHLONG[first.getUTCMonth()] + " " + first.getUTCFullYear();
  $("prevmonth").disabled = monthOffset <= 0; $("nextmonth").disabled = monthOffset >= 1;
  const grid = $("monthgrid"); grid.innerHTML = "";
  for (const name of ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]) grid.insertAdjacentHTML("beforeend", '<div class="head">' + name + "</div>");
  const lead = (first.getUTCDay() + 6) % 7;
  for (let i = 0; i < lead; i++) grid.insertAdjacentHTML("beforeend", "<div></div>");
  const days = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  const overrides = payload(S.overrides, "overrides");
  for (let d = 1; d <= days; d++) {
    const date = first.getUTCFullYear() + "-" + String(first.getUTCMonth() + 1).padStart(2, "0") + "-" + String(d).padStart(2, "0");
    const info = dayInfo(report, overrides, date);
    const cell = document.createElement("div");
    cell.className = "day" + (date < today ? " past" : "") + (date === today ? " today" : "");
    cell.dataset.date = date;
    let text = "";
    if (info.ring) { cell.classList.add("ring-" + info.ring.layer); cell.dataset.layer = info.ring.layer; text = info.ring.time.slice(0, 5); }
    else if (info.silent) { cell.classList.add("silent-" + info.silent.layer); cell.dataset.layer = info.silent.layer; cell.dataset.silent = "1"; text = info.silent.time ? info.silent.time.slice(0, 5) : "–"; }
    if (info.silent && info.silent.layer === "paused") { cell.classList.add("paused"); text = "paused"; }
    cell.innerHTML = '<div class="n">' + d + '</div><div class="t">' + esc(text) + "</div>";
    if (date >= today) cell.onclick = () => {
      // A day no alarm, rule or override covers has nothing to silence (the school-calendar
      // design's info toast); a time set for it rings by itself, as the household ring, which
      // the toast says: its sheet offers only that.
      if (!info.list.length) {
        toast("No alarm rings on " + fmtDate(date) + ": there is nothing to silence. A time set here rings by itself," +
          " as the household ring (a weekly rule for all alarms makes such days alarm days every week).");
      }
      selectedDay = date; renderDaySheet(); $("daysheet").scrollIntoView({ block: "nearest" });
    };
    grid.appendChild(cell);
  }
  renderDaySheet();
  if (!renderMonth.scrolled && monthOffset === 0) {
    renderMonth.scrolled = true;
    const cell = grid.querySelector(".day.today");
    if (cell) cell.scrollIntoView({ block: "center" });
  }
}
function renderDaySheet() {
  const sheet = $("daysheet");
  if (!selectedDay || !S) { sheet.hidden = true; return; }
  const info = dayInfo(payload(S.schedule, "schedule"), payload(S.overrides, "overrides"), selectedDay);
  // The note names its layer already ("holiday: Winter break"): it is not said twice.
  const why = (e) => personWords(e.note && e.note.startsWith(e.layer + ":") ? e.note : (layerNames[e.layer] || e.layer) + (e.note ? ": " + e.note : ""))
    .replace(/^./, (c) => c.toLowerCase());
  const what = info.ring ? "rings at " + info.ring.time + " (" + (layerNames[info.ring.layer] || info.ring.layer) + ")"
    : info.silent ? "silent (" + why(info.silent) + ")" : "nothing set";
  // A holiday of alarms that skip holidays: an override cannot change it; a one-time alarm can.
  const holiday = !info.ring && info.silent && info.silent.layer === "holiday";
  let html = "<h3>" + esc(fmtDate(selectedDay)) + "</h3><div>" + esc(what) + "</div>";
  const alarms = payload(S.alarms, "alarms") || [];
  if (isAdmin()) {
    // For every alarm (the household's day), or one alarm only.
    html += (alarms.length && !holiday ? '<div class="row"><label>For <select id="dayfor"><option value="">all alarms</option>' +
      alarms.map((a) => '<option value="' + a.id + '"' + (info.override && info.override.alarmID === a.id ? " selected" : "") + ">" +
        esc(alarmWords(a.id, a.label)) + " (" + esc(a.time) + ")</option>").join("") + "</select></label></div>" : "") +
      '<div class="row">' + timePicker("dayat", info.ring ? info.ring.time.slice(0, 5) : "07:00") +
      (holiday ? '<button class="primary" id="dayonce">One-time alarm at…</button>'
        : '<button class="primary" id="dayring">Ring at…</button>' + (info.list.length ? '<button id="dayoff">Silence this day</button>' : "")) +
      (info.override ? '<button class="danger" id="dayclear">Remove override</button>' : "") + "</div>" +
      (holiday ? '<div class="note">Alarms that skip holidays stay silent on a holiday; for a ring this day, add a one-time alarm.</div>' : "");
  } else html += '<div class="note">Pair this screen with admin rights to change a day: <button id="daypair">Type the code</button></div>';
  sheet.innerHTML = html; sheet.hidden = false;
  wirePickers(sheet);
  if (!isAdmin()) { $("daypair").onclick = showPairing; return; }
  const scope = () => $("dayfor") && $("dayfor").value ? Number($("dayfor").value) : null;
  const set = (change) => info.override
    ? send({ overrideEdit: { id: info.override.id, change, alarmID: scope() ?? undefined, allAlarms: scope() === null } })
    : send({ overrideAdd: { date: selectedDay, change, alarmID: scope() ?? undefined } });
  if (holiday) {
    $("dayonce").onclick = () => send({ alarmAdd: { spec: { time: $("dayat").value, date: selectedDay } } });
  } else {
    $("dayring").onclick = () => set($("dayat").value);
    if ($("dayoff")) $("dayoff").onclick = () => set("off");
  }
  if (info.override) $("dayclear").onclick = () => send({ overrideRemove: { id: info.override.id } });
}
$("prevmonth").onclick = () => { monthOffset = Math.max(0, monthOffset - 1); renderMonth(); };
$("nextmonth").onclick = () => { monthOffset = Math.min(1, monthOffset + 1); renderMonth(); };

// ---- Lists and sheets ----
const dayKeys = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
// Days as toggles (`mon-fri`, `sat,sun`, `daily` as the daemon writes them), into a hidden input.
function daysOf(text) {
  const on = new Set();
  for (const part of String(text || "").split(",")) {
    const p = part.trim();
    if (p === "daily") dayKeys.forEach((d) => on.add(d));
    else if (p === "weekdays") dayKeys.slice(0, 5).forEach((d) => on.add(d));
    else if (p === "weekends") ["sat", "sun"].forEach((d) => on.add(d));
    else if (p.includes("-")) {
      let [a, b] = p.split("-").map((d) => dayKeys.indexOf(d));
      if (a < 0 || b < 0) continue;
      for (let i = a; ; i = (i + 1) % 7) { on.add(dayKeys[i]); if (i === b) break; }
    } else if (dayKeys.includes(p)) on.add(p);
  }
  return on;
}
function daysPicker(id, value) {
  const on = daysOf(value);
  return '<span class="days" data-days="' + id + '">' + dayKeys.map((d) => '<button type="button" data-day="' + d + '" class="' +
    (on.has(d) ? "primary" : "") + '" aria-pressed="' + on.has(d) + '">' + d[0].toUpperCase() + d.slice(1, 2) + "</button>").join("") +
    '<input type="hidden" id="' + id + '" value="' + esc(value || "") + '"></span>';
}
function wireDays(root) {
  for (const box of root.querySelectorAll("[data-days]")) {
    const input = box.querySelector("input");
    const draw = () => { const on = daysOf(input.value); for (const b of box.querySelectorAll("button")) {
      b.className = on.has(b.dataset.day) ? "primary" : ""; b.setAttribute("aria-pressed", on.has(b.dataset.day)); } };
    for (const b of box.querySelectorAll("button")) b.onclick = () => {
      const on = daysOf(input.value);
      if (on.has(b.dataset.day)) on.delete(b.dataset.day); else on.add(b.dataset.day);
      input.value = dayKeys.filter((d) => on.has(d)).join(",");
      draw();
    };
    draw();
  }
}
const duration = (seconds) => seconds % 3600 === 0 ? seconds / 3600 + " h" : seconds >= 3600 ? Math.floor(seconds / 3600) + " h " + (seconds % 3600) / 60 + " min"
  : seconds % 60 === 0 ? seconds / 60 + " min" : seconds + " s";
// A select of `choices` ([value, words]); the value in force is always among them.
function choice(id, choices, value) {
  if (!choices.some(([v]) => String(v) === String(value))) choices = [...choices, [value, typeof value === "number" ? duration(value) : String(value)]];
  return '<select id="' + id + '">' + choices.map(([v, words]) => '<option value="' + esc(v) + '"' + (String(v) === String(value) ? " selected" : "") +
    ">" + esc(words) + "</option>").join("") + "</select>";
}
const durations = (list, off) => [[0, off], ...list.map((m) => [m * 60, duration(m * 60)])];
// One field of the alarm sheet, as its setting declares it (CFG.sheet, from the daemon's one
// declaration of an alarm's settings): its control, with the words around it. Its element is "f-" + its key.
function sheetField(f, value) {
  const id = "f-" + f.key, c = f.control, v = value(f.key, (CFG.defaults || {})[f.key]);
  let control;
  switch (c.kind) {
    case "slider":
      control = '<input id="' + id + '" type="range" min="' + c.min + '" max="' + c.max + '" step="' + c.step + '" value="' + esc(v) +
        '" oninput="this.nextElementSibling.textContent = this.value + &quot;' + esc(c.unit) + '&quot;"><span>' + esc(v) + esc(c.unit) + "</span>";
      break;
    case "choice": control = choice(id, c.choices.map((o) => [o.value, o.words]), v); break;
    case "durations": control = choice(id, [[0, c.off], ...c.seconds.map((n) => [n, duration(n)])], v); break;
    case "atMost":
      control = choice(id, [[c.none, c.noneWords], ...[...new Set([...c.percents, v])].filter((n) => n < c.none).sort((a, b) => b - a).map((n) => [n, n + "%"])], v);
      break;
    case "check":
      return '<label class="check"><input type="checkbox" id="' + id + '"' + (v ? " checked" : "") + "> " + esc(f.label) + "</label>";
    case "lengths":
      control = '<input id="' + id + '" inputmode="numeric" style="width:6em" value="' + esc([String(v)].concat((value(c.later, []) || []).map(String)).join(",")) + '">';
      break;
  }
  return "<label>" + esc(f.label) + " " + control + (f.after ? " " + esc(f.after) : "") + "</label>";
}
// The alarm sheet: the time, its days and its sound, then every setting in its part (CFG.sheet),
// with the daemon's defaults for a new alarm. A new setting needs no edit here.
function alarmForm(alarm) {
  const a = alarm || CFG.defaults || {}, tags = payload(S.tags, "tags") || [], sheet = CFG.sheet || { parts: [], fields: [] };
  const value = (key, fallback) => a[key] !== undefined ? a[key] : fallback;
  // A part's rows: fields that name a row join it, the rest have one of their own.
  const rows = (group) => {
    const list = [];
    for (const f of sheet.fields.filter((f) => f.group === group)) {
      const row = list.find((r) => r.key === (f.row || f.key));
      if (row) row.fields.push(f); else list.push({ key: f.row || f.key, fields: [f] });
    }
    return list.map((r) => '<div class="row">' + r.fields.map((f) => sheetField(f, value)).join("") +
      r.fields.filter((f) => f.note).map((f) => '<span class="note">' + esc(f.note) + "</span>").join("") + "</div>" +
      r.fields.filter((f) => f.explained).map((f) => '<div class="note">' + esc(f.explained) + "</div>").join(""));
  };
  const tagRow = tags.length ? '<div class="row">Tags: ' + tags.map((t, i) => '<label class="check"><input type="checkbox" id="f-tag-' + i + '" data-tag="' + esc(t.label) + '"' +
      (alarm && (alarm.tags || []).includes(t.label) ? " checked" : "") + "> " + esc(t.label) + "</label>").join(" ") +
      '<span class="note">none ticked: any registered tag</span></div>' : '<div class="row note">No tags registered yet (More → Tags).</div>';
  let h = '<div class="row"><label>Time ' + timePicker("f-time", alarm ? alarm.time.slice(0, 5) : "07:00") + "</label>" +
    '<input id="f-label" placeholder="label, like work" value="' + esc(alarm ? alarm.label : "") + '"></div>' +
    '<div class="row">Repeats ' + daysPicker("f-days", alarm && alarm.date ? "" : alarm && alarm.days ? alarm.days : "mon-fri") +
    '</div><div class="row"><label>or once on ' + datePicker("f-date", alarm && alarm.date ? alarm.date : "", "— (repeats)") + "</label></div>" +
    rows("main").join("") +
    '<div class="row"><label>Sound ' + choice("f-sound", soundChoices("the clock's own"),
      alarm && alarm.sound != null ? alarm.sound : "") + '</label><button type="button" id="f-hear">Hear it</button></div>';
  for (const part of sheet.parts.filter((p) => p.group !== "main")) {
    const body = rows(part.group);
    // Tags stop an alarm: they follow the first row of how it is stopped.
    if (part.group === "stop") body.splice(1, 0, tagRow);
    if (body.length) h += '<details class="group" id="g-' + part.group + '"><summary>' + esc(part.title) + "</summary>" + body.join("") + "</details>";
  }
  return h;
}
// The sound files the clock offers (sound list), read when the Alarms tab first opens.
let soundFiles = null;
// The choices of a sound: the built-in one (`builtIn`, its words), then the clock's files by name.
const soundChoices = (builtIn) => [["", builtIn], ...(soundFiles || []).map((f) => [f, f.split("/").pop().replace(/\.[^.]*$/, "")])];
async function loadSounds() {
  const reply = await send({ soundList: {} }, true, true);
  soundFiles = reply && reply.ok ? reply.payload.sounds || [] : [];
  if (view === "lists") renderLists();
  if (view === "more") renderMore();
}
function formSpec() {
  const spec = { label: $("f-label").value, time: $("f-time").value, sound: $("f-sound").value,
    tags: [...document.querySelectorAll("#alarmform input[data-tag]")].filter((e) => e.checked).map((e) => e.dataset.tag) };
  // Each setting the sheet shows, read back as its control holds it.
  for (const f of (CFG.sheet || { fields: [] }).fields) {
    const e = $("f-" + f.key), c = f.control;
    if (!e) continue;
    if (c.kind === "check") spec[f.key] = e.checked;
    else if (c.kind === "lengths") {
      const lengths = e.value.split(/[\s,]+/).filter(Boolean).map(Number);
      spec[f.key] = lengths[0];
      spec[c.later] = lengths.slice(1);
      if (lengths.some((n) => !Number.isInteger(n))) spec.problem = "Snooze minutes: give whole minutes, like 9 or 9,7,5";
    } else if (c.kind === "choice" && typeof c.choices[0].value === "string") spec[f.key] = e.value;
    else spec[f.key] = Number(e.value);
  }
  if ($("f-date").value) spec.date = $("f-date").value; else spec.days = $("f-days").value.trim();
  return spec;
}
// A new alarm is sent with what was changed on its sheet only: the rest are the clock's defaults.
function newAlarmSpec() {
  const spec = formSpec(), initial = alarmForm.initial || {};
  for (const key of Object.keys(spec)) if (!["time", "days", "date", "label"].includes(key) && JSON.stringify(spec[key]) === JSON.stringify(initial[key])) delete spec[key];
  return spec;
}
function reminderForm(r) {
  // Follow-ups as the daemon lists them ("2 h: how did it go?", "1 h 30 min: …"), two rows to fill.
  const thens = ((r && r.followUps) || []).map((f) => {
    const m = /^(?:(\d+) h)?\s*(?:(\d+) min)?: (.*)$/.exec(f);
    return m ? { after: (Number(m[1] || 0) * 60 + Number(m[2] || 0)) * 60, text: m[3] } : null;
  }).filter(Boolean);
  while (thens.length < 2) thens.push({ after: 0, text: "" });
  const sound = r && r.sound ? r.sound : "";
  return '<div class="row"><input id="q-text" placeholder="title, like check-in" maxlength="200" value="' + esc(r ? r.text : "") + '">' +
    timePicker("q-time", r ? r.time.slice(0, 5) : "16:00") + "</div>" +
    '<div class="row"><input id="q-body" placeholder="a line under it (optional)" maxlength="500" value="' + esc(r && r.body ? r.body : "") + '"></div>' +
    '<div class="row">Repeats ' + daysPicker("q-days", r ? r.days || "" : "daily") + '</div><div class="row"><label>or once on ' +
    datePicker("q-date", r && r.date ? r.date : "", "— (repeats)") + "</label></div>" +
    '<div class="row"><label>Sound ' + choice("q-sound", soundChoices("the clock's chime"), sound) +
    '</label><label>For ' + personPicker("q-for", r && r.person ? r.person : "") + "</label>" +
    (r ? '<label><input type="checkbox" id="q-enabled"' + (r.enabled ? " checked" : "") + "> On</label>" : "") + "</div>" +
    // A day the alarms are off is not a day off from reminders, unless this one says so.
    '<div class="row"><label><input type="checkbox" id="q-withalarms"' + (r && r.withAlarms ? " checked" : "") +
    "> Silent on days the alarms are off</label></div>" +
    thens.map((t, i) => '<div class="row"><label>Then after ' + choice("q-then" + i, [[0, "—"], ...[15, 30, 60, 120, 180, 240].map((m) => [m * 60, duration(m * 60)])], t.after) +
      '</label><input id="q-thentext' + i + '" placeholder="a follow-up, like how did it go?" maxlength="200" value="' + esc(t.text) + '"></div>').join("");
}
function reminderSpec(r) {
  // No command from here: that is the CLI's (a shell command, run by the daemon).
  const spec = { text: $("q-text").value, time: $("q-time").value, body: $("q-body").value.trim() };
  if ($("q-date").value) spec.date = $("q-date").value; else spec.days = $("q-days").value.trim();
  const sound = $("q-sound").value, person = $("q-for").value.trim();
  if (r ? sound !== (r.sound || "") : sound) spec.sound = sound;
  if (r ? person !== (r.person || "") : person) spec.person = person;
  if (r && $("q-enabled").checked !== r.enabled) spec.enabled = $("q-enabled").checked;
  if ($("q-withalarms").checked !== !!(r && r.withAlarms)) spec.withAlarms = $("q-withalarms").checked;
  const thens = [0, 1].map((i) => ({ afterSeconds: Number($("q-then" + i).value), text: $("q-thentext" + i).value.trim() }))
    .filter((t) => t.afterSeconds > 0 && t.text);
  if (r ? thens.length || (r.followUps || []).length : thens.length) spec.followUps = thens;
  return spec;
}
// Redrawn whenever the clock's state changes (a phone, the CLI, a ring): what is typed in its
// forms is kept across a redraw, unless `fresh` (a save went through, an editor opened or closed).
function renderLists(fresh) {
  const key = JSON.stringify(editing);
  const typed = fresh || key !== renderLists.key ? []
    : [...$("lists").querySelectorAll("input[id], select[id], details[id]")].map((e) =>
      [e.id, e.type === "checkbox" ? e.checked : e.tagName === "DETAILS" ? e.open : e.value]);
  renderLists.key = key;
  const admin = isAdmin();
  const alarms = payload(S.alarms, "alarms") || [], rules = payload(S.rules, "rules") || [];
  const overrides = payload(S.overrides, "overrides") || [], tags = payload(S.tags, "tags") || [];
  const reminders = payload(S.reminders, "reminders") || [];
  // What was being edited may have gone (removed elsewhere): then the forms add again.
  if (editing.alarm && !alarms.some((a) => a.id === editing.alarm)) editing.alarm = null;
  if (editing.rule && !rules.some((r) => r.id === editing.rule)) editing.rule = null;
  if (editing.reminder && !reminders.some((r) => r.id === editing.reminder)) editing.reminder = null;
  let html = admin ? "" : '<p class="note">To change these from here, ask an admin of the clock for a code that lets this screen change alarms, then <button data-act="pair">Type the code</button></p>';
  // The master switch: pause (until a date) or resume; while alarms are off the lists are greyed.
  const st = payload(S.status, "status"), master = st ? st.master : "on";
  html += '<div class="sheet" id="master"><h3>All alarms</h3><p id="masterstate">' +
    (master === "on" ? "On" : master === "off" ? "Off until resumed" : "Paused until " + esc(fmtDate(st.pausedUntil))) + "</p>" +
    (!admin ? "" : master === "on"
      ? '<div class="row"><button id="m-pause">Turn off</button></div><div class="row"><label>or pause until ' + datePicker("m-until", "", "pick a day") +
        '</label><button id="m-pauseuntil">Pause</button></div>'
      : '<div class="row"><button class="primary" id="m-resume">Resume</button></div>') +
    '<p id="remindersstate">Reminders: ' + (st && st.remindersOn === false ? "off" : "on") + "</p>" +
    (admin ? '<div class="row"><button id="m-reminders">' + (st && st.remindersOn === false ? "Reminders on" : "Reminders off") + "</button></div>" : "") +
    "</div>";
  html += '<div id="layers"' + (master === "on" ? "" : ' class="muted"') + ">";
  html += '<div class="sheet layer-base" id="alarmsheet"><h3>Alarms</h3><table>' + alarms.map((a) =>
    "<tr><td>" + esc(alarmWords(a.id, a.label)) + "</td><td>" + esc(a.time.slice(0, 5)) + "</td><td>" + esc(a.days ? fmtDays(a.days) : fmtDate(a.date)) + "</td><td>" +
    esc(challengeWords[a.challenge] || a.challenge) + "</td><td>" + (a.enabled ? "on" : "off") + (a.warnings ? '<div class="note">' + esc(a.warnings.map(personWords).join("; ")) + "</div>" : "") + "</td>" +
    (admin ? '<td><button data-act="toggle" data-id="' + a.id + '">' + (a.enabled ? "Turn off" : "Turn on") + '</button> <button data-act="edit" data-id="' + a.id +
      '">Edit</button> <button class="danger" data-act="rm" data-id="' + a.id + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
  if (admin) {
    const alarm = alarms.find((a) => a.id === editing.alarm) || null;
    html += '<div id="alarmform"><h3 id="formtitle">' + (alarm ? "Edit " + esc(alarmWords(alarm.id, alarm.label)) : "Add an alarm") + "</h3>" + alarmForm(alarm) +
      '<div class="row"><button class="primary" id="f-save">' + (alarm ? "Save" : "Add") + "</button>" +
      (alarm ? '<button id="f-cancel">Cancel</button>' : "") + "</div></div>";
  }
  html += "</div>";
  const rule = rules.find((r) => r.id === editing.rule) || null;
  const alarmName = (id) => { const a = alarms.find((x) => x.id === id); return alarmWords(id, a && a.label); };
  html += '<div class="sheet layer-rule" id="rulesheet"><h3>Weekly rules</h3><table>' + rules.map((r) => "<tr><td>" + esc(fmtDays(r.days)) + "</td><td>" + esc(r.change === "off" ? "silent" : r.change) +
    "</td><td>" + (r.alarmID ? esc(alarmName(r.alarmID)) : "all alarms") + "</td>" + (admin ? '<td><button data-act="ruleedit" data-id="' + r.id + '">Edit</button> <button class="danger" data-act="rulerm" data-id="' + r.id + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
  if (admin) html += '<div class="row">On ' + daysPicker("r-days", rule ? rule.days : "sat,sun") + '</div><div class="row"><label>' +
    '<select id="r-mode"><option value="at">ring at</option><option value="off"' + (rule && rule.change === "off" ? " selected" : "") +
    ">stay silent</option></select> " + timePicker("r-at", rule && rule.change !== "off" ? rule.change : "09:00") + "</label>" +
    '<label>for <select id="r-for"><option value="">all alarms</option>' + alarms.map((a) => '<option value="' + a.id + '"' +
      (rule && rule.alarmID === a.id ? " selected" : "") + ">" + esc(alarmWords(a.id, a.label)) + "</option>").join("") + "</select></label>" +
    '<button class="primary" id="r-add">' + (rule ? "Save rule" : "Add rule") + "</button>" +
    (rule ? '<button id="r-cancel">Cancel</button>' : "") + '</div><div class="note">Those days ring at the time picked, or stay silent.</div>';
  html += '</div><div class="sheet layer-override" id="overridesheet"><h3>Date overrides</h3><table>' + overrides.map((o) => "<tr><td>" + esc(fmtDate(o.date)) + "</td><td>" + esc(o.change === "off" ? "silent" : o.change) +
    // One a holiday or a pause silences after all is not listed as if it will ring.
    (o.silent ? '<div class="note o-silent">silent: ' + say(o.silent) + "</div>" : "") +
    "</td><td>" + (o.alarmID ? esc(alarmName(o.alarmID)) : "all alarms") + "</td>" + (admin ? '<td><button data-act="overrideedit" data-id="' + o.id + '">Edit</button> <button class="danger" data-act="overriderm" data-id="' + o.id + '">Remove</button></td>' : "") + "</tr>").join("") +
    '</table><div class="note">Add one by tapping a day in Month.</div></div>';
  html += "</div>";
  // Reminders: not greyed with the alarms, as they have their own switch.
  const reminder = reminders.find((r) => r.id === editing.reminder) || null;
  // Each reminder says whom it is for and its follow-ups ("then 2 h later: how did it go?").
  const followUp = (f) => { const m = /^([^:]+):\s*(.*)$/.exec(f); return m ? "then " + m[1] + " later" + (m[2] ? ": “" + m[2] + "”" : "") : f; };
  html += '<div class="sheet" id="reminders"><h3>Reminders</h3><table>' + reminders.map((r) => "<tr><td>" + esc(r.text) +
    (r.body ? '<div class="note">' + esc(r.body) + "</div>" : "") +
    '<div class="note q-for">for ' + esc(r.person || "everyone") + "</div>" +
    (r.withAlarms ? '<div class="note q-with">silent on days the alarms are off</div>' : "") +
    (r.followUps && r.followUps.length ? r.followUps.map((f) => '<div class="note q-then">' + esc(followUp(f)) + "</div>").join("") : "") +
    "</td><td>" + esc(r.time) + "</td><td>" + esc(r.days ? fmtDays(r.days) : fmtDate(r.date)) + "</td><td>" +
    (r.enabled ? "on" : "off") + (r.next ? '<div class="note">next ' + esc(fmtDate(r.next)) + "</div>" : "") + "</td>" +
    (admin ? '<td><button data-act="qtoggle" data-id="' + r.id + '">' + (r.enabled ? "Turn off" : "Turn on") + '</button> <button data-act="qedit" data-id="' + r.id +
      '">Edit</button> <button class="danger" data-act="qrm" data-id="' + r.id + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
  if (admin) html += '<h3 id="q-title">' + (reminder ? "Edit “" + esc(reminder.text) + "”" : "Add a reminder") + "</h3>" + reminderForm(reminder) +
    '<div class="row"><button class="primary" id="q-save">' + (reminder ? "Save reminder" : "Add reminder") + "</button>" +
    (reminder ? '<button id="q-cancel">Cancel</button>' : "") + "</div>";
  html += "</div>";
  $("lists").innerHTML = html;
  for (const [id, value] of typed) {
    const e = $(id);
    if (!e) continue;
    if (e.type === "checkbox") e.checked = value; else if (e.tagName === "DETAILS") e.open = value; else e.value = value;
  }
  wirePickers($("lists")); wireDays($("lists")); wirePeople($("lists"));
  if (admin && people === null) { people = []; loadPeople(); }
  if ($("alarmform") && !editing.alarm && !typed.length) alarmForm.initial = formSpec();
  if (!admin) { $("lists").querySelector('button[data-act="pair"]').onclick = showPairing; return; }
  $("m-reminders").onclick = () => send({ remindersSwitch: { on: st && st.remindersOn === false } });
  if ($("m-pause")) {
    $("m-pause").onclick = () => send({ pause: {} });
    $("m-pauseuntil").onclick = () => $("m-until").value ? send({ pause: { until: $("m-until").value } }) : toast("Pick the date alarms ring again from", true);
  } else {
    $("m-resume").onclick = () => send({ resume: {} });
  }
  // A save that works ends the editing; one refused leaves the form as typed.
  const save = async (kind, op) => { const reply = await send(op); if (reply && reply.ok) { editing[kind] = null; renderLists(true); } return reply; };
  const cancel = (kind) => () => { editing[kind] = null; renderLists(true); };
  $("f-hear").onclick = async () => {
    const file = $("f-sound").value || undefined;
    const reply = await send({ soundTest: { file, seconds: 5 } }, true, true);
    toast(reply && reply.ok ? "Playing it for 5 seconds" + (reply.payload.playback.problems && reply.payload.playback.problems.length
      ? " (" + reply.payload.playback.problems.join("; ") + ")" : "") : reply && reply.error ? reply.error.message : "The clock did not answer", !(reply && reply.ok));
  };
  $("f-save").onclick = () => {
    const spec = editing.alarm ? formSpec() : newAlarmSpec();
    if (spec.problem) return toast(spec.problem, true);
    save("alarm", editing.alarm ? { alarmEdit: { id: editing.alarm, spec } } : { alarmAdd: { spec } });
  };
  $("r-add").onclick = async () => {
    const days = $("r-days").value.trim(), change = ruleChange(), scope = $("r-for").value ? Number($("r-for").value) : undefined;
    const reply = await save("rule", editing.rule ? { ruleEdit: { id: editing.rule, days, change, alarmID: scope, allAlarms: scope === undefined } }
      : { ruleAdd: { days, change, alarmID: scope } });
    // A rule for those days exists: its editor opens, as the daemon's message says.
    const existing = reply && !reply.ok && reply.error && /rule edit (\d+)/.exec(reply.error.message);
    if (existing) {
      editing.rule = Number(existing[1]); renderLists(true); ruleChange(change); $("r-mode").focus();
      toast("Those days have a rule already: it is open here, with your change, to save.", true);
    }
  };
  $("q-save").onclick = () => {
    const spec = reminderSpec(editing.reminder ? reminders.find((r) => r.id === editing.reminder) : null);
    if (!editing.reminder && !spec.body) delete spec.body;
    save("reminder", editing.reminder ? { reminderEdit: { id: editing.reminder, spec } } : { reminderAdd: { spec } });
  };
  for (const [id, kind] of [["f-cancel", "alarm"], ["r-cancel", "rule"], ["q-cancel", "reminder"]]) if ($(id)) $(id).onclick = cancel(kind);
  for (const b of $("lists").querySelectorAll("button[data-act]")) b.onclick = () => {
    const id = Number(b.dataset.id), alarm = alarms.find((a) => a.id === id), rem = reminders.find((r) => r.id === id);
    switch (b.dataset.act) {
      case "toggle": send({ alarmSetEnabled: { id, enabled: !alarm.enabled } }); break;
      case "rm": if (confirm("Remove " + alarmWords(id, alarm.label) + "?")) send({ alarmRemove: { id } }); break;
      case "edit": editing.alarm = id; renderLists(true); $("alarmform").scrollIntoView({ block: "start" }); break;
      case "ruleedit": editing.rule = id; renderLists(true); $("r-mode").scrollIntoView({ block: "center" }); $("r-mode").focus(); break;
      case "rulerm": send({ ruleRemove: { id } }); break;
      case "overriderm": send({ overrideRemove: { id } }); break;
      // In the same sheet as a tap on its day in Month, filled in with the override.
      case "overrideedit": {
        const o = (payload(S.overrides, "overrides") || []).find((x) => x.id === id);
        if (!o) break;
        const now = payload(S.status, "status").now;
        monthOffset = Math.min(1, Math.max(0, (Number(o.date.slice(0, 4)) - Number(now.slice(0, 4))) * 12 + Number(o.date.slice(5, 7)) - Number(now.slice(5, 7))));
        selectedDay = o.date; show("month"); $("daysheet").scrollIntoView({ block: "nearest" });
        break;
      }
      case "qtoggle": send({ reminderEdit: { id, spec: { enabled: !rem.enabled } } }); break;
      case "qedit": editing.reminder = id; renderLists(true); $("q-text").scrollIntoView({ block: "center" }); $("q-text").focus(); break;
      case "qrm": if (confirm("Remove the reminder “" + rem.text + "”?")) send({ reminderRemove: { id } }); break;
    }
  };
}

// ---- Apps ----
// The Apps tab: requests for more time (admins answer), today per user, and each app's setup sheet.
// The sheet being filled in lives in `appDraft`, so that a change made elsewhere (a hand edit of
// apps.toml, the CLI) redraws the list under it without losing what is typed.
let appDraft = null;
// The app picker: the machine's installed applications (apps installed), read when a sheet opens.
let installedApps = null;
async function loadInstalled() {
  const reply = await send({ appCatalog: {} }, true);
  installedApps = reply && reply.ok && reply.payload && reply.payload.apps ? reply.payload.apps.installed || [] : [];
  if (reply && reply.ok && reply.payload && reply.payload.apps) people = reply.payload.apps.people || [];
  if (appDraft) drawAppSheet();
}
// The household's people (the clock's login accounts), for whom a reminder is: read with the
// installed apps, by an admin's page.
let people = null;
async function loadPeople() {
  const reply = await send({ appCatalog: {} }, true, true);
  people = reply && reply.ok && reply.payload && reply.payload.apps ? reply.payload.apps.people || [] : [];
  if (view === "lists") renderLists(true);
  if (view === "more") renderMoreViews();
}
// Whom something is for, by touch: everyone, one of the household's people, or (on a phone) a
// name typed. The value is in the input `id`, shown only for "someone else".
function personPicker(id, value) {
  const list = people || [];
  const other = value && !list.includes(value);
  return '<select data-person="' + id + '"><option value="">everyone</option>' +
    list.map((p) => '<option' + (p === value ? " selected" : "") + ">" + esc(p) + "</option>").join("") +
    '<option value="*other"' + (other ? " selected" : "") + ">someone else…</option></select>" +
    '<input id="' + id + '" maxlength="32" placeholder="their user name" value="' + esc(value) + '"' + (other ? "" : " hidden") + ">";
}
function wirePeople(root) {
  for (const select of root.querySelectorAll("select[data-person]")) select.onchange = () => {
    const input = $(select.dataset.person), other = select.value === "*other";
    input.hidden = !other;
    input.value = other ? "" : select.value;
    if (other) input.focus();
  };
}
function pickerRow(d) {
  if (!installedApps) return '<div class="row note">Reading the installed apps…</div>';
  if (!installedApps.length) return "";
  const options = installedApps.map((a, i) => '<option value="' + i + '"' + (a.program ? "" : " disabled") + (d.picked === i ? " selected" : "") + ">" + esc(a.name) +
    (a.limitedAs ? " — limited as " + esc(a.limitedAs) : a.program ? "" : " — can't be limited") + "</option>").join("");
  const chosen = installedApps[d.picked];
  const note = !chosen ? "Or type the program below, for anything not listed."
    : chosen.limitedAs ? "Already limited as " + chosen.limitedAs + "." : chosen.note || chosen.program;
  // Several at once (the design's multi-app flow): each is added "Not configured" (blocked), to be
  // set up from its card.
  const free = installedApps.map((a, i) => [a, i]).filter(([a]) => a.program && !a.limitedAs);
  const several = free.length < 2 ? "" : '<details id="a-several"><summary>Add several apps at once</summary><div class="checks">' +
    free.map(([a, i]) => '<label class="check"><input type="checkbox" data-several="' + i + '"> ' + esc(a.name) + "</label>").join("") +
    '</div><div class="row"><button id="a-addseveral">Add the apps ticked</button></div>' +
    '<p class="note">Each is added not set up, and blocked until its card is tapped and its sheet saved.</p></details>';
  return '<div class="row"><label>Installed <select id="a-installed"><option value="">Pick an app…</option>' + options +
    '</select></label></div><p class="note" id="a-pickednote">' + esc(note) + "</p>" + several;
}
// An app's name for the policy from its .desktop file's: "org.example.Tux.desktop" → "tux".
const nameOfEntry = (app) => app.id.replace(/\.desktop$/, "").split(".").pop().toLowerCase().replace(/[^a-z0-9_.-]/g, "-").slice(0, 32);
async function addSeveral() {
  const ticked = [...$("appedit").querySelectorAll("input[data-several]:checked")].map((c) => installedApps[Number(c.dataset.several)]);
  if (!ticked.length) return toast("Tick the apps to add first", true);
  let revision = appDraft.revision, added = 0;
  for (const app of ticked) {
    const reply = await send({ appPut: { setup: { name: nameOfEntry(app), paths: [app.program], limits: {}, users: [], enabled: true },
      adding: true, revision } }, true, true);
    if (!reply || !reply.ok) { toast((reply && reply.error ? personWords(reply.error.message) : "not added") + " (" + app.name + ")", true); break; }
    added++;
    const policy = reply.payload && reply.payload.apps && reply.payload.apps.policy;
    if (policy) revision = policy.revision;
  }
  appDraft = null; drawAppSheet(); load();
  if (added) toast(added + (added === 1 ? " app added" : " apps added") + ": tap each card to set it up.");
}
const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], WEEKDAYS = DAYS.slice(0, 5), WEEKENDS = ["sat", "sun"];
const appsReply = () => payload(S.apps, "apps");
function limitProblem(v) {
  const n = Number(v);
  return v === "" || !Number.isInteger(n) || n < 0 || n > 480 || n % 5 ? "use 0–480 minutes, in steps of 5" : null;
}
function draftFrom(app, revision) {
  const d = { adding: !app, revision, name: app ? app.name : "", paths: app ? app.paths.join(" ") : "",
    category: app && app.category ? app.category : "", users: app ? app.users.join(", ") : "",
    enabled: app ? app.enabled : true, hours: "full", wdFrom: "15:00", wdTo: "20:00", weFrom: "15:00", weTo: "20:00",
    limitMode: "none", wd: "", we: "", days: {}, school: "", off: "" };
  if (app && app.windows) {
    const first = (day) => (app.windows[day] || [])[0] || "";
    d.hours = "set";
    [d.wdFrom, d.wdTo] = (first("mon") || "00:00-00:00").split("-");
    [d.weFrom, d.weTo] = (first("sat") || "00:00-00:00").split("-");
    if (first("mon") === "00:00-24:00" && first("sat") === "00:00-24:00") d.hours = "full";
  }
  if (app) { d.school = app.limits.school_days ?? ""; d.off = app.limits.days_off ?? ""; }
  if (app && DAYS.some((x) => app.limits[x] != null)) {
    const l = app.limits, same = (days) => days.every((x) => l[x] === l[days[0]]);
    d.limitMode = same(WEEKDAYS) && same(WEEKENDS) ? "week" : "days";
    d.wd = l.mon ?? ""; d.we = l.sat ?? "";
    for (const x of DAYS) d.days[x] = l[x] ?? "";
  }
  return d;
}
function suggest(d) {  // a new reward app: the stricter defaults, offered
  if (d.category === "reward" && d.adding && d.limitMode === "none" && d.hours !== "set") {
    Object.assign(d, { hours: "set", wdFrom: "15:00", wdTo: "20:00", weFrom: "15:00", weTo: "20:00", limitMode: "week", wd: 60, we: 120 });
  }
}
function setupFromDraft(d) {
  const problems0 = [];
  const setup = { name: d.name.trim(), paths: d.paths.split(/[\s,]+/).filter(Boolean), limits: {},
    users: d.users.split(/[\s,]+/).filter(Boolean), enabled: d.enabled };
  if (d.category) setup.category = d.category;
  // "Not set yet": no hours sent. With no limit either, it is not set up, and blocked until it is
  // (docs/guide/apps.md, "App time windows and daily limits"); with a limit, it is allowed all day within it.
  if (d.hours === "set") {
    setup.windows = {};
    for (const x of WEEKDAYS) setup.windows[x] = [d.wdFrom + "-" + d.wdTo];
    for (const x of WEEKENDS) setup.windows[x] = [d.weFrom + "-" + d.weTo];
  } else if (d.hours === "full") setup.windows = Object.fromEntries(DAYS.map((x) => [x, ["00:00-24:00"]]));
  const problems = problems0;
  if (d.limitMode === "week") {
    for (const [v, days, what] of [[d.wd, WEEKDAYS, "Weekdays"], [d.we, WEEKENDS, "Weekends"]]) {
      const p = limitProblem(String(v)); if (p) problems.push(what + ": " + p);
      for (const x of days) setup.limits[x] = Number(v);
    }
  } else if (d.limitMode === "days") {
    for (const x of DAYS) { const v = String(d.days[x] ?? ""); if (v === "") continue; const p = limitProblem(v);
      if (p) problems.push(x + ": " + p); setup.limits[x] = Number(v); }
  }
  // By the alarms' holiday calendars, over the weekdays' limits: school days and days off.
  for (const [v, key, what] of [[d.school, "school_days", "School days"], [d.off, "days_off", "Days off"]]) {
    if (String(v) === "") continue;
    const p = limitProblem(String(v)); if (p) problems.push(what + ": " + p);
    setup.limits[key] = Number(v);
  }
  if (!setup.name) problems.push("Give the app a name");
  if (!setup.paths.length) problems.push("Pick its program from the installed ones");
  if (d.category === "learning" && !Object.keys(setup.limits).length) problems.push("A learning app needs its daily limits");
  return { setup, problems };
}
function appSheet(d, current) {
  const opt = (v, label, on) => '<option value="' + v + '"' + (on === v ? " selected" : "") + ">" + label + "</option>";
  // Minutes by touch: a picker of 0–480 in steps of 5 ("—": none), a hand-written value kept.
  const num = (id, v) => {
    const values = Array.from({ length: 97 }, (_, i) => String(i * 5));
    if (v !== "" && v != null && !values.includes(String(v))) values.push(String(v));
    return '<select id="' + id + '" class="minutes" aria-label="minutes"><option value="">—</option>' +
      values.map((x) => '<option value="' + x + '"' + (String(v) === x ? " selected" : "") + ">" + x + "</option>").join("") + "</select>";
  };
  // The app's icon (its .desktop entry's, served by the page's server), or a letter tile.
  const picked = d.adding ? installedApps && installedApps[d.picked] : (installedApps || []).find((a) => a.program && d.paths.split(" ").includes(a.program));
  const letter = esc(((d.name || (picked && picked.name) || "?").trim()[0] || "?").toUpperCase());
  const icon = picked && picked.icon && /^[A-Za-z0-9._+-]{1,128}$/.test(picked.icon) && !picked.icon.startsWith(".")
    ? '<img class="appicon" id="a-icon" alt="" src="/icon/' + encodeURIComponent(picked.icon) + '" data-letter="' + letter + '">'
    : '<span class="appicon tile" id="a-icon">' + letter + "</span>";
  let h = '<div class="sheet" id="appsheet"><h3>' + icon + (d.adding ? "Add an app" : "Set up " + esc(d.name)) + "</h3>";
  if (!d.adding && current !== d.revision) h += '<p class="note" id="a-stale">Changed elsewhere since this sheet opened (see the list). Saving replaces this app with what is here.</p>';
  if (d.adding) h += pickerRow(d);
  if (d.adding) h += '<div class="row"><label>Name <input id="a-name" value="' + esc(d.name) + '" placeholder="minecraft"></label></div>';
  h += '<div class="row"><label>Program <input id="a-paths" value="' + esc(d.paths) + '" placeholder="filled in when you pick the app above" style="min-width:16em"></label></div>';
  h += '<div class="row"><label>Kind <select id="a-category">' + opt("", "Other", d.category) + opt("learning", "Learning (no defaults)", d.category) +
    opt("reward", "Reward (stricter defaults)", d.category) + '</select></label><label><input id="a-enabled" type="checkbox"' + (d.enabled ? " checked" : "") + "> Limited</label></div>";
  h += '<div class="row"><label>Allowed hours <select id="a-hours">' + opt("unset", "Not set yet", d.hours) + opt("full", "Full day", d.hours) +
    opt("set", "Set hours", d.hours) + "</select></label></div>";
  if (d.hours === "unset" && d.limitMode === "none") h += '<p class="note bad" id="a-blocked">Not set up: blocked for the people it limits until its hours or a daily limit are set.</p>';
  if (d.hours === "set") h += '<div class="row">Weekdays ' + timePicker("a-wdfrom", d.wdFrom) + "–" + timePicker("a-wdto", d.wdTo) +
    '</div><div class="row">Weekends ' + timePicker("a-wefrom", d.weFrom) + "–" + timePicker("a-weto", d.weTo) + "</div>";
  h += '<div class="row"><label>Daily limit <select id="a-limitmode">' + opt("none", "No limit", d.limitMode) + opt("week", "Weekdays and weekends", d.limitMode) +
    opt("days", "Each day (advanced)", d.limitMode) + "</select></label></div>";
  if (d.limitMode === "week") h += '<div class="row">Weekdays ' + num("a-wd", d.wd) + " min · Weekends " + num("a-we", d.we) + " min</div>";
  if (d.limitMode === "days") h += '<div class="row">' + DAYS.map((x) => x + " " + num("a-day-" + x, d.days[x] ?? "")).join(" ") + " min</div>";
  h += '<div class="row">By the holiday calendars: school days ' + num("a-school", d.school) + " min · days off " + num("a-off", d.off) +
    ' min</div><div class="note">Days off are weekends and the days the holiday calendars mark; left empty, the limits above apply.</div>';
  h += '<div class="row"><label>Only for <input id="a-users" value="' + esc(d.users) + '" placeholder="everyone who logs in"></label></div>';
  const { problems } = setupFromDraft(d);
  h += '<p class="note" id="a-problems">' + esc(problems.join(" · ")) + "</p>";
  h += '<div class="row"><button class="primary" id="a-save"' + (problems.length ? " disabled" : "") + ">" + (d.adding ? "Add" : "Save") +
    '</button><button id="a-cancel">Cancel</button></div></div>';
  return h;
}
function readDraft() {
  const d = appDraft, v = (id) => $(id) ? $(id).value : undefined;
  if (!d || !$("appsheet")) return;
  const picked = v("a-installed");
  if (picked !== undefined && picked !== "" && Number(picked) !== d.picked) {
    // A pick fills the program, and the name when none was typed; what the daemon said about it shows.
    const app = installedApps[Number(picked)];
    d.picked = Number(picked); d.paths = app.program || "";
    if (!v("a-name")) d.name = nameOfEntry(app);
    return drawAppSheet();
  }
  if ($("a-name")) d.name = v("a-name");
  d.paths = v("a-paths"); d.users = v("a-users"); d.enabled = $("a-enabled").checked;
  const category = v("a-category"), hours = v("a-hours"), limitMode = v("a-limitmode");
  if ($("a-wdfrom")) { d.wdFrom = v("a-wdfrom"); d.wdTo = v("a-wdto"); d.weFrom = v("a-wefrom"); d.weTo = v("a-weto"); }
  if ($("a-wd")) { d.wd = v("a-wd"); d.we = v("a-we"); }
  if ($("a-school")) { d.school = v("a-school"); d.off = v("a-off"); }
  for (const x of DAYS) if ($("a-day-" + x)) d.days[x] = v("a-day-" + x);
  const reshaped = category !== d.category || hours !== d.hours || limitMode !== d.limitMode;
  d.category = category; d.hours = hours; d.limitMode = limitMode;
  if (reshaped) { if (category === "reward") suggest(d); drawAppSheet(); }
  else { const { problems } = setupFromDraft(d); $("a-problems").textContent = problems.join(" · "); $("a-save").disabled = problems.length > 0; }
}
function drawAppSheet() {
  const reply = appsReply(), current = reply && reply.policy ? reply.policy.revision : 0;
  $("appedit").innerHTML = appDraft ? appSheet(appDraft, current) : "";
  if (!appDraft) return;
  wirePickers($("appedit"));
  // No icon to be had: the letter tile.
  const img = $("appedit").querySelector("img.appicon");
  if (img) img.onerror = () => { const t = document.createElement("span"); t.className = "appicon tile"; t.id = "a-icon"; t.textContent = img.dataset.letter; img.replaceWith(t); };
  if (!appDraft.adding && installedApps === null) loadInstalled();
  $("appsheet").scrollIntoView({ block: "nearest" });
  for (const e of $("appedit").querySelectorAll("input, select")) { e.oninput = readDraft; e.onchange = readDraft; }
  $("a-cancel").onclick = () => { appDraft = null; drawAppSheet(); };
  if ($("a-addseveral")) $("a-addseveral").onclick = addSeveral;
  $("a-save").onclick = async () => {
    readDraft();
    const { setup, problems } = setupFromDraft(appDraft);
    if (problems.length) return toast(problems.join(" · "), true);
    const reply = await send({ appPut: { setup, adding: appDraft.adding, revision: appDraft.revision } });
    if (reply && reply.ok) { appDraft = null; drawAppSheet(); }
    else if (reply && reply.error && reply.error.message.startsWith("the apps changed since")) {
      // Nothing is lost: the sheet stays as typed, now over the newer policy; saving again applies it.
      const fresh = appsReply(); if (fresh && fresh.policy) appDraft.revision = fresh.policy.revision;
      drawAppSheet();
      $("a-problems").textContent = "The apps were changed elsewhere meanwhile (see the list). Your changes are still here: Save again to apply them.";
    }
  };
}
// A child's phone: their own apps today, the minutes left, and asking for more (as the notifier
// and 'apps ask' do); nothing about anyone else reaches it.
const asking = { app: null, minutes: 15 };
function renderChildApps() {
  const reply = appsReply(), mine = reply ? reply.apps : [];
  const requests = (payload(S.appRequests, "apps") || {}).requests || [];
  const left = (a) => a.limitMinutes == null ? null : Math.max(0, a.limitMinutes - a.usedMinutes);
  let h = '<div class="sheet" id="myapps"><h3>Your apps today</h3>';
  if (!reply) h += '<p class="note">' + say(S.apps && S.apps.error ? S.apps.error.message : "The app limits are not loaded.") + "</p>";
  else if (!mine.length) h += '<p class="note">No app limits you today.</p>';
  else h += "<table>" + mine.map((a, i) => "<tr><td><b>" + esc(a.name) + "</b></td><td>" + (a.allowed ? "allowed" : "blocked") +
    '<div class="note">' + say(a.reason) + "</div></td><td>" + (left(a) == null ? "no daily limit" :
      '<span class="left">' + left(a) + " min left</span>" + '<div class="note">' + a.usedMinutes + " of " + a.limitMinutes + " used</div>") +
    '</td><td><button data-ask="' + i + '">Ask for more</button></td></tr>').join("") + "</table>";
  h += "</div>";
  if (requests.length) h += '<div class="sheet" id="myasks"><h3>What you asked today</h3>' + requests.map((r) =>
    '<div class="row">' + r.minutes + " more minutes of " + esc(r.app) + (r.why ? " — “" + esc(r.why) + "”" : "") + ' <span class="note">' + esc(fmtDate(r.askedAt)) +
    "</span> <b>" + (r.state === "waiting" ? "waiting for an answer" : r.state === "approved" ? "approved" : "not this time") + "</b></div>").join("") + "</div>";
  $("appslist").innerHTML = h;
  for (const b of $("appslist").querySelectorAll("button[data-ask]")) b.onclick = () => { asking.app = mine[Number(b.dataset.ask)].name; asking.minutes = 15; drawAskSheet(); };
}
function drawAskSheet() {
  if (!asking.app) { $("appedit").innerHTML = ""; return; }
  $("appedit").innerHTML = '<div class="sheet" id="asksheet"><h3>More time for ' + esc(asking.app) + "</h3>" +
    '<div class="row">How many more minutes? ' + [15, 30, 45, 60].map((m) =>
      '<button data-minutes="' + m + '" aria-pressed="' + (m === asking.minutes) + '"' + (m === asking.minutes ? ' class="primary"' : "") + ">" + m + "</button>").join("") + "</div>" +
    '<div class="row"><label>Why (if you like) <input id="ask-why" maxlength="200" placeholder="homework, a call with a friend"></label></div>' +
    '<div class="row"><button class="primary" id="ask-send">Ask</button><button id="ask-cancel">Cancel</button></div></div>';
  for (const b of $("appedit").querySelectorAll("button[data-minutes]")) b.onclick = () => {
    asking.minutes = Number(b.dataset.minutes);
    for (const o of $("appedit").querySelectorAll("button[data-minutes]")) { o.classList.toggle("primary", o === b); o.setAttribute("aria-pressed", String(o === b)); }
  };
  $("ask-cancel").onclick = () => { asking.app = null; drawAskSheet(); };
  $("ask-send").onclick = async () => {
    const why = $("ask-why").value.trim();
    const ask = { name: asking.app, minutes: asking.minutes };
    if (why) ask.why = why;
    const reply = await send({ appAsk: ask }, true);
    if (!reply || !reply.ok) return;
    toast("Asked for " + asking.minutes + " more minutes of " + asking.app + ": the answer shows here");
    asking.app = null; drawAskSheet();
  };
}
function renderApps() {
  if (!$("appslist")) $("apps").innerHTML = '<div id="appslist"></div><div id="appedit"></div>';
  if (childName()) return renderChildApps();
  const reply = appsReply();
  if (!reply) { $("appslist").innerHTML = '<p class="note">' + say(S.apps && S.apps.error ? S.apps.error.message : "No app limits.") + "</p>"; return; }
  const admin = isAdmin(), today = reply.apps, policy = reply.policy, requests = (payload(S.appRequests, "apps") || {}).requests || [];
  let h = "";
  if (reply.rejected) h += '<p class="note" style="color:var(--bad)">apps.toml refused: ' + esc(reply.rejected) + "</p>";
  const waiting = requests.filter((r) => r.state === "waiting");
  // A request for an app outside its hours: minutes would not open it, said before the tap.
  const closed = (r) => today.find((a) => a.name === r.app && a.user === r.user && a.outsideWindow);
  if (admin && waiting.length) h += '<div class="sheet" id="apprequests"><h3>Asking for more time</h3>' + waiting.map((r) =>
    '<div class="row request"><span>' + esc(r.user) + " asks for " + r.minutes + " more minutes of " + esc(r.app) + (r.why ? " — “" + esc(r.why) + "”" : "") +
    ' <span class="note">' + esc(fmtDate(r.askedAt)) + "</span>" + (closed(r) ? '<br><span class="bad closed">' + esc(r.app) + " is " + esc(closed(r).reason) +
      ". “Open now” lets " + esc(r.user) + " use it from now for " + r.minutes + " minutes; approved for later, the minutes wait until its hours come.</span>" : "") + "</span>" +
    (closed(r) ? '<button class="primary" data-open="' + r.id + '">Open now for ' + r.minutes + " min</button>" : "") +
    '<button' + (closed(r) ? "" : ' class="primary"') + ' data-approve="' + r.id + '">' +
    (closed(r) ? "Approve for later" : "Approve") + '</button><button data-refuse="' + r.id + '">Refuse</button></div>').join("") + "</div>";
  // Grouped by app: its name once, its people under it.
  const byApp = today.map((a, i) => [a, i]).sort((x, y) => x[0].name.localeCompare(y[0].name) || x[1] - y[1]);
  h += '<div class="sheet"><h3>Today</h3>' + (today.length ? '<table id="apptoday">' + byApp.map(([a, i], k) => '<tr class="' + (k && byApp[k - 1][0].name === a.name ? "same-app" : "app-first") + '"><td>' +
    (k && byApp[k - 1][0].name === a.name ? "" : "<b>" + esc(a.name) + "</b>") + "</td><td>" + esc(a.user) +
    "</td><td>" + (a.allowed ? "allowed" : "blocked") + '<div class="note">' + say(a.reason) + "</div></td><td>" + a.usedMinutes +
    (a.limitMinutes != null ? " of " + a.limitMinutes : "") + " min</td>" +
    (admin ? '<td><button data-app="' + i + '">+15 min</button></td>' : "") + "</tr>").join("") + "</table>" : '<p class="note">No app limits anyone today.</p>') + "</div>";
  if (admin && policy) {
    const unset = policy.apps.filter((a) => !a.configured);
    h += '<div class="sheet" id="applist"><h3>Apps</h3>';
    if (unset.length) h += '<p class="note" id="a-unset" style="color:var(--bad)">⚠️ ' + unset.length + (unset.length === 1 ? " app is" : " apps are") +
      " not configured, and blocked until set up: " + esc(unset.map((a) => a.name).join(", ")) + "</p>";
    for (const c of policy.conflicts) h += '<p class="note" style="color:var(--bad)">' + esc(c) + "</p>";
    // A machine that follows the household's hub shows its policy, and changes it there only.
    if (policy.hub) h += '<p class="note" id="a-hub">The household\'s policy, from its hub ' + esc(policy.hub) +
      (policy.hubSince ? " since " + esc(policy.hubSince) : "") + ": change it there.</p>";
    const editable = !policy.hub;
    // Each app a card whose border says its state (the per-app design): grey until it is set up
    // ("Tap to configure": the card opens its sheet), blue once it is, with its summary.
    h += "<table>" + policy.apps.map((a, i) => '<tr class="appcard ' + (a.configured ? "app-set" : "app-unset") + '" data-name="' + esc(a.name) + '"' +
      (editable && !a.configured ? ' data-configure="' + i + '"' : "") + "><td>" + esc(a.name) + (a.category ? ' <span class="note">' + esc(a.category) + "</span>" : "") +
      '</td><td><span class="summary">' + esc(a.summary) + "</span>" + (editable && !a.configured ? '<div class="note tapnote">Tap to configure</div>' : "") + "</td><td>" + (editable ? '<button data-edit="' + i + '">Edit</button> <button class="danger" data-remove="' + i + '">Remove</button>' : "") + "</td></tr>").join("") +
      "</table>" + (editable ? '<div class="row"><button id="a-add">Add an app</button></div>' : "") +
      (policy.differsFromFile.length ? '<p class="note">Changed here since ' + esc(policy.file) + " was edited: " + esc(policy.differsFromFile.join(", ")) + "</p>" : "") + "</div>";
  }
  $("appslist").innerHTML = h;
  for (const b of $("appslist").querySelectorAll("button[data-app]")) b.onclick = () => {
    const a = today[Number(b.dataset.app)]; send({ appGrant: { name: a.name, minutes: 15, user: a.user } });
  };
  for (const b of $("appslist").querySelectorAll("button[data-approve]")) b.onclick = () => send({ appAnswer: { id: Number(b.dataset.approve), approve: true } });
  for (const b of $("appslist").querySelectorAll("button[data-open]")) b.onclick = () => send({ appAnswer: { id: Number(b.dataset.open), approve: true, openNow: true } });
  for (const b of $("appslist").querySelectorAll("button[data-refuse]")) b.onclick = () => send({ appAnswer: { id: Number(b.dataset.refuse), approve: false } });
  for (const b of $("appslist").querySelectorAll("button[data-edit]")) b.onclick = () => { appDraft = draftFrom(policy.apps[Number(b.dataset.edit)], policy.revision); drawAppSheet(); };
  for (const row of $("appslist").querySelectorAll("tr[data-configure]")) row.onclick = (e) => {
    if (e.target.closest("button")) return;
    appDraft = draftFrom(policy.apps[Number(row.dataset.configure)], policy.revision); drawAppSheet();
  };
  for (const b of $("appslist").querySelectorAll("button[data-remove]")) b.onclick = () => {
    const a = policy.apps[Number(b.dataset.remove)];
    if (confirm("Remove " + a.name + "? It will no longer be limited.")) send({ appRemove: { name: a.name, revision: policy.revision } });
  };
  // The list is read anew each time: an app limited since the last sheet shows as limited.
  if ($("a-add")) $("a-add").onclick = () => { appDraft = draftFrom(null, policy.revision); installedApps = null; drawAppSheet(); loadInstalled(); };
  // The sheet is redrawn only to say the policy changed under it; what is typed stays.
  if (appDraft && policy && appDraft.revision !== policy.revision && !$("a-stale") && !appDraft.adding) drawAppSheet();
}

// ---- More: calendars, tags, history ----
// Read when the tab opens and after each change (not part of /api/state: the clock face needs none).
const more = { calendars: null, history: null, stats: null, tagWait: false, tagNote: "", askedAt: 0, poll: null };
const isWeb = (c) => /^https?:\/\//.test(c.source);
async function loadMore() {
  const [calendars, history, stats] = await Promise.all([send({ calendarList: {} }, true, true), send({ history: { days: 14 } }, true, true),
    send({ stats: { days: 30 } }, true, true)]);
  more.calendars = calendars; more.history = history; more.stats = stats;
  if (view === "more") renderMore();
}
function renderMore() {
  // What is typed, chosen or opened in the forms stays across a redraw (a change elsewhere redraws).
  const typed = [...$("more").querySelectorAll("input[id], select[id], details[id]")].map((e) =>
    [e.id, e.type === "checkbox" ? e.checked : e.tagName === "DETAILS" ? e.open : e.value]);
  renderMoreViews();
  for (const [id, value] of typed) {
    const e = $(id);
    if (!e) continue;
    if (e.type === "checkbox") e.checked = value; else if (e.tagName === "DETAILS") e.open = value; else e.value = value;
  }
}
function renderMoreViews() {
  const admin = isAdmin(), purpose = { holidays: "holidays", reminders: "reminders" };
  // Calendars: what each brings, when it was read, what is wrong.
  const cals = more.calendars && more.calendars.ok ? more.calendars.payload.calendars : null;
  let h = "<h3>Calendars</h3>";
  if (!cals) h += '<p class="note">' + say(more.calendars && more.calendars.error ? more.calendars.error.message : "Reading…") + "</p>";
  else if (!cals.length) h += '<p class="note">No calendars. A holiday calendar keeps alarms that skip holidays silent on its days.</p>';
  else h += "<table>" + cals.map((c) => "<tr><td><b>" + esc(c.name) + '</b> <span class="note">' + esc(purpose[c.purpose] || c.purpose) + (c.person ? " for " + esc(c.person) : "") + "</span>" +
    // A web calendar by its address; a file on the clock by its name, not its path.
    '<div class="note">' + esc(isWeb(c) ? c.source : "a file on the clock: " + String(c.source).split("/").pop()) + "</div></td><td>" +
    (c.purpose === "holidays" ? c.upcomingDays + " holiday days ahead" + (c.next ? '<div class="note">next: ' + esc(fmtDate(c.next.slice(0, 10)) + c.next.slice(10)) + "</div>" : "")
      : (c.next ? "next: " + esc(fmtDate(c.next.slice(0, 10)) + c.next.slice(10)) : "nothing ahead")) +
    (c.filter ? '<div class="note">' + esc(c.filter) + "</div>" : "") + "</td><td>" +
    (c.problem ? '<span class="bad">' + say(c.problem) + "</span>" : "read " + esc(c.loadedAt ? fmtDate(c.loadedAt) : "never")) +
    (isWeb(c) ? '<div class="note fetch">' + (c.fetchAsked ? "Fetching now (asked at " + esc(fmtDate(c.fetchAsked)) + ")…"
      : "fetched " + esc(c.fetchedAt ? fmtDate(c.fetchedAt) : "never") + (c.nextFetch ? " · next about " + esc(fmtDate(c.nextFetch)) : "")) + "</div>" : "") + "</td>" +
    (admin ? '<td><button class="danger" data-calrm="' + esc(c.name) + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
  const web = (cals || []).filter(isWeb);
  if (admin && web.length) h += '<div class="row"><button id="c-refresh">Refresh now</button><span class="note">The web calendars are fetched every six hours.</span></div>';
  // While a fetch is under way, read again every 5 s (for two minutes at most) to show it arrive.
  if (view === "more" && web.some((c) => c.fetchAsked) && !more.poll && Date.now() - more.askedAt < 120000)
    more.poll = setTimeout(() => { more.poll = null; if (view === "more") loadMore(); }, 5000);
  if (admin) h += '<div class="row"><input id="c-name" placeholder="name, like school" maxlength="40"><input id="c-url" placeholder="https://… .ics" style="min-width:14em">' +
    '<select id="c-purpose"><option value="holidays">holidays</option><option value="reminders">reminders</option></select><button class="primary" id="c-add">Add calendar</button></div>' +
    '<details id="c-options"><summary>Which events count, and when reminders chime</summary>' +
    '<div class="row"><label>Only events whose title has <input id="c-only" placeholder="like break, holiday, no school" maxlength="400"></label></div>' +
    '<div class="row"><label>never if it has <input id="c-except" placeholder="like night, meeting" maxlength="400"></label>' +
    '<label><input type="checkbox" id="c-timed"> timed events are holidays too (not only all-day)</label></div>' +
    '<div class="row"><label>Reminders chime <input id="c-minutes" placeholder="15" maxlength="40" style="width:7em"> minutes before each event</label>' +
    '<label>for ' + personPicker("c-for", "") + "</label>" +
    '<label>with ' + choice("c-sound", soundChoices("the clock's chime"), "") +
    "</label></div></details>" +
    '<div class="note">A web address (https://…). A file on the clock is added with the reveille command.</div>';
  $("calendars").innerHTML = h;
  wirePeople($("calendars"));
  if (admin && people === null) { people = []; loadPeople(); }
  // Tags: the registered ones, and one registered by its tap.
  const tags = payload(S.tags, "tags") || [];
  h = "<h3>Tags</h3>" + (tags.length ? "<table>" + tags.map((t) => "<tr><td><b>" + esc(t.label) + '</b></td><td class="note">' + esc(t.uid) + "</td>" +
    (admin ? '<td><button class="danger" data-tagrm="' + esc(t.label) + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>"
    : '<p class="note">No tags yet. A tag on the far side of the room is the surest way out of bed.</p>');
  if (admin) h += '<div class="row"><input id="t-label" placeholder="name, like kitchen" maxlength="40"><button class="primary" id="t-tap"' + (more.tagWait ? " disabled" : "") +
    ">Register a tag</button></div>" + '<p class="note" id="t-wait">' + esc(more.tagWait ? "Tap the tag on the reader now…" : more.tagNote || "Then tap the tag on the clock's reader within 30 seconds.") + "</p>" +
    '<div class="row"><input id="t-uid" placeholder="or type its UID (hex), with no reader" maxlength="40"><button id="t-add">Add by UID</button></div>';
  $("tagsview").innerHTML = h;
  // History and stats.
  const list = more.history && more.history.ok ? more.history.payload.history || [] : [];
  const stats = more.stats && more.stats.ok ? more.stats.payload.stats : null;
  const how = { math: "math", nfc: "tag", tag: "tag", timeout: "stopped by itself" };
  h = "<h3>The last 14 days</h3>" + (list.length ? "<table>" + list.slice().reverse().map((e) => "<tr><td>" + esc(fmtDate(e.scheduled)) + "</td><td>" +
    esc(alarmWords(e.alarmID, e.label)) + "</td><td>" + esc(e.state) + (e.dismissedBy ? " by " + esc(how[e.dismissedBy] || e.dismissedBy) : "") +
    (e.snoozes ? ", " + e.snoozes + " snooze" + (e.snoozes === 1 ? "" : "s") : "") +
    (e.wrongAnswers ? ", " + e.wrongAnswers + " wrong answer" + (e.wrongAnswers === 1 ? "" : "s") : "") +
    (e.wakeCheck === "failed" ? '<div class="bad h-check">“Are you up?” went unanswered: it rang again</div>'
      : e.wakeCheck === "passed" ? '<div class="note h-check">answered “Are you up?”</div>' : "") +
    (e.secondsToDismiss != null ? '<div class="note">up in ' + esc(duration(e.secondsToDismiss)) + "</div>" : "") + "</td></tr>").join("") + "</table>"
    : '<p class="note">' + (more.history && more.history.error ? say(more.history.error.message) : "No rings yet.") + "</p>");
  if (stats) h += '<p id="stats">30 days: ' + stats.sessions + " rings, " + stats.dismissed + " dismissed, " + stats.missed + " missed" +
    (stats.averageSnoozes != null ? ", " + stats.averageSnoozes.toFixed(1) + " snoozes on average" : "") +
    (stats.averageSecondsToDismiss != null ? ", up in " + duration(Math.round(stats.averageSecondsToDismiss)) + " on average" : "") + ".</p>";
  $("historyview").innerHTML = h;
  // The network: what it is, and (admins) another Wi-Fi.
  const net = (payload(S.status, "status") || {}).network;
  h = "<h3>Network</h3><p>" + (net ? (net.online ? "Connected." : '<span class="bad">' + say(net.words) + "</span>")
    : '<span class="note">This clock does not follow its network (no systemd-networkd).</span>') + "</p>";
  if (admin) h += '<div class="row"><button id="n-wifi">Wi-Fi…</button><span class="note">See the networks the clock hears, and move it to another.</span></div>';
  $("networkview").innerHTML = h;
  if ($("n-wifi")) $("n-wifi").onclick = () => openWifi("more");
  if (!admin) return;
  for (const b of $("more").querySelectorAll("button[data-calrm]")) b.onclick = async () => {
    if (confirm("Remove the calendar " + b.dataset.calrm + "?")) { await send({ calendarRemove: { calendar: b.dataset.calrm } }); loadMore(); }
  };
  for (const b of $("more").querySelectorAll("button[data-tagrm]")) b.onclick = () => {
    if (confirm("Remove the tag " + b.dataset.tagrm + "? Alarms that take only it then take any registered tag.")) send({ tagRemove: { label: b.dataset.tagrm } });
  };
  if ($("c-refresh")) $("c-refresh").onclick = async () => { more.askedAt = Date.now(); await send({ calendarFetchNow: {} }); loadMore(); };
  $("c-add").onclick = async () => {
    const add = { name: $("c-name").value.trim(), source: $("c-url").value.trim(), purpose: $("c-purpose").value };
    const text = (id) => $(id).value.trim();
    // Words to keep or leave out, for both kinds (the holidays, or the events that chime).
    // Words a person lists with commas ("break, holiday") are the daemon's patterns ("break|holiday").
    const words = (id) => text(id).split(/\s*[,|]\s*/).filter(Boolean).join("|");
    if (text("c-only")) add.only = words("c-only");
    if (text("c-except")) add.except = words("c-except");
    if (add.purpose === "holidays") {
      if ($("c-timed").checked) add.timed = true;
    } else {
      if (text("c-minutes")) add.minutes = text("c-minutes").split(/[\s,]+/).filter(Boolean).map(Number);
      if (text("c-for")) add.person = text("c-for");
      if ($("c-sound").value) add.sounds = Object.fromEntries((add.minutes || [15]).map((m) => [String(m), $("c-sound").value]));
    }
    const reply = await send({ calendarAdd: add });
    if (reply && reply.ok) for (const id of ["c-name", "c-url", "c-only", "c-except", "c-minutes", "c-for"]) $(id).value = "";
    loadMore();
  };
  $("t-add").onclick = async () => {
    const label = $("t-label").value.trim(), uid = $("t-uid").value.trim();
    if (!label || !uid) return toast("Give the tag a name and its UID, like 04A1B2C3", true);
    const reply = await send({ tagAdd: { label, uid, timeoutSeconds: 0 } });
    more.tagNote = reply && reply.ok ? "Registered “" + label + "”." : "";
    if (reply && reply.ok) { $("t-label").value = ""; $("t-uid").value = ""; }
  };
  $("t-tap").onclick = async () => {
    const label = $("t-label").value.trim();
    if (!label) return toast("Give the tag a name first, like kitchen", true);
    more.tagWait = true; renderMore();
    const reply = await send({ tagAdd: { label, timeoutSeconds: 30 } }, true);
    more.tagWait = false;
    more.tagNote = reply && reply.ok ? "Registered “" + label + "”." : reply && reply.error ? personWords(reply.error.message) : "";
    if (reply && reply.ok) $("t-label").value = "";
    renderMore();
  };
}

// ---- Views ----
function show(name) {
  view = name;
  for (const id of ["clock", "month", "lists", "apps", "more"]) $(id).hidden = id !== name;
  if (name === "more") loadMore();
  if (name === "more" && soundFiles === null) loadSounds();
  if (name === "lists" && soundFiles === null) loadSounds();
  $("pairing").hidden = true;
  for (const b of document.querySelectorAll("nav button[data-view]")) b.classList.toggle("on", b.dataset.view === name);
  if (S) render();
}
for (const b of document.querySelectorAll("nav button[data-view]")) b.onclick = () => show(b.dataset.view);
// ---- The first boot's set-up (the kiosk only, while the clock asks): where it is, then a phone ----
const setup = { filled: false, pairing: false };
function zoneNames() {
  try { return Intl.supportedValuesOf("timeZone").filter((z) => z.includes("/") && !z.startsWith("Etc/")); }
  catch (e) { return ["Europe/London"]; }
}
function fillPlaces() {
  const region = $("setupregion").value;
  $("setupplace").innerHTML = zoneNames().filter((z) => z.split("/")[0] === region).map((z) =>
    '<option value="' + esc(z) + '">' + esc(z.slice(region.length + 1).replace(/_/g, " ").replace(/\//g, " / ")) + "</option>").join("");
}
function fillSetup() {
  const regions = [...new Set(zoneNames().map((z) => z.split("/")[0]))];
  $("setupregion").innerHTML = regions.map((r) => '<option value="' + esc(r) + '">' + esc(r) + "</option>").join("");
  $("setupregion").value = regions.includes("Europe") ? "Europe" : regions[0];
  fillPlaces();
  setup.filled = true;
}
$("setupregion").onchange = fillPlaces;
// A phone on the clock's own set-up network (a clock with no screen), paired as an admin with the
// code the clock said, sets it up the same way.
const onSetupNetwork = () => { const st = payload(S && S.status, "status"); return !!st && !!st.setupNetwork && isAdmin(); };
function renderSetup() {
  const st = payload(S && S.status, "status");
  const asking = !!st && !!st.setupPending && (CFG.access === "kiosk" || onSetupNetwork());
  if (asking && !setup.filled) {
    fillSetup();
    // The phone's own zone, where this clock knows it.
    const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (onSetupNetwork() && zoneNames().includes(own)) {
      $("setupregion").value = own.split("/")[0]; fillPlaces(); $("setupplace").value = own;
    }
  }
  $("setup").hidden = !(asking || setup.pairing);
  $("setupzone").hidden = setup.pairing;
  $("setuppair").hidden = !setup.pairing;
}
// The zone is kept until the Wi-Fi is joined or skipped: then the set-up is done, and the code shown.
$("setupset").onclick = async () => {
  setup.zone = $("setupplace").value;
  if (!onSetupNetwork()) return openWifi("setup");
  // From a phone on the set-up network the zone is set now: once the clock joins the household's
  // network, this phone loses it.
  const reply = await send({ firstSetup: { timeZone: setup.zone } }, true);
  if (reply && reply.ok) { setup.phone = payload(S.status, "status").setupNetwork; openWifi("phone"); }
};
async function finishSetup(joined) {
  const reply = await send({ firstSetup: { timeZone: setup.zone } }, true);
  const web = payload(reply, "web");
  if (!web) return;
  await load();  // where a phone opens the page now, on the network just joined
  const phones = (S && S.phones) || CFG.phones || [];
  $("setupwhere").innerHTML = (joined ? "Joined “" + esc(joined) + "”. " : "") + (phones.length
    ? "On a phone on this network, open " + phones.map((p) => "<b>" + esc(p) + "</b>").join(" or ") + " and type:"
    : "This clock's page is on the clock only for now; once an admin opens it to the home network, a phone opens it and types:");
  $("setupcode").textContent = web.code;
  setup.pairing = true;
  renderSetup();
}
$("setupdone").onclick = () => { setup.pairing = false; renderSetup(); };

// ---- The Wi-Fi: which network, its password, joining (the first set-up; More → Network, admins) ----
// The daemon scans and joins through the system's Wi-Fi service; its words say what went wrong.
const wifi = { mode: null, nets: null, scanning: false, picked: null, joining: null, error: "", note: "" };
function openWifi(mode) {
  Object.assign(wifi, { mode, nets: null, picked: null, joining: null, error: "", note: "" });
  renderWifi();
  wifiScan();
}
function closeWifi() { wifi.mode = null; hideKeyboard(); renderWifi(); }
// `keep`: what went wrong stays said while the list is read again.
async function wifiScan(keep) {
  wifi.scanning = true; if (keep !== true) wifi.error = ""; renderWifi();
  const reply = await send({ wifiScan: {} }, true, true);
  wifi.scanning = false;
  const found = payload(reply, "wifi");
  if (found) { wifi.nets = found.networks; wifi.note = reply.message || ""; }
  else wifi.error = reply && reply.error ? reply.error.message : "The clock did not answer; try again";
  renderWifi();
}
async function wifiJoin() {
  const net = wifi.picked;
  if (!net || wifi.joining) return;
  const password = net.locked ? $("wifipw").value : null;
  if (net.locked && !password) { wifi.error = "Type the password of “" + net.name + "” first"; renderWifi(); return; }
  hideKeyboard();
  wifi.joining = net.name; wifi.error = ""; renderWifi();
  if (wifi.mode === "phone") {
    wifi.note = "The clock now leaves “" + setup.phone + "” to join “" + net.name + "”, and says its new address aloud. " +
      "Put this phone back on “" + net.name + "”, then open http://reveille.local:" + (location.port || "80") + "/. " +
      "If it says the password was wrong, “" + setup.phone + "” comes back: join it again.";
    renderWifi();
  }
  const reply = await send({ wifiJoin: { network: net.name, password } }, true, true);
  wifi.joining = null;
  if (!reply && wifi.mode === "phone") { renderWifi(); return; }  // the set-up network went: as said
  if (!reply || !reply.ok) {
    wifi.error = reply && reply.error ? reply.error.message : "The clock did not answer; try again";
    // A wrong password is typed again; any other failure goes back to the list.
    if (!/wrong password/.test(wifi.error)) { wifi.picked = null; wifiScan(true); }
    renderWifi();
    return;
  }
  const mode = wifi.mode;
  $("wifipw").value = "";
  closeWifi();
  if (mode === "phone") { setup.pairing = false; setup.filled = false; toast(reply.message); return; }
  if (mode === "setup") finishSetup(net.name);
  else { toast(reply.message); load(); if (view === "more") loadMore(); }
}
// A padlock drawn, not a character: the clock's fonts (DejaVu) have no emoji.
const LOCK = '<svg class="lock" role="img" aria-label="needs a password" viewBox="0 0 16 16" width="18" height="18">' +
  '<path fill="currentColor" d="M4 7V5a4 4 0 0 1 8 0v2h1v8H3V7zm2 0h4V5a2 2 0 0 0-4 0z"/></svg> ';
function bars(n) { return "▮".repeat(n) + "▯".repeat(4 - n); }
function renderWifi() {
  $("wifi").hidden = !wifi.mode;
  if (!wifi.mode) return;
  const busy = wifi.scanning || !!wifi.joining, picked = wifi.picked;
  const st = payload(S && S.status, "status");
  $("wifititle").textContent = picked ? "The password of “" + picked.name + "”" : "Which Wi-Fi?";
  // With no adapter (or no service) there is nothing to tap: only what is wrong.
  $("wifinote").hidden = (!!picked && wifi.mode !== "phone") || (wifi.nets === null && !!wifi.error);
  $("wifinote").textContent = wifi.mode === "phone" && wifi.joining ? wifi.note : wifi.mode !== "more"
    ? (st && st.network && st.network.online ? "This clock is on the network by cable already; Wi-Fi is optional. "
      : "Phones, calendars and the clock's time need the home network; alarms ring without it. ") + "Tap yours."
    : "Tap a network to move the clock to it; the one it is on is marked.";
  const nets = wifi.nets || [];
  $("wifilist").hidden = !!picked;
  $("wifilist").innerHTML = nets.map((n, i) => '<button data-net="' + i + '"' + (n.enterprise || busy ? " disabled" : "") + "><span>" +
    esc(n.name) + (n.current ? ' <span class="on">✓ on it</span>' : "") + (n.enterprise ? ' <span class="note">needs more than a password</span>' : "") +
    '</span><span class="bars">' + (n.locked ? LOCK : "") + bars(n.bars) + "</span></button>").join("");
  for (const b of $("wifilist").querySelectorAll("button[data-net]")) b.onclick = () => {
    wifi.picked = nets[Number(b.dataset.net)]; wifi.error = "";
    if (!wifi.picked.locked) { renderWifi(); wifiJoin(); return; }
    renderWifi(); $("wifipw").focus();
    if (CFG.screen) showKeyboard($("wifipw"));
  };
  $("wifipass").hidden = !picked || !picked.locked;
  $("wifipw").disabled = busy;
  $("wifishow").textContent = $("wifipw").type === "password" ? "Show" : "Hide";
  const state = $("wifistate");
  state.className = wifi.error ? "bad" : "note";
  state.textContent = wifi.error ? personWords(wifi.error)
    : wifi.joining ? "Joining “" + wifi.joining + "”… (up to 30 seconds)"
    : wifi.scanning ? "Listening for networks…"
    : wifi.nets && !nets.length ? personWords(wifi.note || "No network heard") : "";
  $("wifiback").hidden = !picked;
  $("wifiagain").hidden = !!picked;
  $("wifijoin").hidden = !picked;
  for (const id of ["wifiback", "wifiagain", "wifijoin"]) $(id).disabled = busy;
  $("wifiskip").disabled = !!wifi.joining;
  $("wifiskip").hidden = wifi.mode === "phone";
  $("wifiskip").textContent = wifi.mode === "more" ? "Close" : wifi.nets === null && !wifi.scanning ? "Continue without Wi-Fi" : "Skip: a cable, or later";
}
$("wifishow").onclick = () => { const pw = $("wifipw"); pw.type = pw.type === "password" ? "text" : "password"; renderWifi(); pw.focus(); };
$("wifiback").onclick = () => { wifi.picked = null; wifi.error = ""; $("wifipw").value = ""; hideKeyboard(); renderWifi(); };
$("wifiagain").onclick = () => wifiScan();
$("wifijoin").onclick = wifiJoin;
$("wifipw").addEventListener("keydown", (e) => { if (e.key === "Enter") wifiJoin(); });
$("wifiskip").onclick = () => { const mode = wifi.mode; closeWifi(); if (mode === "setup") finishSetup(null); };

// ---- The page's own keyboard: on the clock's screen (it has none), for every text field ----
// Keys are pressed without taking the focus from the field; what they type goes where its caret is.
const chars = (text) => [...text];
const KEYS = {
  abc: [chars("qwertyuiop"), chars("asdfghjkl"), ["⇧", ...chars("zxcvbnm"), "⌫"], ["123", ",", " ", ".", "✓"]],
  ABC: [chars("QWERTYUIOP"), chars("ASDFGHJKL"), ["⇧", ...chars("ZXCVBNM"), "⌫"], ["123", ",", " ", ".", "✓"]],
  123: [chars("1234567890"), chars("-/:;()$&@\""), ["#+=", ...chars(".,?!'_"), "⌫"], ["abc", ",", " ", ".", "✓"]],
  "#+=": [chars("[]{}#%^*+="), chars("_\\|~<>`"), ["123", ...chars(".,?!'"), "⌫"], ["abc", ",", " ", ".", "✓"]],
};
const osk = { layer: "abc", target: null };
const typedField = (e) => e && e.tagName === "INPUT" && ["text", "password", "search", "url", "email", ""].includes(e.type || "");
function drawKeyboard() {
  const rows = KEYS[osk.layer].map((keys) => {
    return '<div class="keys">' + keys.map((k) => {
      const cls = k === " " ? "space" : k.length > 1 || "⇧⌫✓".includes(k) ? "wide" : "";
      const label = k === " " ? "space" : k === "✓" ? "Done" : k;
      return '<button type="button" class="' + cls + '" data-key="' + esc(k) + '">' + esc(label) + "</button>";
    }).join("") + "</div>";
  });
  $("osk").innerHTML = rows.join("");
}
function typeKey(key) {
  const field = osk.target;
  if (!field || !document.body.contains(field)) return hideKeyboard();
  if (key === "✓") { field.blur(); return hideKeyboard(); }
  if (key === "⇧") { osk.layer = osk.layer === "abc" ? "ABC" : "abc"; return drawKeyboard(); }
  if (key === "123" || key === "abc" || key === "#+=") { osk.layer = key; return drawKeyboard(); }
  const start = field.selectionStart ?? field.value.length, end = field.selectionEnd ?? field.value.length;
  if (key === "⌫") {
    if (start === end && start > 0) field.setRangeText("", start - 1, end, "end"); else field.setRangeText("", start, end, "end");
  } else if (!field.maxLength || field.maxLength < 0 || field.value.length < field.maxLength) {
    field.setRangeText(key, start, end, "end");
    if (osk.layer === "ABC") { osk.layer = "abc"; drawKeyboard(); }
  }
  field.dispatchEvent(new Event("input", { bubbles: true }));
}
function showKeyboard(field) {
  osk.target = field;
  if ($("osk").hidden || osk.numeric !== (field.inputMode === "numeric")) {
    osk.numeric = field.inputMode === "numeric";
    osk.layer = osk.numeric ? "123" : "abc";
    drawKeyboard();
  }
  $("osk").hidden = false;
  document.body.classList.add("typing");
  // The field stays in sight above the keys: its sheet (or the page) scrolls it up.
  requestAnimationFrame(() => {
    const f = field.getBoundingClientRect(), top = $("osk").getBoundingClientRect().top;
    const room = field.closest("#wifi, #setup") || document.scrollingElement;
    if (f.bottom > top - 8) room.scrollBy(0, f.bottom - top + 16);
    else if (f.top < 0) room.scrollBy(0, f.top - 16);
  });
}
function hideKeyboard() { $("osk").hidden = true; osk.target = null; document.body.classList.remove("typing"); }
$("osk").addEventListener("pointerdown", (e) => {
  const b = e.target.closest("button[data-key]");
  e.preventDefault();  // the field keeps the focus
  if (b) typeKey(b.dataset.key);
});
if (CFG.screen) {
  // The keys come up for a field a finger touched (or one that asks for typing at once, as the
  // Wi-Fi's password), not for one a sheet merely focused as it opened.
  document.addEventListener("pointerdown", (e) => { osk.touched = typedField(e.target) ? e.target : null; }, true);
  document.addEventListener("focusin", (e) => { if (typedField(e.target) && osk.touched === e.target) showKeyboard(e.target); });
  document.addEventListener("click", (e) => { if (typedField(e.target) && $("osk").hidden) showKeyboard(e.target); });
  document.addEventListener("focusout", (e) => {
    setTimeout(() => { if (!typedField(document.activeElement)) hideKeyboard(); }, 0);
  });
}

function render() {
  renderSetup();
  renderRing();
  renderAwake();
  renderSunrise();
  renderClock();
  // A form being typed into is not redrawn under the finger; it catches up after.
  const typing = document.activeElement && document.activeElement.matches("input, select");
  if (view === "month" && !(typing && $("month").contains(document.activeElement))) renderMonth();
  if (view === "lists" && !(typing && $("lists").contains(document.activeElement))) renderLists();
  if (view === "apps") renderApps();
  if (view === "more" && !(typing && $("more").contains(document.activeElement))) renderMore();
  if (!$("blank").hidden && screenNeeded()) screenAwake();
}

// The kiosk's screen sleeps at night: after a minute untouched in night mode it goes black, and
// wakes for a ring, an "Are you up?", an unlock and a chime. The tap that wakes it lands on the
// black screen itself, never on what is under the finger.
const sleep = { afterMs: 60000, timer: null };
function screenNeeded() {
  return !$("ring").hidden || !$("awake").hidden || !$("unlock").hidden || !$("chime").hidden || !$("setup").hidden;
}
function screenAwake() {
  clearTimeout(sleep.timer);
  $("blank").hidden = true;
  reportLight();
  if (CFG.access !== "kiosk") return;
  sleep.timer = setTimeout(() => {
    if (document.body.classList.contains("night") && !screenNeeded()) { $("blank").hidden = false; reportLight(); }
    else screenAwake();
  }, sleep.afterMs);
}
$("blank").addEventListener("click", (e) => { e.preventDefault(); e.stopPropagation(); screenAwake(); });
for (const kind of ["pointerdown", "keydown"]) document.addEventListener(kind, (e) => { if (e.target !== $("blank")) screenAwake(); }, true);

function follow() {
  const events = new EventSource("/events");
  events.addEventListener("daemon", (e) => {
    if (e.data === "up") { banner(""); load(); }
    else banner("The clock's daemon is not answering; reconnecting…");
  });
  events.addEventListener("change", (e) => {
    try {
      // A line of the daemon's watch stream: {"v": 1, "event": {"reminder": {...}}}.
      const line = JSON.parse(e.data);
      heard(line.event || line);
    } catch (err) {}
    load();
  });
  events.onerror = () => banner("Lost the clock's web server; reconnecting…");
  events.onopen = () => { if ($("banner").textContent.startsWith("Lost")) banner(""); load(); };
}
// One change the daemon streamed, before the state is read again.
function heard(change) {
  if (change.reminder) showChime(change.reminder);
  if (change.screenWake) screenAwake();
  if (change.overrideRemoved) toast("The one-time change for " + fmtDate(change.overrideRemoved.override.date) +
    " was removed: that day is now a holiday (" + change.overrideRemoved.holiday + ")");
  const session = change.session && (change.session._0 || change.session);
  const st = payload(S && S.status, "status");
  if (session && st) { st.session = session; renderRing(); }
  if (view === "more") loadMore();
}

// Pairing: the only screen for a stranger; for the kiosk, a form it opens to gain admin rights.
// The pairing code's keypad: digits, with the dash after the fourth put in by itself.
(function pairPad() {
  for (const key of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0"]) {
    const b = document.createElement("button"); b.textContent = key; b.dataset.key = key;
    b.onclick = () => {
      const digits = $("paircode").value.replace(/\D/g, "");
      const next = key === "⌫" ? digits.slice(0, -1) : (digits + key).slice(0, 8);
      $("paircode").value = next.length > 4 ? next.slice(0, 4) + "-" + next.slice(4) : next;
    };
    $("pairpad").appendChild(b);
  }
})();
function showPairing() {
  for (const id of ["clock", "month", "lists", "apps", "more"]) $(id).hidden = true;
  $("pairing").hidden = false;
  $("paircode").focus();
}
$("pairbtn").onclick = async () => {
  const response = await fetch("/pair", { method: "POST", headers: { "Content-Type": "application/json", "X-Reveille-CSRF": CFG.csrf },
    body: JSON.stringify({ code: $("paircode").value }) });
  const reply = await response.json().catch(() => null);
  if (reply && reply.ok) {
    const name = reply.payload && reply.payload.web && reply.payload.web.devices && reply.payload.web.devices[0] ? reply.payload.web.devices[0].name : "this browser";
    $("pairing").innerHTML = '<h2 id="paired">Paired as ' + esc(name) + "</h2><p>Opening the clock…</p>";
    setTimeout(() => location.reload(), 1500);
  } else toast(reply && reply.error ? reply.error.message : "pairing failed", true);
};
if (CFG.access === "stranger") {
  $("tabs").hidden = true;
  showPairing();
} else {
  show("clock"); tick(); follow(); screenAwake();
}
