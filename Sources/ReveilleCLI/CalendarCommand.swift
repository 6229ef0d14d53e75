import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Holiday and reminder calendars (.ics files): days off, events that chime.",
        discussion: """
            A calendar is an iCalendar (.ics) file on this machine, or on the web (http or https, \
            fetched by 'calendar refresh'). A holiday calendar (--holidays): a school's term dates, \
            public holidays; every day an all-day event covers is a holiday (--only and --except \
            choose which events, --timed counts timed ones too), alarms added with --skip-holidays \
            stay silent on it, and 'next' and 'month' name it. A reminder calendar \
            (--reminders): each timed event chimes some minutes before it (--minutes 60,15), or at \
            its own alarms (VALARM) when it has them; 'next' lists the chimes. The daemon reads the \
            file again when it changes: moved or cancelled events move or drop their chimes. A \
            broken file keeps the last good copy in use, and 'status', 'calendar list' and 'doctor' \
            say what is wrong.
            """,
        subcommands: [Add.self, List.self, Remove.self, Show.self, Refresh.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a holiday or reminder calendar from an iCalendar file or web address.",
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

        @Flag(name: .long, help: "Its days are holidays: --skip-holidays alarms stay silent on them.")
        var holidays = false

        @Flag(name: .long, help: "Its events chime reminders before they start.")
        var reminders = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Only events whose title or category contains one of these words, like 'holiday|break|no school' (any case): the holidays, or the events that chime.",
                valueName: "words"))
        var only: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Never events whose title or category contains one of these, like 'night|meeting'.",
                valueName: "words"))
        var except: String?

        @Flag(name: .long, help: "With --holidays: timed events are holidays too (by default only all-day events are).")
        var timed = false

        @Option(
            name: .customLong("for"),
            help: ArgumentHelp(
                "With --reminders: the person its events are for; their desktop shows each chime.", valueName: "user"))
        var person: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --reminders: minutes before each event, like 60,15 (default 15).", valueName: "list"))
        var minutes: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --reminders: a sound for one offset, like 60=/usr/local/share/sounds/bell.wav (repeatable).",
                valueName: "minutes=file"))
        var sound: [String] = []

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            guard holidays != reminders else {
                throw ValidationError(
                    "say what the calendar is for: --holidays (its days silence --skip-holidays alarms) "
                        + "or --reminders (its events chime before they start)")
            }
            if holidays && (minutes != nil || !sound.isEmpty) {
                throw ValidationError("--minutes and --sound go with --reminders")
            }
            if holidays && person != nil { throw ValidationError("--for goes with --reminders") }
            if reminders && timed {
                throw ValidationError("--timed goes with --holidays (a reminder calendar chimes before every event)")
            }
            do {
                _ = try HolidayFilter(only: only, except: except, timed: timed)
            } catch { throw ValidationError(error.message) }
            _ = try offsets()
            _ = try sounds()
        }

        func offsets() throws -> [Int]? {
            guard let minutes else { return nil }
            let parts = minutes.split(separator: ",").map { $0.trimmed(newlines: false) }
            let values = parts.compactMap { Int($0) }
            guard !parts.isEmpty, values.count == parts.count, values.allSatisfy({ (0...10_080).contains($0) }) else {
                throw ValidationError("--minutes \(minutes): give minutes before each event (0-10080), like 60,15")
            }
            return values
        }

        func sounds() throws -> [String: String]? {
            guard !sound.isEmpty else { return nil }
            var result: [String: String] = [:]
            for item in sound {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let offset = Int(parts[0]), !parts[1].isEmpty else {
                    throw ValidationError(
                        "--sound \(item): give minutes=file, like 60=/usr/local/share/sounds/bell.wav")
                }
                let path =
                    parts[1].hasPrefix("/") ? parts[1] : FileManager.default.currentDirectoryPath + "/" + parts[1]
                result[String(offset)] = path
            }
            return result
        }

        func run() throws {
            let isURL = file.hasPrefix("http://") || file.hasPrefix("https://")
            let path =
                isURL || file.hasPrefix("/")
                ? file : FileManager.default.currentDirectoryPath + "/" + file
            let source = isURL ? path : URL(fileURLWithPath: path).standardizedFileURL.path
            let command: Command =
                reminders
                ? .calendarAdd(
                    name: name, source: source, purpose: "reminders", minutes: try offsets(), sounds: try sounds(),
                    only: only, except: except, person: person)
                : .calendarAdd(name: name, source: source, only: only, except: except, timed: timed ? true : nil)
            report(try send(command, to: connection))
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
                return print(
                    "no calendars; add one with 'reveille calendar add NAME FILE --holidays' (or --reminders)")
            }
            var table = Table("ID", "NAME", "FOR", "AHEAD", "NEXT", "FILE")
            for calendar in calendars {
                table.add(
                    "\(calendar.id)", calendar.name,
                    calendar.purpose.rawValue + (calendar.person.map { " (\($0))" } ?? ""),
                    counted(calendar.upcomingDays, "day"),
                    calendar.next ?? "-", calendar.source)
            }
            table.print()
            for calendar in calendars where calendar.purpose == .holidays {
                guard let filter = calendar.filter else { continue }
                let dropped = calendar.dropped ?? []
                print(
                    "calendar \(calendar.name): holidays are \(filter); \(counted(calendar.kept ?? 0, "event")) ahead kept, \(dropped.count) left out\(dropped.isEmpty ? "" : ":")"
                )
                for line in dropped { print("  \(line)") }
            }
            for calendar in calendars where calendar.source.hasPrefix("http") {
                let fetched = calendar.fetchedAt.map { "fetched \($0)" } ?? "never fetched"
                let next =
                    calendar.fetchAsked.map { "a fetch now was asked for at \($0)" }
                    ?? calendar.nextFetch.map { "next try about \($0)" } ?? "next try at the fetcher's next run"
                print("calendar \(calendar.name): \(fetched); \(next)")
            }
            for calendar in calendars {
                guard let problem = calendar.problem else { continue }
                let meanwhile =
                    calendar.loadedAt.map { "using the copy read \($0)" }
                    ?? calendar.purpose.withoutACopy
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
                reveille-calendar timer; never as the daemon. With --background, asks the clock's \
                fetcher to do it now instead (admin), as the page's "Refresh now" does.
                """)

        @Argument(help: ArgumentHelp("Only this calendar (name or id).", valueName: "calendar"))
        var calendar: String?

        @Flag(name: .long, help: "Try now, even while waiting after failures.")
        var force = false

        @Flag(
            name: .long,
            help:
                "Ask the clock's fetcher (reveille-calendar.path, as reveille-fetch) to fetch every web calendar now, even while waiting after failures, and return."
        )
        var background = false

        @Option(
            name: .long, help: ArgumentHelp("Give up on a server after this long (default 30).", valueName: "seconds"))
        var timeout = 30

        @Option(name: .long, help: ArgumentHelp("Refuse a calendar larger than this (default 4).", valueName: "MiB"))
        var maxSize = 4

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Refuse a calendar whose parse takes more CPU time than this (default 20).", valueName: "seconds"))
        var cpuSeconds = 20

        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            guard (1...600).contains(timeout) else {
                throw ValidationError("--timeout \(timeout): must be 1-600 seconds")
            }
            guard (1...64).contains(maxSize) else { throw ValidationError("--max-size \(maxSize): must be 1-64 MiB") }
            guard (1...600).contains(cpuSeconds) else {
                throw ValidationError("--cpu-seconds \(cpuSeconds): must be 1-600")
            }
            if background, calendar != nil || force {
                throw ValidationError(
                    "--background fetches every web calendar, even those waiting: give no calendar or --force")
            }
        }

        /// `reveille-calendar refresh`, beside this binary: libcurl and libical are linked there, so
        /// that every other command of `reveille` starts without loading them.
        func run() throws {
            if background { return report(try send(.calendarFetchNow, to: connection)) }
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            let tool = PathName.folder(executable) + "/reveille-calendar"
            var arguments = [
                tool, "refresh", "--timeout", "\(timeout)", "--max-size", "\(maxSize)", "--cpu-seconds",
                "\(cpuSeconds)",
            ]
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
            if entries.isEmpty { print("nothing in the next \(counted(days, "day"))") }
            for entry in entries { print("  " + entry) }
        }
    }
}
