import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleProtocol

struct MonthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "month",
        abstract: "A calendar of a month: each day's first ring and the layer that set it.",
        discussion: """
            Each day shows its first ring, marked by the layer that set it: a plain time is the \
            alarm as set (base), R a weekly rule, O a date override. A silent day shows - and what \
            silenced it: R, O, H (a holiday) or P (paused). Days gone by show a dot. On a terminal \
            the layers are coloured (base orange, rule blue, override green, holiday grey) and \
            silent days struck through; NO_COLOR or --plain turns colour off. Below, how many \
            reminders chime in the month, and the next ones.
            """)

    @Argument(help: ArgumentHelp("The month, YYYY-MM (default: this month).", valueName: "month"))
    var month: String?

    @Flag(name: .long, help: "Colours even when the output is not a terminal.") var color = false
    @Flag(name: .long, help: "No colours, even on a terminal.") var plain = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if let month { _ = try MonthCommand.parse(month) }
        if color && plain { throw ValidationError("give --color or --plain, not both") }
    }

    /// `2026-11` as (year, month).
    static func parse(_ text: String) throws -> (year: Int, month: Int) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), let month = Int(parts[1]),
            parts[1].count == 2
        else { throw ValidationError("month \"\(text)\": write it as YYYY-MM, like 2026-12") }
        guard (1...12).contains(month) else { throw ValidationError("month \"\(text)\": the month must be 01-12") }
        return (year, month)
    }

    func run() throws {
        guard let status = try send(.status, to: connection).status else { return }
        let today = try parsed { try CivilDate.parse(String(status.now.prefix(10))) }
        let (year, month) = try self.month.map(MonthCommand.parse) ?? (today.components.year, today.components.month)
        guard let first = CivilDate(year: year, month: month, day: 1) else { return }
        let last = first.adding(days: CivilDate.daysIn(month: month, year: year) - 1)
        if last < today {
            printError("\(self.month ?? ""): that month is over; 'reveille history' shows what rang")
            throw ExitCode(64)
        }
        let days = last.dayNumber - today.dayNumber + 1
        guard days <= 3660 else {
            printError("\(self.month ?? ""): too far ahead; at most ten years")
            throw ExitCode(64)
        }
        let report = try send(.next(days: days), to: connection).schedule ?? ScheduleReport()
        let colour = !plain && (color || MonthView.terminalWantsColour())
        print(MonthView.render(report, first: first, today: today, colour: colour), terminator: "")
    }
}

/// The month grid, from the `next` report.
enum MonthView {
    /// What one day shows.
    struct Cell: Equatable {
        /// The first ring's time, nil for a silent day.
        var time: String?
        /// The layer that set the ring, or silenced the day; nil: nothing is set that day.
        var layer: Layer?
    }

    /// The day's first ring (entries come in ring order), else what silenced it. A disabled alarm
    /// says nothing about the day.
    static func cell(_ day: ScheduleDay, times: [String: String]) -> Cell {
        let entries = day.entries.filter { $0.layer != .disabled }
        if let ring = entries.first(where: \.rings) {
            return Cell(time: ring.time ?? times[String(ring.alarmID)], layer: ring.layer)
        }
        return Cell(time: nil, layer: entries.first?.layer)
    }

    static func mark(_ layer: Layer?) -> String {
        switch layer {
        case .rule: "R"
        case .override: "O"
        case .holiday: "H"
        case .paused: "P"
        case .zone: "Z"
        default: ""
        }
    }

    /// ANSI colours: base orange, rule blue, override green, holiday grey, paused dim.
    static func colourCode(_ layer: Layer?) -> String {
        switch layer {
        case .base: "38;5;208"
        case .rule: "34"
        case .override: "32"
        case .holiday: "90"
        case .paused: "2"
        default: "0"
        }
    }

    static func render(_ report: ScheduleReport, first: CivilDate, today: CivilDate, colour: Bool) -> String {
        let (year, month, _) = first.components
        let count = CivilDate.daysIn(month: month, year: year)
        let byDate = Dictionary(report.days.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
        let width = 9
        var lines = ["\(monthNames[month - 1]) \(year)"]
        lines.append(
            Weekday.allCases.map { $0.displayName.fitted(to: width) }.joined()
                .trimmingTrailingSpaces())
        var line = String(repeating: " ", count: width * first.weekday.rawValue)
        for offset in 0..<count {
            let date = first.adding(days: offset)
            let number = String(date.components.day)
            var text: String
            var style = "0"
            if date < today {
                text = "."
                style = "2"
            } else if let day = byDate[date.description] {
                let cell = cell(day, times: report.times)
                if let time = cell.time {
                    text = time.count > 5 ? String(time.prefix(5)) : time
                    text += mark(cell.layer)
                    style = colourCode(cell.layer)
                } else if let layer = cell.layer {
                    text = "-" + mark(layer)
                    style = colourCode(layer) + ";9"
                } else {
                    text = ""
                }
            } else {
                text = ""
            }
            let today = date == today
            let day = (number.count == 1 ? " " : "") + number + (today && !colour ? "*" : " ")
            var cellText = day + text
            let padding = String(repeating: " ", count: max(1, width - cellText.count))
            if colour {
                let dayStyled = today ? "\u{1B}[7m" + day + "\u{1B}[0m" : day
                cellText = dayStyled + (text.isEmpty ? "" : "\u{1B}[\(style)m" + text + "\u{1B}[0m")
            }
            line += cellText + padding
            if date.weekday == .sunday || offset == count - 1 {
                lines.append(line.trimmingTrailingSpaces())
                line = ""
            }
        }
        lines.append("")
        // The key's example is a time this month rings as set, so it reads as the grid does.
        let asSet =
            report.rows.first { $0.layer == .base && $0.rings && $0.date.hasPrefix(first.description.prefix(7)) }?
            .time ?? "a time"
        let legend: [(String, Layer?)] = [
            ("\(asSet) as set", .base), ("R weekly rule", .rule), ("O date override", .override),
            ("H holiday", .holiday), ("P paused", .paused),
        ]
        let key = legend.map { item in colour ? "\u{1B}[\(colourCode(item.1))m\(item.0)\u{1B}[0m" : item.0 }
        lines.append(key.joined(separator: "   ") + "   - silent   " + (colour ? "today inverted" : "* today"))
        if let line = reminderLine(report, first: first, count: count) { lines.append(line) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `reminders: 26 chimes this month; the next: 25 Wed 16:00 check-in, ...`, or nil for none.
    static func reminderLine(_ report: ScheduleReport, first: CivilDate, count: Int) -> String? {
        let last = first.adding(days: count - 1).description
        let chimes = (report.reminders ?? []).filter {
            $0.silenced == nil && $0.date >= first.description && $0.date <= last
        }
        guard !chimes.isEmpty else { return nil }
        let soon = chimes.prefix(3).map { chime in
            let date = try? CivilDate.parse(chime.date)
            return "\(date?.components.day ?? 0) \(date?.weekday.displayName ?? "") \(chime.time) \(chime.text)"
        }
        return "reminders: \(chimes.count) chime\(chimes.count == 1 ? "" : "s") this month; the next: "
            + soon.joined(separator: ", ") + (chimes.count > 3 ? ", ... ('reveille next' lists them)" : "")
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// Colour when standard output is a terminal that shows it, and NO_COLOR is not set.
    static func terminalWantsColour() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard isatty(1) == 1, environment["NO_COLOR"] == nil else { return false }
        return environment["TERM"].map { $0 != "dumb" } ?? false
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
