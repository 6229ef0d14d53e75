import FoundationEssentials
import ReveilleCore
import ReveilleProtocol
import Testing

@testable import ReveilleDaemon
@testable import ReveilleStore

/// Commitment is the one rule that must fail closed: when the schedule cannot be read to judge a
/// change, the change is refused, and nothing is written.
@Suite struct CommitmentFailsClosedTests {
    @Test func aChangeIsRefusedWhenTheScheduleCannotBeReadToJudgeIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-fail-closed-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = try HouseholdYearTests.Household(folder: folder, now: HouseholdYearTests.start)
        var spec = AlarmSpec()
        spec.label = "school"
        spec.time = LocalTime(hour: 1, minute: 0)  // 30 minutes on, within its commitment
        spec.days = DaySet(Weekday.allCases)
        spec.commitSeconds = 3600
        #expect(home.request(.alarmAdd(spec: spec)).ok)
        home.move(to: home.now + 60)
        // The state file loses a table the schedule is read from (a damaged file, a bad
        // migration): the gate's read fails, while the master switch could still be written.
        let broken = try SQLiteConnection(path: home.database)
        try broken.execute("ALTER TABLE reminder RENAME TO reminder_gone")
        for command in [Command.pause(until: nil), .alarmSetEnabled(id: 1, enabled: false), .alarmRemove(id: 1)] {
            let reply = home.request(command)
            #expect(!reply.ok, "\(command.name) went through a gate that could not read the schedule")
            #expect(reply.error?.message.contains("cannot be read to judge") == true, "\(reply)")
        }
        try broken.execute("ALTER TABLE reminder_gone RENAME TO reminder")
        let state = try Store(path: home.database).scheduleState()
        #expect(state.master == .on && state.alarms.first?.enabled == true, "a refused change was written")
        // Read again, the gate judges as ever: the committed ring still cannot be paused.
        #expect(home.request(.pause(until: nil)).error?.code == .challengeFirst)
    }
}
