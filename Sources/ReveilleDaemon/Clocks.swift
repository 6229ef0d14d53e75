import CReveilleShims
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleSystem

/// Where the daemon reads the time: the one value every part that reads a clock is given (the
/// machine, the socket's deadlines, the tag waits, the bedside keypad, the app counter, the sound
/// test). The real one reads the system's clocks; tests move their own, and a virtual hour moves
/// both readings together, so it is time passing, not a clock jump.
public protocol Clocks: Sendable {
    /// The wall clock: what alarms are set by. Network time or `date -s` may step it.
    func now() -> Date
    /// Seconds on CLOCK_BOOTTIME: time that passed, which a step of the wall clock (network time
    /// arriving, `date -s`) does not move, and which counts a suspend. The daemon's one monotonic
    /// reading: app usage, idle clients, tag waits and key presses are all measured on it.
    func elapsed() -> Double
    /// How often the scheduler must look to notice this clock moving other than by the system
    /// clock (nil: the system clock's own jump notices suffice).
    var checkInterval: Duration? { get }
    /// Whether network time is known to keep this clock right: it then ends a wait for a clock
    /// that reads before the last handled instant (docs/guide/recovery.md, "When the clock was wrong").
    var isSynchronized: Bool { get }
}

extension Clocks {
    public var checkInterval: Duration? { nil }
    public var isSynchronized: Bool { false }

    public func elapsed() -> Double { bootTime() }

    /// Both readings, taken together: what an event reaches the machine with.
    public func instant() -> Instant { Instant(wall: now().timeIntervalSince1970, monotonic: elapsed()) }

    /// The system-clock instant at which this clock reads `wall` (seconds since the epoch).
    func systemInstant(forWall wall: Double) -> Double {
        wall - (now().timeIntervalSince1970 - Date().timeIntervalSince1970)
    }
}

/// The system's wall clock.
public struct SystemClock: Clocks {
    public init() {}

    public func now() -> Date { Date() }

    /// systemd-timesyncd's `/run/systemd/timesync/synchronized`, else the kernel's own flag
    /// (adjtimex, read only; refused under the unit's ProtectClock=, hence the file first).
    public var isSynchronized: Bool {
        access("/run/systemd/timesync/synchronized", F_OK) == 0 || RV_clock_synchronized() == 1
    }
}

/// CLOCK_BOOTTIME in seconds.
func bootTime() -> Double { Monotonic.bootSeconds() }

/// The system clock shifted by an offset that a test writes to a file (seconds, may be fractional).
/// Lets end-to-end tests put the daemon on a chosen date, or make its clock jump, without touching
/// the machine's clock. A missing or unreadable file means no offset.
///
/// The file may hold a second number, an offset of `elapsed()`: a test moves both to make time
/// pass (an app's minutes are counted), and only the first to step the wall clock (they are not).
public struct OffsetFileClock: Clocks {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func now() -> Date {
        Date().addingTimeInterval(offsets().wall)
    }

    public func elapsed() -> Double { bootTime() + offsets().elapsed }

    /// A test says network time is right by creating `PATH.synchronized`.
    public var isSynchronized: Bool { access(path + ".synchronized", F_OK) == 0 }

    /// Tests move the offset by rewriting the file: look often enough to see it.
    public var checkInterval: Duration? { .milliseconds(100) }

    func offsets() -> (wall: TimeInterval, elapsed: TimeInterval) {
        guard let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)?.trimmed()
        else { return (0, 0) }
        let numbers = text.split(separator: " ").compactMap { TimeInterval(String($0)) }
        return (numbers.first ?? 0, numbers.dropFirst().first ?? 0)
    }
}
