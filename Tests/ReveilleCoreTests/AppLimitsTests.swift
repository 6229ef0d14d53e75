import Foundation
import ReveilleApps
import Testing

@testable import ReveilleCore

/// The app guard's deadlines, driven by a manual clock: count, warn, SIGTERM, SIGKILL, and when
/// to look again.
@Suite struct AppLimitsTests {
    static let berlin = Zone(builtIn: "Europe/Berlin")!
    /// 2026-11-23 (a Monday) 10:00 in Berlin.
    static let ten = utc("2026-11-23T09:00:00Z")
    static let key = AppUsageKey(app: "game", user: "kid")

    func limits(limitMinutes: Int? = 30, window: String = "07:00-20:00") -> AppLimits {
        let windows = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, [try! TimeWindow.parse(window)]) })
        let limits = limitMinutes.map { minutes in
            Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, minutes) })
        }
        var machine = AppLimits(warnSeconds: 300, killGraceSeconds: 10, reviewSeconds: 15)
        machine.policyLoaded(
            AppPolicy(apps: [AppRule(name: "game", paths: ["/g"], windows: windows, limits: limits ?? [:])]))
        _ = machine.beginDay(date("2026-11-23"), usage: [Self.key: 20 * 60], grants: [:])
        return machine
    }

    /// `review` at `seconds` after 10:00.
    func review(_ machine: inout AppLimits, _ seconds: Int) -> [AppLimits.Action] {
        var resolver = ZoneResolver(zone: Self.berlin)
        return machine.review(
            at: Instant(wall: Double(Self.ten + seconds), monotonic: Double(Self.ten + seconds)), resolver: &resolver)
    }

    func wake(_ actions: [AppLimits.Action]) -> Double?? {
        for action in actions { if case .wake(let after) = action { return .some(after) } }
        return nil
    }

    @Test func theHouseholdsOtherMachinesCountAgainstTheSameLimitAndOnlyRise() {
        var machine = limits()  // 20 of 30 min used here
        var resolver = ZoneResolver(zone: Self.berlin)
        let now = Instant(wall: Double(Self.ten), monotonic: Double(Self.ten))
        let before = machine.decide("game", user: "kid", at: now, resolver: &resolver)
        #expect(before.allowed)
        let day = date("2026-11-23")
        let first = machine.heard(from: "laptop", on: day, usage: [Self.key: 6 * 60])
        #expect(first)
        #expect(machine.usedSeconds(Self.key) == 26 * 60 && machine.usedElsewhere(Self.key) == 6 * 60)
        // A message that comes again, late or lower changes nothing: each machine's count only rises.
        let again = machine.heard(from: "laptop", on: day, usage: [Self.key: 6 * 60])
        let lower = machine.heard(from: "laptop", on: day, usage: [Self.key: 2 * 60])
        // Another day's counts are not today's.
        let yesterday = machine.heard(from: "laptop", on: date("2026-11-22"), usage: [Self.key: 60 * 60])
        #expect(!again && !lower && !yesterday)
        #expect(machine.usedSeconds(Self.key) == 26 * 60)
        // Two machines add up: 20 here, 6 on the laptop, 4 on the desktop = the 30 of the limit.
        let desktop = machine.heard(from: "desktop", on: day, usage: [Self.key: 4 * 60])
        #expect(desktop)
        let refused = machine.decide("game", user: "kid", at: now, resolver: &resolver)
        #expect(!refused.allowed && refused.reason.hasPrefix("today's 30 minutes are used up"))
        // A running app is ended by the review once the household's sum reaches the limit.
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        let ended = review(&machine, 1)
        #expect(ended.contains(.signal(pid: 100, .terminate)))
        // At most so many machines are kept: a flood of names costs bounded memory.
        for index in 0..<100 {
            _ = machine.heard(from: "m\(index)", on: date("2026-11-23"), usage: [Self.key: 1])
        }
        #expect(machine.elsewhere.count == AppLimits.machineLimit)
        // A new day starts from nothing, elsewhere too.
        _ = machine.beginDay(date("2026-11-24"), usage: [:], grants: [:])
        #expect(machine.usedSeconds(Self.key) == 0 && machine.elsewhere.isEmpty)
    }

    @Test func anotherMachinesCountsAreCheckedBeforeTheyCount() throws {
        #expect(
            try AppLimits.checkedCounts(from: "laptop-2", [("kid", "game", 600)])
                == [AppUsageKey(app: "game", user: "kid"): 600])
        #expect(throws: InputError.self) { try AppLimits.checkedCounts(from: "lap/top", []) }
        #expect(throws: InputError.self) { try AppLimits.checkedCounts(from: "", []) }
        #expect(throws: InputError.self) { try AppLimits.checkedCounts(from: "laptop", [("kid", "game", 86_401)]) }
        #expect(throws: InputError.self) { try AppLimits.checkedCounts(from: "laptop", [("kid", "game", -1)]) }
        #expect(throws: InputError.self) { try AppLimits.checkedCounts(from: "laptop", [("", "game", 1)]) }
        #expect(throws: InputError.self) {
            try AppLimits.checkedCounts(from: "laptop", Array(repeating: ("kid", "game", 1), count: 257))
        }
    }

    @Test func timeIsCountedWhileItRunsAndSavedOnReview() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        let actions = review(&machine, 60)
        #expect(machine.usage[Self.key] == 21 * 60)
        #expect(actions.contains(.save([Self.key: 21 * 60], on: date("2026-11-23"))))
        // 20 + 1 of 30 min used: the warning is due at 4 min (5 min before the end), reviews every 15 s.
        #expect(wake(actions) == .some(15))
    }

    @Test func aWarningComesOnceThenSIGTERMThenSIGKILLAfterTheGrace() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        let warned = review(&machine, 6 * 60)  // 26 of 30 min used
        #expect(
            warned.contains(
                .warn(
                    app: "game", user: "kid", secondsLeft: 4 * 60, reason: "allowed (4 of 30 min left today)",
                    chime: true)))
        #expect(warned.contains(.log(.notice, "app game of kid: 4 min left, then it is ended")))
        #expect(!review(&machine, 6 * 60 + 15).contains { if case .warn = $0 { true } else { false } })

        let ended = review(&machine, 10 * 60)  // 30 of 30
        #expect(ended.contains(.signal(pid: 100, .terminate)))
        #expect(
            ended.contains(
                .log(
                    .notice,
                    "app game (pid 100) of kid must stop: today's 30 minutes are used up; allowed again Tue 07:00; SIGTERM"
                )))
        #expect(wake(ended) == .some(10))
        #expect(!review(&machine, 10 * 60 + 5).contains(.signal(pid: 100, .kill)))
        let killed = review(&machine, 10 * 60 + 10)
        #expect(killed.contains(.signal(pid: 100, .kill)))
        #expect(!review(&machine, 10 * 60 + 20).contains(.signal(pid: 100, .kill)), "SIGKILL is sent once")
        #expect(machine.exited(pid: 100, now: Double(Self.ten + 10 * 60 + 21)).count == 1)
        #expect(machine.running.isEmpty)
        #expect(wake(review(&machine, 11 * 60)) == .some(nil), "nothing runs: nothing to look at")
    }

    /// The user's notifier hears 15, 5 and 1 minutes before the end, once each; the bedside chime
    /// only at 5 (`warnSeconds`); and each review says when the next notice is due.
    @Test func noticesComeAtFifteenFiveAndOneMinuteAndTheChimeOnlyAtFive() {
        var machine = limits(limitMinutes: 40)  // 20 of 40 used: 20 min left at 10:00
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        func warnings(_ actions: [AppLimits.Action]) -> [String] {
            actions.compactMap {
                if case .warn(_, _, let left, _, let chime) = $0 { "\(left)\(chime ? " chime" : "")" } else { nil }
            }
        }
        let first = review(&machine, 0)
        #expect(warnings(first).isEmpty)
        #expect(wake(first) == .some(15))
        #expect(warnings(review(&machine, 5 * 60)) == ["900"])
        #expect(warnings(review(&machine, 5 * 60 + 15)).isEmpty, "once each")
        #expect(warnings(review(&machine, 15 * 60)) == ["300 chime"])
        #expect(warnings(review(&machine, 19 * 60)) == ["60"])
        #expect(warnings(review(&machine, 19 * 60 + 30)).isEmpty)
    }

    /// A review that comes late (the machine slept) gives the notice due now, not every one it
    /// missed.
    @Test func aLateReviewGivesOnlyTheNoticeDueNow() {
        var machine = limits(limitMinutes: 40)
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        _ = review(&machine, 0)
        let late = review(&machine, 19 * 60 + 10)  // 50 s left
        let notices = late.filter { if case .warn = $0 { true } else { false } }
        #expect(notices.count == 1)
        #expect(notices.first.map { if case .warn(_, _, 50, _, true) = $0 { true } else { false } } == true)
    }

    @Test func twoProcessesOfOneAppCountOnce() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        machine.started(pid: 101, app: "game", user: "kid", now: Double(Self.ten))
        _ = review(&machine, 60)
        #expect(machine.usage[Self.key] == 21 * 60)
    }

    @Test func theWindowClosingEndsItToo() {
        var machine = limits(limitMinutes: nil, window: "07:00-10:05")
        machine.started(pid: 7, app: "game", user: "kid", now: Double(Self.ten))
        #expect(
            review(&machine, 1).contains(
                .warn(app: "game", user: "kid", secondsLeft: 299, reason: "allowed until 10:05", chime: true)))
        #expect(review(&machine, 5 * 60).contains(.signal(pid: 7, .terminate)))
    }

    @Test func aGrantGivesMoreTimeAndWarnsAgainLater() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        #expect(review(&machine, 6 * 60).contains { if case .warn = $0 { true } else { false } })
        machine.granted("game", totalMinutes: 10)
        let after = review(&machine, 7 * 60)  // 27 of 40 min
        #expect(!after.contains { if case .signal = $0 { true } else { false } })
        #expect(wake(after) == .some(15))
    }

    @Test func aNewDaySavesTheOldOneFirstAndStartsFromWhatIsStored() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        var resolver = ZoneResolver(zone: Self.berlin)
        _ = machine.decide(
            "game", user: "kid", at: Instant(wall: Double(Self.ten + 30), monotonic: Double(Self.ten + 30)),
            resolver: &resolver)
        let actions = machine.beginDay(date("2026-11-24"), usage: [:], grants: [:])
        #expect(actions == [.save([Self.key: 20 * 60 + 30], on: date("2026-11-23"))])
        #expect(machine.usage.isEmpty && machine.day == date("2026-11-24"))
    }

    @Test func theClockGoingBackCountsNothingNegative() {
        var machine = limits()
        machine.started(pid: 100, app: "game", user: "kid", now: Double(Self.ten))
        var resolver = ZoneResolver(zone: Self.berlin)
        _ = machine.review(at: Instant(wall: Double(Self.ten), monotonic: Double(Self.ten - 3600)), resolver: &resolver)
        #expect(machine.usage[Self.key] == 20 * 60)
        _ = machine.review(
            at: Instant(wall: Double(Self.ten), monotonic: Double(Self.ten - 3600 + 30)), resolver: &resolver)
        #expect(machine.usage[Self.key] == 20 * 60 + 30)
    }

    @Test func pollingTheStatusDoesNotSkewTheCount() {
        var machine = limits()
        let start = Double(Self.ten) + 0.37
        machine.started(pid: 100, app: "game", user: "kid", now: start)
        var resolver = ZoneResolver(zone: Self.berlin)
        // `apps status` every 0.3 s for a minute, at fractional instants.
        for step in 1...200 {
            let now = start + Double(step) * 0.3
            _ = machine.decide("game", user: "kid", at: Instant(wall: now, monotonic: now), resolver: &resolver)
        }
        #expect(
            machine.usage[Self.key] == 20 * 60 + 60,
            "one second per second: \((machine.usage[Self.key] ?? 0) - 20 * 60) s")
    }

    @Test func usedAndLeftMinutesAddUpToTheLimit() {
        var machine = limits(limitMinutes: 3, window: "00:00-23:59")
        _ = machine.beginDay(date("2026-11-23"), usage: [Self.key: 179], grants: [:])
        var resolver = ZoneResolver(zone: Self.berlin)
        let decision = machine.decide(
            "game", user: "kid", at: Instant(wall: Double(Self.ten), monotonic: Double(Self.ten)), resolver: &resolver)
        // 179 s used shows as 2 min used; the 1 s left is a started minute: 1 of 3 left, not 0.
        #expect(decision.reason == "allowed (1 of 3 min left today)")
    }

    @Test func aGrantForOneUserIsTheirsAloneAndOneForEveryoneIsEachUsers() {
        var machine = limits()  // 30 min a day; kid has used 20
        let sibling = AppUsageKey(app: "game", user: "sibling")
        _ = machine.beginDay(date("2026-11-23"), usage: [Self.key: 20 * 60, sibling: 20 * 60], grants: [:])
        machine.granted("game", user: "kid", totalMinutes: 15)
        #expect(machine.grantMinutes("game", user: "kid") == 15)
        #expect(machine.grantMinutes("game", user: "sibling") == 0)
        machine.granted("game", totalMinutes: 5)
        #expect(machine.grantMinutes("game", user: "kid") == 20)
        #expect(machine.grantMinutes("game", user: "sibling") == 5)
        var resolver = ZoneResolver(zone: Self.berlin)
        let kid = machine.decide(
            "game", user: "kid", at: Instant(wall: Double(Self.ten), monotonic: Double(Self.ten)), resolver: &resolver)
        let other = machine.decide(
            "game", user: "sibling", at: Instant(wall: Double(Self.ten), monotonic: Double(Self.ten)),
            resolver: &resolver)
        #expect(kid.secondsLeft == 30 * 60 && other.secondsLeft == 15 * 60)
    }
}
