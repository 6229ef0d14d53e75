import ReveilleCore

// Apps, web devices, tags and sound tests.

/// Apps of the policy, and for `run`, the executable to start.
public struct AppsReply: Codable, Sendable, Equatable {
    public var apps: [AppStatusInfo]
    public var executable: String?
    /// apps.toml was refused: why (file:line), since when, and what is enforced meanwhile.
    public var rejected: String?
    /// `apps list`, `apps add|edit|rm` and the page: the policy in force.
    public var policy: AppPolicyInfo?
    /// `apps requests`, `apps ask`, `apps approve|refuse`.
    public var requests: [AppRequestInfo]?
    /// `apps export`: the policy in force as apps.toml text.
    public var text: String?
    /// `apps installed`: the applications of the machine, by name.
    public var installed: [InstalledApp]?
    /// With `installed`: the household's people (the login accounts of the machine, not root or
    /// system accounts), for the page's lists of whom a reminder or a limit is for.
    public var people: [String]?

    public init(apps: [AppStatusInfo], executable: String? = nil) {
        self.apps = apps
        self.executable = executable
    }
}

/// One app of the policy, for one user, now.
public struct AppStatusInfo: Codable, Sendable, Equatable {
    public var name: String
    public var user: String
    public var allowed: Bool
    /// `allowed until 20:00 (35 of 60 min left today)`, `outside its hours; allowed from 15:00`.
    public var reason: String
    public var usedMinutes: Int
    /// Today's limit with any grant; nil: none.
    public var limitMinutes: Int?
    public var grantMinutes: Int
    /// The app's setup in a line: `2h weekdays, 3h weekends · 15:00–20:00`, `⚠️ Not configured`.
    public var summary: String?
    /// Outside its hours now: more minutes would not open it (a screen says so before a grant).
    public var outsideWindow: Bool?
    /// Seconds counted today on this machine, and on the household's others (`usedMinutes` is
    /// both); nil when none.
    public var usedSecondsHere: Int?
    public var usedSecondsElsewhere: Int?

    public init(
        name: String, user: String, allowed: Bool, reason: String, usedMinutes: Int, limitMinutes: Int?,
        grantMinutes: Int, summary: String? = nil
    ) {
        self.summary = summary
        self.name = name
        self.user = user
        self.allowed = allowed
        self.reason = reason
        self.usedMinutes = usedMinutes
        self.limitMinutes = limitMinutes
        self.grantMinutes = grantMinutes
    }
}

/// A browser paired with `reveille web pair`.
public struct WebDevice: Codable, Sendable, Equatable {
    /// The refusal of a request carrying a token no paired device has: `reveille-web` then forgets
    /// the browser's cookie.
    public static let unknown =
        "this browser is not paired, or was unpaired; pair it again with a code from 'sudo reveille web pair'"

    public var id: Int
    public var name: String
    public var role: Role
    /// Seconds since the epoch.
    public var pairedAt: Int
    /// The child it is paired for (`web pair --for`), served as them; nil: the household's.
    public var person: String?

    public init(id: Int, name: String, role: Role, pairedAt: Int, person: String? = nil) {
        self.id = id
        self.name = name
        self.role = role
        self.pairedAt = pairedAt
        self.person = person
    }
}

/// Pairing: the code `web pair` made, the token a redeemed code gives, the paired devices.
public struct WebReply: Codable, Sendable, Equatable {
    /// `web pair`: the one-time code, and until when (seconds since the epoch) it is good.
    public var code: String?
    public var expiresAt: Int?
    /// `web pair`: the port `reveille-web` said it serves on, when it has.
    public var port: Int?
    /// A redeemed code: the device's secret, kept by the browser as a cookie.
    public var token: String?
    public var devices: [WebDevice]

    public init(code: String? = nil, expiresAt: Int? = nil, token: String? = nil, devices: [WebDevice] = []) {
        self.code = code
        self.expiresAt = expiresAt
        self.token = token
        self.devices = devices
    }
}

/// How a `sound test` started.
public struct PlaybackInfo: Codable, Sendable, Equatable {
    /// The device playing; nil when none could be opened.
    public var device: String?
    public var source: String
    public var seconds: Int
    public var problems: [String]

    public init(device: String?, source: String, seconds: Int, problems: [String]) {
        self.device = device
        self.source = source
        self.seconds = seconds
        self.problems = problems
    }
}

/// A tag placed on the reader, and whether it is registered.
public struct TagScan: Codable, Sendable, Equatable {
    public var uid: String
    /// The registered tag's label; nil when it is not registered.
    public var label: String?
    /// Whether its UID is random (a new one at every tap), so it cannot be registered.
    public var random: Bool

    public init(uid: String, label: String?, random: Bool) {
        self.uid = uid
        self.label = label
        self.random = random
    }
}

/// An application installed on the machine, as the app picker shows it (`DesktopEntry`).
public struct InstalledApp: Codable, Sendable, Equatable {
    /// Its `.desktop` file's name: `org.example.Game.desktop`.
    public var id: String
    public var name: String
    public var icon: String?
    public var comment: String?
    /// The program the guard sees start, to list as the app's path; nil when it cannot be limited.
    public var program: String?
    /// Why it cannot be limited on its own, or what to know (a launcher script).
    public var note: String?
    /// The app of the policy that already names this program.
    public var limitedAs: String?

    public init(
        id: String, name: String, icon: String? = nil, comment: String? = nil, program: String? = nil,
        note: String? = nil, limitedAs: String? = nil
    ) {
        self.id = id
        self.name = name
        self.icon = icon
        self.comment = comment
        self.program = program
        self.note = note
        self.limitedAs = limitedAs
    }
}
