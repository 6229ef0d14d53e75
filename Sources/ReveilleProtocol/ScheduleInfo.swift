import ReveilleCore

// The schedule as the daemon shows it: alarms, rules, overrides, the next ring, `next`'s rows.

/// When an alarm rings next.
public struct RingInfo: Codable, Sendable, Equatable {
    public var alarmID: Int
    public var label: String
    /// Local date, `YYYY-MM-DD`.
    public var date: String
    /// `Mon`.
    public var weekday: String
    /// The wall-clock time it rings at.
    public var time: String
    /// Seconds since the epoch.
    public var instant: Int
    /// The layer that decided it (`base`: the alarm as set), and the rule or override's id.
    public var layer: Layer?
    public var sourceID: Int?

    public init(
        alarmID: Int, label: String, date: String, weekday: String, time: String, instant: Int, layer: Layer? = nil,
        sourceID: Int? = nil
    ) {
        self.alarmID = alarmID
        self.label = label
        self.date = date
        self.weekday = weekday
        self.time = time
        self.instant = instant
        self.layer = layer
        self.sourceID = sourceID
    }

    /// What decided it, in words: `as set`, `by weekly rule #2`, `by override #3`.
    public var decidedBy: String? {
        switch layer {
        case .base: "as set"
        case .rule: "by weekly rule" + (sourceID.map { " #\($0)" } ?? "")
        case .override: "by override" + (sourceID.map { " #\($0)" } ?? "")
        case .holiday, .paused, .disabled, .zone, nil: nil
        }
    }
}

@dynamicMemberLookup
public struct AlarmInfo: Codable, Sendable, Equatable {
    /// The alarm as the core knows it: the one description of an alarm, on the wire too.
    public var alarm: Alarm
    public var nextRing: RingInfo?
    /// Why it will not ring, or not as set (`RingWarnings`); nil when all is well.
    public var warnings: [String]?

    public init(_ alarm: Alarm, nextRing: RingInfo?, warnings: [String] = []) {
        self.alarm = alarm
        self.nextRing = nextRing
        self.warnings = warnings.isEmpty ? nil : warnings
    }

    /// The alarm's own fields: `info.label`, `info.maxSnoozes`.
    public subscript<Value>(dynamicMember field: KeyPath<Alarm, Value>) -> Value { alarm[keyPath: field] }

    /// Canonical days (`mon-fri`) for a repeating alarm.
    public var days: String? {
        if case .weekly(let set) = alarm.repeats { set.description } else { nil }
    }

    /// The date of a one-shot.
    public var date: String? {
        if case .once(let day) = alarm.repeats { day.description } else { nil }
    }

    /// On the wire the alarm's fields sit beside `nextRing` and `warnings`, the time as `HH:MM`
    /// and the repeat as `days` or `date`; each setting (`Alarm.settings`) under its key.
    private enum Key: String, CodingKey {
        case id, label, time, days, date, enabled, sound, tags, nextRing, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(alarm.id, forKey: .id)
        try container.encode(alarm.label, forKey: .label)
        try container.encode(alarm.time.description, forKey: .time)
        try container.encodeIfPresent(days, forKey: .days)
        try container.encodeIfPresent(date, forKey: .date)
        try container.encode(alarm.enabled, forKey: .enabled)
        try container.encodeIfPresent(alarm.sound, forKey: .sound)
        try container.encode(alarm.tags, forKey: .tags)
        try SettingValues(alarm.settingValues).encode(to: encoder)
        try container.encodeIfPresent(nextRing, forKey: .nextRing)
        try container.encodeIfPresent(warnings, forKey: .warnings)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func parsed<T>(_ key: Key, _ parse: (String) throws -> T) throws -> T {
            let text = try container.decode(String.self, forKey: key)
            do {
                return try parse(text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\(error)")
            }
        }
        let repeats: Repeat
        if container.contains(.days) {
            repeats = .weekly(try parsed(.days) { try DaySet.parse($0) })
        } else {
            repeats = .once(try parsed(.date) { try CivilDate.parse($0) })
        }
        alarm = Alarm(
            id: try container.decode(Int.self, forKey: .id), label: try container.decode(String.self, forKey: .label),
            time: try parsed(.time) { try LocalTime.parse($0) }, repeats: repeats,
            enabled: try container.decode(Bool.self, forKey: .enabled),
            sound: try container.decodeIfPresent(String.self, forKey: .sound),
            tags: try container.decode([String].self, forKey: .tags))
        // A setting an older daemon did not send keeps its default.
        _ = alarm.set(try SettingValues(from: decoder).values)
        nextRing = try container.decodeIfPresent(RingInfo.self, forKey: .nextRing)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
    }
}

public struct RuleInfo: Codable, Sendable, Equatable {
    public var id: Int
    /// nil: all alarms.
    public var alarmID: Int?
    public var days: String
    /// `off` or `HH:MM`.
    public var change: DayChange

    public init(_ rule: WeeklyRule) {
        id = rule.id
        alarmID = rule.alarmID
        days = rule.days.description
        change = rule.change
    }
}

public struct OverrideInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var alarmID: Int?
    public var date: String
    public var change: DayChange
    /// Why it rings nothing on its day after all (`holiday: Winter break`, `paused until ...`);
    /// nil when it rings as it says.
    public var silent: String?

    public init(_ override: DateOverride) {
        id = override.id
        alarmID = override.alarmID
        date = override.date.description
        change = override.change
    }
}

/// One line of `reveille next`: an alarm on a day and the layer that decided it, or a day with nothing set.
public struct ScheduleRow: Codable, Sendable, Equatable {
    public var date: String
    public var weekday: String
    /// The wall-clock time it rings at, or would have rung at; nil on a day with nothing set.
    public var time: String?
    public var alarmID: Int?
    public var label: String?
    /// The deciding layer; nil on a day with nothing set.
    public var layer: Layer?
    public var rings: Bool
    public var note: String
    /// For a reminder's chime (`label` is its text): what set it, like `reminder #3`; `rings` says
    /// whether it plays and `note` why not.
    public var reminder: String?

    public init(
        date: String, weekday: String, time: String?, alarmID: Int?, label: String?, layer: Layer?, rings: Bool,
        note: String, reminder: String? = nil
    ) {
        self.reminder = reminder
        self.date = date
        self.weekday = weekday
        self.time = time
        self.alarmID = alarmID
        self.label = label
        self.layer = layer
        self.rings = rings
        self.note = note
    }
}
