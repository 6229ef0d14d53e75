import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ReveilleConfig
import ReveilleProtocol

/// `reveilled`: the daemon's command line. Its `main()` is the program `reveilled` (and
/// `reveille` started under that name).
public struct Reveilled: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reveilled",
        abstract: "The Reveille alarm clock daemon.",
        discussion: """
            Serves the control socket that the 'reveille' command talks to and keeps the state \
            (alarms, rules, overrides) in SQLite. Stop it with SIGTERM or Ctrl-C.

            Settings come from /etc/reveille/reveille.toml when it exists (time zone, groups, grace \
            periods, audio devices and sound, the NFC reader, app warnings); a flag given here wins \
            over the file. The app policy is /etc/reveille/apps.toml, reloaded when it changes.

            With --root DIR (or REVEILLE_ROOT) every path lives under DIR, so it runs without root \
            for development: DIR/var/lib/reveille/state.sqlite, DIR/run/reveille/control.sock, \
            DIR/var/log/reveille/reveilled.log.
            """,
        version: reveilleVersion)

    @Option(
        name: .long,
        help: ArgumentHelp("Put every path under this folder (default: $REVEILLE_ROOT, else /).", valueName: "dir"))
    var root: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "IANA time zone for alarm times, like Europe/Berlin (default: time_zone in reveille.toml, else the system's).",
            valueName: "zone"))
    var timeZone: String?

    @Option(name: .long, help: "Group whose members may manage alarms, rules and overrides (default: reveille-admin).")
    var adminGroup: String?

    @Option(
        name: .long,
        help: "Group whose members may read status and snooze; it also owns the socket file (default: reveille).")
    var socketGroup: String?

    @Option(
        name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An alarm found due late (daemon down, clock jump) still rings if at most this old; older ones are recorded as missed (default 15).",
            valueName: "minutes"))
    var missedGraceMinutes: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Stop an unanswered alarm after this long, recorded as unattended (0: never; default 30).",
            valueName: "minutes"))
    var maxRingMinutes: Int?

    @Option(name: .long, help: .hidden)  // tests only: see OffsetFileClock
    var clockOffsetFile: String?

    public init() {}

    /// Parses the command line and runs the daemon until it stops.
    public static func start() { main() }

    public func validate() throws {
        if let timeZone, !ZoneInfo.isKnown(timeZone) {
            throw ValidationError(
                "time zone \"\(timeZone)\" is not a time zone (none such in \(ZoneInfo.directory)); try Europe/Berlin or America/New_York"
            )
        }
        if let missedGraceMinutes, !(0...1440).contains(missedGraceMinutes) {
            throw ValidationError("--missed-grace-minutes \(missedGraceMinutes): must be 0-1440")
        }
        if let maxRingMinutes, !(0...1440).contains(maxRingMinutes) {
            throw ValidationError("--max-ring-minutes \(maxRingMinutes): must be 0-1440 (0: never stop)")
        }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "log level \"\(logLevel)\": use trace, debug, info, notice, warning, error or critical")
        }
    }

    public func run() throws {
        Daemon.blockSignals()
        let paths = Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let logFile: String? = paths.isSystem ? nil : paths.logDirectory + "/reveilled.log"
        if logFile != nil {
            try? FileManager.default.createDirectory(atPath: paths.logDirectory, withIntermediateDirectories: true)
        }
        LoggingSystem.bootstrap { label in
            var handlers: [any LogHandler] = [FileLogHandler.standardError(label: label)]
            if let logFile, let file = try? FileLogHandler(label: label, path: logFile) { handlers.append(file) }
            // What a peer of the control sockets makes the daemon log is budgeted (PeerLogBudget).
            var handler = PeerBudgetLogHandler(MultiplexLogHandler(handlers))
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "reveilled")
        var settings: Settings
        do {
            settings = try Settings.load(path: paths.settingsFile)
        } catch {
            logger.critical("cannot start: \(error); fix the file, or move it away to run with the defaults")
            throw ExitCode(1)
        }
        var flags = SettingsFlags()
        flags.timeZone = timeZone
        flags.adminGroup = adminGroup
        flags.socketGroup = socketGroup
        flags.missedGraceMinutes = missedGraceMinutes
        flags.maxRingMinutes = maxRingMinutes
        flags.apply(to: &settings)
        let ending: Daemon.Ending
        do {
            var options = DaemonOptions(
                paths: paths, settings: settings,
                clock: clockOffsetFile.map { OffsetFileClock(path: $0) } ?? SystemClock())
            options.flags = flags
            ending = try Daemon.run(options, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        switch ending {
        case .stopped: break
        case .reload:
            Daemon.reloadInPlace(logger: logger)
            throw ExitCode(1)
        case .failed: throw ExitCode(1)
        }
    }
}
