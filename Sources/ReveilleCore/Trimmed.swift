extension StringProtocol {
    /// The text without the blanks at either end: spaces, tabs and, unless `newlines` is false,
    /// line breaks (what Foundation's `trimmingCharacters(in:)` does, which FoundationEssentials lacks).
    public func trimmed(newlines: Bool = true) -> String {
        let blank: (Character) -> Bool = { newlines ? $0.isWhitespace : ($0.isWhitespace && !$0.isNewline) }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension String {
    /// Exactly `width` characters: spaces after it, or cut (as Foundation's `padding(toLength:)`).
    public func fitted(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
