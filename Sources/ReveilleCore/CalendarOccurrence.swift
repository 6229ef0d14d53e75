import FoundationEssentials

// Plain data about calendars, shared by the process that parses them with libical (the CLI's
// `reveille-calendar expand` and `refresh`) and the daemon, which never links libical.

/// The dates calendars are expanded over: from the day before `today`, two years ahead
/// (`next --days` beyond it sees no holidays). It is read again once a week has passed.
public struct CalendarSpan: Sendable, Hashable {
    public static let days = 731
    public let start: CivilDate

    public init(today: CivilDate) { start = today.adding(days: -1) }

    public var end: CivilDate { start.adding(days: Self.days) }

    /// Whether the span has slid far enough behind `today` to be read again.
    public func isStale(today: CivilDate) -> Bool { today.dayNumber - start.dayNumber > 7 }
}

/// One occurrence of a calendar event, on the wall clock of the daemon's zone.
public struct CalendarOccurrence: Sendable, Hashable, Codable {
    public let uid: String
    public let summary: String
    /// The first and last local date it covers (an all-day event from Fri to Mon: Fri...Sun when
    /// DTEND is Mon, as iCalendar's end is exclusive).
    public let firstDate: CivilDate
    public let lastDate: CivilDate
    /// The instant it starts; nil for an all-day event.
    public let start: Int?
    /// Which occurrence of a recurring event this is, as its RECURRENCE-ID would name it (the start
    /// it had by the rule, as libical encodes it): stays the same when an override moves it.
    public var recurrence: Int?
    /// The event's own VALARM triggers, in minutes before its start; nil when it has none.
    public var alarmMinutes: [Int]?
    /// Where it takes place (LOCATION), for a reminder calendar's chime; nil when not given.
    public var location: String?
    /// Its CATEGORIES (`Holiday`, `School break`), which a holiday calendar's filter reads too.
    public var categories: [String]?

    public init(
        uid: String, summary: String, firstDate: CivilDate, lastDate: CivilDate, start: Int?,
        recurrence: Int? = nil, alarmMinutes: [Int]? = nil
    ) {
        self.uid = uid
        self.summary = summary
        self.firstDate = firstDate
        self.lastDate = lastDate
        self.start = start
        self.recurrence = recurrence
        self.alarmMinutes = alarmMinutes
    }

    public var dates: [CivilDate] {
        (0...max(0, lastDate.dayNumber - firstDate.dayNumber)).map { firstDate.adding(days: $0) }
    }

    /// The dates it covers, with the names of what falls on them ("A / B" when two do).
    public static func holidays(_ occurrences: some Sequence<CalendarOccurrence>) -> [CivilDate: String] {
        var days: [CivilDate: [String]] = [:]
        for occurrence in occurrences {
            for date in occurrence.dates where !(days[date]?.contains(occurrence.summary) ?? false) {
                days[date, default: []].append(occurrence.summary)
            }
        }
        return days.mapValues { $0.joined(separator: " / ") }
    }

}

/// Which events of a holiday calendar are holidays (docs/guide/schedule.md, "Holidays"): all-day events only,
/// unless `timed`; of those, the ones whose summary or a category contains one of `only` (all
/// when `only` is empty) and none of `except`. Patterns are plain text, matched without regard to
/// case: what a request sends is never a regular expression, so no pattern can cost more than a
/// scan of the summary.
public struct HolidayFilter: Sendable, Hashable {
    public let only: [String]
    public let except: [String]
    public let timed: Bool

    /// All-day events, every one.
    public static let allDay = HolidayFilter(only: [], except: [], timed: false)

    public static let maxPatterns = 20
    public static let maxPatternLength = 64

    /// `only` and `except` as given: alternatives separated by `|` (`holiday|break|no school`).
    public init(only: String?, except: String?, timed: Bool) throws(InputError) {
        self.only = try HolidayFilter.patterns(only, option: "--only")
        self.except = try HolidayFilter.patterns(except, option: "--except")
        self.timed = timed
    }

    private init(only: [String], except: [String], timed: Bool) {
        (self.only, self.except, self.timed) = (only, except, timed)
    }

    private static func patterns(_ text: String?, option: String) throws(InputError) -> [String] {
        guard let text, !text.trimmed(newlines: true).isEmpty else { return [] }
        let patterns = text.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmed(newlines: true).lowercased()
        }
        guard patterns.count <= maxPatterns, patterns.allSatisfy({ !$0.isEmpty && $0.count <= maxPatternLength })
        else {
            throw InputError(
                "\(option) \"\(text)\": give up to \(maxPatterns) words or phrases of at most \(maxPatternLength) characters, separated by |, like 'holiday|break|no school'"
            )
        }
        if let control = patterns.joined().unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw InputError(
                "\(option): control character U+\(String(control.value, radix: 16, uppercase: true)) is not allowed")
        }
        return patterns
    }

    /// Why `occurrence` is not a holiday, or nil when it is one.
    public func dropped(_ occurrence: CalendarOccurrence) -> String? {
        if !timed, occurrence.start != nil { return "a timed event" }
        let texts = ([occurrence.summary] + (occurrence.categories ?? [])).map { $0.lowercased() }
        if let pattern = except.first(where: { pattern in texts.contains { $0.contains(pattern) } }) {
            return "it matches --except '\(pattern)'"
        }
        if !only.isEmpty, !only.contains(where: { pattern in texts.contains { $0.contains(pattern) } }) {
            return "it matches none of --only"
        }
        return nil
    }

    /// The filter as `calendar list` shows it: `all-day events matching holiday|break`.
    public var description: String {
        (timed ? "all events" : "all-day events")
            + (only.isEmpty ? "" : " matching \(only.joined(separator: "|"))")
            + (except.isEmpty ? "" : ", except \(except.joined(separator: "|"))")
    }
}

/// A calendar that could not be read: what is wrong, and on which line when that is known.
public struct CalendarError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public let message: String
    public let line: Int?

    public init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// What a calendar is for: its all-day events silence --skip-holidays alarms, or its timed events
/// chime. Stored and sent by name; a name not known here is refused, never taken for either.
public enum CalendarPurpose: String, Codable, Sendable, CaseIterable {
    case holidays
    case reminders

    /// What is missing while a calendar has never been read well.
    public var withoutACopy: String {
        switch self {
        case .holidays: "no good copy yet: its holidays are not known"
        case .reminders: "no good copy yet: none of its events chimes"
        }
    }
}

extension CalendarOccurrence {
    /// Whether it touches any of the `days` days from `date` (`calendar show --days`).
    public func falls(within days: Int, from date: CivilDate) -> Bool {
        lastDate >= date && firstDate <= date.adding(days: days - 1)
    }
}
