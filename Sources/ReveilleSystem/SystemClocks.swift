import Glibc

/// The monotonic clock (CLOCK_MONOTONIC) in seconds: for intervals, rate limits and backoff, which
/// a wall clock set back or forward must not stretch or cut.
public enum Monotonic {
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// CLOCK_BOOTTIME in seconds: monotonic, and counting a suspend, as a process's start time in
    /// /proc is.
    public static func bootSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// A moment ahead on the monotonic clock: what is left of a wait, which a step of the wall clock
/// (network time arriving, `date -s`) neither cuts nor stretches.
public struct Deadline: Sendable, Equatable {
    public let at: Double

    public init(in seconds: Double) { at = Monotonic.seconds() + seconds }

    /// Seconds left, never below 0.
    public var remaining: Double { max(0, at - Monotonic.seconds()) }
    public var hasPassed: Bool { remaining <= 0 }
    /// What is left as poll(2)'s timeout, rounded up so that a wait does not end early.
    public var pollMilliseconds: Int32 { Int32(min(Double(Int32.max), (remaining * 1000).rounded(.up))) }
}
