import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol

struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm", abstract: "Add, list, change and remove alarms.",
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Remove.self, Enable.self, Disable.self, Test.self,
        ])

    @OptionGroup var connection: ConnectionOptions

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an alarm.",
            discussion: """
                Examples:
                  reveille alarm add 6:45 --days mon-fri --label work
                  reveille alarm add 7:30 --date 2026-12-24
                  reveille alarm add --in 20m --label nap
                With neither --days nor --date it rings once, at the next such time.
                """)

        @Argument(help: ArgumentHelp("When it rings, like 06:45 (24-hour clock).", valueName: "time"))
        var time: String?

        @OptionGroup var fields: AlarmFields
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if time == nil && fields.in == nil { throw ValidationError("give a time, like 06:45, or --in 20m") }
            _ = try fields.spec(time: time)
        }

        func run() throws {
            report(try send(.alarmAdd(spec: fields.spec(time: time)), to: connection))
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an alarm's fields; what is not given stays as it is.",
            discussion: "Example: reveille alarm edit 1 --time 7:00 --days mon-thu")

        @OptionGroup var alarm: AlarmID
        @Option(name: .long, help: ArgumentHelp("A new time, like 07:00.", valueName: "time")) var time: String?
        @OptionGroup var fields: AlarmFields
        @OptionGroup var connection: ConnectionOptions

        func validate() throws { _ = try fields.spec(time: time) }

        func run() throws {
            report(try send(.alarmEdit(id: alarm.id, spec: fields.spec(time: time)), to: connection))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List alarms with their next ring.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        /// The alarms as the list's table: one row each, labels padded by their width on a terminal.
        static func table(_ alarms: [AlarmInfo]) -> Table {
            var table = Table("ID", "LABEL", "TIME", "REPEAT", "ON", "CHALLENGE", "SNOOZES", "NEXT RING")
            for alarm in alarms {
                let repeats = alarm.days ?? "once \(alarm.date ?? "")"
                let snoozes = alarm.maxSnoozes == 0 ? "unlimited" : "\(alarm.maxSnoozes)x\(alarm.snoozeLengthsText)m"
                let next = alarm.nextRing.map { "\($0.weekday) \($0.date) \($0.time)" } ?? "-"
                table.add(
                    "\(alarm.id)", alarm.label.isEmpty ? "-" : alarm.label, alarm.time.description, repeats,
                    alarm.enabled ? "yes" : "no", alarm.challenge.rawValue, snoozes, next)
            }
            return table
        }

        func run() throws {
            let alarms = try send(.alarmList, to: connection).alarms ?? []
            if output.json { return printJSON(alarms) }
            guard !alarms.isEmpty else {
                return print("no alarms; add one with 'reveille alarm add 6:45 --days mon-fri'")
            }
            List.table(alarms).print()
            // Why a NEXT RING is `-`, or a ring is not what was set.
            for alarm in alarms {
                for warning in alarm.warnings ?? [] { print("#\(alarm.id): \(warning)") }
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ring an alarm now, as it would ring, to try it; recorded in history as a test.",
            discussion: """
                Its sound, volume, fade-in, challenge and snoozes, and the hooks, as on a morning. \
                Stop it as it asks (reveille dismiss, or a tag). A one-shot stays on.
                """)

        @OptionGroup var alarm: AlarmID
        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.alarmTest(id: alarm.id), to: connection)) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every setting of one alarm.")

        @OptionGroup var alarm: AlarmID
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let alarms = try send(.alarmList, to: connection).alarms ?? []
            guard let info = alarms.first(where: { $0.id == alarm.id }) else {
                printError("no alarm #\(alarm.id); 'reveille alarm list' shows the ids")
                throw ExitCode(1)
            }
            if output.json { return printJSON(info) }
            print(Show.render(info), terminator: "")
        }

        /// `9 min each`, or `9, then 7, then 5 min (and 5 after)`.
        static func snoozeLengths(_ alarm: AlarmInfo) -> String {
            guard let last = alarm.laterSnoozeMinutes.last else { return "\(alarm.snoozeMinutes) min each" }
            let steps = ([alarm.snoozeMinutes] + alarm.laterSnoozeMinutes).map(String.init).joined(separator: ", then ")
            return "\(steps) min (\(last) min each after)"
        }

        static func render(_ alarm: AlarmInfo) -> String {
            let snoozes =
                alarm.maxSnoozes == 0
                ? "unlimited, \(Self.snoozeLengths(alarm))" : "\(alarm.maxSnoozes), \(Self.snoozeLengths(alarm))"
            let math =
                alarm.mathProblems > 1
                ? "\(alarm.mathDifficulty.rawValue), \(alarm.mathProblems) problems" : alarm.mathDifficulty.rawValue
            let challenge =
                switch alarm.challenge {
                case .math: "math (\(math))"
                case .nfc: "a tag (math, \(math), when no reader works)"
                case .any: "a tag or math (\(math))"
                }
            // Typed: Debian's Swift 6.2 gives up inferring this literal's type (arm64 build).
            var lines: [(String, String)] = [
                ("label", alarm.label.isEmpty ? "-" : alarm.label),
                ("time", alarm.time.description),
                ("repeats", alarm.days ?? "once, on \(alarm.date ?? "?")"),
                ("on", alarm.enabled ? "yes" : "no"),
                ("next ring", alarm.nextRing.map { "\($0.weekday) \($0.date) \($0.time)" } ?? "-"),
                ("sound", alarm.sound ?? "the configured sound, else the built-in tone"),
                (
                    "volume",
                    "\(min(alarm.volume, alarm.volumeCeiling)), rising over \(alarm.fadeInSeconds) s"
                        + (alarm.volumeCeiling < 100 ? "; never above \(alarm.volumeCeiling)" : "")
                ),
                ("challenge", challenge),
                ("tags", alarm.tags.isEmpty ? "any registered tag" : alarm.tags.joined(separator: ", ")),
                ("snoozes", snoozes),
                ("holidays", alarm.skipHolidays ? "silent on holidays" : "rings on holidays"),
                (
                    "wake check",
                    alarm.wakeCheckSeconds == 0
                        ? "off"
                        : "asks \"Are you up?\" \(DurationText.format(seconds: alarm.wakeCheckSeconds)) after the dismissal"
                ),
                (
                    "escalate",
                    alarm.escalateAfterSeconds == 0
                        ? "off"
                        : "full volume after \(DurationText.format(seconds: alarm.escalateAfterSeconds)) unanswered"
                ),
                (
                    "commitment",
                    alarm.commitSeconds == 0
                        ? "off"
                        : "\(DurationText.format(seconds: alarm.commitSeconds)) before a ring, weakening it needs its challenge"
                ),
                (
                    "sunrise",
                    alarm.leadSeconds == 0
                        ? "off"
                        : "begins \(DurationText.format(seconds: alarm.leadSeconds)) before the ring"
                            + (alarm.leadSound ? "; the sound begins quietly in its last minute" : "")
                ),
            ]
            lines += (alarm.warnings ?? []).map { ("warning", $0) }
            return "alarm #\(alarm.id)\n"
                + lines.map { "  \($0.0.fitted(to: 10))  \($0.1)\n" }.joined()
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove an alarm, with its own rules and overrides.")

        @OptionGroup var alarm: AlarmID
        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.alarmRemove(id: alarm.id), to: connection)) }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn an alarm on.")

        @OptionGroup var alarm: AlarmID
        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.alarmSetEnabled(id: alarm.id, enabled: true), to: connection)) }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn an alarm off, keeping it.",
            discussion: """
                Its base is skipped; its own rules and overrides with a time still ring it, and rules \
                and overrides for all alarms ring by themselves on days no alarm rings. The answer \
                names each, with the command that silences it.
                """)

        @OptionGroup var alarm: AlarmID
        @OptionGroup var connection: ConnectionOptions

        func run() throws { report(try send(.alarmSetEnabled(id: alarm.id, enabled: false), to: connection)) }
    }
}

/// The id of the alarm a command acts on, checked before anything is sent.
struct AlarmID: ParsableArguments {
    @Argument(help: "The alarm's id (see 'reveille alarm list').") var id: Int

    func validate() throws { try checkID(id, of: "alarm", list: "reveille alarm list") }
}

/// The fields `alarm add` and `alarm edit` share.
struct AlarmFields: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Repeat on these days: mon-fri, sat,sun, daily.", valueName: "days"))
    var days: String?
    @Option(
        name: .long, help: ArgumentHelp("Ring once, on this date (YYYY-MM-DD, today, tomorrow).", valueName: "date"))
    var date: String?
    @Option(name: .long, help: ArgumentHelp("Ring once, this long from now: 20m, 90s, 1h30m.", valueName: "duration"))
    var `in`: String?
    @Option(name: .long, help: "A name to know it by.") var label: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A WAV, FLAC, Ogg or MP3 file; \"\" for the configured sound (else the built-in tone).",
            valueName: "file"))
    var sound: String?
    @Option(name: .long, help: settingHelp("volume")) var volume: Int?
    @Option(name: .long, help: settingHelp("volumeCeiling", valueName: "volume")) var volumeCeiling: Int?
    @Option(name: .long, help: settingHelp("fadeInSeconds", valueName: "seconds")) var fadeIn: Int?
    @Option(name: .long, help: settingHelp("challenge")) var challenge: Challenge?
    @Option(name: .long, help: settingHelp("mathDifficulty")) var difficulty: MathDifficulty?
    @Option(name: .long, help: settingHelp("mathProblems")) var problems: Int?
    @Option(
        name: .long,
        help: ArgumentHelp("A tag that may dismiss it (repeatable; default any registered tag).", valueName: "label"))
    var tag: [String] = []
    @Option(name: .long, help: settingHelp("maxSnoozes")) var maxSnoozes: Int?
    @Option(name: .long, help: settingHelp("snoozeMinutes", valueName: "minutes")) var snoozeMinutes: String?
    @Flag(inversion: .prefixedNo, help: settingHelp("skipHolidays")) var skipHolidays: Bool?
    @Option(name: .long, help: settingHelp("wakeCheckSeconds", valueName: "duration")) var wakeCheck: String?
    @Option(name: .long, help: settingHelp("escalateAfterSeconds", valueName: "duration")) var escalateAfter: String?
    @Option(name: .long, help: settingHelp("leadSeconds", valueName: "duration")) var lead: String?
    @Flag(inversion: .prefixedNo, help: settingHelp("leadSound")) var leadSound: Bool?
    @Option(name: .long, help: settingHelp("commitSeconds", valueName: "duration")) var commit: String?

    /// `off` or a duration within `range`.
    private static func durationOrOff(_ text: String?, _ option: String, range: ClosedRange<Int>) throws(InputError)
        -> Int?
    {
        guard let text else { return nil }
        if text == "off" || text == "0" { return 0 }
        do {
            return try DurationText.parse(text, range: range)
        } catch {
            throw InputError("--\(option): \(error.message), or off")
        }
    }

    /// The request fields, checked here first so that a typo is a usage error before any daemon is asked.
    func spec(time: String?) throws -> AlarmSpec {
        try parsed {
            var spec = AlarmSpec()
            spec.time = try time.map { text throws(InputError) in try LocalTime.parse(text) }
            spec.days = try days.map { text throws(InputError) in try DaySet.parse(text) }
            spec.date = date
            if let date { try CivilDate.check(date) }
            spec.inSeconds = try `in`.map { text throws(InputError) in try DurationText.parse(text) }
            spec.label = label
            spec.sound = sound.map {
                $0.isEmpty || $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0
            }
            spec.volume = volume
            spec.volumeCeiling = volumeCeiling
            spec.fadeInSeconds = fadeIn
            spec.challenge = challenge
            spec.mathDifficulty = difficulty
            spec.mathProblems = problems
            spec.tags = tag.isEmpty ? nil : tag
            spec.maxSnoozes = maxSnoozes
            if let snoozeMinutes {
                (spec.snoozeMinutes, spec.laterSnoozeMinutes) = try Alarm.parseLengths(snoozeMinutes)
            }
            spec.skipHolidays = skipHolidays
            spec.wakeCheckSeconds = try Self.durationOrOff(wakeCheck, "wake-check", range: Alarm.wakeCheckRange)
            spec.escalateAfterSeconds = try Self.durationOrOff(
                escalateAfter, "escalate-after", range: Alarm.escalateRange)
            spec.leadSeconds = try Self.durationOrOff(lead, "lead", range: Alarm.leadRange)
            spec.commitSeconds = try Self.durationOrOff(commit, "commit", range: Alarm.commitRange)
            spec.leadSound = leadSound
            return spec
        }
    }
}

/// An alarm setting's help, as its declaration (`Alarm.settings`) words it.
func settingHelp(_ key: String, valueName: String? = nil) -> ArgumentHelp {
    ArgumentHelp(Alarm.setting(named: key)?.help ?? "", valueName: valueName)
}

extension Challenge: ExpressibleByArgument {}
extension MathDifficulty: ExpressibleByArgument {}
