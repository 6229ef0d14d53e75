import ReveilleApps
import ReveilleCore

/// The policy written as apps.toml text, in the shape `AppPolicyFile` reads: what `reveille apps
/// export` prints and what the state keeps (docs/guide/apps.md, "Where the app policy lives"). Days are
/// grouped as a person would write them: one value, weekdays and weekends, or day by day.
public enum AppPolicyText {
    public static let header = """
        # The app policy (docs/guide/apps.md, "App time windows and daily limits").
        # Written by 'reveille apps export'; a hand edit here is merged app by app.

        """

    public static func render(_ policy: AppPolicy) -> String {
        header + policy.apps.map(render).joined(separator: "\n")
    }

    public static func render(_ app: AppRule) -> String {
        var lines = ["[[app]]", "name = \(quoted(app.name))"]
        if let category = app.category { lines.append("category = \(quoted(category.rawValue))") }
        lines.append("paths = [\(app.paths.map(quoted).joined(separator: ", "))]")
        if let windows = app.windows {
            let everyDay = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, windows[$0] ?? []) })
            lines.append(
                "windows = " + perDay(everyDay) { "[\($0.map { quoted($0.description) }.joined(separator: ", "))]" })
        }
        let byCalendar = [("school_days", app.schoolDays), ("days_off", app.daysOff)].compactMap { name, minutes in
            minutes.map { "\(name) = \($0)" }
        }
        if !app.limits.isEmpty || !byCalendar.isEmpty {
            lines.append("limit_minutes = " + perDay(app.limits, also: byCalendar) { "\($0)" })
        }
        if !app.users.isEmpty { lines.append("users = [\(app.users.map(quoted).joined(separator: ", "))]") }
        if !app.enabled { lines.append("enabled = false") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One value for every day, `{ weekdays = ..., weekends = ... }`, or a value per day named;
    /// `also`: more `key = value` parts of the same table (then one value for every day is `daily`).
    static func perDay<T: Equatable>(_ values: [Weekday: T], also: [String] = [], _ text: (T) -> String) -> String {
        let days = Weekday.allCases
        if values.count == 7, let first = values[.monday], days.allSatisfy({ values[$0] == first }) {
            return also.isEmpty ? text(first) : "{ " + (["daily = \(text(first))"] + also).joined(separator: ", ") + " }"
        }
        let weekdays = days.filter { !$0.isWeekend }
        let weekends = days.filter(\.isWeekend)
        var parts: [String] = []
        var rest = days
        // Weekdays as the value most of them share (at least three), the others named after it:
        // the more specific wins when read. Only when every weekday has a value: one without
        // would inherit the line.
        let weekdayTexts = weekdays.compactMap { day in values[day].map { (day, text($0)) } }
        let counts = Dictionary(grouping: weekdayTexts) { $0.1 }
        if weekdayTexts.count == weekdays.count,
            let (common, group) = counts.max(by: { $0.value.count < $1.value.count }),
            group.count >= 3
        {
            parts.append("weekdays = \(common)")
            rest.removeAll { day in group.contains { $0.0 == day } }
        }
        if let value = values[.saturday], weekends.allSatisfy({ values[$0] == value }) {
            parts.append("weekends = \(text(value))")
            rest.removeAll(where: \.isWeekend)
        }
        for day in rest { if let value = values[day] { parts.append("\(day.shortName) = \(text(value))") } }
        return "{ \((parts + also).joined(separator: ", ")) }"
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
