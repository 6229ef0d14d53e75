/// What the reader saw change between two polls.
public enum TagEvent: Hashable, Sendable {
    /// A tag is in the field. `fresh`: it came while the reader was polling (a tap); otherwise it
    /// was already there at the first poll (lying on the reader when an alarm started ringing).
    case placed([UInt8], fresh: Bool)
    /// The tag left the field.
    case lifted
}

/// Turns what each poll saw into tag events: a tag held on the reader counts once; it counts
/// again only after a poll without it (taken away and put back) or when another tag replaces it.
/// What the first poll after a reset sees is reported as not fresh.
public struct TagDebouncer: Sendable {
    private var present: [UInt8]?
    private var primed = false

    public init() {}

    /// The events for this poll's result, oldest first.
    public mutating func seen(_ uid: [UInt8]?) -> [TagEvent] {
        defer {
            present = uid
            primed = true
        }
        var events: [TagEvent] = []
        if present != nil, uid != present { events.append(.lifted) }
        if let uid, uid != present { events.append(.placed(uid, fresh: primed)) }
        return events
    }

    /// Forgets the tag in the field, and that any poll ran (polling begins).
    public mutating func reset() {
        present = nil
        primed = false
    }

    /// The reader failed and was reopened. If the last polls saw an empty field, a tag found now
    /// was placed since: still fresh. If a tag was there, it may still be lying there: not fresh.
    public mutating func reopened() {
        if present != nil { reset() }
    }
}

/// Delays between attempts to reopen a failing reader: 1, 2, 4, then 8 s. Short, because it
/// only runs while a tag is wanted (an alarm rings): idle, the reader is looked at far less often.
public struct Backoff: Sendable {
    public private(set) var attempts = 0
    public let maximum: Double

    public init(maximum: Double = 8) { self.maximum = maximum }

    public mutating func next() -> Double {
        defer { attempts += 1 }
        return min(maximum, Double(1 << min(attempts, 10)))
    }

    public mutating func reset() { attempts = 0 }
}

/// A tag's UID as hex, `04A1B2C3D4E5F6`, and back.
public enum UID {
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined()
    }

    /// Parses hex with optional `:` or space separators; nil unless 4, 7 or 10 bytes.
    public static func parse(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != ":" && $0 != " " }
        guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return [4, 7, 10].contains(bytes.count) ? bytes : nil
    }

    /// A 4-byte UID starting with 0x08 is random: the tag (or a phone) makes up a new one at
    /// every tap, so it cannot be registered.
    public static func isRandom(_ bytes: [UInt8]) -> Bool { bytes.count == 4 && bytes[0] == 0x08 }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
