/// A registered NFC tag: a label people use (`bathroom`) and the UID the reader sees, as hex.
public struct Tag: Sendable, Hashable, Codable {
    public var label: String
    public var uid: String
    /// When it was registered (seconds since the epoch).
    public var addedAt: Int

    public init(label: String, uid: String, addedAt: Int) {
        self.label = label
        self.uid = uid
        self.addedAt = addedAt
    }

    /// Labels are short names: letters, digits, `-`, `_`, `.`, at most 32.
    public static func checkLabel(_ label: String) throws(InputError) {
        guard !label.isEmpty, label.count <= 32,
            label.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
        else {
            throw InputError("tag label \"\(label)\": use 1-32 letters, digits, '-', '_' or '.', like bathroom")
        }
    }
}
