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
    var volume: Int
    var fadeInSeconds: Int
    var challenge: String
    var mathDifficulty: String
    /// JSON array of tag labels.
    var tags: String
    var maxSnoozes: Int
    var snoozeMinutes: Int
    /// The later snoozes' minutes, `7,5`; empty: all as the first.
    var laterSnoozeMinutes: String
    var skipHolidays: Bool
    var wakeCheckSeconds: Int
    var escalateAfterSeconds: Int
    var leadSeconds: Int
    var commitSeconds: Int
    var leadSound: Bool

    init(row: SQLRow) throws {
        id = Int64(try row.int("id"))
        label = try row.text("label")
        time = try row.int("time")
        days = try row.int("days")
        date = try row.optionalText("date")
        enabled = try row.bool("enabled")
        sound = try row.optionalText("sound")
        volume = try row.int("volume")
        fadeInSeconds = try row.int("fadeInSeconds")
        challenge = try row.text("challenge")
        mathDifficulty = try row.text("mathDifficulty")
        tags = try row.text("tags")
        maxSnoozes = try row.int("maxSnoozes")
        snoozeMinutes = try row.int("snoozeMinutes")
        laterSnoozeMinutes = try row.text("laterSnoozeMinutes")
        skipHolidays = try row.bool("skipHolidays")
        wakeCheckSeconds = try row.int("wakeCheckSeconds")
        escalateAfterSeconds = try row.int("escalateAfterSeconds")
        leadSeconds = try row.int("leadSeconds")
        commitSeconds = try row.int("commitSeconds")
        leadSound = try row.bool("leadSound")
    }

    /// Every column but the id.
    var columns: [(String, any SQLArgument)] {
        [
            ("label", label), ("time", time), ("days", days), ("date", date), ("enabled", enabled), ("sound", sound),
            ("volume", volume), ("fadeInSeconds", fadeInSeconds), ("challenge", challenge),
            ("mathDifficulty", mathDifficulty), ("tags", tags), ("maxSnoozes", maxSnoozes),
            ("snoozeMinutes", snoozeMinutes), ("laterSnoozeMinutes", laterSnoozeMinutes),
            ("skipHolidays", skipHolidays), ("wakeCheckSeconds", wakeCheckSeconds),
            ("escalateAfterSeconds", escalateAfterSeconds), ("leadSeconds", leadSeconds),
            ("commitSeconds", commitSeconds), ("leadSound", leadSound),
        ]
    }

    init(_ alarm: Alarm) {
        id = alarm.id > 0 ? Int64(alarm.id) : nil
        label = alarm.label
        time = alarm.time.secondsOfDay
        (days, date) = alarm.repeats.columns
        enabled = alarm.enabled
        sound = alarm.sound
        volume = alarm.volume
        fadeInSeconds = alarm.fadeInSeconds
        challenge = alarm.challenge.rawValue
        mathDifficulty = alarm.mathDifficulty.rawValue
        tags = String(decoding: (try? JSONEncoder().encode(alarm.tags)) ?? Data("[]".utf8), as: UTF8.self)
        maxSnoozes = alarm.maxSnoozes
        snoozeMinutes = alarm.snoozeMinutes
        laterSnoozeMinutes = alarm.laterSnoozeMinutes.map(String.init).joined(separator: ",")
        skipHolidays = alarm.skipHolidays
        wakeCheckSeconds = alarm.wakeCheckSeconds
        escalateAfterSeconds = alarm.escalateAfterSeconds
        leadSeconds = alarm.leadSeconds
        commitSeconds = alarm.commitSeconds
        leadSound = alarm.leadSound
    }

    func alarm() throws -> Alarm {
        guard let id, let localTime = LocalTime(secondsOfDay: time) else {
            throw StoreError.corrupt("alarm row \(id ?? 0) has time \(time)")
        }
        let repeats = try Repeat(days: days, date: date)
        // A value this version does not know (a newer one wrote it, or a hand edit) is refused,
        // as sessions' are, never taken for a default that would ring another way.
        guard let challenge = Challenge(rawValue: challenge) else {
            throw StoreError.corrupt("alarm row \(id) has challenge \"\(self.challenge)\"")
        }
        guard let difficulty = MathDifficulty(rawValue: mathDifficulty) else {
            throw StoreError.corrupt("alarm row \(id) has math difficulty \"\(mathDifficulty)\"")
        }
        guard let tagNames = try? JSONDecoder().decode([String].self, from: Data(tags.utf8)) else {
            throw StoreError.corrupt("alarm row \(id) has tags \(tags.prefix(80))")
        }
        let later = laterSnoozeMinutes.split(separator: ",").map { Int($0) }
        guard !later.contains(nil) else {
            throw StoreError.corrupt("alarm row \(id) has later snooze minutes \"\(laterSnoozeMinutes.prefix(80))\"")
        }
        var alarm = Alarm(
            id: Int(id), label: label, time: localTime, repeats: repeats, enabled: enabled, sound: sound,
            volume: volume, fadeInSeconds: fadeInSeconds, challenge: challenge, mathDifficulty: difficulty,
            tags: tagNames, maxSnoozes: maxSnoozes, snoozeMinutes: snoozeMinutes, skipHolidays: skipHolidays,
            wakeCheckSeconds: wakeCheckSeconds, escalateAfterSeconds: escalateAfterSeconds, leadSeconds: leadSeconds,
            commitSeconds: commitSeconds, leadSound: leadSound)
        alarm.laterSnoozeMinutes = later.compactMap { $0 }
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
