/// Where and how the page's alarm sheet shows a setting, declared with the setting
/// (`AlarmSetting.sheet`): the page builds the sheet from these, so a new setting needs no page
/// edit. The words are the sheet's; the range is the setting's own (`problem`).
public struct SheetField: Sendable, Encodable {
    /// The sheet's parts, in the order it shows them.
    public enum Group: String, Sendable, Encodable, CaseIterable {
        /// Always in view: volume, fade-in (the time, repeats and sound are the sheet's own).
        case main
        case stop
        case up
        case sun
        case holidays

        /// The part's title (its details' summary); none for `main`.
        public var title: String {
            switch self {
            case .main: ""
            case .stop: "How to stop it"
            case .up: "Make sure I get up"
            case .sun: "Sunrise"
            case .holidays: "Holidays"
            }
        }
    }

    /// How the value is picked.
    public enum Control: Sendable, Encodable {
        /// A slider over `min...max` by `step`, its value shown with `unit`.
        case slider(min: Int, max: Int, step: Int, unit: String)
        /// One of `choices` (the value, and its words).
        case choice([Choice])
        /// Off (0, said as `off`), or one of `seconds`, said as a duration.
        case durations(seconds: [Int], off: String)
        /// No limit (`none`, said as `noneWords`), or one of `percents`.
        case atMost(percents: [Int], none: Int, noneWords: String)
        /// A box to tick.
        case check
        /// Minutes of each snooze, `9` or `9,7,5`: this setting the first, `later` the rest.
        case lengths(later: String)

        private enum Key: String, CodingKey {
            case kind, min, max, step, unit, choices, seconds, off, percents, none, noneWords, later
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            switch self {
            case .slider(let min, let max, let step, let unit):
                try c.encode("slider", forKey: .kind)
                try c.encode(min, forKey: .min)
                try c.encode(max, forKey: .max)
                try c.encode(step, forKey: .step)
                try c.encode(unit, forKey: .unit)
            case .choice(let choices):
                try c.encode("choice", forKey: .kind)
                try c.encode(choices, forKey: .choices)
            case .durations(let seconds, let off):
                try c.encode("durations", forKey: .kind)
                try c.encode(seconds, forKey: .seconds)
                try c.encode(off, forKey: .off)
            case .atMost(let percents, let none, let noneWords):
                try c.encode("atMost", forKey: .kind)
                try c.encode(percents, forKey: .percents)
                try c.encode(none, forKey: .none)
                try c.encode(noneWords, forKey: .noneWords)
            case .check: try c.encode("check", forKey: .kind)
            case .lengths(let later):
                try c.encode("lengths", forKey: .kind)
                try c.encode(later, forKey: .later)
            }
        }
    }

    /// A value to choose, and its words.
    public struct Choice: Sendable, Encodable {
        public let value: SettingValue
        public let words: String
    }

    public let group: Group
    /// The words before the control ("Never louder than"); for a box, its words.
    public let label: String
    /// The words after it ("before it rings").
    public let after: String
    public let control: Control
    /// What it does, shown under it in a person's words (no ranges, keys or defaults: the CLI's
    /// help says those), when it is not plain from its label; nil: nothing under it.
    public let explained: String?
    /// The row it shares, by the key of the setting the row is first named by (nil: a row of its
    /// own): "×" of a problem's count sits beside its difficulty though declared later.
    public let row: String?
    /// A note at the row's end ("each later snooze shorter").
    public let note: String

    public init(
        _ group: Group, _ label: String, _ control: Control, after: String = "", explained: String? = nil,
        row: String? = nil, note: String = ""
    ) {
        self.group = group
        self.label = label
        self.control = control
        self.after = after
        self.explained = explained
        self.row = row
        self.note = note
    }

    /// Choices of words for values of one type.
    public static func choices<Value: SettingValueType>(_ list: [(Value, String)]) -> Control {
        .choice(list.map { Choice(value: $0.0.setting, words: $0.1) })
    }

    /// Minutes as seconds.
    public static func minutes(_ list: [Int], off: String) -> Control {
        .durations(seconds: list.map { $0 * 60 }, off: off)
    }
}
