import FoundationEssentials
import ReveilleCore
import ReveilleProtocol
import ReveilleStore
import Testing

@testable import ReveilleDaemon

/// The night the clocks fall back in New York (2027-11-07: 01:00–01:59 comes twice), through the
/// whole daemon (controller, store, timers, history) on a manual clock: a daily 01:30 rings at the
/// first 01:30, is answered, and then the wall clock is stepped back an hour at several moments of
/// the night (the 120-day soak's step), with and without a crash after it. It rings once, and the
/// history has it once.
@Suite struct FallBackNightTests {
    static let zone = Zone(builtIn: "America/New_York")!

    enum StepAt: String, CaseIterable {
        /// 01:45 EDT, just after the answer (after a snooze too): back to 00:45 EDT, before the first 01:30 again.
        case justAfter
        /// 01:10 EST (after the clocks fell back, before the second 01:30): back to 01:10 EDT.
        case beforeTheSecond
        /// 01:35 EST (after the second 01:30): back to 01:35 EDT.
        case afterTheSecond
        /// 02:10 EST: back to 01:10 EST, before the second 01:30 again.
        case later
    }

    @Test(arguments: StepAt.allCases, [(crash: false, snooze: false), (true, false), (false, true), (true, true)])
    func aRingAnsweredOnTheFallBackNightRingsOnceWhenTheClockIsSteppedBack(
        at: StepAt, then: (crash: Bool, snooze: Bool)
    ) throws {
        let crash = then.crash
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reveille-fallback-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = 1_825_565_400  // 2027-11-07T05:30:00Z, 01:30 EDT
        let second = first + 3600  // 01:30 EST
        let home = try HouseholdYearTests.Household(folder: folder, now: first - 7200, zone: Self.zone)
        var spec = AlarmSpec()
        spec.label = "night shift"
        spec.time = LocalTime(hour: 1, minute: 30)
        spec.days = DaySet(Weekday.allCases)
        spec.challenge = .math
        #expect(home.request(.alarmAdd(spec: spec)).ok)
        var started: [Int] = []
        var snoozed = false
        func walk(to end: Int) throws {
            while home.now < end {
                home.move(to: min(end, home.now + 30))
                if then.snooze, !snoozed, let session = home.session, session.state == .ringing {
                    snoozed = true
                    #expect(home.request(.snooze).ok)
                    continue
                }
                if let session = home.session, session.state == .ringing, !started.contains(session.id) {
                    started.append(session.id)
                    let problem = try #require(home.request(.problem).problem)
                    #expect(home.request(.answer(value: HouseholdYearTests.answer(problem) ?? 0)).ok)
                }
            }
        }
        try walk(to: first + 900)
        #expect(started.count == 1)
        let stepFrom =
            switch at {
            case .justAfter: first + 900
            case .beforeTheSecond: second - 1200
            case .afterTheSecond: second + 300
            case .later: second + 2400
            }
        try walk(to: stepFrom)
        home.move(to: stepFrom - 3600, step: true)
        if crash { try home.crash() }
        try walk(to: second + 3 * 3600)
        let sessions = try Store(path: home.database).history(since: first - 7200)
        #expect(started.count == 1, "rang \(started.count) times")
        #expect(sessions.count == 1, "the history has \(sessions.map { ($0.scheduledAt - first, $0.state) })")
        #expect(sessions.first?.scheduledAt == first)
    }
}
