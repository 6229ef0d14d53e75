import Foundation
import ReveilleApps
import Testing

@testable import ReveilleCore

@Suite struct AppEvaluatorTests {
    static let berlin = Zone(builtIn: "Europe/Berlin")!

    /// The instant of `YYYY-MM-DD HH:MM` in Berlin.
    func at(_ text: String) -> Int {
        var resolver = ZoneResolver(zone: Self.berlin)
        let parts = text.split(separator: " ")
        return resolver.resolve(try! CivilDate.parse(String(parts[0])), try! LocalTime.parse(String(parts[1]))).instant
    }

    func decide(
        _ rule: AppRule, _ when: String, used: Int = 0, grant: Int = 0, user: String = "kid", openUntil: String? = nil
    ) -> AppDecision {
        var resolver = ZoneResolver(zone: Self.berlin)
        return AppEvaluator.decide(
            rule, user: user, at: at(when), resolver: &resolver, usedSeconds: used, grantMinutes: grant,
            openUntil: openUntil.map(at))
    }

    static func everyDay(_ windows: String...) -> [Weekday: [TimeWindow]] {
        let parsed = windows.map { try! TimeWindow.parse($0) }
        return Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, parsed) })
    }

    @Test func windowsParseAndRefuseNonsense() throws {
        #expect(try TimeWindow.parse("07:00-20:00") == TimeWindow(start: 7 * 3600, end: 20 * 3600))
        #expect(try TimeWindow.parse("22:00-01:30").crossesMidnight)
        #expect(try TimeWindow.parse("18:00-24:00").end == 86_400)
        #expect(throws: InputError("window \"25:00-07:00\": hour 25 must be 0-23")) {
            try TimeWindow.parse("25:00-07:00")
        }
        #expect(throws: InputError("window \"7-8\": write it as HH:MM-HH:MM, like 07:00-20:00")) {
            try TimeWindow.parse("7-8")
        }
        #expect(throws: InputError("window \"08:00-08:00\": it starts and ends at the same time")) {
            try TimeWindow.parse("08:00-08:00")
        }
        #expect(throws: InputError("window \"07:61-08:00\": minute 61 must be 0-59")) {
            try TimeWindow.parse("07:61-08:00")
        }
    }

    @Test func insideAndOutsideAWindow() {
        let rule = AppRule(name: "game", paths: ["/usr/games/game"], windows: Self.everyDay("07:00-20:00"))
        let inside = decide(rule, "2026-11-23 19:30")
        #expect(inside.allowed && inside.reason == "allowed until 20:00")
        #expect(inside.secondsLeft == 1800 && inside.nextChange == at("2026-11-23 20:00"))
        let after = decide(rule, "2026-11-23 20:00")
        #expect(!after.allowed && after.reason == "outside its hours (07:00–20:00 today); allowed from Tue 07:00")
        #expect(after.nextChange == at("2026-11-24 07:00"))
        let before = decide(rule, "2026-11-23 06:59")
        #expect(before.reason == "outside its hours (07:00–20:00 today); allowed from 07:00")
    }

    /// `apps grant --open-now`: open outside the hours until then, the limit still counting; an
    /// opening that runs into the window is one stretch.
    @Test func anOpeningAllowsOutsideTheHoursUntilItEnds() {
        let rule = AppRule(
            name: "game", paths: [], windows: Self.everyDay("15:00-20:00"),
            limits: Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, 60) }))
        let opened = decide(rule, "2026-11-23 10:00", grant: 30, openUntil: "2026-11-23 10:30")
        #expect(opened.allowed && opened.secondsLeft == 1800, "\(opened)")
        #expect(opened.reason == "allowed until 10:30 (opened by an admin until 10:30) (90 of 90 min left today)")
        #expect(!decide(rule, "2026-11-23 10:30", grant: 30, openUntil: "2026-11-23 10:30").allowed)
        let used = decide(rule, "2026-11-23 10:10", used: 90 * 60, grant: 30, openUntil: "2026-11-23 10:30")
        #expect(!used.allowed && used.reason.hasPrefix("today's 90 minutes are used up"))
        // Opened into the window: one stretch, the limit ending it (14:45 + 90 min).
        let intoWindow = decide(rule, "2026-11-23 14:45", grant: 30, openUntil: "2026-11-23 15:15")
        #expect(intoWindow.allowed && intoWindow.nextChange == at("2026-11-23 16:15"), "\(intoWindow)")
        #expect(intoWindow.reason == "allowed (opened by an admin until 15:15) (90 of 90 min left today)")
        // Inside the hours an opening says nothing.
        #expect(
            decide(rule, "2026-11-23 16:00", openUntil: "2026-11-23 16:30").reason
                == "allowed (60 of 60 min left today)")
    }

    @Test func aWindowCrossingMidnightCoversTheNextMorning() {
        var windows: [Weekday: [TimeWindow]] = [:]
        windows[.friday] = [try! TimeWindow.parse("22:00-01:00")]
        let rule = AppRule(name: "game", paths: [], windows: windows)
        #expect(decide(rule, "2026-11-27 23:00").allowed)  // Friday night
        let saturdayMorning = decide(rule, "2026-11-28 00:30")
        #expect(saturdayMorning.allowed && saturdayMorning.reason == "allowed until 01:00")
        #expect(!decide(rule, "2026-11-28 01:00").allowed)
        #expect(!decide(rule, "2026-11-27 00:30").allowed)  // Thursday night had no window
        #expect(decide(rule, "2026-11-28 01:00").reason == "outside its hours (none today); allowed from Fri 22:00")
    }

    @Test func severalWindowsAndTouchingOnesMerge() {
        let rule = AppRule(name: "tv", paths: [], windows: Self.everyDay("07:00-08:00", "17:00-20:00", "20:00-21:00"))
        #expect(decide(rule, "2026-11-23 07:30").reason == "allowed until 08:00")
        #expect(
            decide(rule, "2026-11-23 12:00").reason
                == "outside its hours (07:00–08:00, 17:00–20:00, 20:00–21:00 today); allowed from 17:00")
        #expect(decide(rule, "2026-11-23 18:00").reason == "allowed until 21:00")
        let evening = AppRule(name: "tv", paths: [], windows: Self.everyDay("18:00-24:00", "00:00-01:00"))
        #expect(decide(evening, "2026-11-23 23:00").reason == "allowed until Tue 01:00")
    }

    @Test func weekdayWeekendAndPerDayLimits() {
        var limits: [Weekday: Int] = [:]
        for day in Weekday.allCases { limits[day] = day.rawValue >= 5 ? 120 : 60 }
        limits[.wednesday] = 30
        let rule = AppRule(name: "game", paths: [], limits: limits)
        let monday = decide(rule, "2026-11-23 10:00", used: 50 * 60)
        #expect(monday.allowed && monday.reason == "allowed (10 of 60 min left today)" && monday.secondsLeft == 600)
        let used = decide(rule, "2026-11-23 10:00", used: 60 * 60)
        #expect(!used.allowed)
        #expect(used.reason == "today's 60 minutes are used up; allowed again Tue 00:00")
        #expect(decide(rule, "2026-11-25 10:00", used: 30 * 60).allowed == false)  // Wednesday: 30
        #expect(decide(rule, "2026-11-28 10:00", used: 100 * 60).allowed)  // Saturday: 120
    }

    @Test func aGrantAddsMinutesForToday() {
        let rule = AppRule(name: "game", paths: [], limits: [.monday: 60])
        #expect(!decide(rule, "2026-11-23 10:00", used: 3600).allowed)
        let granted = decide(rule, "2026-11-23 10:00", used: 3600, grant: 15)
        #expect(granted.allowed && granted.reason == "allowed (15 of 75 min left today)")
        let spent = decide(rule, "2026-11-23 10:00", used: 75 * 60, grant: 15)
        #expect(spent.reason.hasPrefix("today's 75 minutes are used up (with a grant of 15)"))
    }

    @Test func theEarlierOfWindowEndAndLimitIsWhenItMustStop() {
        let rule = AppRule(name: "game", paths: [], windows: Self.everyDay("07:00-20:00"), limits: [.monday: 60])
        let nearWindowEnd = decide(rule, "2026-11-23 19:50", used: 0)
        #expect(
            nearWindowEnd.secondsLeft == 600 && nearWindowEnd.reason == "allowed until 20:00 (60 of 60 min left today)")
        let nearLimit = decide(rule, "2026-11-23 12:00", used: 55 * 60)
        #expect(nearLimit.secondsLeft == 300 && nearLimit.reason == "allowed (5 of 60 min left today)")
        let usedUp = decide(rule, "2026-11-23 12:00", used: 3600)
        #expect(usedUp.reason == "today's 60 minutes are used up; allowed again Tue 07:00")
    }

    @Test func aUserNotListedAndADisabledRuleAreNotLimited() {
        let rule = AppRule(name: "game", paths: [], windows: Self.everyDay("07:00-08:00"), users: ["kid"])
        #expect(!decide(rule, "2026-11-23 12:00", user: "kid").allowed)
        let parent = decide(rule, "2026-11-23 12:00", user: "parent")
        #expect(parent.allowed && parent.reason == "not limited for parent" && parent.nextChange == nil)
        var off = rule
        off.enabled = false
        #expect(decide(off, "2026-11-23 12:00").reason == "not limited (disabled in the policy)")
    }

    /// An app only listed is not set up: blocked until an admin chooses its hours or limits. One
    /// allowed all day without a limit runs at any time.
    @Test func anAppOnlyListedIsBlockedUntilItIsSetUp() {
        let listed = AppRule(name: "calc", paths: [])
        #expect(!listed.isConfigured && listed.summary == "⚠️ Not configured")
        let blocked = decide(listed, "2026-11-23 12:00")
        #expect(!blocked.allowed)
        #expect(
            blocked.reason
                == "not set up yet: an admin chooses its hours and daily limits (reveille apps edit calc, or Apps on the clock's page)"
        )
        let allDay = AppRule(name: "calc", paths: [], windows: Self.everyDay("00:00-24:00"))
        let decision = decide(allDay, "2026-11-23 03:00")
        #expect(decision.allowed && decision.secondsLeft == nil && decision.nextChange == nil)
        #expect(allDay.summary == "no daily limit · all day")
    }

    /// Summaries in the fewest words.
    @Test func summariesSayTheSetupInALine() {
        var game = AppRule(name: "game", paths: [], windows: Self.everyDay("15:00-20:00"))
        game.limits = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, $0.isWeekend ? 180 : 120) })
        #expect(game.summary == "2h weekdays, 3h weekends · 15:00–20:00")
        game.limits = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, 90) })
        game.windows![.saturday] = [try! TimeWindow.parse("09:00-20:00")]
        game.windows![.sunday] = [try! TimeWindow.parse("09:00-20:00")]
        #expect(game.summary == "1h30m daily · 15:00–20:00 weekdays, 09:00–20:00 weekends")
        game.limits[.friday] = 45
        game.windows![.monday] = []
        #expect(
            game.summary
                == "Mon 1h30m, Tue 1h30m, Wed 1h30m, Thu 1h30m, Fri 45m, Sat 1h30m, Sun 1h30m · Mon no hours, Tue 15:00–20:00, Wed 15:00–20:00, Thu 15:00–20:00, Fri 15:00–20:00, Sat 09:00–20:00, Sun 09:00–20:00"
        )
        game.enabled = false
        #expect(game.summary == "off (not limited)")
    }

    /// Limits are 0-480 minutes in steps of 5; a learning app needs them; a reward app is offered
    /// 15:00-20:00 with 1 h on weekdays and 2 h at weekends.
    @Test func limitRulesAndCategoryDefaults() {
        #expect(AppRule.limitProblem(0) == nil && AppRule.limitProblem(480) == nil && AppRule.limitProblem(95) == nil)
        for bad in [7, 500, -5, 481] {
            #expect(
                AppRule.limitProblem(bad) == "\(bad) is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)")
        }
        var learning = AppRule(name: "maths", paths: [], windows: Self.everyDay("00:00-24:00"), category: .learning)
        #expect(learning.setupProblem != nil)
        learning.limits[.monday] = 60
        #expect(learning.setupProblem == nil)
        #expect(AppRule.suggested(for: .learning) == nil)
        let reward = AppRule.suggested(for: .reward)!
        var game = AppRule(name: "game", paths: [], windows: reward.windows, limits: reward.limits)
        #expect(game.summary == "1h weekdays, 2h weekends · 15:00–20:00")
        game.category = .reward
        #expect(game.setupProblem == nil)
    }

    @Test func dstDaysFollowTheWallClock() {
        let rule = AppRule(name: "game", paths: [], windows: Self.everyDay("01:00-04:00"))
        // 2026-03-29, Berlin springs forward at 02:00 to 03:00: the window lasts 2 hours.
        let spring = decide(rule, "2026-03-29 01:30")
        #expect(spring.allowed && spring.secondsLeft == 90 * 60)
        // 2026-10-25, Berlin falls back at 03:00 to 02:00: the window lasts 4 hours.
        let autumn = decide(rule, "2026-10-25 01:30")
        #expect(autumn.allowed && autumn.secondsLeft == 210 * 60)
        // A window that starts in the skipped hour opens at the first instant after it.
        let gap = AppRule(name: "game", paths: [], windows: Self.everyDay("02:30-05:00"))
        let early = decide(gap, "2026-03-29 01:59")
        #expect(!early.allowed && early.nextChange == at("2026-03-29 03:00"))
    }
}

/// A limit that follows the alarms' holiday calendars: "school days" and "days off" as well as
/// weekdays. Winter-break weekdays kept the school-day limit.
@Suite struct HolidayLimitTests {
    static let tuesday = try! CivilDate.parse("2026-12-22")  // winter break, in the calendar
    static let saturday = try! CivilDate.parse("2026-12-26")
    static let schoolTuesday = try! CivilDate.parse("2026-12-15")

    @Test func aDayOffIsAWeekendOrAHolidayAndItsLimitWinsOverTheWeekdays() {
        var rule = AppRule(name: "minecraft", paths: ["/usr/games/minecraft"])
        let weekdays: [Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
        rule.limits = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, weekdays.contains($0) ? 60 : 120) })
        // Weekdays only: a holiday Tuesday is a Tuesday.
        #expect(rule.limit(on: Self.tuesday, holiday: true) == 60)
        rule.daysOff = 180
        #expect(rule.limit(on: Self.tuesday, holiday: true) == 180, "a winter-break weekday kept the school-day limit")
        #expect(rule.limit(on: Self.saturday, holiday: false) == 180, "a weekend is a day off")
        #expect(rule.limit(on: Self.schoolTuesday, holiday: false) == 60)
        rule.schoolDays = 45
        #expect(rule.limit(on: Self.schoolTuesday, holiday: false) == 45)
        #expect(rule.limit(on: Self.tuesday, holiday: true) == 180)
        #expect(rule.summary.hasPrefix("45m school days, 3h days off"), "\(rule.summary)")
        #expect(rule.isConfigured)
    }

    @Test func theEvaluatorReadsTheDayOffFromTheHolidaysItIsGiven() {
        var rule = AppRule(name: "minecraft", paths: ["/usr/games/minecraft"])
        rule.schoolDays = 60
        rule.daysOff = 120
        var resolver = ZoneResolver(zone: AppEvaluatorTests.berlin)
        let noon = resolver.resolve(Self.tuesday, try! LocalTime.parse("12:00")).instant
        let used = 90 * 60
        let school = AppEvaluator.decide(rule, user: "kid", at: noon, resolver: &resolver, usedSeconds: used)
        #expect(!school.allowed && school.reason.hasPrefix("today's 60 minutes are used up"), "\(school.reason)")
        let holiday = AppEvaluator.decide(
            rule, user: "kid", at: noon, resolver: &resolver, usedSeconds: used, holidays: [Self.tuesday])
        #expect(holiday.allowed, "\(holiday.reason)")
    }
}
