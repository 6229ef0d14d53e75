import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// What `history`, `month` and `alarm list` show, in-process on virtual time: the machine's
/// reports read through the CLI's own rendering functions. The CLI's parsing and its exit codes
/// stay end to end (CLIPolishTests, BadInputTests).
@Suite struct InProcessReportTests {
    typealias Clock = InProcessRingTests.Clock

    static let saturday = CLITourTests.saturdayMorning

    /// Two alarms due together are one ring (the second joins); a tag alarm with no reader has math
    /// stand in; an alarm set `--in` to the second is shown to the second.
    @Test func historySaysHowEachRingEnded() throws {
        let clock = try Clock(now: Self.saturday)
        clock.reader.health = .notConfigured
        try clock.restart()  // the reader was never configured: so it starts
        clock.add("10:01", label: "first", challenge: .nfc)
        clock.add("10:01", label: "second")
        clock.addIn(125, label: "nap")
        clock.passToWake()
        #expect(clock.session?.state == .ringing)
        #expect(clock.log.text.contains("alarm #2 second is due with #1 first; it rings as that session"))
        // Math standing in for the tag: three hard problems.
        for _ in 0..<3 {
            let problem = try #require(clock.request(.problem).payloadProblem)
            #expect(clock.request(.answer(value: solve(problem))).ok)
        }
        #expect(clock.session == nil)
        let entries = clock.history
        #expect(entries.count == 1, "one ring, no miss")
        let first = try #require(entries.first)
        #expect(first.fellBackToMath == true && first.joined == [2])
        #expect(
            HistoryCommand.outcome(first).hasSuffix(
                "; math stood in for the tag (the NFC reader was not configured; it was not working when the alarm rang); #2 joined"
            ), "\(HistoryCommand.outcome(first))")
        clock.passToWake()
        clock.dismissByMath()
        let nap = try #require(clock.history.first { $0.label == "nap" })
        #expect(nap.scheduled == "2026-11-21 10:02:05", "set to the second, shown to the second")
        #expect(
            HistoryCommand.outcome(nap).hasPrefix("dismissed by math at 10:02:05"), "\(HistoryCommand.outcome(nap))")
    }

    /// `alarm list` pads a label by its width on a terminal: a CJK character takes two columns, an
    /// emoji two.
    @Test func alarmListPadsWideLabelsByTheirWidth() throws {
        let clock = try Clock(now: Self.saturday)
        for (time, label) in [("6:00", "起床"), ("6:30", "run 🏃")] {
            var spec = AlarmSpec()
            spec.time = try LocalTime.parse(time)
            spec.days = try DaySet.parse("mon-fri")
            spec.label = label
            #expect(clock.request(.alarmAdd(spec: spec)).ok)
        }
        let alarms = try #require(clock.request(.alarmList).alarms)
        #expect(
            String(decoding: AlarmCommand.List.table(alarms).bytes(), as: UTF8.self) == """
                ID  LABEL   TIME   REPEAT   ON   CHALLENGE  SNOOZES  NEXT RING
                1   起床    06:00  mon-fri  yes  math       3x9m     Mon 2026-11-23 06:00
                2   run 🏃  06:30  mon-fri  yes  math       3x9m     Mon 2026-11-23 06:30

                """)
    }

    /// Each day's deciding layer in the month grid: as set, a weekly rule, a date override, silent,
    /// paused; the colours name the layer.
    @Test func theMonthViewShowsEachDaysDecidingLayer() throws {
        let clock = try Clock(now: Self.saturday)
        var work = AlarmSpec()
        work.time = try LocalTime.parse("6:45")
        work.days = try DaySet.parse("mon-fri")
        work.label = "work"
        #expect(clock.request(.alarmAdd(spec: work)).ok)
        #expect(
            clock.request(
                .ruleAdd(alarmID: nil, days: try DaySet.parse("wed"), change: .at(try LocalTime.parse("7:30")))
            ).ok)
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-27", change: .off)).ok)
        #expect(
            clock.request(.overrideAdd(alarmID: nil, date: "2026-12-01", change: .at(try LocalTime.parse("8:15")))).ok)
        let today = try CivilDate.parse("2026-11-21")
        func month(_ first: String, colour: Bool) throws -> String {
            let first = try CivilDate.parse(first)
            let last = first.adding(
                days: CivilDate.daysIn(month: first.components.month, year: first.components.year) - 1)
            let report = try #require(clock.request(.next(days: last.dayNumber - today.dayNumber + 1)).schedule)
            return MonthView.render(report, first: first, today: today, colour: colour)
        }
        #expect(
            try month("2026-11-01", colour: false) == """
                November 2026
                Mon      Tue      Wed      Thu      Fri      Sat      Sun
                                                                       1 .
                 2 .      3 .      4 .      5 .      6 .      7 .      8 .
                 9 .     10 .     11 .     12 .     13 .     14 .     15 .
                16 .     17 .     18 .     19 .     20 .     21*      22
                23 06:45 24 06:45 25 07:30R 26 06:45 27 -O    28       29
                30 06:45

                06:45 as set   R weekly rule   O date override   H holiday   P paused   - silent   * today

                """)
        let colour = try month("2026-12-01", colour: true)
        #expect(colour.contains(" 1 \u{1B}[32m08:15O\u{1B}[0m"), "override green")
        #expect(colour.contains(" 2 \u{1B}[34m07:30R\u{1B}[0m"), "rule blue")
        #expect(colour.contains(" 3 \u{1B}[38;5;208m06:45\u{1B}[0m"), "base orange")
        #expect(clock.request(.pause(until: "2026-12-10")).ok)
        #expect(
            try month("2026-12-01", colour: true).contains(" 3 \u{1B}[2;9m-P\u{1B}[0m"), "paused: dim, struck through")
    }

    /// A pairing code lasts ten minutes of the daemon's clock; 200 wrong guesses void every open code.
    @Test func pairingCodesExpireAndGuessingVoidsThem() throws {
        let clock = try Clock(now: Self.saturday)
        let stale = try #require(clock.request(.webPair(role: .user, name: "phone")).web?.code)
        clock.wall.advance(601)
        #expect(clock.request(.webRedeem(code: stale)).error?.code == .notFound)

        let open = try #require(clock.request(.webPair(role: .user, name: "phone")).web?.code)
        // A few guesses leave it open; 200 void it.
        for guess in 0..<20 { _ = clock.request(.webRedeem(code: String(format: "0000-%04d", guess))) }
        #expect(!clock.log.text.contains("every open code is voided"))
        for guess in 20..<200 { _ = clock.request(.webRedeem(code: String(format: "0000-%04d", guess))) }
        #expect(clock.request(.webRedeem(code: open)).error?.code == .notFound)
        #expect(clock.log.text.contains("wrong pairing codes: every open code is voided"))
        // A fresh code after that works, once.
        let fresh = try #require(clock.request(.webPair(role: .user, name: "phone")).web?.code)
        #expect(clock.request(.webRedeem(code: fresh)).web?.token?.count == 64)
        #expect(clock.request(.webRedeem(code: fresh)).error?.code == .notFound)
    }

    /// With the reader not working, `tag add` and `tag test` refuse at once (never asking for a
    /// tap), and say how to do without it.
    @Test func tagCommandsWithoutAWorkingReaderRefuseAtOnce() throws {
        let clock = try Clock(now: Self.saturday)
        clock.reader.health = .absent("no device at /nonexistent/reveille-reader")
        clock.daemon.controller.readerHealthChanged(clock.reader.health)
        for command in [Command.tagAdd(label: "bathroom", uid: nil, timeoutSeconds: 30), .tagTest(timeoutSeconds: 30)] {
            let refused = clock.daemon.request(command, connection: 3)
            #expect(refused?.error?.code == .unavailable, "never parked: \(command.name)")
            #expect(refused?.error?.message.hasPrefix("the NFC reader is not working (") == true)
            #expect(refused?.error?.message.hasSuffix("or give the tag's UID with --uid") == true)
        }
        #expect(clock.reader.pollingReasons.isEmpty, "nobody was asked to tap")
    }

    /// An alarm that cannot ring as set is accepted with a warning that says why (paused, every
    /// day silenced by a rule, a tag with no reader); a one-shot whose day went by silenced is
    /// turned off, and `alarm show` says to give it a new date.
    @Test func anAlarmThatCannotRingIsAcceptedWithAWarning() throws {
        let clock = try Clock(now: Self.saturday)
        clock.reader.health = .notConfigured
        try clock.restart()
        #expect(clock.request(.pause(until: "2026-11-30")).ok)
        var dentist = AlarmSpec()
        dentist.time = try LocalTime.parse("7:00")
        dentist.date = "2026-11-25"
        dentist.label = "dentist"
        let paused = clock.request(.alarmAdd(spec: dentist))
        #expect(paused.message == "added alarm #1 dentist: 07:00 once on 2026-11-25")
        #expect(paused.warnings == ["alarms are paused until Mon 2026-11-30: nothing rings before then"])
        #expect(clock.request(.resume).ok)
        #expect(clock.request(.ruleAdd(alarmID: nil, days: try DaySet.parse("sat,sun"), change: .off)).ok)
        var lieIn = AlarmSpec()
        lieIn.time = try LocalTime.parse("9:00")
        lieIn.days = try DaySet.parse("weekends")
        lieIn.label = "lie-in"
        let silenced = "weekly rules silence every day it repeats (sat,sun); see 'reveille rule list'"
        #expect(clock.request(.alarmAdd(spec: lieIn)).warnings == [silenced])
        var tagged = AlarmSpec()
        tagged.time = try LocalTime.parse("6:00")
        tagged.days = try DaySet.parse("mon-fri")
        tagged.challenge = .nfc
        let noReader =
            "--challenge nfc, but no NFC reader is configured: a math problem stands in ([nfc] device in reveille.toml)"
        #expect(clock.request(.alarmAdd(spec: tagged)).warnings == [noReader])
        #expect(clock.request(.alarmList).alarms?.map { $0.warnings ?? [] } == [[], [silenced], [noReader]])
        // The one-shot's day goes by without a ring (silenced by an override): it is turned off.
        #expect(clock.request(.overrideAdd(alarmID: 1, date: "2026-11-25", change: .off)).ok)
        clock.wall.advance(Double(instant("2026-11-26 08:00:00") - Self.saturday))
        clock.daemon.controller.tick()
        #expect(clock.log.text.contains("alarm #1 dentist: its day (2026-11-25) is over and it did not ring"))
        let shown = AlarmCommand.Show.render(try #require(clock.request(.alarmList).alarms?.first))
        #expect(shown.contains("  on          no\n"))
        #expect(
            shown.contains(
                "  warning     it was set for 2026-11-25 07:00, which has passed; to use it again, give it a new date ('reveille alarm edit 1 --date tomorrow')\n"
            ), "\(shown)")
        #expect(
            StatusCommand.render(try #require(clock.request(.status).status)).contains("alarms: on (2 of 3 enabled)"))
    }

    /// A weekly rule that would cover a day another rule covers is refused, naming that rule and
    /// how to change it.
    @Test func aDuplicateWeeklyRuleIsRefusedNamingTheExistingOne() throws {
        let clock = try Clock(now: Self.saturday)
        #expect(
            clock.request(
                .ruleAdd(alarmID: nil, days: try DaySet.parse("sat,sun"), change: .at(try LocalTime.parse("9:00")))
            ).ok)
        let duplicate = clock.request(.ruleAdd(alarmID: nil, days: try DaySet.parse("sun"), change: .off))
        #expect(
            duplicate.error?.message
                == "rule #1 (sat,sun at 09:00, all alarms) already covers sun; change that one instead with 'reveille rule edit 1' (or remove it: 'reveille rule rm 1')"
        )
        #expect(clock.request(.ruleList).rules?.map(\.days) == ["sat,sun"])
    }
}
