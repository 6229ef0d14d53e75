import ReveilleCore
import Testing

@testable import ReveilleProtocol

/// One way to apply the when of an alarm or a reminder spec (`WhenSpec.applyWhen`), and each
/// kind's own defaults.
@Suite struct SpecApplyTests {
    let berlin = Zone(builtIn: "Europe/Berlin")!

    /// Monday 2026-11-23 15:00 in Berlin.
    var now: SpecNow {
        SpecNow(
            instant: 1_795_442_400, date: try! CivilDate.parse("2026-11-23"), time: try! LocalTime.parse("15:00"),
            zone: berlin)
    }

    func alarm(_ spec: AlarmSpec) throws -> Alarm {
        var alarm = Alarm(id: 0, time: try LocalTime.parse("00:00"), repeats: .weekly(.daily))
        try spec.apply(to: &alarm, isNew: true, now: now, registeredTags: { ["hall"] }, checkSound: { _ in })
        return alarm
    }

    func reminder(_ spec: ReminderSpec) throws -> Reminder {
        var reminder = Reminder(id: 0, text: "x", time: try LocalTime.parse("00:00"), repeats: .weekly(.daily))
        try spec.apply(to: &reminder, isNew: true, now: now, checkSound: { _ in })
        return reminder
    }

    @Test func aNewOneWithoutDaysOrDateIsAnAlarmsNextTimeAndAReminderEveryDay() throws {
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("14:00")
        #expect(try alarm(spec).repeats == .once(try CivilDate.parse("2026-11-24")), "14:00 has passed today")
        spec.time = try LocalTime.parse("16:00")
        #expect(try alarm(spec).repeats == .once(try CivilDate.parse("2026-11-23")))
        var chime = ReminderSpec()
        chime.time = try LocalTime.parse("14:00")
        #expect(try reminder(chime).repeats == .weekly(.daily))
    }

    @Test func inSecondsIsToTheSecondAndExcludesATime() throws {
        var spec = AlarmSpec()
        spec.inSeconds = 90
        let set = try alarm(spec)
        let today = try CivilDate.parse("2026-11-23")
        #expect(set.time.withSeconds == "15:01:30" && set.repeats == .once(today))
        spec.time = try LocalTime.parse("16:00")
        #expect(throws: InputError("give a time or --in, not both")) { try alarm(spec) }
        spec.time = nil
        spec.inSeconds = 8 * 86_400
        #expect(throws: InputError("--in: must be 1 second to 7 days")) { try alarm(spec) }
    }

    @Test func aPastDateAndTwoWhensAreRefusedForBoth() throws {
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("14:00")
        spec.date = "today"
        #expect(throws: InputError("2026-11-23 14:00 has already passed; pick a later date or time")) {
            try alarm(spec)
        }
        var chime = ReminderSpec()
        chime.time = try LocalTime.parse("14:00")
        chime.date = "today"
        #expect(throws: InputError("2026-11-23 14:00 has already passed; pick a later date or time")) {
            try reminder(chime)
        }
        spec.days = .daily
        #expect(throws: InputError("give one of --days (repeating), --date (one-shot) or --in (one-shot from now)")) {
            try alarm(spec)
        }
        chime.days = .daily
        #expect(throws: InputError("give --days (repeating) or --date (once), not both")) { try reminder(chime) }
    }

    @Test func anUnknownTagIsRefusedNamingHowToAddIt() throws {
        var spec = AlarmSpec()
        spec.time = try LocalTime.parse("16:00")
        spec.tags = ["kitchen"]
        #expect(
            throws: InputError(
                "--tag \"kitchen\" is not a registered tag; see 'reveille tag list' or add it with 'reveille tag add --label kitchen'"
            )
        ) { try alarm(spec) }
        spec.tags = ["hall"]
        #expect(try alarm(spec).tags == ["hall"])
    }
}
