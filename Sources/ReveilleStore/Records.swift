import FoundationEssentials
import ReveilleCore

extension Repeat {
    /// How `alarm` and `reminder` rows keep it: a weekday mask, or 0 and the date (`YYYY-MM-DD`).
    var columns: (days: Int, date: String?) {
        switch self {
        case .weekly(let set): (Int(set.mask), nil)
        case .once(let day): (0, day.description)
        }
    }

    init(days: Int, date: String?) throws {
        if let date {
            self = .once(try CivilDate.parse(date))
        } else {
            self = .weekly(DaySet(mask: UInt8(truncatingIfNeeded: days)))
        }
    }
}

/// A row of `alarm`. Conversions to and from the core's `Alarm` live here, so no other module sees SQL.
struct AlarmRecord {
    var id: Int64?
    var label: String
    /// Seconds since local midnight.
    var time: Int
    /// Weekday bit mask for repeating alarms; 0 for a one-shot.
    var days: Int
    /// `YYYY-MM-DD` for a one-shot.
    var date: String?
    var enabled: Bool
    var sound: String?
    /// JSON array of tag labels.
    var tags: String
    /// Each setting (`Alarm.settings`), in the column named by its key.
    var settings: [String: SettingValue]

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        label = try row.text("label")
        time = try row.int("time")
        days = try row.int("days")
        date = try row.optionalText("date")
        enabled = try row.bool("enabled")
        sound = try row.optionalText("sound")
        tags = try row.text("tags")
        var settings: [String: SettingValue] = [:]
        for setting in Alarm.settings {
            settings[setting.key] = try AlarmRecord.read(setting, from: row, id: id ?? 0)
        }
        self.settings = settings
    }

    /// A setting's column: an integer, a 0 or 1, a name, or numbers as `7,5`.
    static func read(_ setting: AlarmSetting, from row: SQLRow, id: Int64) throws -> SettingValue {
        switch setting.defaultValue {
        case .int: return .int(try row.int(setting.key))
        case .bool: return .bool(try row.bool(setting.key))
        case .text: return .text(try row.text(setting.key))
        case .ints:
            let text = try row.text(setting.key)
            let numbers = text.split(separator: ",").map { Int($0) }
            guard !numbers.contains(nil) else {
                throw StoreError.corrupt("alarm row \(id) has \(setting.key) \"\(text.prefix(80))\"")
            }
            return .ints(numbers.compactMap { $0 })
        }
    }

    /// A setting's value as its column holds it.
    static func column(_ value: SettingValue) -> any SQLArgument {
        switch value {
        case .int(let number): number
        case .bool(let flag): flag
        case .text(let name): name
        case .ints(let numbers): numbers.map(String.init).joined(separator: ",")
        }
    }

    /// The SQL type of a setting's column, by the kind of value it holds.
    static func columnType(_ value: SettingValue) -> String {
        switch value {
        case .int: "INTEGER"
        case .bool: "BOOLEAN"
        case .text, .ints: "TEXT"
        }
    }

    /// A setting's default as the SQL literal of its column's `DEFAULT`.
    static func literal(_ value: SettingValue) -> String {
        switch value {
        case .int(let number): "\(number)"
        case .bool(let flag): flag ? "1" : "0"
        case .text(let name):
            "'" + name.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .ints(let numbers): "'" + numbers.map(String.init).joined(separator: ",") + "'"
        }
    }

    /// Every column but the id.
    var columns: [(String, any SQLArgument)] {
        [
            ("label", label), ("time", time), ("days", days), ("date", date), ("enabled", enabled), ("sound", sound),
            ("tags", tags),
        ] + Alarm.settings.compactMap { setting in settings[setting.key].map { (setting.key, AlarmRecord.column($0)) } }
    }

    init(_ alarm: Alarm) {
        id = alarm.id > 0 ? Int64(alarm.id) : nil
        label = alarm.label
        time = alarm.time.secondsOfDay
        (days, date) = alarm.repeats.columns
        enabled = alarm.enabled
        sound = alarm.sound
        tags = String(decoding: (try? JSONEncoder().encode(alarm.tags)) ?? Data("[]".utf8), as: UTF8.self)
        settings = alarm.settingValues
    }

    func alarm() throws -> Alarm {
        guard let id, let localTime = LocalTime(secondsOfDay: time) else {
            throw StoreError.corrupt("alarm row \(id ?? 0) has time \(time)")
        }
        let repeats = try Repeat(days: days, date: date)
        guard let tagNames = try? JSONDecoder().decode([String].self, from: Data(tags.utf8)) else {
            throw StoreError.corrupt("alarm row \(id) has tags \(tags.prefix(80))")
        }
        var alarm = Alarm(
            id: Int(id), label: label, time: localTime, repeats: repeats, enabled: enabled, sound: sound,
            tags: tagNames)
        // A value this version does not know (a newer one wrote it, or a hand edit) is refused,
        // as sessions' are, never taken for a default that would ring another way.
        if let wrong = alarm.set(settings) {
            let shown = settings[wrong.key].map { "\(AlarmRecord.column($0))" } ?? ""
            throw StoreError.corrupt("alarm row \(id) has \(wrong.key) \"\(shown.prefix(80))\"")
        }
        return alarm
    }
}

/// A row of `weekly_rule`.
struct RuleRecord {
    var id: Int64?
    var alarmId: Int64?
    var days: Int
    /// `off` or seconds since midnight as text.
    var change: String

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        alarmId = try row.optionalInt("alarmId").map(Int64.init)
        days = try row.int("days")
        change = try row.text("change")
    }

    var columns: [(String, any SQLArgument)] { [("alarmId", alarmId), ("days", days), ("change", change)] }

    init(_ rule: WeeklyRule) {
        id = rule.id > 0 ? Int64(rule.id) : nil
        alarmId = rule.alarmID.map(Int64.init)
        days = Int(rule.days.mask)
        change = rule.change.stored
    }

    func rule() throws -> WeeklyRule {
        WeeklyRule(
            id: Int(id ?? 0), alarmID: alarmId.map(Int.init), days: DaySet(mask: UInt8(truncatingIfNeeded: days)),
            change: try DayChange(stored: change))
    }
}

/// A row of `date_override`.
struct OverrideRecord {
    var id: Int64?
    var alarmId: Int64?
    var date: String
    var change: String

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        alarmId = try row.optionalInt("alarmId").map(Int64.init)
        date = try row.text("date")
        change = try row.text("change")
    }

    var columns: [(String, any SQLArgument)] { [("alarmId", alarmId), ("date", date), ("change", change)] }

    init(_ override: DateOverride) {
        id = override.id > 0 ? Int64(override.id) : nil
        alarmId = override.alarmID.map(Int64.init)
        date = override.date.description
        change = override.change.stored
    }

    func override() throws -> DateOverride {
        DateOverride(
            id: Int(id ?? 0), alarmID: alarmId.map(Int.init), date: try CivilDate.parse(date),
            change: try DayChange(stored: change))
    }
}

extension DayChange {
    var stored: String {
        switch self {
        case .off: "off"
        case .at(let time): String(time.secondsOfDay)
        }
    }

    init(stored: String) throws {
        if stored == "off" {
            self = .off
        } else if let seconds = Int(stored), let time = LocalTime(secondsOfDay: seconds) {
            self = .at(time)
        } else {
            throw StoreError.corrupt("change \"\(stored)\"")
        }
    }
}
