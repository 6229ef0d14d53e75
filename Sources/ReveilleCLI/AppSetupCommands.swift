import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleApps
import ReveilleCore
import ReveilleProtocol

// `reveille apps list|add|edit|rm|export` (docs/guide/apps.md, "Setting up apps") and the child's side,
// `apps ask|requests`, with the admin's `apps approve|refuse` (docs/guide/apps.md, "A child's side").

/// What `apps add` and `apps edit` may set. Hours and limits come in three levels: every day,
/// weekdays and weekends, or day by day (`--day`).
struct SetupOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("An executable of the app (repeat for more).", valueName: "path"))
    var path: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An installed application, by its .desktop file's name (see 'apps installed'): its program is the path.",
            valueName: "id"))
    var installed: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "learning (needs limits, no defaults), reward (stricter defaults offered) or none.", valueName: "category"))
    var category: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Allowed hours every day, like 15:00-20:00 (repeat for more).", valueName: "window"))
    var hours: [String] = []

    @Option(name: .long, help: ArgumentHelp("Allowed hours Monday to Friday.", valueName: "window"))
    var weekdayHours: [String] = []

    @Option(name: .long, help: ArgumentHelp("Allowed hours on Saturday and Sunday.", valueName: "window"))
    var weekendHours: [String] = []

    @Flag(name: .long, help: "Allowed at any hour (the default for a new app).")
    var allDay = false

    @Option(name: .long, help: ArgumentHelp("Daily minutes every day, 0-480 in steps of 5.", valueName: "minutes"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp("Daily minutes Monday to Friday.", valueName: "minutes"))
    var weekdays: Int?

    @Option(name: .long, help: ArgumentHelp("Daily minutes on Saturday and Sunday.", valueName: "minutes"))
    var weekends: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Daily minutes on school days: weekdays the alarms' holiday calendars leave alone.", valueName: "minutes"))
    var schoolDays: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Daily minutes on days off: weekends and the holiday calendars' days (over the weekdays').",
            valueName: "minutes"))
    var daysOff: Int?

    @Option(
        name: .long, help: ArgumentHelp("Daily minutes of one day, like sat=120 (repeat).", valueName: "day=minutes"))
    var day: [String] = []

    @Flag(name: .long, help: "No daily limit.")
    var noLimit = false

    @Option(
        name: .long, help: ArgumentHelp("Limit only this user (repeat); default: the people here.", valueName: "user"))
    var user: [String] = []

    @Flag(name: .long, inversion: .prefixedNo, help: "Whether the app is limited at all (--no-enabled: not).")
    var enabled: Bool?

    var setsHours: Bool { !hours.isEmpty || !weekdayHours.isEmpty || !weekendHours.isEmpty || allDay }
    var setsLimits: Bool {
        limit != nil || weekdays != nil || weekends != nil || schoolDays != nil || daysOff != nil || !day.isEmpty
            || noLimit
    }

    func validate() throws {
        if allDay && (!hours.isEmpty || !weekdayHours.isEmpty || !weekendHours.isEmpty) {
            throw ValidationError("give --all-day or hours, not both")
        }
        if noLimit && (limit != nil || weekdays != nil || weekends != nil || schoolDays != nil || daysOff != nil || !day.isEmpty) {
            throw ValidationError("give --no-limit or limits, not both")
        }
        for minutes in [limit, weekdays, weekends, schoolDays, daysOff].compactMap({ $0 }) {
            if let problem = AppRule.limitProblem(minutes) { throw ValidationError("limit \(problem)") }
        }
        if let category, category != "none", AppCategory(rawValue: category) == nil {
            throw ValidationError("--category \(category): use learning, reward or none")
        }
    }

    /// `setup` with what was given applied.
    func apply(to setup: inout AppSetup) throws {
        if !path.isEmpty { setup.paths = path }
        if let category { setup.category = AppCategory(rawValue: category) }
        if !user.isEmpty { setup.users = user }
        if let enabled { setup.enabled = enabled }
        let weekdayNames = Weekday.allCases.filter { !$0.isWeekend }.map(\.shortName)
        let weekendNames = Weekday.allCases.filter(\.isWeekend).map(\.shortName)
        if allDay {
            setup.windows = nil
        } else if setsHours {
            var windows =
                setup.windows
                ?? Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0.shortName, ["00:00-24:00"]) })
            if !hours.isEmpty { for name in weekdayNames + weekendNames { windows[name] = hours } }
            if !weekdayHours.isEmpty { for name in weekdayNames { windows[name] = weekdayHours } }
            if !weekendHours.isEmpty { for name in weekendNames { windows[name] = weekendHours } }
            setup.windows = windows
        }
        if noLimit { setup.limits = [:] }
        if let limit { for name in weekdayNames + weekendNames { setup.limits[name] = limit } }
        if let weekdays { for name in weekdayNames { setup.limits[name] = weekdays } }
        if let weekends { for name in weekendNames { setup.limits[name] = weekends } }
        if let schoolDays { setup.limits["school_days"] = schoolDays }
        if let daysOff { setup.limits["days_off"] = daysOff }
        for entry in day {
            let parts = entry.split(separator: "=")
            guard parts.count == 2, let minutes = Int(parts[1]),
                let name = Weekday.allCases.first(where: { $0.shortName == parts[0].lowercased() })?.shortName
            else { throw ValidationError("--day \(entry): write it as DAY=MINUTES, like sat=120") }
            setup.limits[name] = minutes
        }
    }
}

extension AppsCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The apps of the policy in force and how each is set up.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            guard let info = try send(.appList, to: connection).appsReply?.policy else { return }
            if output.json { return printJSON(info) }
            AppsCommand.printPolicy(info)
        }
    }

    static func printPolicy(_ info: AppPolicyInfo) {
        if let hub = info.hub {
            let since = info.hubSince.map { " since \($0)" } ?? ""
            print("the household's policy, from its hub \(hub)\(since): change it there; \(info.file) is not used here")
        }
        for conflict in info.conflicts { print("NOT APPLIED: \(conflict)") }
        guard !info.apps.isEmpty else {
            return print("no apps in the policy; add one with 'reveille apps add NAME --path /usr/games/NAME'")
        }
        var table = Table("APP", "CATEGORY", "SETUP", "USERS", "PATHS")
        for app in info.apps {
            table.add(
                cells: [
                    app.name, app.category?.rawValue ?? "-", app.summary ?? "",
                    app.users.isEmpty ? "the people here" : app.users.joined(separator: ","),
                    app.paths.joined(separator: " "),
                ])
        }
        fflush(nil)
        table.print()
        if !info.differsFromFile.isEmpty {
            print(
                "changed here since \(info.file) was last edited: \(info.differsFromFile.joined(separator: ", ")) ('reveille apps export' prints the policy in force)"
            )
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add an app to the policy (admin).",
            discussion: """
                A reward app with no hours or limits given gets the stricter defaults (15:00-20:00, \
                1 h on weekdays, 2 h at weekends). A learning app needs its limits. An app added \
                without hours or limits is not configured, and blocked until it is.
                """)

        @Argument(help: ArgumentHelp("Its name: 1-32 letters, digits, '-', '_' or '.'.", valueName: "name"))
        var name: String

        @OptionGroup var setup: SetupOptions
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if setup.path.isEmpty && setup.installed == nil {
                throw ValidationError(
                    "give the app's executable with --path, like --path /usr/games/\(name), or pick an installed one with --installed (see 'reveille apps installed')"
                )
            }
        }

        func run() throws {
            var app = AppSetup(name: name, paths: [])
            try setup.apply(to: &app)
            if let id = setup.installed {
                app.paths = try Installed.program(of: id, connection: connection) + setup.path
            }
            if app.category == .reward, !setup.setsHours, !setup.setsLimits,
                let suggested = AppRule.suggested(for: .reward)
            {
                var rule = AppRule(name: name, paths: app.paths)
                rule.windows = suggested.windows
                rule.limits = suggested.limits
                app.windows = AppSetup(rule).windows
                app.limits = AppSetup(rule).limits
            }
            let response = try send(.appPut(setup: app, adding: true, revision: nil), to: connection)
            report(response)
            if response.appsReply?.policy?.apps.first(where: { $0.name == name })?.configured == false {
                printError(
                    "warning: \(name) is not configured, so it is blocked; set it up with 'reveille apps edit \(name) --limit 60' or --all-day"
                )
            }
        }
    }

    /// The app picker, on a terminal.
    struct Installed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "installed",
            abstract: "The applications installed here, and the program each one starts (admin).",
            discussion: """
                Read from the machine's .desktop files (/usr/share/applications, /usr/local/share/\
                applications, Flatpak's and snapd's). PROGRAM is what the guard sees start, for \
                'apps add NAME --installed ID'; LIMITED names the app of the policy that already \
                lists it. A snap, or a Flatpak app installed for one user, has no program to pick: \
                the note says what to type with --path instead.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let installed = try send(.appCatalog, to: connection).appsReply?.installed ?? []
            if output.json { return printJSON(installed) }
            guard !installed.isEmpty else { return print("no installed applications found (no .desktop files)") }
            var table = Table("ID", "NAME", "PROGRAM", "LIMITED")
            for app in installed {
                table.add(app.id, app.name, app.program ?? "-", app.limitedAs ?? "-")
            }
            table.print()
            for app in installed {
                guard let note = app.note else { continue }
                print("\(app.id): \(note)")
            }
        }

        /// The program of installed application `id`, or a clear error.
        static func program(of id: String, connection: ConnectionOptions) throws -> [String] {
            let installed = try send(.appCatalog, to: connection).appsReply?.installed ?? []
            let wanted = id.hasSuffix(".desktop") ? id : id + ".desktop"
            guard let app = installed.first(where: { $0.id == wanted }) else {
                printError("no installed application \(wanted); 'reveille apps installed' lists them")
                throw ExitCode(64)
            }
            guard let program = app.program else {
                printError("\(app.name) (\(app.id)) cannot be limited on its own: \(app.note ?? "no program"))")
                throw ExitCode(1)
            }
            return [program]
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change an app's setup; what is not given stays (admin).")

        @Argument(help: ArgumentHelp("The app's name.", valueName: "name"))
        var name: String

        @OptionGroup var setup: SetupOptions
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            guard let info = try send(.appList, to: connection).appsReply?.policy else { return }
            guard var app = info.apps.first(where: { $0.name == name }) else {
                printError(
                    "no app \"\(name)\" in the policy"
                        + (info.apps.isEmpty
                            ? " (it lists none)" : "; it lists \(info.apps.map(\.name).joined(separator: ", "))"))
                throw ExitCode(1)
            }
            try setup.apply(to: &app)
            if let id = setup.installed {
                app.paths = try Installed.program(of: id, connection: connection) + setup.path
            }
            report(try send(.appPut(setup: app, adding: false, revision: info.revision), to: connection))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove an app from the policy (admin).")

        @Argument(help: ArgumentHelp("The app's name.", valueName: "name"))
        var name: String

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.appRemove(name: name, revision: nil), to: connection))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print the policy in force as apps.toml text.",
            discussion: """
                To bring the file up to date after changes made here or on the page: \
                sudo sh -c 'reveille apps export > /etc/reveille/apps.toml'
                """)

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            print(try send(.appExport, to: connection).appsReply?.text ?? "", terminator: "")
        }
    }

    struct Ask: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ask", abstract: "Ask an admin for more minutes of an app today (anyone, for themselves).")

        @Argument(help: ArgumentHelp("The app's name.", valueName: "name"))
        var name: String

        @Option(name: .long, help: ArgumentHelp("How many more minutes, 5-120 in steps of 5.", valueName: "minutes"))
        var minutes: Int

        @Option(name: .long, help: ArgumentHelp("Why, in a few words.", valueName: "text"))
        var why: String?

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.appAsk(name: name, minutes: minutes, why: why), to: connection))
        }
    }

    struct Requests: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "requests", abstract: "Today's requests for more time (an admin sees everyone's).")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let requests = try send(.appRequests, to: connection).appsReply?.requests ?? []
            if output.json { return printJSON(requests) }
            guard !requests.isEmpty else { return print("no requests today") }
            for request in requests { print("\(request.askedAt) \(AppNoticeText.line(request))") }
        }
    }

    struct Approve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve", abstract: "Approve a request: its minutes, for that user, today (admin).")

        @Argument(help: ArgumentHelp("The request's number (apps requests).", valueName: "id"))
        var id: Int

        @Flag(name: .long, help: "Also open the app from now for the minutes asked, outside its hours.")
        var openNow = false

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            report(try send(.appAnswer(id: id, approve: true, openNow: openNow ? true : nil), to: connection))
        }
    }

    struct Refuse: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "refuse", abstract: "Refuse a request (admin).")

        @Argument(help: ArgumentHelp("The request's number (apps requests).", valueName: "id"))
        var id: Int

        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.appAnswer(id: id, approve: false), to: connection)) }
    }
}
