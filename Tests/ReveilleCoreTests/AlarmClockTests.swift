import Foundation
@testable import ReveilleCore
import Testing

/// The daemon's decision-maker, driven by a manual clock: no sleeping, no I/O.
@Suite struct AlarmClockTests {
    /// 2026-11-23 (a Monday) 06:00 in Berlin.
    static let six = utc("2026-11-23T05:00:00Z")
    static let reader = ReaderHealth.ok("pn532_uart:/dev/ttyS0")

    /// A manual clock: wall and monotonic seconds that tests move.
    struct ManualClock {
        var wall: Double
        var monotonic: Double = 1000
        var seconds: Int { Int(wall) }
        mutating func advance(_ by: Double) {
            wall += by
            monotonic += by
        }
    }

    func machine(
        _ alarms: [Alarm], at now: Int, through: Int?, reader: ReaderHealth = reader, session: RingSession? = nil,
        grace: Int = 15 * 60
    ) -> AlarmClock {
        AlarmClock(
            schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: reader,
            stored: AlarmClock.Stored(
                evaluatedThrough: through, activeSession: session, handled: [], lastSessionID: 41),
            limits: AlarmClock.Limits(graceSeconds: grace), random: ProblemRandom(seed: 7))
    }

    func wakes(_ actions: [ClockAction]) -> [Int] {
        actions.compactMap { if case .wake(let at) = $0 { at } else { nil } }
    }

    func plays(_ actions: [ClockAction]) -> Int {
        actions.filter { if case .play = $0 { true } else { false } }.count
    }

    func polls(_ actions: [ClockAction]) -> [Bool] {
        actions.compactMap { if case .pollReader(let on) = $0 { on } else { nil } }
    }

    func persisted(_ actions: [ClockAction]) -> [RingSession] {
        actions.flatMap { action -> [RingSession] in
            if case .persist(let sessions, _) = action { return sessions }
            return []
        }
    }

    func nfcAlarm(_ id: Int, _ at: String) -> Alarm {
        Alarm(id: id, label: "up", time: time(at), repeats: .weekly(.daily), challenge: .nfc)
    }

    // MARK: Waking and ringing

    /// What the bedside voice says is the machine's: the problem for a number key, a new one
    /// after a wrong answer, how to stop it when no snooze is left, "tap your tag" for NFC.
    @Test func theVoiceSaysWhatTheMachineDecides() throws {
        var math = machine([daily(1, "06:00")], at: Self.six, through: Self.six - 60)
        _ = math.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        let asked = math.problemByKey(now: Self.six + 5)
        let problem = try #require(try asked.result.get().problem)
        #expect(asked.actions.contains(ClockAction.say(Spoken.problem(problem))))
        let wrong = math.answerByKey(problem.answer + 1, now: Self.six + 10)
        let next = try #require(try wrong.result.get().problem)
        #expect(wrong.actions.contains(ClockAction.say(Spoken.wrongAnswer(newProblem: next))))
        var limited = daily(2, "06:00")
        limited.maxSnoozes = 1
        var none = machine([limited], at: Self.six, through: Self.six - 60)
        _ = none.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        let snoozed = none.snoozeByKey(now: Self.six + 5)
        #expect(!snoozed.actions.contains { if case .say = $0 { true } else { false } })
        let back = try #require(none.session?.snoozedUntil)
        _ = none.tick(at: Instant(wall: Double(back), monotonic: Double(back - Self.six)), clockWasSet: false)
        #expect(none.session?.state == .ringing)
        let refused = none.snoozeByKey(now: back + 5)
        #expect(refused.actions.contains(.say(Spoken.noSnoozesLeft(challenge: .math))))
        var tag = machine([nfcAlarm(3, "06:00")], at: Self.six, through: Self.six - 60)
        _ = tag.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        #expect(tag.problemByKey(now: Self.six + 5).actions == [.say(Spoken.tapYourTag)])
    }

    /// An app's warning: the hooks always; the tone only when no alarm is on.
    @Test func anAppWarningTonesOnlyWhenNoAlarmIsOn() {
        var clock = machine([daily(1, "06:00")], at: Self.six, through: Self.six - 60)
        #expect(
            clock.appTimeRunningOut(app: "game", user: "kid", secondsLeft: 300) == [
                .warningTone, .appWarningHook(app: "game", user: "kid", secondsLeft: 300),
            ])
        _ = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        #expect(clock.session?.state == .ringing)
        #expect(
            clock.appTimeRunningOut(app: "game", user: "kid", secondsLeft: 60) == [
                .appWarningHook(app: "game", user: "kid", secondsLeft: 60)
            ])
    }

    /// What days gone by leave behind is the machine's to purge, once it has judged them, after
    /// the catch-up: a machine started past midnight still sees yesterday's "off".
    @Test func judgedDaysArePurgedByTheMachineAfterTheCatchUp() throws {
        let monday = try CivilDate.parse("2026-11-23")
        let off = DateOverride(id: 1, alarmID: nil, date: monday, change: .off)
        var oneShot = daily(2, "23:50")
        oneShot.repeats = .once(monday)
        // Down from Monday 23:40 to Tuesday 00:05: the one-shot was due at 23:50, the override
        // silenced it; within the grace it would ring if the override were gone.
        var clock = AlarmClock(
            schedule: ScheduleState(alarms: [oneShot], overrides: [off]), zone: zone("Europe/Berlin"),
            readerHealth: Self.reader,
            stored: AlarmClock.Stored(
                evaluatedThrough: utc("2026-11-23T22:40:00Z"), activeSession: nil, handled: [], lastSessionID: 41),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 7))
        // Network time is there at the start: a 25-minute gap with none would leave the clock
        // unconfirmed, and the purge waiting for it (ClockTrustTests).
        var unconfirmed = clock
        #expect(
            !unconfirmed.start(at: Instant(wall: Double(utc("2026-11-23T23:05:00Z")), monotonic: 0)).contains(
                .purge(before: try CivilDate.parse("2026-11-24"))))
        let actions = clock.start(
            at: Instant(wall: Double(utc("2026-11-23T23:05:00Z")), monotonic: 0), clockSynchronized: true)
        #expect(plays(actions) == 0 && persisted(actions).isEmpty, "silenced: neither rung nor missed")
        #expect(actions.contains(.purge(before: try CivilDate.parse("2026-11-24"))))
        #expect(clock.schedule.overrides.isEmpty)
        #expect(clock.schedule.alarms.first?.enabled == false)
        // Nothing more to purge at the next look.
        let later = clock.tick(
            at: Instant(wall: Double(utc("2026-11-23T23:30:00Z")), monotonic: 1500), clockWasSet: false)
        #expect(!later.contains { if case .purge = $0 { true } else { false } })
    }

    /// The evaluation point on disk follows quiet days: an hour behind at most, and written past
    /// each local midnight, so that a crash at any moment restarts from a judged instant of today.
    @Test func theWrittenEvaluationPointFollowsQuietTimeHourlyAndAtMidnight() {
        // An alarm on Sundays only: two quiet weekdays (Monday and Tuesday).
        let sundays = Alarm(id: 1, label: "up", time: time("06:30"), repeats: .weekly(DaySet([.sunday])))
        var clock = machine([sundays], at: Self.six, through: Self.six - 60)
        var manual = ManualClock(wall: Double(Self.six))
        var written: [Int] = []
        var now = Self.six
        // Two days, woken whenever the machine asks.
        while now < Self.six + 2 * 86_400 {
            let actions = clock.tick(at: Instant(wall: Double(now), monotonic: manual.monotonic), clockWasSet: false)
            for case .persist(_, let through?) in actions { written.append(through) }
            #expect(clock.session == nil)
            let next = wakes(actions).last ?? now + 3600
            manual.advance(Double(max(1, next - now)))
            now = max(now + 1, next)
        }
        #expect((44...52).contains(written.count), "\(written.count) writes in two days")
        for (earlier, later) in zip(written, written.dropFirst()) {
            #expect(later - earlier <= 3600, "a gap of \(later - earlier) s after \(earlier)")
        }
        // Past each local midnight, a write of that day (the machine looks at midnight at the latest).
        let midnight = utc("2026-11-23T23:00:00Z")
        #expect(written.contains { $0 >= midnight && $0 < midnight + 3600 })
        #expect((written.last ?? 0) >= Self.six + 2 * 86_400 - 3600)
    }

    @Test func idleItAsksToWakeAtTheNextRingAndNoEarlier() {
        var clock = machine([daily(1, "06:30")], at: Self.six, through: Self.six - 60)
        let actions = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        #expect(wakes(actions) == [Self.six + 30 * 60])
        #expect(plays(actions) == 0)
        #expect(actions.contains(.publish(.nextRing(Self.six + 30 * 60))))
    }

    @Test func withNothingAheadItWakesAfterTheLongestSleep() {
        var clock = machine([], at: Self.six, through: Self.six)
        #expect(
            wakes(clock.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)) == [
                Self.six + 3600
            ])
    }

    @Test func aDueAlarmPlaysFirstThenIsStoredNumberedAndPolled() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six)
        let actions = clock.tick(
            at: Instant(wall: Double(Self.six + 30 * 60) + 0.004, monotonic: 0), clockWasSet: false)
        guard case .play(let settings) = actions.first else {
            Issue.record("the sound must come first: \(actions)")
            return
        }
        #expect(settings.alarmID == 1)
        #expect(clock.session?.id == 42 && clock.session?.state == .ringing)
        #expect(persisted(actions).map(\.id) == [42])
        #expect(polls(actions) == [true])
        #expect(actions.contains(.runHook(.fire, clock.session!)))
        // It wakes for the longest ring (30 min), the next day's ring being later.
        #expect(wakes(actions) == [Self.six + 30 * 60 + 30 * 60])
    }

    @Test func aSecondAlarmDueDuringASnoozeWakesThatSessionOnce() {
        var clock = machine([daily(1, "06:30"), daily(2, "06:35")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        let snooze = clock.snooze(now: Self.six + 1800 + 10)
        #expect(snooze.actions.contains(.stopSound))
        #expect(polls(snooze.actions) == [], "the reader keeps polling through a snooze")
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 2100), monotonic: 300), clockWasSet: false)
        #expect(plays(actions) == 1)
        #expect(clock.session?.settings.alarmID == 1 && clock.session?.state == .ringing)
        #expect(clock.session?.snoozeCount == 1)
        #expect(actions.contains(.log(.notice, "alarm #2 is due while #1 is snoozed; it rings as that session")))
        // The joining occurrence is never rung again.
        #expect(plays(clock.tick(at: Instant(wall: Double(Self.six + 2101), monotonic: 301), clockWasSet: false)) == 0)
    }

    @Test func aSecondAlarmJoinsARingingOneWithoutASecondSound() {
        var clock = machine([daily(1, "06:30"), daily(2, "06:31")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 1860), monotonic: 60), clockWasSet: false)
        #expect(plays(actions) == 0)
        #expect(clock.session?.settings.alarmID == 1)
    }

    @Test func aOneShotIsTurnedOffWhenItRings() {
        let once = Alarm(id: 5, time: time("06:30"), repeats: .once(date("2026-11-23")))
        var clock = machine([once], at: Self.six, through: Self.six)
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        #expect(actions.contains(.disableAlarm(id: 5)))
        #expect(clock.schedule.alarms.first?.enabled == false)
        // Watchers (the page, Home Assistant's switch) hear that an alarm changed, after the write.
        let written = actions.firstIndex(of: .disableAlarm(id: 5)) ?? actions.endIndex
        #expect(actions[written...].contains(.publish(.schedule)), "\(actions)")
    }

    // MARK: Catching up

    @Test func afterDowntimeOnlyTheLatestOccurrenceWithinGraceRingsAndTheRestAreMissed() {
        // Down from 05:00 to 06:40: 05:30 and 06:00 are over 15 min old, 06:30 is 10 min old.
        let alarms = [daily(1, "05:30"), daily(2, "06:00"), daily(3, "06:30")]
        var clock = machine(alarms, at: Self.six, through: Self.six - 3600)
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 2400), monotonic: 0), clockWasSet: false)
        #expect(plays(actions) == 1)
        #expect(clock.session?.settings.alarmID == 3)
        let stored = persisted(actions)
        #expect(stored.filter { $0.state == .missed }.map(\.settings.alarmID) == [1, 2])
        // Missed records, the session and how far occurrences are handled go in one transaction.
        let transactions = actions.filter { if case .persist = $0 { true } else { false } }
        #expect(transactions == [.persist(stored, evaluatedThrough: Self.six + 2400)])
        #expect(actions.filter { if case .runHook(.missed, _) = $0 { true } else { false } }.count == 2)
    }

    @Test func aClockBehindTheLastHandledInstantRingsNothingAndWarnsOnce() {
        var clock = machine([daily(1, "06:30")], at: Self.six, through: Self.six + 7200)
        let first = clock.tick(at: Instant(wall: Double(Self.six - 86_400), monotonic: 0), clockWasSet: false)
        #expect(plays(first) == 0)
        #expect(
            first.contains(
                .log(
                    .warning,
                    "the clock reads 1d 2h 0m earlier than the last handled instant; nothing rings until it is synchronized (time sync) or reaches that instant"
                )))
        #expect(clock.waitingForClock == Self.six + 7200)
        // It looks again every minute while it waits (to see network time arrive).
        #expect(wakes(first).last == Self.six - 86_400 + 60)
        let second = clock.tick(at: Instant(wall: Double(Self.six - 86_000), monotonic: 400), clockWasSet: false)
        #expect(!second.contains { if case .log(.warning, _) = $0 { true } else { false } })
    }

    @Test func aClockThatWasAYearAheadAndIsPutRightRingsAgainAndRecordsWhatItPassedOver() {
        let year = 365 * 86_400
        // Running at 06:00 with a daily 06:30 and 07:00; at 06:10 the clock jumps a year ahead.
        var clock = machine([daily(1, "06:30"), daily(2, "07:00")], at: Self.six, through: Self.six)
        var wall = ManualClock(wall: Double(Self.six))
        _ = clock.tick(at: Instant(wall: wall.wall, monotonic: wall.monotonic), clockWasSet: false)
        wall.advance(600)
        let ahead = clock.tick(
            at: Instant(wall: wall.wall + Double(year), monotonic: wall.monotonic), clockWasSet: true)
        // A year ahead, the last week's occurrences look missed (they are, by that clock).
        #expect(persisted(ahead).allSatisfy { $0.state == .missed })
        // At 06:40 time sync steps it back while the daemon watches: trusted, caught up at once.
        wall.advance(1800)
        let back = clock.tick(at: Instant(wall: wall.wall, monotonic: wall.monotonic), clockWasSet: true)
        #expect(clock.waitingForClock == nil)
        #expect(
            back.contains {
                if case .log(.notice, let text) = $0 { text.hasPrefix("the clock is right again") } else { false }
            })
        // 06:30 passed while the clock was wrong, 10 minutes ago: within the grace, it rings now.
        #expect(plays(back) == 1)
        #expect(clock.session?.settings.alarmID == 1)
        // And 07:00 rings at its time, not a year from now.
        #expect(clock.nextRing == .some(Self.six + 3600))
    }

    @Test func aClockBehindAtStartWaitsUntilNetworkTimeSaysItIsRightThenCatchesUp() {
        // Handled through 06:00 a year from now (the clock had been a year ahead); now it reads 06:00.
        let year = 365 * 86_400
        var clock = machine([daily(1, "06:30")], at: Self.six, through: Self.six + year)
        let waiting = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        #expect(plays(waiting) == 0)
        #expect(clock.waitingForClock == Self.six + year)
        // Not synchronized yet: still waiting a minute later.
        _ = clock.tick(at: Instant(wall: Double(Self.six + 60), monotonic: 60), clockWasSet: false)
        #expect(clock.waitingForClock != nil)
        // At 06:45 network time says the clock is right: 06:30 is within the grace and rings.
        let synced = clock.tick(
            at: Instant(wall: Double(Self.six + 2700), monotonic: 2700), clockWasSet: false, clockSynchronized: true)
        #expect(clock.waitingForClock == nil)
        #expect(plays(synced) == 1)
        // Occurrences of the past week with no record (the daemon restarted while the clock was
        // wrong: where it went wrong is not known) are recorded as missed, with the reason.
        #expect(
            synced.contains {
                if case .log(.warning, let text) = $0 {
                    text.hasSuffix("recorded as missed (passed while the clock was wrong)")
                } else {
                    false
                }
            })
    }

    @Test func aJumpOfTheClockIsNoticedAgainstTheMonotonicClock() {
        var clock = machine([], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 100), clockWasSet: false)
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 3 * 3600), monotonic: 101), clockWasSet: true)
        #expect(actions.contains(.log(.notice, "the clock jumped by +2h 59m; checking what came due")))
    }

    @Test func anAlarmAddedForATimeAlreadyPastIsNotTakenForAMissedOne() {
        var clock = machine([], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 600), monotonic: 0), clockWasSet: false)
        let changed = clock.scheduleChanged(
            ScheduleState(alarms: [daily(1, "06:05")]), at: Instant(wall: Double(Self.six + 600), monotonic: 0))
        #expect(changed.contains(.publish(.nextRing(Self.six + 86_400 + 300))))
        #expect(changed.first == .publish(.schedule))  // watchers re-read the schedule
        #expect(wakes(changed) == [Self.six + 600 + 3600])  // the longest sleep comes first
        let later = clock.tick(at: Instant(wall: Double(Self.six + 700), monotonic: 100), clockWasSet: false)
        #expect(plays(later) == 0 && persisted(later).isEmpty)
    }

    // MARK: The sleeper

    @Test func snoozesAreCountedAndTheLimitSaysHowToDismiss() {
        let alarm = Alarm(id: 1, time: time("06:30"), repeats: .weekly(.daily), maxSnoozes: 1, snoozeMinutes: 5)
        var clock = machine([alarm], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        let first = clock.snooze(now: Self.six + 1801)
        #expect((try? first.result.get())?.snoozedUntil == Self.six + 1801 + 300)
        #expect(wakes(first.actions) == [Self.six + 1801 + 300])
        _ = clock.tick(at: Instant(wall: Double(Self.six + 2101), monotonic: 300), clockWasSet: false)
        #expect(clock.session?.state == .ringing)
        guard case .failure(let refusal) = clock.snooze(now: Self.six + 2102).result else {
            Issue.record("a second snooze must be refused")
            return
        }
        #expect(refusal.message.hasPrefix("no snoozes left (1 of 1 used): to stop the alarm"))
    }

    @Test func mathDismissesAndStopsPollingWhileAWrongAnswerGivesANewProblem() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six, reader: .failing("wedged"))
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        #expect(clock.session?.challenge == .math && clock.session?.fellBackToMath == true)
        let asked = clock.requestProblem(now: Self.six + 1801)
        #expect(asked.actions.first == .attenuate(true))
        let problem = try! #require(try? asked.result.get().problem)
        let wrong = clock.answer(problem.answer + 1, now: Self.six + 1802)
        #expect((try? wrong.result.get())?.wrongAnswers == 1)
        // Math standing in for the tag asks three right answers; the first two give the next.
        for step in 0..<(RingSession.fallbackProblems - 1) {
            let shown = try! #require(clock.session?.problem)
            let partial = clock.answer(shown.answer, now: Self.six + 1803 + step)
            #expect(clock.session?.state == .ringing && !partial.actions.contains(.stopSound))
        }
        let next = try! #require(clock.session?.problem)
        let right = clock.answer(next.answer, now: Self.six + 1810)
        #expect(right.actions.first == .stopSound)
        #expect(clock.session == nil)
        #expect((try? right.result.get())?.dismissedBy == .math)
    }

    @Test func nothingRingingRefusesRequests() {
        var clock = machine([], at: Self.six, through: Self.six)
        guard case .failure(let refusal) = clock.snooze(now: Self.six).result else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.message == "nothing is ringing")
    }

    // MARK: Tags (issue 12's defects)

    @Test func aTagLyingOnTheReaderAtRingStartIsNoTapUntilLiftedAndTappedAgain() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        // The reader's first poll finds the registered tag already there.
        let lying = clock.tagPlaced(uid: "04A1B2C3", label: "bathroom", fresh: false, now: Self.six + 1800)
        #expect(clock.session?.state == .ringing)
        #expect(clock.tagOnReader)
        #expect(lying.contains(.publish(.tagOnReader(true))))
        #expect(lying.contains(.log(.notice, "a tag is on the reader: lift it, then tap it (alarm #1 up ringing)")))
        #expect(clock.tagLifted() == [.publish(.tagOnReader(false))])
        let tapped = clock.tagPlaced(uid: "04A1B2C3", label: "bathroom", fresh: true, now: Self.six + 1805)
        #expect(tapped.first == .stopSound)
        #expect(clock.session == nil)
        #expect(polls(tapped) == [false])
    }

    @Test func aTagLeftOnTheReaderThroughASnoozeStillNeedsLifting() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        _ = clock.snooze(now: Self.six + 1801)
        // An unregistered card is put down during the snooze, and stays there.
        _ = clock.tagPlaced(uid: "0899AABB", label: nil, fresh: true, now: Self.six + 1900)
        let again = clock.tick(at: Instant(wall: Double(Self.six + 1801 + 540), monotonic: 540), clockWasSet: false)
        #expect(plays(again) == 1)
        #expect(again.contains(.log(.notice, "a tag is on the reader: lift it, then tap it (alarm #1 up)")))
        #expect(clock.session?.state == .ringing)
    }

    @Test func aTapDuringASnoozeDismissesIt() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        _ = clock.snooze(now: Self.six + 1801)
        let tap = clock.tagPlaced(uid: "04A1B2C3", label: "bathroom", fresh: true, now: Self.six + 1900)
        #expect(clock.session == nil)
        #expect(persisted(tap).first?.dismissedBy == .tag)
        #expect(polls(tap) == [false])
        // Nothing rings when the snooze would have ended.
        #expect(
            plays(clock.tick(at: Instant(wall: Double(Self.six + 1801 + 540), monotonic: 540), clockWasSet: false)) == 0
        )
    }

    @Test func anUnregisteredOrRefusedTagLeavesItRinging() {
        let alarm = Alarm(
            id: 1, label: "up", time: time("06:30"), repeats: .weekly(.daily), challenge: .nfc, tags: ["kitchen"])
        var clock = machine([alarm], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        #expect(
            clock.tagPlaced(uid: "DEADBEEF", label: nil, fresh: true, now: Self.six + 1801) == [
                .log(.notice, "tag DEADBEEF is not registered; alarm #1 up rings on")
            ])
        #expect(
            clock.tagPlaced(uid: "04A1B2C3", label: "bathroom", fresh: true, now: Self.six + 1802) == [
                .log(.notice, "tag \"bathroom\": tag \"bathroom\" does not stop alarm #1 up")
            ])
        #expect(clock.session?.state == .ringing)
    }

    @Test func aReaderLostMidRingLetsMathDismissAnNFCAlarm() {
        var clock = machine([nfcAlarm(1, "06:30")], at: Self.six, through: Self.six)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        let lost = clock.readerHealthChanged(.absent("unplugged"), now: Self.six + 1801)
        #expect(clock.session?.challenge == .any)
        #expect(persisted(lost).count == 1)
        #expect((try? clock.requestProblem(now: Self.six + 1802).result.get()) != nil)
    }

    @Test func withoutAReaderConfiguredPollingIsNeverAskedFor() {
        var clock = machine([daily(1, "06:30")], at: Self.six, through: Self.six, reader: .notConfigured)
        let actions = clock.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        #expect(polls(actions) == [])
    }

    // MARK: Restarts

    @Test func aSessionThatWasRingingRingsAgainAtStartAndASnoozedOneKeepsItsDeadline() {
        var ringing = machine([daily(1, "06:30")], at: Self.six, through: Self.six)
        _ = ringing.tick(at: Instant(wall: Double(Self.six + 1800), monotonic: 0), clockWasSet: false)
        var restarted = machine(
            [daily(1, "06:30")], at: Self.six, through: Self.six + 1800, session: ringing.session)
        let start = restarted.start(at: Instant(wall: Double(Self.six + 1830), monotonic: 0))
        #expect(start.first == .play(ringing.session!.settings))
        #expect(polls(start) == [true])

        _ = ringing.snooze(now: Self.six + 1840)
        var again = machine([daily(1, "06:30")], at: Self.six, through: Self.six + 1840, session: ringing.session)
        let resumed = again.start(at: Instant(wall: Double(Self.six + 1850), monotonic: 0))
        #expect(plays(resumed) == 0)
        #expect(wakes(resumed) == [Self.six + 1840 + 9 * 60])
        #expect(again.session?.snoozeCount == 1)
    }
}
