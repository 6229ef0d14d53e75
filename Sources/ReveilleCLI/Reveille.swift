import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleProtocol

/// The `reveille` command: a thin client of `reveilled` over its control socket.
public struct Reveille: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reveille",
        abstract: "Manage the Reveille alarm clock.",
        discussion: """
            Talks to reveilled over its control socket. Times are on a 24-hour clock (06:45, 6:45, \
            18:30) in the daemon's time zone; days are like mon-fri, sat,sun, daily, weekdays, weekends; \
            dates are YYYY-MM-DD, today or tomorrow.
            """,
        version: reveilleVersion,
        subcommands: [
            StatusCommand.self, SnoozeCommand.self, AwakeCommand.self, UnlockCommand.self, DismissCommand.self,
            NextCommand.self,
            MonthCommand.self,
            AlarmCommand.self,
            RuleCommand.self, OverrideCommand.self, PauseCommand.self, ResumeCommand.self, SkipCommand.self,
            HistoryCommand.self,
            StatsCommand.self, SoundCommand.self, TagCommand.self, AppsCommand.self, RunCommand.self,
            WebCommand.self, CalendarCommand.self, ReminderCommand.self, DoctorCommand.self,
            WifiCommand.self, ImageSettingsCommand.self, UpgradeWindowCommand.self,
        ])

    /// Accepted before the subcommand too (`reveille --root .reveille status`); each subcommand reads it.
    @OptionGroup var connection: ConnectionOptions

    public init() {}

    /// Runs the command line: negative numbers made readable (`Arguments.normalized`), an unknown
    /// command answered with the nearest one, then swift-argument-parser.
    public static func start(_ typed: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let arguments = Arguments.normalized(typed)
        if let unknown = unknownCommand(in: arguments) {
            let hint = Arguments.suggestion(for: unknown.word, among: unknown.names).map { "; did you mean '\($0)'?" }
            printError(
                "unknown command '\(unknown.word)'\(hint ?? "")\n  See '\(unknown.path) --help' for the commands.")
            Glibc.exit(64)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(speaking: error)
        }
        Glibc.exit(0)
    }

    /// Ends with `error` in the words every other mistake uses: `reveille: why and what to do`
    /// (swift-argument-parser's own start with `Error: `), then its usage lines; help and
    /// `--version` print as they are.
    static func exit(speaking error: any Error) -> Never {
        let code = exitCode(for: error)
        var text = fullMessage(for: error)
        if code != .success, text.hasPrefix("Error: ") { text = String(text.dropFirst("Error: ".count)) }
        if !text.isEmpty {
            if code == .success { print(text) } else { printError(text) }  // printError says `reveille: `
        }
        Glibc.exit(code.rawValue)
    }

    /// The first word that should name a subcommand and does not.
    static func unknownCommand(in arguments: [String]) -> (word: String, names: [String], path: String)? {
        var command: any ParsableCommand.Type = Reveille.self
        var path = "reveille"
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                // An option's value follows it unless joined with = or it is a flag.
                if argument.hasPrefix("--"), !argument.contains("="), Arguments.takesValue(argument) { index += 1 }
                index += 1
                continue
            }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty else { return nil }
            let names = subcommands.map { $0._commandName }
            guard
                let found = subcommands.first(where: {
                    $0._commandName == argument || $0.configuration.aliases.contains(argument)
                })
            else {
                if argument == "help" { return nil }
                return (argument, names, path)
            }
            command = found
            path += " " + argument
            index += 1
        }
        return nil
    }
}

/// Where the daemon is.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The daemon's root folder (default: $REVEILLE_ROOT, else /).", valueName: "dir"))
    var root: String?

    var paths: Paths {
        Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
    }
}

/// `--json` on every command that reads.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the daemon's answer as JSON, for scripts.")
    var json = false
}
