import Foundation
import Testing

@testable import ReveilleCore

/// A seeded generator, so that problems are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

@Suite struct MathProblemTests {
    @Test(arguments: MathDifficulty.allCases)
    func problemsHaveTheRightShapeAndAnswer(difficulty: MathDifficulty) throws {
        var generator = SeededGenerator(state: 7)
        for _ in 0..<500 {
            let problem = MathProblem.make(difficulty, using: &generator)
            let numbers = problem.text.split(whereSeparator: { !$0.isNumber }).map { Int($0)! }
            #expect(problem.answer >= 0)
            switch difficulty {
            case .easy:
                #expect(problem.text.contains(" + ") && numbers.count == 2)
                #expect(numbers.allSatisfy { (10...99).contains($0) })
                #expect(problem.answer == numbers[0] + numbers[1])
            case .medium:
                #expect(numbers.count == 3 && (10...99).contains(numbers[0]) && (2...9).contains(numbers[1]))
                #expect(problem.answer == numbers[0] * numbers[1] + numbers[2])
            case .hard:
                #expect(numbers.count == 4 && numbers.allSatisfy { (10...99).contains($0) })
                #expect(problem.answer == numbers[0] * numbers[1] + numbers[2] * numbers[3])
            }
        }
    }
}

/// The ring session moved by a manual clock: no sleeping.
@Suite struct RingSessionTests {
    static let t0 = 1_795_400_000

    func settings(maxSnoozes: Int = 3, challenge: Challenge = .math, tags: [String] = [], oneShot: Bool = false)
        -> RingSettings
    {
        RingSettings(
            Alarm(
                id: 1, label: "work", time: LocalTime(hour: 6, minute: 45)!,
                repeats: oneShot ? .once(CivilDate(dayNumber: 20_000)) : .weekly(.daily), challenge: challenge,
                tags: tags, maxSnoozes: maxSnoozes, snoozeMinutes: 9))
    }

    func fire(_ settings: RingSettings, readerHealthy: Bool = false, maxRing: Int = 1800) -> RingSession {
        RingSession.fire(
            settings: settings, scheduledAt: Self.t0, now: Self.t0, readerHealthy: readerHealthy,
            policy: RingPolicy(maxRingSeconds: maxRing)
        ).0
    }

    @Test func firingRingsRunsTheHookAndTurnsOffAOneShot() {
        let (session, actions) = RingSession.fire(
            settings: settings(), scheduledAt: Self.t0, now: Self.t0 + 1, readerHealthy: false)
        #expect(session.state == .ringing)
        #expect(actions == [.startAudio, .runHook(.fire)])
        let oneShot = RingSession.fire(
            settings: settings(oneShot: true), scheduledAt: Self.t0, now: Self.t0, readerHealthy: false)
        #expect(oneShot.1 == [.startAudio, .runHook(.fire), .disableAlarm(id: 1)])
    }

    /// `--problems 3`: three right answers stop it; a wrong one gives a new problem and keeps the
    /// count; an alarm that joins with more asks them of the whole ring.
    @Test func moreProblemsAreAskedWhenTheAlarmSaysSo() throws {
        var alarm = Alarm(id: 1, label: "work", time: LocalTime(hour: 6, minute: 45)!, repeats: .weekly(.daily))
        alarm.mathProblems = 3
        var session = fire(RingSettings(alarm))
        #expect(session.problemsLeft == 3)
        #expect(session.howToDismiss == "answer 3 math problems with 'reveille dismiss'")
        var generator = SeededGenerator(state: 3)
        var now = Self.t0
        func right() throws -> (Bool, [RingAction]) {
            let (problem, _) = try session.requestProblem(now: now, using: &generator)
            return try session.answer(problem.answer, now: now, using: &generator)
        }
        #expect(try right().0 && session.state == .ringing && session.problemsLeft == 2)
        let wrong = try session.answer(-1, now: now, using: &generator)
        #expect(!wrong.correct && session.problemsLeft == 2, "a wrong answer keeps the count")
        now += 10
        #expect(try right().0 && session.problemsLeft == 1)
        let last = try right()
        #expect(last.0 && last.1.contains(.stopAudio) && session.state == .dismissed)

        // One problem's alarm joined by a three-problem alarm: three for the ring.
        var single = fire(settings())
        _ = single.join(RingSettings(alarm), readerHealthy: true, readerLostAt: nil, now: Self.t0)
        #expect(single.problemsLeft == 3 && single.settings.mathProblems == 3)
    }

    @Test(arguments: [1, 3])
    func snoozesUpToTheLimitThenRefusesSayingHowToDismiss(limit: Int) throws {
        var session = fire(settings(maxSnoozes: limit))
        var now = Self.t0
        for used in 1...limit {
            #expect(try session.snooze(now: now) == [.stopAudio, .runHook(.snooze)])
            #expect(session.snoozeCount == used)
            #expect(session.snoozedUntil == now + 9 * 60)
            #expect(session.nextDeadline == now + 9 * 60)
            #expect(session.tick(now: now + 9 * 60 - 1) == [])
            now += 9 * 60
            #expect(session.tick(now: now) == [.startAudio])
            #expect(session.state == .ringing)
        }
        #expect(
            throws: RingRefusal(
                "no snoozes left (\(limit) of \(limit) used): to stop the alarm, answer a math problem with 'reveille dismiss'"
            )
        ) { try session.snooze(now: now) }
        #expect(session.state == .ringing)
    }

    @Test func zeroMeansUnlimitedSnoozes() throws {
        var session = fire(settings(maxSnoozes: 0))
        for round in 0..<50 {
            let now = Self.t0 + round * 540
            _ = try session.snooze(now: now)
            _ = session.tick(now: now + 540)
        }
        #expect(session.snoozeCount == 50)
        #expect(session.snoozesLeft == nil)
    }

    @Test func aSnoozedSessionCannotBeSnoozedAgain() throws {
        var session = fire(settings())
        _ = try session.snooze(now: Self.t0)
        #expect(throws: RingRefusal("already snoozed until the alarm rings again; nothing to do")) {
            try session.snooze(now: Self.t0 + 10)
        }
        #expect(session.snoozeCount == 1)
    }

    @Test func mathDismissesAndWrongAnswersGiveANewProblem() throws {
        var generator = SeededGenerator(state: 1)
        var session = fire(settings())
        #expect(
            throws: RingRefusal(
                "no problem was asked yet: run 'reveille dismiss' to get one ('reveille dismiss --problem' in a script)"
            )
        ) {
            try session.answer(1, now: Self.t0, using: &generator)
        }
        let (first, actions) = try session.requestProblem(now: Self.t0 + 5, using: &generator)
        #expect(actions == [.attenuate])
        #expect(session.attenuatedUntil == Self.t0 + 65)
        // Asking again returns the same problem and does not stretch the quiet.
        #expect(try session.requestProblem(now: Self.t0 + 20, using: &generator) == (first, []))
        let wrong = try session.answer(first.answer + 1, now: Self.t0 + 30, using: &generator)
        #expect(wrong.correct == false && wrong.actions.isEmpty)
        #expect(session.wrongAnswers == 1)
        let second = try #require(session.problem)
        #expect(second != first)
        #expect(session.tick(now: Self.t0 + 65) == [.restoreVolume])
        let right = try session.answer(second.answer, now: Self.t0 + 70, using: &generator)
        #expect(right.correct)
        #expect(right.actions == [.stopAudio, .runHook(.dismiss)])
        #expect(session.state == .dismissed && session.dismissedBy == .math && session.endedAt == Self.t0 + 70)
        #expect(throws: RingRefusal("nothing is ringing")) { try session.snooze(now: Self.t0 + 80) }
    }

    @Test func aSnoozedAlarmCanBeDismissedWithoutRingingAgain() throws {
        var generator = SeededGenerator(state: 2)
        var session = fire(settings())
        _ = try session.snooze(now: Self.t0)
        let (problem, actions) = try session.requestProblem(now: Self.t0 + 60, using: &generator)
        #expect(actions.isEmpty)  // nothing to attenuate: it is quiet
        #expect(try session.answer(problem.answer, now: Self.t0 + 70, using: &generator).correct)
        #expect(session.tick(now: Self.t0 + 9 * 60) == [])
        #expect(session.state == .dismissed)
    }

    @Test func tagsDismissOnlyAlarmsThatTakeThem() throws {
        var any = fire(settings(challenge: .any, tags: []), readerHealthy: true)
        #expect(try any.tag("bathroom", now: Self.t0 + 3) == [.stopAudio, .runHook(.dismiss)])
        #expect(any.dismissedBy == .tag)

        var bound = fire(settings(challenge: .nfc, tags: ["bathroom"]), readerHealthy: true)
        #expect(throws: RingRefusal("tag \"kitchen\" does not stop alarm #1 work")) {
            try bound.tag("kitchen", now: Self.t0)
        }
        var generator = SeededGenerator(state: 3)
        #expect(throws: RingRefusal("this alarm stops only with a registered tag: scan it on the reader")) {
            try bound.requestProblem(now: Self.t0, using: &generator)
        }
        _ = try bound.tag("bathroom", now: Self.t0 + 9)
        #expect(bound.state == .dismissed)

        var math = fire(settings(challenge: .math))
        #expect(throws: RingRefusal("this alarm stops with a math problem, not a tag: 'reveille dismiss'")) {
            try math.tag("bathroom", now: Self.t0)
        }
    }

    /// Math stands in for a tag only with more: the hardest problems, three right answers.
    @Test func nfcWithoutAHealthyReaderOffersHarderMath() throws {
        var session = fire(settings(challenge: .nfc), readerHealthy: false)
        #expect(session.challenge == .math && session.fellBackToMath)
        #expect(session.settings.mathDifficulty == .hard && session.problemsLeft == RingSession.fallbackProblems)
        #expect(session.howToDismiss == "answer 3 math problems with 'reveille dismiss' (no NFC reader works)")
        var generator = SeededGenerator(state: 4)
        for left in (1...RingSession.fallbackProblems).reversed() {
            #expect(session.problemsLeft == left)
            let (problem, _) = try session.requestProblem(now: Self.t0, using: &generator)
            #expect(problem.text.filter { $0 == "×" }.count == 2)  // hard: a × b + c × d
            #expect(try session.answer(problem.answer, now: Self.t0 + 1, using: &generator).correct)
            #expect(session.state == (left == 1 ? .dismissed : .ringing))
        }
        let healthy = fire(settings(challenge: .nfc), readerHealthy: true)
        #expect(healthy.challenge == .nfc && !healthy.fellBackToMath)
    }

    @Test func aReaderLostMidRingOffersMathAndStillTakesTheTag() throws {
        var session = fire(settings(challenge: .nfc, tags: ["bathroom"]), readerHealthy: true)
        let lost = session.readerLost(at: nil)
        #expect(lost)
        #expect(session.challenge == .any && session.fellBackToMath)
        #expect(
            session.howToDismiss
                == "scan your tag, or answer 3 math problems with 'reveille dismiss' (no NFC reader works)")
        let again = session.readerLost(at: nil)
        #expect(!again)  // once is enough
        var generator = SeededGenerator(state: 6)
        let (problem, _) = try session.requestProblem(now: Self.t0, using: &generator)
        var byTag = session
        _ = try byTag.tag("bathroom", now: Self.t0 + 2)
        #expect(byTag.dismissedBy == .tag)
        #expect(try session.answer(problem.answer, now: Self.t0 + 1, using: &generator).correct)
        #expect(session.state == .ringing && session.problemsLeft == 2)
        var math = fire(settings(challenge: .math))
        let mathLost = math.readerLost(at: nil)
        #expect(!mathLost && math.challenge == .math)
        var done = fire(settings(challenge: .nfc), readerHealthy: true)
        _ = try done.tag("any", now: Self.t0)
        let doneLost = done.readerLost(at: nil)
        #expect(!doneLost)
    }

    @Test func autoStopsAfterTheLongestRingCountingOnlyRingingTime() throws {
        var session = fire(settings(), maxRing: 1800)
        #expect(session.nextDeadline == Self.t0 + 1800)
        _ = try session.snooze(now: Self.t0 + 1000)
        #expect(session.tick(now: Self.t0 + 1540) == [.startAudio])
        // The clock restarts with the new ringing phase.
        #expect(session.tick(now: Self.t0 + 1540 + 1799) == [])
        #expect(session.tick(now: Self.t0 + 1540 + 1800) == [.stopAudio, .runHook(.autoStop)])
        #expect(session.state == .autoStopped)
        #expect(session.nextDeadline == nil)
        var never = fire(settings(), maxRing: 0)
        #expect(never.tick(now: Self.t0 + 86_400) == [] && never.state == .ringing)
    }
}

@Suite struct MissedAlarmTests {
    func ring(_ id: Int, at instant: Int) -> Decision {
        Decision(
            alarmID: id, date: CivilDate(dayNumber: 0), time: LocalTime(secondsOfDay: 0)!, layer: .base, sourceID: nil,
            verdict: .ring(instant: instant, shownAs: LocalTime(secondsOfDay: 0)!, shift: .none))
    }

    @Test func withinGraceRingsOlderIsMissed() {
        let now = 100_000
        let result = MissedAlarms.sort(
            [ring(1, at: now - 3 * 3600), ring(2, at: now - 600)], now: now, graceSeconds: 900)
        #expect(result.ring?.alarmID == 2)
        #expect(result.missed.map(\.alarmID) == [1])
    }

    @Test func alarmsDueTogetherRingAsOneNeverAsAMiss() {
        let now = 100_000
        let result = MissedAlarms.sort(
            [ring(3, at: now - 2), ring(1, at: now - 2), ring(2, at: now - 700)], now: now, graceSeconds: 900)
        #expect(result.ring?.alarmID == 1)
        #expect(result.joining.map(\.alarmID) == [3])
        #expect(result.missed.map(\.alarmID) == [2])
    }

    @Test func nothingWithinGraceMeansEverythingIsMissed() {
        let now = 100_000
        let result = MissedAlarms.sort([ring(1, at: now - 901), ring(2, at: now - 5000)], now: now, graceSeconds: 900)
        #expect(result.ring == nil)
        #expect(result.missed.map(\.alarmID) == [2, 1])
    }

    @Test func aThreeHourJumpRingsOnlyWhatIsWithinGrace() {
        // Daily alarms at 05:00, 06:00 and 07:50; the clock jumps from 05:00 to 08:00.
        var engine = ScheduleEngine(
            state: ScheduleState(alarms: [daily(1, "05:30"), daily(2, "06:00"), daily(3, "07:50"), daily(4, "09:00")]),
            zone: zone("UTC"))
        let due = engine.rings(after: utc("2026-11-21T05:00:00Z"), through: utc("2026-11-21T08:00:00Z"))
        #expect(due.map(\.alarmID) == [1, 2, 3])
        let result = MissedAlarms.sort(due, now: utc("2026-11-21T08:00:00Z"), graceSeconds: 900)
        #expect(result.ring?.alarmID == 3)
        #expect(result.missed.map(\.alarmID) == [1, 2])
    }
}
