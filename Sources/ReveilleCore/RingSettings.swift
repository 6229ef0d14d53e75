/// The alarm as it was when it fired, for its session (an edit during the ring changes nothing):
/// its id, name, sound, tags and every setting (`Alarm.settings`), read as the alarm's own
/// (`settings.volume`). Alarms that join the ring make it stricter (`strictest`).
@dynamicMemberLookup
public struct RingSettings: Sendable, Hashable {
    /// The alarm's copy; its settings may be stricter than the alarm's own once others joined.
    public internal(set) var alarm: Alarm
    public internal(set) var isOneShot: Bool

    public var alarmID: Int { alarm.id }
    public var label: String { alarm.label }
    public var sound: String? { alarm.sound }
    /// Labels of the tags that dismiss it; empty means any registered tag.
    public internal(set) var allowedTags: [String] {
        get { alarm.tags }
        set { alarm.tags = newValue }
    }

    public internal(set) var snoozeMinutes: Int {
        get { alarm.snoozeMinutes }
        set { alarm.snoozeMinutes = newValue }
    }
    public internal(set) var laterSnoozeMinutes: [Int] {
        get { alarm.laterSnoozeMinutes }
        set { alarm.laterSnoozeMinutes = newValue }
    }

    /// A setting, as the session rings it: `settings.volume`, `settings.maxSnoozes`.
    public internal(set) subscript<Value>(dynamicMember path: WritableKeyPath<Alarm, Value>) -> Value {
        get { alarm[keyPath: path] }
        set { alarm[keyPath: path] = newValue }
    }

    public init(
        alarmID: Int, label: String, sound: String?, volume: Int, fadeInSeconds: Int, challenge: Challenge,
        mathDifficulty: MathDifficulty, allowedTags: [String], maxSnoozes: Int, snoozeMinutes: Int, isOneShot: Bool,
        wakeCheckSeconds: Int = 0, escalateAfterSeconds: Int = 0, laterSnoozeMinutes: [Int] = []
    ) {
        var alarm = Alarm(
            id: alarmID, label: label, time: LocalTime(secondsOfDay: 0)!, repeats: .weekly(.daily), sound: sound,
            volume: volume, fadeInSeconds: fadeInSeconds, challenge: challenge, mathDifficulty: mathDifficulty,
            tags: allowedTags, maxSnoozes: maxSnoozes, snoozeMinutes: snoozeMinutes,
            wakeCheckSeconds: wakeCheckSeconds, escalateAfterSeconds: escalateAfterSeconds)
        alarm.laterSnoozeMinutes = laterSnoozeMinutes
        self.alarm = alarm
        self.isOneShot = isOneShot
    }

    public init(_ alarm: Alarm) {
        if case .once = alarm.repeats { isOneShot = true } else { isOneShot = false }
        // When it rings is the session's, not the settings': two copies of one alarm's settings
        // are equal whatever its time.
        var copy = alarm
        copy.time = LocalTime(secondsOfDay: 0)!
        copy.repeats = .weekly(.daily)
        copy.enabled = true
        self.alarm = copy
    }

    /// With `values` (a setting's key and value, as a session kept them) over its own.
    public func with(_ values: [String: SettingValue]) -> RingSettings {
        var copy = self
        _ = copy.alarm.set(values)
        return copy
    }

    /// `#3 work` or `#3`.
    public var name: String { label.isEmpty ? "#\(alarmID)" : "#\(alarmID) \(label)" }

    /// These settings joined by another alarm's (README, "When alarms meet"): whichever is
    /// stricter, field by field, so that a ring is never easier to stop than any alarm in it. A
    /// tag only (nfc) over a tag or math (any) over math; the harder problem; the fewer snoozes
    /// (0, unlimited, counts as the most) and the shorter; the louder, the quicker fade-in, the
    /// earlier escalation and wake-up check, the higher volume ceiling. The tags: those both alarms take, or, when they share
    /// none, the tags of the alarm with the stricter challenge (the first on a tie). The name,
    /// sound and one-shot flag stay the session's own.
    public func strictest(with other: RingSettings) -> RingSettings {
        var joined = self
        joined.challenge = Challenge.stricter(self.challenge, other.challenge)
        joined.mathDifficulty = max(self.mathDifficulty, other.mathDifficulty)
        joined.allowedTags = RingSettings.stricterTags(self, other)
        joined.maxSnoozes = RingSettings.sooner(self.maxSnoozes, other.maxSnoozes)
        joined.snoozeMinutes = min(self.snoozeMinutes, other.snoozeMinutes)
        let steps = max(self.laterSnoozeMinutes.count, other.laterSnoozeMinutes.count)
        joined.laterSnoozeMinutes = (0..<steps).map {
            min(minutes(ofSnooze: $0 + 2), other.minutes(ofSnooze: $0 + 2))
        }
        joined.volume = max(self.volume, other.volume)
        joined.fadeInSeconds = min(self.fadeInSeconds, other.fadeInSeconds)
        joined.escalateAfterSeconds = RingSettings.sooner(self.escalateAfterSeconds, other.escalateAfterSeconds)
        joined.wakeCheckSeconds = RingSettings.sooner(self.wakeCheckSeconds, other.wakeCheckSeconds)
        joined.mathProblems = max(self.mathProblems, other.mathProblems)
        joined.volumeCeiling = max(self.volumeCeiling, other.volumeCeiling)
        return joined
    }

    /// The smaller of two limits where 0 means none (unlimited, never).
    static func sooner(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    static func stricterTags(_ a: RingSettings, _ b: RingSettings) -> [String] {
        // A math-only alarm takes no tag: its list says nothing.
        let (left, right) = (a.challenge == .math ? nil : a.allowedTags, b.challenge == .math ? nil : b.allowedTags)
        switch (left, right) {
        case (nil, nil): return a.allowedTags
        case (let only?, nil), (nil, let only?): return only
        case (let x?, let y?):
            if x.isEmpty { return y }
            if y.isEmpty { return x }
            let both = x.filter { y.contains($0) }
            if !both.isEmpty { return both }
            return b.challenge.strictness > a.challenge.strictness ? y : x
        }
    }

    /// What a math fallback asks when a tag-only alarm meets no working reader: the hardest
    /// problem (README, "No reader at the ring").
    func forFallback() -> RingSettings {
        var harder = self
        harder.mathDifficulty = .hard
        return harder
    }
}

extension Challenge {
    /// How much it asks: math < any (a tag or math) < nfc (a tag only).
    public var strictness: Int {
        switch self {
        case .math: 0
        case .any: 1
        case .nfc: 2
        }
    }

    /// The stricter of two challenges.
    public static func stricter(_ a: Challenge, _ b: Challenge) -> Challenge { b.strictness > a.strictness ? b : a }
}

extension MathDifficulty: Comparable {
    private var rank: Int {
        switch self {
        case .easy: 0
        case .medium: 1
        case .hard: 2
        }
    }

    public static func < (a: MathDifficulty, b: MathDifficulty) -> Bool { a.rank < b.rank }
}

extension RingSettings: SnoozeLengths {}
