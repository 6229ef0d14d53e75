/// Text from a user, a request or a calendar, made safe for one line of a log or a terminal:
/// control characters (C0, DEL, C1) and the bidirectional overrides that reorder what a reader
/// sees are shown escaped, as `\n` or `\u{1B}`, so a label can neither forge a log line nor
/// send an escape sequence to someone's terminal.
public enum Sanitized {
    /// `text` with every control character escaped; unchanged (no copy) when it has none.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 controls, DEL, C1 controls, and the Unicode bidirectional embeddings, overrides and isolates.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
