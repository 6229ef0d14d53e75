import Foundation
@testable import ReveilleCore
import Testing

/// A tag-only alarm is stopped only by its tag (README, "When alarms meet" and "No reader at the
/// ring"): no other alarm, no test and no unplugged reader lends it math. A manual clock.
@Suite struct TagOnlyTests {
    /// 2026-11-23 (a Monday) 06:00 in Berlin.
    static let six = utc("2026-11-23T05:00:00Z")
    static let reader = ReaderHealth.ok("pn532_uart:/dev/ttyS0")

    func machine(_ alarms: [Alarm], reader: ReaderHealth = reader) -> AlarmClock {
        AlarmClock(
            schedule: ScheduleState(alarms: alarms), zone: zone("Europe/Berlin"), readerHealth: reader,
            stored: AlarmClock.Stored(evaluatedThrough: Self.six, activeSession: nil, handled: [], lastSessionID: 600),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 11))
    }

    func tagOnly(_ id: Int, _ at: String, tags: [String] = ["bath"]) -> Alarm {
        Alarm(
            id: id, label: "bath", time: time(at), repeats: .weekly(.daily), challenge: .nfc, mathDifficulty: .hard,
            tags: tags, maxSnoozes: 1, commitSeconds: 3600)
    }

    func easy(_ id: Int, _ at: String) -> Alarm {
        Alarm(
            id: id, label: "easy", time: time(at), repeats: .weekly(.daily), challenge: .math, mathDifficulty: .easy,
            maxSnoozes: 0)
    }

    func tick(_ clock: inout AlarmClock, _ at: Int) -> [ClockAction] {
        clock.tick(at: Instant(wall: Double(at), monotonic: Double(at - Self.six)), clockWasSet: false)
    }

    /// The household member's `alarm test` ten seconds before a tag-only alarm: the test ends at
    /// the ring and the alarm rings as itself; the test's math does not stop it.
    @Test func aTestEndsWhenARealAlarmComesDueAndLendsItNoMath() throws {
        var clock = machine([easy(613, "07:00"), tagOnly(610, "06:30")])
        let test = clock.test(613, now: Self.six + 1790)
        let tested = try test.result.get()
        #expect(tested.isTest && tested.challenge == .math)
        _ = clock.requestProblem(now: Self.six + 1795)
        let actions = tick(&clock, Self.six + 1800)
        let ringing = try #require(clock.session)
        #expect(ringing.settings.alarmID == 610 && !ringing.isTest && ringing.id != tested.id)
        #expect(ringing.challenge == .nfc && ringing.joined.isEmpty)
        // The test's record ends, unanswered; it is stored before the real ring's.
        let ended = actions.compactMap { action -> RingSession? in
            if case .persist(let sessions, _) = action { return sessions.first { $0.id == tested.id } }
            return nil
        }.last
        #expect(ended?.state == .autoStopped && ended?.dismissedBy == nil)
        guard case .failure(let refusal) = clock.answer(42, now: Self.six + 1801).result else {
            Issue.record("math must not stop a tag-only alarm")
            return
        }
        #expect(refusal.message.contains("registered tag"))
        // Its own tag does.
        _ = clock.tagPlaced(uid: "04A1", label: "bath", fresh: true, now: Self.six + 1805)
        #expect(clock.session == nil)
    }

    /// An earlier, easy, unlimited-snooze alarm still ringing when a tag-only one comes due: the
    /// one session takes the stricter of the two in every setting.
    @Test func aRingJoinedByATagOnlyAlarmTakesItsChallengeAndLimits() throws {
        var clock = machine([easy(1, "06:25"), tagOnly(2, "06:30")])
        _ = tick(&clock, Self.six + 1500)
        _ = clock.requestProblem(now: Self.six + 1510)
        #expect(clock.session?.problem != nil)
        _ = tick(&clock, Self.six + 1800)
        let session = try #require(clock.session)
        #expect(session.settings.alarmID == 1 && session.joined == [2])
        #expect(session.challenge == .nfc && session.problem == nil)
        #expect(session.settings.allowedTags == ["bath"] && session.settings.maxSnoozes == 1)
        #expect(session.settings.mathDifficulty == .hard)
        guard case .failure = clock.requestProblem(now: Self.six + 1801).result else {
            Issue.record("a problem must not be offered")
            return
        }
        // Another registered tag does not stop it; the bath tag does.
        _ = clock.tagPlaced(uid: "04B2", label: "bed", fresh: true, now: Self.six + 1802)
        #expect(clock.session != nil)
        _ = clock.tagLifted()
        _ = clock.tagPlaced(uid: "04A1", label: "bath", fresh: true, now: Self.six + 1803)
        #expect(clock.session == nil)
    }

    /// The same when the easier alarm is snoozed, and when both are due at once (in either order).
    @Test func aSnoozedOrSimultaneousRingIsAsStrictAsItsStrictestAlarm() throws {
        var snoozed = machine([easy(1, "06:25"), tagOnly(2, "06:30")])
        _ = tick(&snoozed, Self.six + 1500)
        _ = snoozed.snooze(now: Self.six + 1501)
        _ = tick(&snoozed, Self.six + 1800)
        #expect(snoozed.session?.state == .ringing && snoozed.session?.challenge == .nfc)
        #expect(snoozed.session?.snoozesLeft == 0)  // one used of the tag-only alarm's one
        var together = machine([easy(1, "06:30"), tagOnly(2, "06:30")])
        _ = tick(&together, Self.six + 1800)
        #expect(together.session?.challenge == .nfc && together.session?.settings.maxSnoozes == 1)
        var reversed = machine([tagOnly(1, "06:30"), easy(2, "06:30")])
        _ = tick(&reversed, Self.six + 1800)
        #expect(reversed.session?.challenge == .nfc && reversed.session?.settings.mathDifficulty == .hard)
    }

    /// Tags that two alarms share stop their joint ring; with none shared, the stricter alarm's.
    @Test func joinedTagsAreThoseBothTakeOrTheStricterAlarms() {
        let bath = RingSettings(tagOnly(1, "06:30", tags: ["bath", "hall"]))
        let hall = RingSettings(tagOnly(2, "06:30", tags: ["hall"]))
        #expect(bath.strictest(with: hall).allowedTags == ["hall"])
        var anyTag = tagOnly(3, "06:30", tags: ["kitchen"])
        anyTag.challenge = .any
        #expect(RingSettings(anyTag).strictest(with: bath).allowedTags == ["bath", "hall"])
        #expect(bath.strictest(with: RingSettings(anyTag)).allowedTags == ["bath", "hall"])
        #expect(RingSettings(easy(4, "06:30")).strictest(with: hall).allowedTags == ["hall"])
        let unlimited = RingSettings(easy(5, "06:30"))
        #expect(unlimited.strictest(with: hall).maxSnoozes == 1 && hall.strictest(with: unlimited).maxSnoozes == 1)
    }

    /// Unplugging the reader does not turn a tag-only alarm's unlock or early dismissal into math.
    @Test func withNoReaderATagOnlyAlarmIsNotUnlockedOrDismissedEarlyByMath() throws {
        var clock = machine([tagOnly(610, "06:30")])
        _ = tick(&clock, Self.six + 600)
        let (asked, _) = clock.unlockChallenge(for: 610, now: Self.six + 601)
        #expect(try asked.get().problem == nil && asked.get().tag)
        _ = clock.readerHealthChanged(.absent("unplugged"), now: Self.six + 606)
        let (again, _) = clock.unlockChallenge(for: 610, now: Self.six + 607)
        guard case .failure(let refusal) = again else {
            Issue.record("math must not unlock a tag-only alarm")
            return
        }
        #expect(refusal.message.contains("is stopped only by its tag, and the NFC reader is absent: unplugged"))
        let (answered, _) = clock.unlockAnswer(for: 610, value: 0, now: Self.six + 608)
        #expect((try? answered.get()) == nil)
        let (early, _) = clock.dismissNextEarly(now: Self.six + 1000)
        #expect(early == .failure(.needsChallenge(tagOnly(610, "06:30"))))
    }

    /// At the ring, a reader gone since before it: math stands in, harder (three hard problems),
    /// recorded with the reader's state and how long before the ring it went.
    @Test func atTheRingAMissingReaderBringsHarderMathAndSaysSinceWhen() throws {
        var clock = machine([tagOnly(610, "06:30")])
        _ = tick(&clock, Self.six + 600)
        _ = clock.readerHealthChanged(.absent("unplugged"), now: Self.six + 600)
        let actions = tick(&clock, Self.six + 1800)
        let session = try #require(clock.session)
        #expect(session.fellBackToMath && session.challenge == .math && session.problemsLeft == 3)
        #expect(session.settings.mathDifficulty == .hard)
        #expect(session.readerLostBeforeRing == 1200 && session.readerState == "absent: unplugged")
        #expect(
            actions.contains(
                .log(
                    .warning,
                    "alarm #610 bath wants an NFC tag but the reader is absent: unplugged (it stopped working 20m before the ring); offering math instead: 3 hard problems"
                )))
    }
}
