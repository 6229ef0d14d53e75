import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleConfig
import ReveilleCore
import ReveilleProtocol

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "App time windows and daily limits: set them up, follow them, ask for more.",
        subcommands: [
            Status.self, List.self, Installed.self, Add.self, Edit.self, Remove.self, Export.self, Check.self,
            Grant.self, Ask.self, Requests.self, Approve.self, Refuse.self, Validate.self,
        ])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract:
                "Your apps (or one user's, or everyone's): allowed now or why not, used and left today, the setup.",
            discussion: """
                Anyone may see their own apps, with no group membership: the daemon answers them on \
                the apps socket, about their own apps only. --user and --all need the socket group.
                """)

        @Option(name: .long, help: ArgumentHelp("For this user (default: you).", valueName: "user"))
        var user: String?

        @Flag(name: .long, help: "For every user the limits fall on (the policy's users, or the people here).")
        var all = false

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if all && user != nil { throw ValidationError("give --all or --user, not both") }
        }

        func run() throws {
            let reply = try send(all ? .appsOverview : .appsStatus(user: user), to: connection).appsReply
            let apps = reply?.apps ?? []
            if output.json { return printJSON(apps) }
            if let rejected = reply?.rejected {
                print("APPS.TOML REJECTED: \(rejected)")
                fflush(nil)  // before the table, which writes to the descriptor itself
            }
            guard !apps.isEmpty else {
                return print(user == nil && !all ? "no app is limited for you" : "no apps in the policy (apps.toml)")
            }
            var table =
                all
                ? Table("APP", "USER", "NOW", "USED", "LEFT", "WHY", "SETUP")
                : Table("APP", "NOW", "USED", "LEFT", "WHY", "SETUP")
            for app in apps {
                let columns = [
                    app.name, app.allowed ? "allowed" : "blocked", "\(app.usedMinutes) min",
                    app.limitMinutes.map { "\(max(0, $0 - app.usedMinutes)) of \($0) min" } ?? "-", app.reason,
                    app.summary ?? "",
                ]
                table.add(cells: all ? [columns[0], app.user] + columns.dropFirst() : columns)
            }
            table.print()
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "Exit 0 if the app may start now, 1 if not (the reason on stderr).")

        @Argument(help: ArgumentHelp("The app's name in the policy.", valueName: "name"))
        var name: String

        @Option(name: .long, help: ArgumentHelp("For this user (default: you).", valueName: "user"))
        var user: String?

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            guard let app = try send(.appCheck(name: name, user: user), to: connection).apps?.first else { return }
            if !app.allowed {
                printError("\(app.name): \(app.reason)")
                throw ExitCode(1)
            }
            print("\(app.name): \(app.reason)")
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant", abstract: "Give an app more minutes, today only (admin).")

        @Argument(help: ArgumentHelp("The app's name in the policy.", valueName: "name"))
        var name: String

        @Option(name: .long, help: ArgumentHelp("Extra minutes, 1-720.", valueName: "minutes"))
        var minutes: Int

        @Option(
            name: .long, help: ArgumentHelp("Only for this user (default: every user of the app).", valueName: "user"))
        var user: String?

        @Flag(name: .long, help: "Also open the app from now for these minutes, outside its hours.")
        var openNow = false

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(
                try send(
                    .appGrant(name: name, minutes: minutes, user: user, openNow: openNow ? true : nil), to: connection))
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate", abstract: "Check a policy file without the daemon; errors name their line.",
            discussion: """
                The daemon's checks: the file's syntax and values, and, for the device's own file \
                (/etc/reveille/apps.toml) or when run as root, that it belongs to root and only root \
                may write it (the daemon refuses it otherwise). Warns (and still exits 0) when an \
                app's users names root, a system account or an unknown name: with no users, limits \
                fall only on the people who log in (UID_MIN to UID_MAX of /etc/login.defs).
                """)

        @Argument(
            help: ArgumentHelp(
                "The file (default: the daemon's, /etc/reveille/apps.toml under --root).", valueName: "file"))
        var file: String?

        @OptionGroup var connection: ConnectionOptions

        /// Whether `file` is the device's own policy (through any link), which the daemon
        /// requires to be root's.
        static func isInstalledPolicy(_ file: String) -> Bool {
            guard let real = realpath(file, nil) else { return false }
            defer { free(real) }
            return String(cString: real) == Paths(root: "/").appPolicy
        }

        func run() throws {
            let file = self.file ?? connection.paths.appPolicy
            guard FileManager.default.fileExists(atPath: file) else {
                printError("\(file): no such file")
                throw ExitCode(self.file == nil ? 1 : 64)
            }
            var problems: [ConfigError] = []
            var policy = AppPolicy()
            do {
                if Validate.isInstalledPolicy(file) || geteuid() == 0 { try AppPolicyFile.checkOwnership(path: file) }
            } catch {
                problems.append(error)
            }
            do {
                let document = try TOMLDocument(path: file, text: try AppPolicyFile.text(path: file))
                let checked = AppPolicyFile.check(document)
                policy = checked.policy
                problems += checked.problems
            } catch {
                problems.append(error)  // unreadable, or a syntax error: nothing more can be checked
            }
            guard problems.isEmpty else {
                for problem in problems { printError(problem.description) }
                if problems.count > 1 {
                    printError("\(counted(problems.count, "problem")); the daemon refuses the file until all are fixed")
                }
                throw ExitCode(1)
            }
            print(
                "\(file): ok, \(counted(policy.apps.count, "app")) (\(Self.names(policy.apps.map(\.name))))"
            )
            for warning in LoginAccounts.warnings(for: policy) { printError("warning: \(warning)") }
        }

        /// The apps' names in a line: the first ten, and how many more.
        static func names(_ names: [String]) -> String {
            let shown = names.prefix(10).joined(separator: ", ")
            return names.count > 10 ? shown + " and \(names.count - 10) more" : shown
        }
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start an app of the policy if it may run now (asks the daemon first).",
        discussion: """
            Asks the daemon, then runs the app's executable with ARGS in this process, so that the daemon \
            counts its time and can end it. Exits 126 with the reason when it is not allowed.
            """)

    @Argument(help: ArgumentHelp("The app's name in the policy.", valueName: "name"))
    var name: String

    @Argument(parsing: .postTerminator, help: ArgumentHelp("Arguments for the app, after --.", valueName: "args"))
    var arguments: [String] = []

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let response: Response
        do {
            response = try ControlClient(path: connection.paths.socket).send(.appStart(name: name))
        } catch {
            printError(error.description)
            throw ExitCode(126)
        }
        if let error = response.error {
            printError(error.message)
            throw ExitCode(126)
        }
        guard let executable = response.executable else { throw ExitCode(126) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        execv(executable, argv)
        printError("cannot start \(executable): \(String(cString: strerror(errno)))")
        throw ExitCode(126)
    }
}
