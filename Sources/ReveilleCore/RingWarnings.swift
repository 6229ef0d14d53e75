/// Why an alarm will not ring, or will not ring as set, in words a user can act on: said when an
/// alarm is added or changed, and under `alarm list` where NEXT RING is `-`. Pure: the schedule,
/// the day and what the clock has (a reader, tags) come in as data.
public enum RingWarnings {
    /// What the clock has, besides the schedule.
    public struct Equipment: Sendable {
        public var readerConfigured: Bool
        public var tagCount: Int

        public init(readerConfigured: Bool, tagCount: Int) {
            self.readerConfigured = readerConfigured
            self.tagCount = tagCount
        }
    }

    /// The warnings for `alarm`, most important first; `nextRing` is whether the engine found a
    /// ring ahead; `time` is the wall clock's now on `today`.
    public static func warnings(
        for alarm: Alarm, in state: ScheduleState, today: CivilDate, time: LocalTime, nextRing: Bool,
        equipment: Equipment
    ) -> [String] {
        var warnings: [String] = []
        if !alarm.enabled {
            // A one-shot whose moment has passed would only be turned on to warn again: give it a
            // new date instead.
            if case .once(let date) = alarm.repeats, hasPassed(alarm, today: today, time: time) {
                warnings.append(
                    "it was set for \(date) \(alarm.time), which has passed; to use it again, give it a new date ('reveille alarm edit \(alarm.id) --date tomorrow')"
                )
            } else {
                warnings.append("it is off ('reveille alarm enable \(alarm.id)' turns it on)")
                warnings += stillRinging(disabled: alarm, in: state, today: today)
            }
        }
        switch state.master {
        case .off: warnings.append("alarms are paused until 'reveille resume'")
        case .pausedUntil(let date) where date > today:
            warnings.append("alarms are paused until \(date.weekday.displayName) \(date): nothing rings before then")
        default: break
        }
        if alarm.enabled {
            switch alarm.repeats {
            case .once(let date) where !nextRing && date <= today:
                warnings.append("it was set for \(date) \(alarm.time), which has passed")
            case .weekly(let days) where !days.isEmpty && silencedDays(of: alarm, by: state.rules) == days:
                warnings.append("weekly rules silence every day it repeats (\(days)); see 'reveille rule list'")
            default:
                if !nextRing, warnings.isEmpty {
                    warnings.append("no ring ahead: date overrides or rules silence it; see 'reveille next'")
                }
            }
        }
        if alarm.challenge == .nfc {
            if !equipment.readerConfigured {
                warnings.append(
                    "--challenge nfc, but no NFC reader is configured: a math problem stands in ([nfc] device in reveille.toml)"
                )
            } else if equipment.tagCount == 0 {
                warnings.append(
                    "--challenge nfc, but no tag is registered: a math problem stands in ('reveille tag add --label NAME')"
                )
            }
        }
        return warnings
    }

    /// Why turning `alarm` on is refused, if it is: a one-shot whose moment has passed rings
    /// nothing once on (a switch would show it on and it would never ring). Its date says when.
    public static func passedOneShot(_ alarm: Alarm, enabling: Bool, today: CivilDate, time: LocalTime) -> String? {
        guard enabling, case .once(let date) = alarm.repeats, hasPassed(alarm, today: today, time: time) else {
            return nil
        }
        return
            "alarm \(alarm.name) was set for \(date.weekday.displayName) \(date) \(alarm.time), which has passed: a one-time alarm rings once, so it stays off. Give it a new date or time to turn it on ('reveille alarm edit \(alarm.id) --date tomorrow')"
    }

    /// Whether `alarm` is a one-shot whose moment (its date and time) is before `today` at `time`.
    static func hasPassed(_ alarm: Alarm, today: CivilDate, time: LocalTime) -> Bool {
        guard case .once(let date) = alarm.repeats else { return false }
        return date < today || (date == today && alarm.time <= time)
    }

    /// A disabled weekly alarm skips its base only: its own rules and overrides that set a time
    /// still ring it, and those for all alarms ring by themselves on a day no alarm rings (README,
    /// "How the schedule decides"). Which ones, and how to silence them too.
    static func stillRinging(disabled alarm: Alarm, in state: ScheduleState, today: CivilDate) -> [String] {
        guard case .weekly = alarm.repeats else { return [] }
        func said(_ scope: Int?, _ intro: String) -> String? {
            let rules = state.rules.filter { $0.alarmID == scope && $0.change.isTime }
            let overrides = state.overrides.filter { $0.alarmID == scope && $0.change.isTime && $0.date >= today }
            guard !rules.isEmpty || !overrides.isEmpty else { return nil }
            let named =
                rules.map { "rule #\($0.id) (\($0.days) \($0.change))" }
                + overrides.map { "override #\($0.id) (\($0.date) \($0.change))" }
            let commands =
                rules.map { "reveille rule rm \($0.id)" } + overrides.map { "reveille override rm \($0.id)" }
            return
                "\(intro): \(named.joined(separator: ", ")); to silence \(named.count == 1 ? "it" : "them") too: \(commands.joined(separator: "; ")) (or 'reveille pause' for every alarm)"
        }
        return [
            said(alarm.id, "its own rules and overrides with a time still ring it"),
            said(nil, "rules and overrides for all alarms ring by themselves on days no alarm rings"),
        ].compactMap { $0 }
    }

    /// The days of `alarm`'s week that weekly rules turn off for it (rules for it, or for all
    /// alarms).
    static func silencedDays(of alarm: Alarm, by rules: [WeeklyRule]) -> DaySet {
        var days = DaySet.none
        for rule in rules where rule.change == .off && (rule.alarmID == nil || rule.alarmID == alarm.id) {
            days = DaySet(days.days + rule.days.days)
        }
        guard case .weekly(let own) = alarm.repeats else { return .none }
        return own.intersection(days)
    }
}
