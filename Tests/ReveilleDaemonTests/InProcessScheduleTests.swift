import CSndFile
import Foundation
import ReveilleCore
import ReveilleProtocol
import ReveilleTestSupport
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// The schedule's bookkeeping in-process, on virtual time: past overrides purged when their day is
/// gone, reminders across a DST night and during a ring, and a holiday calendar that breaks, goes
/// and comes back (read by the real `reveille-calendar`). The end-to-end suites (CalendarTests,
/// ReminderDaemonTests, CLITourTests) keep what needs ALSA, the CLI's words and real folders.
@Suite struct InProcessScheduleTests {
    typealias Clock = InProcessRingTests.Clock

    @Test func pastOverridesArePurgedWhenTheDayIsGone() throws {
        let clock = try Clock(now: instant("2026-11-21 10:00:00"))
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-22", change: .off)).ok)
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-30", change: .off)).ok)
        // Two days later: the override for the 22nd is history, on the first request that reads.
        clock.wall.advance(Double(instant("2026-11-23 10:00:00") - instant("2026-11-21 10:00:00")))
        #expect(clock.request(.overrideList).overrides?.map(\.id) == [2])
        #expect(clock.request(.overrideList).overrides?.first?.date == "2026-11-30")
    }

    /// `dismiss --next` on one of two alarms due at the same minute: `alarm list`, `alarm show` and
    /// `status` all read the machine's next ring (`AlarmClock.nextUnhandledRing`), so none shows the
    /// ring that will not come, and the other alarm still rings.
    @Test func aRingDismissedEarlyIsShownNowhere() throws {
        let clock = try Clock(now: instant("2026-11-23 06:40:00"))
        clock.add("7:00", label: "first")
        clock.add("7:00", label: "second")
        let problem = try #require(clock.request(.unlock(alarmID: 1, answer: nil)).unlock?.problem)
        #expect(clock.request(.unlock(alarmID: 1, answer: solve(problem))).unlock?.unlocked == true)
        let early = clock.request(.dismissNext)
        #expect(early.ok, "\(early.error?.message ?? "")")
        let list = try #require(clock.request(.alarmList).alarms)
        #expect(list.map { $0.nextRing?.date } == ["2026-11-24", "2026-11-23"])
        let status = try #require(clock.request(.status).status)
        #expect(status.nextRing?.alarmID == 2 && status.nextRing?.date == "2026-11-23")
        #expect(status.earlyDismissal == true, "the second alarm can be dismissed early too")
        let today = try #require(clock.request(.next(days: 2)).schedule?.days.first?.entries)
        #expect(today.map(\.alarmID) == [1, 2])
        #expect(today.map(\.rings) == [false, true] && today.first?.note == "dismissed early")
        // A change to the first alarm answers with its next real ring, tomorrow's.
        var spec = AlarmSpec()
        spec.label = "renamed"
        let edited = clock.request(.alarmEdit(id: 1, spec: spec))
        #expect(edited.alarms?.first?.nextRing?.date == "2026-11-24", "\(edited.message ?? "")")
        clock.passToWake()
        #expect(clock.session?.alarmID == 2, "the second rings at 07:00")
    }

    /// `history --days N` and `stats --days N` are calendar days ending today, not N × 24 hours: at
    /// 07:00, last night's 23:50 ring is yesterday's.
    @Test func historyAndStatsCountCalendarDays() throws {
        let clock = try Clock(now: instant("2026-11-22 23:49:55"))
        clock.add("23:50")
        clock.passToWake()
        clock.dismissByMath()
        clock.wall.advance(Double(instant("2026-11-23 07:00:00") - instant("2026-11-22 23:50:00")))
        clock.daemon.controller.tick()
        #expect(clock.request(.history(days: 1)).history?.isEmpty == true)
        #expect(clock.request(.history(days: 2)).history?.map(\.scheduled) == ["2026-11-22 23:50"])
        #expect(clock.request(.stats(days: 1)).stats?.sessions == 0)
        let stats = try #require(clock.request(.stats(days: 2)).stats)
        #expect(stats.sessions == 1 && stats.dismissed == 1 && stats.missed == 0)
    }

    /// A reminder with a follow-up two hours later: `count` chime lines in the log.
    func chimes(_ clock: Clock) -> [String] {
        clock.log.text.split(separator: "\n").filter { $0.contains(") chimes (due ") }.map(String.init)
    }

    @Test func aFollowUpAcrossTheSpringForwardNightComesTwoRealHoursLater() throws {
        // 2026-03-29 in Berlin: at 02:00 CET the clock goes to 03:00 CEST.
        let clock = try Clock(now: instant("2026-03-29 01:29:57"))
        var spec = ReminderSpec()
        spec.text = "night feed"
        spec.date = "2026-03-29"
        spec.time = LocalTime(hour: 1, minute: 30)
        spec.followUps = [FollowUp(afterSeconds: 7200, text: "again")]
        let added = clock.request(.reminderAdd(spec: spec))
        #expect(added.ok, "\(added.error?.message ?? "")")
        clock.passToWake()
        #expect(chimes(clock).count == 1)
        #expect(chimes(clock).first?.contains("chimes (due 01:30)") == true)
        #expect(clock.audio.isPlaying, "the built-in chime")
        // 00:30 UTC + 2 h = 02:30 UTC, which is 04:30 CEST on the wall clock. (The machine may
        // wake in between, to look again at what is due; nothing chimes then.)
        while chimes(clock).count < 2, clock.wall.now().timeIntervalSince1970 < Double(instant("2026-03-29 06:00:00")) {
            clock.passToWake()
        }
        #expect(clock.wall.now().timeIntervalSince1970 == Double(instant("2026-03-29 04:30:00")))
        #expect(chimes(clock).count == 2)
        #expect(chimes(clock).last?.contains("\"again\" (reminder #1, 2 h after) chimes (due 04:30)") == true)
        #expect(chimes(clock).last?.contains("late") == false)
    }

    @Test func aReminderDueWhileAnAlarmRingsWaitsAndChimesOnceTheAlarmIsDismissed() throws {
        let clock = try Clock(now: instant("2026-11-23 06:59:55"))
        let sound = clock.folder.appendingPathComponent("vitamins.wav").path
        #expect(FileManager.default.createFile(atPath: sound, contents: Data(count: 64)))
        chmod(sound, 0o644)
        clock.add("7:00")
        var spec = ReminderSpec()
        spec.text = "vitamins"
        spec.days = .daily
        spec.time = LocalTime(hour: 7, minute: 0)
        spec.sound = sound
        let added = clock.request(.reminderAdd(spec: spec))
        #expect(added.ok, "\(added.error?.message ?? "")")
        clock.passToWake()
        #expect(clock.session?.state == .ringing)
        #expect(clock.log.text.contains("reminder \"vitamins\" waits until alarm #1 is quiet"))
        #expect(chimes(clock).isEmpty)
        // Time passes while it rings: still no chime over the alarm.
        clock.wall.advance(60)
        clock.daemon.controller.tick()
        #expect(chimes(clock).isEmpty)
        #expect(!clock.voice.said.contains { $0.hasPrefix("Reminder") }, "never spoken over the ring")
        clock.dismissByMath()
        #expect(chimes(clock).count == 1)
        #expect(clock.voice.said.last == "Reminder: vitamins.", "said once the alarm is quiet")
        let played = clock.audio.calls.compactMap { if case .play(let request) = $0 { request.sound } else { nil } }
        #expect(played.last == sound, "the reminder's own sound, after the alarm's")
    }

    /// Day → (alarm id → the note of a silent entry, or "rings").
    func week(_ clock: Clock) throws -> [String: [Int: String]] {
        CalendarTests.days(try #require(clock.request(.next(days: 7)).schedule))
    }

    /// A holiday calendar silences the alarms that skip holidays and names the holiday, in `next`,
    /// the list and `calendar show`; follows its file; refuses a second of its name; goes with
    /// `calendar rm`. A summary with escape sequences is shown escaped.
    @Test func aHolidayCalendarSilencesSkippingAlarmsAndNamesTheHoliday() throws {
        let clock = try Clock(now: instant("2026-11-24 10:00:00"))
        for (hour, skips) in [(7, true), (8, false)] {
            var spec = AlarmSpec()
            spec.time = LocalTime(hour: hour, minute: 0)
            spec.days = .daily
            spec.skipHolidays = skips
            #expect(clock.request(.alarmAdd(spec: spec)).ok)
        }
        let file = clock.folder.appendingPathComponent("school.ics")
        try CalendarTests.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        let added = clock.request(.calendarAdd(name: "school", source: file.path, purpose: "holidays"))
        #expect(added.message?.hasPrefix("added calendar school (#1): 4 holiday dates in the next two years") == true)
        var days = try week(clock)
        #expect(days["2026-11-25"] == [1: "rings", 2: "rings"])
        #expect(days["2026-11-26"] == [1: "holiday: Thanksgiving break", 2: "rings"])
        #expect(days["2026-11-29"]?[1] == "holiday: Thanksgiving break")
        #expect(days["2026-11-30"]?[1] == "rings")  // DTEND is exclusive
        #expect(clock.request(.calendarList).calendars?.first?.next == "2026-11-26 Thanksgiving break")
        let shown = clock.request(.calendarShow(calendar: "school", days: 90)).calendars?.first?.entries ?? []
        #expect(shown.contains("2026-11-26 to 2026-11-29  Thanksgiving break"), "\(shown)")
        let again = clock.request(.calendarAdd(name: "school", source: file.path, purpose: "holidays"))
        #expect(again.error?.message.contains("a calendar named school exists (#1") == true)

        // The school moves the break a day earlier: the file is saved over, the daemon reads it again.
        try CalendarTests.thanksgiving.replacingOccurrences(of: "20261126", with: "20261125").write(
            to: file, atomically: true, encoding: .utf8)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        #expect(try week(clock)["2026-11-25"]?[1] == "holiday: Thanksgiving break")

        // Removed: the alarm rings on those days again.
        #expect(clock.request(.calendarRemove(calendar: "school")).ok)
        days = try week(clock)
        #expect(days["2026-11-26"]?[1] == "rings")

        // A summary with escape sequences is shown escaped.
        let evil = clock.folder.appendingPathComponent("evil.ics").path
        try CalendarTests.ics(
            """
            BEGIN:VEVENT
            UID:evil
            SUMMARY:Break\u{1B}]0;owned\u{07}\u{1B}[2J
            DTSTART;VALUE=DATE:20261126
            DTEND;VALUE=DATE:20261127
            END:VEVENT

            """
        ).write(toFile: evil, atomically: true, encoding: .utf8)
        #expect(clock.request(.calendarAdd(name: "evil", source: evil, purpose: "holidays")).ok)
        let escaped = clock.request(.calendarShow(calendar: "evil", days: 90)).calendars?.first?.entries ?? []
        #expect(!escaped.joined().contains("\u{1B}"), "\(escaped)")
        #expect(escaped.joined().contains("Break\\u{1B}]0;owned\\u{7}\\u{1B}[2J"), "\(escaped)")
    }

    /// An override for all alarms at a time, on a day a holiday silences every alarm it would move,
    /// rings nothing: it is listed as silent, with the holiday, not as if it will ring; one the
    /// holiday does not touch is listed as it is.
    @Test func anOverrideAHolidaySilencesIsListedAsSilent() throws {
        let clock = try Clock(now: instant("2026-11-24 10:00:00"))
        var spec = AlarmSpec()
        (spec.time, spec.days, spec.skipHolidays) = (LocalTime(hour: 7, minute: 0), .daily, true)
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        let file = clock.folder.appendingPathComponent("school.ics")
        try CalendarTests.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        #expect(clock.request(.calendarAdd(name: "school", source: file.path)).ok)
        let eight = DayChange.at(LocalTime(hour: 8, minute: 0)!)
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-26", change: eight)).ok)
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-25", change: eight)).ok)
        let listed = try #require(clock.request(.overrideList).overrides)
        #expect(listed.map(\.date) == ["2026-11-26", "2026-11-25"] || listed.map(\.date) == ["2026-11-25", "2026-11-26"])
        #expect(listed.first { $0.date == "2026-11-26" }?.silent == "holiday: Thanksgiving break")
        #expect(listed.first { $0.date == "2026-11-25" }?.silent == nil)
    }

    @Test func aBrokenOrMissingFileKeepsTheLastGoodCopyEvenAcrossARestart() throws {
        let clock = try Clock(now: instant("2026-11-24 10:00:00"))
        var spec = AlarmSpec()
        spec.time = LocalTime(hour: 7, minute: 0)
        spec.days = .daily
        spec.skipHolidays = true
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        let file = clock.folder.appendingPathComponent("school.ics")
        try CalendarTests.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        let added = clock.request(.calendarAdd(name: "school", source: file.path))
        #expect(added.ok, "\(added.error?.message ?? "")")
        #expect(try week(clock)["2026-11-26"]?[1] == "holiday: Thanksgiving break")

        // Someone saves a half-edited file: an event that never ends.
        try CalendarTests.thanksgiving.replacingOccurrences(of: "END:VEVENT\r\n", with: "").write(
            to: file, atomically: true, encoding: .utf8)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        let problem =
            "calendar school: \(file.path) line 9: END:VCALENDAR where END:VEVENT was expected (BEGIN on line 4)"
        let status = try #require(clock.request(.status).status)
        #expect(status.calendarProblems?.first?.hasPrefix(problem) == true, "\(status.calendarProblems ?? [])")
        #expect(try week(clock)["2026-11-26"]?[1] == "holiday: Thanksgiving break")
        let shown = StatusCommand.render(status)
        #expect(shown.contains("CALENDAR PROBLEM: \(problem) (since 2026-11-24 10:00"))
        #expect(shown.contains("using the copy read 2026-11-24 10:00"))
        #expect(clock.log.text.contains("calendar school: \(file.path) line 9"))
        #expect(clock.request(.calendarList).calendars?.first?.problem?.contains("line 9: END:VCALENDAR") == true)

        // Restarted with the file still broken: the copy kept under the state folder is used.
        try clock.restart()
        #expect(try week(clock)["2026-11-26"]?[1] == "holiday: Thanksgiving break")
        #expect(clock.log.text.contains("calendar school: using the last good copy"))

        // The file goes: still the last good copy, and the reason changes.
        try FileManager.default.removeItem(at: file)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        #expect(
            clock.request(.status).status?.calendarProblems?.first?.contains("cannot read it: no such file") == true)
        #expect(try week(clock)["2026-11-26"]?[1] == "holiday: Thanksgiving break")

        // Mended: the problem is gone.
        try CalendarTests.thanksgiving.write(to: file, atomically: true, encoding: .utf8)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        #expect(clock.request(.status).status?.calendarProblems == nil)
    }

    /// The chimes watchers were told of.
    func told(_ clock: Clock) -> [ChimeInfo] {
        clock.daemon.outlets.published.compactMap { if case .reminder(let chime) = $0 { chime } else { nil } }
    }

    @Test func aReminderCarriesItsBodyToTheListTheWatchersAndTheVoiceAcrossARestart() throws {
        let clock = try Clock(now: instant("2026-11-24 18:59:58"))
        var spec = ReminderSpec()
        spec.text = "How did your session go?"
        spec.body = "  Reflect on your training: one thing that went well.  "
        spec.days = try DaySet.parse("tue,thu")
        spec.time = LocalTime(hour: 19, minute: 0)
        #expect(clock.request(.reminderAdd(spec: spec)).ok)
        try clock.restart()
        #expect(
            clock.request(.reminderList).reminders?.first?.body == "Reflect on your training: one thing that went well."
        )
        let today = try #require(clock.request(.next(days: 1)).schedule?.reminders?.first)
        #expect(today.detail == "Reflect on your training: one thing that went well.")
        clock.passToWake()
        #expect(told(clock).first?.detail == "Reflect on your training: one thing that went well.")
        #expect(
            clock.voice.said.last
                == "Reminder: How did your session go? Reflect on your training: one thing that went well.")
        #expect(
            StatusCommand.describe(.reminder(try #require(told(clock).first)))
                == "REMINDER: How did your session go? — Reflect on your training: one thing that went well. (reminder #1, due 19:00)"
        )
        // A body with a line break is refused; the empty one removes it.
        var bad = ReminderSpec()
        bad.body = "one\ntwo"
        #expect(
            clock.request(.reminderEdit(id: 1, spec: bad)).error?.message.hasPrefix("--body: control characters")
                == true)
        var none = ReminderSpec()
        none.body = ""
        #expect(clock.request(.reminderEdit(id: 1, spec: none)).ok)
        #expect(clock.request(.reminderList).reminders?.first?.body == nil)
    }

    @Test func aCalendarChimeSaysHowFarOffItsEventIsAndWhere() throws {
        let clock = try Clock(now: instant("2026-11-24 15:44:58"))
        let file = clock.folder.appendingPathComponent("family.ics")
        try CalendarTests.ics(
            """
            BEGIN:VEVENT
            UID:dentist
            SUMMARY:Dentist
            LOCATION:Hauptstraße 5\\, Berlin
            DTSTART;TZID=Europe/Berlin:20261124T160000
            END:VEVENT

            """
        ).write(to: file, atomically: true, encoding: .utf8)
        let added = clock.request(
            .calendarAdd(name: "family", source: file.path, purpose: "reminders", minutes: [15]))
        #expect(added.ok, "\(added.error?.message ?? "")")
        clock.passToWake()
        let chime = try #require(told(clock).first)
        #expect(chime.text == "Dentist")
        #expect(chime.detail == "starting in 15 minutes, at Hauptstraße 5, Berlin")
        #expect(clock.voice.said.last == "Reminder: Dentist, in 15 minutes, at Hauptstraße 5, Berlin.")
        // The appointment moves an hour later after its chime: that chime does not play again, so
        // neither `calendar list` nor `next` names it as coming.
        try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "T160000", with: "T170000").write(
            to: file, atomically: true, encoding: .utf8)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        let listed = try #require(clock.request(.calendarList).calendars?.first)
        #expect(listed.next == nil, "\(listed)")
        #expect(clock.request(.next(days: 1)).schedule?.reminders == nil)
    }

    /// A reminder calendar chimes 30 and 15 minutes before each event, the 30-minute one with its
    /// own sound; an event moved or cancelled after a chime: what played stays played, what is to
    /// come follows the file.
    @Test func aReminderCalendarChimesBeforeEachEventAndFollowsMovesAndCancellations() throws {
        let clock = try Clock(now: instant("2026-11-23 15:59:55"))
        let early = clock.folder.appendingPathComponent("chime-660.wav").path
        try Recording.sine(660, seconds: 0.5, sampleRate: 44_100, channels: 2).write(
            to: early, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        chmod(early, 0o644)
        let calendar = clock.folder.appendingPathComponent("club.ics")
        func write(swimAt start: String, cancelRun: Bool) throws {
            try CalendarTests.ics(
                """
                BEGIN:VEVENT
                UID:swim
                SUMMARY:Swim
                DTSTART;TZID=Europe/Berlin:\(start)
                END:VEVENT
                BEGIN:VEVENT
                UID:run
                SUMMARY:Run
                DTSTART;TZID=Europe/Berlin:20261123T190000
                \(cancelRun ? "STATUS:CANCELLED\n" : "")END:VEVENT
                BEGIN:VEVENT
                UID:meet
                SUMMARY:Meet
                DTSTART;TZID=Europe/Berlin:20261124T100000
                BEGIN:VALARM
                ACTION:DISPLAY
                DESCRIPTION:Meet
                TRIGGER:-PT5M
                END:VALARM
                END:VEVENT

                """
            ).write(to: calendar, atomically: true, encoding: .utf8)
        }
        try write(swimAt: "20261123T163000", cancelRun: false)
        let added = clock.request(
            .calendarAdd(
                name: "club", source: calendar.path, purpose: "reminders", minutes: [30, 15], sounds: ["30": early]))
        #expect(added.message?.contains("each chimes 30, 15 minutes before") == true, "\(added)")
        func rows() -> [String] {
            (clock.request(.next(days: 2)).schedule?.rows ?? []).filter { $0.reminder != nil }
                .map { "\($0.time ?? "") \($0.label ?? "")" }
        }
        #expect(rows() == ["16:00 Swim", "16:15 Swim", "18:30 Run", "18:45 Run", "09:55 Meet"])
        clock.passToWake()
        #expect(chimes(clock).count == 1)
        #expect(chimes(clock).first?.contains("\"Swim\" (calendar club, 30 min before) chimes (due 16:00)") == true)
        let played = clock.audio.calls.compactMap { if case .play(let request) = $0 { request.sound } else { nil } }
        #expect(played.first == early, "\(clock.audio.calls)")

        // Swim moves to 17:00 and Run is cancelled: the 30-minute chime already played stays
        // played, the 15-minute one moves, Run's go.
        try write(swimAt: "20261123T170000", cancelRun: true)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        #expect(rows() == ["16:45 Swim", "09:55 Meet"])
        clock.step(to: instant("2026-11-23 16:44:57"))
        clock.passToWake()
        #expect(chimes(clock).count == 2)
        #expect(chimes(clock).last?.contains("\"Swim\" (calendar club, 15 min before) chimes (due 16:45)") == true)
        #expect(clock.request(.calendarList).calendars?.first?.purpose == .reminders)
    }

    /// The month's key shows a time the month rings as set, not a fixed example.
    @Test func theMonthKeyShowsATimeOfThatMonth() throws {
        let december = try CivilDate.parse("2026-12-01")
        var report = ScheduleReport(labels: ["1": "school"], times: ["1": "07:10"])
        report.days = [ScheduleDay(date: "2026-12-01", weekday: "Tue", lines: "1")]
        let shown = MonthView.render(report, first: december, today: december, colour: false)
        #expect(shown.contains("\n07:10 as set   R weekly rule"), "\(shown)")
        let empty = MonthView.render(ScheduleReport(), first: december, today: december, colour: false)
        #expect(empty.contains("\na time as set   R weekly rule"), "\(empty)")
    }

    /// A one-shot that has had its ring is off, and the advice is a new date, not `enable` (which
    /// would only warn that its moment has passed).
    @Test func aUsedOneShotIsToldToTakeANewDateNotToBeEnabled() throws {
        let clock = try Clock(now: instant("2026-11-24 09:00:00"))
        clock.addIn(60, label: "tea")
        clock.passToWake()
        clock.dismissByMath()
        let alarm = try #require(clock.request(.alarmList).alarms?.first)
        #expect(!alarm.enabled)
        #expect(
            alarm.warnings == [
                "it was set for 2026-11-24 09:01, which has passed; to use it again, give it a new date ('reveille alarm edit 1 --date tomorrow')"
            ])
        var spec = AlarmSpec()
        spec.date = "tomorrow"
        spec.enabled = true
        let edited = clock.request(.alarmEdit(id: 1, spec: spec))
        #expect(edited.ok && edited.warnings == nil, "\(edited)")
        // One switched off before its moment is simply off.
        clock.addIn(3600, label: "later")
        #expect(clock.request(.alarmSetEnabled(id: 2, enabled: false)).warnings?.first?.hasPrefix("it is off") == true)
    }

    /// A reminder calendar not read yet says what that means for it: no chime, not "holidays".
    @Test func aReminderCalendarWithoutACopySaysNoneOfItsEventsChimes() throws {
        let clock = try Clock(now: instant("2026-11-24 10:00:00"))
        let added = clock.request(
            .calendarAdd(name: "club", source: "https://example.org/club.ics", purpose: "reminders", minutes: [15]))
        #expect(added.ok, "\(added.error?.message ?? "")")
        let problems = try #require(clock.request(.status).status?.calendarProblems)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasSuffix("; no good copy yet: none of its events chimes") == true, "\(problems)")
        #expect(problems.first?.contains("holidays") == false)
    }

    // MARK: The everyday commands' answers (the CLI prints them as they come)

    @Test func pauseUntilADateAndResume() throws {
        let clock = try Clock(now: instant("2026-11-21 10:00:00"))
        clock.add("6:45")
        #expect(
            clock.request(.pause(until: "2026-11-24")).message == "alarms paused; they ring again from Tue 2026-11-24")
        let next = try #require(clock.request(.next(days: 4)).schedule)
        let monday = try #require(next.rows.first { $0.date == "2026-11-23" })
        #expect(!monday.rings && monday.layer == .paused && monday.note == "paused until 2026-11-24")
        #expect(next.rows.first { $0.date == "2026-11-24" }.map { $0.rings && $0.layer == .base } == true)
        let paused = try #require(clock.request(.status).status)
        #expect(StatusCommand.render(paused).contains("alarms: paused until 2026-11-24 (1 of 1 enabled)"))
        #expect(clock.request(.pause(until: nil)).message == "alarms are off until 'reveille resume'")
        #expect(clock.request(.status).status?.nextRing == nil)
        #expect(clock.request(.resume).message == "alarms are on")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-22")
    }

    @Test func editEnableDisableAndRemove() throws {
        let clock = try Clock(now: instant("2026-11-21 10:00:00"))
        clock.add("6:45", days: "mon-fri")
        var spec = AlarmSpec()
        spec.time = LocalTime(hour: 7, minute: 0)
        spec.days = try DaySet.parse("mon-thu")
        spec.maxSnoozes = 0
        #expect(
            clock.request(.alarmEdit(id: 1, spec: spec)).message
                == "changed alarm #1: 07:00 mon-thu; next ring Mon 2026-11-23 07:00")
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).message == "disabled alarm #1: 07:00 mon-thu")
        #expect(
            clock.request(.alarmSetEnabled(id: 1, enabled: true)).message
                == "enabled alarm #1: 07:00 mon-thu; next ring Mon 2026-11-23 07:00")
        #expect(clock.request(.alarmList).alarms?.first?.maxSnoozes == 0)
        #expect(clock.request(.alarmRemove(id: 1)).message == "removed alarm #1")
        #expect(clock.request(.alarmList).alarms?.isEmpty == true)
    }

    @Test func aOneShotSetWithInRingsToTheSecond() throws {
        let clock = try Clock(now: instant("2026-11-21 13:40:00"))
        var spec = AlarmSpec()
        spec.inSeconds = 20 * 60
        spec.label = "nap"
        // On virtual time, exactly 14:00:00; seconds show only when not :00.
        #expect(
            clock.request(.alarmAdd(spec: spec)).message
                == "added alarm #1 nap: 14:00 once on 2026-11-21; next ring Sat 2026-11-21 14:00")
        clock.passToWake()
        #expect(clock.wall.now().timeIntervalSince1970 == Double(instant("2026-11-21 14:00:00")))
        #expect(clock.session?.state == .ringing)
    }
}

/// A committed ring that a holiday calendar would silence stands (README, "What a commitment
/// holds"): `next` says so, and the hold is kept in the state, so a restart in place (a reload of
/// reveille.toml, a crash) still rings it.
@Suite struct HeldRingTests {
    typealias Clock = InProcessRingTests.Clock

    func committedAndSnowed() throws -> Clock {
        // Tuesday 2026-11-24, 06:00 in Berlin; a daily 06:45 that skips holidays, committed for 2 h.
        let clock = try Clock(now: instant("2026-11-24 06:00:00"))
        var spec = AlarmSpec()
        spec.time = LocalTime(hour: 6, minute: 45)
        spec.days = .daily
        spec.skipHolidays = true
        spec.commitSeconds = 7200
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        let file = clock.folder.appendingPathComponent("snow.ics")
        try CalendarTests.ics(
            """
            BEGIN:VEVENT
            UID:snow
            SUMMARY:Snow day
            DTSTART;VALUE=DATE:20261124
            DTEND;VALUE=DATE:20261125
            END:VEVENT

            """
        ).write(to: file, atomically: true, encoding: .utf8)
        #expect(clock.request(.calendarAdd(name: "snow", source: file.path, purpose: "holidays")).ok)
        #expect(clock.log.text.contains("its ring at 06:45 stands"))
        return clock
    }

    func today(_ clock: Clock) throws -> ScheduleRow? {
        try #require(clock.request(.next(days: 2)).schedule).rows.first { $0.date == "2026-11-24" && $0.alarmID == 1 }
    }

    @Test func nextShowsTheHeldRingAsCommitted() throws {
        let clock = try committedAndSnowed()
        let row = try #require(try today(clock))
        #expect(row.rings, "\(row.note)")
        #expect(row.note.hasPrefix("committed: rings despite the holiday (Snow day)"), "\(row.note)")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-24")
    }

    @Test(arguments: [false, true]) func theHoldSurvivesARestart(crash: Bool) throws {
        let clock = try committedAndSnowed()
        if crash { try clock.crash() } else { try clock.restart() }
        #expect(try today(clock)?.rings == true)
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-24")
        clock.passToWake()
        #expect(clock.session?.alarmID == 1, "the committed ring rings after the restart")
        clock.dismissByMath()
        // The day after, the hold is gone with its day: the next holiday-free day rings as usual.
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-25")
    }
}

/// Commitment judges the ring an alarm really has (docs/guide/ringing.md, "What a commitment holds").
@Suite struct CommitmentJudgesTheRightRingTests {
    typealias Clock = InProcessRingTests.Clock

    /// A weekend rule for all alarms rings as the household's ring on a Saturday; a committed
    /// Mon–Thu alarm has no ring that day, so pausing the Saturday is free, and its own next ring
    /// (Monday's) is what the reply to adding it names.
    @Test func aWeekendRuleForAllAlarmsIsNotAWeekdayAlarmsRing() throws {
        // Saturday 2026-11-28, 07:00 in Berlin.
        let clock = try Clock(now: instant("2026-11-28 07:00:00"))
        #expect(try clock.addWeekendRule())
        var spec = AlarmSpec()
        spec.label = "Kid school"
        spec.time = LocalTime(hour: 6, minute: 30)
        spec.days = try DaySet.parse("mon-thu")
        spec.commitSeconds = 3 * 3600
        let added = clock.request(.alarmAdd(spec: spec))
        #expect(added.alarms?.first?.nextRing?.date == "2026-11-30", "\(added.message ?? "")")
        #expect(added.message?.contains("next ring Mon 2026-11-30 06:30") == true, "\(added.message ?? "")")
        let paused = clock.request(.pause(until: "2026-11-29"))
        #expect(paused.ok, "\(paused.error?.message ?? "")")
    }

    /// Turning a committed alarm back on makes it ring more, never less: no challenge, on the
    /// command or as a whole edit (the page sends every field).
    @Test(arguments: [false, true]) func turningACommittedAlarmBackOnIsFree(asEdit: Bool) throws {
        // Monday 2026-11-23, 22:00 in Berlin: outside the 1 h commitment of a 06:30 ring.
        let clock = try Clock(now: instant("2026-11-23 22:00:00"))
        var spec = AlarmSpec()
        spec.label = "Committed nap"
        spec.time = LocalTime(hour: 6, minute: 30)
        spec.days = .daily
        spec.commitSeconds = 3600
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).ok)
        // 06:00: inside the window the ring would have had.
        clock.wall.advance(8 * 3600)
        clock.daemon.controller.tick()
        let reply: Response
        if asEdit {
            spec.enabled = true
            reply = clock.request(.alarmEdit(id: 1, spec: spec))
        } else {
            reply = clock.request(.alarmSetEnabled(id: 1, enabled: true))
        }
        #expect(reply.ok, "\(reply.error?.message ?? "")")
        #expect(clock.request(.status).status?.nextRing?.time == "06:30")
    }
}

extension CommitmentJudgesTheRightRingTests {
    /// A committed nap (a one-shot at 10:00) that was turned off, on a Saturday whose weekend rule
    /// for all alarms rings the household at 09:00: turning it back on is free (the household's
    /// ring was taken for the nap's, and the nap's 10:00 for a ring moved later).
    @Test func turningACommittedNapBackOnIsFree() throws {
        let clock = try Clock(now: instant("2026-11-27 20:00:00"))
        #expect(try clock.addWeekendRule())
        var spec = AlarmSpec()
        spec.label = "Committed nap"
        spec.time = LocalTime(hour: 10, minute: 0)
        spec.date = "2026-11-28"
        spec.commitSeconds = 3 * 3600
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).ok, "outside its window")
        clock.wall.advance(Double(instant("2026-11-28 07:30:00") - instant("2026-11-27 20:00:00")))
        clock.daemon.controller.tick()
        let on = clock.request(.alarmSetEnabled(id: 1, enabled: true))
        #expect(on.ok, "\(on.error?.message ?? "")")
        #expect(clock.request(.status).status?.nextRing?.time == "10:00")
    }
}

/// A schedule driven by layers alone (a custody weekend): what an override turns off is said.
@Suite struct LayersAloneOverrideTests {
    typealias Clock = InProcessRingTests.Clock

    /// Only a weekend rule rings (as the household's ring); an override that turns Sunday off
    /// silences that ring: no "silences nothing" warning, and `next` shows the day as off by the
    /// override (the month colours its day from the same rows).
    @Test func anOverrideOffSilencesTheHouseholdRingAndSaysSo() throws {
        let clock = try Clock(now: instant("2026-11-27 20:00:00"))
        #expect(try clock.addWeekendRule())
        let off = clock.request(.overrideAdd(alarmID: nil, date: "2026-11-29", change: .off))
        #expect(off.ok)
        #expect(off.warnings == nil, "\(off.warnings ?? [])")
        let report = try #require(clock.request(.next(days: 3)).schedule)
        let sunday = report.rows.filter { $0.date == "2026-11-29" }
        #expect(sunday.count == 1)
        #expect(sunday.first?.layer == .override && sunday.first?.rings == false, "\(sunday)")
        #expect(sunday.first?.time == "09:00", "\(sunday)")
        #expect(report.rows.first { $0.date == "2026-11-28" }?.rings == true)
        // An override "off" on a day nothing rings still says so.
        let idle = clock.request(.overrideAdd(alarmID: nil, date: "2026-11-30", change: .off))
        #expect(idle.warnings?.first?.contains("silences nothing") == true)
    }

    /// An override for today at a time already past rings nothing, and the alarm's later ring today
    /// is gone with it: said, not silent.
    @Test func anOverrideTodayAtATimePastSaysTheRingItDrops() throws {
        let clock = try Clock(now: instant("2026-11-27 08:00:00"))
        clock.add("9:00")
        let moved = clock.request(
            .overrideAdd(alarmID: 1, date: "2026-11-27", change: .at(LocalTime(hour: 7, minute: 45)!)))
        #expect(moved.ok)
        let warning = try #require(moved.warnings?.first)
        #expect(warning.contains("07:45 on 2026-11-27 has passed, so it rings nothing"), "\(warning)")
        #expect(warning.contains("09:00"), "\(warning)")
    }
}

/// A one-time alarm whose moment has passed cannot be turned on (it would show on and never
/// ring): refused, saying when it was and how to give it a new date; with a new date it can.
@Suite struct PassedOneShotTests {
    typealias Clock = InProcessRingTests.Clock

    @Test func aPassedOneShotIsNotTurnedOnAgain() throws {
        let clock = try Clock(now: instant("2026-11-28 09:00:00"))
        var spec = AlarmSpec()
        spec.label = "Nap"
        spec.time = LocalTime(hour: 10, minute: 0)
        spec.date = "2026-11-28"
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).ok)
        clock.wall.advance(2 * 3600)
        clock.daemon.controller.tick()
        let on = clock.request(.alarmSetEnabled(id: 1, enabled: true))
        #expect(on.error?.code == .refused)
        #expect(on.error?.message.contains("was set for Sat 2026-11-28 10:00, which has passed") == true, "\(on)")
        #expect(clock.request(.alarmList).alarms?.first?.enabled == false)
        var edit = AlarmSpec()
        edit.enabled = true
        #expect(clock.request(.alarmEdit(id: 1, spec: edit)).error?.code == .refused)
        edit.date = "2026-11-29"
        let moved = clock.request(.alarmEdit(id: 1, spec: edit))
        #expect(moved.ok, "\(moved.error?.message ?? "")")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-29")
    }
}

/// A browser that is not an admin's, the kiosk's loopback included, gets nothing about the
/// household's people (docs/guide/screen.md, "Who may use it"); the socket's own users keep what their role gives.
@Suite struct BrowserPrivacyTests {
    typealias Clock = InProcessRingTests.Clock

    @Test(arguments: [
        Command.appsOverview, .appList, .appExport, .appRequests, .history(days: 1), .stats(days: 1), .calendarList,
        .calendarShow(calendar: "x", days: 1), .alarmTest(id: 1), .appsStatus(user: "leo"),
        .appCheck(name: "x", user: "leo"),
    ])
    func aUsersBrowserIsRefusedWhatIsAboutPeople(command: Command) throws {
        let clock = try Clock(now: instant("2026-11-28 09:00:00"))
        let served = { (role: Role, relayed: Bool) -> Response? in
            guard
                case .answer(let response) = clock.daemon.requests.serve(
                    command, role: role, relayed: relayed, refusal: { "no" })
            else { return nil }
            return response
        }
        let browser = try #require(served(.user, true))
        #expect(browser.error?.code == .forbidden && browser.error?.message == Command.notAnAdminsBrowser, "\(browser)")
        // The same request from the socket's user, or from an admin's browser, is not refused so.
        #expect(served(.user, false)?.error?.message != Command.notAnAdminsBrowser)
        #expect(served(.admin, true)?.error?.message != Command.notAnAdminsBrowser)
    }

    @Test func whatTheClockFaceNeedsIsServed() throws {
        let clock = try Clock(now: instant("2026-11-28 09:00:00"))
        for command in [Command.status, .alarmList, .next(days: 2), .appsStatus(user: nil), .reminderList, .snooze] {
            #expect(!command.forAdminBrowsersOnly, "\(command.name)")
        }
        guard
            case .answer(let status) = clock.daemon.requests.serve(
                .status, role: .user, relayed: true, refusal: { "no" })
        else { return }
        #expect(status.ok)
    }
}

/// An alarm's sheet with a key this version does not know is refused with the key named, never
/// saved without it ("difficulty" for "mathDifficulty").
@Suite struct UnknownSettingTests {
    @Test func anUnknownKeyInAnAlarmsSpecIsNamed() throws {
        let line = Array(#"{"v":1,"op":{"alarmAdd":{"spec":{"time":"06:45","difficulty":"hard"}}}}"#.utf8)
        guard case .failure(let error) = Connection.decode(line) else {
            Issue.record("an alarm with \"difficulty\" was taken")
            return
        }
        let message = error.response.error?.message ?? ""
        #expect(error.response.error?.code == .invalid)
        #expect(message.hasPrefix("alarm: unknown setting \"difficulty\"; the settings are "), "\(message)")
        #expect(message.contains("mathDifficulty"))
        let good = Array(#"{"v":1,"op":{"alarmAdd":{"spec":{"time":"06:45","mathDifficulty":"hard"}}}}"#.utf8)
        guard case .success = Connection.decode(good) else {
            Issue.record("a good alarm was refused")
            return
        }
    }
}

/// A reminder calendar's keyword filters, as a holiday calendar's (the notifier design): only the
/// events whose title has one of the words chime, never those with an excluded one.
@Suite struct ReminderCalendarFilterTests {
    typealias Clock = InProcessRingTests.Clock

    @Test func onlyTheEventsTheWordsLetThroughChime() throws {
        let clock = try Clock(now: instant("2026-11-24 08:00:00"))
        let file = clock.folder.appendingPathComponent("club.ics")
        try CalendarTests.ics(
            """
            BEGIN:VEVENT
            UID:training
            SUMMARY:Training (juniors)
            DTSTART;TZID=Europe/Berlin:20261124T170000
            END:VEVENT
            BEGIN:VEVENT
            UID:meeting
            SUMMARY:Board meeting
            DTSTART;TZID=Europe/Berlin:20261124T180000
            END:VEVENT
            BEGIN:VEVENT
            UID:night
            SUMMARY:Training night run
            DTSTART;TZID=Europe/Berlin:20261124T200000
            END:VEVENT

            """
        ).write(to: file, atomically: true, encoding: .utf8)
        let added = clock.request(
            .calendarAdd(
                name: "club", source: file.path, purpose: "reminders", minutes: [15], only: "training",
                except: "night"))
        #expect(added.ok, "\(added.error?.message ?? "")")
        let chimes = try #require(clock.request(.next(days: 1)).schedule?.reminders).map(\.text)
        #expect(chimes.contains { $0.contains("Training (juniors)") }, "\(chimes)")
        #expect(!chimes.contains { $0.contains("Board meeting") || $0.contains("night run") }, "\(chimes)")
        let listed = try #require(clock.request(.calendarList).calendars?.first)
        #expect(listed.filter == "all events matching training, except night")
        // --timed stays a holiday calendar's.
        let timed = clock.request(
            .calendarAdd(name: "club2", source: file.path, purpose: "reminders", minutes: [15], timed: true))
        #expect(timed.error?.message.hasPrefix("--timed is for holiday calendars") == true)
    }
}

extension InProcessRingTests.Clock {
    /// A weekly rule for all alarms, Saturdays and Sundays at 09:00 (a custody weekend): whether
    /// it was added.
    func addWeekendRule() throws -> Bool {
        request(.ruleAdd(alarmID: nil, days: try DaySet.parse("sat,sun"), change: .at(LocalTime(hour: 9, minute: 0)!)))
            .ok
    }
}
