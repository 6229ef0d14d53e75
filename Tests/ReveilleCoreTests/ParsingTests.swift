import ReveilleApps
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

/// `.desktop` files as the app picker reads them (the Desktop Entry Specification).
@Suite struct DesktopEntryTests {
    @Test func anApplicationsEntryAndWhatIsNotOne() throws {
        let entry = try #require(
            DesktopEntry.parse(
                id: "game.desktop",
                text: """
                    # a comment
                    [Desktop Entry]
                    Type=Application
                    Name=Super Game
                    Name[fr]=Super Jeu
                    Comment=Jump\\sand run
                    Exec="/opt/my games/game" --level=1 %U
                    Icon=game

                    [Desktop Action New]
                    Name=Other
                    Exec=other
                    """))
        #expect(entry.name == "Super Game" && entry.icon == "game" && entry.comment == "Jump and run")
        #expect(DesktopEntry.words(of: entry.exec) == ["/opt/my games/game", "--level=1"])
        for text in [
            "[Desktop Entry]\nType=Link\nName=x\nExec=x",
            "[Desktop Entry]\nType=Application\nName=x\nExec=x\nNoDisplay=true",
            "[Desktop Entry]\nType=Application\nName=x", "[Other]\nType=Application\nName=x\nExec=x",
            "[Desktop Entry]\nType=Application\nName=\u{1B}[31m\nExec=x\nHidden=true",
        ] {
            #expect(DesktopEntry.parse(id: "x.desktop", text: text) == nil, "\(text)")
        }
    }

    @Test func fieldCodesQuotesAndEscapes() {
        #expect(DesktopEntry.words(of: #"game %f --name="a \"b\"" 100%% %i"#) == ["game", "--name=a \"b\"", "100%"])
        #expect(DesktopEntry.words(of: "env A=1 B=2 /usr/bin/game") == ["env", "A=1", "B=2", "/usr/bin/game"])
    }

    @Test func theProgramTheGuardSees() {
        func entry(_ exec: String) -> DesktopEntry {
            DesktopEntry.parse(id: "x.desktop", text: "[Desktop Entry]\nType=Application\nName=X\nExec=\(exec)")!
        }
        let resolve: (String) -> String? = {
            [
                "game": "/usr/games/game", "/usr/bin/game": "/usr/bin/game",
                "/var/lib/flatpak/app/org.x.App/current/active/files/bin/run-x":
                    "/var/lib/flatpak/app/org.x.App/current/active/files/bin/run-x",
            ][$0]
        }
        let flatpak: (String) -> String? = { $0 == "org.x.App" ? "run-x" : nil }
        func program(_ exec: String) -> DesktopEntry.Program {
            entry(exec).program(resolve: resolve, flatpakCommand: flatpak)
        }
        #expect(program("game %U") == .file("/usr/games/game"))
        #expect(program("env LANG=C /usr/bin/game") == .file("/usr/bin/game"))
        #expect(
            program("/usr/bin/flatpak run --branch=stable org.x.App @@u %U @@")
                == .file("/var/lib/flatpak/app/org.x.App/current/active/files/bin/run-x"))
        guard case .unlimitable(let why) = program("flatpak run org.y.Other") else {
            Issue.record("resolved")
            return
        }
        #expect(why.hasPrefix("a Flatpak app installed for one user"))
        guard case .unlimitable(let snap) = program("env BAMF_DESKTOP_FILE_HINT=x /snap/bin/mines %U") else {
            Issue.record("a snap resolved")
            return
        }
        #expect(snap.contains("/snap/mines/current/"))
        #expect(program("missing") == .unlimitable("its program missing is not installed or not executable"))
    }
}

/// A calendar's credentials are never shown back (README, "Calendars on the web").
@Suite struct CalendarAddressTests {
    @Test func credentialsAreNeverShown() {
        #expect(
            CalendarAddress.shown("https://leo:s3cret@cal.example.com/school.ics")
                == "https://…@cal.example.com/school.ics")
        #expect(CalendarAddress.shown("https://cal.example.com/a@b.ics") == "https://cal.example.com/a@b.ics")
        #expect(CalendarAddress.shown("http://u@h:8080/x?y=@z") == "http://…@h:8080/x?y=@z")
        #expect(CalendarAddress.shown("/home/leo/school.ics") == "/home/leo/school.ics")
    }
}
