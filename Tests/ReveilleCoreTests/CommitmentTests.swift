import Foundation
@testable import ReveilleCore
import Testing

/// Commitment: within an alarm's `--commit` before its ring, what weakens the ring needs its
/// challenge; what makes it earlier, louder or stricter does not.
@Suite struct CommitmentTests {
    /// 2026-11-23 (a Monday) 23:00 in Berlin; the alarm rings at 06:45 the next morning.
    static let night = utc("2026-11-23T22:00:00Z")
    static let berlin = zone("Europe/Berlin")

    func committed(hours: Int = 8) -> Alarm {
        var alarm = daily(1, "06:45", label: "work")
        alarm.commitSeconds = hours * 3600
        alarm.volume = 60
        alarm.maxSnoozes = 2
        alarm.wakeCheckSeconds = 300
        return alarm
    }

    func weakened(_ change: (inout ScheduleState) -> Void, hours: Int = 8, at now: Int = night) -> [String] {
        let before = ScheduleState(alarms: [committed(hours: hours)])
        var after = before
        change(&after)
        return Commitment.weakenings(before: before, after: after, zone: Self.berlin, now: now).map(\.what)
    }

    @Test func weakeningChangesWithinTheWindowAreNamed() {
        // A volume ceiling: lowering it weakens the ring, raising it does not.
        #expect(weakened { $0.alarms[0].volumeCeiling = 50 } == ["lowers its volume ceiling (100 → 50)"])
        var quiet = daily(1, "06:45")
        quiet.volumeCeiling = 50
        var raised = quiet
        raised.volumeCeiling = 80
        let ceiling = try! #require(Alarm.settings.first { $0.key == "volumeCeiling" })
        #expect(ceiling.weakens(raised, quiet) == nil, "raising a ceiling is free")
        #expect(ceiling.weakens(quiet, raised) == "lowers its volume ceiling (80 → 50)")
        #expect(weakened { $0.master = .off } == ["silences that ring"])
        #expect(
            weakened { $0.master = .pausedUntil(CivilDate(year: 2026, month: 11, day: 26)!) } == ["silences that ring"])
        #expect(weakened { $0.alarms[0].enabled = false } == ["silences that ring"])
        #expect(weakened { $0.alarms = [] } == ["removes it"])
        #expect(weakened { $0.alarms[0].time = time("07:30") } == ["moves it later (07:30 instead of 06:45)"])
        #expect(
            weakened {
                $0.overrides = [
                    DateOverride(id: 1, alarmID: 1, date: CivilDate(year: 2026, month: 11, day: 24)!, change: .off)
                ]
            } == ["silences that ring"])
        #expect(
            weakened { $0.rules = [WeeklyRule(id: 1, alarmID: nil, days: .daily, change: .at(time("08:00")))] }
                == ["moves it later (08:00 instead of 06:45)"])
        #expect(weakened { $0.alarms[0].volume = 30 } == ["lowers its volume (60 → 30)"])
        #expect(weakened { $0.alarms[0].maxSnoozes = 5 } == ["allows more snoozes"])
        #expect(weakened { $0.alarms[0].maxSnoozes = 0 } == ["allows more snoozes"])
        #expect(weakened { $0.alarms[0].wakeCheckSeconds = 0 } == ["turns its wake-up check off"])
        #expect(weakened { $0.alarms[0].commitSeconds = 0 } == ["shortens its commitment"])
        #expect(weakened { $0.alarms[0].mathDifficulty = .easy } == ["makes its problem easier"])
    }

    /// Earlier, louder, stricter: free, as is anything that leaves the ring as it was.
    /// Snoozes that grow shorter (`--snooze-minutes 9,7,5`): any snooze made longer than it was is
    /// a weakening; shorter ones are free.
    @Test func aLongerSnoozeAtAnyStepIsAWeakening() {
        #expect(weakened { $0.alarms[0].laterSnoozeMinutes = [7, 5] } == [])
        #expect(weakened { $0.alarms[0].laterSnoozeMinutes = [12] } == ["makes its snoozes longer"])
        #expect(weakened { $0.alarms[0].snoozeMinutes = 10 } == ["makes its snoozes longer"])
        var shorter = committed()
        shorter.laterSnoozeMinutes = [7, 5]
        #expect(shorter.minutes(ofSnooze: 1) == 9 && shorter.minutes(ofSnooze: 2) == 7)
        #expect(shorter.minutes(ofSnooze: 3) == 5 && shorter.minutes(ofSnooze: 9) == 5)
        var back = shorter
        back.laterSnoozeMinutes = [7]
        #expect(back.snoozesLonger(than: shorter), "the third snooze would be 7 instead of 5")
        #expect(!shorter.snoozesLonger(than: back))
    }

    @Test func snoozeLengthsParseAndJoinAsTheStricter() throws {
        #expect(try Alarm.parseLengths("9,7, 5") == (9, [7, 5]))
        #expect(try Alarm.parseLengths("12") == (12, []))
        #expect(throws: InputError.self) { try Alarm.parseLengths("9,,5") }
        #expect(throws: InputError.self) { try Alarm.parseLengths("soon") }
        var long = committed()
        long.laterSnoozeMinutes = [9, 9]
        var short = daily(2, "06:45", label: "gym")
        short.snoozeMinutes = 12
        short.laterSnoozeMinutes = [3]
        let joined = RingSettings(long).strictest(with: RingSettings(short))
        #expect(joined.snoozeMinutes == 9 && joined.laterSnoozeMinutes == [3, 3])
        var tooMany = committed()
        tooMany.laterSnoozeMinutes = Array(repeating: 5, count: 10)
        #expect(throws: InputError.self) { try tooMany.validate() }
    }

    @Test func strengtheningChangesAreFree() {
        #expect(weakened { $0.alarms[0].time = time("06:00") } == [])
        #expect(weakened { $0.alarms[0].volume = 100 } == [])
        #expect(
            weakened {
                $0.alarms[0].maxSnoozes = 0; $0.alarms[0].maxSnoozes = 1
            } == [])
        #expect(weakened { $0.alarms[0].mathDifficulty = .hard } == [])
        #expect(weakened { $0.alarms[0].label = "office" } == [])
        #expect(weakened { $0.alarms[0].commitSeconds = 12 * 3600 } == [])
        #expect(weakened { $0.alarms.append(daily(2, "05:00")) } == [])
    }

    /// Outside the window (the ring is more than `--commit` away) everything is free.
    @Test func outsideTheWindowEverythingIsFree() {
        #expect(weakened({ $0.master = .off }, hours: 4) == [])
        // 02:45, four hours before: the window of a 4-hour commitment has just opened.
        #expect(weakened({ $0.master = .off }, hours: 4, at: utc("2026-11-24T01:45:00Z")) == ["silences that ring"])
    }

    /// The challenge unlocks the alarm for five minutes: a wrong answer brings a new problem, a
    /// right one opens it; a tag-only alarm is unlocked by a tap of its tag.
    @Test func theChallengeUnlocksForFiveMinutes() throws {
        var clock = AlarmClock(
            schedule: ScheduleState(alarms: [committed()]), zone: Self.berlin, readerHealth: .ok("pn532"),
            stored: AlarmClock.Stored(evaluatedThrough: Self.night, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 3))
        let (asked, _) = clock.unlockChallenge(for: 1, now: Self.night)
        let problem = try #require(try asked.get().problem)
        #expect(try asked.get().tag == false)
        let (wrong, _) = clock.unlockAnswer(for: 1, value: problem.answer + 1, now: Self.night + 5)
        let next = try #require(try wrong.get())
        #expect(!clock.isUnlocked(1, now: Self.night + 5))
        let (right, actions) = clock.unlockAnswer(for: 1, value: next.answer, now: Self.night + 10)
        #expect(try right.get() == nil)
        #expect(
            actions.contains {
                if case .log(.notice, let text) = $0 { text.contains("unlocked by math") } else { false }
            })
        #expect(clock.isUnlocked(1, now: Self.night + 10 + 299))
        #expect(!clock.isUnlocked(1, now: Self.night + 10 + 300))
        #expect(throws: RingRefusal.self) { try clock.unlockChallenge(for: 9, now: Self.night).0.get() }

        var tagged = committed()
        tagged.challenge = .nfc
        tagged.tags = ["blue"]
        var reader = AlarmClock(
            schedule: ScheduleState(alarms: [tagged]), zone: Self.berlin, readerHealth: .ok("pn532"),
            stored: AlarmClock.Stored(evaluatedThrough: Self.night, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 3))
        let (tagAsk, polling) = reader.unlockChallenge(for: 1, now: Self.night)
        #expect(try tagAsk.get().problem == nil)
        #expect(polling.contains(.pollReader(true)))
        _ = reader.tagPlaced(uid: "01", label: "red", fresh: true, now: Self.night + 3)
        #expect(!reader.isUnlocked(1, now: Self.night + 3))
        let tapped = reader.tagPlaced(uid: "02", label: "blue", fresh: true, now: Self.night + 4)
        #expect(reader.isUnlocked(1, now: Self.night + 4))
        #expect(tapped.contains(.pollReader(false)))
    }
}

/// `dismiss --next`: the coming ring, dismissed before it rings, with its challenge.
@Suite struct EarlyDismissalTests {
    static let six = utc("2026-11-23T05:00:00Z")  // 06:00 in Berlin

    func machine() -> AlarmClock {
        AlarmClock(
            schedule: ScheduleState(alarms: [daily(1, "06:00", label: "work")]), zone: zone("Europe/Berlin"),
            readerHealth: .notConfigured,
            stored: AlarmClock.Stored(
                evaluatedThrough: Self.six - 7200, activeSession: nil, handled: [], lastSessionID: 9),
            limits: AlarmClock.Limits(earlyDismissSeconds: 3600), random: ProblemRandom(seed: 5))
    }

    @Test func theNextRingIsDismissedEarlyOnlyWithinItsHourAndWithItsChallenge() throws {
        var clock = machine()
        _ = clock.tick(at: Instant(wall: Double(Self.six - 7200), monotonic: 0), clockWasSet: false)
        // Two hours before: too early.
        let (tooEarly, _) = clock.dismissNextEarly(now: Self.six - 7200)
        guard case .failure(.refused(let refusal)) = tooEarly else { Issue.record("\(tooEarly)"); return }
        #expect(refusal.message == "alarm #1 work rings at 06:00; it can be dismissed early from 05:00 (60 min before)")
        // Within the hour, the challenge first.
        let (locked, _) = clock.dismissNextEarly(now: Self.six - 1800)
        guard case .failure(.needsChallenge(let alarm)) = locked else { Issue.record("\(locked)"); return }
        #expect(alarm.id == 1)
        let problem = try #require(try clock.unlockChallenge(for: 1, now: Self.six - 1790).0.get().problem)
        _ = clock.unlockAnswer(for: 1, value: problem.answer, now: Self.six - 1780)
        let (done, actions) = clock.dismissNextEarly(now: Self.six - 1770)
        let record = try done.get()
        #expect(record.id == 10)
        #expect(record.state == .dismissed)
        #expect(record.wasDismissedEarly)
        #expect(record.scheduledAt == Self.six)
        #expect(actions.contains(.runHook(.dismiss, record)))
        // It does not ring; the next ring is tomorrow's.
        #expect(clock.nextRing == .some(Self.six + 86_400))
        let at = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 7200), clockWasSet: false)
        #expect(!at.contains { if case .play = $0 { true } else { false } })
        #expect(clock.session == nil)
    }
}

/// Every field of an alarm has one decision under commitment (docs/guide/ringing.md, "What a commitment holds"),
/// and the fields found weakening by the household are judged so.
@Suite struct CommitmentFieldTests {
    /// The table names each stored field of `Alarm` once: a new field without a decision fails here.
    @Test func everyAlarmFieldHasOneDecision() {
        let alarm = daily(1, "06:45")
        let stored = Set(Mirror(reflecting: alarm).children.compactMap(\.label))
        let decided = Commitment.fields.map(\.field)
        #expect(Set(decided) == stored)
        #expect(decided.count == Set(decided).count)
    }

    /// The guide's table (docs/guide/ringing.md, "What a commitment holds") lists every field with the same words.
    @Test func theReadmeTableListsEveryFieldAsDecided() throws {
        let readme = try String(
            contentsOfFile: #filePath.replacingOccurrences(
                of: "Tests/ReveilleCoreTests/CommitmentTests.swift", with: "docs/guide/ringing.md"), encoding: .utf8)
        for rule in Commitment.fields {
            #expect(readme.contains("| `\(rule.field)` | \(rule.treatment) |"), "the guide lacks the row of \(rule.field)")
        }
    }

    func weakened(_ change: (inout Alarm) -> Void) -> [String] {
        var alarm = daily(1, "06:45", label: "bath")
        alarm.commitSeconds = 3600
        alarm.challenge = .nfc
        alarm.tags = ["bath"]
        alarm.sound = "/usr/share/reveille/loud.wav"
        let before = ScheduleState(alarms: [alarm])
        var after = before
        change(&after.alarms[0])
        return Commitment.weakenings(
            before: before, after: after, zone: zone("Europe/Berlin"), now: utc("2026-11-24T05:15:00Z")
        ).map(\.what)
    }

    @Test func soundFadeInAndTagsAreJudged() {
        #expect(weakened { $0.sound = "/home/kid/silence.wav" } == ["changes its sound"])
        #expect(weakened { $0.sound = nil } == ["changes its sound"])
        #expect(weakened { $0.fadeInSeconds = 3600 } == ["makes its fade-in longer (30s → 1h 0m)"])
        #expect(weakened { $0.fadeInSeconds = 5 } == [])
        #expect(weakened { $0.tags = ["bath", "bed"] } == ["lets tag \"bed\" stop it"])
        #expect(weakened { $0.tags = [] } == ["lets any registered tag stop it"])
        #expect(weakened { $0.challenge = .any } == ["lets something other than a tag stop it"])
        #expect(
            weakened {
                $0.label = "renamed"; $0.leadSeconds = 600
            } == [])
    }
}

/// Sources other than requests: a calendar changed inside the window cannot newly silence a
/// committed ring; the ring stands and the holiday applies after it.
@Suite struct CommitmentSourceTests {
    /// Tuesday 2026-11-24 06:45 in Berlin, and 05:00 that morning (inside a 2 h commitment).
    static let ring = utc("2026-11-24T05:45:00Z")
    static let five = utc("2026-11-24T04:00:00Z")

    func machine(commit: Int) -> AlarmClock {
        var alarm = daily(1, "06:45", label: "school", skipHolidays: true)
        alarm.commitSeconds = commit
        return AlarmClock(
            schedule: ScheduleState(alarms: [alarm]), zone: zone("Europe/Berlin"), readerHealth: .notConfigured,
            stored: AlarmClock.Stored(
                evaluatedThrough: Self.five - 60, activeSession: nil, handled: [], lastSessionID: 0),
            limits: AlarmClock.Limits())
    }

    func withHoliday(_ clock: AlarmClock) -> ScheduleState {
        var state = clock.schedule
        state.holidays = [date("2026-11-24"): "Snow day"]
        return state
    }

    @Test func aHolidayAddedInsideTheWindowLeavesTheCommittedRingStanding() throws {
        var clock = machine(commit: 7200)
        _ = clock.tick(at: Instant(wall: Double(Self.five), monotonic: 0), clockWasSet: false)
        #expect(clock.nextRing == .some(Self.ring))
        let actions = clock.scheduleChanged(
            withHoliday(clock), at: Instant(wall: Double(Self.five + 10), monotonic: 10))
        #expect(clock.nextRing == .some(Self.ring))
        #expect(clock.nextRingDecision?.note.hasPrefix("committed: rings despite the holiday (Snow day)") == true)
        #expect(
            actions.contains(
                .log(
                    .notice,
                    "the calendars make 2026-11-24 a holiday (Snow day), but alarm #1 school is committed (--commit 2h 0m): its ring at 06:45 stands, and the holiday applies to it after that ring"
                )))
        // A later change of the schedule keeps the hold; it rings.
        _ = clock.scheduleChanged(withHoliday(clock), at: Instant(wall: Double(Self.five + 20), monotonic: 20))
        _ = clock.tick(
            at: Instant(wall: Double(Self.ring), monotonic: Double(Self.ring - Self.five)), clockWasSet: false)
        #expect(clock.session?.settings.alarmID == 1)
    }

    @Test func outsideTheWindowTheHolidaySilencesTheRing() {
        var clock = machine(commit: 3600)
        _ = clock.tick(at: Instant(wall: Double(Self.five), monotonic: 0), clockWasSet: false)
        _ = clock.scheduleChanged(withHoliday(clock), at: Instant(wall: Double(Self.five + 10), monotonic: 10))
        #expect(clock.nextRing != .some(Self.ring))
    }
}
