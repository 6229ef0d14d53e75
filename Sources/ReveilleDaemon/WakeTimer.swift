import CReveilleShims
import Foundation
import Glibc
import Logging
import ReveilleProtocol
import Synchronization

/// Why the scheduler woke.
enum WakeReason: Sendable {
    /// The armed instant came, or the longest sleep ran out.
    case timer
    /// Someone set the system clock (timerfd's TFD_TIMER_CANCEL_ON_SET).
    case clockSet
    /// Something changed in the watched folder (/etc: the time zone link may have been replaced).
    case zoneFileChanged
    /// Something changed: an alarm, a session. Recompute.
    case poke
}

/// Sleeps until a wall-clock instant on a thread of its own: `poll` over a realtime timerfd (which
/// also wakes when the clock is set), an eventfd to poke it and, optionally, an inotify watch on
/// /etc (where the time zone link lives), and calls `onWake` on that thread.
///
/// With a test clock (an offset from the system clock), the armed instant is converted with the
/// offset read when arming, and the poll wakes every `checkInterval` so that a moved offset is seen.
final class WakeTimer: Sendable {
    private let timerFD: Int32
    private let eventFD: Int32
    private let checkInterval: Duration?
    /// inotify on the folder holding the zone link, or -1.
    private let watchFD: Int32
    private let stopping = Mutex(false)

    /// - Parameters:
    ///   - checkInterval: the longest the thread sleeps between looks (nil: until the timer).
    ///   - watchFolder: a folder to watch for changes (/etc, when following the system's zone).
    init(checkInterval: Duration? = nil, watchFolder: String? = nil) throws {
        timerFD = try systemCall("timerfd_create", "CLOCK_REALTIME") { RV_timerfd_realtime() }
        eventFD = try systemCall("eventfd", "wake timer") { RV_eventfd() }
        watchFD = watchFolder.map { RV_inotify_watch_directory($0) } ?? -1
        self.checkInterval = checkInterval
    }

    /// Starts the thread; it calls `onWake` once at once, then at every wake, until `stop`.
    func start(_ onWake: @escaping @Sendable (WakeReason) -> Void) {
        let thread = Thread { [self] in loop(onWake) }
        thread.name = "wake-timer"
        thread.start()
    }

    deinit {
        close(timerFD)
        close(eventFD)
        if watchFD >= 0 { close(watchFD) }
    }

    /// Wakes at the system-clock instant `instant` (seconds since the epoch).
    func arm(systemInstant instant: Double) {
        let seconds = instant.rounded(.down)
        let nanoseconds = Int((instant - seconds) * 1e9)
        _ = RV_timerfd_arm_realtime(timerFD, Int64(seconds), nanoseconds)
    }

    /// Wakes the scheduler now.
    func poke() {
        var one: UInt64 = 1
        _ = write(eventFD, &one, 8)
    }

    /// The thread exits after the wake it is handling, if any.
    func stop() {
        stopping.withLock { $0 = true }
        poke()
    }

    private func loop(_ onWake: (WakeReason) -> Void) {
        // A negative fd (no watch) is skipped by poll.
        var fds = [timerFD, eventFD, watchFD].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let timeout =
            checkInterval.map {
                Int32($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)
            } ?? -1
        onWake(.poke)  // a first look at start-up
        while !stopping.withLock({ $0 }) {
            for index in fds.indices { fds[index].revents = 0 }
            let ready = poll(&fds, nfds_t(fds.count), timeout)  // a negative fd (no watch) is skipped
            if ready < 0 {
                if errno == EINTR { continue }
                usleep(100_000)
                continue
            }
            var reason = WakeReason.timer
            var scratch: UInt64 = 0
            if fds[2].revents & Int16(POLLIN) != 0 {
                var events = [UInt8](repeating: 0, count: 4096)
                while events.withUnsafeMutableBytes({ read(watchFD, $0.baseAddress, $0.count) }) > 0 {}
                reason = .zoneFileChanged
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                _ = read(eventFD, &scratch, 8)
                reason = .poke
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                if read(timerFD, &scratch, 8) < 0 && errno == ECANCELED {
                    reason = .clockSet
                } else if reason != .poke {
                    reason = .timer
                }
            }
            if stopping.withLock({ $0 }) { break }
            onWake(reason)
        }
    }
}
