import FoundationEssentials

/// Commitment (docs/guide/ringing.md, "Commitment"): within an alarm's `--commit` before its next ring, a change
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

    /// How commitment treats one field of an alarm (docs/guide/ringing.md, "What a commitment holds"): every
    /// stored field of `Alarm` has exactly one entry in `fields`, which a test checks, so that a
    /// new field cannot be added without a decision about it.
    public struct FieldRule: Sendable {
        /// The `Alarm` property.
        public let field: String
        /// How a change of it is judged, in the README's words.
        public let treatment: String
        /// What the change does to the ring, in words, when it weakens it; nil when it does not.
        /// Changes that move or silence the ring are judged on the schedule (`weakenings`).
        let weakens: @Sendable (_ changed: Alarm, _ alarm: Alarm) -> String?

        init(
            _ field: String, _ treatment: String,
            weakens: @escaping @Sendable (Alarm, Alarm) -> String? = { _, _ in nil }
        ) {
            self.field = field
            self.treatment = treatment
            self.weakens = weakens
        }
    }

    /// Every field of an alarm, and how commitment judges a change of it: the name, time,
    /// repeat, sound and tags here, each setting's from its declaration (`Alarm.settings`).
    public static let fields: [FieldRule] =
        [
            FieldRule("id", "not changeable"),
            FieldRule("label", "free: a name does not change the ring"),
            FieldRule("time", "judged on the schedule: later needs the challenge, earlier is free"),
            FieldRule(
                "repeats", "judged on the schedule: a change that drops or delays the next ring needs the challenge"),
            FieldRule("enabled", "judged on the schedule: off needs the challenge"),
            FieldRule("sound", "any other sound needs the challenge (a quiet or silent file is a way to weaken it)") {
                $0.sound != $1.sound ? "changes its sound" : nil
            },
            FieldRule(
                "tags",
                "a tag it did not take (or any tag, for a list emptied) needs the challenge; fewer tags are free"
            ) {
                changed, alarm in
                guard alarm.challenge != .math, !alarm.tags.isEmpty else { return nil }
                if changed.tags.isEmpty { return "lets any registered tag stop it" }
                let added = changed.tags.filter { !alarm.tags.contains($0) }
                return added.isEmpty ? nil : "lets tag \(added.map { "\"\($0)\"" }.joined(separator: ", ")) stop it"
            },
        ]
        + Alarm.settings.map { FieldRule($0.key, $0.treatment, weakens: $0.weakens) }

    /// How `changed` rings more gently than `alarm`, if it does: the first field that weakens it.
    static func weaker(_ changed: Alarm, than alarm: Alarm) -> String? {
        for rule in fields {
            if let what = rule.weakens(changed, alarm) { return what }
        }
        return nil
    }

    /// The next ring of one alarm in `state` after `instant`.
    public static func nextRing(of alarm: Alarm, in state: ScheduleState, zone: Zone, after instant: Int) -> Int? {
        var only = state
        only.alarms = [alarm]
        var engine = ScheduleEngine(state: only, zone: zone)
        return engine.nextRing(after: instant, of: alarm.id)?.ringInstant
    }
}
