import Foundation
@testable import ReveilleCore
import Testing

/// Reminders: which chimes fall when (`ReminderPlan`, `CalendarReminders`), and how the clock
/// machine plays them (once, never over a ringing alarm, never twice, `--unless` first).
@Suite struct ReminderTests {
    static let berlin = zone("Europe/Berlin")
    /// 2026-11-23 (a Monday) 06:00 in Berlin.
    static let six = utc("2026-11-23T05:00:00Z")

    func checkIn(_ id: Int = 1, at: String = "16:00", days: DaySet = .daily, followUps: [FollowUp] = [])
        -> Reminder
    {
        Reminder(id: id, text: "check-in", time: time(at), repeats: .weekly(days), followUps: followUps)
    }

    func plan(_ state: ScheduleState, zone: Zone = berlin) -> ReminderPlan {
        ReminderPlan(state: state, zone: zone)
    }

    // MARK: The plan

    @Test func weeklyRemindersAndTheirFollowUpsFallOnTheirDays() throws {
        let reminder = checkIn(
            days: try DaySet.parse("mon,wed,fri"), followUps: [FollowUp(afterSeconds: 7200, text: "how did it go?")])
        var plan = plan(ScheduleState(reminders: [reminder]))
        let chimes = plan.chimes(after: Self.six, through: Self.six + 7 * 86_400)
        #expect(
            chimes.map(\.instant) == [
                utc("2026-11-23T15:00:00Z"), utc("2026-11-23T17:00:00Z"), utc("2026-11-25T15:00:00Z"),
                utc("2026-11-25T17:00:00Z"), utc("2026-11-27T15:00:00Z"), utc("2026-11-27T17:00:00Z"),
            ])
        #expect(chimes[1].text == "how did it go?")
        #expect(chimes[1].origin == "reminder #1, 2 h after")
        #expect(Set(chimes.map(\.key)).count == 6)
    }

    @Test func aOneTimeReminderChimesOnItsDateOnly() {
        let once = Reminder(id: 2, text: "competition", time: time("17:00"), repeats: .once(date("2026-12-05")))
        var plan = plan(ScheduleState(reminders: [once]))
        #expect(
            plan.chimes(after: Self.six, through: Self.six + 60 * 86_400).map(\.instant) == [
                utc("2026-12-05T16:00:00Z")
            ])
        #expect(plan.next(after: utc("2026-12-05T16:00:00Z")) == nil)
    }

    /// A pause silences every reminder; an override that turns every alarm off silences only a
    /// reminder that goes with the alarms (`withAlarms`), follow-ups and all: a household turns off
    /// a wake-up, not the day's piano follow-ups or the swim club's chimes.
    @Test func pauseSilencesRemindersAndAnAllAlarmsOffOverrideOnlyThoseThatGoWithTheAlarms() {
        var reminder = checkIn()
        reminder.followUps = [FollowUp(afterSeconds: 3600, text: "how was it?")]
        let piano = Reminder(id: 9, text: "piano", time: time("17:00"), repeats: .weekly(.daily))
        let club = Chime(
            key: "calendar:1:swim:single:15", instant: utc("2026-11-24T17:45:00Z"), text: "swim club", sound: nil,
            unless: nil, origin: "calendar club, 15 min before", day: date("2026-11-24"), minutesBefore: 15)
        let overrides = [DateOverride(id: 1, alarmID: nil, date: date("2026-11-24"), change: .off)]
        var plan = plan(ScheduleState(overrides: overrides, reminders: [piano], calendarChimes: [club]))
        let tuesday = plan.chimes(after: utc("2026-11-24T00:00:00Z"), through: utc("2026-11-24T23:00:00Z"))
        #expect(tuesday.map(\.text) == ["piano", "swim club"], "an off day silenced reminders")
        reminder.withAlarms = true
        var with = self.plan(ScheduleState(overrides: overrides, reminders: [reminder, piano]))
        let both = with.chimes(after: utc("2026-11-24T00:00:00Z"), through: utc("2026-11-24T23:00:00Z"), all: true)
        #expect(both.map { "\($0.text): \(with.silence(of: $0) ?? "plays")" } == [
            "check-in: override: all alarms off", "how was it?: override: all alarms off", "piano: plays",
        ])
    }

    @Test func pauseAndAnAllAlarmsOffOverrideSilenceRemindersButNotAnotherAlarmsOverride() {
        var reminder = checkIn()
        reminder.withAlarms = true
        let overrides = [
            DateOverride(id: 1, alarmID: nil, date: date("2026-11-24"), change: .off),
            DateOverride(id: 2, alarmID: 7, date: date("2026-11-25"), change: .off),
            DateOverride(id: 3, alarmID: nil, date: date("2026-11-26"), change: .at(time("09:00"))),
        ]
        var plan = plan(
            ScheduleState(overrides: overrides, master: .pausedUntil(date("2026-11-28")), reminders: [reminder]))
        let days = plan.chimes(after: Self.six, through: Self.six + 7 * 86_400).map(\.day)
        #expect(days == [date("2026-11-28"), date("2026-11-29")])
        var unpaused = self.plan(ScheduleState(overrides: overrides, reminders: [reminder]))
        let all = unpaused.chimes(after: Self.six, through: Self.six + 4 * 86_400, all: true)
        #expect(all.count == 4)
        #expect(all.map { unpaused.silence(of: $0) } == [nil, "override: all alarms off", nil, nil])
    }

    @Test func aReminderInTheSpringForwardGapChimesWhenTheClockResumesAndAFollowUpCountsRealTime() {
        // 2026-03-29 in Berlin: 02:00 CET becomes 03:00 CEST.
        let early = Reminder(
            id: 1, text: "night check", time: time("01:30"), repeats: .once(date("2026-03-29")),
            followUps: [FollowUp(afterSeconds: 7200, text: "again")])
        let gap = Reminder(id: 2, text: "in the gap", time: time("02:30"), repeats: .once(date("2026-03-29")))
        var plan = plan(ScheduleState(reminders: [early, gap]))
        let chimes = plan.chimes(after: utc("2026-03-28T12:00:00Z"), through: utc("2026-03-29T12:00:00Z"))
        #expect(chimes.map(\.text) == ["night check", "in the gap", "again"])
        #expect(chimes[0].instant == utc("2026-03-29T00:30:00Z"))  // 01:30 CET
        #expect(chimes[1].instant == utc("2026-03-29T01:00:00Z"))  // 02:30 does not exist: 03:00 CEST, as alarms
        #expect(chimes[2].instant == utc("2026-03-29T02:30:00Z"))  // two real hours later: 04:30 CEST
    }

    @Test func disabledRemindersDoNotChime() {
        var reminder = checkIn()
        reminder.enabled = false
        var plan = plan(ScheduleState(reminders: [reminder]))
        #expect(plan.next(after: Self.six) == nil)
    }

    // MARK: Calendar reminders

    func event(_ uid: String, start: Int, recurrence: Int? = nil, alarms: [Int]? = nil) -> CalendarOccurrence {
        CalendarOccurrence(
            uid: uid, summary: "swim \(uid)", firstDate: date("2026-11-24"), lastDate: date("2026-11-24"),
            start: start, recurrence: recurrence ?? start, alarmMinutes: alarms)
    }

    @Test func calendarEventsChimeAtEachOffsetWithItsSoundOrAtTheirOwnAlarms() {
        let start = utc("2026-11-24T17:00:00Z")
        let chimes = CalendarReminders.chimes(
            calendarID: 3, name: "club",
            occurrences: [
                event("a", start: start), event("b", start: start + 86_400, alarms: [30]),
                CalendarOccurrence(
                    uid: "c", summary: "all day", firstDate: date("2026-11-26"), lastDate: date("2026-11-26"),
                    start: nil),
            ],
            minutes: [15, 60], sounds: [60: "/sounds/bell.wav"], zone: Self.berlin)
        #expect(chimes.map(\.instant) == [start - 3600, start - 900, start + 86_400 - 1800])
        #expect(chimes.map(\.sound) == ["/sounds/bell.wav", nil, nil])
        #expect(chimes[0].origin == "calendar club, 60 min before")
        #expect(chimes[0].key == "calendar:3:a:\(start):60")
    }

    @Test func aMovedOccurrenceKeepsItsKeySoItCannotChimeTwice() {
        let original = utc("2026-11-24T17:00:00Z")
        let before = CalendarReminders.chimes(
            calendarID: 1, name: "club", occurrences: [event("a", start: original)], minutes: [15], sounds: [:],
            zone: Self.berlin)
        let moved = CalendarReminders.chimes(
            calendarID: 1, name: "club", occurrences: [event("a", start: original + 86_400, recurrence: original)],
            minutes: [15], sounds: [:], zone: Self.berlin)
        #expect(before[0].key == moved[0].key)
        #expect(moved[0].instant == original + 86_400 - 900)
    }

    // MARK: The machine

    func machine(_ state: ScheduleState, through: Int?, handled: [String: Int] = [:]) -> AlarmClock {
        AlarmClock(
            schedule: state, zone: Self.berlin, readerHealth: .notConfigured,
            stored: AlarmClock.Stored(
                evaluatedThrough: through, activeSession: nil, handled: [], lastSessionID: 0, handledChimes: handled),
            limits: AlarmClock.Limits(), random: ProblemRandom(seed: 1))
    }

    func chimes(_ actions: [ClockAction]) -> [Chime] {
        actions.compactMap { if case .chime(let chime) = $0 { chime } else { nil } }
    }

    func records(_ actions: [ClockAction]) -> [ChimeOutcome] {
        actions.compactMap { if case .recordChime(_, let outcome, _) = $0 { outcome } else { nil } }
    }

    func wakes(_ actions: [ClockAction]) -> [Int] {
        actions.compactMap { if case .wake(let at) = $0 { at } else { nil } }
    }

    @Test func theMachineWakesForAChimePlaysItOnceAndRecordsIt() {
        let due = utc("2026-11-23T15:00:00Z")
        var clock = machine(ScheduleState(reminders: [checkIn()]), through: Self.six - 60)
        let idle = clock.tick(at: Instant(wall: Double(Self.six), monotonic: 0), clockWasSet: false)
        #expect(wakes(idle) == [Self.six + 3600])  // the safety net comes first; then:
        var actions = clock.tick(at: Instant(wall: Double(due - 3600 * 1), monotonic: 1), clockWasSet: false)
        #expect(wakes(actions) == [due])
        #expect(chimes(actions).isEmpty)
        actions = clock.tick(at: Instant(wall: Double(due), monotonic: 2), clockWasSet: false)
        #expect(chimes(actions).map(\.text) == ["check-in"])
        #expect(records(actions) == [.played])
        actions = clock.tick(at: Instant(wall: Double(due + 5), monotonic: 3), clockWasSet: false)
        #expect(chimes(actions).isEmpty)
    }

    /// A chime is followed by its text, spoken; a calendar's says how far off its event is; with
    /// `speak_reminders` off, only the chime.
    @Test func aChimeIsFollowedByItsTextSpokenUnlessTurnedOff() {
        let due = utc("2026-11-23T15:00:00Z")
        var clock = machine(ScheduleState(reminders: [checkIn()]), through: due - 60)
        let actions = clock.tick(at: Instant(wall: Double(due), monotonic: 0), clockWasSet: false)
        let said = actions.compactMap { if case .say(let text) = $0 { text } else { nil } }
        #expect(said == ["Reminder: check-in."])
        let chimeAt = actions.firstIndex { if case .chime = $0 { true } else { false } }
        let sayAt = actions.firstIndex { if case .say = $0 { true } else { false } }
        #expect(chimeAt != nil && sayAt != nil && chimeAt! < sayAt!, "the chime first, then the words")
        var quiet = AlarmClock(
            schedule: ScheduleState(reminders: [checkIn()]), zone: Self.berlin, readerHealth: .notConfigured,
            stored: AlarmClock.Stored(
                evaluatedThrough: due - 60, activeSession: nil, handled: [], lastSessionID: 0, handledChimes: [:]),
            limits: AlarmClock.Limits(speakReminders: false), random: ProblemRandom(seed: 1))
        let silent = quiet.tick(at: Instant(wall: Double(due), monotonic: 0), clockWasSet: false)
        #expect(chimes(silent).count == 1 && !silent.contains { if case .say = $0 { true } else { false } })
        let dentist = Chime(
            key: "calendar:1:d:single:15", instant: due, text: "Dentist", sound: nil, unless: nil,
            origin: "calendar family, 15 min before", day: CivilDate(year: 2026, month: 11, day: 23)!, minutesBefore: 15
        )
        let start = Chime(
            key: "calendar:1:d:single:0", instant: due, text: "Dentist", sound: nil, unless: nil,
            origin: "calendar family, at the start", day: CivilDate(year: 2026, month: 11, day: 23)!, minutesBefore: 0)
        #expect(Spoken.reminders([dentist]) == "Reminder: Dentist, in 15 minutes.")
        #expect(Spoken.reminders([checkIn().chimeStub, start]) == "Reminders: check-in. Dentist, now.")
    }

    /// A reminder's body follows its title; a calendar chime carries its event's location: both on
    /// the banner line (`detail`) and aloud.
    @Test func aBodyAndALocationAreShownAndSpoken() {
        let due = utc("2026-11-23T15:00:00Z")
        let day = CivilDate(year: 2026, month: 11, day: 23)!
        var training = checkIn()
        training.text = "How did your session go?"
        training.body = "Reflect on your training and note one thing."
        let plan = ReminderPlan(state: ScheduleState(reminders: [training]), zone: Self.berlin)
        let own = plan.chimes(of: training, on: day, at: due)
        #expect(own.first?.body == training.body && own.first?.detail == training.body)
        #expect(
            Spoken.reminders(own.prefix(1).map { $0 })
                == "Reminder: How did your session go? Reflect on your training and note one thing.")
        var occurrence = CalendarOccurrence(
            uid: "d", summary: "Dentist", firstDate: day, lastDate: day, start: due + 900)
        occurrence.location = "Hauptstraße 5"
        let chimes = CalendarReminders.chimes(
            calendarID: 1, name: "family", occurrences: [occurrence], minutes: [15, 0], sounds: [:], zone: Self.berlin)
        #expect(chimes.map(\.detail) == ["starting in 15 minutes, at Hauptstraße 5", "starting now, at Hauptstraße 5"])
        #expect(Spoken.reminders([chimes[0]]) == "Reminder: Dentist, in 15 minutes, at Hauptstraße 5.")
        #expect(
            Spoken.reminders([checkIn().chimeStub, chimes[1]]) == "Reminders: check-in. Dentist, now, at Hauptstraße 5."
        )
        // A title that is a question keeps its question mark.
        var question = checkIn()
        question.text = "Did you water the plants?"
        #expect(Spoken.reminders(plan.chimes(of: question, on: day, at: due)) == "Reminder: Did you water the plants?")
    }

    @Test func aChimeAlreadyKeptIsNotPlayedAgainAfterARestart() {
        let due = utc("2026-11-23T15:00:00Z")
        let key = "reminder:1:0@\(due)"
        var clock = machine(ScheduleState(reminders: [checkIn()]), through: due + 10, handled: [key: due])
        let actions = clock.tick(at: Instant(wall: Double(due + 60), monotonic: 0), clockWasSet: false)
        #expect(chimes(actions).isEmpty)
        #expect(records(actions).isEmpty)
    }

    @Test func aChimeFoundTooLateIsRecordedAsMissedAndOneWithinGracePlays() {
        let due = utc("2026-11-23T15:00:00Z")
        var late = machine(ScheduleState(reminders: [checkIn()]), through: due - 60)
        let missed = late.tick(at: Instant(wall: Double(due + 16 * 60), monotonic: 0), clockWasSet: false)
        #expect(chimes(missed).isEmpty)
        #expect(records(missed) == [.missed])
        var onTime = machine(ScheduleState(reminders: [checkIn()]), through: due - 60)
        let played = onTime.tick(at: Instant(wall: Double(due + 10 * 60), monotonic: 0), clockWasSet: false)
        #expect(records(played) == [.played])
    }

    @Test func aChimeWaitsWhileAnAlarmRingsAndPlaysWhenItIsSnoozedNeverOverIt() throws {
        let due = utc("2026-11-23T15:00:00Z")
        var state = ScheduleState(alarms: [daily(9, "16:00")], reminders: [checkIn()])
        state.alarms[0].maxSnoozes = 3
        var clock = machine(state, through: due - 60)
        var actions = clock.tick(at: Instant(wall: Double(due), monotonic: 0), clockWasSet: false)
        #expect(actions.contains { if case .play = $0 { true } else { false } })
        #expect(chimes(actions).isEmpty)
        #expect(clock.waitingChimes.map(\.text) == ["check-in"])
        actions = clock.tick(at: Instant(wall: Double(due + 30), monotonic: 30), clockWasSet: false)
        #expect(chimes(actions).isEmpty)
        let reply = clock.snooze(now: due + 40)
        #expect(throws: Never.self) { try reply.result.get() }
        let order = reply.actions.compactMap { action -> String? in
            switch action {
            case .stopSound: "stop"
            case .chime: "chime"
            default: nil
            }
        }
        #expect(order == ["stop", "chime"])
        #expect(clock.waitingChimes.isEmpty)
    }

    @Test func unlessRunsFirstAndExitZeroSkipsTheChime() {
        let due = utc("2026-11-23T15:00:00Z")
        var reminder = checkIn()
        reminder.unless = "test -e /tmp/form-sent"
        reminder.followUps = [FollowUp(afterSeconds: 3600, text: "later")]
        var clock = machine(ScheduleState(reminders: [reminder]), through: due - 60)
        var actions = clock.tick(at: Instant(wall: Double(due), monotonic: 0), clockWasSet: false)
        let asked = actions.compactMap { if case .checkChime(let chime) = $0 { chime } else { nil } }
        #expect(asked.map(\.unless) == ["test -e /tmp/form-sent"])
        #expect(chimes(actions).isEmpty)
        actions = clock.chimeChecked(key: asked[0].key, skip: true, detail: "exited 0", now: due + 1)
        #expect(chimes(actions).isEmpty)
        #expect(records(actions) == [.skipped])
        // The follow-up asks again; this time the command fails: it plays.
        actions = clock.tick(at: Instant(wall: Double(due + 3600), monotonic: 3600), clockWasSet: false)
        let again = actions.compactMap { if case .checkChime(let chime) = $0 { chime } else { nil } }
        #expect(again.map(\.text) == ["later"])
        actions = clock.chimeChecked(key: again[0].key, skip: false, detail: "exited 1", now: due + 3601)
        #expect(chimes(actions).map(\.text) == ["later"])
        #expect(records(actions) == [.played])
        // An answer for a chime no longer asked about changes nothing.
        #expect(clock.chimeChecked(key: again[0].key, skip: false, detail: "exited 1", now: due + 3602).isEmpty)
    }

    @Test func aScheduleChangeMovesTheNextWake() {
        var clock = machine(ScheduleState(reminders: [checkIn(at: "16:00")]), through: Self.six - 60)
        _ = clock.tick(at: Instant(wall: Double(Self.six + 5 * 3600), monotonic: 0), clockWasSet: false)
        let actions = clock.scheduleChanged(
            ScheduleState(reminders: [checkIn(at: "11:30")]),
            at: Instant(wall: Double(Self.six + 5 * 3600 + 10), monotonic: 10))
        #expect(wakes(actions) == [utc("2026-11-23T10:30:00Z")])
    }
}

@Suite struct ReminderSwitchPlanTests {
    @Test func switchedOffNothingChimesAndEveryChimeSaysWhy() throws {
        let reminder = Reminder(
            id: 1, text: "tea", time: try LocalTime.parse("16:00"), repeats: .weekly(.daily))
        var state = ScheduleState(reminders: [reminder])
        let zone = Zone(builtIn: "Europe/Berlin")!
        let from = 1_795_442_400  // 2026-11-23 15:00 in Berlin
        var plan = ReminderPlan(state: state, zone: zone)
        #expect(plan.chimes(after: from, through: from + 86_400).count == 1)
        state.remindersOn = false
        plan = ReminderPlan(state: state, zone: zone)
        #expect(plan.chimes(after: from, through: from + 86_400).isEmpty)
        let all = plan.chimes(after: from, through: from + 86_400, all: true)
        #expect(all.count == 1 && plan.silence(of: all[0]) == "reminders are off")
        #expect(plan.next(after: from) == nil)
    }
}

extension Reminder {
    /// A chime of this reminder, for wording tests.
    fileprivate var chimeStub: Chime {
        Chime(
            key: "reminder:\(id):0@0", instant: 0, text: text, sound: nil, unless: nil, origin: "reminder #\(id)",
            day: CivilDate(year: 2026, month: 11, day: 23)!)
    }
}
