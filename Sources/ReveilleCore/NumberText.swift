/// Numbers as the log, the CLI and the page print them, without Foundation's `String(format:)`
/// (which would link the whole of Foundation and ICU's 34 MB of data into every program).
public enum NumberText {
    /// `value` with `digits` decimals, rounded half away from zero: `fixed(2.25, 1)` is `2.3`;
    /// `signed` puts `+` before a positive number, as `%+.1f` does.
    public static func fixed(_ value: Double, _ digits: Int, signed: Bool = false) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        var text = String(whole)
        if digits > 0 {
            text += "." + padded(Int(units % UInt64(scale)), width: digits)
        }
        if value < 0 && units > 0 { return "-" + text }
        return signed ? "+" + text : text
    }

    /// `n` with zeros before it up to `width` digits, as `%02d` does.
    public static func padded(_ n: Int, width: Int) -> String {
        let digits = String(n.magnitude)
        let zeros = String(repeating: "0", count: max(0, width - digits.count))
        return (n < 0 ? "-" : "") + zeros + digits
    }

    /// Bytes as lowercase hexadecimal, two digits each.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
