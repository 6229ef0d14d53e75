import FoundationEssentials

/// Commitment (README, "Commitment"): within an alarm's `--commit` before its next ring, a change
/// that would weaken that ring needs the alarm's own challenge first. Which changes weaken is
/// decided here, by comparing the schedule before and after the change, so that every way of
/// making one (an edit, a rule, an override, a pause, from any client) is judged the same.
public enum Commitment {
    /// A committed ring that a change would weaken.
    public struct Weakening: Sendable, Equatable {
        public var alarm: Alarm
        /// The ring it weakens, and when its commitment window opened (`ringsAt - commitSeconds`).
        public var ringsAt: Int
        public var windowOpened: Int
        /// What the change does to it, in words: `silences it`, `moves it later (07:30)`.
        public var what: String
    }

    /// How long a challenge passed for an alarm keeps its changes open.
    public static let unlockSeconds = 300

    /// The committed rings of `before` that `after` weakens, as of `now`. Earlier, louder or
    /// stricter is free; so is everything outside an alarm's window.
    public static func weakenings(before: ScheduleState, after: ScheduleState, zone: Zone, now: Int) -> [Weakening] {
        var found: [Weakening] = []
        for alarm in before.alarms where alarm.commitSeconds > 0 {
            guard let ring = nextRing(of: alarm, in: before, zone: zone, after: now),
                ring - now <= alarm.commitSeconds
            else { continue }
            let window = ring - alarm.commitSeconds
            func weakened(_ what: String) {
                found.append(Weakening(alarm: alarm, ringsAt: ring, windowOpened: window, what: what))
            }
            guard let changed = after.alarms.first(where: { $0.id == alarm.id }) else {
                weakened("removes it")
                continue
            }
            guard let moved = nextRing(of: changed, in: after, zone: zone, after: now) else {
                weakened("silences that ring")
                continue
            }
            if moved > ring {
                let resolver = ZoneResolver(zone: zone)
                let (was, later) = (resolver.local(at: ring), resolver.local(at: moved))
                weakened(
                    later.date > was.date
                        ? "silences that ring"
                        : "moves it later (\(later.time.hoursAndMinutes) instead of \(was.time.hoursAndMinutes))")
                continue
            }
            if let what = weaker(changed, than: alarm) { weakened(what) }
        }
        return found
    }

    /// How `changed` rings more gently than `alarm`, if it does.
    static func weaker(_ changed: Alarm, than alarm: Alarm) -> String? {
        func unlimited(_ a: Alarm) -> Bool { a.maxSnoozes == 0 }
        if changed.volume < alarm.volume { return "lowers its volume (\(alarm.volume) → \(changed.volume))" }
        if !unlimited(alarm), unlimited(changed) || changed.maxSnoozes > alarm.maxSnoozes {
            return "allows more snoozes"
        }
        if changed.snoozeMinutes > alarm.snoozeMinutes { return "makes its snoozes longer" }
        if changed.challenge != alarm.challenge, alarm.challenge == .nfc {
            return "lets something other than a tag stop it"
        }
        let difficulty: [MathDifficulty: Int] = [.easy: 0, .medium: 1, .hard: 2]
        if difficulty[changed.mathDifficulty]! < difficulty[alarm.mathDifficulty]! { return "makes its problem easier" }
        if alarm.wakeCheckSeconds > 0, changed.wakeCheckSeconds == 0 { return "turns its wake-up check off" }
        if alarm.escalateAfterSeconds > 0,
            changed.escalateAfterSeconds == 0 || changed.escalateAfterSeconds > alarm.escalateAfterSeconds
        {
            return "escalates it later or never"
        }
        if changed.commitSeconds < alarm.commitSeconds { return "shortens its commitment" }
        return nil
    }

    /// The next ring of one alarm in `state` after `instant`.
    public static func nextRing(of alarm: Alarm, in state: ScheduleState, zone: Zone, after instant: Int) -> Int? {
        var only = state
        only.alarms = [alarm]
        var engine = ScheduleEngine(state: only, zone: zone)
        return engine.nextRing(after: instant)?.ringInstant
    }
}
