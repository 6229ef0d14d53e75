/// The code of a household machine's key (`7KQ2-M9XC-40TF-HZ3D`): 16 characters of Crockford's
/// base32, in four groups. `[mqtt] hub_key` and `machines` hold them.
public enum HouseholdCode {
    /// Crockford's base32: no I, L, O or U, which are misread.
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A code as a person typed it, in its one spelling: case, spaces and dashes do not matter,
    /// and O, I and L are read as 0, 1 and 1. nil when it is not 16 such characters.
    public static func normalized(_ text: String) -> String? {
        var out: [Character] = []
        for character in text.uppercased() where character != "-" && character != " " {
            let read: Character =
                switch character {
                case "O": "0"
                case "I", "L": "1"
                default: character
                }
            guard alphabet.contains(read) else { return nil }
            out.append(read)
        }
        guard out.count == 16 else { return nil }
        return grouped(out)
    }

    /// 16 characters in four groups of four: `7KQ2-M9XC-40TF-HZ3D`.
    public static func grouped(_ characters: [Character]) -> String {
        stride(from: 0, to: characters.count, by: 4).map { String(characters[$0..<min($0 + 4, characters.count)]) }
            .joined(separator: "-")
    }
}
