import Foundation
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleDaemon

/// Reminders that reach the person (docs/guide/reminders.md, "Reminders"): a reminder for someone is published to
/// their own watchers, and any chime can come again in 10 minutes, kept across a restart.
/// In-process, on virtual time; `NotifierTests` takes the same chime to a desktop over D-Bus.
@Suite struct InProcessReminderTests {
    typealias Clock = InProcessRingTests.Clock

    func reminder(_ clock: Clock, _ text: String, at time: String, for person: String? = nil) -> Response {
        var spec = ReminderSpec()
        spec.text = text
        spec.body = "with water"
        spec.time = try? LocalTime.parse(time)
        spec.days = .daily
        spec.person = person
        return clock.request(.reminderAdd(spec: spec))
    }

    var chimed: (Clock) -> [ChimeInfo] = { clock in
        clock.daemon.outlets.published.compactMap { if case .reminder(let chime) = $0 { chime } else { nil } }
    }

    @Test func aReminderForSomeoneIsTheirsAndNamesAUserOfThisMachine() throws {
        let clock = try Clock(now: instant("2026-11-27 15:59:50"))
        let added = reminder(clock, "vitamins", at: "16:00", for: "daemon")  // Debian's uid 1
        #expect(added.ok, "\(added.error?.message ?? "")")
        #expect(added.reminders?.first?.person == "daemon")
        #expect(added.message?.contains(", for daemon") == true)
        let nobody = reminder(clock, "x", at: "17:00", for: "no-such-user-here")
        #expect(nobody.error?.message == "--for no-such-user-here: no such user on this machine (see 'getent passwd')")
        let bad = reminder(clock, "x", at: "17:00", for: "../etc")
        #expect(bad.error?.message == "--for ../etc: give a user name of this machine, like kid1")
        clock.passToWake()
        let chime = try #require(chimed(clock).first)
        #expect(chime.user == "daemon" && chime.text == "vitamins" && chime.detail == "with water")
        #expect(WatchEvent.reminder(chime).user == "daemon", "their own watchers hear it")
        // The household's stays the household's.
        #expect(
            clock.request(
                .reminderEdit(
                    id: 1,
                    spec: {
                        var s = ReminderSpec(); s.person = ""; return s
                    }())
            ).reminders?.first?.person == nil)
    }

    /// An "off" day for every alarm: the day's reminders chime all the same, unless one says it
    /// goes with the alarms; what it says is kept across a restart and shown.
    @Test func anOffDaySilencesAlarmsAndOnlyTheRemindersThatGoWithThem() throws {
        let clock = try Clock(now: instant("2026-11-27 15:59:50"))
        #expect(reminder(clock, "piano", at: "16:00").ok)
        var spec = ReminderSpec()
        (spec.text, spec.time, spec.days, spec.withAlarms) = ("training", try LocalTime.parse("16:00"), .daily, true)
        let training = clock.request(.reminderAdd(spec: spec))
        #expect(training.reminders?.first?.withAlarms == true)
        #expect(clock.request(.overrideAdd(alarmID: nil, date: "2026-11-27", change: .off)).ok)
        try clock.restart()
        #expect(clock.request(.reminderList).reminders?.map(\.withAlarms) == [nil, true], "kept in the state")
        clock.passToWake()
        #expect(chimed(clock).map(\.text) == ["piano"], "the off day silenced more than the training reminder")
    }

    @Test func aChimeComesAgainTenMinutesLaterEvenAcrossARestart() throws {
        let clock = try Clock(now: instant("2026-11-27 15:59:50"))
        #expect(reminder(clock, "stretch", at: "16:00").ok)
        #expect(clock.request(.chimeAgain(key: nil)).error?.message == "no reminder chimed lately")
        clock.passToWake()
        let first = try #require(chimed(clock).first)
        #expect(first.key == "reminder:1:0@\(instant("2026-11-27 16:00:00"))")
        // A person with no rights here may not ask for the household's chime.
        let stranger = clock.daemon.request(.chimeAgain(key: first.key), role: .none)
        #expect(stranger?.error?.code == .forbidden)
        let again = clock.request(.chimeAgain(key: first.key))
        #expect(again.message == "\"stretch\" chimes again at 16:10, in 10 minutes", "\(again.error?.message ?? "")")
        let upcoming = try #require(clock.request(.next(days: 1)).schedule?.reminders)
        #expect(upcoming.contains { $0.time == "16:10" && $0.origin == "again: reminder #1" })
        try clock.restart()
        clock.passToWake()
        #expect(clock.wall.now().timeIntervalSince1970 == Double(instant("2026-11-27 16:10:00")))
        let second = try #require(chimed(clock).last)
        #expect(second.text == "stretch" && second.detail == "with water" && second.key?.hasPrefix("again:") == true)
        #expect(clock.log.text.contains("reminder \"stretch\" (again: reminder #1) chimes"))
    }
}
