import ReveilleCore

/// A span of wall-clock time in a day during which an app may run: `07:00-20:00`, or
/// `22:00-01:00`, which crosses midnight into the next day. `24:00` ends a window at midnight.
public struct TimeWindow: Hashable, Sendable, CustomStringConvertible {
    /// Seconds after midnight, 0..<86400.
    public let start: Int
    /// Seconds after midnight, 1...86400; at or before `start`, the window ends the next day.
    public let end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    public var crossesMidnight: Bool { end <= start }

    /// Parses `HH:MM-HH:MM`.
    public static func parse(_ text: String) throws(InputError) -> TimeWindow {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw InputError("window \"\(text)\": write it as HH:MM-HH:MM, like 07:00-20:00")
        }
        let start = try seconds(parts[0], in: text)
        let end = try seconds(parts[1], in: text)
        guard start < 86_400 else { throw InputError("window \"\(text)\": a window cannot start at 24:00") }
        guard start != end else { throw InputError("window \"\(text)\": it starts and ends at the same time") }
        return TimeWindow(start: start, end: end)
    }

    private static func seconds(_ part: Substring, in text: String) throws(InputError) -> Int {
        let pieces = part.split(separator: ":")
        guard pieces.count == 2, pieces[0].count <= 2, pieces[1].count == 2, let hour = Int(pieces[0]),
            let minute = Int(pieces[1])
        else { throw InputError("window \"\(text)\": write it as HH:MM-HH:MM, like 07:00-20:00") }
        guard (0...24).contains(hour) else { throw InputError("window \"\(text)\": hour \(hour) must be 0-23") }
        guard (0...59).contains(minute) else { throw InputError("window \"\(text)\": minute \(minute) must be 0-59") }
        guard hour < 24 || minute == 0 else { throw InputError("window \"\(text)\": 24:00 is the latest end") }
        return hour * 3600 + minute * 60
    }

    public var description: String {
        func clock(_ seconds: Int) -> String {
            let hour = seconds / 3600
            let minute = seconds / 60 % 60
            return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        }
        return "\(clock(start))-\(clock(end))"
    }
}

/// What an app is for, which sets what a parent is offered when setting it up (README, "Setting
/// up apps"): a learning app gets no defaults (its hours and limits must be chosen), a reward app
/// is offered strict ones (`AppRule.suggested`).
public enum AppCategory: String, Hashable, Sendable, CaseIterable, Codable {
    case learning
    case reward
}

/// What the policy file says about one app (docs/guide/apps.md, "App time windows and daily limits").
public struct AppRule: Hashable, Sendable {
    public var name: String
    /// nil: neither learning nor reward.
    public var category: AppCategory?
    /// The executables that are this app.
    public var paths: [String]
    /// Allowed windows per weekday; a day without an entry has none. nil: any time.
    public var windows: [Weekday: [TimeWindow]]?
    /// Daily minutes per weekday; a day without an entry has no limit.
    public var limits: [Weekday: Int]
    /// Daily minutes on school days (weekdays the holiday calendars leave alone), over `limits`.
    public var schoolDays: Int?
    /// Daily minutes on days off (weekends, and the holiday calendars' days), over `limits`.
    public var daysOff: Int?
    public var enabled: Bool
    /// Only these users are limited; empty: the people who use the machine (never root or a system
    /// account: `applies(to:isPerson:)`).
    public var users: [String]

    public init(
        name: String, paths: [String], windows: [Weekday: [TimeWindow]]? = nil, limits: [Weekday: Int] = [:],
        enabled: Bool = true, users: [String] = [], category: AppCategory? = nil
    ) {
        self.name = name
        self.category = category
        self.paths = paths
        self.windows = windows
        self.limits = limits
        self.enabled = enabled
        self.users = users
    }
}

/// The whole policy: the apps, each found by its executables.
public struct AppPolicy: Hashable, Sendable {
    public var apps: [AppRule]

    public init(apps: [AppRule] = []) {
        self.apps = apps
    }

    public func app(named name: String) -> AppRule? { apps.first { $0.name == name } }

    public func app(forPath path: String) -> AppRule? { apps.first { $0.paths.contains(path) } }
}

/// Usage is counted per app and user.
public struct AppUsageKey: Hashable, Sendable, Comparable {
    public var app: String
    public var user: String

    public init(app: String, user: String) {
        self.app = app
        self.user = user
    }

    public static func < (lhs: AppUsageKey, rhs: AppUsageKey) -> Bool { (lhs.app, lhs.user) < (rhs.app, rhs.user) }
}

extension AppRule {
    /// Whether this app's limits fall on `user`: those named in `users`, whoever they are (root
    /// too, if named); with no `users`, the people who use the machine only (`isPerson`: a login
    /// UID from `UID_MIN` in /etc/login.defs on, not `nobody`), so that services, package scripts,
    /// containers and root are never limited by default.
    public func applies(to user: String, isPerson: Bool) -> Bool {
        users.isEmpty ? isPerson : users.contains(user)
    }
}

extension AppRule {
    /// Daily limits run from 0 to 8 hours, in 5-minute steps.
    public static let limitRange = 0...480
    public static let limitStep = 5

    /// Why `minutes` is not a daily limit, or nil when it is one.
    public static func limitProblem(_ minutes: Int) -> String? {
        guard limitRange.contains(minutes), minutes % limitStep == 0 else {
            return "\(minutes) is not allowed; use 0-480 minutes in steps of 5 (like 60 or 95)"
        }
        return nil
    }

    /// Set up: its hours or its daily limits were chosen. An app only listed is not, and is
    /// blocked until it is (docs/guide/apps.md, "Setting up apps").
    public var isConfigured: Bool { windows != nil || !limits.isEmpty || schoolDays != nil || daysOff != nil }

    /// The daily limit on `date` in minutes (nil: none): on a day off (a weekend, or a holiday of
    /// the calendars the alarms use: `holiday`) `days_off`, on a school day `school_days`, when set;
    /// else the weekday's. A winter-break Tuesday is a day off, whatever a weekday limit says.
    public func limit(on date: CivilDate, holiday: Bool) -> Int? {
        let dayOff = holiday || date.weekday.isWeekend
        if dayOff, let daysOff { return daysOff }
        if !dayOff, let schoolDays { return schoolDays }
        return limits[date.weekday]
    }

    /// Why this app cannot be saved as it is, or nil: a learning app needs its daily limits.
    public var setupProblem: String? {
        if category == .learning, limits.isEmpty, schoolDays == nil, daysOff == nil {
            return "a learning app needs its daily limits (limit_minutes); it gets no defaults"
        }
        return nil
    }

    /// What a parent is offered for a new app of `category`: a reward app 1 h on weekdays and
    /// 2 h at weekends, from 15:00 to 20:00; a learning app nothing.
    public static func suggested(for category: AppCategory?) -> (
        windows: [Weekday: [TimeWindow]]?, limits: [Weekday: Int]
    )? {
        switch category {
        case .reward:
            let window = [TimeWindow(start: 15 * 3600, end: 20 * 3600)]
            return (
                Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, window) }),
                Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, $0.isWeekend ? 120 : 60) })
            )
        case .learning: return nil
        case nil: return (nil, [:])
        }
    }

    /// One line a tired parent can read: `2h weekdays, 3h weekends · 15:00–20:00`, `⚠️ Not
    /// configured`, `off`.
    public var summary: String {
        guard enabled else { return "off (not limited)" }
        guard isConfigured else { return "⚠️ Not configured" }
        let byCalendar = [
            schoolDays.map { "\(AppRule.duration($0)) school days" }, daysOff.map { "\(AppRule.duration($0)) days off" },
        ].compactMap { $0 }
        let byWeekday = limits.isEmpty ? [] : [AppRule.byDays(limits) { AppRule.duration($0) }]
        let limitText = (byCalendar + byWeekday).isEmpty ? "no daily limit" : (byCalendar + byWeekday).joined(separator: ", ")
        let hours: String
        if let windows {
            hours = AppRule.byDays(windows.filter { !$0.value.isEmpty }, missing: "no hours", everyDay: "") { windows in
                windows.map { $0.start == 0 && $0.end == 86_400 ? "all day" : $0.description.replacing("-", with: "–") }
                    .joined(separator: ", ")
            }
        } else {
            hours = "all day"
        }
        return "\(limitText) · \(hours)"
    }

    /// `45m`, `1h`, `1h30m`.
    public static func duration(_ minutes: Int) -> String {
        if minutes < 60 { return "\(minutes)m" }
        return minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes / 60)h\(minutes % 60)m"
    }

    /// Values by day in the fewest words: `X daily`, `X weekdays, Y weekends`, else day by day;
    /// a day without a value says `missing` (or is left out).
    static func byDays<T: Equatable>(
        _ values: [Weekday: T], missing: String? = nil, everyDay: String = " daily", _ text: (T) -> String
    ) -> String {
        func say(_ day: Weekday) -> String? { values[day].map(text) ?? missing }
        func alike(_ days: [Weekday]) -> Bool { days.allSatisfy { values[$0] == values[days[0]] } }
        let weekdays = Weekday.allCases.filter { !$0.isWeekend }
        let weekends = Weekday.allCases.filter(\.isWeekend)
        if alike(Weekday.allCases) {
            return values[.monday] == nil ? missing ?? "" : say(.monday)! + everyDay
        }
        if alike(weekdays), alike(weekends) {
            return [say(.monday).map { "\($0) weekdays" }, say(.saturday).map { "\($0) weekends" }]
                .compactMap { $0 }.joined(separator: ", ")
        }
        return Weekday.allCases.compactMap { day in say(day).map { "\(day.displayName) \($0)" } }
            .joined(separator: ", ")
    }
}
