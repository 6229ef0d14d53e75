import CReveilleShims
import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol
import ReveilleSystem

/// One thing `reveille doctor` looked at.
struct Finding: Equatable, Encodable {
    enum Level: String, Encodable {
        case ok = "ok"
        case note = "note"
        case warning = "warn"
        case failure = "FAIL"
    }

    var level: Level
    var subject: String
    var detail: String
    /// What to do about it (not for `ok`).
    var fix: String?
}

/// The checks of `reveille doctor`, on the machine it runs on, against the daemon under `paths`.
struct Doctor {
    let paths: Paths
    /// Whether to play a short tone through the daemon.
    let playTone: Bool

    func run() -> [Finding] {
        var findings: [Finding] = []
        let settings = checkSettings(&findings)
        let status = checkDaemon(&findings)
        checkReader(settings, status: status, &findings)
        checkSound(settings, status: status, &findings)
        checkInputs(settings, status: status, &findings)
        checkTime(&findings)
        if let status { checkZoneAndCalendars(status, &findings) }
        if let network = status?.network.map(Self.network) { findings.append(network) }
        if status != nil { checkReminders(&findings) }
        checkAppGuard(&findings)
        if let status, status.appGuard.mode != .starting {
            let guarded = status.appGuard.mode == .fanotify
            findings.append(
                Finding(
                    level: guarded ? .ok : .note, subject: "app guard", detail: status.appGuard.description,
                    fix: guarded
                        ? nil : "run reveilled with CAP_SYS_ADMIN (the unit grants it) to block launches in the kernel")
            )
        }
        if let status { checkExecWatch(status.appGuard, &findings) }
        if let rejected = status?.appGuard.rejected {
            findings.append(
                Finding(
                    level: .failure, subject: "app policy", detail: "apps.toml refused: \(rejected)",
                    fix: "correct it ('reveille apps validate FILE' checks a file); the daemon loads it when saved"))
        }
        checkPolicyAccounts(&findings)
        if status != nil { checkAppSetup(&findings) }
        checkFiles(settings, &findings)
        if let bridge = Self.bridge(
            settings.mqtt, BridgeHealth.read(paths.bridgeHealth), now: Wall.seconds(), runs: BridgeHealth.bridgeRuns)
        {
            findings.append(bridge)
        }
        if let household = Self.household(settings.mqtt, BridgeHealth.read(paths.bridgeHealth)) {
            findings.append(household)
        }
        if let kiosk = Self.kiosk(settings.web, isSystem: paths.isSystem, userExists: { getpwnam($0) != nil }) {
            findings.append(kiosk)
        }
        if let updates = Self.updates(
            installed: access(paths.system("/usr/bin/unattended-upgrade"), X_OK) == 0,
            lastRun: Self.modified(paths.system("/var/lib/apt/periodic/unattended-upgrades-stamp")), now: Wall.seconds())
        {
            findings.append(updates)
        }
        return findings
    }

    /// Debian's unattended upgrades, where they are installed (the card image has them): when they
    /// last ran (apt's stamp), and a warning after a week without.
    static func updates(installed: Bool, lastRun: Int?, now: Int) -> Finding? {
        guard installed else { return nil }
        guard let lastRun else {
            return Finding(
                level: .note, subject: "updates",
                detail: "unattended-upgrades has not run yet (it runs at 03:00 and 13:00, never within an hour of a ring)",
                fix: "it needs the network; 'reveille upgrade-window' says whether it may run now")
        }
        let days = max(0, now - lastRun) / 86_400
        let day = Date(timeIntervalSince1970: TimeInterval(lastRun)).formatted(.iso8601.year().month().day())
        let detail =
            "security updates last ran \(days == 0 ? "in the last day" : "\(days) day\(days == 1 ? "" : "s") ago") (\(day), UTC)"
        guard days >= 7 else { return Finding(level: .ok, subject: "updates", detail: detail) }
        return Finding(
            level: .warning, subject: "updates", detail: detail,
            fix: "check the network, and: journalctl -u apt-daily-upgrade (they wait while alarms are near)")
    }

    static func modified(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec)
    }

    /// The machine's network, as networkd says: alarms need none, the phones, calendars, the smart
    /// home and the time (timesyncd) do.
    static func network(_ network: NetworkInfo) -> Finding {
        Finding(
            level: network.online ? .ok : .warning, subject: "network", detail: network.words,
            fix: network.online
                ? nil
                : "alarms ring as usual; check the Wi-Fi or the cable (networkctl status says more); it rejoins by itself"
        )
    }

    /// The screen's kiosk: the user whose browser has the household's rights unpaired must exist,
    /// or the bedside screen shows the pairing form (an upgrade from when loopback was the kiosk,
    /// with the browser in a desktop user's session, meets it). Under --root there is no check.
    static func kiosk(_ web: Settings.Web, isSystem: Bool, userExists: (String) -> Bool) -> Finding? {
        guard isSystem else { return nil }
        let user = web.kioskUser ?? "reveille-kiosk"
        guard userExists(user) else {
            return Finding(
                level: .warning, subject: "screen",
                detail:
                    "there is no user \(user), so no browser on this machine has the kiosk's rights: the screen by the bed shows the pairing form",
                fix:
                    "set kiosk_user = \"pi\" under [web] in /etc/reveille/reveille.toml (the user whose session runs the browser), then: sudo systemctl restart reveille-web"
            )
        }
        return Finding(level: .ok, subject: "screen", detail: "the kiosk is \(user)'s browser on this machine")
    }

    /// A household's keys: this machine's code (what the others pin), and what is not pinned here.
    static func household(_ mqtt: Settings.MQTT?, _ health: BridgeHealth?) -> Finding? {
        guard let mqtt, let household = mqtt.household else { return nil }
        let code =
            health?.householdCode.map { "this machine's household code is \($0)" }
            ?? "reveille-mqtt has not made this machine's household key yet"
        if mqtt.followsHub && mqtt.hubKey == nil {
            return Finding(
                level: .warning, subject: "household \(household)",
                detail: "\(code); no hub key is pinned, so nothing from the household is taken",
                fix:
                    "on the hub, 'reveille-mqtt --household-key' prints its code: add hub_key = \"CODE\" to [mqtt], and list this machine on the hub"
            )
        }
        if mqtt.hub && mqtt.machines.isEmpty {
            return Finding(
                level: .warning, subject: "household \(household)",
                detail: "\(code); the hub lists no other machine, so no one else's counts are taken",
                fix:
                    "add machines = [\"NAME=CODE\"] to [mqtt], with each machine's code ('reveille-mqtt --household-key' on it)"
            )
        }
        return Finding(
            level: .ok, subject: "household \(household)",
            detail: "\(code)"
                + (mqtt.hub
                    ? "; the hub, listing \(mqtt.machines.keys.sorted().joined(separator: ", "))"
                    : "; the hub's key is pinned"))
    }

    /// The smart home's bridge, when `[mqtt]` names a broker: connected, and since when; or why
    /// not, and when it last was; or that it stopped, when the process that wrote its health file
    /// runs no more (`runs`).
    static func bridge(
        _ mqtt: Settings.MQTT?, _ health: BridgeHealth?, now: Int, runs: (Int) -> Bool = { _ in true }
    ) -> Finding? {
        guard let mqtt else { return nil }
        let broker = "\(mqtt.host):\(mqtt.port)"
        func ago(_ instant: Int) -> String {
            let seconds = max(0, now - instant)
            return seconds < 120
                ? "\(seconds) s ago" : seconds < 7200 ? "\(seconds / 60) min ago" : "\(seconds / 3600) h ago"
        }
        guard let health else {
            return Finding(
                level: .warning, subject: "smart home", detail: "[mqtt] names \(broker), and reveille-mqtt has not run",
                fix: "sudo systemctl enable --now reveille-mqtt (its log: journalctl -u reveille-mqtt)")
        }
        if let pid = health.pid, !runs(pid) {
            if health.stopped == true {
                return Finding(
                    level: .warning, subject: "smart home",
                    detail: "reveille-mqtt was stopped \(ago(health.since))"
                        + (health.lastConnected.map { ", last connected to \(health.broker) \(ago($0))" } ?? ""),
                    fix: "sudo systemctl start reveille-mqtt, if the clock should be in the smart home")
            }
            // Killed while connected: it was connected until it died, whenever that was.
            let last =
                health.connected
                ? " while connected to \(health.broker) (connected \(ago(health.since)))"
                : health.lastConnected.map { " (last connected to \(health.broker) \(ago($0)))" } ?? ""
            return Finding(
                level: .warning, subject: "smart home",
                detail: "reveille-mqtt is not running: it stopped without a word" + last,
                fix: "sudo systemctl restart reveille-mqtt (why it stopped: journalctl -u reveille-mqtt)")
        }
        if health.connected {
            return Finding(
                level: health.daemonUp ? .ok : .warning, subject: "smart home",
                detail: "reveille-mqtt is connected to \(health.broker) (since \(ago(health.since)))"
                    + (health.daemonUp ? "" : "; it cannot reach reveilled, so the clock shows as offline"),
                fix: health.daemonUp ? nil : "start reveilled: sudo systemctl start reveille")
        }
        let last = health.lastConnected.map { "last connected \(ago($0))" } ?? "not connected since it started"
        return Finding(
            level: .warning, subject: "smart home",
            detail:
                "reveille-mqtt is not connected to \(health.broker): \(health.problem ?? "no reason given") (\(last))",
            fix: "check the broker, and [mqtt] in reveille.toml; journalctl -u reveille-mqtt says more")
    }

    /// Apps not set up (blocked until they are), and hand edits of apps.toml not applied.
    private func checkAppSetup(_ findings: inout [Finding]) {
        guard let policy = (try? ControlClient(path: paths.socket).send(.appList))?.appsReply?.policy else { return }
        for app in policy.apps where app.configured == false {
            findings.append(
                Finding(
                    level: .warning, subject: "app \(app.name)", detail: "⚠️ Not configured: it is blocked until it is",
                    fix:
                        "set its hours and limits: 'reveille apps edit \(app.name) --weekdays 60 --weekends 120', or Apps on the page"
                ))
        }
        for conflict in policy.conflicts {
            findings.append(
                Finding(
                    level: .warning, subject: "app policy", detail: conflict,
                    fix: "edit apps.toml or the app again so that the two agree"))
        }
    }

    /// An app policy whose users names root or a service account limits more than the household.
    private func checkPolicyAccounts(_ findings: inout [Finding]) {
        guard let text = try? AppPolicyFile.text(path: paths.appPolicy),
            let document = try? TOMLDocument(path: paths.appPolicy, text: text)
        else { return }
        for warning in LoginAccounts.warnings(for: AppPolicyFile.check(document).policy) {
            findings.append(
                Finding(
                    level: .warning, subject: "app policy", detail: warning,
                    fix: "edit \(paths.appPolicy); root and services should never be limited by an alarm clock"))
        }
    }

    private func checkSettings(_ findings: inout [Finding]) -> Settings {
        let file = paths.settingsFile
        guard FileManager.default.fileExists(atPath: file) else {
            findings.append(Finding(level: .ok, subject: "settings", detail: "no \(file): the embedded defaults"))
            return Settings()
        }
        do {
            let settings = try Settings.load(path: file)
            findings.append(Finding(level: .ok, subject: "settings", detail: file))
            return settings
        } catch {
            findings.append(
                Finding(
                    level: .failure, subject: "settings", detail: error.description,
                    fix: "correct that line (see \(file)'s comments); reveilled refuses to start until then"))
            return Settings()
        }
    }

    private func checkDaemon(_ findings: inout [Finding]) -> StatusInfo? {
        do {
            let status = try ControlClient(path: paths.socket).send(.status).status
            if let status {
                findings.append(
                    Finding(
                        level: .ok, subject: "daemon", detail: "reveilled \(status.version) answers on \(paths.socket)")
                )
                if let use = status.resources { findings.append(Self.handles(use)) }
            }
            return status
        } catch {
            let start =
                paths.isSystem
                ? "sudo systemctl start reveille; 'journalctl -u reveille' says why it stopped"
                : "start it: reveilled --root \(paths.root)"
            findings.append(Finding(level: .failure, subject: "daemon", detail: error.description, fix: start))
            return nil
        }
    }

    private func checkReader(_ settings: Settings, status: StatusInfo?, _ findings: inout [Finding]) {
        guard let device = settings.nfc.device else {
            findings.append(
                Finding(
                    level: .note, subject: "NFC reader", detail: "none configured: alarms are dismissed by math",
                    fix: "to use tags, wire a reader and set [nfc] device (hardware.md)"))
            checkKernelModules(&findings)
            return
        }
        if let path = ReaderHealth.devicePath(device) {
            if !FileManager.default.fileExists(atPath: path) {
                findings.append(
                    Finding(
                        level: .failure, subject: "NFC reader", detail: "\(device): no device at \(path)",
                        fix: Self.enableHint(path)))
            } else if access(path, R_OK | W_OK) != 0, getuid() != 0 {
                findings.append(
                    Finding(
                        level: .note, subject: "NFC reader", detail: "\(path) exists; you cannot open it yourself",
                        fix: "that is fine if the daemon's user can: it runs with the groups dialout, i2c, spi, plugdev"
                    ))
            }
        }
        if let status {
            let healthy = status.reader.condition == .ok
            findings.append(
                Finding(
                    level: healthy ? .ok : .failure, subject: "NFC reader", detail: "reveilled says: \(status.reader)",
                    fix: healthy
                        ? nil
                        : "check wiring, the board's mode switches and the connstring (hardware.md, Troubleshooting)"))
        }
        checkKernelModules(&findings)
        checkLibnfcConfig(&findings)
    }

    private func checkKernelModules(_ findings: inout [Finding]) {
        guard let modules = try? String(contentsOfFile: "/proc/modules", encoding: .utf8) else {
            findings.append(
                Finding(level: .ok, subject: "kernel NFC modules", detail: "none (no loadable modules here)"))
            return
        }
        let loaded = Set(modules.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
        let grabbing = ["pn533_usb", "pn533", "nfc"].filter(loaded.contains)
        if grabbing.isEmpty {
            findings.append(Finding(level: .ok, subject: "kernel NFC modules", detail: "none loaded"))
        } else {
            findings.append(
                Finding(
                    level: .failure, subject: "kernel NFC modules",
                    detail: "\(grabbing.joined(separator: ", ")) loaded: they claim USB readers before libnfc can",
                    fix: "sudo modprobe -r pn533_usb pn533 nfc; make install blacklists them in /etc/modprobe.d"))
        }
    }

    private func checkLibnfcConfig(_ findings: inout [Finding]) {
        let file = "/etc/nfc/libnfc.conf"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return }
        let active = text.split(separator: "\n").map { $0.trimmed(newlines: false) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        if let line = active.first(where: { $0.hasPrefix("device.connstring") }) {
            findings.append(
                Finding(
                    level: .note, subject: "libnfc config", detail: "\(file) sets \(line)",
                    fix: "reveilled uses its own [nfc] device; that line counts only with device = \"auto\""))
        } else {
            findings.append(Finding(level: .ok, subject: "libnfc config", detail: "\(file) names no device"))
        }
    }

    private func checkSound(_ settings: Settings, status: StatusInfo?, _ findings: inout [Finding]) {
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        let hasCard = !cards.isEmpty && !cards.contains("no soundcards")
        let usesCard = settings.audio.devices.isEmpty || settings.audio.devices.contains { !$0.hasPrefix("file:") }
        if hasCard {
            findings.append(Finding(level: .ok, subject: "sound cards", detail: "/proc/asound/cards lists one or more"))
        } else {
            findings.append(
                Finding(
                    level: usesCard ? .failure : .note, subject: "sound cards", detail: "none (/proc/asound/cards)",
                    fix: "plug in a USB speaker, or enable the headphone jack or an I2S amplifier (hardware.md, Sound)")
            )
        }
        guard playTone, let status else { return }
        if let session = status.session {
            findings.append(
                Finding(
                    level: .note, subject: "test tone",
                    detail: "not played: alarm \(session.label) is \(session.state)",
                    fix: "run doctor again after dismissing it"))
            return
        }
        do {
            let response = try ControlClient(path: paths.socket).send(
                .soundTest(file: nil, device: nil, seconds: 1, volume: nil))
            if let playback = response.playback, let device = playback.device {
                findings.append(
                    Finding(
                        level: playback.problems.isEmpty ? .ok : .warning, subject: "test tone",
                        detail: "1 s of \(playback.source) on \(device)"
                            + (playback.problems.isEmpty ? "" : " after: \(playback.problems.joined(separator: "; "))"),
                        fix: playback.problems.isEmpty ? nil : "fix or remove the devices that failed ([audio] devices)"
                    ))
            } else {
                findings.append(
                    Finding(
                        level: .failure, subject: "test tone", detail: response.error?.message ?? "no device played it",
                        fix: "set [audio] devices to a device from 'reveille sound devices' (hardware.md, Sound)"))
            }
        } catch {
            findings.append(Finding(level: .failure, subject: "test tone", detail: error.description))
        }
    }

    /// The buttons and keypads the daemon reads, and whether the ones named in [input] are there;
    /// then the voice.
    private func checkInputs(_ settings: Settings, status: StatusInfo?, _ findings: inout [Finding]) {
        let subject = "buttons"
        if let status {
            if status.inputs.isEmpty {
                let configured = settings.input.devices.map { !$0.isEmpty } ?? false
                findings.append(
                    Finding(
                        level: .note, subject: subject, detail: "none found",
                        fix: configured
                            ? nil
                            : "plug in a keypad or wire a button (hardware.md); the daemon picks it up when it appears")
                )
            }
            for input in status.inputs {
                let fix: String? =
                    switch input.condition {
                    case .ok: nil
                    case .absent, .unplugged: "plug it in, or correct [input] devices in reveille.toml"
                    case .failing: "the unit's user needs the input group (SupplementaryGroups=... input)"
                    }
                findings.append(
                    Finding(
                        level: input.condition == .ok ? .ok : .warning, subject: subject, detail: input.description,
                        fix: fix))
            }
            let silent = status.voice.hasPrefix("silent")
            findings.append(
                Finding(
                    level: silent ? .warning : .ok, subject: "voice", detail: status.voice,
                    fix: silent ? "apt-get install libespeak-ng1 espeak-ng-data, or set [voice] enabled = false" : nil))
            return
        }
        // The daemon is not answering: check the named devices from here.
        for path in settings.input.devices ?? [] where access(path, F_OK) != 0 {
            findings.append(
                Finding(
                    level: .warning, subject: subject, detail: "\(path): no such device",
                    fix: "plug it in, or correct [input] devices in reveille.toml"))
        }
    }

    private func checkZoneAndCalendars(_ status: StatusInfo, _ findings: inout [Finding]) {
        let rules = status.timeZoneRules ?? ""
        findings.append(
            Finding(
                level: rules.hasPrefix("built-in") ? .note : .ok, subject: "time zone",
                detail: "\(status.timeZone), rules from \(rules.isEmpty ? "?" : rules)",
                fix: rules.hasPrefix("built-in")
                    ? "install tzdata (apt-get install tzdata) so that rule changes arrive with system updates" : nil))
        for problem in status.stateProblems ?? [] {
            findings.append(
                Finding(
                    level: .warning, subject: "state", detail: problem,
                    fix: "free space on the state's disk (df -h /var/lib/reveille); check 'reveille alarm list'"))
        }
        for line in status.layersRingingAlone ?? [] {
            findings.append(
                Finding(
                    level: .note, subject: "schedule", detail: line,
                    fix:
                        "'reveille next' shows when; remove what should stay silent ('reveille rule rm N', 'reveille override rm N')"
                ))
        }
        for problem in status.calendarProblems ?? [] {
            findings.append(
                Finding(
                    level: .warning, subject: "calendars", detail: problem,
                    fix:
                        "correct the file ('reveille calendar show NAME' shows what is read); it is read again when saved"
                ))
        }
    }

    /// How many reminders chime, the next one, and sound files that are gone (a chime then plays the
    /// built-in tone: never silence, but not the sound chosen).
    private func checkReminders(_ findings: inout [Finding]) {
        guard let reminders = try? ControlClient(path: paths.socket).send(.reminderList).reminders,
            let calendars = try? ControlClient(path: paths.socket).send(.calendarList).calendars
        else { return }
        let reminderCalendars = calendars.filter { $0.purpose == .reminders }
        if !reminders.isEmpty || !reminderCalendars.isEmpty {
            let next = reminders.compactMap(\.next).min()
            findings.append(
                Finding(
                    level: .ok, subject: "reminders",
                    detail: "\(reminders.count) set, \(counted(reminderCalendars.count, "reminder calendar"))"
                        + (next.map { "; next of those set: \($0)" } ?? "")))
        }
        var sounds = reminders.compactMap { reminder in
            reminder.sound.map {
                ($0, "reminder #\(reminder.id)", "reveille reminder edit \(reminder.id) --sound FILE")
            }
        }
        for calendar in reminderCalendars {
            for (minutes, path) in (calendar.sounds ?? [:]).sorted(by: { $0.key < $1.key }) {
                sounds.append((path, "calendar \(calendar.name) (\(minutes) min)", "remove and add the calendar again"))
            }
        }
        for (path, owner, fix) in sounds where access(path, R_OK) != 0 {
            findings.append(
                Finding(
                    level: .warning, subject: "reminders",
                    detail: "\(owner): its sound \(path) cannot be read; it chimes with the built-in tone",
                    fix: "put the file back, or \(fix)"))
        }
    }

    private func checkTime(_ findings: inout [Finding]) {
        switch RV_clock_synchronized() {
        case 1:
            findings.append(
                Finding(level: .ok, subject: "time", detail: "the kernel's clock is synchronized (adjtimex)"))
        case 0:
            findings.append(
                Finding(
                    level: .warning, subject: "time", detail: "the kernel's clock is not synchronized (adjtimex)",
                    fix:
                        "check network time: timedatectl timesync-status (a Pi has no clock of its own: hardware.md, Time)"
                ))
        default:
            findings.append(Finding(level: .warning, subject: "time", detail: "adjtimex failed: cannot tell"))
        }
    }

    private func checkAppGuard(_ findings: inout [Finding]) {
        switch RV_fanotify_probe() {
        case 0:
            findings.append(Finding(level: .ok, subject: "fanotify", detail: "permission events available"))
        case EPERM:
            findings.append(
                Finding(
                    level: .note, subject: "fanotify", detail: "cannot tell without CAP_SYS_ADMIN",
                    fix: "run 'sudo reveille doctor' to check"))
        default:
            findings.append(
                Finding(
                    level: .warning, subject: "fanotify",
                    detail: "the kernel lacks permission events (CONFIG_FANOTIFY_ACCESS_PERMISSIONS)",
                    fix: "use a kernel with them to block app launches (hardware.md)"))
        }
    }

    /// Where the guard watches execs, whether it keeps up, and whether the places users can write
    /// let programs run (docs/guide/apps.md, "What counts as the app"). Only while apps.toml lists apps.
    private func checkExecWatch(_ guardState: AppGuardState, _ findings: inout [Finding]) {
        if let stalled = guardState.stalledSeconds {
            findings.append(
                Finding(
                    level: .failure, subject: "app guard",
                    detail: "one exec unanswered for \(Int(stalled)) s: launches of listed programs wait",
                    fix: "systemd restarts the daemon (WatchdogSec in the unit); 'journalctl -u reveille' says why"))
        }
        guard let watched = guardState.watched, !watched.isEmpty else { return }
        findings.append(
            Finding(
                level: .ok, subject: "exec watch",
                detail: "file system marks on \(watched.joined(separator: " ")): a copy of an app there is the app"))
        let text = (try? String(contentsOfFile: Mounts.path, encoding: .utf8)) ?? ""
        let mounts = Mounts.parse(text)
        for place in ["/home", "/tmp", "/dev/shm"] {
            guard let mount = Mounts.mount(of: place, in: mounts), !mount.noexec else { continue }
            let on = mount.mountPoint == place ? "" : " (it is part of \(mount.mountPoint))"
            findings.append(
                Finding(
                    level: .warning, subject: "noexec",
                    detail: "programs can run from \(place)\(on): a changed copy of a listed app would run from there",
                    fix: "mount \(place) noexec (README, \"What counts as the app\")"))
        }
    }

    private func checkFiles(_ settings: Settings, _ findings: inout [Finding]) {
        var problems: [Finding] = []
        func mode(_ path: String) -> (mode: Int, owner: UInt32, group: UInt32)? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return (Int(info.st_mode & 0o7777), info.st_uid, info.st_gid)
        }
        if let file = mode(paths.settingsFile) {
            if file.mode & 0o022 != 0 {
                problems.append(
                    Finding(
                        level: .failure, subject: "files",
                        detail: "\(paths.settingsFile) can be changed by others (mode \(String(file.mode, radix: 8)))",
                        fix: "sudo chmod 644 \(paths.settingsFile)"))
            }
            if paths.isSystem, file.owner != 0 {
                problems.append(
                    Finding(
                        level: .failure, subject: "files", detail: "\(paths.settingsFile) is not owned by root",
                        fix: "sudo chown root:root \(paths.settingsFile)"))
            }
        }
        if let state = mode(paths.stateDirectory), state.mode & 0o007 != 0 {
            problems.append(
                Finding(
                    level: .failure, subject: "files",
                    detail: "\(paths.stateDirectory) is open to everyone (mode \(String(state.mode, radix: 8)))",
                    fix: "sudo chmod 750 \(paths.stateDirectory)"))
        }
        if let socket = mode(paths.socket), socket.mode & 0o007 != 0 {
            problems.append(
                Finding(
                    level: .failure, subject: "files",
                    detail: "\(paths.socket) is open to everyone (mode \(String(socket.mode, radix: 8)))",
                    fix: "restart reveilled: it creates the socket with mode 660"))
        }
        let hooks = paths.configDirectory + "/hooks.d"
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: hooks)) ?? []).sorted() {
            if let hook = mode(hooks + "/" + name), hook.mode & 0o022 != 0 {
                problems.append(
                    Finding(
                        level: .failure, subject: "files", detail: "hook \(hooks)/\(name) can be changed by others",
                        fix: "sudo chmod go-w \(hooks)/\(name)"))
            }
        }
        if problems.isEmpty {
            findings.append(
                Finding(level: .ok, subject: "files", detail: "settings, state, socket and hooks have safe modes"))
        }
        findings += problems
    }

    /// The daemon's descriptors and inotify watches against their limits: over three quarters of
    /// either and something leaks, or the machine is short.
    static func handles(_ use: ResourceUse) -> Finding {
        guard let text = use.handlesText, let open = use.openDescriptors, let limit = use.descriptorLimit,
            let watches = use.inotifyWatches
        else { return Finding(level: .note, subject: "daemon", detail: "it does not count its descriptors (older)") }
        if limit > 0, open * 4 > limit * 3 {
            return Finding(
                level: .warning, subject: "descriptors", detail: text,
                fix:
                    "restart it (sudo systemctl restart reveille) and report a leak with 'ls -l /proc/$(pidof reveilled)/fd'"
            )
        }
        if let watchLimit = use.inotifyWatchLimit, watchLimit > 0, watches * 4 > watchLimit * 3 {
            return Finding(
                level: .warning, subject: "inotify", detail: text,
                fix: "it should hold a few: restart it (sudo systemctl restart reveille) and report a leak")
        }
        return Finding(level: .ok, subject: "descriptors", detail: text)
    }

    static func enableHint(_ path: String) -> String {
        if path.contains("i2c") { return "enable I2C: sudo raspi-config nonint do_i2c 0 (hardware.md, PN532 by I2C)" }
        if path.contains("spidev") {
            return "enable SPI: sudo raspi-config nonint do_spi 0 (hardware.md, PN532 by SPI)"
        }
        return "check the serial port's name and that the UART is on (hardware.md, PN532 by UART)"
    }
}
