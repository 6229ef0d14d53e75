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

    public init(alarmID: Int, label: String, date: String, weekday: String, time: String, instant: Int) {
        self.alarmID = alarmID
        self.label = label
        self.date = date
        self.weekday = weekday
        self.time = time
        self.instant = instant
    }
}

public struct AlarmInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var label: String
    public var time: String
    /// Canonical days (`mon-fri`) for a repeating alarm.
    public var days: String?
    /// The date of a one-shot.
    public var date: String?
    public var enabled: Bool
    /// nil: the built-in tone.
    public var sound: String?
    public var volume: Int
    public var fadeInSeconds: Int
    public var challenge: Challenge
    public var mathDifficulty: MathDifficulty
    public var tags: [String]
    public var maxSnoozes: Int
    public var snoozeMinutes: Int
    public var skipHolidays: Bool
    public var nextRing: RingInfo?
    /// Why it will not ring, or not as set (`RingWarnings`); nil when all is well.
    public var warnings: [String]?

    public init(_ alarm: Alarm, nextRing: RingInfo?, warnings: [String] = []) {
        id = alarm.id
        label = alarm.label
        time = alarm.time.description
        switch alarm.repeats {
        case .weekly(let set): days = set.description
        case .once(let day): date = day.description
        }
        enabled = alarm.enabled
        sound = alarm.sound
        volume = alarm.volume
        fadeInSeconds = alarm.fadeInSeconds
        challenge = alarm.challenge
        mathDifficulty = alarm.mathDifficulty
        tags = alarm.tags
        maxSnoozes = alarm.maxSnoozes
        snoozeMinutes = alarm.snoozeMinutes
        skipHolidays = alarm.skipHolidays
        self.nextRing = nextRing
        self.warnings = warnings.isEmpty ? nil : warnings
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
