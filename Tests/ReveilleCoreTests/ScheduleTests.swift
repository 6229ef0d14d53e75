import Testing

@testable import ReveilleCore

@Suite struct ScheduleTests {
    func decisions(_ state: ScheduleState, _ zoneName: String = "Europe/Berlin", from: String, days: Int)
        -> [Decision]
    {
        var engine = ScheduleEngine(state: state, zone: zone(zoneName))
        return engine.decisions(from: date(from), days: days)
    }

    @Test func weekdayAlarmRingsOnlyOnItsDays() {
        let alarm = Alarm(id: 1, time: time("06:45"), repeats: .weekly(.weekdays))
        let result = decisions(ScheduleState(alarms: [alarm]), from: "2026-11-21", days: 7)  // a Saturday
        #expect(
            result.map(\.date.description) == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"])
        #expect(result.allSatisfy { $0.layer == .base })
        #expect(result[0].ringInstant == utc("2026-11-23T05:45:00Z"))
    }

    @Test func dstNightsRingAtTheRightInstants() {
        let state = ScheduleState(alarms: [daily(1, "02:30")])
        let result = decisions(state, "America/New_York", from: "2026-03-07", days: 3)
        #expect(
            result.map(\.ringInstant) == [
                utc("2026-03-07T07:30:00Z"), utc("2026-03-08T07:00:00Z"), utc("2026-03-09T06:30:00Z"),
            ])
        #expect(result[1].note == "02:30 does not exist that day (clocks go forward), rings at 03:00")
        let fall = decisions(
            ScheduleState(alarms: [daily(1, "01:30")]), "America/New_York", from: "2026-11-01", days: 1)
        #expect(fall.map(\.ringInstant) == [utc("2026-11-01T05:30:00Z")])
        #expect(fall[0].note == "01:30 happens twice that day (clocks go back), rings at the first")
    }

    @Test func apiaSkippedDayIsSilentAndSaysWhy() {
        let result = decisions(ScheduleState(alarms: [daily(1, "06:45")]), "Pacific/Apia", from: "2011-12-29", days: 3)
        #expect(result.map(\.layer) == [.base, .zone, .base])
        #expect(result[1].verdict == .silent(.dateSkippedByZone))
        #expect(result[0].ringInstant == utc("2011-12-29T16:45:00Z"))
        #expect(result[2].ringInstant == utc("2011-12-30T16:45:00Z"))
    }

    @Test func oneShotOnFebruary29RingsThatDayOnly() {
        let alarm = Alarm(id: 7, time: time("07:00"), repeats: .once(date("2028-02-29")))
        let result = decisions(ScheduleState(alarms: [alarm]), "UTC", from: "2028-02-27", days: 5)
        #expect(result.count == 1)
        #expect(result[0].date == date("2028-02-29"))
        #expect(result[0].ringInstant == utc("2028-02-29T07:00:00Z"))
    }

    @Test func overrideWithATimeMakesAnAlarmRingOnADayItDoesNotRepeat() {
        let alarm = Alarm(id: 1, time: time("06:45"), repeats: .weekly(.weekdays))
        let saturday = date("2026-11-28")
        let state = ScheduleState(
            alarms: [alarm], overrides: [DateOverride(id: 4, alarmID: 1, date: saturday, change: .at(time("08:00")))])
        let result = decisions(state, from: "2026-11-28", days: 1)
        #expect(result.count == 1)
        #expect(result[0].layer == .override)
        #expect(result[0].sourceID == 4)
        #expect(result[0].ringInstant == utc("2026-11-28T07:00:00Z"))
    }

    @Test func overrideForAllAlarmsOnlyChangesAlarmsThatRingThatDay() {
        let weekdays = Alarm(id: 1, time: time("06:45"), repeats: .weekly(.weekdays))
        let weekends = Alarm(id: 2, time: time("09:00"), repeats: .weekly(.weekends))
        let state = ScheduleState(
            alarms: [weekdays, weekends],
            overrides: [DateOverride(id: 1, alarmID: nil, date: date("2026-11-28"), change: .at(time("10:00")))])
        let result = decisions(state, from: "2026-11-28", days: 1)
        #expect(result.map(\.alarmID) == [2])
        #expect(result[0].time == time("10:00"))
    }

    @Test func layersApplyInOrderOfPriority() {
        let sat = date("2026-11-28")
        var state = ScheduleState(
            alarms: [daily(1, "06:45", skipHolidays: true)],
            rules: [WeeklyRule(id: 2, alarmID: nil, days: .weekends, change: .at(time("09:00")))],
            overrides: [DateOverride(id: 3, alarmID: 1, date: sat, change: .off)],
            holidays: [date("2026-11-27"): "Test Day", date("2026-11-29"): "Other Day"])
        // Friday: a holiday → holiday. Saturday: the override wins over the rule. Sunday, a holiday
        // again: for an alarm that skips holidays, the holiday wins over the weekend's rule.
        var result = decisions(state, from: "2026-11-27", days: 3)
        #expect(result.map(\.layer) == [.holiday, .override, .holiday])
        #expect(result.map(\.note) == ["holiday: Test Day", "override #3: off", "holiday: Other Day"])
        state.holidays = [:]
        result = decisions(state, from: "2026-11-29", days: 1)
        #expect(result.map(\.layer) == [.rule] && result[0].time == time("09:00"))

        // Disabled, it skips its base; the rule for all alarms rings by itself on the weekend,
        // as the household's ring (which skips no holiday).
        state.alarms[0].enabled = false
        state.holidays = [date("2026-11-27"): "Test Day", date("2026-11-29"): "Other Day"]
        result = decisions(state, from: "2026-11-27", days: 3)
        #expect(result.map(\.layer) == [.disabled, .disabled, .rule, .disabled, .rule])
        #expect(result.map(\.alarmID) == [1, 1, 0, 1, 0])
        #expect(result.compactMap(\.ringInstant) == [utc("2026-11-28T08:00:00Z"), utc("2026-11-29T08:00:00Z")])

        state.master = .off
        result = decisions(state, from: "2026-11-27", days: 1)
        #expect(result.map(\.note) == ["alarms are off ('reveille resume' turns them on)"])
    }

    /// The school-calendar design: a weekly rule is ignored on a holiday week (no school, no
    /// alarm), and so is an override, for an alarm that skips holidays; other alarms keep theirs.
    @Test func aHolidayGatesEveryLayerOfAnAlarmThatSkipsThem() {
        let tuesday = date("2026-12-22")
        let state = ScheduleState(
            alarms: [daily(1, "06:45", skipHolidays: true), daily(2, "07:00")],
            rules: [WeeklyRule(id: 1, alarmID: nil, days: DaySet([.tuesday]), change: .at(time("07:45")))],
            overrides: [DateOverride(id: 4, alarmID: 1, date: date("2026-12-23"), change: .at(time("08:00")))],
            holidays: [tuesday: "Winter break", date("2026-12-23"): "Winter break"])
        let result = decisions(state, from: "2026-12-22", days: 2)
        #expect(result.map(\.alarmID) == [1, 2, 2, 1])
        #expect(result.map(\.layer) == [.holiday, .rule, .base, .holiday])
        #expect(result[0].ringInstant == nil && result[3].ringInstant == nil)
        // Each silent day shows the time it would have rung at, as its layers say: the rule's
        // 07:45 and the override's 08:00, not the base 06:45.
        #expect(result.map(\.time.description) == ["07:45", "07:45", "07:00", "08:00"])
    }

    /// Silenced by a pause, a holiday or an "off" override: the day shows the time the layers
    /// under that silence would have rung at (a custody rule's 06:30 struck, not the base 06:45).
    @Test func aSilencedDayShowsTheTimeItWouldHaveRungAt() {
        let sunday = date("2026-11-29")
        var state = ScheduleState(
            alarms: [daily(1, "06:45")],
            rules: [WeeklyRule(id: 1, alarmID: 1, days: DaySet([.sunday]), change: .at(time("06:30")))],
            overrides: [DateOverride(id: 2, alarmID: 1, date: sunday, change: .off)])
        #expect(decisions(state, from: "2026-11-29", days: 1).map { "\($0.layer) \($0.time)" } == ["override 06:30"])
        state.overrides = []
        state.master = .pausedUntil(date("2026-12-01"))
        #expect(decisions(state, from: "2026-11-29", days: 1).map { "\($0.layer) \($0.time)" } == ["paused 06:30"])
        state.master = .on
        state.rules = [WeeklyRule(id: 1, alarmID: 1, days: DaySet([.sunday]), change: .off)]
        #expect(decisions(state, from: "2026-11-29", days: 1).map { "\($0.layer) \($0.time)" } == ["rule 06:45"])
    }

    /// A rule or override for all alarms rings by itself only on a day no alarm has anything to
    /// do but stay disabled: not beside an alarm that rings, nor in place of one a holiday or an
    /// "off" silences.
    @Test func theHouseholdRingsOnlyWhereNoAlarmDecides() {
        let state = ScheduleState(
            alarms: [Alarm(id: 1, time: time("06:45"), repeats: .weekly(.weekdays), skipHolidays: true)],
            rules: [WeeklyRule(id: 1, alarmID: nil, days: .daily, change: .at(time("08:00")))],
            overrides: [DateOverride(id: 1, alarmID: 1, date: date("2026-11-24"), change: .off)],
            holidays: [date("2026-11-25"): "Teacher day"])
        // Mon: the alarm, moved. Tue: its own "off". Wed: its holiday. Sat, Sun: the household.
        let result = decisions(state, from: "2026-11-23", days: 7)
        #expect(result.map(\.alarmID) == [1, 1, 1, 1, 1, 0, 0])
        #expect(result.map(\.layer) == [.rule, .override, .holiday, .rule, .rule, .rule, .rule])
        #expect(result.map { $0.ringInstant != nil } == [true, false, false, true, true, true, true])
        // An override for all alarms that day decides the household's ring over the rule.
        var moved = state
        moved.overrides.append(DateOverride(id: 2, alarmID: nil, date: date("2026-11-28"), change: .at(time("10:00"))))
        moved.overrides.append(DateOverride(id: 3, alarmID: nil, date: date("2026-11-29"), change: .off))
        let weekend = decisions(moved, from: "2026-11-28", days: 2)
        #expect(weekend.map(\.layer) == [.override, .override] && weekend[0].time == time("10:00"))
        // The Sunday turned off is decided silent by its override, at the time it turns off.
        #expect(weekend[1].ringInstant == nil && weekend[1].sourceID == 3 && weekend[1].time == time("08:00"))
    }

    @Test func holidaysOnlySilenceAlarmsThatSkipThem() {
        let state = ScheduleState(
            alarms: [daily(1, "06:00", skipHolidays: true), daily(2, "07:00")],
            holidays: [date("2026-12-25"): "Christmas"])
        let result = decisions(state, from: "2026-12-25", days: 1)
        #expect(result.map(\.layer) == [.holiday, .base])
    }

    @Test func alarmSpecificRuleBeatsTheRuleForAllAlarms() {
        let state = ScheduleState(
            alarms: [daily(1, "06:45"), daily(2, "07:00")],
            rules: [
                WeeklyRule(id: 1, alarmID: nil, days: .weekends, change: .off),
                WeeklyRule(id: 2, alarmID: 2, days: DaySet([.saturday]), change: .at(time("10:00"))),
            ])
        let result = decisions(state, from: "2026-11-28", days: 1)
        #expect(result.map(\.note) == ["rule #1: off", "rule #2"])
    }

    @Test func weeklyRulesDoNotTouchOneShots() {
        let alarm = Alarm(id: 1, time: time("05:00"), repeats: .once(date("2026-11-28")))
        let state = ScheduleState(alarms: [alarm], rules: [WeeklyRule(id: 1, alarmID: nil, days: .daily, change: .off)])
        #expect(decisions(state, from: "2026-11-28", days: 1).map(\.layer) == [.base])
    }

    @Test func pauseUntilEndsOnTheRightLocalDay() {
        // Auckland is 13 hours ahead in December: its 1 December begins at 11:00Z on 30 November.
        let state = ScheduleState(alarms: [daily(1, "06:00")], master: .pausedUntil(date("2026-12-01")))
        var engine = ScheduleEngine(state: state, zone: zone("Pacific/Auckland"))
        let next = engine.nextRing(after: utc("2026-11-29T00:00:00Z"))
        #expect(next?.date == date("2026-12-01"))
        #expect(next?.ringInstant == utc("2026-11-30T17:00:00Z"))
        let days = engine.decisions(from: date("2026-11-30"), days: 2)
        #expect(days.map(\.note) == ["paused until 2026-12-01", ""])
    }

    @Test func nextRingSkipsWhatHasPassedAndFindsOneShotsFarAhead() {
        var engine = ScheduleEngine(
            state: ScheduleState(alarms: [Alarm(id: 1, time: time("07:00"), repeats: .once(date("2027-06-01")))]),
            zone: zone("UTC"))
        let ahead = engine.nextRing(after: utc("2026-11-21T08:00:00Z"))
        let afterIt = engine.nextRing(after: utc("2027-06-01T07:00:00Z"))
        #expect(ahead?.ringInstant == utc("2027-06-01T07:00:00Z"))
        #expect(afterIt == nil)
        var off = ScheduleEngine(state: ScheduleState(alarms: [daily(1, "07:00")], master: .off), zone: zone("UTC"))
        let none = off.nextRing(after: 0)
        #expect(none == nil)
    }
}

@Suite struct LayerConflictTests {
    @Test func aDuplicateWeeklyRuleIsRefusedNamingTheExistingOne() {
        let existing = [WeeklyRule(id: 3, alarmID: 1, days: .weekends, change: .at(time("09:00")))]
        let candidate = WeeklyRule(id: 0, alarmID: 1, days: DaySet([.sunday, .monday]), change: .off)
        #expect(
            throws: InputError(
                "rule #3 (sat,sun at 09:00, alarm #1) already covers sun; change that one instead with 'reveille rule edit 3' (or remove it: 'reveille rule rm 3')"
            )
        ) { try LayerConflicts.check(candidate, against: existing) }
        // Another scope, or other days, are fine.
        #expect(throws: Never.self) {
            try LayerConflicts.check(WeeklyRule(id: 0, alarmID: nil, days: .weekends, change: .off), against: existing)
            try LayerConflicts.check(WeeklyRule(id: 0, alarmID: 1, days: .weekdays, change: .off), against: existing)
        }
    }

    @Test func aSecondOverrideForTheSameDateIsRefused() {
        let existing = [DateOverride(id: 5, alarmID: nil, date: date("2026-12-24"), change: .off)]
        #expect(
            throws: InputError(
                "override #5 (2026-12-24 off, all alarms) already covers that date; "
                    + "change that one instead with 'reveille override edit 5' (or remove it: 'reveille override rm 5')"
            )
        ) {
            try LayerConflicts.check(
                DateOverride(id: 0, alarmID: nil, date: date("2026-12-24"), change: .at(time("08:00"))),
                against: existing)
        }
    }

    @Test func pastOverridesAreTheOnesToPurge() {
        let overrides = [
            DateOverride(id: 1, alarmID: nil, date: date("2026-11-20"), change: .off),
            DateOverride(id: 2, alarmID: nil, date: date("2026-11-21"), change: .off),
        ]
        #expect(LayerConflicts.expired(overrides, today: date("2026-11-21")).map(\.id) == [1])
    }

    @Test func alarmValidationNamesTheField() {
        var alarm = daily(1, "06:00")
        alarm.volume = 150
        #expect(throws: InputError("volume 150: must be 0-100")) { try alarm.validate() }
        alarm.volume = 50
        alarm.repeats = .weekly(.none)
        #expect(throws: InputError("days: an alarm needs at least one day, or a date for a one-shot")) {
            try alarm.validate()
        }
    }
}

/// Which events of a holiday calendar are holidays (docs/guide/schedule.md, "Holidays").
@Suite struct HolidayFilterTests {
    func event(_ summary: String, categories: [String]? = nil, timed: Bool = false) -> CalendarOccurrence {
        var occurrence = CalendarOccurrence(
            uid: summary, summary: summary, firstDate: date("2026-12-21"), lastDate: date("2026-12-21"),
            start: timed ? utc("2026-12-21T17:00:00Z") : nil)
        occurrence.categories = categories
        return occurrence
    }

    @Test func allDayEventsByDefaultThenOnlyAndExceptOnTitlesAndCategories() throws {
        #expect(HolidayFilter.allDay.dropped(event("Back-to-school night")) == nil)
        #expect(HolidayFilter.allDay.dropped(event("Concert", timed: true)) == "a timed event")
        let filter = try HolidayFilter(only: "Holiday | BREAK|no school", except: "night", timed: true)
        #expect(filter.only == ["holiday", "break", "no school"])
        #expect(filter.dropped(event("Winter Break")) == nil)
        #expect(filter.dropped(event("Staff day", categories: ["No School"])) == nil, "a category counts")
        #expect(filter.dropped(event("Staff meeting")) == "it matches none of --only")
        #expect(filter.dropped(event("Holiday night market")) == "it matches --except 'night'")
        #expect(filter.dropped(event("Spring break trip", timed: true)) == nil, "--timed")
        #expect(filter.description == "all events matching holiday|break|no school, except night")
    }

    @Test func patternsArePlainWordsWithinBounds() throws {
        for bad in [
            "break||holiday", "|", String(repeating: "x", count: 65),
            Array(repeating: "a", count: 21).joined(separator: "|"), "tab\there",
        ] {
            #expect(throws: InputError.self, "\(bad)") { try HolidayFilter(only: bad, except: nil, timed: false) }
        }
        // Regular-expression characters are only characters.
        #expect(try HolidayFilter(only: "(a+)+$", except: nil, timed: false).dropped(event("(a+)+$ day")) == nil)
    }

    /// A holiday-skipping alarm on a day with an event its calendar's filter left out rings, and says why.
    @Test func aDayLeftOutRingsAndSaysWhy() {
        var state = ScheduleState(alarms: [daily(1, "06:45", skipHolidays: true), daily(2, "07:00")])
        state.notHolidays = [date("2026-12-21"): "Back-to-school night"]
        var engine = ScheduleEngine(state: state, zone: zone("Europe/Berlin"))
        let result = engine.decisions(from: date("2026-12-21"), days: 1)
        #expect(result.map { $0.ringInstant != nil } == [true, true])
        #expect(
            result.map(\.note) == ["not a holiday: Back-to-school night (its calendar's filter leaves it out)", ""])
    }
}
