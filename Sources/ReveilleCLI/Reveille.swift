import ArgumentParser
import Foundation
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
            StatusCommand.self, SnoozeCommand.self, DismissCommand.self, NextCommand.self, AlarmCommand.self,
            RuleCommand.self, OverrideCommand.self, PauseCommand.self, ResumeCommand.self, HistoryCommand.self,
            StatsCommand.self, SoundCommand.self, TagCommand.self, AppsCommand.self, RunCommand.self,
            DoctorCommand.self,
        ])

    /// Accepted before the subcommand too (`reveille --root .reveille status`); each subcommand reads it.
    @OptionGroup var connection: ConnectionOptions

    public init() {}
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
