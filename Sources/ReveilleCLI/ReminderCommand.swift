import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol

struct ReminderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminder",
        abstract: "Reminders: a chime with a line of text, at a time, without a calendar.",
        discussion: """
            A reminder plays its sound once (no challenge, no snooze) and is logged; 'status --watch' \
            shows its text. It never interrupts a ringing alarm: it waits until the alarm is snoozed \
            or stopped. Pause and an override that turns all alarms off silence it too. A reminder \
            is never played twice, even across a restart; one found more than 15 minutes late (the \
            clock was off) is recorded as missed. Reminders from calendars: 'calendar add --reminders'. \
            'reveille reminders off' silences every reminder (and calendar chime) until 'reveille \
            reminders on', without touching alarms.
            """,
        subcommands: [Add.self, List.self, Edit.self, Remove.self, Again.self, On.self, Off.self],
        aliases: ["reminders"])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a reminder.",
            discussion: """
                Examples:
                  reveille reminder add check-in --days mon,wed,fri --at 16:00
                  reveille reminder add training --at 17:30 --then 2h "how was it?"
                  reveille reminder add "How did your session go?" --days tue,thu --at 19:00 \\
                    --body "Reflect on your training: one thing that went well."
                  reveille reminder add meet --date 2026-12-05 --at 17:00 --unless "test -e F"
                With neither --days nor --date it chimes every day. The last one is skipped \
                once the file F exists (the form was sent, say).
                """)

        @Argument(help: ArgumentHelp("What it says, like \"check-in\".", valueName: "text"))
        var text: String

        @Option(name: .long, help: ArgumentHelp("When it chimes, like 16:00 (24-hour clock).", valueName: "time"))
        var at: String

        @OptionGroup var fields: ReminderFields
        @OptionGroup var connection: ConnectionOptions

        func validate() throws { _ = try fields.spec(text: text, time: at) }

        func run() throws {
            report(try send(.reminderAdd(spec: fields.spec(text: text, time: at)), to: connection))
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a reminder; what is not given stays as it is.",
            discussion: """
                Example: reveille reminder edit 2 --at 16:30 --days mon-fri
                --then replaces every follow-up; --no-then removes them; --unless "" removes the command.
                """)

        @Argument(help: "The reminder's id (see 'reveille reminder list').") var id: Int
        @Option(name: .long, help: ArgumentHelp("New text.", valueName: "text")) var text: String?
        @Option(name: .long, help: ArgumentHelp("A new time, like 16:30.", valueName: "time")) var at: String?
        @Flag(name: .long, help: "Remove its follow-ups.") var noThen = false
        @OptionGroup var fields: ReminderFields
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            try checkID(id, of: "reminder", list: "reveille reminder list")
            if noThen && !fields.then.isEmpty { throw ValidationError("give --then or --no-then, not both") }
            _ = try spec()
        }

        func spec() throws -> ReminderSpec {
            var spec = try fields.spec(text: text, time: at)
            if noThen { spec.followUps = [] }
            return spec
        }

        func run() throws {
            report(try send(.reminderEdit(id: id, spec: spec()), to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List reminders with their next chime.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let reminders = try send(.reminderList, to: connection).reminders ?? []
            if output.json { return printJSON(reminders) }
            guard !reminders.isEmpty else {
                return print(
                    "no reminders; add one with 'reveille reminder add \"check-in\" --at 16:00 --days mon-fri'")
            }
            var table = Table("ID", "TEXT", "TIME", "REPEAT", "FOR", "ON", "THEN", "UNLESS", "NEXT")
            for reminder in reminders {
                table.add(
                    "\(reminder.id)",
                    reminder.body.map { "\(reminder.text) — \($0.count > 40 ? $0.prefix(39) + "…" : $0)" }
                        ?? reminder.text, reminder.time,
                    (reminder.days ?? "once \(reminder.date ?? "")") + (reminder.withAlarms == true ? ", with the alarms" : ""),
                    reminder.person ?? "-", reminder.enabled ? "yes" : "no",
                    reminder.followUps.isEmpty ? "-" : reminder.followUps.joined(separator: "; "),
                    reminder.unless ?? "-", reminder.next ?? "-")
            }
            table.print()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a reminder.")

        @Argument(help: "The reminder's id (see 'reveille reminder list').") var id: Int
        @OptionGroup var connection: ConnectionOptions

        func validate() throws { try checkID(id, of: "reminder", list: "reveille reminder list") }

        func run() throws { report(try send(.reminderRemove(id: id), to: connection)) }
    }

    struct Again: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The chime that just played, once more in 10 minutes.",
            discussion: """
                Anyone in the socket group may ask, and the person a chime is for (from their own \
                account: the desktop notice's "Again in 10 minutes" does the same). KEY names one \
                of the last chimes ('status --watch --json' shows it); without it, the last.
                """)

        @Argument(help: ArgumentHelp("The chime's key (default: the last chime played).", valueName: "key"))
        var key: String?

        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.chimeAgain(key: key), to: connection)) }
    }

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let reminders chime again (after 'reveille reminders off').")

        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.remindersSwitch(on: true), to: connection)) }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Silence every reminder and calendar chime until 'reveille reminders on'; alarms ring as set.")

        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.remindersSwitch(on: false), to: connection)) }
    }
}

/// The fields `reminder add` and `reminder edit` share.
struct ReminderFields: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Repeat on these days: mon-fri, mon,wed,fri, daily.", valueName: "days"))
    var days: String?
    @Option(
        name: .long, help: ArgumentHelp("Chime once, on this date (YYYY-MM-DD, today, tomorrow).", valueName: "date"))
    var date: String?
    @Option(
        name: .long,
        help: ArgumentHelp("A WAV, FLAC, Ogg or MP3 file; \"\" for the built-in chime.", valueName: "file"))
    var sound: String?
    @Option(
        name: .long, parsing: .upToNextOption,
        help: ArgumentHelp(
            "A follow-up: how long after, then its text, like --then 2h \"how did it go?\" (repeatable).",
            valueName: "after text"))
    var then: [String] = []
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A shell command run when it is due; if it exits 0 the chime is skipped (30 s limit, logged).",
            valueName: "command"))
    var unless: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A second line under the title, shown and spoken after it; \"\" removes it.", valueName: "text"))
    var body: String?
    @Flag(inversion: .prefixedNo, help: "Turn it on or off.") var enabled: Bool?
    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            "The person it is for, a user here: their desktop shows it too, and the chime hook names them (\"\" for the household).",
            valueName: "user"))
    var person: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Silent on a day an override turns every alarm off (by default a reminder chimes on such a day).")
    var withAlarms: Bool?

    func spec(text: String?, time: String?) throws -> ReminderSpec {
        try parsed {
            var spec = ReminderSpec()
            spec.text = text
            spec.time = try time.map { text throws(InputError) in try LocalTime.parse(text) }
            spec.days = try days.map { text throws(InputError) in try DaySet.parse(text) }
            spec.date = date
            if let date { try CivilDate.check(date) }
            spec.sound = sound.map {
                $0.isEmpty || $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0
            }
            if !then.isEmpty {
                guard then.count % 2 == 0 else {
                    throw InputError(
                        "--then takes two values, how long after and the text, like --then 2h \"how did it go?\"")
                }
                var followUps: [FollowUp] = []
                for index in stride(from: 0, to: then.count, by: 2) {
                    let after = try DurationText.parse(then[index], range: 60...Reminder.maxFollowUpSeconds)
                    followUps.append(FollowUp(afterSeconds: after, text: then[index + 1]))
                }
                spec.followUps = followUps
            }
            spec.unless = unless
            spec.body = body
            spec.enabled = enabled
            spec.person = person
            spec.withAlarms = withAlarms
            return spec
        }
    }
}
