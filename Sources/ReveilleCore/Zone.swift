import FoundationEssentials

/// One time zone's rules as a value: its name, where the rules came from, and the offset from UTC
/// at any instant. The core reads offsets only through this; it never asks the system.
///
/// Two kinds of rules: a table of transitions, which the daemon reads from the operating system's
/// tzdata (`ReveilleConfig.ZoneInfo`), and Foundation's `TimeZone`. The programs link only
/// FoundationEssentials, whose `TimeZone` knows UTC and fixed offsets; a process that links the whole
/// of Foundation (the tests) also gets ICU's copy of every zone.
public struct Zone: Sendable, Hashable, CustomStringConvertible {
    /// The IANA name (`Europe/Berlin`), or the file's path when the system zone is an unnamed copy.
    public let identifier: String
    /// Where the rules came from, for `status` and the log: `tzdata 2025b`, `built-in rules`.
    public let origin: String
    private let rules: Rules

    private enum Rules: Sendable, Hashable {
        case table(ZoneTable)
        case foundation(TimeZone)
    }

    /// The rules Foundation's `TimeZone` knows in this process.
    public init(_ timeZone: TimeZone) {
        identifier = timeZone.identifier
        origin = "built-in rules"
        rules = .foundation(timeZone)
    }

    /// Rules read elsewhere, as a table of transitions.
    public init(identifier: String, origin: String, table: ZoneTable) {
        self.identifier = identifier
        self.origin = origin
        rules = .table(table)
    }

    /// The built-in rules of a zone by name, or nil when they do not know it.
    public init?(builtIn identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(zone)
    }

    /// UTC as a table of one offset: FoundationEssentials' `TimeZone`, all the programs link,
    /// does not know it by name.
    public static let utc = Zone(
        identifier: "UTC", origin: "built in", table: ZoneTable(initialOffset: 0, transitions: []))

    /// Seconds east of UTC at `instant` (seconds since the epoch).
    public func secondsFromGMT(at instant: Int) -> Int {
        switch rules {
        case .table(let table): table.offset(at: instant)
        case .foundation(let zone): zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
        }
    }

    /// Whether the rules are the copy built into the binary rather than the system's.
    public var isBuiltIn: Bool {
        if case .foundation = rules { true } else { false }
    }

    public var description: String { "\(identifier) (\(origin))" }
}

/// The offsets of a zone between two instants, as the transitions in that span: what holds before
/// the first transition, and what each transition changes it to. Before the span the first offset
/// holds, after it the last (the operating system's rules are read far beyond any alarm's horizon).
public struct ZoneTable: Sendable, Hashable {
    public let initialOffset: Int
    /// Instants, sorted, at which the offset changes, and the offset from each on.
    public let transitions: [Int]
    public let offsets: [Int]

    public init(initialOffset: Int, transitions: [(at: Int, offset: Int)]) {
        self.initialOffset = initialOffset
        let sorted = transitions.sorted { $0.at < $1.at }
        self.transitions = sorted.map(\.at)
        self.offsets = sorted.map(\.offset)
    }

    public func offset(at instant: Int) -> Int {
        // The last transition at or before `instant`.
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }
}
