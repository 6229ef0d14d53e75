/// Durations as people type them: `20m`, `90s`, `1h30m`, `2h`.
public enum DurationText {
    /// Seconds in `text`. A bare number is minutes.
    public static func parse(_ text: String) throws(InputError) -> Int {
        let hint = "use a duration like 20m, 90s or 1h30m"
        if let minutes = Int(text), minutes > 0 { return minutes * 60 }
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
        return total
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
