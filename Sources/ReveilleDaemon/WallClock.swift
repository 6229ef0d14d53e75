import Foundation

/// Where the daemon reads the time. The real one reads the system clock; tests move their own.
public protocol WallClock: Sendable {
    func now() -> Date
    /// How often the scheduler must look to notice this clock moving other than by the system
    /// clock (nil: the system clock's own jump notices suffice).
    var checkInterval: Duration? { get }
}

extension WallClock {
    public var checkInterval: Duration? { nil }

    /// The system-clock instant at which this clock reads `wall` (seconds since the epoch).
    func systemInstant(forWall wall: Double) -> Double {
        wall - (now().timeIntervalSince1970 - Date().timeIntervalSince1970)
    }
}

/// The system's wall clock.
public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Date { Date() }
}

/// The system clock shifted by an offset that a test writes to a file (seconds, may be fractional).
/// Lets end-to-end tests put the daemon on a chosen date, or make its clock jump, without touching
/// the machine's clock. A missing or unreadable file means no offset.
public struct OffsetFileClock: WallClock {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func now() -> Date {
        Date().addingTimeInterval(offset())
    }

    /// Tests move the offset by rewriting the file: look often enough to see it.
    public var checkInterval: Duration? { .milliseconds(100) }

    func offset() -> TimeInterval {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines)
        else { return 0 }
        return TimeInterval(text) ?? 0
    }
}
