import Foundation
@testable import ReveilleCore
import Testing

/// Waking up, enforced: the wake-up check after a dismissal and the escalation of an unanswered
/// ring, decided by the machine and driven here by a manual clock.
@Suite struct WakingTests {
    /// 2026-11-23 (a Monday) 06:00 in Berlin.
    static let six = utc("2026-11-23T05:00:00Z")

    func machine(_ alarms: [Alarm], reader: ReaderHealth = .ok("pn532"), stored: RingSession? = nil) -> AlarmClock {
        AlarmClock(
            schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: reader,
            stored: AlarmClock.Stored(
                evaluatedThrough: Self.six - 60, activeSession: nil,
                // After a restart, the morning's ring is in the history already.
                handled: stored == nil ? [] : [AlarmClock.Occurrence(alarmID: 1, instant: Self.six)],
                lastSessionID: 41, wakeCheck: stored),
            limits: AlarmClock.Limits(ring: RingPolicy(wakeCheckWaitSeconds: 60)), random: ProblemRandom(seed: 7))
    }

    func checked(_ id: Int = 1, after minutes: Int = 5, challenge: Challenge = .math) -> Alarm {
        var alarm = daily(id, "06:00")
        alarm.wakeCheckSeconds = minutes * 60
        alarm.challenge = challenge
        return alarm
    }

    @discardableResult
    func tick(_ clock: inout AlarmClock, _ at: Int) -> [ClockAction] {
        clock.tick(at: Instant(wall: Double(at), monotonic: Double(at - Self.six)), clockWasSet: false)
    }

    /// Rings at six and is dismissed by math at 06:01.
    func dismissed(_ clock: inout AlarmClock) throws -> [ClockAction] {
        tick(&clock, Self.six)
        let problem = try #require(try clock.requestProblem(now: Self.six + 30).result.get().problem)
        let reply = clock.answer(problem.answer, now: Self.six + 60)
        #expect(try reply.result.get().state == .dismissed)
        return reply.actions
    }

    func hooks(_ actions: [ClockAction]) -> [HookEvent] {
        actions.compactMap { if case .runHook(let event, _) = $0 { event } else { nil } }
    }

    func wakes(_ actions: [ClockAction]) -> [Int] {
        actions.compactMap { if case .wake(let at) = $0 { at } else { nil } }
    }

    // MARK: The wake-up check

    /// Five minutes after the dismissal the machine asks (tone, voice, watchers, hook), waits
    /// 60 s, and a key's answer passes it: nothing rings again, and the history keeps "passed".
    @Test func aWakeUpCheckAsksAndAnAnswerPassesIt() throws {
        var clock = machine([checked()])
        let dismissal = try dismissed(&clock)
        let planned = try #require(clock.wakeCheck?.wakeCheck)
        #expect(planned.asksAt == Self.six + 60 + 300)
        #expect(planned.outcome == .waiting)
        #expect(wakes(dismissal).last == Self.six + 360)
        // Too early: a confirmation before it asks does not count.
        let early = clock.confirmAwake(now: Self.six + 200, by: "reveille awake")
        #expect(throws: RingRefusal.self) { try early.result.get() }
        let asking = tick(&clock, Self.six + 360)
        #expect(asking.contains(.warningTone))
        #expect(asking.contains(.say(Spoken.areYouUp)))
        #expect(asking.contains(.pollReader(true)))
        #expect(hooks(asking) == [.wakeCheck])
        #expect(clock.isAskingIfAwake)
        #expect(wakes(asking).last == Self.six + 420)
        let answered = clock.confirmAwake(now: Self.six + 380, by: "key KEY_SPACE")
        let passed = try answered.result.get()
        #expect(passed.wakeCheck?.outcome == .passed)
        #expect(passed.wakeCheck?.answeredBy == "key KEY_SPACE")
        #expect(hooks(answered.actions) == [.awake])
        #expect(answered.actions.contains(.pollReader(false)))
        #expect(clock.wakeCheck == nil)
        let later = tick(&clock, Self.six + 500)
        #expect(!later.contains { if case .play = $0 { true } else { false } })
        #expect(clock.session == nil)
    }

    /// Unanswered, the check fails at its deadline: recorded as failed, and the alarm rings again
    /// as a new session with its challenge, which has its own wake-up check in turn.
    @Test func anUnansweredCheckRingsAgain() throws {
        var clock = machine([checked()])
        _ = try dismissed(&clock)
        tick(&clock, Self.six + 360)
        let failed = tick(&clock, Self.six + 420)
        let record = try #require(
            failed.compactMap { action -> RingSession? in
                if case .persist(let sessions, _) = action { return sessions.first { $0.id == 42 } }
                return nil
            }.first)
        #expect(record.wakeCheck?.outcome == .failed)
        #expect(hooks(failed).prefix(2) == [.wakeCheckFailed, .fire])
        let again = try #require(clock.session)
        #expect(again.id == 43)
        #expect(again.state == .ringing)
        // It says why it rings (a screen shows "you did not answer"), kept across a restart.
        #expect(again.reason == .wakeCheck)
        #expect(again.challenge == .math)
        #expect(failed.contains { if case .play = $0 { true } else { false } })
        let problem = try #require(try clock.requestProblem(now: Self.six + 430).result.get().problem)
        _ = clock.answer(problem.answer, now: Self.six + 440)
        #expect(clock.wakeCheck?.wakeCheck?.asksAt == Self.six + 740)
    }

    /// A registered tag tapped while it asks answers it; one lying there from before does not.
    @Test func aTagAnswersTheCheck() throws {
        var clock = machine([checked(challenge: .any)])
        _ = try dismissed(&clock)
        tick(&clock, Self.six + 360)
        _ = clock.tagPlaced(uid: "04AA", label: "blue", fresh: false, now: Self.six + 365)
        #expect(clock.isAskingIfAwake)
        _ = clock.tagLifted()
        _ = clock.tagPlaced(uid: "04AA", label: nil, fresh: true, now: Self.six + 366)
        #expect(clock.isAskingIfAwake)
        let actions = clock.tagPlaced(uid: "04AA", label: "blue", fresh: true, now: Self.six + 370)
        #expect(!clock.isAskingIfAwake)
        #expect(hooks(actions) == [.awake])
    }

    /// The daemon restarted while the check waited: it still asks, and still rings again if
    /// nobody answers; asked late, the full wait applies from then.
    @Test func aCheckSurvivesARestart() throws {
        var first = machine([checked()])
        _ = try dismissed(&first)
        let open = try #require(first.wakeCheck)
        var second = machine([checked()], stored: open)
        _ = second.start(at: Instant(wall: Double(Self.six + 100), monotonic: 0))
        #expect(second.wakeCheck?.id == open.id)
        // Down through the moment it should have asked: asked on the next look, with a full minute.
        tick(&second, Self.six + 400)
        #expect(second.isAskingIfAwake)
        #expect(second.wakeCheck?.wakeCheck?.deadline == Self.six + 460)
        tick(&second, Self.six + 460)
        #expect(second.session?.state == .ringing)
    }

    /// Another alarm ringing when the check would ask: the check gives way (no tone over the ring).
    @Test func aCheckGivesWayToAnotherRing() throws {
        var second = daily(2, "06:05")
        second.label = "second"
        var clock = machine([checked(), second])
        _ = try dismissed(&clock)
        tick(&clock, Self.six + 300)
        #expect(clock.session?.settings.alarmID == 2)
        let at = tick(&clock, Self.six + 360)
        #expect(!at.contains(.warningTone))
        #expect(clock.wakeCheck == nil)
        #expect(clock.session?.state == .ringing)
    }

    /// Without `--wake-check` nothing is planned; with no check waiting, `awake` is refused.
    @Test func noCheckWithoutTheOption() throws {
        var clock = machine([daily(1, "06:00")])
        _ = try dismissed(&clock)
        #expect(clock.wakeCheck == nil)
        let reply = clock.confirmAwake(now: Self.six + 400, by: "reveille awake")
        #expect(throws: RingRefusal("no wake-up check is waiting")) { try reply.result.get() }
    }

    /// While it asks, any key press answers it (and does not say the time).
    @Test func anyKeyAnswersWhileItAsks() {
        var keypad = BedsideKeypad()
        #expect(keypad.handle(.digit(4), .press, phase: .checking, now: 0) == [.confirmAwake])
        #expect(keypad.handle(.snooze, .press, phase: .checking, now: 1) == [.confirmAwake])
        #expect(keypad.handle(.snooze, .release, phase: .checking, now: 1.1) == [])
        #expect(keypad.handle(.answer, .autorepeat, phase: .checking, now: 2) == [])
    }

    // MARK: Escalation

    /// Unanswered for its `--escalate-after`, the ring rises to full volume, once; a snooze
    /// starts the count again; answering holds it off until the sound comes back up.
    @Test func anUnansweredRingEscalatesAtItsMinute() throws {
        var alarm = daily(1, "06:00")
        alarm.escalateAfterSeconds = 300
        var clock = machine([alarm])
        let rang = tick(&clock, Self.six)
        #expect(wakes(rang).last == Self.six + 300)
        #expect(!tick(&clock, Self.six + 299).contains(.escalate))
        let escalated = tick(&clock, Self.six + 300)
        #expect(escalated.contains(.escalate))
        #expect(clock.session?.escalated == true)
        // Watchers (an open page) hear of it as it happens, not at the next transition.
        #expect(escalated.contains { if case .publish(.session(let s)) = $0 { s.escalated } else { false } })
        #expect(clock.session?.reason == .time)
        #expect(!tick(&clock, Self.six + 360).contains(.escalate))
        // A snooze: the ring after it fades in again, and escalates 5 min after it began.
        _ = clock.snooze(now: Self.six + 400)
        #expect(clock.session?.escalated == false)
        let back = try #require(clock.session?.snoozedUntil)
        tick(&clock, back)
        // The sleeper asks for the problem at 4:30 in: the sound drops for 60 s, then rises.
        _ = clock.requestProblem(now: back + 270)
        #expect(!tick(&clock, back + 300).contains(.escalate))
        #expect(clock.session?.nextDeadline == back + 330)
        let late = tick(&clock, back + 330)
        #expect(late.contains(.escalate))
        #expect(late.contains(.attenuate(false)))
    }

    /// No device plays while it rings: said loudly once (log, hook, watchers), and again when
    /// a device plays; while nothing rings, nothing is said.
    @Test func aSilentAlarmIsSaidLoudly() {
        var clock = machine([daily(1, "06:00")])
        #expect(clock.soundChanged(silent: true, now: Self.six - 60).isEmpty)
        #expect(clock.soundChanged(silent: false, now: Self.six - 50).isEmpty)
        tick(&clock, Self.six)
        let silent = clock.soundChanged(silent: true, now: Self.six + 5)
        #expect(hooks(silent) == [.silent])
        #expect(silent.contains(.publish(.silent(true))))
        #expect(clock.soundChanged(silent: true, now: Self.six + 10).isEmpty)
        #expect(clock.soundChanged(silent: false, now: Self.six + 20).contains(.publish(.silent(false))))
    }

    /// Without `--escalate-after`, the ring stays at its volume until it auto-stops.
    @Test func noEscalationWithoutTheOption() {
        var clock = machine([daily(1, "06:00")])
        tick(&clock, Self.six)
        for minute in 1...29 { #expect(!tick(&clock, Self.six + minute * 60).contains(.escalate)) }
    }
}

/// The sunrise before a ring with `--lead`.
@Suite struct SunriseTests {
    func machine(_ alarms: [Alarm], through: Int) -> AlarmClock {
        AlarmClock(
            schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: .notConfigured,
            stored: AlarmClock.Stored(evaluatedThrough: through, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 1))
    }

    func led(_ at: String, minutes: Int, label: String = "sun") -> Alarm {
        var alarm = daily(1, at, label: label)
        alarm.leadSeconds = minutes * 60
        return alarm
    }

    func wakes(_ actions: [ClockAction]) -> [Int] {
        actions.compactMap { if case .wake(let at) = $0 { at } else { nil } }
    }

    /// It begins `--lead` before the ring: the machine wakes for it, tells the hooks and the
    /// watchers once, and ends it when the alarm rings.
    @Test func theSunriseBeginsBeforeTheRingAndEndsWithIt() {
        let six = utc("2026-11-23T05:00:00Z")
        var clock = machine([led("06:00", minutes: 20)], through: six - 3600)
        let early = clock.tick(at: Instant(wall: Double(six - 3600), monotonic: 0), clockWasSet: false)
        #expect(wakes(early).last == six - 1200)
        #expect(clock.sunrise == nil)
        let begun = clock.tick(at: Instant(wall: Double(six - 1200), monotonic: 2400), clockWasSet: false)
        let sunrise = Sunrise(alarmID: 1, label: "sun", startsAt: six - 1200, ringsAt: six)
        #expect(begun.contains(.lead(sunrise)))
        #expect(begun.contains(.publish(.sunrise(sunrise))))
        #expect(clock.sunrise == sunrise)
        #expect(wakes(begun).last == six)
        let again = clock.tick(at: Instant(wall: Double(six - 600), monotonic: 3000), clockWasSet: false)
        #expect(!again.contains { if case .lead = $0 { true } else { false } })
        let rang = clock.tick(at: Instant(wall: Double(six), monotonic: 3600), clockWasSet: false)
        #expect(rang.contains(.publish(.sunrise(nil))))
        #expect(clock.session?.state == .ringing)
        #expect(clock.sunrise == nil)
    }

    /// Across the spring change (Berlin, 2026-03-29, 02:00 → 03:00) a 20-minute sunrise before
    /// 03:10 is 20 real minutes: it begins at 01:50 on the wall clock, before the jump.
    @Test func theSunriseIsItsLengthAcrossADSTChange() {
        let ring = utc("2026-03-29T01:10:00Z")  // 03:10 CEST
        var clock = machine([led("03:10", minutes: 20)], through: ring - 3000)
        let actions = clock.tick(at: Instant(wall: Double(ring - 3000), monotonic: 0), clockWasSet: false)
        #expect(wakes(actions).last == ring - 1200)
        #expect(ZoneResolver(zone: zone("Europe/Berlin")).local(at: ring - 1200).time == time("01:50"))
        _ = clock.tick(at: Instant(wall: Double(ring - 1200), monotonic: 1800), clockWasSet: false)
        #expect(clock.sunrise?.ringsAt == ring)
    }

    /// `--lead-sound`: the sound begins quietly in the lead's last minute and gives way to the
    /// ring; one whose ring is dismissed early stops.
    @Test func theLeadSoundBeginsInTheLastMinute() throws {
        let six = utc("2026-11-23T05:00:00Z")
        var alarm = led("06:00", minutes: 20)
        alarm.leadSound = true
        var clock = machine([alarm], through: six - 3600)
        let begun = clock.tick(at: Instant(wall: Double(six - 1200), monotonic: 0), clockWasSet: false)
        #expect(clock.sunrise?.soundAt == six - 60)
        #expect(wakes(begun).last == six - 60)
        let sound = clock.tick(at: Instant(wall: Double(six - 60), monotonic: 1140), clockWasSet: false)
        #expect(sound.contains(.leadSound(RingSettings(alarm))))
        let rang = clock.tick(at: Instant(wall: Double(six), monotonic: 1200), clockWasSet: false)
        #expect(rang.contains { if case .play = $0 { true } else { false } })
        #expect(!rang.contains(.stopSound))
        // The next morning, dismissed early during its lead sound: the sound stops.
        _ = clock.snooze(now: six + 10)
        let problem = try #require(try clock.requestProblem(now: six + 600).result.get().problem)
        _ = clock.answer(problem.answer, now: six + 610)
        let tomorrow = six + 86_400
        _ = clock.tick(at: Instant(wall: Double(tomorrow - 60), monotonic: 90_000), clockWasSet: false)
        let asked = try #require(try clock.unlockChallenge(for: 1, now: tomorrow - 50).0.get().problem)
        _ = clock.unlockAnswer(for: 1, value: asked.answer, now: tomorrow - 45)
        let (early, actions) = clock.dismissNextEarly(now: tomorrow - 40)
        #expect(try early.get().wasDismissedEarly)
        #expect(actions.contains(.stopSound))
    }

    /// An alarm moved later during its sunrise ends it; the new time gets its own.
    @Test func aMovedRingEndsTheSunrise() {
        let six = utc("2026-11-23T05:00:00Z")
        var clock = machine([led("06:00", minutes: 20)], through: six - 3600)
        _ = clock.tick(at: Instant(wall: Double(six - 600), monotonic: 0), clockWasSet: false)
        #expect(clock.sunrise != nil)
        var state = clock.schedule
        state.alarms[0].time = time("07:00")
        let moved = clock.scheduleChanged(state, at: Instant(wall: Double(six - 500), monotonic: 100))
        #expect(moved.contains(.publish(.sunrise(nil))))
        #expect(clock.sunrise == nil)
        #expect(wakes(moved).last == six + 3600 - 1200)
    }
}
