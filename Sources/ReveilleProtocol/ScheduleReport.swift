import ReveilleCore

/// The answer to `next`, compact: a year of 200 alarms is 73,000 alarm-days, so each travels as
/// one short entry in a day's string instead of a JSON object (about 18 bytes instead of 120), and
/// labels travel once. The separators are characters JSON does not escape, which keeps encoding
/// and decoding on their fast paths (measured: 1.5 ms instead of 27 ms for a year of 200 alarms).
/// `rows` expands it back for `--json` and for tests.
public struct ScheduleReport: Codable, Sendable, Equatable {
    /// Alarm labels by id (as text: JSON object keys are strings).
    public var labels: [String: String]
    /// Alarm times by id: the time of an entry that is only an id.
    public var times: [String: String]
    public var days: [ScheduleDay]
    /// Reminder chimes in the span, in order; nil when there are none.
    public var reminders: [ReminderRow]?

    public init(labels: [String: String] = [:], times: [String: String] = [:], days: [ScheduleDay] = []) {
        self.labels = labels
        self.times = times
        self.days = days
    }

    /// Every entry as a `ScheduleRow`, with a row for each day that has none, and each day's
    /// reminder chimes after its alarms.
    public var rows: [ScheduleRow] {
        let chimes = Dictionary(grouping: reminders ?? [], by: \.date)
        return days.flatMap { day -> [ScheduleRow] in
            alarmRows(day)
                + (chimes[day.date] ?? []).map { chime in
                    ScheduleRow(
                        date: day.date, weekday: day.weekday, time: chime.time, alarmID: nil, label: chime.text,
                        layer: nil, rings: chime.silenced == nil, note: chime.silenced ?? "", reminder: chime.origin)
                }
        }
    }

    private func alarmRows(_ day: ScheduleDay) -> [ScheduleRow] {
        let entries = day.entries
        guard !entries.isEmpty else {
            return [
                ScheduleRow(
                    date: day.date, weekday: day.weekday, time: nil, alarmID: nil, label: nil, layer: nil,
                    rings: false, note: day.note ?? "")
            ]
        }
        return entries.map { entry in
            ScheduleRow(
                date: day.date, weekday: day.weekday, time: entry.time ?? times[String(entry.alarmID)],
                alarmID: entry.alarmID,
                label: labels[String(entry.alarmID)] ?? "", layer: entry.layer, rings: entry.rings,
                note: entry.note)
        }
    }
}

/// One day of the schedule.
public struct ScheduleDay: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    /// `Mon`.
    public var weekday: String
    /// One entry per alarm that day, in ring order, entries separated by `;`. An entry is either
    /// the alarm id alone, meaning it rings at its own time (`ScheduleReport.times`) as set (layer
    /// `base`), or time, alarm id, layer, `r` (rings) or `s` (silent) and note, separated by `|`.
    /// Empty when nothing is set.
    public var lines: String
    /// Why a day with no lines is empty: `nothing set`, `nothing more today`.
    public var note: String?

    public init(date: String, weekday: String, lines: String = "", note: String? = nil) {
        self.date = date
        self.weekday = weekday
        self.lines = lines
        self.note = note
    }

    /// One alarm on this day.
    public struct Entry: Equatable, Sendable {
        /// nil: the alarm's own time.
        public var time: String?
        public var alarmID: Int
        public var layer: Layer
        public var rings: Bool
        public var note: String

        public init(time: String?, alarmID: Int, layer: Layer, rings: Bool, note: String) {
            self.time = time
            self.alarmID = alarmID
            self.layer = layer
            self.rings = rings
            self.note = note
        }

        /// The alarm ringing at its own time as set.
        public static func plainRing(_ alarmID: Int) -> Entry {
            Entry(time: nil, alarmID: alarmID, layer: .base, rings: true, note: "")
        }

        /// `id` for a plain ring, else `time|id|layer|r|note`. In the note, `;` becomes `,` and `|`
        /// becomes `/`, and characters JSON would escape become spaces.
        public var encoded: String {
            guard let time else { return String(alarmID) }
            return "\(time)|\(alarmID)|\(layer.rawValue)|\(rings ? "r" : "s")|\(ScheduleDay.clean(note))"
        }
    }

    static let entrySeparator: Character = ";"
    static let fieldSeparator: Character = "|"

    /// Adds an entry.
    public mutating func append(_ entry: Entry) {
        append(encoded: entry.encoded)
    }

    /// Adds an entry already encoded with `Entry.encoded` (the daemon reuses those of common entries).
    public mutating func append(encoded: String) {
        if !lines.isEmpty { lines.append(Self.entrySeparator) }
        lines.append(encoded)
    }

    static func clean(_ note: String) -> String {
        guard note.utf8.contains(where: { $0 == 0x3B || $0 == 0x7C || $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) else {
            return note
        }
        return String(
            note.map { character -> Character in
                switch character {
                case ";": ","
                case "|": "/"
                case "\"", "\\": "'"
                default: character.asciiValue.map { $0 < 0x20 } == true ? " " : character
                }
            })
    }

    /// The entries; a malformed line is skipped.
    public var entries: [Entry] {
        guard !lines.isEmpty else { return [] }
        return lines.split(separator: Self.entrySeparator).compactMap { line in
            if let id = Int(line) { return Entry.plainRing(id) }
            let fields = line.split(separator: Self.fieldSeparator, maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let id = Int(fields[1]), let layer = Layer(rawValue: String(fields[2])) else {
                return nil
            }
            return Entry(
                time: String(fields[0]), alarmID: id, layer: layer, rings: fields[3] == "r", note: String(fields[4]))
        }
    }
}

/// A reminder chime in `next`.
public struct ReminderRow: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    /// `HH:MM`.
    public var time: String
    public var text: String
    /// `reminder #3`, `calendar school, 15 min before`.
    public var origin: String
    /// Why it will not play (`paused`, `override: all alarms off`); nil when it plays.
    public var silenced: String?
    /// The line under the title (`Chime.detail`).
    public var detail: String?

    public init(date: String, time: String, text: String, origin: String, silenced: String?, detail: String? = nil) {
        self.detail = detail
        self.date = date
        self.time = time
        self.text = text
        self.origin = origin
        self.silenced = silenced
    }
}
