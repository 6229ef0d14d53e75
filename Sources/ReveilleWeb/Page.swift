/// The one page `reveille-web` serves: markup, style and script together, nothing fetched from
/// elsewhere, so it works with no network. Sized for a 7" touchscreen at arm's length and for a
/// phone; the ring screen takes over whenever an alarm rings.
enum Page {
    static func html(csrf: String, access: String) -> String {
        template.replacingOccurrences(
            of: "{{CONFIG}}", with: #"{"csrf":"\#(csrf)","access":"\#(access)"}"#)
    }

    static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Reveille</title>
        <style>
        :root { --bg:#111; --fg:#eee; --dim:#888; --base:#f39c12; --rule:#3498db; --override:#2ecc71;
          --holiday:#95a5a6; --bad:#e74c3c; --panel:#1d1d1d; }
        * { box-sizing:border-box; }
        body { margin:0; background:var(--bg); color:var(--fg); font:18px/1.4 system-ui, sans-serif; }
        body.night { --fg:#a33; --dim:#622; --panel:#0a0a0a; --bg:#000; }
        body.night #tabs, body.night .sheet { opacity:.6; }
        nav { display:flex; gap:4px; padding:6px; background:var(--panel); }
        nav button { flex:1; min-width:0; padding:6px 4px; }
        @media (max-width: 480px) { nav button { font-size:15px; } }
        button, input, select { font:inherit; min-height:48px; border-radius:10px; border:1px solid #444;
          background:#2a2a2a; color:var(--fg); padding:6px 12px; }
        button:active { filter:brightness(1.4); }
        button.primary { background:#2d5b8a; }
        button.danger { background:#7a2a22; }
        nav button.on { background:#444; }
        main { padding:10px; }
        section[hidden], div[hidden] { display:none !important; }
        #time { font-size:min(28vw, 180px); font-weight:200; text-align:center; letter-spacing:-2px;
          font-variant-numeric:tabular-nums; }
        #date { text-align:center; color:var(--dim); font-size:24px; }
        #next { text-align:center; font-size:26px; margin-top:12px; }
        #todaylist { text-align:center; color:var(--dim); margin-top:8px; }
        .chip { display:inline-block; padding:2px 10px; border-radius:999px; font-size:16px; color:#000; }
        .l-base { background:var(--base); } .l-rule { background:var(--rule); }
        .l-override { background:var(--override); } .l-holiday, .l-paused, .l-disabled, .l-zone { background:var(--holiday); }
        #banner { background:var(--bad); color:#fff; padding:10px; text-align:center; font-size:20px; }
        #toast { position:fixed; left:50%; bottom:16px; transform:translateX(-50%); max-width:92vw; padding:12px 18px;
          border-radius:10px; background:#333; color:#fff; display:none; z-index:20; pointer-events:none; }
        #toast.error { background:var(--bad); }
        .grid { display:grid; grid-template-columns:repeat(7, 1fr); gap:4px; }
        .grid .head { text-align:center; color:var(--dim); font-size:14px; }
        .day { min-height:52px; border-radius:10px; border:3px solid #333; padding:4px; text-align:center;
          background:var(--panel); }
        .day .n { font-size:14px; color:var(--dim); }
        .day .t { font-size:17px; }
        .day.past { opacity:.35; }
        .day.today { box-shadow:0 0 0 2px var(--fg) inset; }
        .day.ring-base { border-color:var(--base); } .day.ring-rule { border-color:var(--rule); }
        .day.ring-override { border-color:var(--override); }
        .day.silent-rule { border-color:var(--rule); } .day.silent-override { border-color:var(--override); }
        .day.silent-holiday, .day.silent-paused, .day.silent-disabled { border-color:var(--holiday); }
        .day[class*="silent-"] .t { text-decoration:line-through; color:var(--dim); }
        .monthbar { display:flex; align-items:center; justify-content:space-between; margin-bottom:4px; }
        .monthbar h2 { margin:0; font-size:22px; }
        .legend { margin-top:8px; display:flex; gap:8px; flex-wrap:wrap; font-size:14px; }
        .sheet { background:var(--panel); border-radius:12px; padding:12px; margin-top:10px; }
        .sheet h3 { margin:0 0 8px; }
        .row { display:flex; gap:8px; align-items:center; flex-wrap:wrap; margin:6px 0; }
        table { width:100%; border-collapse:collapse; display:block; overflow-x:auto; }
        td, th { padding:6px; border-bottom:1px solid #333; text-align:left; }
        .note { color:var(--dim); font-size:15px; }
        #ring { position:fixed; inset:0; background:#000; z-index:10; display:flex; flex-wrap:wrap; overflow:auto;
          align-items:center; justify-content:center; gap:24px; padding:12px; text-align:center; }
        #ring .side { display:flex; flex-direction:column; align-items:center; gap:14px; }
        #ring .what { font-size:34px; }
        #ring .when { font-size:22px; color:var(--dim); }
        #snooze { font-size:48px; width:min(90vw, 560px); min-height:140px; background:#2d5b8a; }
        #ring.answering #snooze { font-size:30px; width:min(90vw, 320px); min-height:100px; }
        #snooze:disabled { opacity:.4; }
        #dismiss { font-size:28px; width:min(90vw, 560px); min-height:80px; }
        #problem { font-size:38px; }
        #entry { font-size:38px; min-height:52px; font-variant-numeric:tabular-nums; }
        #keypad { display:grid; grid-template-columns:repeat(4, 76px); grid-auto-rows:64px; gap:8px; }
        #keypad button { font-size:30px; min-height:0; }
        #keypad #answer { grid-row:span 2; }
        #keypad button[data-key="0"] { grid-column:span 3; }
        #tagprompt { font-size:30px; }
        </style>
        </head>
        <body>
        <script id="cfg" type="application/json">{{CONFIG}}</script>
        <div id="banner" hidden></div>
        <nav id="tabs">
          <button data-view="clock">Clock</button><button data-view="month">Month</button>
          <button data-view="lists">Alarms</button><button data-view="apps">Apps</button>
          <button id="nightbtn" title="Night mode">Night</button>
        </nav>
        <main>
          <section id="pairing" hidden>
            <h2>Pair this browser</h2>
            <p>On the clock, an admin runs <b>sudo reveille web pair</b> (add <b>--admin</b> to let this browser
              change alarms), then types the code here.</p>
            <div class="row"><input id="paircode" inputmode="numeric" autocomplete="one-time-code"
              placeholder="1234-5678" maxlength="20"><button id="pairbtn" class="primary">Pair</button></div>
          </section>
          <section id="clock">
            <div id="time">--:--</div>
            <div id="date"></div>
            <div id="next">&nbsp;</div>
            <div id="todaylist"></div>
          </section>
          <section id="month" hidden>
            <div class="monthbar"><button id="prevmonth">&lsaquo;</button><h2 id="monthname"></h2>
              <button id="nextmonth">&rsaquo;</button></div>
            <div class="grid" id="monthgrid"></div>
            <div class="legend"><span class="chip l-base">as set</span><span class="chip l-rule">weekly rule</span>
              <span class="chip l-override">date override</span><span class="chip l-holiday">holiday / paused</span>
              <span class="note">struck through: silent</span></div>
            <div class="sheet" id="daysheet" hidden></div>
          </section>
          <section id="lists" hidden></section>
          <section id="apps" hidden></section>
        </main>
        <div id="ring" hidden>
          <div class="side">
            <div class="what" id="ringwhat"></div>
            <div class="when" id="ringwhen"></div>
            <button id="snooze">SNOOZE</button>
            <button id="dismiss">DISMISS</button>
            <div id="tagprompt" hidden></div>
          </div>
          <div id="mathbox" hidden>
            <div id="problem"></div>
            <div id="entry">&nbsp;</div>
            <div id="keypad"></div>
          </div>
        </div>
        <div id="toast"></div>
        <script>
        "use strict";
        const CFG = JSON.parse(document.getElementById("cfg").textContent);
        const $ = (id) => document.getElementById(id);
        let S = null, view = "clock", monthOffset = 0, entry = "", problemShown = false, selectedDay = null;
        const esc = (t) => String(t ?? "").replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
        const payload = (reply, kind) => (reply && reply.ok && reply.payload) ? reply.payload[kind] : null;
        const isAdmin = () => { const st = payload(S && S.status, "status"); return st && (st.role === "admin" || st.role === "owner"); };

        function toast(text, error) {
          const t = $("toast"); t.textContent = text; t.className = error ? "error" : ""; t.style.display = "block";
          clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.style.display = "none"; }, error ? 6000 : 3000);
        }
        function banner(text) { $("banner").hidden = !text; $("banner").textContent = text || ""; }

        async function load() {
          let response;
          try { response = await fetch("/api/state", { cache: "no-store" }); }
          catch (e) { banner("Cannot reach the clock's web server; retrying…"); return; }
          if (response.status === 401) { location.reload(); return; }
          if (!response.ok) { banner("The web server refused: " + response.status); return; }
          S = await response.json();
          banner(S.daemon === false ? "The clock's daemon is not answering; reconnecting…" : "");
          render();
          tick();
        }

        async function send(op, quiet) {
          let response;
          try {
            response = await fetch("/api/command", { method: "POST", cache: "no-store",
              headers: { "Content-Type": "application/json", "X-Reveille-CSRF": CFG.csrf }, body: JSON.stringify(op) });
          } catch (e) { toast("The clock did not answer; try again", true); return null; }
          if (response.status === 401) { location.reload(); return null; }
          const reply = await response.json().catch(() => null);
          if (!reply) { toast("The clock sent nothing readable (" + response.status + ")", true); return null; }
          if (!reply.ok) toast(reply.error ? reply.error.message : "refused", true);
          else if (!quiet && reply.message) toast(reply.message + (reply.warnings ? " — " + reply.warnings.join("; ") : ""));
          load();
          return reply;
        }

        // ---- Clock face ----
        function zoneParts(date, options) {
          const st = payload(S && S.status, "status");
          try { return new Intl.DateTimeFormat(undefined, { timeZone: st ? st.timeZone : undefined, ...options }).format(date); }
          catch (e) {
            // A zone the browser does not know (the system's tzdata is newer): the daemon's offset.
            const m = st && /^(\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)/.exec(st.now);
            if (!m) return new Intl.DateTimeFormat(undefined, options).format(date);
            const offset = Date.UTC(m[1], m[2] - 1, m[3], m[4], m[5], m[6]) - st.nowInstant * 1000;
            return new Intl.DateTimeFormat(undefined, { timeZone: "UTC", ...options }).format(new Date(date.getTime() + offset));
          }
        }
        function tick() {
          const now = new Date();
          $("time").textContent = zoneParts(now, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
          $("date").textContent = zoneParts(now, { weekday: "long", day: "numeric", month: "long" });
          const hour = Number(zoneParts(now, { hour: "2-digit", hourCycle: "h23" }));
          if (night.auto) document.body.classList.toggle("night", hour >= 21 || hour < 7);
          clearTimeout(tick.timer);
          tick.timer = setTimeout(tick, 60000 - (now.getSeconds() * 1000 + now.getMilliseconds()) + 50);
        }
        const night = { auto: true };
        $("nightbtn").onclick = () => { night.auto = false; document.body.classList.toggle("night"); };

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
          if (!st) { $("next").textContent = S.status && S.status.error ? S.status.error.message : ""; return; }
          let layer = null;
          if (st.nextRing && report) {
            for (const day of report.days) if (day.date === st.nextRing.date)
              for (const e of entries(report, day)) if (e.id === st.nextRing.alarmID && e.rings) { layer = layer || e.layer; }
          }
          $("next").innerHTML = st.nextRing
            ? "Next: <b>" + esc(st.nextRing.weekday + " " + st.nextRing.time) + "</b> " + esc(st.nextRing.label) +
              (layer ? ' <span class="chip l-' + esc(layer) + '">' + esc(layerNames[layer] || layer) + "</span>" : "")
            : (st.master === "on" ? "No alarm set" : "Alarms are " + esc(st.master) + (st.pausedUntil ? " until " + esc(st.pausedUntil) : ""));
          const today = report && report.days.find((d) => d.date === st.now.slice(0, 10));
          const rings = today ? entries(report, today).filter((e) => e.rings) : [];
          $("todaylist").textContent = rings.length ? "Still today: " + rings.map((e) => e.time + " " + (report.labels[e.id] || "#" + e.id)).join(", ") : "";
        }

        // ---- Ring screen ----
        function renderRing() {
          const st = payload(S && S.status, "status");
          const session = st && st.session;
          const active = session && (session.state === "ringing" || session.state === "snoozed");
          if (!active) { $("ring").hidden = true; problemShown = false; entry = ""; return; }
          const wasHidden = $("ring").hidden;
          $("ring").hidden = false;
          $("ringwhat").textContent = session.label || ("Alarm #" + session.alarmID);
          const left = session.maxSnoozes === 0 ? null : session.maxSnoozes - session.snoozeCount;
          $("ringwhen").textContent = session.state === "snoozed"
            ? "Snoozed until " + session.snoozedUntil : "Due " + session.scheduledTime;
          const snooze = $("snooze");
          snooze.hidden = session.state !== "ringing";
          snooze.disabled = left === 0;
          snooze.textContent = left === 0 ? "NO SNOOZES LEFT" : "SNOOZE" + (left === null ? "" : " (" + left + " left)");
          const tagOnly = session.challenge === "nfc" && !session.fellBackToMath;
          const reader = st.reader && st.reader.condition;
          $("tagprompt").hidden = !(session.challenge !== "math" && !session.fellBackToMath);
          $("tagprompt").textContent = session.tagOnReader ? "Lift the tag off the reader, then tap it again"
            : "Tap your tag on the reader" + (session.challenge === "any" ? ", or solve the problem" : "");
          $("dismiss").hidden = problemShown || (tagOnly && reader === "ok");
          $("mathbox").hidden = !problemShown;
          $("ring").classList.toggle("answering", problemShown);
          if (wasHidden) requestAnimationFrame(() => requestAnimationFrame(() => {
            window.ringShownAt = performance.timeOrigin + performance.now();
          }));
        }
        $("snooze").onclick = () => { window.snoozeTappedAt = performance.timeOrigin + performance.now(); send({ snooze: {} }, true); };
        $("dismiss").onclick = async () => {
          const reply = await send({ problem: {} }, true);
          const ring = payload(reply, "ring");
          if (ring && ring.problem) { showProblem(ring.problem); }
        };
        function showProblem(text) {
          problemShown = true; entry = ""; $("problem").textContent = text + " = ?"; $("entry").innerHTML = "&nbsp;";
          $("mathbox").hidden = false; $("dismiss").hidden = true; $("ring").classList.add("answering");
        }
        (function keypad() {
          const type = (key) => {
            if (key === "⌫") entry = entry.slice(0, -1);
            else if (key === "±") entry = entry.startsWith("-") ? entry.slice(1) : "-" + entry;
            else if (entry.replace("-", "").length < 6) entry += key;
            $("entry").textContent = entry || "\u00a0";
          };
          const answer = async () => {
            if (!/^-?\d+$/.test(entry)) { toast("Type the answer first", true); return; }
            const reply = await send({ answer: { value: Number(entry) } }, true);
            const ring = payload(reply, "ring");
            if (ring && ring.correct === false) { toast("Not quite. Here is a new one.", true); showProblem(ring.problem); }
            else if (ring && ring.correct) { toast("Good morning"); problemShown = false; }
          };
          for (const key of ["1", "2", "3", "⌫", "4", "5", "6", "±", "7", "8", "9", "OK", "0"]) {
            const b = document.createElement("button"); b.textContent = key;
            if (key === "OK") { b.id = "answer"; b.className = "primary"; b.onclick = answer; }
            else { b.dataset.key = key; b.onclick = () => type(key); }
            $("keypad").appendChild(b);
          }
        })();

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
          $("monthname").textContent = first.toLocaleDateString(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
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
            if (info.ring) { cell.classList.add("ring-" + info.ring.layer); cell.dataset.layer = info.ring.layer; text = info.ring.time; }
            else if (info.silent) { cell.classList.add("silent-" + info.silent.layer); cell.dataset.layer = info.silent.layer; cell.dataset.silent = "1"; text = info.silent.time || "–"; }
            cell.innerHTML = '<div class="n">' + d + '</div><div class="t">' + esc(text) + "</div>";
            if (date >= today) cell.onclick = () => { selectedDay = date; renderDaySheet(); };
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
          const what = info.ring ? "rings at " + info.ring.time + " (" + (layerNames[info.ring.layer] || info.ring.layer) + ")"
            : info.silent ? "silent (" + (layerNames[info.silent.layer] || info.silent.layer) + (info.silent.note ? ": " + info.silent.note : "") + ")" : "nothing set";
          let html = "<h3>" + esc(selectedDay) + "</h3><div>" + esc(what) + "</div>";
          if (isAdmin()) {
            html += '<div class="row"><input type="time" id="dayat" value="' + esc(info.ring ? info.ring.time.slice(0, 5) : "07:00") +
              '"><button class="primary" id="dayring">Ring at…</button><button id="dayoff">Silence this day</button>' +
              (info.override ? '<button class="danger" id="dayclear">Remove override</button>' : "") + "</div>";
          } else html += '<div class="note">Pair this screen with admin rights to change a day.</div>';
          sheet.innerHTML = html; sheet.hidden = false;
          if (!isAdmin()) return;
          const set = (change) => info.override
            ? send({ overrideEdit: { id: info.override.id, change, allAlarms: false } })
            : send({ overrideAdd: { date: selectedDay, change } });
          $("dayring").onclick = () => set($("dayat").value);
          $("dayoff").onclick = () => set("off");
          if (info.override) $("dayclear").onclick = () => send({ overrideRemove: { id: info.override.id } });
        }
        $("prevmonth").onclick = () => { monthOffset = Math.max(0, monthOffset - 1); renderMonth(); };
        $("nextmonth").onclick = () => { monthOffset = Math.min(1, monthOffset + 1); renderMonth(); };

        // ---- Lists and sheets ----
        const dayKeys = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
        function alarmForm(alarm) {
          const days = alarm && alarm.days ? alarm.days : "mon-fri";
          return '<div class="row"><input id="f-label" placeholder="label" value="' + esc(alarm ? alarm.label : "") + '">' +
            '<input id="f-time" type="time" value="' + esc(alarm ? alarm.time.slice(0, 5) : "07:00") + '"></div>' +
            '<div class="row"><input id="f-days" placeholder="days: mon-fri, sat,sun, daily" value="' + esc(alarm && alarm.date ? "" : days) + '">' +
            '<input id="f-date" type="date" value="' + esc(alarm && alarm.date ? alarm.date : "") + '" title="or one date"></div>' +
            '<div class="row"><select id="f-challenge">' + ["math", "nfc", "any"].map((c) =>
              "<option" + (alarm && alarm.challenge === c ? " selected" : "") + ">" + c + "</option>").join("") + "</select>" +
            '<label>snoozes <input id="f-snoozes" type="number" min="0" max="20" style="width:5em" value="' + (alarm ? alarm.maxSnoozes : 3) + '"></label></div>';
        }
        function formSpec() {
          const spec = { label: $("f-label").value, time: $("f-time").value, challenge: $("f-challenge").value,
            maxSnoozes: Number($("f-snoozes").value) };
          if ($("f-date").value) spec.date = $("f-date").value; else spec.days = $("f-days").value.trim();
          return spec;
        }
        function renderLists() {
          const admin = isAdmin();
          const alarms = payload(S.alarms, "alarms") || [], rules = payload(S.rules, "rules") || [];
          const overrides = payload(S.overrides, "overrides") || [], tags = payload(S.tags, "tags") || [];
          let html = admin ? "" : '<p class="note">To change these from here, pair this screen with admin rights: sudo reveille web pair --admin</p>';
          html += '<div class="sheet"><h3>Alarms</h3><table>' + alarms.map((a) =>
            "<tr><td>#" + a.id + " " + esc(a.label) + "</td><td>" + esc(a.time) + "</td><td>" + esc(a.days || a.date) + "</td><td>" +
            esc(a.challenge) + "</td><td>" + (a.enabled ? "on" : "off") + (a.warnings ? '<div class="note">' + esc(a.warnings.join("; ")) + "</div>" : "") + "</td>" +
            (admin ? '<td><button data-act="toggle" data-id="' + a.id + '">' + (a.enabled ? "Turn off" : "Turn on") + '</button> <button data-act="edit" data-id="' + a.id +
              '">Edit</button> <button class="danger" data-act="rm" data-id="' + a.id + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
          if (admin) html += '<div id="alarmform"><h3 id="formtitle">Add an alarm</h3>' + alarmForm(null) +
            '<div class="row"><button class="primary" id="f-save">Add</button></div></div>';
          html += "</div>";
          html += '<div class="sheet"><h3>Weekly rules</h3><table>' + rules.map((r) => "<tr><td>#" + r.id + "</td><td>" + esc(r.days) + "</td><td>" + esc(r.change) +
            "</td><td>" + (r.alarmID ? "alarm #" + r.alarmID : "all alarms") + "</td>" + (admin ? '<td><button data-act="ruleedit" data-id="' + r.id + '">Edit</button> <button class="danger" data-act="rulerm" data-id="' + r.id + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
          if (admin) html += '<div class="row"><input id="r-days" placeholder="days: sat,sun"><input id="r-change" placeholder="off or 09:00"><button class="primary" id="r-add">Add rule</button></div>';
          html += '</div><div class="sheet"><h3>Date overrides</h3><table>' + overrides.map((o) => "<tr><td>#" + o.id + "</td><td>" + esc(o.date) + "</td><td>" + esc(o.change) +
            "</td><td>" + (o.alarmID ? "alarm #" + o.alarmID : "all alarms") + "</td>" + (admin ? '<td><button class="danger" data-act="overriderm" data-id="' + o.id + '">Remove</button></td>' : "") + "</tr>").join("") +
            '</table><div class="note">Add one by tapping a day in Month.</div></div>';
          html += '<div class="sheet"><h3>Tags</h3><table>' + tags.map((t) => "<tr><td>" + esc(t.label) + "</td><td>" + esc(t.uid) + "</td>" +
            (admin ? '<td><button class="danger" data-act="tagrm" data-label="' + esc(t.label) + '">Remove</button></td>' : "") + "</tr>").join("") + "</table>";
          if (admin) html += '<div class="row"><input id="t-label" placeholder="label"><input id="t-uid" placeholder="UID, hex"><button class="primary" id="t-add">Add tag</button></div><div class="note">Or tap it on the reader: sudo reveille tag add LABEL</div>';
          html += "</div>";
          $("lists").innerHTML = html;
          if (!admin) return;
          let editing = null;
          $("f-save").onclick = () => editing ? send({ alarmEdit: { id: editing, spec: formSpec() } }) : send({ alarmAdd: { spec: formSpec() } });
          let editingRule = null;
          $("r-add").onclick = () => {
            const days = $("r-days").value.trim(), change = $("r-change").value.trim();
            send(editingRule ? { ruleEdit: { id: editingRule, days, change, allAlarms: false } } : { ruleAdd: { days, change } });
          };
          $("t-add").onclick = () => send({ tagAdd: { label: $("t-label").value, uid: $("t-uid").value.trim(), timeoutSeconds: 0 } });
          for (const b of $("lists").querySelectorAll("button[data-act]")) b.onclick = () => {
            const id = Number(b.dataset.id), alarm = alarms.find((a) => a.id === id);
            switch (b.dataset.act) {
              case "toggle": send({ alarmSetEnabled: { id, enabled: !alarm.enabled } }); break;
              case "rm": if (confirm("Remove alarm #" + id + "?")) send({ alarmRemove: { id } }); break;
              case "edit":
                editing = id; $("formtitle").textContent = "Edit alarm #" + id;
                $("alarmform").querySelectorAll(".row").forEach((r, i) => { if (i < 3) r.remove(); });
                $("formtitle").insertAdjacentHTML("afterend", alarmForm(alarm)); $("f-save").textContent = "Save"; break;
              case "ruleedit": {
                const rule = rules.find((r) => r.id === id);
                editingRule = id; $("r-days").value = rule.days; $("r-change").value = rule.change;
                $("r-add").textContent = "Save rule #" + id; $("r-days").focus(); break;
              }
              case "rulerm": send({ ruleRemove: { id } }); break;
              case "overriderm": send({ overrideRemove: { id } }); break;
              case "tagrm": if (confirm("Remove tag " + b.dataset.label + "?")) send({ tagRemove: { label: b.dataset.label } }); break;
            }
          };
        }

        // ---- Apps ----
        function renderApps() {
          const apps = S.apps && S.apps.ok && S.apps.payload ? S.apps.payload.apps.apps : null;
          if (!apps) { $("apps").innerHTML = '<p class="note">' + esc(S.apps && S.apps.error ? S.apps.error.message : "No app limits.") + "</p>"; return; }
          const admin = isAdmin();
          $("apps").innerHTML = '<div class="sheet"><h3>App limits</h3><table>' + apps.map((a, i) => "<tr><td>" + esc(a.name) + "</td><td>" + esc(a.user) +
            "</td><td>" + (a.allowed ? "allowed" : "blocked") + '<div class="note">' + esc(a.reason) + "</div></td><td>" + a.usedMinutes +
            (a.limitMinutes != null ? " of " + a.limitMinutes : "") + " min</td>" +
            (admin ? '<td><button data-app="' + i + '">+15 min</button></td>' : "") + "</tr>").join("") + "</table></div>";
          for (const b of $("apps").querySelectorAll("button[data-app]")) b.onclick = () => {
            const a = apps[Number(b.dataset.app)]; send({ appGrant: { name: a.name, minutes: 15, user: a.user } });
          };
        }

        // ---- Views ----
        function show(name) {
          view = name;
          for (const id of ["clock", "month", "lists", "apps"]) $(id).hidden = id !== name;
          for (const b of document.querySelectorAll("nav button[data-view]")) b.classList.toggle("on", b.dataset.view === name);
          if (S) render();
        }
        for (const b of document.querySelectorAll("nav button[data-view]")) b.onclick = () => show(b.dataset.view);
        function render() {
          renderRing();
          renderClock();
          // A form being typed into is not redrawn under the finger; it catches up after.
          const typing = document.activeElement && document.activeElement.matches("input, select");
          if (view === "month" && !(typing && $("month").contains(document.activeElement))) renderMonth();
          if (view === "lists" && !(typing && $("lists").contains(document.activeElement))) renderLists();
          if (view === "apps") renderApps();
        }

        function follow() {
          const events = new EventSource("/events");
          events.addEventListener("daemon", (e) => {
            if (e.data === "up") { banner(""); load(); }
            else banner("The clock's daemon is not answering; reconnecting…");
          });
          events.addEventListener("change", (e) => {
            try {
              const change = JSON.parse(e.data);
              const session = change.session && (change.session._0 || change.session);
              const st = payload(S && S.status, "status");
              if (session && st) { st.session = session; renderRing(); }
            } catch (err) {}
            load();
          });
          events.onerror = () => banner("Lost the clock's web server; reconnecting…");
          events.onopen = () => { if ($("banner").textContent.startsWith("Lost")) banner(""); load(); };
        }

        if (CFG.access === "stranger") {
          $("tabs").hidden = true;
          for (const id of ["clock", "month", "lists", "apps"]) $(id).hidden = true;
          $("pairing").hidden = false;
          $("pairbtn").onclick = async () => {
            const response = await fetch("/pair", { method: "POST", headers: { "Content-Type": "application/json", "X-Reveille-CSRF": CFG.csrf },
              body: JSON.stringify({ code: $("paircode").value }) });
            const reply = await response.json().catch(() => null);
            if (reply && reply.ok) location.reload(); else toast(reply && reply.error ? reply.error.message : "pairing failed", true);
          };
        } else {
          show("clock"); tick(); follow();
        }
        </script>
        </body>
        </html>
        """#
}
