import Foundation
import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Testing

@testable import ReveilleDaemon

/// A household's year in virtual time: the real `Controller` over a real SQLite file, with the
/// in-memory audio and reader and a manual clock, driven from wake to wake. Alarms on weekdays and
/// weekends, a weekly rule, date overrides, a pause, a holiday calendar edited mid-year (read by the
/// real `reveille-calendar`), reminders with follow-ups, clock steps both ways, and crashes (a new
/// daemon on the same file, nothing told to the old one) at random points: ringing, snoozed, idle.
///
/// What should ring and chime is computed here from the documented rules (README, "How the
/// schedule decides", "Pause and overrides"), then compared with what the store recorded: every
/// ring once at its instant, every chime once, nothing twice, nothing missing.
///
/// `make test` runs one year (`REVEILLE_YEAR_DAYS` days, 365 by default; about 20 s here); `make
/// soak` runs it again with other seeds (`REVEILLE_YEAR_SEED`).
@Suite struct HouseholdYearTests {
    static let days = Int(ProcessInfo.processInfo.environment["REVEILLE_YEAR_DAYS"] ?? "") ?? 365
    static let seed = UInt64(ProcessInfo.processInfo.environment["REVEILLE_YEAR_SEED"] ?? "") ?? 2027
    /// Monday 2026-12-28, 00:30 in Berlin: the year crosses both of Berlin's clock changes.
    static let start = instant("2026-12-28 00:30:00")
    static let zone = Zone(builtIn: "Europe/Berlin")!

    /// What the test does to the household, on a date, at a local time.
    enum Step {
        case overrideOff(alarm: Int?)
        case overrideAt(alarm: Int, LocalTime)
        case pause
        case resume
        case editCalendar
        case stepClock(seconds: Int)
    }

    /// The household's machine: a daemon that may crash and start again on the same state file.
    final class Household {
        let folder: URL
        let clock: ManualClocks
        let audio = MemoryAudioOutput()
        let reader = MemoryTagReader()
        private(set) var daemon: InProcessDaemon
        var controller: Controller { daemon.controller }
        var wake: Int { daemon.outlets.wakes.last ?? 0 }
        var database: String { folder.appendingPathComponent("state.sqlite").path }

        let zone: Zone

        init(folder: URL, now: Int, zone: Zone = HouseholdYearTests.zone) throws {
            self.folder = folder
            self.zone = zone
            clock = ManualClocks(Double(now))
            daemon = try Household.boot(folder: folder, clock: clock, audio: audio, reader: reader, zone: zone)
            controller.start()
        }

        static func boot(
            folder: URL, clock: ManualClocks, audio: MemoryAudioOutput, reader: MemoryTagReader, zone: Zone
        ) throws -> InProcessDaemon {
            try InProcessDaemon(
                store: try Store(path: folder.appendingPathComponent("state.sqlite").path), clock: clock,
                zone: zone,
                ring: RingEnvironment(audio: audio, reader: reader, hooksDirectory: "/nonexistent/hooks.d"),
                calendarCache: folder.appendingPathComponent("calendars").path,
                calendarFetchFolder: folder.appendingPathComponent("fetched").path,
                logger: Logger(label: "year") { _ in SwiftLogNoOpLogHandler() })
        }

        /// `kill -9` and a new start: the old daemon is told nothing.
        func crash() throws {
            daemon = try Household.boot(folder: folder, clock: clock, audio: audio, reader: reader, zone: zone)
            controller.start()
        }

        @discardableResult
        func request(_ command: Command) -> Response {
            daemon.request(command) ?? .failure(.internal, "parked")
        }

        /// Moves the wall clock to `instant` (by time passing, or by a step) and lets the loop look.
        func move(to instant: Int, step: Bool = false) {
            let by = Double(instant) - clock.now().timeIntervalSince1970
            if step { clock.step(by) } else { clock.advance(by) }
            controller.tick(clockWasSet: step)
        }

        var now: Int { Int(clock.now().timeIntervalSince1970) }
        var session: SessionInfo? { controller.view.session }
    }

    static func answer(_ problem: String) -> Int? {
        // `a + b`, `a × b + c`, `a × b + c × d`.
        problem.split(separator: "+").map { term in
            term.split(separator: "×").map { Int($0.trimmingCharacters(in: .whitespaces)) ?? 0 }.reduce(1, *)
        }.reduce(0, +)
    }

    static let holidaysBefore = ["20270101", "20270402", "20270405", "20270501", "20270513", "20270524"]
    static let holidaysAfter = ["20270101", "20270402", "20270405", "20270503", "20270513", "20270524", "20271003"]

    static func calendar(_ dates: [String]) -> String {
        CalendarTests.ics(
            dates.map { date in
                "BEGIN:VEVENT\nUID:h-\(date)\nSUMMARY:Holiday \(date)\nDTSTART;VALUE=DATE:\(date)\nEND:VEVENT\n"
            }.joined())
    }

    static func date(_ text: String) -> CivilDate {
        let digits = text.replacingOccurrences(of: "-", with: "")
        return CivilDate(
            year: Int(digits.prefix(4))!, month: Int(digits.dropFirst(4).prefix(2))!, day: Int(digits.suffix(2))!)!
    }

    @Test func aHouseholdYearRingsEveryAlarmAndChimeOnceAtItsInstant() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-year-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let calendarFile = folder.appendingPathComponent("holidays.ics")
        try Self.calendar(Self.holidaysBefore).write(to: calendarFile, atomically: true, encoding: .utf8)

        let home = try Household(folder: folder, now: Self.start)
        var weekdays = AlarmSpec()
        weekdays.label = "work"
        weekdays.time = LocalTime(hour: 6, minute: 45)
        weekdays.days = DaySet([.monday, .tuesday, .wednesday, .thursday, .friday])
        weekdays.skipHolidays = true
        weekdays.challenge = .math
        weekdays.maxSnoozes = 2
        weekdays.snoozeMinutes = 9
        var weekends = AlarmSpec()
        weekends.label = "weekend"
        weekends.time = LocalTime(hour: 9, minute: 0)
        weekends.days = DaySet([.saturday, .sunday])
        weekends.challenge = .math
        #expect(home.request(.alarmAdd(spec: weekdays)).ok)
        #expect(home.request(.alarmAdd(spec: weekends)).ok)
        #expect(
            home.request(.ruleAdd(alarmID: 1, days: DaySet([.wednesday]), change: .at(LocalTime(hour: 7, minute: 30)!)))
                .ok)
        var pills = ReminderSpec()
        pills.text = "pills"
        pills.time = LocalTime(hour: 19, minute: 0)
        pills.days = DaySet(Weekday.allCases)
        pills.followUps = [FollowUp(afterSeconds: 600, text: "pills, again")]
        pills.withAlarms = true  // quiet on the days the alarms are off; the bins are not
        var bins = ReminderSpec()
        bins.text = "bins"
        bins.time = LocalTime(hour: 18, minute: 0)
        bins.days = DaySet([.sunday])
        #expect(home.request(.reminderAdd(spec: pills)).ok)
        #expect(home.request(.reminderAdd(spec: bins)).ok)
        let added = home.request(.calendarAdd(name: "holidays", source: calendarFile.path))
        #expect(added.ok, "\(added)")

        // The script of the year: steps on dates, drawn from a seeded generator.
        var random = FuzzTests.Mixer(state: Self.seed)  // the same year for the same seed
        let first = ZoneResolver(zone: Self.zone).local(at: Self.start).date
        let last = first.adding(days: Self.days - 1)
        var steps: [(date: CivilDate, time: LocalTime, step: Step)] = []
        var overridesOff: [CivilDate: Int?] = [:]
        var overridesAt: [CivilDate: LocalTime] = [:]
        for offset in stride(from: 3, to: Self.days, by: 1) {
            let day = first.adding(days: offset)
            let roll = Int.random(in: 0..<100, using: &random)
            // Decided two days ahead, at noon, as a household would.
            let noon = LocalTime(hour: 12, minute: 0)!
            if roll < 6 {
                let alarm: Int? = roll < 3 ? 1 : nil
                overridesOff[day] = alarm
                steps.append((day.adding(days: -2), noon, .overrideOff(alarm: alarm)))
            } else if roll < 10, overridesOff[day] == nil {
                let at = LocalTime(hour: 5, minute: 30 + roll)!
                overridesAt[day] = at
                steps.append((day.adding(days: -2), noon, .overrideAt(alarm: 1, at)))
            }
            if roll >= 90 && roll < 95 {
                steps.append((day, LocalTime(hour: 12, minute: 30)!, .stepClock(seconds: -3600)))
            } else if roll >= 95 {
                steps.append((day, LocalTime(hour: 12, minute: 30)!, .stepClock(seconds: 1200)))
            }
        }
        // A week away, a third of the way in; the holiday calendar edited half way.
        let away = first.adding(days: Self.days / 3)
        steps.append((away, LocalTime(hour: 10, minute: 0)!, .pause))
        steps.append((away.adding(days: 7), LocalTime(hour: 20, minute: 0)!, .resume))
        let edited = first.adding(days: Self.days / 2)
        steps.append((edited, LocalTime(hour: 14, minute: 0)!, .editCalendar))

        var resolver = ZoneResolver(zone: Self.zone)
        var scripted = steps.map { (resolver.resolve($0.date, $0.time).instant, $0.step) }.sorted { $0.0 < $1.0 }
        let end = resolver.resolve(last.adding(days: 1), LocalTime(hour: 0, minute: 0)!).instant

        // The days as the rules say, for the expectations.
        let holidaysThrough = resolver.resolve(edited, LocalTime(hour: 14, minute: 0)!).instant
        func isHoliday(_ day: CivilDate, ringing instant: Int) -> Bool {
            let dates = instant < holidaysThrough ? Self.holidaysBefore : Self.holidaysAfter
            return dates.map(Self.date).contains(day)
        }
        func isPaused(_ instant: Int) -> Bool {
            instant >= resolver.resolve(away, LocalTime(hour: 10, minute: 0)!).instant
                && instant < resolver.resolve(away.adding(days: 7), LocalTime(hour: 20, minute: 0)!).instant
        }
        var expectedRings: [Int: Int] = [:]  // instant -> alarm
        var expectedChimes: Set<Int> = []
        var day = first
        while day <= last {
            var rings: [(Int, LocalTime)] = []
            let weekday = day.weekday
            // Alarm 1: override (one for it, or off for all), rule on Wednesdays, holiday, base.
            if let off = overridesOff[day], off == nil || off == 1 {
            } else if let at = overridesAt[day] {
                rings.append((1, at))
            } else if weekday == .wednesday {
                rings.append((1, LocalTime(hour: 7, minute: 30)!))
            } else if [.monday, .tuesday, .thursday, .friday].contains(weekday) {
                let at = LocalTime(hour: 6, minute: 45)!
                if !isHoliday(day, ringing: resolver.resolve(day, at).instant) { rings.append((1, at)) }
            }
            // Alarm 2: base, unless all alarms are off that day.
            if [.saturday, .sunday].contains(weekday), overridesOff[day] != .some(nil) {
                rings.append((2, LocalTime(hour: 9, minute: 0)!))
            }
            for (alarm, time) in rings {
                let instant = resolver.resolve(day, time).instant
                if instant > Self.start && !isPaused(instant) { expectedRings[instant] = alarm }
            }
            // Chimes: silenced by the pause; the pills (with the alarms) by an everything-off
            // override too, the bins not.
            do {
                var times: [LocalTime] = []
                if overridesOff[day] != .some(nil) {
                    times += [LocalTime(hour: 19, minute: 0)!, LocalTime(hour: 19, minute: 10)!]
                }
                if weekday == .sunday { times.append(LocalTime(hour: 18, minute: 0)!) }
                for time in times {
                    let instant = resolver.resolve(day, time).instant
                    if !isPaused(instant) { expectedChimes.insert(instant) }
                }
            }
            day = day.adding(days: 1)
        }

        // The year, from wake to wake.
        var faults: [String: Int] = [:]
        var snoozed: Set<Int> = []
        var answerAt: Int?
        var steppedBackUntil: Int?
        while home.now < end {
            var next = min(home.wake, end)
            if let (at, _) = scripted.first { next = min(next, at) }
            if let answerAt { next = min(next, answerAt) }
            next = max(next, home.now + 1)
            home.move(to: next)
            if let until = steppedBackUntil, home.now >= until { steppedBackUntil = nil }

            while let (at, step) = scripted.first, at <= home.now {
                scripted.removeFirst()
                let today = ZoneResolver(zone: Self.zone).local(at: home.now).date
                switch step {
                case .overrideOff(let alarm):
                    let date = today.adding(days: 2).description
                    #expect(home.request(.overrideAdd(alarmID: alarm, date: date, change: .off)).ok)
                case .overrideAt(let alarm, let time):
                    let date = today.adding(days: 2).description
                    #expect(home.request(.overrideAdd(alarmID: alarm, date: date, change: .at(time))).ok)
                case .pause: #expect(home.request(.pause(until: nil)).ok)
                case .resume: #expect(home.request(.resume).ok)
                case .editCalendar:
                    try Self.calendar(Self.holidaysAfter).write(to: calendarFile, atomically: true, encoding: .utf8)
                    home.controller.calendarFolderChanged(folder.path)
                case .stepClock(let seconds):
                    faults["clock stepped \(seconds < 0 ? "back" : "forward")", default: 0] += 1
                    let before = home.now
                    home.move(to: before + seconds, step: true)
                    if seconds < 0 { steppedBackUntil = before }
                }
            }

            // The household at the alarm: a snooze now and then, then the answer a minute or so on.
            if let session = home.session {
                if session.state == .ringing && answerAt == nil {
                    answerAt = home.now + Int.random(in: 20...90, using: &random)
                } else if session.state == .ringing, let at = answerAt, home.now >= at {
                    answerAt = nil
                    if !snoozed.contains(session.id) && Int.random(in: 0..<4, using: &random) == 0 {
                        snoozed.insert(session.id)
                        #expect(home.request(.snooze).ok)
                    } else {
                        let problem = try #require(home.request(.problem).problem)
                        let reply = home.request(.answer(value: Self.answer(problem) ?? 0))
                        #expect(reply.ok, "\(reply)")
                    }
                }
            }

            // A crash now and then, wherever the machine is (more often while an alarm is on, the
            // moments that are few but matter most).
            if Int.random(in: 0..<(home.session == nil ? 60 : 6), using: &random) == 0 {
                let kind =
                    home.session?.state == .ringing ? "ringing" : home.session?.state == .snoozed ? "snoozed" : "idle"
                faults["kill -9 while \(kind)", default: 0] += 1
                try home.crash()
                answerAt = nil
            }
        }

        // What the state file says happened.
        let store = try Store(path: home.database)
        let sessions = try store.history(since: Self.start)
        var rung: [Int: [Int]] = [:]
        for session in sessions {
            rung[session.scheduledAt, default: []].append(session.settings.alarmID)
            #expect(
                session.startedAt == session.scheduledAt, "alarm \(session.settings.alarmID) started late: \(session)")
            #expect(session.state != .missed, "missed: \(session)")
        }
        let twice = rung.filter { $0.value.count > 1 }
        #expect(twice.isEmpty, "rung twice: \(twice)")
        let missing = expectedRings.filter { rung[$0.key] != [$0.value] }
        #expect(missing.isEmpty, "expected, not rung as expected: \(missing.sorted { $0.key < $1.key }.prefix(5))")
        let unexpected = rung.filter { expectedRings[$0.key] == nil }
        #expect(unexpected.isEmpty, "rung, not expected: \(unexpected.sorted { $0.key < $1.key }.prefix(5))")

        let chimes = try store.chimes(since: Self.start)
        let played = chimes.filter { $0.outcome == "played" }
        #expect(Set(chimes.map(\.key)).count == chimes.count, "a chime recorded twice")
        #expect(Set(played.map(\.instant)) == expectedChimes, "chimes differ")
        #expect(played.count == expectedChimes.count)
        let kinds = faults.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        print(
            "household year: \(Self.days) days, \(expectedRings.count) rings expected and \(sessions.count) rung, "
                + "\(expectedChimes.count) chimes expected and \(played.count) played; faults: \(kinds)")
        #expect(faults.values.reduce(0, +) > 0)
    }
}

/// The household's days on the real daemon, jumped from morning to morning on its test clock: a
/// ring dismissed each day, a reminder, two holiday calendars (one edited monthly), writes to the
/// zone link's folder every day, a tzdata update monthly, garbage on the socket, the keypad
/// unplugged and plugged back weekly. Its descriptors, inotify watches, threads and RSS stay flat from the second day to the
/// last. `REVEILLE_SOAK_DAYS` days (20 in `make test`, 365 in `make soak`).
@Suite struct DaemonDaysTests {
    static let days = Int(ProcessInfo.processInfo.environment["REVEILLE_SOAK_DAYS"] ?? "") ?? 20

    struct Use: Equatable, CustomStringConvertible {
        var descriptors: Int
        var inotifyWatches: Int
        var threads: Int
        var rssKilobytes: Int
        var description: String {
            "\(descriptors) descriptors, \(inotifyWatches) inotify watches, \(threads) threads, \(rssKilobytes) kB RSS"
        }

        static func of(_ pid: Int32) -> Use {
            let handles = Handles.count(of: "\(pid)")  // the daemon's own count, from outside
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            func field(_ name: String) -> Int {
                let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
                return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
            }
            return Use(
                descriptors: handles.descriptors, inotifyWatches: handles.inotifyWatches, threads: field("Threads"),
                rssKilobytes: field("VmRSS"))
        }
    }

    @Test func aDaemonsDaysLeaveItsResourcesFlat() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-days-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // In a folder of its own, as /dev/input is: the daemon watches it for the keypad's return.
        let input = root.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let keypad = input.appendingPathComponent("keypad").path
        #expect(mkfifo(keypad, 0o600) == 0)
        // The system zone: a link to a zone file in a tzdata folder of the test's own, which a
        // "tzdata update" replaces monthly, as the package does.
        let zoneFolder = root.appendingPathComponent("zoneinfo/Europe")
        try FileManager.default.createDirectory(at: zoneFolder, withIntermediateDirectories: true)
        let zoneFile = zoneFolder.appendingPathComponent("Berlin")
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: zoneFile.path)
        let first = instant("2027-01-04 06:00:00")
        let daemon = try DaemonHarness(
            zoneLink: zoneFile.path, now: first,
            settings: """
                [audio]
                devices = ["file:'/dev/null',wav"]
                [input]
                devices = ["\(keypad)"]
                [voice]
                enabled = false

                """, root: root)
        #expect(
            try daemon.cli("alarm", "add", "07:00", "--days", "daily", "--fade-in", "0").status == 0)
        #expect(
            try daemon.cli("reminder", "add", "pills", "--at", "19:00", "--days", "daily", "--then", "10m", "again")
                .status == 0)
        var calendars: [URL] = []
        for name in ["school", "work"] {
            let folder = root.appendingPathComponent("cal-\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("\(name).ics")
            try HouseholdYearTests.calendar(["20270301"]).write(to: file, atomically: true, encoding: .utf8)
            #expect(try daemon.cli("calendar", "add", name, file.path, "--holidays").status == 0)
            calendars.append(file)
        }
        var writer: Int32 = -1
        func condition() throws -> InputState.Condition? {
            try daemon.request(.status).status?.inputs.first { $0.path == keypad }?.condition
        }
        func plugIn() throws {
            #expect(try daemon.waitFor(5) { try condition() == .ok })
            #expect(
                daemon.waitFor(3) { () -> Bool in
                    writer = open(keypad, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                    return writer >= 0
                })
        }
        try plugIn()
        defer { if writer >= 0 { close(writer) } }
        let pid = daemon.process.processIdentifier
        var dayTwo: Use?
        var lastDay: Use?
        var rings = 0
        for day in 0..<Self.days {
            // The morning: the ring, answered. (Local times: the days cross both clock changes.)
            let date = HouseholdYearTests.date("2027-01-04").adding(days: day)
            try daemon.setNow(instant("\(date) 06:59:59"))
            if try daemon.waitFor(5, { try daemon.session()?.state == .ringing }) {
                #expect(try daemon.dismissByMath().status == 0)
                rings += 1
            }
            // The day: the zone's folder written (fake-hwclock, DHCP), garbage on the socket.
            try daemon.setNow(instant("\(date) 12:00:00"))
            for index in 0..<6 {
                try "\(day).\(index)".write(
                    to: root.appendingPathComponent("etc/fake-hwclock.data"), atomically: true, encoding: .utf8)
            }
            let socket = try daemon.connect()
            try socket.sendRaw((0..<512).map { _ in UInt8.random(in: 1...255) } + Array("\n".utf8))
            #expect(try socket.readLine() != nil)  // an error answered, not a hang
            #expect(daemon.answersStatus())
            // Weekly, the keypad out and back; monthly, a calendar edited.
            if day % 7 == 3 {
                close(writer)
                writer = -1
                unlink(keypad)
                #expect(try daemon.waitFor(5) { try condition() == .unplugged })
                #expect(mkfifo(keypad, 0o600) == 0)
                try plugIn()
            }
            if day % 30 == 5 {
                let update = zoneFolder.appendingPathComponent("Berlin.dpkg-new")
                try? FileManager.default.removeItem(at: update)
                try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: update.path)
                #expect(rename(update.path, zoneFile.path) == 0)
            }
            if day % 30 == 15 {
                try HouseholdYearTests.calendar(["20270301", "2027\(String(format: "%02d", day % 12 + 1))28"]).write(
                    to: calendars[day % 2], atomically: true, encoding: .utf8)
            }
            // Measured at the same point of the second day and of the last (a connection open).
            if day == 1 || day == Self.days - 1 {
                #expect(try daemon.settle())
                // Once two readings 50 ms apart agree: the settle request's own connection gone.
                _ = DescriptorTests.steadyDescriptors(daemon)
                if day == 1 { dayTwo = Use.of(pid) } else { lastDay = Use.of(pid) }
            }
        }
        let last = try #require(lastDay)
        let second = try #require(dayTwo)
        print("daemon days: \(Self.days) days, \(rings) rings; day 2: \(second); day \(Self.days): \(last)")
        #expect(rings == Self.days)
        #expect(last.descriptors == second.descriptors, "day 2: \(second); last: \(last)")
        #expect(last.inotifyWatches == second.inotifyWatches, "day 2: \(second); last: \(last)")
        #expect(last.threads == second.threads, "day 2: \(second); last: \(last)")
        #expect(abs(last.rssKilobytes - second.rssKilobytes) <= 1024, "day 2: \(second); last: \(last)")
    }
}
