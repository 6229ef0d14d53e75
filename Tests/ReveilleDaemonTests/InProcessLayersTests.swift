import Foundation
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Testing

@testable import ReveilleCLI
@testable import ReveilleDaemon

/// Rules and overrides as the school-calendar design means them (README, "How the schedule
/// decides"): with no alarm behind them they ring by themselves, as the household's ring; a
/// disabled alarm skips its base only. In-process, on virtual time.
@Suite struct InProcessLayersTests {
    typealias Clock = InProcessRingTests.Clock

    static func rule(_ days: String, _ change: DayChange, alarm: Int? = nil) throws -> Command {
        .ruleAdd(alarmID: alarm, days: try DaySet.parse(days), change: change)
    }

    static func at(_ time: String) throws -> DayChange { .at(try LocalTime.parse(time)) }

    /// The entries of `next` that ring, as `date alarmID time layer`.
    static func rings(_ clock: Clock, days: Int) throws -> [String] {
        let report = try #require(clock.request(.next(days: days)).schedule)
        return report.days.flatMap { day in
            day.entries.filter(\.rings).map {
                "\(day.date) #\($0.alarmID) \($0.time ?? report.times[String($0.alarmID)] ?? "?") \($0.layer.rawValue)"
            }
        }
    }

    /// A custody schedule on a clock with no alarm at all: weekend mornings by a rule, one
    /// Wednesday by an override. Each is taken without a warning, shown by `next` and `status`,
    /// rings with the household's settings, and is stopped and recorded like any ring.
    @Test func aCustodyScheduleRingsWithNoAlarm() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))  // a Friday
        let rule = clock.request(try Self.rule("sat,sun", try Self.at("9:00")))
        #expect(rule.ok && rule.warnings == nil, "\(rule.warnings ?? [])")
        let override = clock.request(.overrideAdd(alarmID: nil, date: "2026-12-02", change: try Self.at("7:15")))
        #expect(override.ok && override.warnings == nil, "\(override.warnings ?? [])")
        #expect(
            try Self.rings(clock, days: 7) == [
                "2026-11-28 #0 09:00 rule", "2026-11-29 #0 09:00 rule", "2026-12-02 #0 07:15 override",
            ])
        let next = try #require(clock.request(.status).status?.nextRing)
        #expect(next.alarmID == Alarm.householdID && next.label == "household ring" && next.layer == .rule)
        #expect(NextCommand.brief(next, now: instant("2026-11-27 12:00:00")).contains("household ring"))

        while clock.session == nil, clock.wall.now().timeIntervalSince1970 < Double(next.instant) {
            clock.passToWake()  // midnight's, then the ring's
        }
        let session = try #require(clock.session)
        #expect(clock.wall.now().timeIntervalSince1970 == Double(next.instant))
        #expect(session.alarmID == Alarm.householdID && session.state == .ringing)
        #expect(session.name == "household ring")
        guard case .play(let sound)? = clock.audio.calls.first else {
            Issue.record("nothing played: \(clock.audio.calls)")
            return
        }
        #expect(sound.volume == Alarm.defaultVolume, "the household's ring has every new alarm's settings")
        clock.dismissByMath()
        #expect(clock.history.first?.alarmID == Alarm.householdID)
        #expect(clock.history.first?.label == "household ring")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-29")
    }

    /// `skip` on the household's ring adds an "off" override for all alarms that day; the next day rings.
    @Test func theHouseholdRingIsSkippedLikeAnyOther() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))
        #expect(clock.request(try Self.rule("sat,sun", try Self.at("9:00"))).ok)
        let next = try #require(clock.request(.status).status?.nextRing)
        let skip = clock.request(SkipCommand.command(skipping: next))
        #expect(skip.ok, "\(skip.error?.message ?? "")")
        #expect(
            SkipCommand.skipped(next)
                == "skipped the household ring on Sat 2026-11-28 at 09:00; it rings as usual after that")
        #expect(clock.request(.status).status?.nextRing?.date == "2026-11-29")
    }

    /// A rule for all alarms moves the alarms that ring on its days, and rings by itself only on
    /// the days none does: never a second ring beside an alarm's.
    @Test func aRuleForAllAlarmsMovesAlarmsAndRingsAloneOnlyWhereNoneRings() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))
        clock.add("6:45", days: "mon-fri", label: "school")
        #expect(clock.request(try Self.rule("sat,mon", try Self.at("8:00"))).ok)
        #expect(
            try Self.rings(clock, days: 5) == [
                "2026-11-28 #0 08:00 rule", "2026-11-30 #1 08:00 rule", "2026-12-01 #1 06:45 base",
            ])
    }

    /// A disabled alarm skips its base only: its own rules and overrides with a time still ring
    /// it, `alarm disable` says which and how to silence them, and the household rings a rule for
    /// all alarms on its days.
    @Test func aDisabledAlarmSkipsOnlyItsBase() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))
        clock.add("6:45", days: "mon-fri", label: "school")
        #expect(clock.request(try Self.rule("sat", try Self.at("9:00"), alarm: 1)).ok)
        #expect(clock.request(.overrideAdd(alarmID: 1, date: "2026-12-01", change: try Self.at("8:00"))).ok)
        #expect(clock.request(try Self.rule("wed", try Self.at("7:30"))).ok)
        let disabled = clock.request(.alarmSetEnabled(id: 1, enabled: false))
        #expect(disabled.ok)
        #expect(
            disabled.warnings == [
                "it is off ('reveille alarm enable 1' turns it on)",
                "its own rules and overrides with a time still ring it: rule #1 (sat at 09:00), override #1 (2026-12-01 at 08:00); to silence them too: reveille rule rm 1; reveille override rm 1 (or 'reveille pause' for every alarm)",
                "rules and overrides for all alarms ring by themselves on days no alarm rings: rule #2 (wed at 07:30); to silence it too: reveille rule rm 2 (or 'reveille pause' for every alarm)",
            ], "\(disabled.warnings ?? [])")
        #expect(
            try Self.rings(clock, days: 6) == [
                "2026-11-28 #1 09:00 rule", "2026-12-01 #1 08:00 override", "2026-12-02 #0 07:30 rule",
            ])
        #expect(clock.request(.alarmList).alarms?.first?.nextRing?.date == "2026-11-28")
        // A disabled one-shot is done: its override does not bring it back.
        var once = AlarmSpec()
        once.time = try LocalTime.parse("10:00")
        once.date = "2026-12-03"
        #expect(clock.request(.alarmAdd(spec: once)).ok)
        #expect(clock.request(.overrideAdd(alarmID: 2, date: "2026-12-03", change: try Self.at("11:00"))).ok)
        #expect(clock.request(.alarmSetEnabled(id: 2, enabled: false)).ok)
        #expect(try Self.rings(clock, days: 7).filter { $0.hasPrefix("2026-12-03") } == [])
    }

    /// Nothing that can never ring or silence anything is taken without saying so.
    @Test func whatDecidesNothingIsSaid() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))
        let off = clock.request(.overrideAdd(alarmID: nil, date: "2026-12-02", change: .off))
        #expect(off.warnings == ["override #1 silences nothing: no alarm rings on 2026-12-02"])
        var once = AlarmSpec()
        once.time = try LocalTime.parse("10:00")
        once.date = "2026-12-03"
        #expect(clock.request(.alarmAdd(spec: once)).ok)
        let elsewhere = clock.request(.overrideAdd(alarmID: 1, date: "2026-12-04", change: try Self.at("8:00")))
        #expect(
            elsewhere.warnings == [
                "override #2 rings nothing: its alarm is a one-shot of another day; for a ring on 2026-12-04 at 08:00, add one: reveille alarm add 08:00 --date 2026-12-04"
            ])
        let rule = clock.request(try Self.rule("fri", try Self.at("9:00"), alarm: 1))
        #expect(rule.warnings?.first?.hasPrefix("rule #1 rings nothing: its alarm is a one-shot") == true)
        #expect(
            clock.request(try Self.rule("sat", .off)).warnings == ["rule #2 silences nothing: no alarm rings on sat"])
    }

    /// The first start after the upgrade names each rule and override that now rings where it
    /// rang nothing before, in the log and for a month in `status` (and so `doctor`); once.
    @Test func theUpgradeNamesWhatNowRings() throws {
        let clock = try Clock(now: instant("2026-11-27 12:00:00"))
        #expect(clock.request(try Self.rule("sat", try Self.at("9:00"))).ok)
        clock.add("6:45", days: "mon-fri")
        #expect(clock.request(.overrideAdd(alarmID: 1, date: "2026-12-01", change: try Self.at("8:00"))).ok)
        #expect(clock.request(.alarmSetEnabled(id: 1, enabled: false)).ok)
        // As the database of the version before would be after its migration.
        try Store(path: clock.folder.appendingPathComponent("state.sqlite").path).setLayersAloneNotice("pending")
        try clock.restart()
        let expected = [
            "rule #1 (sat at 09:00, all alarms) now rings as the household ring, first on Sat 2026-11-28 at 09:00",
            "override #1 (2026-12-01 at 08:00, alarm #1) now rings though alarm #1 is disabled, first on Tue 2026-12-01 at 08:00",
        ]
        for line in expected { #expect(clock.log.text.contains("since this upgrade, \(line)")) }
        #expect(
            clock.request(.status).status?.layersRingingAlone
                == expected.map {
                    "since the upgrade on 2026-11-27, \($0)"
                })
        let logged = clock.log.text.components(separatedBy: "since this upgrade").count
        try clock.restart()
        #expect(clock.log.text.components(separatedBy: "since this upgrade").count == logged, "said once")
        clock.wall.advance(31 * 86_400)
        #expect(clock.request(.status).status?.layersRingingAlone == nil, "a month later it is not said again")
    }
}
