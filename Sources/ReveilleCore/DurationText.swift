/// Durations as people type them: `20m`, `90s`, `1h30m`, `2h`.
public enum DurationText {
    /// Seconds in `text`, which must be within `range` (seconds). A bare number is refused: 5
    /// could mean minutes or seconds.
    public static func parse(_ text: String, range: ClosedRange<Int> = 1...(7 * 86_400)) throws(InputError) -> Int {
        let hint = "use a duration like 20m, 90s or 1h30m"
        if Int(text) != nil {
            throw InputError("duration \"\(text)\": give a unit, like \(text)m (minutes), \(text)s or \(text)h")
        }
        var total = 0
        var digits = ""
        for character in text.lowercased() {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int
            switch character {
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: throw InputError("duration \"\(text)\": \(hint)")
            }
            guard let value = Int(digits), value <= 100_000 else { throw InputError("duration \"\(text)\": \(hint)") }
            total += value * unit
            digits = ""
        }
        guard digits.isEmpty, total > 0 else { throw InputError("duration \"\(text)\": \(hint)") }
        guard range.contains(total) else {
            throw InputError(
                "duration \"\(text)\": must be \(words(range.lowerBound)) to \(words(range.upperBound))")
        }
        return total
    }

    /// A bound in words: `1 second`, `7 days`, `90 minutes`.
    static func words(_ seconds: Int) -> String {
        let (value, unit) =
            seconds % 86_400 == 0
            ? (seconds / 86_400, "day")
            : seconds % 3600 == 0
                ? (seconds / 3600, "hour")
                : seconds % 60 == 0 ? (seconds / 60, "minute") : (seconds, "second")
        return "\(value) \(unit)\(value == 1 ? "" : "s")"
    }

    /// `2d 3h 5m`, `4h 0m`, `12m`, `30s`.
    public static func format(seconds: Int) -> String {
        let s = max(0, seconds)
        let (d, h, m) = (s / 86_400, s / 3600 % 24, s / 60 % 60)
        if d > 0 { return "\(d)d \(h)h \(m)m" }
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m" }
        return "\(s)s"
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
