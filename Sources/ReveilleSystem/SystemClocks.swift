import Glibc

/// The one place that reads the system's clocks (besides the daemon's `Clocks`, which tests move
/// by hand and which reads its wall clock through `Wall` too).
///
/// The monotonic clock (CLOCK_MONOTONIC) in seconds: for intervals, rate limits, backoff and the
/// sound's pacing, which a wall clock set back or forward must not stretch or cut.
public enum Monotonic {
    public static func seconds() -> Double {
        let now = reading(CLOCK_MONOTONIC)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// CLOCK_MONOTONIC in nanoseconds: a stamp another thread can compare atomically (a stall
    /// watchdog's "busy since").
    public static func nanoseconds() -> UInt64 {
        let now = reading(CLOCK_MONOTONIC)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// CLOCK_BOOTTIME in seconds: monotonic, and counting a suspend, as a process's start time in
    /// /proc is.
    public static func bootSeconds() -> Double {
        let now = reading(CLOCK_BOOTTIME)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// The wall clock (CLOCK_REALTIME): what people and the schedule read. Network time or `date -s`
/// may step it; a wait never runs on it (`Deadline` does).
public enum Wall {
    /// Seconds since the epoch, whole.
    public static func seconds() -> Int { reading(CLOCK_REALTIME).tv_sec }

    /// Seconds and nanoseconds since the epoch, for a log line's stamp.
    public static func now() -> timespec { reading(CLOCK_REALTIME) }
}

private func reading(_ clock: clockid_t) -> timespec {
    var now = timespec()
    clock_gettime(clock, &now)
    return now
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
