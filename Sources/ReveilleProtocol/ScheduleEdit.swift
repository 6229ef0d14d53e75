import ReveilleCore

/// A request that changes alarms, rules, overrides, the master switch or the tags alarms name, as
/// one value with one meaning: the commitment gate applies it to the schedule the machine judges
/// (`applied(to:)`), and the request's handler writes the same change to the store with the same
/// pieces (`RulePatch.apply`, `OverridePatch.apply`, `Alarm.removingTag`). Neither keeps a rule of
/// its own for what an edit does.
public enum ScheduleEdit: Sendable {
    case alarm(id: Int, AlarmSpec)
    case removeAlarm(id: Int)
    case enableAlarm(id: Int, Bool)
    case addRule(WeeklyRule)
    case rule(id: Int, RulePatch)
    case removeRule(id: Int)
    case addOverride(DateOverride)
    case override(id: Int, OverridePatch)
    case removeOverride(id: Int)
    case removeTag(label: String)
    case master(MasterSwitch)

    /// The edit `command` makes (dates read on `today`), or nil for a command that changes no
    /// alarm, rule, override or pause. A date that does not parse throws: the handler says so in
    /// its own words. Every command says which it is: a new one does not compile until it does.
    public static func of(_ command: Command, today: CivilDate) throws(InputError) -> ScheduleEdit? {
        switch command {
        case .alarmEdit(let id, let spec): return .alarm(id: id, spec)
        case .alarmRemove(let id): return .removeAlarm(id: id)
        case .alarmSetEnabled(let id, let enabled): return .enableAlarm(id: id, enabled)
        case .ruleAdd(let alarmID, let days, let change):
            return .addRule(WeeklyRule(id: ScheduleEdit.unsaved, alarmID: alarmID, days: days, change: change))
        case .ruleEdit(let id, let days, let change, let alarmID, let allAlarms):
            return .rule(id: id, RulePatch(days: days, change: change, alarmID: alarmID, allAlarms: allAlarms))
        case .ruleRemove(let id): return .removeRule(id: id)
        case .overrideAdd(let alarmID, let date, let change):
            return .addOverride(
                DateOverride(
                    id: ScheduleEdit.unsaved, alarmID: alarmID, date: try CivilDate.parse(date, today: today),
                    change: change))
        case .overrideEdit(let id, let date, let change, let alarmID, let allAlarms):
            return .override(
                id: id,
                OverridePatch(
                    date: try date.map { text throws(InputError) in try CivilDate.parse(text, today: today) },
                    change: change, alarmID: alarmID, allAlarms: allAlarms))
        case .overrideRemove(let id): return .removeOverride(id: id)
        case .tagRemove(let label): return .removeTag(label: label)
        case .pause(let until):
            guard let until else { return .master(.off) }
            let date = try CivilDate.parse(until, today: today)
            guard date > today else {
                throw InputError("--until \(date): must be after today (\(today)); alarms ring again from that date")
            }
            return .master(.pausedUntil(date))
        case .resume: return .master(.on)
        // New alarms, calendars and reminders weaken no ring by being added or removed here
        // (calendars and reminders are not judged under commitment: docs/guide/ringing.md, "Commitment").
        case .alarmAdd, .calendarAdd, .calendarRemove, .reminderAdd, .reminderEdit, .reminderRemove, .remindersSwitch,
            .chimeAgain:
            return nil
        case .status, .alarmList, .ruleList, .overrideList, .next, .snooze, .awake, .unlock, .dismissNext, .problem,
            .answer, .history, .stats, .soundTest, .soundDevices, .soundList, .soundStop, .alarmTest, .tagAdd, .tagList,
            .tagTest,
            .appsStatus, .appsOverview, .appCheck, .appGrant, .appStart, .appList, .appPut, .appRemove, .appExport,
            .appCatalog,
            .appAsk, .appRequests, .appAnswer, .appsHousehold, .appsFromHub, .webServing, .watch, .firstSetup, .wifiScan, .wifiJoin, .screenLight, .webPair,
            .webRedeem,
            .webDevices,
            .webUnpair,
            .calendarList, .calendarShow, .calendarFetchNow, .reminderList:
            return nil
        }
    }

    /// The id a rule or override has before the store gives it one.
    public static let unsaved = -1

    /// `state` after the edit, or nil when what it names is not there (the handler refuses it in
    /// its own words). An alarm's spec is applied as `alarm edit` applies it, with the tags it
    /// names taken as registered (the handler checks them).
    public func applied(to state: ScheduleState, now: SpecNow) throws -> ScheduleState? {
        var state = state
        switch self {
        case .alarm(let id, let spec):
            guard let at = state.alarms.firstIndex(where: { $0.id == id }) else { return nil }
            try spec.apply(
                to: &state.alarms[at], isNew: false, now: now, registeredTags: { Set(spec.tags ?? []) },
                checkSound: { _ in })
        case .removeAlarm(let id):
            guard let at = state.alarms.firstIndex(where: { $0.id == id }) else { return nil }
            state.alarms.remove(at: at)
            // As the store cascades: the rules, overrides and held rings of that alarm alone go with it.
            state.rules.removeAll { $0.alarmID == id }
            state.overrides.removeAll { $0.alarmID == id }
            state.heldAgainstHolidays = state.heldAgainstHolidays.filter { $0.alarmID != id }
        case .enableAlarm(let id, let enabled):
            guard let at = state.alarms.firstIndex(where: { $0.id == id }) else { return nil }
            state.alarms[at].enabled = enabled
        case .addRule(let rule): state.rules.append(rule)
        case .rule(let id, let patch):
            guard let at = state.rules.firstIndex(where: { $0.id == id }) else { return nil }
            patch.apply(to: &state.rules[at])
        case .removeRule(let id): state.rules.removeAll { $0.id == id }
        case .addOverride(let override): state.overrides.append(override)
        case .override(let id, let patch):
            guard let at = state.overrides.firstIndex(where: { $0.id == id }) else { return nil }
            patch.apply(to: &state.overrides[at])
        case .removeOverride(let id): state.overrides.removeAll { $0.id == id }
        case .removeTag(let label): state.alarms = state.alarms.map { $0.removingTag(label) }
        case .master(let master): state.master = master
        }
        return state
    }
}

/// What `rule edit` changes: the fields given.
public struct RulePatch: Sendable, Hashable {
    public var days: DaySet?
    public var change: DayChange?
    public var alarmID: Int?
    /// `--all-alarms`: the rule is for every alarm.
    public var allAlarms: Bool

    public init(days: DaySet?, change: DayChange?, alarmID: Int?, allAlarms: Bool) {
        self.days = days
        self.change = change
        self.alarmID = alarmID
        self.allAlarms = allAlarms
    }

    public func apply(to rule: inout WeeklyRule) {
        if let days { rule.days = days }
        if let change { rule.change = change }
        if let alarmID { rule.alarmID = alarmID }
        if allAlarms { rule.alarmID = nil }
    }
}

/// What `override edit` changes: the fields given.
public struct OverridePatch: Sendable, Hashable {
    public var date: CivilDate?
    public var change: DayChange?
    public var alarmID: Int?
    /// `--all-alarms`: the override is for every alarm.
    public var allAlarms: Bool

    public init(date: CivilDate?, change: DayChange?, alarmID: Int?, allAlarms: Bool) {
        self.date = date
        self.change = change
        self.alarmID = alarmID
        self.allAlarms = allAlarms
    }

    public func apply(to override: inout DateOverride) {
        if let date { override.date = date }
        if let change { override.change = change }
        if let alarmID { override.alarmID = alarmID }
        if allAlarms { override.alarmID = nil }
    }
}
