import Foundation

/// Where the daemon reads the time. The real one reads the system clock; tests move their own.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Date { Date() }
}
