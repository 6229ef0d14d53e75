import ArgumentParser
import Foundation
import ReveilleProtocol

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Holiday calendars (.ics files) that silence --skip-holidays alarms.",
        discussion: """
            A holiday calendar is an iCalendar (.ics) file on this machine, or on the web (http or \
            https, fetched by 'calendar refresh'): a school's term dates, public holidays. Every day an event covers is a holiday; alarms added with \
            --skip-holidays stay silent on it, and 'next' and 'month' name it. The daemon reads the \
            file again when it changes; a broken file keeps the last good copy in use, and \
            'status', 'calendar list' and 'doctor' say what is wrong.
            """,
        subcommands: [Add.self, List.self, Remove.self, Show.self, Refresh.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a holiday calendar from an iCalendar file or web address.",
            discussion: """
                The file must be readable by everyone (the daemon reads it with its own rights, which may reach further than yours). It \
                is read at once: a file that is not a calendar is refused with its line. A web \
                address is fetched by 'calendar refresh' (the reveille-calendar timer runs it every \
                six hours on the clock).
                """)

        @Argument(help: ArgumentHelp("A short name, like school.", valueName: "name"))
        var name: String

        @Argument(help: ArgumentHelp("The .ics file, or its http(s) address.", valueName: "file|url"))
        var file: String

        @Flag(name: .long, help: "Its days are holidays (the only kind of calendar so far).")
        var holidays = false

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            guard holidays else {
                throw ValidationError(
                    "say what the calendar is for: --holidays (its days silence --skip-holidays alarms)")
            }
        }

        func run() throws {
            let isURL = file.hasPrefix("http://") || file.hasPrefix("https://")
            let path =
                isURL || file.hasPrefix("/")
                ? file : FileManager.default.currentDirectoryPath + "/" + file
            let source = isURL ? path : URL(fileURLWithPath: path).standardizedFileURL.path
            report(try send(.calendarAdd(name: name, source: source), to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The calendars, what they hold and any problem reading them.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let calendars = try send(.calendarList, to: connection).calendars ?? []
            if output.json { return printJSON(calendars) }
            guard !calendars.isEmpty else {
                return print("no calendars; add one with 'reveille calendar add NAME FILE --holidays'")
            }
            var table = Table("ID", "NAME", "FOR", "AHEAD", "NEXT", "FILE")
            for calendar in calendars {
                table.add(
                    "\(calendar.id)", calendar.name, calendar.purpose, "\(calendar.upcomingDays) days",
                    calendar.next ?? "-", calendar.source)
            }
            table.print()
            for calendar in calendars {
                guard let problem = calendar.problem else { continue }
                let meanwhile =
                    calendar.loadedAt.map { "using the copy read \($0)" }
                    ?? "no good copy yet: its holidays are not known"
                print("calendar \(calendar.name): \(problem); \(meanwhile)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a calendar.")

        @Argument(help: ArgumentHelp("The calendar's name or id (see 'calendar list').", valueName: "calendar"))
        var calendar: String

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.calendarRemove(calendar: calendar), to: connection))
        }
    }

    struct Refresh: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh", abstract: "Fetch the web calendars into the cache the daemon reads.",
            discussion: """
                Asks each calendar's server for it with libcurl, conditionally (ETag, \
                If-Modified-Since), and keeps the answer only if it is a calendar; the daemon reads \
                the cache again at once. A failure keeps the last good copy, is shown by 'status', \
                'calendar list' and 'doctor', and waits before the next try (5 minutes, doubling, at \
                most 6 hours). Runs as the unprivileged reveille-fetch user from the \
                reveille-calendar timer; never as the daemon.
                """)

        @Argument(help: ArgumentHelp("Only this calendar (name or id).", valueName: "calendar"))
        var calendar: String?

        @Flag(name: .long, help: "Try now, even while waiting after failures.")
        var force = false

        @Option(
            name: .long, help: ArgumentHelp("Give up on a server after this long (default 30).", valueName: "seconds"))
        var timeout = 30

        @Option(name: .long, help: ArgumentHelp("Refuse a calendar larger than this (default 4).", valueName: "MiB"))
        var maxSize = 4

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            guard (1...600).contains(timeout) else {
                throw ValidationError("--timeout \(timeout): must be 1-600 seconds")
            }
            guard (1...64).contains(maxSize) else { throw ValidationError("--max-size \(maxSize): must be 1-64 MiB") }
        }

        /// `reveille-calendar refresh`, beside this binary: libcurl and libical are linked there, so
        /// that every other command of `reveille` starts without loading them.
        func run() throws {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            let tool = (executable as NSString).deletingLastPathComponent + "/reveille-calendar"
            var arguments = [tool, "refresh", "--timeout", "\(timeout)", "--max-size", "\(maxSize)"]
            if force { arguments.append("--force") }
            if let root = connection.root { arguments += ["--root", root] }
            if let calendar { arguments.append(calendar) }
            let argv = arguments.map { strdup($0) } + [nil]
            execv(tool, argv)
            printError("cannot run \(tool): \(String(cString: strerror(errno))) (installed with reveille?)")
            throw ExitCode(1)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "What a calendar holds from today on.")

        @Argument(help: ArgumentHelp("The calendar's name or id (see 'calendar list').", valueName: "calendar"))
        var calendar: String

        @Option(name: .long, help: ArgumentHelp("How many days ahead, 1-731 (default 90).", valueName: "n"))
        var days = 90

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            guard let info = try send(.calendarShow(calendar: calendar, days: days), to: connection).calendars?.first
            else { return }
            if output.json { return printJSON(info) }
            print("calendar \(info.name) (\(info.purpose)), \(info.source)")
            if let problem = info.problem { print("problem: \(problem)") }
            let entries = info.entries ?? []
            if entries.isEmpty { print("nothing in the next \(days) days") }
            for entry in entries { print("  " + entry) }
        }
    }
}
