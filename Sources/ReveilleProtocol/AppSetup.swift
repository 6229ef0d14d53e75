import ReveilleApps
import ReveilleCore

// Setting up apps (docs/guide/apps.md, "Setting up apps"), asking for more time, and what a child's notifier hears.

/// One app as a parent sets it up: what `apps list` shows and what the page's sheet sends. Days
/// are `mon`..`sun`; a day missing from `windows` has no hours, one missing from `limits` no limit.
public struct AppSetup: Codable, Sendable, Equatable {
    public var name: String
    public var category: AppCategory?
    public var paths: [String]
    /// nil: any time of day.
    public var windows: [String: [String]]?
    public var limits: [String: Int]
    public var users: [String]
    public var enabled: Bool
    /// Filled in by the daemon: whether its hours or limits were chosen.
    public var configured: Bool?
    /// Filled in by the daemon: `2h weekdays, 3h weekends · 15:00–20:00`.
    public var summary: String?

    public init(
        name: String, category: AppCategory? = nil, paths: [String], windows: [String: [String]]? = nil,
        limits: [String: Int] = [:], users: [String] = [], enabled: Bool = true
    ) {
        self.name = name
        self.category = category
        self.paths = paths
        self.windows = windows
        self.limits = limits
        self.users = users
        self.enabled = enabled
    }

    public init(_ rule: AppRule) {
        self.init(
            name: rule.name, category: rule.category, paths: rule.paths,
            windows: rule.windows.map { windows in
                Dictionary(
                    uniqueKeysWithValues: Weekday.allCases.map {
                        ($0.shortName, (windows[$0] ?? []).map(\.description))
                    })
            },
            limits: Dictionary(uniqueKeysWithValues: rule.limits.map { ($0.key.shortName, $0.value) })
                .merging([("school_days", rule.schoolDays), ("days_off", rule.daysOff)].compactMap { name, minutes in
                    minutes.map { (name, $0) }
                }) { $1 },
            users: rule.users, enabled: rule.enabled)
        configured = rule.isConfigured
        summary = rule.summary
    }

    /// The rule it describes; a day, window or limit that is not one is an error naming it.
    public func rule() throws(InputError) -> AppRule {
        func day(_ name: String) throws(InputError) -> Weekday {
            guard let index = Weekday.allCases.firstIndex(where: { $0.shortName == name }) else {
                throw InputError("\"\(name)\" is not a day; use mon, tue, wed, thu, fri, sat or sun")
            }
            return Weekday.allCases[index]
        }
        var rule = AppRule(name: name, paths: paths, users: users, category: category)
        rule.enabled = enabled
        if let windows {
            var parsed: [Weekday: [TimeWindow]] = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, []) })
            for (name, texts) in windows {
                var list: [TimeWindow] = []
                for text in texts { list.append(try TimeWindow.parse(text)) }
                parsed[try day(name)] = list
            }
            rule.windows = parsed
        }
        for (name, minutes) in limits {
            if let problem = AppRule.limitProblem(minutes) { throw InputError("limit \(name) \(problem)") }
            switch name {
            case "school_days": rule.schoolDays = minutes
            case "days_off": rule.daysOff = minutes
            default: rule.limits[try day(name)] = minutes
            }
        }
        return rule
    }
}

/// The policy in force, for `apps list` and the page's Apps sheets.
public struct AppPolicyInfo: Codable, Sendable, Equatable {
    /// Goes up with every change (the page's, the CLI's, a hand edit merged): an edit made on an
    /// older revision is refused, never written over a newer one.
    public var revision: Int
    public var apps: [AppSetup]
    /// Hand edits of apps.toml not applied because the same app was changed here since: why.
    public var conflicts: [String]
    /// The apps whose entry in apps.toml differs from the policy in force (changed here since).
    public var differsFromFile: [String]
    public var file: String
    /// The household's hub this machine follows, and since when (`2026-11-28 21:04`, the daemon's
    /// zone): the policy in force is the hub's, and changes are made there. nil: this machine's own.
    public var hub: String?
    public var hubSince: String?

    public init(revision: Int, apps: [AppSetup], conflicts: [String], differsFromFile: [String], file: String) {
        self.revision = revision
        self.apps = apps
        self.conflicts = conflicts
        self.differsFromFile = differsFromFile
        self.file = file
    }
}

/// A user's request for more time today.
public struct AppRequestInfo: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case waiting, approved, refused
    }

    public var id: Int
    public var user: String
    public var app: String
    public var minutes: Int
    public var why: String?
    /// `HH:MM` on the daemon's clock.
    public var askedAt: String
    public var state: State
    /// Who answered (a user name, or a paired device's name).
    public var answeredBy: String?

    public init(
        id: Int, user: String, app: String, minutes: Int, why: String?, askedAt: String, state: State,
        answeredBy: String? = nil
    ) {
        self.id = id
        self.user = user
        self.app = app
        self.minutes = minutes
        self.why = why
        self.askedAt = askedAt
        self.state = state
        self.answeredBy = answeredBy
    }
}

/// What one user's notifier hears about an app of theirs.
public struct AppNotice: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Its time runs out in `minutesLeft`.
        case timeLeft
        /// It was refused at start.
        case denied
    }

    public var kind: Kind
    public var user: String
    public var app: String
    public var minutesLeft: Int?
    /// `allowed until 20:00 (5 of 60 min left today)`, `outside its hours (15:00–20:00 today); allowed from 15:00`.
    public var reason: String

    public init(kind: Kind, user: String, app: String, minutesLeft: Int? = nil, reason: String) {
        self.kind = kind
        self.user = user
        self.app = app
        self.minutesLeft = minutesLeft
        self.reason = reason
    }
}

/// The household hub's grants of one day (`YYYY-MM-DD`): each app's minutes in all, for one user
/// (`*`: every user of the app).
public struct HubGrants: Codable, Sendable, Equatable {
    public struct Grant: Codable, Sendable, Equatable {
        public var app: String
        public var user: String
        public var minutes: Int

        public init(app: String, user: String, minutes: Int) {
            self.app = app
            self.user = user
            self.minutes = minutes
        }
    }

    public var day: String
    public var grants: [Grant]

    public init(day: String, grants: [Grant]) {
        self.day = day
        self.grants = grants
    }
}

/// Seconds one user spent in one app on one day, on one machine of the household.
public struct HouseholdUsage: Codable, Sendable, Equatable {
    public var user: String
    public var app: String
    public var seconds: Int

    public init(user: String, app: String, seconds: Int) {
        self.user = user
        self.app = app
        self.seconds = seconds
    }
}
