import CSystemd
import FoundationEssentials
import Glibc
import Logging

/// Talks to systemd through libsystemd's sd_notify: READY once the socket serves, STOPPING at
/// SIGTERM, and, when the unit sets `WatchdogSec=`, a ping while the daemon is healthy. Outside
/// systemd (no $NOTIFY_SOCKET) every call does nothing.
enum ServiceManager {
    /// sd_notify(0, "READY=1\nSTATUS=...").
    static func ready(_ status: String) {
        sd_notify(0, "READY=1\nSTATUS=\(status)")
    }

    /// sd_notify(0, "RELOADING=1"): the new start's READY=1 ends the reload.
    static func reloading() {
        sd_notify(0, "RELOADING=1\nSTATUS=starting again with the new settings")
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

extension ServiceManager {
    /// sd_notify(0, "WATCHDOG=1"): sent from the event loop's own timer, so that a loop stuck in a
    /// handler stops pinging and systemd restarts the daemon.
    static func watchdogPing() {
        sd_notify(0, "WATCHDOG=1")
    }

    /// sd_notify(0, "WATCHDOG=trigger"): systemd acts as if the watchdog had run out, now.
    static func watchdogTrigger() {
        sd_notify(0, "WATCHDOG=trigger\nSTATUS=app guard stalled")
    }
}
