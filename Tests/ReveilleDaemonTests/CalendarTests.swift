import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

/// Holiday calendars end to end (issue 16, part 2): a real daemon reads .ics files with libical,
/// follows edits, and keeps the last good copy when a file breaks or goes.
@Suite struct CalendarTests {
    static func ics(_ events: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Reveille tests//EN\r\n"
            + events.replacingOccurrences(of: "\n", with: "\r\n") + "END:VCALENDAR\r\n"
    }

    static let thanksgiving = ics(
        """
        BEGIN:VEVENT
        UID:break-2026
        SUMMARY:Thanksgiving break
        DTSTART;VALUE=DATE:20261126
        DTEND;VALUE=DATE:20261130
        END:VEVENT

        """)

    /// Alarm 1 skips holidays, alarm 2 does not. Tuesday 2026-11-24, 10:00 in Berlin.
    func daemonWithAlarms() throws -> DaemonHarness {
        let daemon = try DaemonHarness(now: instant("2026-11-24 10:00:00"))
        #expect(try daemon.cli("alarm", "add", "07:00", "--days", "daily", "--skip-holidays").status == 0)
        #expect(try daemon.cli("alarm", "add", "08:00", "--days", "daily").status == 0)
        return daemon
    }

    /// An app limit by the holiday calendars: on a holiday weekday the days-off limit holds (a
    /// winter-break Tuesday kept the school-day limit), and the day after, back to school, the other.
    @Test func anAppLimitFollowsTheHolidayCalendarsDaysOff() throws {
        let daemon = try DaemonHarness(now: instant("2026-11-26 10:00:00"))  // Thursday, Thanksgiving break
        let file = daemon.root.appendingPathComponent("school.ics")
        try Self.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        #expect(try daemon.cli("calendar", "add", "school", file.path, "--holidays").status == 0)
        try """
            [[app]]
            name = "gamecal"
            paths = ["/usr/games/gamecal"]
            limit_minutes = { weekdays = 60, school_days = 45, days_off = 180 }
            users = ["root"]

            """.write(to: AppSetupTests.appsFile(daemon), atomically: true, encoding: .utf8)
        #expect(
            try daemon.waitFor(5) {
                try daemon.request(.appCheck(name: "gamecal", user: "root")).appsReply?.apps.first?.limitMinutes == 180
            }, "a holiday Thursday is a day off")
        try daemon.advance(by: 4 * 86_400)  // Monday 2026-11-30: school again
        #expect(try daemon.waitFor(5) {
            try daemon.request(.appCheck(name: "gamecal", user: "root")).appsReply?.apps.first?.limitMinutes == 45
        })
    }

    /// Day → (alarm id → the note of a silent entry, or "rings").
    func week(_ daemon: DaemonHarness) throws -> [String: [Int: String]] {
        Self.days(try #require(try daemon.request(.next(days: 7)).schedule))
    }

    /// Day → (alarm id → the note of a silent entry, or "rings"), from a `next` report.
    static func days(_ report: ScheduleReport) -> [String: [Int: String]] {
        var days: [String: [Int: String]] = [:]
        for row in report.rows {
            guard let id = row.alarmID else { continue }
            days[row.date, default: [:]][id] = row.rings ? "rings" : row.note
        }
        return days
    }

    /// What is not a calendar is refused at add, saying what to do (the CLI's words and exit codes;
    /// nothing is added, so on the shared daemon). What a holiday calendar does once added is
    /// decided in-process: InProcessScheduleTests.aHolidayCalendarSilencesSkippingAlarmsAndNamesTheHoliday.
    @Test func whatIsNotACalendarIsRefusedAtAddWithWhatToDo() throws {
        let daemon = SharedDaemon.unchanged
        let folder = daemon.root.appendingPathComponent("not-calendars-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("school.ics")
        try Self.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        let notes = folder.appendingPathComponent("notes.txt")
        try "shopping: milk\n".write(to: notes, atomically: true, encoding: .utf8)

        var outcome = try daemon.cli("calendar", "add", "school", notes.path, "--holidays")
        #expect(outcome.status == 64)
        #expect(
            outcome.stderr.contains(
                "\(notes.path) line 1: not an iCalendar file: it must begin with BEGIN:VCALENDAR; nothing added"))
        outcome = try daemon.cli("calendar", "add", "school", file.path)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("say what the calendar is for: --holidays"))
        outcome = try daemon.cli("calendar", "add", "school", "https://", "--holidays")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("https://: not a web address; give one like https://example.org/holidays.ics"))
        outcome = try daemon.cli("calendar", "add", "my school", file.path, "--holidays")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("calendar name \"my school\": use letters, digits"))
        outcome = try daemon.cli(
            "calendar", "add", "school", folder.appendingPathComponent("none.ics").path, "--holidays")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("none.ics cannot read it: no such file; nothing added"))

        // A file only root may read is not read for an admin (it would be quoted in errors).
        let secret = folder.appendingPathComponent("secret.ics")
        try Self.thanksgiving.write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        outcome = try daemon.cli("calendar", "add", "secret", secret.path, "--holidays")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("\(secret.path) is not readable by everyone"))
        outcome = try daemon.cli("calendar", "rm", "holidays")
        #expect(outcome.stderr.contains("no calendar holidays; 'reveille calendar list' shows them"))
        #expect(try daemon.request(.calendarList).calendars?.isEmpty == true)
    }
}

/// `Tests/fixtures/calendar_server.py` on a loopback port: one calendar whose answer the test picks.
final class CalendarServer {
    let process = Process()
    let port: Int
    let modeFile: URL
    let bodyFile: URL
    let logFile: URL

    init(root: URL) throws {
        modeFile = root.appendingPathComponent("server-mode")
        bodyFile = root.appendingPathComponent("server-body.ics")
        logFile = root.appendingPathComponent("server-log")
        try "ok".write(to: modeFile, atomically: true, encoding: .utf8)
        try "".write(to: logFile, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/calendar_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, modeFile.path, bodyFile.path, logFile.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the calendar server did not start"])
        }
        self.port = port
    }

    func serve(_ mode: String, body: String? = nil) throws {
        if let body { try body.write(to: bodyFile, atomically: true, encoding: .utf8) }
        try mode.write(to: modeFile, atomically: true, encoding: .utf8)
    }

    var requests: [String] {
        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    deinit {
        // SIGKILL: the test process's threads block SIGTERM, and a child spawned by one inherits
        // the mask (Python does not unblock it).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

extension CalendarTests {
    @Test func aWebCalendarIsFetchedConditionallyEveryFailureKeepsTheLastGoodCopyAndACPUBoundHolds() throws {
        let daemon = try daemonWithAlarms()
        let server = try CalendarServer(root: daemon.root)
        try server.serve("ok", body: Self.thanksgiving)
        let url = "http://127.0.0.1:\(server.port)/school.ics"
        var outcome = try daemon.cli("calendar", "add", "school", url, "--holidays")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("added calendar school (#1) from \(url); it is read once fetched"))
        #expect(server.requests.isEmpty)  // the daemon never fetches
        #expect(
            try daemon.request(.status).status?.calendarProblems?.first?.contains(
                "not fetched yet: the clock fetches web calendars two minutes after it starts and every six hours ('reveille calendar refresh' fetches it now)") == true)

        outcome = try daemon.cli("calendar", "refresh")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout == "school: fetched 0 KiB from \(url)\n")
        #expect(try daemon.waitFor(5) { try week(daemon)["2026-11-26"]?[1] == "holiday: Thanksgiving break" })
        #expect(try daemon.waitFor(5) { try daemon.request(.status).status?.calendarProblems == nil })

        // Unchanged: asked with the ETag, answered 304.
        outcome = try daemon.cli("calendar", "refresh", "school")
        #expect(outcome.stdout == "school: not modified (\(url))\n")
        #expect(server.requests.last?.hasPrefix("GET /school.ics ok if-none-match=\"") == true)

        // Every way a fetch fails: the copy stays, the error shows, the holidays hold.
        let failures: [(mode: String, arguments: [String], error: String)] = [
            ("missing", [], "HTTP 404 (not found: has the address changed?)"),
            ("slow", ["--timeout", "1"], "no answer within 1 s"),
            ("huge", ["--max-size", "1"], "larger than 1 MiB; not taken"),
            ("endless", ["--max-size", "1"], "larger than 1 MiB; not taken"),
            ("broken", [], "line 1: not an iCalendar file: it must begin with BEGIN:VCALENDAR; not taken"),
        ]
        for failure in failures {
            try server.serve(failure.mode)
            outcome = try daemon.cli(["calendar", "refresh", "--force"] + failure.arguments)
            #expect(outcome.status == 1, "\(failure.mode): \(outcome)")
            #expect(
                outcome.stdout.hasPrefix("school: \(url): \(failure.error); keeping the copy fetched "),
                "\(failure.mode): \(outcome)")
            #expect(
                try daemon.waitFor(5) {
                    try daemon.request(.status).status?.calendarProblems?.first?.hasPrefix(
                        "calendar school: \(url): \(failure.error) (since ") == true
                }, "\(failure.mode)")
            #expect(try week(daemon)["2026-11-26"]?[1] == "holiday: Thanksgiving break", "\(failure.mode)")
        }
        #expect(try daemon.cli("status").stdout.contains("CALENDAR PROBLEM: calendar school: \(url): line 1"))

        // Backing off: without --force the server is not asked again.
        let asked = server.requests.count
        outcome = try daemon.cli("calendar", "refresh")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("(5 failures in a row); next try after "))
        // The time said is on the daemon's wall clock (Berlin), not this machine's: 80 minutes on.
        let berlin = try #require(Zone(builtIn: "Europe/Berlin"))
        let expected = (-1...1).map { minute -> String in
            let local = ZoneResolver(zone: berlin).local(at: Int(Date().timeIntervalSince1970) + (80 + minute) * 60)
            return "next try after \(local.date) \(local.time.hoursAndMinutes)"
        }
        #expect(expected.contains { outcome.stdout.contains($0) }, "\(outcome.stdout) \(expected)")
        #expect(server.requests.count == asked)
        var list = try daemon.cli("calendar", "list").stdout
        #expect(list.contains("calendar school: fetched 20"), "\(list)")
        #expect(list.contains("; next try about 20"), "\(list)")

        // Asked for now (the page's "Refresh now"): the daemon only writes the request, which the
        // clock's fetcher honours even while waiting after failures; asked again at once, the
        // file is left alone.
        outcome = try daemon.cli("calendar", "refresh", "--background")
        #expect(
            outcome.stdout
                == "asked the fetcher to fetch school now; 'reveille calendar list' shows when each arrives\n",
            "\(outcome)")
        #expect(server.requests.count == asked)
        var written = stat()
        #expect(stat(daemon.root.path + "/run/reveille/calendar-fetch-wanted", &written) == 0)
        #expect(written.st_mode & 0o777 == 0o644)
        #expect(try daemon.cli("calendar", "refresh", "--background").stdout.hasPrefix("a fetch was asked for at "))
        var again = stat()
        #expect(stat(daemon.root.path + "/run/reveille/calendar-fetch-wanted", &again) == 0)
        #expect(again.st_mtim.tv_nsec == written.st_mtim.tv_nsec && again.st_ino == written.st_ino)
        list = try daemon.cli("calendar", "list").stdout
        #expect(list.contains("; a fetch now was asked for at 20"), "\(list)")
        outcome = try daemon.cli("calendar", "refresh")
        #expect(outcome.status == 1 && outcome.stdout.contains("; keeping the copy fetched "), "\(outcome)")
        #expect(server.requests.count == asked + 1)
        #expect(try daemon.cli("calendar", "list").stdout.contains("; next try about 20"))
        #expect(try daemon.cli("calendar", "refresh").stdout.contains("; next try after "), "tried once, not again")
        #expect(
            try daemon.cli("calendar", "refresh", "--background", "school").stderr.contains(
                "--background fetches every web calendar"))

        // The school moves the break: fetched, read, the problem gone.
        try server.serve("ok", body: Self.thanksgiving.replacingOccurrences(of: "20261126", with: "20261125"))
        outcome = try daemon.cli("calendar", "refresh", "--force")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(try daemon.waitFor(5) { try week(daemon)["2026-11-25"]?[1] == "holiday: Thanksgiving break" })
        #expect(try daemon.waitFor(5) { try daemon.request(.status).status?.calendarProblems == nil })

        // A district's calendar holds more than days off: only what its filter keeps is a holiday.
        #expect(try daemon.cli("calendar", "rm", "school").status == 0)
        try server.serve("ok", body: Self.district)
        let invalid = try daemon.cli("calendar", "add", "district", url, "--holidays", "--only", "break||")
        #expect(invalid.status == 64 && invalid.stderr.contains("--only \"break||\": give up to 20 words"))
        outcome = try daemon.cli("calendar", "add", "district", url, "--holidays", "--only", "Break|holiday")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(try daemon.cli("calendar", "refresh").status == 0)
        #expect(try daemon.waitFor(5) { try week(daemon)["2026-11-27"]?[1] == "holiday: Winter break" })
        let days = try week(daemon)
        #expect(days["2026-11-25"]?[1] == "rings", "Back-to-school night is no holiday")
        #expect(days["2026-11-26"]?[1] == "rings", "nor is a timed meeting")
        #expect(days["2026-11-28"]?[1] == "holiday: Winter break")
        let next = try daemon.cli("next", "--days", "3").stdout
        #expect(next.contains("not a holiday: Back-to-school night (its calendar's filter leaves it out)"), "\(next)")
        list = try daemon.cli("calendar", "list").stdout
        #expect(
            list.contains(
                """
                calendar district: holidays are all-day events matching break|holiday; 1 event ahead kept, 2 left out:
                  2026-11-25 Back-to-school night: it matches none of --only
                  2026-11-26 Parent meeting: a timed event

                """), "\(list)")

        // A calendar that would parse forever stops at its CPU bound, and the others are fetched.
        let spinFolder = daemon.root.appendingPathComponent("spin-server")
        try FileManager.default.createDirectory(at: spinFolder, withIntermediateDirectories: true)
        let spin = try CalendarServer(root: spinFolder)
        try spin.serve("ok", body: Self.endless)
        let spinURL = "http://127.0.0.1:\(spin.port)/spin.ics"
        #expect(try daemon.cli("calendar", "add", "aaa-spin", spinURL, "--holidays").status == 0)
        try server.serve("ok", body: Self.district.replacingOccurrences(of: "Winter break", with: "Winter holiday"))
        let started = Date()
        outcome = try daemon.cli("calendar", "refresh", "--cpu-seconds", "2")
        #expect(outcome.status == 1, "\(outcome)")
        #expect(
            outcome.stdout.contains(
                "aaa-spin: \(spinURL): libical took more than 2 s of CPU on it (a recurrence rule that never ends?); refused"
            ), "\(outcome)")
        #expect(outcome.stdout.contains("district: fetched "), "\(outcome)")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try daemon.waitFor(5) { try week(daemon)["2026-11-27"]?[1] == "holiday: Winter holiday" })
    }

    /// A school district's calendar: a school night, a timed meeting and the break.
    static let district = ics(
        """
        BEGIN:VEVENT
        UID:night-2026
        SUMMARY:Back-to-school night
        DTSTART;VALUE=DATE:20261125
        END:VEVENT
        BEGIN:VEVENT
        UID:meeting-2026
        SUMMARY:Parent meeting
        DTSTART:20261126T170000Z
        DTEND:20261126T180000Z
        END:VEVENT
        BEGIN:VEVENT
        UID:winter-2026
        SUMMARY:Winter break
        CATEGORIES:School holiday
        DTSTART;VALUE=DATE:20261127
        DTEND;VALUE=DATE:20261129
        END:VEVENT

        """)
}

extension CalendarTests {
    @Test func calendarsAreParsedOutsideTheDaemonByAHelperWithNoCapability() throws {
        // The daemon links neither libical nor libcurl: it never parses a calendar, never fetches one.
        // Nor does `reveille`, which starts for every command: only reveille-calendar does.
        let tool = Binaries.directory.appendingPathComponent("reveille-calendar")
        for binary in [Binaries.daemon, Binaries.cli, tool] {
            let needed = try runProcess(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", binary.path]).stdout
            #expect(needed.contains("(NEEDED)"))
            let links = needed.contains("libical") && needed.contains("libcurl")
            #expect(links == (binary == tool), "\(binary.lastPathComponent): libical and libcurl linked: \(links)")
        }

        // The helper it runs instead drops every capability before it reads (here run as root: all).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-expand-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("school.ics")
        try Self.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        let outcome = try runProcess(
            tool, ["expand", file.path, "--from", "2026-11-01", "--through", "2026-12-31", "--zone", "Europe/Berlin"])
        #expect(outcome.status == 0, "\(outcome)")
        let reply = try JSONDecoder().decode(CalendarExpansion.self, from: Data(outcome.stdout.utf8))
        #expect(reply.capabilities == "0")
        #expect(reply.occurrences?.map(\.summary) == ["Thanksgiving break"])

        // A file that is not a calendar: an error in the reply, with its line, not a crash.
        try "BEGIN:VCALENDAR\nBEGIN:VEVENT\n".write(to: file, atomically: true, encoding: .utf8)
        let broken = try runProcess(
            tool, ["expand", file.path, "--from", "2026-11-01", "--through", "2026-12-31", "--zone", "Europe/Berlin"])
        let error = try JSONDecoder().decode(CalendarExpansion.self, from: Data(broken.stdout.utf8)).error
        #expect(error?.description == "line 2: BEGIN:VEVENT is never ended (END:VEVENT is missing)")
    }
}

extension CalendarTests {
    /// A rule libical would iterate forever (there is no 30 February, to the second).
    static let endless = ics(
        """
        BEGIN:VEVENT
        UID:spin
        SUMMARY:never
        DTSTART:20260101T000000Z
        RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30
        END:VEVENT

        """)
}

extension CalendarTests {
    @Test func aFIFOOrAHugeFileIsRefusedAtAddWithoutTheDaemonReadingIt() throws {
        let daemon = SharedDaemon.unchanged
        let fifo = daemon.root.appendingPathComponent("fifo-school.ics").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let fromFIFO = try daemon.cli("calendar", "add", "school", fifo, "--holidays")
        #expect(fromFIFO.status == 64 || fromFIFO.status == 1, "\(fromFIFO)")
        #expect(fromFIFO.stderr.contains("not a regular file (a FIFO)"), "\(fromFIFO)")
        let huge = daemon.root.appendingPathComponent("huge.ics").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 1 << 30) == 0)  // 1 GiB, sparse: nothing is written
        let fromHuge = try daemon.cli("calendar", "add", "huge", huge, "--holidays")
        #expect(fromHuge.stderr.contains("it is 1024 MiB, more than the 4 MiB a calendar may be"), "\(fromHuge)")
        #expect(FairSocketTests.residentKilobytes(daemon.process.processIdentifier) < 200_000)
        #expect(daemon.answersStatus())
    }
}

extension CalendarTests {
    /// A daemon beside a `reveille-calendar` that, once told to, sleeps `seconds` before reading:
    /// a slow disk, a huge calendar, a loaded machine. Returns the folder and the file that tells it.
    static func slowReaderFolder(seconds: Int) throws -> (folder: URL, slow: URL) {
        let folder = Binaries.directory.appendingPathComponent("slow-reader-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let daemon = folder.appendingPathComponent("reveilled")
        // A hard link where it can be (the same file system), else a copy: the daemon finds its
        // reader beside /proc/self/exe.
        if link(Binaries.daemon.path, daemon.path) != 0 {
            try FileManager.default.copyItem(at: Binaries.daemon, to: daemon)
        }
        let slow = folder.appendingPathComponent("slow")
        let reader = folder.appendingPathComponent("reveille-calendar")
        try """
        #!/bin/sh
        if [ -e '\(slow.path)' ]; then : > '\(slow.path).reading'; sleep \(seconds); : > '\(slow.path).read'; fi
        exec '\(Binaries.directory.appendingPathComponent("reveille-calendar").path)' "$@"

        """.write(to: reader, atomically: true, encoding: .utf8)
        chmod(reader.path, 0o755)
        return (folder, slow)
    }

    @Test func aCalendarReadThatTakesTwentySecondsDelaysNoRingAndNoRequest() throws {
        let (folder, slow) = try Self.slowReaderFolder(seconds: 20)
        defer {
            _ = try? runProcess(URL(fileURLWithPath: "/usr/bin/pkill"), ["-KILL", "-f", folder.path])
            try? FileManager.default.removeItem(at: folder)
        }
        let daemon = try DaemonHarness(
            now: instant("2026-11-24 10:00:00"), executable: folder.appendingPathComponent("reveilled"))
        let file = daemon.root.appendingPathComponent("school.ics")
        try Self.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        #expect(try daemon.cli("calendar", "add", "school", file.path, "--holidays").status == 0)

        // From now on each read takes 20 s: an edit of the file starts one.
        _ = FileManager.default.createFile(atPath: slow.path, contents: nil)
        try (Self.thanksgiving + "\r\n").write(to: file, atomically: true, encoding: .utf8)
        #expect(daemon.waitFor(5) { FileManager.default.fileExists(atPath: slow.path + ".reading") })

        // While it reads, the daemon answers, and an alarm rings on time.
        let add = try daemon.cli("alarm", "add", "--in", "2s", "--fade-in", "0")
        #expect(add.status == 0, "\(add)")
        #expect(try daemon.waitFor(6) { try daemon.request(.status).status?.session?.state == .ringing })
        #expect(!FileManager.default.fileExists(atPath: slow.path + ".read"), "the read was still under way")
        let line = try #require(daemon.logText().split(separator: "\n").first { $0.contains(" rings (due ") })
        let late = try #require(
            line.firstMatch(of: /started \+?(-?[0-9.]+) ms/).flatMap { Double($0.1) })
        // A loop that waited for the reader would be 18 s late; on time is a few milliseconds.
        #expect(late < 500, "\(line)")
        #expect(try daemon.cli("status").status == 0)
    }
}
