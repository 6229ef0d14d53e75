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
