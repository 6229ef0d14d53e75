import Glibc
import Synchronization

/// The process's own time zone (`TZ`, as glibc's `localtime_r` reads it), which a zone's loader
/// borrows for a moment (`ZoneInfo`: glibc is asked for another zone's offsets with `TZ` pointing
/// at its file). A reader on another thread meanwhile would get that zone: `local(_:)` notices
/// the loan, by a generation counter that is odd while it lasts, and uses the last offset it
/// read instead.
public enum ProcessZone {
    private static let generation = Atomic<Int>(0)
    private static let lastOffset = Atomic<Int>(0)

    /// Runs `body` with `TZ` lent to it; one loan at a time is the caller's to ensure.
    public static func lend<T>(_ body: () throws -> T) rethrows -> T {
        generation.add(1, ordering: .sequentiallyConsistent)
        defer { generation.add(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    /// `seconds` (since the epoch) broken down in the process's zone (`localtime_r`), or, while
    /// `TZ` is lent, at the offset last read.
    public static func local(_ seconds: time_t) -> tm {
        var time = seconds
        var parts = tm()
        let before = generation.load(ordering: .sequentiallyConsistent)
        localtime_r(&time, &parts)
        let after = generation.load(ordering: .sequentiallyConsistent)
        if before % 2 == 0 && before == after {
            lastOffset.store(parts.tm_gmtoff, ordering: .relaxed)
            return parts
        }
        let offset = lastOffset.load(ordering: .relaxed)
        time = seconds + time_t(offset)
        gmtime_r(&time, &parts)
        parts.tm_gmtoff = offset
        return parts
    }
}
