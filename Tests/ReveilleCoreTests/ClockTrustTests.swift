import Foundation
@testable import ReveilleCore
import Testing

/// A ring judged under a trusted clock is never rung again; a wrong clock never turns a one-shot
/// off for good (docs/guide/recovery.md, "When the clock was wrong"). A manual wall and monotonic clock; the
/// kernel's synchronization flag is given with each look, as the daemon reads it (adjtimex).
@Suite struct ClockTrustTests {
    /// 2026-11-24 (a Tuesday) 06:00 in Berlin.
    static let six = utc("2026-11-24T05:00:00Z")
    static let year = 365 * 86_400

    struct Look {
        var clock: AlarmClock
        var wall: Int
        var monotonic = 1000
        var synchronized: Bool
        var rang: [Int] = []
        var hooks: [HookEvent] = []
        /// The missed records written, and those withdrawn again.
        var missed: [Int] = []
        var withdrawn: [Int] = []

        init(_ alarms: [Alarm], synchronized: Bool) {
            clock = AlarmClock(
                schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: .notConfigured,
                stored: AlarmClock.Stored(
                    evaluatedThrough: ClockTrustTests.six, activeSession: nil, handled: [], lastSessionID: 0),
                limits: AlarmClock.Limits(), random: ProblemRandom(seed: 3))
            wall = ClockTrustTests.six
            self.synchronized = synchronized
        }

        /// Real time passes: wall and monotonic together.
        mutating func pass(to instant: Int) { look(wall: instant, monotonic: monotonic + instant - wall) }

        /// The wall clock is set (a step): the monotonic clock moves a second.
        mutating func step(to instant: Int) { look(wall: instant, monotonic: monotonic + 1) }

        private mutating func look(wall: Int, monotonic: Int) {
            self.wall = wall
            self.monotonic = monotonic
            record(
                clock.tick(
                    at: Instant(wall: Double(wall), monotonic: Double(monotonic)), clockWasSet: false,
                    clockSynchronized: synchronized))
        }

        mutating func record(_ actions: [ClockAction]) {
            for action in actions {
                if case .play = action { rang.append(wall) }
                if case .runHook(let event, _) = action { hooks.append(event) }
                if case .persist(let sessions, _) = action {
                    missed += sessions.filter { $0.state == .missed }.map(\.id)
                }
                if case .withdrawMissed(let ids) = action { withdrawn += ids }
            }
        }

        mutating func dismiss() {
            let problem = try! clock.requestProblem(now: wall).result.get().problem!
            record(clock.answer(problem.answer, now: wall + 1).actions)
        }
    }

    /// The 40-day soak's finding: the clock right, 06:45 rung and dismissed, then stepped back an
    /// hour: 06:45 passes again and nothing rings, with or without network time, since the
    /// machine saw no jump ahead that the step could be correcting.
    @Test(arguments: [true, false])
    func aStepBackOfATrustedClockNeverRingsADismissedAlarmAgain(synchronized: Bool) {
        var look = Look([daily(1, "06:45")], synchronized: synchronized)
        look.pass(to: Self.six + 2700)
        #expect(look.rang == [Self.six + 2700])
        look.dismiss()
        look.pass(to: Self.six + 3000)
        look.step(to: Self.six + 3000 - 3600)
        look.pass(to: Self.six + 2700)
        look.pass(to: Self.six + 3000)
        #expect(look.rang == [Self.six + 2700], "rang once")
        #expect(look.hooks.filter { $0 == .fire }.count == 1 && look.hooks.filter { $0 == .dismiss }.count == 1)
        #expect(look.clock.session == nil)
        #expect(look.clock.nextRing == .some(Self.six + 2700 + 86_400))
    }

    /// A clock set ahead by hand (a jump the machine saw, no network time): what it rang then was
    /// judged under a wrong clock; put right, that ring comes due again in its time.
    @Test func aRingMadeUnderAClockSetAheadIsJudgedAgainAfterTheCorrection() {
        var look = Look([daily(1, "06:45")], synchronized: false)
        look.pass(to: Self.six + 600)
        look.step(to: Self.six + 2700)  // set 35 minutes ahead: 06:45 rings at 06:10 real time
        #expect(look.rang == [Self.six + 2700])
        look.dismiss()
        look.step(to: Self.six + 660)  // put right
        look.pass(to: Self.six + 2700)
        #expect(look.rang == [Self.six + 2700, Self.six + 2700], "judged again, rung in its time")
    }

    /// No real-time clock, booted with the clock a day ahead (a wrong RTC or fake-hwclock file):
    /// the start finds a day gone by and no network time, records 06:45 as missed, and counts that
    /// as judged under an unconfirmed clock. Network time puts the clock back: 06:45 rings in its
    /// time, once. With network time already there at the start, the gap stands: a step back is
    /// then the clock's error, and nothing rings again.
    @Test(arguments: [false, true])
    func aStartADayAheadIsJudgedAgainWhenTheClockIsPutBack(synchronizedAtStart: Bool) {
        var look = Look([daily(1, "06:45")], synchronized: synchronizedAtStart)
        look.wall = Self.six + 600 + 86_400  // off at 06:00; on at 06:10, reading a day later
        look.record(
            look.clock.start(
                at: Instant(wall: Double(look.wall), monotonic: Double(look.monotonic)),
                clockSynchronized: synchronizedAtStart))
        #expect(look.rang.isEmpty, "06:45 is a day gone by on this clock: missed")
        look.synchronized = true
        look.step(to: Self.six + 610)
        look.pass(to: Self.six + 2700)
        #expect(look.rang == (synchronizedAtStart ? [] : [Self.six + 2700]))
        look.pass(to: Self.six + 3600)
        #expect(look.rang.count == (synchronizedAtStart ? 0 : 1), "once")
        // In the history once: the missed record made under the wrong clock is withdrawn when
        // the ring it stood for is still to come; under network time it stands.
        #expect(look.missed.count == 1)
        #expect(look.withdrawn == (synchronizedAtStart ? [] : look.missed))
    }

    /// `alarm add --in 150s`, the clock set a year ahead and back 6 s later: the one-shot is not
    /// turned off by the wrong clock, and rings in its time.
    /// A one-shot due at 06:02:30, and the clock set a year ahead at 06:00:01.
    func oneShotAndAYearAhead() -> (look: Look, due: Int) {
        let due = Self.six + 150
        let local = ZoneResolver(zone: zone("Europe/Berlin")).local(at: due)
        var look = Look(
            [Alarm(id: 1, label: "tea", time: local.time, repeats: .once(local.date))], synchronized: false)
        look.pass(to: Self.six + 1)
        look.step(to: Self.six + 1 + Self.year)
        return (look, due)
    }

    @Test func aOneShotOutlivesAYearAheadAndBack() {
        var (look, due) = oneShotAndAYearAhead()
        #expect(look.clock.schedule.alarms[0].enabled, "not turned off by a clock a year ahead")
        look.step(to: Self.six + 7)
        look.pass(to: due)
        #expect(look.rang == [due])
        #expect(look.clock.schedule.alarms[0].enabled == false, "off once rung")
    }

    /// A one-shot whose time passed while the clock was wrong follows the missed-alarm rule: rung
    /// within the grace, else recorded as missed with the reason, never silently off.
    @Test func aOneShotPassedWhileTheClockWasWrongIsRecordedAsMissed() {
        var (look, _) = oneShotAndAYearAhead()
        var missed: [String] = []
        look.synchronized = true
        let actions = look.clock.tick(
            at: Instant(wall: Double(Self.six + 3600), monotonic: Double(look.monotonic + 3600)), clockWasSet: true,
            clockSynchronized: true)
        for case .log(_, let text) in actions where text.contains("recorded as missed") { missed.append(text) }
        #expect(missed == ["alarm #1 tea was due at 06:02; recorded as missed (passed while the clock was wrong)"])
        #expect(look.rang.isEmpty)
    }
}

/// The night the clocks fall back in New York (2027-11-07: 01:30 comes twice): a 01:30 ring,
/// dismissed, then the wall clock stepped back an hour (the 120-day soak's step) rings no more,
/// at neither 01:30.
@Suite struct FallBackStepTests {
    @Test(arguments: [false, true])
    func aDismissedRingOnTheFallBackNightDoesNotRingAgainAfterAStepBack(synchronized: Bool) {
        let midnight = utc("2027-11-07T04:00:00Z")  // 00:00 EDT
        var clock = AlarmClock(
            schedule: ScheduleState(alarms: [daily(1, "01:30")]), zone: zone("America/New_York"),
            readerHealth: .notConfigured,
            stored: AlarmClock.Stored(evaluatedThrough: midnight, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 3))
        var monotonic = 1000.0
        var rang: [Int] = []
        func look(_ wall: Int, step: Bool = false) {
            monotonic += step ? 1 : Double(wall) - (clock.evaluatedThrough.map(Double.init) ?? Double(wall))
            for action in clock.tick(
                at: Instant(wall: Double(wall), monotonic: monotonic), clockWasSet: step,
                clockSynchronized: synchronized)
            {
                if case .play = action { rang.append(wall) }
            }
        }
        let first = utc("2027-11-07T05:30:00Z")  // 01:30 EDT
        look(first - 60)
        look(first)
        #expect(rang == [first])
        let problem = try! clock.requestProblem(now: first + 60).result.get().problem!
        _ = clock.answer(problem.answer, now: first + 61)
        look(first + 300)
        look(first + 300 - 3600, step: true)  // 00:35 EDT again
        for wall in stride(from: first + 300 - 3600, through: utc("2027-11-07T08:00:00Z"), by: 60) { look(wall) }
        #expect(rang == [first], "rang once: \(rang.map { $0 - first })")
    }
}
