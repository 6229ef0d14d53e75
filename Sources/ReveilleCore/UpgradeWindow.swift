/// When the system's unattended upgrades may run (hardware.md, "Updates"): never while an alarm
/// rings, is snoozed or its sunrise glows, nor within `margin` seconds before the next ring, so
/// an upgrade's load, a restarted service or a power cut mid-upgrade is never near a ring.
public enum UpgradeWindow {
    public static let margin = 3600

    /// Why upgrades wait now; nil: they may run. `nextRing`: when the next ring (or its sunrise)
    /// rings, seconds since the epoch; `ringing`: a ring session is going on (ringing, snoozed,
    /// waiting for "Are you up?") or a sunrise before one.
    public static func refusal(now: Int, nextRing: Int?, ringing: Bool, margin: Int = margin) -> String? {
        if ringing { return "an alarm is ringing or snoozed: updates wait until it is over" }
        if let next = nextRing, next >= now, next - now < margin {
            let minutes = max(1, (next - now + 59) / 60)
            return
                "the next alarm rings in \(minutes) minute\(minutes == 1 ? "" : "s"): updates wait until an hour before none"
        }
        return nil
    }
}
