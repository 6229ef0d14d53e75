import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleSystem
import ReveilleCore
import ReveilleProtocol

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's state and the next ring.")

    @Flag(
        name: .long,
        help:
            "Then print each change as it happens (rang, snoozed, dismissed, next ring, reader, buttons), until Ctrl-C."
    )
    var watch = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let status = try send(.status, to: connection).status else { return }
        if output.json && !watch { return printJSON(status) }
        guard watch else { return print(StatusCommand.render(status)) }
        // Written at once, line by line, even into a pipe or a file.
        if !output.json { Stdio.out(Data((StatusCommand.render(status) + "\n").utf8)) }
        try follow()
    }

    /// Streams the daemon's `watch` lines: one line per change, stamped with the daemon's wall-clock time, or
    /// one JSON object per line with --json.
    private func follow() throws {
        let client: ControlClient
        do {
            client = try ControlClient(path: connection.paths.socket)
            let first = try client.send(.watch)
            if let error = first.error {
                printError(error.message)
                throw ExitCode(1)
            }
        } catch let failure as ControlClient.Failure {
            printError(failure.description)
            throw ExitCode(1)
        }
        while true {
            let line: [UInt8]?
            do {
                line = try client.readLine()
            } catch {
                printError(error.description)
                throw ExitCode(1)
            }
            guard let line else {
                printError("reveilled closed the connection (stopped or restarted)")
                throw ExitCode(1)
            }
            guard let watched = try? JSONDecoder().decode(WatchLine.self, from: Data(line)) else { continue }
            // Stamped on the daemon's clock, in its zone, as the times inside the event are.
            let text =
                output.json
                ? String(decoding: line, as: UTF8.self)
                : "\(watched.at ?? StatusCommand.clock()) \(StatusCommand.describe(watched.event))"
            Stdio.out(Data((text + "\n").utf8))
        }
    }

    /// One watch event in words.
    static func describe(_ event: WatchEvent) -> String {
        switch event {
        case .session(let session):
            switch session.state {
            case .ringing:
                "RINGING: alarm \(session.name) (due \(session.scheduledTime)); to stop it: \(session.howToDismiss)"
            case .snoozed:
                "SNOOZED: alarm \(session.name) until \(session.snoozedUntil ?? "?") (\(session.snoozeCount) used)"
            case .dismissed: "DISMISSED: alarm \(session.name) by \(session.dismissedBy?.rawValue ?? "?")"
            case .autoStopped: "STOPPED: alarm \(session.name) rang unanswered (unattended)"
            case .missed: "MISSED: alarm \(session.name) (due \(session.scheduledTime))"
            }
        case .wakeCheck(let check): wakeCheckLine(check)
        case .sunrise(let sunrise?):
            "SUNRISE: \(Alarm.phrase(id: sunrise.alarmID, label: sunrise.label)) rings at \(sunrise.time)"
        case .sunrise(nil): "the sunrise ended"
        case .silent(true): "THE ALARM IS SILENT: no sound device works"
        case .silent(false): "sound is back: the alarm is heard again"
        case .missed(let missed):
            "MISSED: \(Alarm.phrase(id: missed.alarmID, label: missed.label)) (due \(missed.scheduledTime)), not rung late"
        case .nextRing(let next):
            next.map {
                "next ring: \($0.weekday) \($0.date) \($0.time), \(Alarm.phrase(id: $0.alarmID, label: $0.label))\($0.decidedBy.map { ", \($0)" } ?? "")"
            }
                ?? "next ring: none"
        case .tagOnReader(true): "a tag is on the reader: lift it, then tap it"
        case .tagOnReader(false): "the tag was lifted: tap it to stop the alarm"
        case .readerHealth(let reader): "NFC reader: \(reader)"
        case .network(let network): "network: \(network?.words ?? "networkd no longer says")"
        case .policyRejected(let why): "app policy rejected: \(why)"
        case .input(let input): "input: \(input)"
        case .screenWake: "a bedside key woke the screen"
        case .schedule: "the schedule changed (alarms, rules, overrides, reminders or pause)"
        case .reminder(let chime):
            "REMINDER: \(chime.text)\(chime.detail.map { " — \($0)" } ?? "") (\(chime.origin), due \(chime.due))"
        case .overrideRemoved(let removed):
            "override #\(removed.override.id) (\(removed.override.date)) removed: that day is now a holiday (\(removed.holiday)) and its alarm skips holidays"
        case .appPolicy(let revision): "the app policy changed (revision \(revision))"
        case .appNotice(let notice): AppNoticeText.line(notice)
        case .appRequest(let request): AppNoticeText.line(request)
        case .appRunning(let running):
            "app \(running.app) of \(running.user) \(running.running ? "runs: its time is counted" : "ended")"
        case .appGranted(let granted):
            "app \(granted.app): \(granted.minutes) minutes granted today\(granted.user.map { " to \($0)" } ?? "") in all"
        }
    }

    /// The wake-up check in words, for `status` and `status --watch`.
    static func wakeCheckLine(_ check: WakeCheckInfo) -> String {
        switch check.state {
        case "waiting":
            "wake-up check of alarm \(check.name) at \(check.asksAt): answer \"Are you up?\" then, or it rings again"
        case "asking":
            "ARE YOU UP? The wake-up check of alarm \(check.name) waits until \(check.deadline): 'reveille awake', any key, the page or your tag; else it rings again"
        case "passed": "wake-up check of alarm \(check.name) passed (\(check.answeredBy ?? "answered"))"
        default: "WAKE-UP CHECK FAILED: alarm \(check.name) rings again"
        }
    }

    private static func clock() -> String {
        var now = Wall.seconds()
        var parts = tm()
        localtime_r(&now, &parts)
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { NumberText.padded(Int($0), width: 2) }.joined(
            separator: ":")
    }

    static func render(_ status: StatusInfo) -> String {
        let weekday = (try? CivilDate.parse(String(status.now.prefix(10))))?.weekday.displayName ?? ""
        var lines: [String] = []
        if status.silent == true { lines.append("THE ALARM IS SILENT: no sound device works (see 'reveille doctor')") }
        if let session = status.session {
            let ringing = session.test == true ? "RINGING (a test)" : "RINGING"
            let left =
                session.maxSnoozes == 0
                ? "unlimited snoozes"
                : "\(max(0, session.maxSnoozes - session.snoozeCount)) of \(session.maxSnoozes) snoozes left"
            if session.state == .snoozed {
                lines.append(
                    "SNOOZED: alarm \(session.name) (due \(session.scheduledTime)) rings again at \(session.snoozedUntil ?? "?") (\(left))"
                )
            } else if session.maxSnoozes != 0 && session.snoozeCount >= session.maxSnoozes {
                lines.append(
                    "\(ringing): alarm \(session.name) (due \(session.scheduledTime)); no snoozes left: it must be dismissed"
                )
            } else {
                lines.append(
                    "\(ringing): alarm \(session.name) (due \(session.scheduledTime)); \(left): 'reveille snooze'")
            }
            lines.append(
                "to stop it: \(session.howToDismiss)"
                    + (session.fellBackToMath
                        ? " (\(ReaderFallbackNote.words(state: nil, secondsBeforeRing: session.readerLostSecondsBeforeRing)))"
                        : ""))
            if session.tagOnReader { lines.append("a tag is on the reader: lift it, then tap it") }
            if session.escalated == true { lines.append("unanswered: ringing at full volume") }
        }
        if let check = status.wakeCheck { lines.append(wakeCheckLine(check)) }
        if let sunrise = status.sunrise {
            lines.append(
                "sunrise: \(Alarm.phrase(id: sunrise.alarmID, label: sunrise.label)) rings at \(sunrise.time)"
            )
        }
        lines += [
            "reveilled \(status.version), up \(DurationText.format(seconds: status.uptimeSeconds)), "
                + "time zone \(status.timeZone)\(status.timeZoneRules.map { " (\($0))" } ?? ""), "
                + "now \(weekday) \(status.now.prefix(16))"
        ]
        let alarms = "\(status.enabledCount) of \(status.alarmCount) enabled"
        switch status.master {
        case .off: lines.append("alarms: OFF until 'reveille resume' (\(alarms))")
        case .paused: lines.append("alarms: paused until \(status.pausedUntil ?? "?") (\(alarms))")
        case .on: lines.append("alarms: on (\(alarms))")
        }
        if let next = status.nextRing {
            lines.append(
                "next ring: \(next.weekday) \(next.date) \(next.time), \(Alarm.phrase(id: next.alarmID, label: next.label)) "
                    + "(in \(DurationText.format(seconds: next.instant - status.nowInstant)))"
                    + (next.decidedBy.map { ", \($0)" } ?? ""))
        } else {
            lines.append("next ring: none")
        }
        if status.remindersOn == false {
            lines.append("reminders: OFF until 'reveille reminders on'")
        } else if let reminder = status.nextReminder {
            lines.append("next reminder: \(reminder)")
        }
        lines.append("NFC reader: \(status.reader)")
        if !status.sound.isEmpty { lines.append("sound: \(status.sound)") }
        if status.inputs.isEmpty {
            lines.append("buttons: none found")
        } else {
            lines += status.inputs.map { "buttons: \($0)" }
        }
        if !status.voice.isEmpty { lines.append("voice: \(status.voice)") }
        if let network = status.network {
            lines.append(
                network.online ? "network: \(network.words)" : "NETWORK: \(network.words); alarms ring as usual")
        }
        if let backlight = status.backlight { lines.append("backlight: \(backlight)") }
        if status.appGuard.mode != .starting { lines.append("apps: \(status.appGuard)") }
        if let rejected = status.appGuard.rejected { lines.append("APPS.TOML REJECTED: \(rejected)") }
        if let rejected = status.settingsRejected { lines.append("REVEILLE.TOML REJECTED: \(rejected)") }
        if let waiting = status.settingsWaiting { lines.append("REVEILLE.TOML WAITS: \(waiting)") }
        lines += (status.calendarProblems ?? []).map { "CALENDAR PROBLEM: \($0)" }
        lines += (status.stateProblems ?? []).map { "STATE PROBLEM: \($0)" }
        if let waiting = status.clockWaiting { lines.append("CLOCK BEHIND: \(waiting)") }
        if let use = status.resources {
            lines.append(
                "daemon: \(use.cpuMicroseconds / 1000) ms CPU since start, \(use.rssKilobytes / 1024) MB resident "
                    + "(\(use.anonymousKilobytes / 1024) MB its own, the rest shared code)"
                    + (use.handlesText.map { "; \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }
}

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "List the coming rings, day by day, with the layer that decided each.",
        discussion: """
            Layers, highest first: paused (master switch), disabled (the alarm), override (one date), \
            rule (a weekday), holiday, base (the alarm as set). A silent day says why. Below the \
            alarms, the reminders that chime in those days (from 'reminder add' and reminder \
            calendars), each with what set it, and why one will not chime.
            """)

    @Option(name: .long, help: "How many days, from today.")
    var days = 7

    @Flag(
        name: .long,
        help: "One line: the next ring and how far off it is, like 'Mon 06:45 #1 work (in 7h 12m; as set)'.")
    var brief = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (1...3660).contains(days) else { throw ValidationError("--days \(days): must be 1-3660") }
        if brief && output.json { throw ValidationError("give --brief or --json, not both") }
    }

    func run() throws {
        if brief {
            guard let status = try send(.status, to: connection).status else { return }
            return print(NextCommand.brief(status.nextRing, now: status.nowInstant))
        }
        let report = try send(.next(days: days), to: connection).schedule ?? ScheduleReport()
        if output.json { return printJSON(report.rows) }
        Stdio.out(Data(ScheduleTable.render(report)))
        if let reminders = report.reminders {
            var table = Table("DATE", "DAY", "TIME", "REMINDER", "FROM", "")
            for chime in reminders {
                let weekday = (try? CivilDate.parse(chime.date))?.weekday.displayName ?? ""
                table.add(
                    chime.date, weekday, chime.time, chime.text, chime.origin,
                    chime.silenced.map { "silent: \($0)" } ?? "")
            }
            Stdio.out(Data("\n".utf8) + Data(table.bytes()))
        }
    }
}

extension NextCommand {
    /// `Mon 06:45 #1 work (in 7h 12m; as set)`, or `none` when nothing will ring.
    static func brief(_ next: RingInfo?, now: Int) -> String {
        guard let next else { return "none" }
        let name = Alarm.name(id: next.alarmID, label: next.label)
        return
            "\(next.weekday) \(next.time) \(name) (in \(DurationText.format(seconds: next.instant - now))\(next.decidedBy.map { "; \($0)" } ?? ""))"
    }

}

struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Turn all alarms off, until 'reveille resume' or a date.")

    @Option(
        name: .long, help: ArgumentHelp("The first day alarms ring again (YYYY-MM-DD or tomorrow).", valueName: "date"))
    var until: String?

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        report(try send(.pause(until: until), to: connection))
    }
}

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Turn alarms back on.")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        report(try send(.resume, to: connection))
    }
}

struct SkipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip",
        abstract: "Silence only the next ring of an alarm (the next one of all, without an id).",
        discussion: """
            Adds an "off" override for the day of that ring: the alarm rings as usual after it. \
            'reveille override list' shows it, 'reveille override rm ID' takes it back.
            """)

    @Argument(help: "The alarm's id (see 'reveille alarm list'); without it, the alarm that rings next.")
    var id: Int?

    @OptionGroup var connection: ConnectionOptions

    func validate() throws { if let id { try checkID(id, of: "alarm", list: "reveille alarm list") } }

    func run() throws {
        let next: RingInfo
        if let id {
            let alarms = try send(.alarmList, to: connection).alarms ?? []
            guard let alarm = alarms.first(where: { $0.alarm.id == id }) else {
                printError("no alarm #\(id); 'reveille alarm list' shows the ids")
                throw ExitCode(1)
            }
            guard let ring = alarm.nextRing else {
                printError("alarm \(alarm.alarm.name) has no ring ahead to skip")
                throw ExitCode(1)
            }
            next = ring
        } else {
            guard let ring = try send(.status, to: connection).status?.nextRing else {
                printError("no alarm rings ahead: nothing to skip")
                throw ExitCode(1)
            }
            next = ring
        }
        let added = try send(Self.command(skipping: next), to: connection)
        print(Self.skipped(next))
        for warning in added.warnings ?? [] { printError("warning: \(warning)") }
    }

    /// The request that skips `next`: an "off" override for its day.
    static func command(skipping next: RingInfo) -> Command {
        // The household's ring is a rule's or an override's for all alarms: so is its skip.
        .overrideAdd(alarmID: next.alarmID == Alarm.householdID ? nil : next.alarmID, date: next.date, change: .off)
    }

    /// What `skip` says once it is done.
    static func skipped(_ next: RingInfo) -> String {
        return
            "skipped \(Alarm.phrase(id: next.alarmID, label: next.label)) on \(next.weekday) \(next.date) at \(next.time); it rings as usual after that"
    }
}
