import ArgumentParser
import CReveilleShims
import FoundationEssentials
import Glibc
import ReveilleSystem
import ReveilleCalendar
import ReveilleConfig
import ReveilleCore
import ReveilleFetch
import ReveilleProtocol

/// `reveille-calendar`: the only program of Reveille that links libcurl and libical. `reveille
/// calendar refresh` runs its `refresh` (as the reveille-fetch user, from the reveille-calendar
/// timer); reveilled runs its `expand` to read a calendar without parsing it itself.
@main
struct CalendarTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille-calendar",
        abstract: "Fetch web calendars (refresh), and read calendars for reveilled (expand).",
        discussion: "Use it through 'reveille calendar refresh'; reveilled runs 'expand' itself.",
        version: reveilleVersion,
        subcommands: [Refresh.self, Expand.self])

    struct Refresh: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh", abstract: "Fetch the web calendars into the cache the daemon reads.")

        @Argument(help: ArgumentHelp("Only this calendar (name or id).", valueName: "calendar"))
        var calendar: String?

        @Flag(name: .long, help: "Try now, even while waiting after failures.")
        var force = false

        @Option(name: .long, help: ArgumentHelp("Give up on a server after this long.", valueName: "seconds"))
        var timeout = 30

        @Option(name: .long, help: ArgumentHelp("Refuse a calendar larger than this.", valueName: "MiB"))
        var maxSize = 4

        @Option(
            name: .long,
            help: ArgumentHelp(
                "CPU time one calendar's parse may take (in a process of its own) before it is refused.",
                valueName: "seconds"))
        var cpuSeconds = 20

        @Option(
            name: .long,
            help: ArgumentHelp("The daemon's root folder (default: $REVEILLE_ROOT, else /).", valueName: "dir"))
        var root: String?

        func validate() throws {
            guard (1...600).contains(timeout) else {
                throw ValidationError("--timeout \(timeout): must be 1-600 seconds")
            }
            guard (1...64).contains(maxSize) else { throw ValidationError("--max-size \(maxSize): must be 1-64 MiB") }
            guard (1...600).contains(cpuSeconds) else {
                throw ValidationError("--cpu-seconds \(cpuSeconds): must be 1-600")
            }
        }

        func run() throws {
            // Bounded itself too (each calendar's parse has its own, tighter bounds): no capability,
            // 1 GiB of address space, 10 minutes of CPU for the whole refresh.
            let confined = RV_confine_helper(1 << 30, 600)
            if confined != 0 {
                CalendarTool.complain(
                    "cannot bound the refresh (\(String(cString: strerror(-confined)))); not fetching")
                throw ExitCode(1)
            }
            let paths = Paths.resolve(root: root, environment: ProcessInfo.processInfo.environment)
            let calendars: [CalendarInfo]
            let zoneName: String?
            do {
                let client = try ControlClient(path: paths.socket)
                let response = try client.send(.calendarList)
                if let error = response.error { throw CalendarToolError(error.message) }
                calendars = response.calendars ?? []
                zoneName = try? client.send(.status).status?.timeZone
            } catch {
                CalendarTool.complain("\(error)")
                throw ExitCode(1)
            }
            let web = calendars.filter { $0.source.hasPrefix("http://") || $0.source.hasPrefix("https://") }
                .filter { calendar == nil || $0.name == calendar || "\($0.id)" == calendar }
            guard !web.isEmpty else {
                if let calendar, !calendars.contains(where: { $0.name == calendar || "\($0.id)" == calendar }) {
                    CalendarTool.complain("no calendar \(calendar); 'reveille calendar list' shows them")
                    throw ExitCode(64)
                }
                return print(
                    calendar == nil ? "no web calendars to fetch" : "calendar \(calendar!) is a file: nothing to fetch")
            }
            let folder = paths.calendarCache
            guard FileManager.default.isWritableFile(atPath: folder) else {
                CalendarTool.complain(
                    "cannot write \(folder): run as the reveille-fetch user (sudo systemctl start reveille-calendar)")
                throw ExitCode(1)
            }
            let refresh = CalendarRefresh(
                folder: folder, limits: HTTPFetch.Limits(timeoutSeconds: timeout, maxBytes: maxSize << 20),
                force: force, requested: FetchState.requested(at: paths.fetchRequest),
                zone: zoneName.flatMap { ZoneInfo.load($0) } ?? .utc,
                validate: CalendarCheck(cpuSeconds: cpuSeconds).validate)
            var failed = false
            for calendar in web {
                let outcome = refresh.refresh(
                    CalendarRefresh.Source(id: calendar.id, name: calendar.name, url: calendar.source))
                print(outcome.line)
                failed = failed || outcome.failed
            }
            if failed { throw ExitCode(1) }
        }
    }

    /// The daemon's calendar reader: it runs this rather than parse untrusted iCalendar text itself.
    struct Expand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "expand", abstract: "Read a calendar file for reveilled (prints JSON).")

        @Argument var file: String
        @Option(name: .long) var from: String
        @Option(name: .long) var through: String
        @Option(name: .long) var zone: String
        @Option(name: .long, help: ArgumentHelp("CPU time allowed (default 20).", valueName: "seconds"))
        var cpuSeconds = 20

        func run() throws {
            // No capability (the daemon's ambient CAP_SYS_ADMIN is not passed on), 512 MiB, 20 s of CPU.
            let confined = RV_confine_helper(512 << 20, UInt(max(1, min(cpuSeconds, 600))))
            var reply = CalendarExpansion(capabilities: String(RV_effective_capabilities(), radix: 16))
            if confined != 0 {
                reply.error = CalendarError(
                    "the calendar reader could not drop its rights (\(String(cString: strerror(-confined))))")
            } else {
                do {
                    let first = try CivilDate.parse(from)
                    let last = try CivilDate.parse(through)
                    let text = try String(contentsOfFile: file, encoding: .utf8)
                    // Only the offsets of the span asked for (and a week either side): the whole
                    // 1970-2100 table would cost tens of milliseconds on every read.
                    let span = (first.dayNumber - 7) * 86_400..<(last.dayNumber + 8) * 86_400
                    let rules = ZoneInfo.load(zone, span: span) ?? .utc
                    reply.occurrences = try ICalendar.occurrences(in: text, from: first, through: last, zone: rules)
                } catch let error as CalendarError {
                    reply.error = error
                } catch let error as InputError {
                    reply.error = CalendarError(error.message)
                } catch {
                    reply.error = CalendarError("cannot read it: \(CalendarTool.reason(error))")
                }
            }
            Stdio.out(try JSONEncoder().encode(reply))
        }
    }

    static func complain(_ message: String) {
        Stdio.err(Data("reveille: \(message)\n".utf8))
    }

    static func reason(_ error: any Error) -> String { FileProblem.reason(error) }
}

struct CalendarToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
