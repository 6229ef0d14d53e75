/// A day of the week, Monday first (ISO 8601).
public enum Weekday: Int, CaseIterable, Codable, Sendable, Comparable {
    case monday = 0, tuesday, wednesday, thursday, friday, saturday, sunday

    /// `mon`, `tue`, ...
    public var shortName: String { Weekday.shortNames[rawValue] }

    /// `Mon`, `Tue`, ...
    public var displayName: String {
        shortName.prefix(1).uppercased() + shortName.dropFirst()
    }

    /// `Monday`, `Tuesday`, ...: as the voice says it.
    public var fullName: String {
        let name = Weekday.fullNames[rawValue]
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Saturday and Sunday.
    public var isWeekend: Bool { self == .saturday || self == .sunday }

    static let shortNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let fullNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Accepts `mon`, `monday`, `Mon`.
    static func named(_ text: Substring) -> Weekday? {
        let lower = text.lowercased()
        guard lower.count >= 3 else { return nil }
        if let index = shortNames.firstIndex(of: lower) ?? fullNames.firstIndex(of: lower) {
            return Weekday(rawValue: index)
        }
        return nil
    }
}

/// A set of weekdays on which an alarm repeats: `mon-fri`, `sat,sun`, `daily`.
public struct DaySet: Hashable, Sendable, CustomStringConvertible {
    /// Bit `n` set means `Weekday(rawValue: n)` is in the set.
    public let mask: UInt8

    public init(mask: UInt8) {
        self.mask = mask & 0x7F
    }

    public init(_ days: some Sequence<Weekday>) {
        self.init(mask: days.reduce(0) { $0 | (1 << UInt8($1.rawValue)) })
    }

    public static let none = DaySet(mask: 0)
    public static let daily = DaySet(mask: 0x7F)
    public static let weekdays = DaySet(mask: 0x1F)
    public static let weekends = DaySet(mask: 0x60)

    public var isEmpty: Bool { mask == 0 }

    public func contains(_ day: Weekday) -> Bool {
        mask & (1 << UInt8(day.rawValue)) != 0
    }

    public func intersection(_ other: DaySet) -> DaySet {
        DaySet(mask: mask & other.mask)
    }

    public var days: [Weekday] { Weekday.allCases.filter(contains) }

    /// The shortest canonical text: `daily`, `mon-fri`, `sat,sun`, `mon,wed-fri`.
    public var description: String {
        if self == .daily { return "daily" }
        if isEmpty { return "never" }
        var pieces: [String] = []
        var index = 0
        while index < 7 {
            guard contains(Weekday(rawValue: index)!) else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < 7, contains(Weekday(rawValue: end + 1)!) { end += 1 }
            let first = Weekday.shortNames[index]
            switch end - index {
            case 0: pieces.append(first)
            case 1: pieces.append("\(first),\(Weekday.shortNames[end])")
            default: pieces.append("\(first)-\(Weekday.shortNames[end])")
            }
            index = end + 1
        }
        return pieces.joined(separator: ",")
    }

    /// Parses `mon-fri`, `sat,sun`, `fri-mon` (wraps), `daily`, `weekdays`, `weekends`, `mon,wed,fri`.
    public static func parse(_ text: String) throws(InputError) -> DaySet {
        let hint = "use day names (mon,tue,wed,thu,fri,sat,sun), ranges like mon-fri, or daily, weekdays, weekends"
        var mask: UInt8 = 0
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            let word = item.trimmingSpaces()
            switch word.lowercased() {
            case "daily", "everyday", "all": mask |= DaySet.daily.mask
            case "weekdays": mask |= DaySet.weekdays.mask
            case "weekends", "weekend": mask |= DaySet.weekends.mask
            default:
                let ends = word.split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(ends.count) else {
                    throw InputError("days \"\(text)\": \"\(word)\" is not a day or a range; \(hint)")
                }
                var resolved: [Weekday] = []
                for end in ends {
                    guard let day = Weekday.named(end) else {
                        let shown = end.isEmpty ? word : end
                        throw InputError("days \"\(text)\": unknown day \"\(shown)\"; \(hint)")
                    }
                    resolved.append(day)
                }
                var day = resolved[0].rawValue
                let last = resolved[resolved.count - 1].rawValue
                while true {
                    mask |= 1 << UInt8(day)
                    if day == last { break }
                    day = (day + 1) % 7
                }
            }
        }
        return DaySet(mask: mask)
    }
}

extension DaySet: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text == "never" {
            self = .none
            return
        }
        do {
            self = try DaySet.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
