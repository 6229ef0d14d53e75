import Foundation
import ReveilleCore
import Testing

/// The machine's one door (`AlarmClock.handle`) and the questions the edge may ask it, across the
/// states the machine can be in: idle, ringing, snoozed, asking "are you up?", a chime a moment
/// ago; unlocked or not. Plain `import`: only what the daemon can reach is used here.
@Suite struct ClockDoorTests {
    /// 2026-11-23 (a Monday) 06:00 in Berlin.
    static let six = utc("2026-11-23T05:00:00Z")
    static let reader = ReaderHealth.ok("pn532_uart:/dev/ttyS0")

    static func at(_ second: Int) -> Instant { Instant(wall: Double(second), monotonic: Double(second - six + 1000)) }

    func machine(_ alarms: [Alarm]) -> AlarmClock {
        var clock = AlarmClock(
            schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: Self.reader,
            stored: AlarmClock.Stored(
                evaluatedThrough: Self.six - 60, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 7))
        _ = clock.handle(.start(clockSynchronized: false), at: Self.at(Self.six - 30))
        return clock
    }

    func alarm(_ id: Int, _ at: String, tags: [String] = [], wakeCheck: Int = 0) -> Alarm {
        var alarm = Alarm(id: id, label: "up", time: time(at), repeats: .weekly(.daily), challenge: .any, tags: tags)
        alarm.wakeCheckSeconds = wakeCheck
        return alarm
    }

    /// The machine rung at six.
    func ringing(_ alarms: [Alarm]) -> AlarmClock {
        var clock = machine(alarms)
        _ = clock.handle(.tick(clockWasSet: false, clockSynchronized: false), at: Self.at(Self.six))
        return clock
    }

    func session(_ step: (ClockAnswer, [ClockAction])) throws -> RingSession { try step.0.ring.get() }

    @Test func aRingsStateDecidesWhatElseMayUseTheReaderTheSpeakerAndATag() throws {
        let uses: [SideUse] = [.tagWait, .soundTest, .soundStop, .removeTag("bath"), .removeTag("kitchen")]
        // Idle: everything may go on.
        let idle = machine([alarm(1, "06:00", tags: ["bath"])])
        for use in uses { #expect(idle.refusal(for: use) == nil, "\(use) while idle") }
        #expect(idle.keypadPhase(now: Self.six - 10) == .idle)

        // Ringing, then snoozed: the reader and the speaker are the alarm's, and the tag that stops
        // it stays; another tag may go.
        var clock = ringing([alarm(1, "06:00", tags: ["bath"])])
        #expect(clock.keypadPhase(now: Self.six + 1) == .ringing)
        for phase in ["ringing", "snoozed"] {
            for use in uses.dropLast() {
                let refusal = try #require(clock.refusal(for: use), "\(use) while \(phase)")
                #expect(refusal.message.contains(phase), "\(refusal.message)")
            }
            #expect(clock.refusal(for: .removeTag("kitchen")) == nil, "a tag that does not stop it, while \(phase)")
            if phase == "ringing" {
                #expect(try session(clock.handle(.snooze, at: Self.at(Self.six + 5))).state == .snoozed)
                #expect(clock.keypadPhase(now: Self.six + 6) == .snoozed)
            }
        }
        #expect(try #require(clock.refusal(for: .soundStop)).message.contains("'reveille dismiss' stops it"))
    }

    @Test func theWakeUpCheckMakesTheKeysPhase() throws {
        var clock = ringing([alarm(1, "06:00", wakeCheck: 300)])
        let problem = try #require(try session(clock.handle(.problem, at: Self.at(Self.six + 2))).problem)
        let (answer, _) = clock.handle(.answer(problem.answer), at: Self.at(Self.six + 3))
        guard case .ring(.success(let after), .dismissed?) = answer else {
            Issue.record("a right answer dismisses: \(answer)")
            return
        }
        #expect(after.wakeCheck != nil)
        // Dismissed with a check planned: nothing else waits for the ring any more.
        #expect(clock.refusal(for: .tagWait) == nil && clock.refusal(for: .soundTest) == nil)
        let asks = try #require(after.wakeCheck?.asksAt)
        _ = clock.handle(.tick(clockWasSet: false, clockSynchronized: false), at: Self.at(asks))
        #expect(clock.keypadPhase(now: asks + 1) == .checking)
        #expect(try session(clock.handle(.awake(by: "key 1"), at: Self.at(asks + 2))).wakeCheck?.outcome == .passed)
        #expect(clock.keypadPhase(now: asks + 3) == .idle)
        guard case .ring(.failure, nil) = clock.handle(.awake(by: "key 1"), at: Self.at(asks + 4)).0 else {
            Issue.record("a second answer to a passed check is refused")
            return
        }
    }

    /// An answer's outcome comes out of the door: wrong, right with more to go (math standing in
    /// for a lost reader), dismissed; the keypad's answer the same.
    @Test func anAnswersOutcomeIsTheMachines() throws {
        for byKey in [false, true] {
            var tagOnly = alarm(1, "06:00")
            tagOnly.challenge = .nfc
            var clock = ringing([tagOnly])
            _ = clock.handle(.readerHealth(.absent("unplugged")), at: Self.at(Self.six + 1))
            let problem = try #require(try session(clock.handle(.problem, at: Self.at(Self.six + 2))).problem)
            let wrong: ClockEvent = byKey ? .answerKey(problem.answer + 1) : .answer(problem.answer + 1)
            guard case .ring(.success, .wrong?) = clock.handle(wrong, at: Self.at(Self.six + 3)).0 else {
                Issue.record("a wrong answer is wrong (by key: \(byKey))")
                continue
            }
            var outcomes: [AnswerOutcome] = []
            for second in 5..<20 {
                guard case .ring(.success(let now), _) = clock.handle(.problem, at: Self.at(Self.six + second)).0,
                    let next = now.problem
                else { break }
                let event: ClockEvent = byKey ? .answerKey(next.answer) : .answer(next.answer)
                guard case .ring(_, let outcome?) = clock.handle(event, at: Self.at(Self.six + second)).0 else { break }
                outcomes.append(outcome)
                if outcome == .dismissed { break }
            }
            #expect(outcomes.last == .dismissed, "by key: \(byKey)")
            #expect(outcomes.dropLast().allSatisfy { $0 == .rightWithMoreToGo } && outcomes.count > 1)
        }
    }

    /// `unlock`: its challenge, a wrong answer, a right one, then "unlocked until" without asking
    /// again; a locked alarm's weakening is refused, an unlocked one's is not.
    @Test func unlockingGoesThroughTheDoorAndOpensTheGate() throws {
        var committed = alarm(1, "07:00")
        committed.commitSeconds = 3 * 3600
        var clock = machine([committed])
        let before = ScheduleState(alarms: [committed])
        var after = before
        after.alarms[0].enabled = false
        let now = Self.six
        #expect(clock.lockedWeakenings(before: before, after: after, now: now).map(\.what) == ["silences that ring"])

        guard case .unlock(.success(.asks(let ask))) = clock.handle(.unlock(alarmID: 1), at: Self.at(now)).0,
            let problem = ask.problem
        else {
            Issue.record("unlock asks the alarm's challenge")
            return
        }
        #expect(ask.tag, "a working reader: its tag unlocks it too")
        guard
            case .unlock(.success(.wrong(let next))) =
                clock.handle(.unlockAnswer(alarmID: 1, value: problem.answer + 1), at: Self.at(now + 1)).0
        else {
            Issue.record("a wrong answer brings a new problem")
            return
        }
        guard
            case .unlock(.success(.unlocked(let until))) =
                clock.handle(.unlockAnswer(alarmID: 1, value: next.answer), at: Self.at(now + 2)).0
        else {
            Issue.record("the right answer unlocks")
            return
        }
        #expect(until == now + 2 + Commitment.unlockSeconds)
        guard case .unlock(.success(.unlocked(until))) = clock.handle(.unlock(alarmID: 1), at: Self.at(now + 3)).0
        else {
            Issue.record("unlocked already: it says until when, and asks nothing")
            return
        }
        #expect(clock.lockedWeakenings(before: before, after: after, now: now + 3).isEmpty)
        #expect(!clock.lockedWeakenings(before: before, after: after, now: until).isEmpty, "it locks again")
        guard case .unlock(.failure) = clock.handle(.unlock(alarmID: 9), at: Self.at(now)).0 else {
            Issue.record("no such alarm")
            return
        }
    }
}
