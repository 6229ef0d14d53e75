import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// The school-calendar design, in-process on virtual time with a holiday calendar written by the
/// test and read by the real `reveille-calendar`: a holiday gates every layer of an alarm that
/// skips holidays (a weekly rule on a holiday week stays silent), an override on such a day is
/// refused with what to do instead, and a snow day added to the file removes the override on it,
/// saying so to the log and to watchers.
@Suite struct HolidayLayerTests {
    typealias Clock = InProcessRingTests.Clock

    /// A calendar of all-day holidays: (first day, last day inclusive, name).
    static func calendar(_ holidays: [(String, String, String)]) -> String {
        CalendarTests.ics(
            holidays.enumerated().map { index, holiday in
                let end = HouseholdYearTests.date(holiday.1).adding(days: 1).description.replacingOccurrences(
                    of: "-", with: "")
                return
                    "BEGIN:VEVENT\nUID:h\(index)\nSUMMARY:\(holiday.2)\nDTSTART;VALUE=DATE:\(holiday.0.replacingOccurrences(of: "-", with: ""))\nDTEND;VALUE=DATE:\(end)\nEND:VEVENT\n"
            }.joined())
    }

    /// A clock on Monday 2026-11-30, a school alarm at 06:45 that skips holidays, a rule for
    /// Tuesdays at 07:45 (every alarm), and the winter break from 2026-12-21 to 2027-01-01.
    func school(_ extra: [(String, String, String)] = []) throws -> (Clock, URL) {
        let clock = try Clock(now: instant("2026-11-30 12:00:00"))
        var spec = AlarmSpec()
        spec.time = LocalTime(hour: 6, minute: 45)
        spec.days = .daily
        spec.label = "school"
        spec.skipHolidays = true
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(
            clock.request(
                .ruleAdd(alarmID: nil, days: DaySet([.tuesday]), change: .at(LocalTime(hour: 7, minute: 45)!))
            ).ok)
        let file = clock.folder.appendingPathComponent("school.ics")
        try Self.calendar([("2026-12-21", "2027-01-01", "Winter break")] + extra).write(
            to: file, atomically: true, encoding: .utf8)
        let added = clock.request(.calendarAdd(name: "school", source: file.path))
        #expect(added.ok, "\(added.error?.message ?? "")")
        return (clock, file)
    }

    @Test func aWeeklyRuleOnAHolidayWeekStaysSilent() throws {
        let (clock, _) = try school()
        let next = try #require(clock.request(.next(days: 30)).schedule)
        let tuesday = try #require(next.days.first { $0.date == "2026-12-22" })
        #expect(tuesday.entries.map(\.layer) == [.holiday])
        #expect(tuesday.entries.first?.rings == false)
        #expect(tuesday.entries.first?.note == "holiday: Winter break")
        // The Tuesday before the break still follows the rule.
        let before = try #require(next.days.first { $0.date == "2026-12-15" })
        #expect(before.entries.map(\.layer) == [.rule] && before.entries.first?.time == "07:45")
        // The deciding layer of the next ring, in status and `next --brief`.
        let status = try #require(clock.request(.status).status)
        let ring = try #require(status.nextRing)
        #expect(ring.date == "2026-12-01" && ring.layer == .rule && ring.sourceID == 1)
        #expect(
            StatusCommand.render(status).contains(
                "next ring: Tue 2026-12-01 07:45, alarm #1 school (in 19h 45m), by weekly rule #1"))
        #expect(
            NextCommand.brief(ring, now: status.nowInstant)
                == "Tue 07:45 #1 school (in 19h 45m; by weekly rule #1)")
    }

    @Test func anOverrideOnAHolidayIsRefusedSayingWhatToDoInstead() throws {
        let (clock, _) = try school()
        let ring = clock.request(
            .overrideAdd(alarmID: 1, date: "2026-12-23", change: .at(LocalTime(hour: 8, minute: 0)!)))
        #expect(ring.error?.code == .refused)
        #expect(
            ring.error?.message
                == "2026-12-23 is a holiday (Winter break) and alarm #1 school skips holidays, so an override cannot change that day; for a ring that day, add a one-time alarm: reveille alarm add 08:00 --date 2026-12-23"
        )
        let off = clock.request(.overrideAdd(alarmID: 1, date: "2026-12-23", change: .off))
        #expect(off.error?.message.hasSuffix("it is silent that day already") == true)
        // One for every alarm is taken (it concerns other alarms too), with a word for this one.
        let all = clock.request(.overrideAdd(alarmID: nil, date: "2026-12-23", change: .off))
        #expect(all.ok)
        #expect(
            all.warnings == [
                "alarm #1 school skips holidays: 2026-12-23 is one (Winter break), so it stays silent that day"
            ])
        // Moving an override onto a holiday is refused too.
        #expect(clock.request(.overrideAdd(alarmID: 1, date: "2026-12-02", change: .off)).ok)
        let moved = clock.request(
            .overrideEdit(id: 2, date: "2026-12-22", change: nil, alarmID: nil, allAlarms: false))
        #expect(moved.error?.code == .refused)
    }

    @Test func aSnowDayAddedToTheFileRemovesItsOverrideAndSaysSo() throws {
        let (clock, file) = try school()
        let late = clock.request(
            .overrideAdd(alarmID: 1, date: "2026-12-02", change: .at(LocalTime(hour: 8, minute: 0)!)))
        #expect(late.ok)
        #expect(clock.request(.overrideList).overrides?.map(\.id) == [1])
        // The school declares a snow day: the file is rewritten, and the daemon hears of it.
        try Self.calendar([("2026-12-21", "2027-01-01", "Winter break"), ("2026-12-02", "2026-12-02", "Snow day")])
            .write(to: file, atomically: true, encoding: .utf8)
        clock.daemon.controller.calendarFolderChanged(clock.folder.path)
        #expect(clock.request(.overrideList).overrides?.isEmpty == true)
        #expect(
            clock.log.text.contains(
                "override #1 (2026-12-02 at 08:00, alarm #1 school) removed: 2026-12-02 is now a holiday (Snow day) and alarm #1 school skips holidays"
            ))
        let removed = clock.daemon.outlets.published.compactMap { event -> RemovedOverride? in
            if case .overrideRemoved(let removed) = event { removed } else { nil }
        }
        #expect(removed.map(\.override.id) == [1] && removed.first?.holiday == "Snow day")
        #expect(
            StatusCommand.describe(.overrideRemoved(try #require(removed.first)))
                == "override #1 (2026-12-02) removed: that day is now a holiday (Snow day) and its alarm skips holidays"
        )
        // The day rings nothing; the next ring is the day after.
        let next = try #require(clock.request(.status).status?.nextRing)
        #expect(next.date == "2026-12-01" && next.time == "07:45", "the Tuesday rule")
        let snowDay = try #require(clock.request(.next(days: 5)).schedule?.days.first { $0.date == "2026-12-02" })
        #expect(snowDay.entries.map(\.layer) == [.holiday])
    }
}

/// A weekly rule never silently does nothing (docs/guide/schedule.md, "How the schedule decides"): one that would
/// decide no day is kept with a warning that says why and what rings instead.
@Suite struct IdleRuleTests {
    typealias Clock = InProcessRingTests.Clock

    func rule(_ clock: Clock, _ days: String, _ change: DayChange, alarm: Int? = nil) throws -> Response {
        clock.request(.ruleAdd(alarmID: alarm, days: try DaySet.parse(days), change: change))
    }

    /// With no alarm behind it, a rule for all alarms with a time rings by itself (the household
    /// ring): nothing to warn about.
    @Test func aRuleOnAClockWithoutAlarmsRingsByItself() throws {
        let clock = try Clock(now: instant("2026-11-30 12:00:00"))
        let added = try rule(clock, "tue", .at(LocalTime(hour: 7, minute: 45)!))
        #expect(added.ok && added.warnings == nil, "\(added.warnings ?? [])")
        let next = try #require(clock.request(.status).status?.nextRing)
        #expect(next.alarmID == Alarm.householdID && next.date == "2026-12-01" && next.time == "07:45")
    }

    @Test func onlyRulesWithNoAlarmBehindThemAreWarnedAbout() throws {
        let clock = try Clock(now: instant("2026-11-30 12:00:00"))
        var spec = AlarmSpec()
        spec.time = LocalTime(hour: 6, minute: 45)
        spec.days = try DaySet.parse("mon-fri")
        #expect(clock.request(.alarmAdd(spec: spec)).ok)
        #expect(try rule(clock, "wed", .off).warnings == nil, "it silences Wednesday's 06:45")
        #expect(try rule(clock, "sun", .off).warnings == ["rule #2 silences nothing: no alarm rings on sun"])
        // On Saturdays no alarm rings: this one rings by itself.
        #expect(try rule(clock, "sat", .at(LocalTime(hour: 9, minute: 0)!)).warnings == nil)
        // A rule for one alarm with a time makes it ring on a day it does not repeat: no warning.
        #expect(try rule(clock, "sat", .at(LocalTime(hour: 9, minute: 30)!), alarm: 1).warnings == nil)
        // Paused, a rule still has its alarm behind it: the pause is what `next` shows.
        #expect(clock.request(.pause(until: nil)).ok)
        #expect(try rule(clock, "thu", .at(LocalTime(hour: 7, minute: 0)!)).warnings == nil)
    }
}
