/// Missed alarms (docs/guide/ringing.md, "When an alarm rings"): of the occurrences that came due while no one was looking (the daemon
/// was down, or the clock jumped), the latest one within the grace rings at once; every other one
/// is recorded as missed and never rung late.
public enum MissedAlarms {
    /// `ring`: the latest within the grace; `joining`: others due at that same instant, which ring
    /// as its session (two alarms set for one time are one ring, not a ring and a miss);
    /// `missed`: the rest.
    public static func sort(_ due: [Decision], now: Int, graceSeconds: Int) -> (
        ring: Decision?, joining: [Decision], missed: [Decision]
    ) {
        // Pairs of (instant, decision), oldest first. (Swift 6.3.1's optimizer crashed on a version
        // that unwrapped `ringInstant` inside the guard below.)
        var rings: [(instant: Int, decision: Decision)] = []
        for decision in due {
            if let instant = decision.ringInstant, instant <= now { rings.append((instant, decision)) }
        }
        rings.sort { ($0.instant, $0.decision.alarmID) < ($1.instant, $1.decision.alarmID) }
        guard let latest = rings.last, now - latest.instant <= graceSeconds else {
            return (nil, [], rings.map(\.decision))
        }
        let together = rings.filter { $0.instant == latest.instant }.map(\.decision)
        let earlier = rings.filter { $0.instant < latest.instant }.map(\.decision)
        return (together.first, Array(together.dropFirst()), earlier)
    }
}
