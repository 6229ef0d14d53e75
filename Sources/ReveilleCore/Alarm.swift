/// How the sleeper proves they are awake.
public enum Challenge: String, Codable, Sendable, CaseIterable {
    /// A registered NFC tag scanned on the reader.
    case nfc
    /// The right answer to a math problem.
    case math
    /// Either one.
    case any
}

/// How hard the math problem is (docs/guide/ringing.md, "When an alarm rings").
public enum MathDifficulty: String, Codable, Sendable, CaseIterable {
    /// `a + b`, 2-digit.
    case easy
    /// `a × b + c`.
    case medium
    /// `a × b + c × d`, 2-digit factors.
    case hard
}

/// When an alarm rings, before any layer changes it.
public enum Repeat: Hashable, Sendable {
    /// Every week on these days.
    case weekly(DaySet)
    /// Once, on this date.
    case once(CivilDate)

    /// Once, on `dateText` (`YYYY-MM-DD`, `today`, `tomorrow`) at `time`, which must still be ahead
    /// of `now`: the one rule alarms and reminders share for a date given.
    public static func once(
        _ dateText: String, at time: LocalTime, now: (date: CivilDate, time: LocalTime)
    ) throws(InputError) -> Repeat {
        let date = try CivilDate.parse(dateText, today: now.date)
        guard date > now.date || (date == now.date && time > now.time) else {
            throw InputError("\(date) \(time) has already passed; pick a later date or time")
        }
        return .once(date)
    }

    /// Once, at the next `time` from `now`: today if it is still ahead, else tomorrow.
    public static func next(_ time: LocalTime, now: (date: CivilDate, time: LocalTime)) -> Repeat {
        .once(time > now.time ? now.date : now.date.adding(days: 1))
    }
}

/// An alarm as the user set it. The schedule engine decides, day by day, whether and when it rings.
public struct Alarm: Hashable, Sendable, Identifiable {
    public var id: Int
    public var label: String
    public var time: LocalTime
    public var repeats: Repeat
    public var enabled: Bool
    /// A sound file path; nil means the built-in tone.
    public var sound: String?
    /// 0-100.
    public var volume: Int
    public var fadeInSeconds: Int
    public var challenge: Challenge
    public var mathDifficulty: MathDifficulty
    /// Labels of the tags that dismiss it; empty means any registered tag.
    public var tags: [String]
    /// 0 means unlimited.
    public var maxSnoozes: Int
    /// How long the first snooze lasts.
    public var snoozeMinutes: Int
    /// How long the second, third… snooze lasts (`--snooze-minutes 9,7,5`: `[7, 5]`), the last one
    /// for every snooze after it; empty: each lasts `snoozeMinutes`.
    public var laterSnoozeMinutes: [Int] = []
    public var skipHolidays: Bool
    /// Seconds after a dismissal that the clock asks "Are you up?"; 0: no wake-up check.
    public var wakeCheckSeconds: Int
    /// Seconds of ringing unanswered after which the sound rises to full volume; 0: never.
    public var escalateAfterSeconds: Int
    /// Seconds before the ring that the sunrise begins (a `lead` event, the page's light); 0: none.
    public var leadSeconds: Int
    /// Seconds before the ring within which a change that weakens it needs its challenge; 0: none.
    public var commitSeconds: Int
    /// The sound begins quietly in the sunrise's last minute (`--lead-sound`; needs a lead).
    public var leadSound: Bool
    /// Right answers in a row that stop it by math (`--problems 3`); a tag still stops it at once.
    public var mathProblems = 1
    /// The loudest any part of its ring plays, 0-100 (`--volume-ceiling`): the volume, the
    /// escalation's rise and the backup device all stop there. 100: no ceiling.
    public var volumeCeiling = 100

    public init(
        id: Int, label: String = "", time: LocalTime, repeats: Repeat, enabled: Bool = true,
        sound: String? = nil, volume: Int = Alarm.defaultVolume, fadeInSeconds: Int = Alarm.defaultFadeInSeconds,
        challenge: Challenge = .math, mathDifficulty: MathDifficulty = .medium, tags: [String] = [],
        maxSnoozes: Int = Alarm.defaultMaxSnoozes, snoozeMinutes: Int = Alarm.defaultSnoozeMinutes,
        skipHolidays: Bool = false, wakeCheckSeconds: Int = 0, escalateAfterSeconds: Int = 0, leadSeconds: Int = 0,
        commitSeconds: Int = 0, leadSound: Bool = false
    ) {
        self.leadSound = leadSound
        self.commitSeconds = commitSeconds
        self.wakeCheckSeconds = wakeCheckSeconds
        self.escalateAfterSeconds = escalateAfterSeconds
        self.leadSeconds = leadSeconds
        self.id = id
        self.label = label
        self.time = time
        self.repeats = repeats
        self.enabled = enabled
        self.sound = sound
        self.volume = volume
        self.fadeInSeconds = fadeInSeconds
        self.challenge = challenge
        self.mathDifficulty = mathDifficulty
        self.tags = tags
        self.maxSnoozes = maxSnoozes
        self.snoozeMinutes = snoozeMinutes
        self.skipHolidays = skipHolidays
    }

    public static let defaultVolume = 80
    public static let defaultFadeInSeconds = 30
    public static let defaultMaxSnoozes = 3
    public static let defaultSnoozeMinutes = 9
    /// How many snooze lengths `--snooze-minutes` takes.
    public static let snoozeLengthsLimit = 10
    /// How long after a dismissal the wake-up check may ask (`--wake-check`).
    public static let wakeCheckRange = 60...1800
    /// How long a ring may go unanswered before it rises to full volume (`--escalate-after`).
    public static let escalateRange = 60...3600
    /// How long before the ring the sunrise may begin (`--lead`).
    public static let leadRange = 60...7200
    /// How long before the ring its commitment may begin (`--commit`).
    public static let commitRange = 3600...86_400

    /// `#3 work` or `#3` when there is no label; `household ring` for the household's.
    public var name: String { Alarm.name(id: id, label: label) }

    /// The one place an alarm's name is made, for those who know only its id and label.
    public static func name(id: Int, label: String) -> String {
        if id == householdID { return label }
        return label.isEmpty ? "#\(id)" : "#\(id) \(label)"
    }

    /// An alarm named in a sentence: `alarm #3 work`, or `the household ring`.
    public static func phrase(id: Int, label: String) -> String {
        id == householdID ? "the \(label)" : "alarm \(name(id: id, label: label))"
    }

    /// The id of the household's ring, which no stored alarm has (theirs start at 1).
    public static let householdID = 0

    /// The household's ring: what a weekly rule or a date override for all alarms rings with on a
    /// day no alarm rings (docs/guide/schedule.md, "How the schedule decides"). It has the settings every new alarm
    /// gets (`[audio]` volume and fade-in, every other setting's default), no days of its own, and
    /// is never stored.
    public static func household(volume: Int = defaultVolume, fadeInSeconds: Int = defaultFadeInSeconds) -> Alarm {
        Alarm(
            id: householdID, label: "household ring", time: .midnight, repeats: .weekly(.none), volume: volume,
            fadeInSeconds: fadeInSeconds)
    }

    /// Whether this is the household's ring rather than an alarm someone added.
    public var isHousehold: Bool { id == Alarm.householdID }

    /// A label is shown in tables, logs and spoken: at most 64 characters, no control characters
    /// (a newline or an escape sequence would break a table or a terminal), not only spaces. Empty
    /// is no label.
    public static func checkLabel(_ label: String) throws(InputError) {
        guard label.count <= 64 else { throw InputError("label: at most 64 characters") }
        if let control = label.unicodeScalars.first(where: {
            $0.properties.generalCategory == .control || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value)
        }) {
            let code = String(control.value, radix: 16, uppercase: true)
            throw InputError(
                "label: control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code) is not allowed; use letters, digits, spaces and punctuation"
            )
        }
        guard label.isEmpty || !label.allSatisfy(\.isWhitespace) else {
            throw InputError("label: only spaces; give a name, like work, or \"\" for none")
        }
    }

    /// Checks the ranges a client could get wrong (each setting's own, then those between
    /// settings); the message names the field and the range.
    public func validate() throws(InputError) {
        for setting in Alarm.settings {
            if let problem = setting.problem(self) { throw InputError(problem) }
        }
        for minutes in laterSnoozeMinutes where !(1...120).contains(minutes) {
            throw InputError("snooze minutes \(minutes): must be 1-120")
        }
        guard !leadSound || leadSeconds > 0 else {
            throw InputError("--lead-sound: the sound begins at the end of a sunrise; give --lead too, like --lead 20m")
        }
        try Alarm.checkLabel(label)
        if case .weekly(let days) = repeats, days.isEmpty {
            throw InputError("days: an alarm needs at least one day, or a date for a one-shot")
        }
    }
}

extension Alarm {
    /// The range check of a duration setting that is 0 (off) or within `range`: the message
    /// names it, its value and `within` (`1-30 minutes after the dismissal`).
    static func offOr(_ range: ClosedRange<Int>, _ name: String, _ within: String) -> @Sendable (Int) -> String? {
        {
            $0 == 0 || range.contains($0)
                ? nil : "\(name) \(DurationText.format(seconds: $0)): must be \(within), or off"
        }
    }

    /// Sets each of `values` (by setting key) on the alarm; returns the first setting whose value
    /// was not of its kind, if any (the others are set).
    public mutating func set(_ values: [String: SettingValue]) -> AlarmSetting? {
        var wrong: AlarmSetting?
        for setting in Alarm.settings {
            if let value = values[setting.key], !setting.set(value, on: &self), wrong == nil { wrong = setting }
        }
        return wrong
    }

    /// The settings of an alarm beyond its name, time, repeat, sound and tags: each declared once,
    /// with its range and how commitment judges a change (see `AlarmSetting`).
    public static let settings: [AlarmSetting] = [
        AlarmSetting(
            \.volume, key: "volume", option: "--volume", help: "Volume, 0-100 (default 80).",
            treatment: "lower needs the challenge",
            sheet: SheetField(.main, "Volume", .slider(min: 0, max: 100, step: 5, unit: "%")),
            problem: { (0...100).contains($0) ? nil : "volume \($0): must be 0-100" },
            weakens: { $0.volume < $1.volume ? "lowers its volume (\($1.volume) → \($0.volume))" : nil }),
        AlarmSetting(
            \.fadeInSeconds, key: "fadeInSeconds", option: "--fade-in",
            help: "Seconds to rise from quiet to full volume (default 30).",
            treatment: "a longer fade-in needs the challenge",
            sheet: SheetField(
                .main, "Rises over", .durations(seconds: [10, 30, 60, 120, 300, 600], off: "no fade-in"), row: "volume"),
            problem: { (0...3600).contains($0) ? nil : "fade-in \($0) s: must be 0-3600 seconds" },
            weakens: {
                $0.fadeInSeconds > $1.fadeInSeconds
                    ? "makes its fade-in longer (\(DurationText.format(seconds: $1.fadeInSeconds)) → \(DurationText.format(seconds: $0.fadeInSeconds)))"
                    : nil
            }),
        AlarmSetting(
            \.challenge, key: "challenge", option: "--challenge",
            help: "What stops it: math, nfc or any (default math).",
            treatment: "anything that lets more stop it (nfc → any or math, any → math) needs the challenge",
            sheet: SheetField(
                .stop, "With",
                SheetField.choices([
                    (Challenge.math, "a math problem"), (.nfc, "its tag only"), (.any, "its tag or a math problem"),
                ])),
            weakens: {
                $0.challenge.strictness < $1.challenge.strictness
                    ? ($1.challenge == .nfc ? "lets something other than a tag stop it" : "lets math alone stop it")
                    : nil
            }),
        AlarmSetting(
            \.mathDifficulty, key: "mathDifficulty", option: "--difficulty",
            help: "Math problem: easy, medium or hard (default medium).", treatment: "easier needs the challenge",
            sheet: SheetField(
                .stop, "Problems",
                SheetField.choices([(MathDifficulty.easy, "easy"), (.medium, "medium"), (.hard, "hard")]),
                row: "challenge"),
            weakens: { $0.mathDifficulty < $1.mathDifficulty ? "makes its problem easier" : nil }),
        AlarmSetting(
            \.maxSnoozes, key: "maxSnoozes", option: "--max-snoozes",
            help: "Snoozes allowed, 0 for unlimited (default 3).",
            treatment: "more (or unlimited) needs the challenge",
            sheet: SheetField(
                .stop, "Snoozes",
                SheetField.choices([(0, "unlimited")] + [1, 2, 3, 4, 5, 6, 8, 10].map { ($0, String($0)) })),
            problem: { (0...100).contains($0) ? nil : "max snoozes \($0): must be 0-100 (0 means unlimited)" },
            weakens: {
                $1.maxSnoozes != 0 && ($0.maxSnoozes == 0 || $0.maxSnoozes > $1.maxSnoozes)
                    ? "allows more snoozes" : nil
            }),
        AlarmSetting(
            \.snoozeMinutes, key: "snoozeMinutes", option: "--snooze-minutes",
            help: "Minutes a snooze lasts (default 9); 9,7,5 makes each later snooze shorter, the last for the rest.",
            treatment: "longer needs the challenge",
            sheet: SheetField(
                .stop, "of", .lengths(later: "laterSnoozeMinutes"), after: "min", row: "maxSnoozes",
                note: "each later snooze shorter than the one before"),
            problem: { (1...120).contains($0) ? nil : "snooze minutes \($0): must be 1-120" },
            weakens: { $0.snoozeMinutes > $1.snoozeMinutes ? "makes its snoozes longer" : nil }),
        AlarmSetting(
            \.laterSnoozeMinutes, key: "laterSnoozeMinutes", option: "--snooze-minutes",
            help: "The second, third… snooze's minutes (the later lengths of --snooze-minutes 9,7,5).",
            treatment: "a later snooze longer than it was needs the challenge; shorter ones are free",
            problem: {
                $0.count < Alarm.snoozeLengthsLimit
                    ? nil : "snooze minutes: at most \(Alarm.snoozeLengthsLimit) lengths, like 9,7,5"
            },
            weakens: {
                $0.snoozeMinutes <= $1.snoozeMinutes && $0.snoozesLonger(than: $1) ? "makes its snoozes longer" : nil
            }),
        AlarmSetting(
            \.skipHolidays, key: "skipHolidays", option: "--skip-holidays",
            help: "Stay silent on holidays (from holiday calendars).",
            treatment: "judged on the schedule: on, when the ring's day is a holiday, needs the challenge",
            sheet: SheetField(.holidays, "Stay silent on holidays (from the holiday calendars)", .check)),
        AlarmSetting(
            \.wakeCheckSeconds, key: "wakeCheckSeconds", option: "--wake-check",
            help: "Ask \"Are you up?\" this long after the dismissal (1m-30m); unanswered, it rings again. off: none.",
            treatment: "off needs the challenge; another delay is free",
            sheet: SheetField(
                .up, "Ask “Are you up?”", SheetField.minutes([1, 2, 3, 5, 10, 15, 20, 30], off: "never"), after: "after"
            ),
            problem: offOr(Alarm.wakeCheckRange, "wake-up check", "1-30 minutes after the dismissal"),
            weakens: { $1.wakeCheckSeconds > 0 && $0.wakeCheckSeconds == 0 ? "turns its wake-up check off" : nil }),
        AlarmSetting(
            \.escalateAfterSeconds, key: "escalateAfterSeconds", option: "--escalate-after",
            help:
                "Rise to full volume, on the backup devices too, after ringing this long unanswered (1m-60m). off: never.",
            treatment: "later or off needs the challenge",
            sheet: SheetField(
                .up, "Full volume after", SheetField.minutes([1, 2, 3, 5, 10, 15, 20, 30, 60], off: "never"),
                after: "of ringing"),
            problem: offOr(Alarm.escalateRange, "escalate after", "1-60 minutes of ringing"),
            weakens: {
                $1.escalateAfterSeconds > 0
                    && ($0.escalateAfterSeconds == 0 || $0.escalateAfterSeconds > $1.escalateAfterSeconds)
                    ? "escalates it later or never" : nil
            }),
        AlarmSetting(
            \.leadSeconds, key: "leadSeconds", option: "--lead",
            help:
                "Begin a sunrise this long before the ring (1m-2h): a lead event for a lamp, and the page's light. off: none.",
            treatment: "free: the sunrise comes before the ring and does not stop it",
            sheet: SheetField(
                .sun, "Light up", SheetField.minutes([5, 10, 15, 20, 30, 45, 60, 90, 120], off: "no sunrise"),
                after: "before"),
            problem: offOr(Alarm.leadRange, "lead", "1-120 minutes before the ring")),
        AlarmSetting(
            \.leadSound, key: "leadSound", option: "--lead-sound",
            help: "With --lead: the sound begins quietly in the sunrise's last minute, then rings as usual.",
            treatment: "free: the quiet sound before the ring does not stop it",
            sheet: SheetField(.sun, "with a quiet sound in its last minute", .check, row: "leadSeconds")),
        AlarmSetting(
            \.mathProblems, key: "mathProblems", option: "--problems",
            help: "Math problems to answer right to stop it, 1-10 (default 1); a tag still stops it at once.",
            treatment: "fewer needs the challenge",
            sheet: SheetField(.stop, "×", SheetField.choices((1...10).map { ($0, String($0)) }), row: "challenge"),
            problem: { (1...10).contains($0) ? nil : "problems \($0): must be 1-10" },
            weakens: {
                $0.mathProblems < $1.mathProblems
                    ? "asks fewer problems (\($1.mathProblems) → \($0.mathProblems))" : nil
            }),
        AlarmSetting(
            \.volumeCeiling, key: "volumeCeiling", option: "--volume-ceiling",
            help:
                "The loudest it ever plays, 0-100 (default 100): its volume, the escalation and the backup device stop there (a quiet room, a sleeping partner).",
            treatment: "lower needs the challenge",
            sheet: SheetField(
                .up, "Never louder than",
                .atMost(percents: [90, 80, 70, 60, 50, 40, 30, 20], none: 100, noneWords: "no limit"),
                explained:
                    "Its volume, the rise to full volume and the backup speaker all stop there: for a quiet room or a sleeping partner."),
            problem: { (0...100).contains($0) ? nil : "volume ceiling \($0): must be 0-100" },
            weakens: {
                $0.volumeCeiling < $1.volumeCeiling
                    ? "lowers its volume ceiling (\($1.volumeCeiling) → \($0.volumeCeiling))" : nil
            }),
        AlarmSetting(
            \.commitSeconds, key: "commitSeconds", option: "--commit",
            help:
                "This long before a ring (1h-24h), turning it off, later or softer needs its challenge first. off: none.",
            treatment: "shorter or off needs the challenge",
            sheet: SheetField(
                .up, "Committed", SheetField.minutes([60, 120, 180, 240, 360, 480, 600, 720, 1080, 1440], off: "no"),
                after: "before it rings",
                explained:
                    "From then until the ring, turning it off, later or softer asks for its tag or problem first, so that a sleepy change at night does not count."),
            problem: offOr(Alarm.commitRange, "commit", "1-24 hours before the ring"),
            weakens: { $0.commitSeconds < $1.commitSeconds ? "shortens its commitment" : nil }),
    ]
}

/// Snooze lengths that may change from one snooze to the next (the iOzZZ design's growing
/// urgency): the first, then each later one, the last for every snooze after it.
public protocol SnoozeLengths {
    var snoozeMinutes: Int { get }
    var laterSnoozeMinutes: [Int] { get }
}

extension SnoozeLengths {
    /// Minutes the `n`th snooze (from 1) lasts.
    public func minutes(ofSnooze n: Int) -> Int {
        n <= 1 || laterSnoozeMinutes.isEmpty
            ? snoozeMinutes : laterSnoozeMinutes[min(n - 2, laterSnoozeMinutes.count - 1)]
    }

    /// `9` or `9,7,5`, as `--snooze-minutes` takes it.
    public var snoozeLengthsText: String {
        ([snoozeMinutes] + laterSnoozeMinutes).map(String.init).joined(separator: ",")
    }

    /// Whether some snooze lasts longer than the same snooze of `other`.
    public func snoozesLonger(than other: some SnoozeLengths) -> Bool {
        let steps = max(laterSnoozeMinutes.count, other.laterSnoozeMinutes.count) + 1
        return (1...steps).contains { minutes(ofSnooze: $0) > other.minutes(ofSnooze: $0) }
    }

    /// `9,7,5` or `9` parsed: 1-120 minutes each, at most `Alarm.snoozeLengthsLimit`.
    public static func parseLengths(_ text: String) throws(InputError) -> (first: Int, later: [Int]) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmed() }
        let values = parts.compactMap { Int($0) }
        guard !parts.isEmpty, values.count == parts.count, let first = values.first else {
            throw InputError("--snooze-minutes \"\(text)\": give minutes, like 9, or one length per snooze, like 9,7,5")
        }
        return (first, Array(values.dropFirst()))
    }
}

extension Alarm: SnoozeLengths {}

extension Alarm {
    /// The alarm without tag `label` (`tag rm`): with none left, it takes any registered tag.
    public func removingTag(_ label: String) -> Alarm {
        var alarm = self
        alarm.tags.removeAll { $0 == label }
        return alarm
    }
}
