import ArgumentParser
import ReveilleCore
import ReveilleProtocol

/// `--off` or `--at TIME`: what a rule or an override does.
struct ChangeOptions: ParsableArguments {
    @Flag(name: .long, help: "Nothing rings.") var off = false
    @Option(name: .long, help: ArgumentHelp("Ring at this time instead.", valueName: "time")) var at: String?
    @Option(name: .long, help: ArgumentHelp("Only this alarm (default: all alarms).", valueName: "id")) var alarm: Int?

    func change() throws -> DayChange {
        guard let change = try changeIfGiven() else { throw ValidationError("give either --off or --at TIME") }
        return change
    }

    /// The change, nil when neither --off nor --at is given (an edit that keeps it).
    func changeIfGiven() throws -> DayChange? {
        switch (off, at) {
        case (false, nil): return nil
        case (true, nil): return .off
        case (false, let text?): return .at(try parsed { try LocalTime.parse(text) })
        default: throw ValidationError("give either --off or --at TIME, not both")
        }
    }
}

/// What `rule edit` and `override edit` change besides the days or date.
struct EditOptions: ParsableArguments {
    @OptionGroup var change: ChangeOptions
    @Flag(name: .long, help: "Apply to every alarm again (instead of --alarm's one).") var allAlarms = false

    func validate() throws {
        _ = try change.changeIfGiven()
        if allAlarms && change.alarm != nil { throw ValidationError("give --alarm ID or --all-alarms, not both") }
    }
}

struct RuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rule", abstract: "Weekly rules: on these weekdays, stay off or ring at another time.",
        subcommands: [Add.self, List.self, Edit.self, Remove.self])

    @OptionGroup var connection: ConnectionOptions

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a weekly rule; what is not given stays as it is.",
            discussion: "Example: reveille rule edit 1 --days sat --at 9:30")

        @Argument(help: "The rule's id (see 'reveille rule list').") var id: Int
        @Option(name: .long, help: ArgumentHelp("New weekdays: mon-fri, sat,sun.", valueName: "days")) var days: String?
        @OptionGroup var edit: EditOptions
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            try checkID(id, of: "rule", list: "reveille rule list")
            if let days { _ = try parsed { try DaySet.parse(days) } }
        }

        func run() throws {
            let command = Command.ruleEdit(
                id: id, days: try days.map { text in try parsed { try DaySet.parse(text) } },
                change: try edit.change.changeIfGiven(), alarmID: edit.change.alarm, allAlarms: edit.allAlarms)
            report(try send(command, to: connection))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a weekly rule.",
            discussion: """
                Examples:
                  reveille rule add --days sat,sun --at 9:00
                  reveille rule add --days fri --off --alarm 2
                One rule per weekday for the same alarm (or for all alarms); a second is refused.
                On a holiday, an alarm with --skip-holidays stays silent whatever its rules say.
                """)

        @Option(name: .long, help: ArgumentHelp("Weekdays: mon-fri, sat,sun, daily.", valueName: "days")) var days:
            String
        @OptionGroup var change: ChangeOptions
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            _ = try change.change()
            _ = try parsed { try DaySet.parse(days) }
        }

        func run() throws {
            let command = Command.ruleAdd(
                alarmID: change.alarm, days: try parsed { try DaySet.parse(days) }, change: try change.change())
            report(try send(command, to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List weekly rules.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let rules = try send(.ruleList, to: connection).rules ?? []
            if output.json { return printJSON(rules) }
            guard !rules.isEmpty else { return print("no weekly rules") }
            var table = Table("ID", "DAYS", "CHANGE", "ALARM")
            for rule in rules {
                table.add("\(rule.id)", rule.days, rule.change.description, rule.alarmID.map { "#\($0)" } ?? "all")
            }
            table.print()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a weekly rule.")

        @Argument(help: "The rule's id.") var id: Int
        @OptionGroup var connection: ConnectionOptions

        func validate() throws { try checkID(id, of: "rule", list: "reveille rule list") }

        func run() throws { report(try send(.ruleRemove(id: id), to: connection)) }
    }
}

struct OverrideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "override", abstract: "One-time date overrides: on this date, stay off or ring at another time.",
        subcommands: [Add.self, List.self, Edit.self, Remove.self])

    @OptionGroup var connection: ConnectionOptions

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a date override; what is not given stays as it is.",
            discussion: "Example: reveille override edit 2 --date 2026-12-26 --off")

        @Argument(help: "The override's id (see 'reveille override list').") var id: Int
        @Option(name: .long, help: ArgumentHelp("A new date: YYYY-MM-DD, today or tomorrow.", valueName: "date"))
        var date: String?
        @OptionGroup var edit: EditOptions
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            try checkID(id, of: "override", list: "reveille override list")
            if let date { try parsed { try CivilDate.check(date) } }
        }

        func run() throws {
            let command = Command.overrideEdit(
                id: id, date: date, change: try edit.change.changeIfGiven(), alarmID: edit.change.alarm,
                allAlarms: edit.allAlarms)
            report(try send(command, to: connection))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a date override.",
            discussion: """
                Examples:
                  reveille override add tomorrow --off
                  reveille override add 2026-12-24 --at 8:30 --alarm 1
                Overrides for past dates are removed automatically. An override for an alarm with
                --skip-holidays on one of its holidays is refused (it would change nothing), and one
                whose day becomes a holiday later is removed, with a line in the log.
                """)

        @Argument(help: ArgumentHelp("YYYY-MM-DD, today or tomorrow.", valueName: "date")) var date: String
        @OptionGroup var change: ChangeOptions
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            _ = try change.change()
            try parsed { try CivilDate.check(date) }
        }

        func run() throws {
            let command = Command.overrideAdd(alarmID: change.alarm, date: date, change: try change.change())
            report(try send(command, to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List date overrides.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let overrides = try send(.overrideList, to: connection).overrides ?? []
            if output.json { return printJSON(overrides) }
            guard !overrides.isEmpty else { return print("no date overrides") }
            var table = Table("ID", "DATE", "CHANGE", "ALARM")
            for override in overrides {
                table.add(
                    "\(override.id)", override.date,
                    override.change.description + (override.silent.map { " (silent: \($0))" } ?? ""),
                    override.alarmID.map { "#\($0)" } ?? "all")
            }
            table.print()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a date override.")

        @Argument(help: "The override's id.") var id: Int
        @OptionGroup var connection: ConnectionOptions

        func validate() throws { try checkID(id, of: "override", list: "reveille override list") }

        func run() throws { report(try send(.overrideRemove(id: id), to: connection)) }
    }
}
