import Testing

@testable import ReveilleCore

@Suite struct TimeParsingTests {
    @Test(arguments: [
        ("6:45", 6 * 3600 + 45 * 60), ("06:45", 6 * 3600 + 45 * 60), ("18:30", 18 * 3600 + 1800),
        ("0:00", 0), ("23:59", 86_340), ("06:45:30", 6 * 3600 + 45 * 60 + 30),
    ])
    func acceptsWallClockTimes(text: String, seconds: Int) throws {
        #expect(try LocalTime.parse(text).secondsOfDay == seconds)
    }

    @Test func namesTheFieldThatIsOutOfRange() {
        #expect(throws: InputError("time \"25:00\": hour must be 0-23")) { try LocalTime.parse("25:00") }
        #expect(throws: InputError("time \"06:60\": minute must be 00-59")) { try LocalTime.parse("06:60") }
    }

    @Test(arguments: ["6", "6:5", "645", "six:45", "06:45:", ":45", "06-45", "", "1:2:3:4"])
    func refusesShapesThatAreNotTimes(text: String) {
        #expect(throws: InputError("time \"\(text)\": use HH:MM on a 24-hour clock, like 06:45 or 18:30")) {
            try LocalTime.parse(text)
        }
    }

    @Test func printsSecondsOnlyWhenSet() {
        #expect(time("6:05").description == "06:05")
        #expect(time("06:05:09").description == "06:05:09")
    }
}

@Suite struct DayParsingTests {
    @Test(arguments: [
        ("mon-fri", "mon-fri"), ("sat,sun", "sat,sun"), ("daily", "daily"), ("weekdays", "mon-fri"),
        ("weekends", "sat,sun"), ("fri-mon", "mon,fri-sun"), ("Mon,Wed,Fri", "mon,wed,fri"),
        ("monday,tuesday", "mon,tue"), ("mon-sun", "daily"), ("tue-thu,sat", "tue-thu,sat"),
    ])
    func acceptsDaysAndRangesAndPrintsThemCanonically(text: String, canonical: String) throws {
        #expect(try DaySet.parse(text).description == canonical)
    }

    @Test func namesTheUnknownDay() {
        let hint = "use day names (mon,tue,wed,thu,fri,sat,sun), ranges like mon-fri, or daily, weekdays, weekends"
        #expect(throws: InputError("days \"funday\": unknown day \"funday\"; \(hint)")) { try DaySet.parse("funday") }
        #expect(throws: InputError("days \"mon-xyz\": unknown day \"xyz\"; \(hint)")) { try DaySet.parse("mon-xyz") }
        #expect(throws: InputError("days \"mon,,fri\": unknown day \"\"; \(hint)")) { try DaySet.parse("mon,,fri") }
    }
}

@Suite struct DateTests {
    @Test func roundTripsEveryDayOfFourCenturies() {
        var previous: CivilDate?
        for dayNumber in stride(from: -150_000, through: 150_000, by: 1) {
            let date = CivilDate(dayNumber: dayNumber)
            let (y, m, d) = date.components
            #expect(CivilDate(year: y, month: m, day: d) == date)
            if let previous { #expect(previous.weekday.rawValue == (date.weekday.rawValue + 6) % 7) }
            previous = date
        }
    }

    @Test func knowsLeapDays() throws {
        #expect(try CivilDate.parse("2028-02-29").components == (2028, 2, 29))
        #expect(try CivilDate.parse("2000-02-29").weekday == .tuesday)
        #expect(throws: InputError("date \"2027-02-29\": February 2027 has 28 days")) {
            try CivilDate.parse("2027-02-29")
        }
        #expect(throws: InputError("date \"2100-02-29\": February 2100 has 28 days")) {
            try CivilDate.parse("2100-02-29")
        }
    }

    @Test func knowsItsWeekday() {
        #expect(date("1970-01-01").weekday == .thursday)
        #expect(date("2026-11-21").weekday == .saturday)
        #expect(date("1969-12-31").weekday == .wednesday)
    }

    @Test func understandsYesterdayTodayAndTomorrow() throws {
        let today = date("2026-12-31")
        #expect(try CivilDate.parse("tomorrow", today: today) == date("2027-01-01"))
        #expect(try CivilDate.parse("Today", today: today) == today)
        #expect(try CivilDate.parse("yesterday", today: today) == date("2026-12-30"))
        #expect(throws: Never.self) { try CivilDate.check("yesterday") }
        #expect(
            throws: InputError("date \"12/24\": use YYYY-MM-DD, like 2026-12-24, or yesterday/today/tomorrow")
        ) {
            try CivilDate.parse("12/24", today: today)
        }
        // Yesterday is a date like any other: where a past date makes no sense, it is refused so.
        #expect(throws: InputError("2026-12-30 07:00 has already passed; pick a later date or time")) {
            try Repeat.once(
                "yesterday", at: LocalTime(hour: 7, minute: 0)!, now: (today, LocalTime(hour: 6, minute: 0)!))
        }
    }
}
