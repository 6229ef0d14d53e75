/// A wall-clock time of day, to the second: `06:45`, or `14:20:30` for a one-shot set with `--in`.
public struct LocalTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since local midnight, 0..<86400.
    public let secondsOfDay: Int

    public init?(secondsOfDay: Int) {
        guard (0..<86_400).contains(secondsOfDay) else { return nil }
        self.secondsOfDay = secondsOfDay
    }

    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.secondsOfDay = hour * 3600 + minute * 60 + second
    }

    public var hour: Int { secondsOfDay / 3600 }
    public var minute: Int { secondsOfDay / 60 % 60 }
    public var second: Int { secondsOfDay % 60 }

    /// 00:00, the first instant of a day.
    public static let midnight = LocalTime(secondsOfDay: 0)!

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool {
        lhs.secondsOfDay < rhs.secondsOfDay
    }

    /// `06:45`, or `06:45:30` when seconds are set.
    public var description: String {
        second == 0 ? hoursAndMinutes : withSeconds
    }

    /// `06:45:00`: always with seconds.
    public var withSeconds: String {
        "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    /// `06:45`: without seconds, even when set.
    public var hoursAndMinutes: String {
        "\(pad(hour, 2)):\(pad(minute, 2))"
    }

    /// Parses `6:45`, `06:45`, `18:30` or `06:45:30` (24-hour clock).
    public static func parse(_ text: String) throws(InputError) -> LocalTime {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let hint = "use HH:MM on a 24-hour clock, like 06:45 or 18:30"
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 }),
            let h = Int(parts[0]), let m = Int(parts[1])
        else {
            throw InputError("time \"\(text)\": \(hint)")
        }
        guard parts[1].count == 2, parts.count == 2 || parts[2].count == 2 else {
            throw InputError("time \"\(text)\": \(hint)")
        }
        let s = parts.count == 3 ? Int(parts[2]) : 0
        guard let s else { throw InputError("time \"\(text)\": \(hint)") }
        guard (0...23).contains(h) else { throw InputError("time \"\(text)\": hour must be 0-23") }
        guard (0...59).contains(m) else { throw InputError("time \"\(text)\": minute must be 00-59") }
        guard (0...59).contains(s) else { throw InputError("time \"\(text)\": second must be 00-59") }
        return LocalTime(hour: h, minute: m, second: s)!
    }
}

extension LocalTime: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try LocalTime.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
