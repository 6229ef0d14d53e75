import CSystemd
import Foundation
import Logging

/// Talks to systemd through libsystemd's sd_notify: READY once the socket serves, STOPPING at
/// SIGTERM, and, when the unit sets `WatchdogSec=`, a ping while the daemon is healthy. Outside
/// systemd (no $NOTIFY_SOCKET) every call does nothing.
enum ServiceManager {
    /// sd_notify(0, "READY=1\nSTATUS=...").
    static func ready(_ status: String) {
        sd_notify(0, "READY=1\nSTATUS=\(status)")
    }

    /// sd_notify(0, "STOPPING=1").
    static func stopping() {
        sd_notify(0, "STOPPING=1\nSTATUS=stopping")
    }

    /// sd_watchdog_enabled: the watchdog period systemd expects pings within, if any.
    static func watchdogPeriod() -> Double? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return Double(microseconds) / 1_000_000
    }
}

/// Pings systemd's watchdog at half its period, on a thread of its own, as long as `healthy`
/// returns: it takes the controller's lock, so a daemon stuck holding it stops pinging and
/// systemd restarts it.
final class WatchdogPinger: Sendable {
    private let period: Double

    init(period: Double) {
        self.period = period
    }

    func start(healthy: @escaping @Sendable () -> Bool, logger: Logger) {
        let interval = period / 2
        logger.info(
            "systemd watchdog: \(String(format: "%.0f", period)) s; pinging every \(String(format: "%.0f", interval)) s"
        )
        let thread = Thread {
            while true {
                if healthy() { sd_notify(0, "WATCHDOG=1") }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "watchdog"
        thread.start()
    }
}
