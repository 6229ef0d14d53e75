/// What a weekly rule or a date override does to the alarms it covers.
public enum DayChange: Hashable, Sendable, CustomStringConvertible {
    /// Nothing rings.
    case off
    /// Ring at this time instead.
    case at(LocalTime)

    public var description: String {
        switch self {
        case .off: "off"
        case .at(let time): "at \(time)"
        }
    }
}

/// "On Saturdays, ring at 09:00" or "on Fridays, stay off", for one alarm or for all of them.
public struct WeeklyRule: Hashable, Sendable, Identifiable {
    public var id: Int
    /// nil means every alarm.
    public var alarmID: Int?
    public var days: DaySet
    public var change: DayChange

    public init(id: Int, alarmID: Int?, days: DaySet, change: DayChange) {
        self.id = id
        self.alarmID = alarmID
        self.days = days
        self.change = change
    }

    public var scopeDescription: String { alarmID.map { "alarm #\($0)" } ?? "all alarms" }
}

/// "On 2026-12-24, ring at 08:00" or "on 2026-12-25, stay off", for one alarm or for all of them.
public struct DateOverride: Hashable, Sendable, Identifiable {
    public var id: Int
    /// nil means every alarm.
    public var alarmID: Int?
    public var date: CivilDate
    public var change: DayChange

    public init(id: Int, alarmID: Int?, date: CivilDate, change: DayChange) {
        self.id = id
        self.alarmID = alarmID
        self.date = date
        self.change = change
    }

    public var scopeDescription: String { alarmID.map { "alarm #\($0)" } ?? "all alarms" }
}

/// The master toggle.
public enum MasterSwitch: Hashable, Sendable {
    case on
    /// Off until `reveille resume`.
    case off
    /// Nothing rings before this date; alarms ring again from this date on.
    case pausedUntil(CivilDate)

    /// Whether alarms may ring on `date`.
    public func allows(_ date: CivilDate) -> Bool {
        switch self {
        case .on: true
        case .off: false
        case .pausedUntil(let until): date >= until
        }
    }

    /// The switch as it stands on `date`: a pause whose days are over is `.on`.
    public func standing(on date: CivilDate) -> MasterSwitch {
        if case .pausedUntil = self, allows(date) { return .on }
        return self
    }
}

/// Checks that a new layer does not collide with one already there.
public enum LayerConflicts {
    /// A weekly rule that covers a weekday already covered by a rule of the same scope is refused.
    public static func check(_ candidate: WeeklyRule, against existing: [WeeklyRule]) throws(InputError) {
        for rule in existing where rule.id != candidate.id && rule.alarmID == candidate.alarmID {
            let shared = rule.days.intersection(candidate.days)
            guard shared.isEmpty else {
                throw InputError(
                    "rule #\(rule.id) (\(rule.days) \(rule.change), \(rule.scopeDescription)) already covers "
                        + "\(shared); change that one instead with 'reveille rule edit \(rule.id)' (or remove it: 'reveille rule rm \(rule.id)')"
                )
            }
        }
    }

    /// A second override for the same date and scope is refused.
    public static func check(_ candidate: DateOverride, against existing: [DateOverride]) throws(InputError) {
        for other in existing
        where other.id != candidate.id && other.alarmID == candidate.alarmID && other.date == candidate.date {
            throw InputError(
                "override #\(other.id) (\(other.date) \(other.change), \(other.scopeDescription)) already covers "
                    + "that date; change that one instead with 'reveille override edit \(other.id)' (or remove it: 'reveille override rm \(other.id)')"
            )
        }
    }

    /// A weekly rule never silently does nothing: a rule that decides no day in the next eight
    /// weeks is kept, with a warning that says why and what rings instead. Judged as if alarms were
    /// on and there were no holidays: a pause or a school break silences a rule for a while, which
    /// `next` shows; this is about a rule that can never ring or silence anything. A rule for all
    /// alarms that sets a time always decides: on a day no alarm rings, it rings itself.
    public static func idleRuleWarning(_ rule: WeeklyRule, in state: ScheduleState, zone: Zone, today: CivilDate)
        -> String?
    {
        var engine = ScheduleEngine(state: asIfOn(state), zone: zone)
        guard !engine.ruleDecides(rule.id, from: today, days: 56) else { return nil }
        switch rule.change {
        case .off:
            return "rule #\(rule.id) silences nothing: no alarm rings on \(rule.days)"
        case .at(let time):
            let why =
                rule.alarmID == nil
                ? "every alarm that rings on \(rule.days) has a rule or an override of its own"
                : "its alarm is a one-shot (weekly rules leave one-shots alone)"
            return
                "rule #\(rule.id) rings nothing: \(why); for a ring every \(rule.days) at \(time), add an alarm: reveille alarm add \(time) --days \(rule.days)"
        }
    }

    /// The same for a date override: one that decides nothing on its date (an "off" with nothing
    /// to silence, a time for a one-shot of another date) is kept, with a warning.
    public static func idleOverrideWarning(_ override: DateOverride, in state: ScheduleState, zone: Zone) -> String? {
        var engine = ScheduleEngine(state: asIfOn(state), zone: zone)
        let decided = engine.decisions(from: override.date, days: 1).contains {
            $0.layer == .override && $0.sourceID == override.id
        }
        guard !decided else { return nil }
        switch override.change {
        case .off:
            return "override #\(override.id) silences nothing: no alarm rings on \(override.date)"
        case .at(let time):
            return
                "override #\(override.id) rings nothing: its alarm is a one-shot of another day; for a ring on \(override.date) at \(time), add one: reveille alarm add \(time) --date \(override.date)"
        }
    }

    /// Why an override that sets a time rings nothing on its day after all, or nil when it rings:
    /// a holiday silences every alarm it would move (an override on a holiday is refused, and removed
    /// when its day becomes one; an override for all alarms stays, for the alarms that do not skip
    /// holidays, and is listed as silent when none rings), or a pause. Lists show it as silent, not
    /// as if it will ring.
    public static func silencedOverride(_ override: DateOverride, in state: ScheduleState, zone: Zone) -> String? {
        guard override.change.isTime else { return nil }
        var engine = ScheduleEngine(state: state, zone: zone)
        let day = engine.decisions(from: override.date, days: 1)
        guard !day.contains(where: { $0.layer == .override && $0.sourceID == override.id && $0.ringInstant != nil })
        else { return nil }
        let silencing =
            day.first { $0.layer == .holiday && (override.alarmID == nil || $0.alarmID == override.alarmID) }
            ?? day.first { $0.layer == .paused }
        return silencing?.note
    }

    /// An override for today whose time has passed rings nothing, and takes the place of the later
    /// rings of the alarms it moves: said, with the rings it drops.
    public static func passedOverrideWarning(_ override: DateOverride, in state: ScheduleState, zone: Zone, now: Int)
        -> String?
    {
        guard case .at(let time) = override.change else { return nil }
        var engine = ScheduleEngine(state: state, zone: zone)
        let decided = engine.decisions(from: override.date, days: 1).filter {
            $0.layer == .override && $0.sourceID == override.id
        }
        guard !decided.isEmpty, decided.allSatisfy({ ($0.ringInstant ?? Int.max) <= now }) else { return nil }
        var without = state
        without.overrides.removeAll { $0.id == override.id }
        var before = ScheduleEngine(state: without, zone: zone)
        let moved = Set(decided.map(\.alarmID))
        let dropped = before.decisions(from: override.date, days: 1).filter {
            moved.contains($0.alarmID) && ($0.ringInstant ?? 0) > now
        }
        let lost = dropped.map { decision in
            let name = state.alarm(decision.alarmID).map { $0.isHousehold ? "the household ring" : "alarm \($0.name)" }
            return "\(name ?? "alarm #\(decision.alarmID)") no longer rings at \(decision.time) that day"
        }
        return "override #\(override.id): \(time) on \(override.date) has passed, so it rings nothing"
            + (lost.isEmpty
                ? "" : ", and \(lost.joined(separator: "; ")); give it a later time, or remove it to keep that ring")
    }

    /// The rules and overrides that ring on their own in the next eight weeks, as the household's
    /// ring or through a disabled alarm, each with its first such ring. Before layers rang on their
    /// own, these rang nothing: said once after that upgrade, so that nobody is woken by surprise.
    public static func ringingAlone(in state: ScheduleState, zone: Zone, today: CivilDate) -> [String] {
        var engine = ScheduleEngine(state: state, zone: zone)
        var seen: Set<String> = []
        var found: [String] = []
        for decision in engine.decisions(from: today, days: 56) where decision.ringInstant != nil {
            guard let alarm = state.alarm(decision.alarmID), alarm.isHousehold || !alarm.enabled,
                let id = decision.sourceID
            else { continue }
            let layer: String
            switch decision.layer {
            case .rule:
                guard let rule = state.rules.first(where: { $0.id == id }) else { continue }
                layer = "rule #\(id) (\(rule.days) \(rule.change), \(rule.scopeDescription))"
            case .override:
                guard let override = state.overrides.first(where: { $0.id == id }) else { continue }
                layer = "override #\(id) (\(override.date) \(override.change), \(override.scopeDescription))"
            default: continue
            }
            guard seen.insert(layer).inserted else { continue }
            let who = alarm.isHousehold ? "as the household ring" : "though alarm \(alarm.name) is disabled"
            found.append(
                "\(layer) now rings \(who), first on \(decision.date.weekday.displayName) \(decision.date) at \(decision.time)"
            )
        }
        return found
    }

    /// The state with alarms on and no holidays.
    private static func asIfOn(_ state: ScheduleState) -> ScheduleState {
        var state = state
        state.master = .on
        state.holidays = [:]
        return state
    }

    /// Overrides for dates before `today` no longer matter and are purged.
    public static func expired(_ overrides: [DateOverride], today: CivilDate) -> [DateOverride] {
        overrides.filter { $0.date < today }
    }
}
