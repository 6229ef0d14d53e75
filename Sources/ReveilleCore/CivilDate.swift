/// A calendar date with no time zone: what a person means by "2026-12-24".
///
/// Stored as the number of days since 1970-01-01 (proleptic Gregorian), so that
/// arithmetic and comparisons are integer operations.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let dayNumber: Int

    public init(dayNumber: Int) {
        self.dayNumber = dayNumber
    }

    /// Builds a date from its parts, or returns nil if the date does not exist (2026-02-29).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else {
            return nil
        }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        self.dayNumber = era * 146_097 + doe - 719_468
    }

    /// Year, month (1-12) and day (1-31).
    public var components: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let index = ((dayNumber % 7) + 7 + 3) % 7  // 0 = Monday
        return Weekday.allCases[index]
    }

    public func adding(days: Int) -> CivilDate {
        CivilDate(dayNumber: dayNumber + days)
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        lhs.dayNumber < rhs.dayNumber
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2026-12-24`.
    public var description: String {
        let (y, m, d) = components
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// Parses `YYYY-MM-DD`. Throws an error naming the text and what is wrong.
    public static func parse(_ text: String) throws(InputError) -> CivilDate {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else {
            throw InputError("date \"\(text)\": use YYYY-MM-DD, like 2026-12-24")
        }
        guard (1...12).contains(m) else {
            throw InputError("date \"\(text)\": month must be 01-12")
        }
        guard let date = CivilDate(year: y, month: m, day: d) else {
            throw InputError("date \"\(text)\": \(monthNames[m - 1]) \(y) has \(daysIn(month: m, year: y)) days")
        }
        return date
    }

    /// Parses a date a person types: `YYYY-MM-DD`, `yesterday`, `today` or `tomorrow` (relative
    /// to `today`). Whether a past date makes sense is the caller's to say.
    public static func parse(_ text: String, today: CivilDate) throws(InputError) -> CivilDate {
        if let offset = relativeWords[text.lowercased()] { return today.adding(days: offset) }
        do {
            return try parse(text)
        } catch {
            throw InputError("\(error.message), or yesterday/today/tomorrow")
        }
    }

    /// The words a date may be given as, and their distance from today.
    public static let relativeWords = ["yesterday": -1, "today": 0, "tomorrow": 1]

    /// Checks what the CLI can without the daemon's clock: a relative word, or a valid date.
    public static func check(_ text: String) throws(InputError) {
        if relativeWords[text.lowercased()] == nil { _ = try parse(text) }
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]
}

extension CivilDate: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try CivilDate.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}
