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

/// What the policy file says about one app (README, "App time windows and daily limits").
public struct AppRule: Hashable, Sendable {
    public var name: String
    /// The executables that are this app.
    public var paths: [String]
    /// Allowed windows per weekday; a day without an entry has none. nil: any time.
    public var windows: [Weekday: [TimeWindow]]?
    /// Daily minutes per weekday; a day without an entry has no limit.
    public var limits: [Weekday: Int]
    public var enabled: Bool
    /// Only these users are limited; empty: the people who use the machine (never root or a system
    /// account: `applies(to:isPerson:)`).
    public var users: [String]

    public init(
        name: String, paths: [String], windows: [Weekday: [TimeWindow]]? = nil, limits: [Weekday: Int] = [:],
        enabled: Bool = true, users: [String] = []
    ) {
        self.name = name
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
