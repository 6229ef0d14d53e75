/// Where everything lives (docs/guide/files.md, "Where files live"). One root moves them all, for development and tests.
public struct Paths: Sendable, Equatable {
    /// `/` on the device; a folder of the developer's with `--root` or `REVEILLE_ROOT`.
    public let root: String

    public init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// `--root` if given, else `$REVEILLE_ROOT`, else `/`.
    public static func resolve(root: String?, environment: [String: String]) -> Paths {
        Paths(root: root ?? environment["REVEILLE_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/")
    }

    public var isSystem: Bool { root == "/" }

    private func under(_ path: String) -> String { isSystem ? path : root + path }

    public var configDirectory: String { under("/etc/reveille") }
    /// The daemon's settings (optional: embedded defaults without it).
    public var settingsFile: String { configDirectory + "/reveille.toml" }
    /// The app policy (optional: no app is limited without it).
    public var appPolicy: String { configDirectory + "/apps.toml" }
    public var stateDirectory: String { under("/var/lib/reveille") }
    public var runtimeDirectory: String { under("/run/reveille") }
    public var logDirectory: String { under("/var/log/reveille") }
    public var database: String { stateDirectory + "/state.sqlite" }
    /// Calendars fetched from the web by `reveille calendar refresh` (an unprivileged user's; the
    /// daemon only reads them): `ID.ics`, the last good body, and `ID.json`, how fetching went.
    public var calendarCache: String { under("/var/cache/reveille-calendars") }
    public var socket: String { runtimeDirectory + "/control.sock" }
    /// Written by the daemon to ask the fetcher to fetch now (`calendar refresh --background`):
    /// `reveille-calendar.path` starts the fetch when it changes. It holds the instant asked.
    public var fetchRequest: String { runtimeDirectory + "/calendar-fetch-wanted" }
    /// `reveille-mqtt`'s own state: whether it is connected to the broker, and when it last was
    /// (`BridgeHealth`), for `reveille doctor`.
    public var bridgeHealth: String { bridgeState + "/health.json" }
    /// `reveille-mqtt`'s state folder (the unit's StateDirectory): its health, and in a household
    /// its key (`household.key`) and what it has taken from the hub.
    public var bridgeState: String { under("/var/lib/reveille-mqtt") }
    /// Open to every local user, for their own apps only (docs/guide/apps.md, "A child's side").
    public var appsSocket: String { runtimeDirectory + "/apps.sock" }
    /// Where the installed applications' `.desktop` files are, for the app picker: the system's,
    /// the local ones, and those Flatpak and snapd export.
    public var applicationFolders: [String] {
        [
            "/usr/share/applications", "/usr/local/share/applications", "/var/lib/flatpak/exports/share/applications",
            "/var/lib/snapd/desktop/applications",
        ].map(under)
    }
    /// Where sound files for alarms are looked for, for `sound list` (the page's choice of sound):
    /// the household's own, and the system's (Debian's sound themes).
    public var soundFolders: [String] { ["/usr/local/share/sounds", "/usr/share/sounds"].map(under) }
    /// A path of the system's, under the root.
    public func system(_ path: String) -> String { under(path) }
}

/// This build's version, shown by `status` and `--version`.
public let reveilleVersion = "0.1.0"
