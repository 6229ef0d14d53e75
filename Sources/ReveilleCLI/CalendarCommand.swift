import ArgumentParser
import Foundation
import ReveilleProtocol

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Holiday calendars (.ics files) that silence --skip-holidays alarms.",
        discussion: """
            A holiday calendar is an iCalendar (.ics) file on this machine: a school's term dates, \
            public holidays. Every day an event covers is a holiday; alarms added with \
            --skip-holidays stay silent on it, and 'next' and 'month' name it. The daemon reads the \
            file again when it changes; a broken file keeps the last good copy in use, and \
            'status', 'calendar list' and 'doctor' say what is wrong.
            """,
        subcommands: [Add.self, List.self, Remove.self, Show.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a holiday calendar from an iCalendar file.",
            discussion: """
                The file must be readable by everyone (the daemon reads it with its own rights, which may reach further than yours). It \
                is read at once: a file that is not a calendar is refused with its line.
                """)

        @Argument(help: ArgumentHelp("A short name, like school.", valueName: "name"))
        var name: String

        @Argument(help: ArgumentHelp("The .ics file.", valueName: "file"))
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
