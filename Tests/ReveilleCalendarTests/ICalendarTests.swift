import Foundation
import ReveilleCore
import Testing

@testable import ReveilleCalendar

/// Holiday calendars read by libical, with the traps real calendars set (issue 16, part 2).
@Suite struct ICalendarTests {
    let berlin = Zone(builtIn: "Europe/Berlin")!

    func calendar(_ body: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Reveille tests//EN\r\n"
            + body.replacingOccurrences(of: "\n", with: "\r\n") + "END:VCALENDAR\r\n"
    }

    func date(_ text: String) -> CivilDate { try! CivilDate.parse(text) }

    func utc(_ text: String) -> Int { Int(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970) }

    func expand(_ body: String, from: String = "2026-01-01", through: String = "2027-12-31") throws
        -> [CalendarOccurrence]
    {
        try ICalendar.occurrences(in: calendar(body), from: date(from), through: date(through), zone: berlin)
    }

    func error(_ text: String) -> CalendarError? {
        do {
            _ = try ICalendar.occurrences(in: text, from: date("2026-01-01"), through: date("2026-12-31"), zone: berlin)
            return nil
        } catch { return error }
    }

    @Test func aWeeklyEventInAnotherZoneWithAnExdateInThatZone() throws {
        // 23:00 in New York is 05:00 the next morning in Berlin; the EXDATE names the 9th in New York.
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:weekly
            SUMMARY:Call
            DTSTART;TZID=America/New_York:20261102T230000
            DTEND;TZID=America/New_York:20261102T233000
            RRULE:FREQ=WEEKLY;COUNT=4
            EXDATE;TZID=America/New_York:20261109T230000
            END:VEVENT

            """)
        #expect(list.map(\.firstDate) == [date("2026-11-03"), date("2026-11-17"), date("2026-11-24")])
        #expect(list.first?.start == utc("2026-11-03T04:00:00Z"))
    }

    @Test func anOverriddenOccurrenceMovesToAnotherDayAndACancelledOneIsDropped() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:swim
            SUMMARY:No school
            DTSTART;VALUE=DATE:20261202
            RRULE:FREQ=WEEKLY;COUNT=4
            END:VEVENT
            BEGIN:VEVENT
            UID:swim
            RECURRENCE-ID;VALUE=DATE:20261209
            SUMMARY:No school (moved)
            DTSTART;VALUE=DATE:20261211
            END:VEVENT
            BEGIN:VEVENT
            UID:swim
            RECURRENCE-ID;VALUE=DATE:20261216
            STATUS:CANCELLED
            SUMMARY:No school
            DTSTART;VALUE=DATE:20261216
            END:VEVENT

            """)
        #expect(list.map(\.firstDate) == [date("2026-12-02"), date("2026-12-11"), date("2026-12-23")])
        #expect(list[1].summary == "No school (moved)")
    }

    @Test func aWindowsZoneNameDefinedByTheFilesVTIMEZONE() throws {
        // Outlook writes its own zone names, and defines them in the file.
        let list = try expand(
            """
            BEGIN:VTIMEZONE
            TZID:W. Europe Standard Time
            BEGIN:STANDARD
            DTSTART:16011028T030000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010325T020000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            END:DAYLIGHT
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:outlook
            SUMMARY:Staff day
            DTSTART;TZID=W. Europe Standard Time:20260701T073000
            DTEND;TZID=W. Europe Standard Time:20260701T160000
            END:VEVENT
            BEGIN:VEVENT
            UID:outlook-winter
            SUMMARY:Staff day
            DTSTART;TZID=W. Europe Standard Time:20261201T073000
            DTEND;TZID=W. Europe Standard Time:20261201T160000
            END:VEVENT

            """)
        #expect(list.map(\.start) == [utc("2026-07-01T05:30:00Z"), utc("2026-12-01T06:30:00Z")])
        #expect(list.map(\.firstDate) == [date("2026-07-01"), date("2026-12-01")])
    }

    @Test func aZoneDefinedOnlyByAVTIMEZONE() throws {
        let list = try expand(
            """
            BEGIN:VTIMEZONE
            TZID:Custom/Somewhere
            BEGIN:STANDARD
            DTSTART:19700101T000000
            TZOFFSETFROM:+0530
            TZOFFSETTO:+0530
            END:STANDARD
            END:VTIMEZONE
            BEGIN:VEVENT
            UID:custom
            SUMMARY:Festival
            DTSTART;TZID=Custom/Somewhere:20260815T010000
            DURATION:PT1H
            END:VEVENT

            """)
        // 01:00 at +05:30 is 19:30 UTC the day before: 21:30 in Berlin, still the 14th.
        #expect(list.map(\.start) == [utc("2026-08-14T19:30:00Z")])
        #expect(list.map(\.firstDate) == [date("2026-08-14")])
    }

    @Test func anAllDayEventSpanningAWeekendCoversEachDayButNotItsEnd() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:break
            SUMMARY:Thanksgiving break
            DTSTART;VALUE=DATE:20261126
            DTEND;VALUE=DATE:20261201
            END:VEVENT

            """)
        #expect(list.count == 1)
        #expect(list[0].start == nil)
        #expect(list[0].dates == (26...30).map { date("2026-11-\($0)") })
        let holidays = CalendarOccurrence.holidays(list)
        #expect(holidays[date("2026-11-28")] == "Thanksgiving break")
        #expect(holidays[date("2026-12-01")] == nil)
    }

    @Test func rdateAddsAndExdateRemovesYearlyHolidays() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:new-year
            SUMMARY:New Year
            DTSTART;VALUE=DATE:20200101
            RRULE:FREQ=YEARLY
            EXDATE;VALUE=DATE:20270101
            RDATE;VALUE=DATE:20270102
            END:VEVENT
            BEGIN:VEVENT
            UID:other
            SUMMARY:Bank holiday
            DTSTART;VALUE=DATE:20260101
            END:VEVENT

            """)
        #expect(Set(list.map(\.firstDate)) == [date("2026-01-01"), date("2027-01-02")])
        #expect(CalendarOccurrence.holidays(list)[date("2026-01-01")] == "Bank holiday / New Year")
    }

    @Test func anUnknownTZIDIsReadOnTheClocksOwnWallTime() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:unknown
            SUMMARY:Meeting
            DTSTART;TZID=Nowhere Standard Time:20260610T090000
            END:VEVENT

            """)
        #expect(list.map(\.start) == [utc("2026-06-10T07:00:00Z")])
    }

    @Test func brokenFilesAreRefusedWithTheLine() {
        #expect(error("hello\n")?.description == "line 1: not an iCalendar file: it must begin with BEGIN:VCALENDAR")
        #expect(error("")?.description == "the file is empty")
        #expect(
            error("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:20260101T000000\nEND:VCALENDAR\n")?.description
                == "line 5: END:VCALENDAR where END:VEVENT was expected (BEGIN on line 2)")
        #expect(
            error("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:20260101T000000\nEND:VEVENT\n")?.description
                == "line 1: BEGIN:VCALENDAR is never ended (END:VCALENDAR is missing)")
        #expect(
            error("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nthis is not right\nEND:VEVENT\nEND:VCALENDAR\n")?
                .description == "line 4: \"this is not right\" is not a property (NAME:value)")
        #expect(
            error(calendar("BEGIN:VEVENT\nUID:lost\nSUMMARY:No start\nEND:VEVENT\n"))?.description
                == "line 5: the event lost has no DTSTART")
    }

    @Test func onlyTheSpanAskedForIsExpanded() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:monthly
            SUMMARY:Inset day
            DTSTART;VALUE=DATE:20200115
            RRULE:FREQ=MONTHLY
            END:VEVENT

            """, from: "2026-03-01", through: "2026-05-31")
        #expect(list.map(\.firstDate) == [date("2026-03-15"), date("2026-04-15"), date("2026-05-15")])
    }

    // MARK: Reminder calendars (issue 16, part 3)

    @Test func valarmTriggersBecomeMinutesBeforeAndAMovedOccurrenceKeepsItsRecurrence() throws {
        let list = try expand(
            """
            BEGIN:VEVENT
            UID:training
            SUMMARY:Training
            DTSTART;TZID=Europe/Berlin:20261124T180000
            DTEND;TZID=Europe/Berlin:20261124T193000
            RRULE:FREQ=WEEKLY;COUNT=3
            BEGIN:VALARM
            ACTION:DISPLAY
            DESCRIPTION:soon
            TRIGGER:-PT45M
            END:VALARM
            BEGIN:VALARM
            ACTION:AUDIO
            TRIGGER;RELATED=END:-PT1H30M
            END:VALARM
            END:VEVENT
            BEGIN:VEVENT
            UID:training
            RECURRENCE-ID;TZID=Europe/Berlin:20261201T180000
            SUMMARY:Training (moved)
            DTSTART;TZID=Europe/Berlin:20261202T170000
            DTEND;TZID=Europe/Berlin:20261202T183000
            END:VEVENT
            BEGIN:VEVENT
            UID:plain
            SUMMARY:No alarms
            DTSTART:20261125T090000Z
            END:VEVENT

            """, from: "2026-11-20", through: "2026-12-31")
        let training = list.filter { $0.uid == "training" }
        #expect(
            training.map(\.start) == [
                utc("2026-11-24T17:00:00Z"), utc("2026-12-02T16:00:00Z"), utc("2026-12-08T17:00:00Z"),
            ])
        // The override names the occurrence it replaces: the 1st, 18:00 Berlin.
        #expect(training[1].recurrence == utc("2026-12-01T17:00:00Z"))
        #expect(training[1].summary == "Training (moved)")
        #expect(training[0].recurrence == training[0].start)
        // 45 minutes before the start; 90 minutes before the end is the start itself.
        #expect(training[0].alarmMinutes == [45, 0])
        #expect(list.first { $0.uid == "plain" }?.alarmMinutes == nil)
    }
}
