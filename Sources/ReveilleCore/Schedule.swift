import FoundationEssentials

/// Which layer decided what an alarm does on a day (docs/guide/schedule.md, "How the schedule decides"), highest priority first.
public enum Layer: String, Hashable, Sendable, Codable {
    /// The master toggle is off, or alarms are paused.
    case paused
    /// The alarm itself is disabled.
    case disabled
    /// A one-time date override.
    case override
    /// A weekly rule.
    case rule
    /// A holiday, for alarms that skip holidays.
    case holiday
    /// The alarm as set.
    case base
    /// The zone skipped the whole date (Pacific/Apia, 2011-12-30).
    case zone
}

/// Why an alarm stays silent on a day.
public enum Silence: Hashable, Sendable {
    case masterOff
    case pausedUntil(CivilDate)
    case alarmDisabled
    case override(id: Int)
    case rule(id: Int)
    case holiday(name: String)
    case dateSkippedByZone
}

/// What happens to one alarm on one day.
public enum Verdict: Hashable, Sendable {
    /// It rings at `instant` (seconds since the epoch), which reads `shownAs` on the wall clock.
    case ring(instant: Int, shownAs: LocalTime, shift: ZoneShift)
    case silent(Silence)
}

/// One alarm on one day, with the layer that decided it.
public struct Decision: Hashable, Sendable {
    public let alarmID: Int
    public let date: CivilDate
    /// The time the layers chose (the alarm's own time when silent).
    public let time: LocalTime
    public let layer: Layer
    /// Whether `holiday` is an event its calendar's filter leaves out, rather than a holiday this
    /// committed ring stands against (beside `layer`, in what would be padding: the engine makes
    /// millions of decisions, and a larger one costs in every copy and sort).
    var holidayIsNone = false
    /// The rule or override that decided, if one did.
    public let sourceID: Int?
    public let verdict: Verdict
    /// A holiday's name beside this ring of an alarm that skips holidays, said in its note.
    public internal(set) var holiday: String? = nil

    /// A holiday of the calendars that this committed ring stands against (it applies after it).
    public var heldHoliday: String? { holidayIsNone ? nil : holiday }

    /// An event of a holiday calendar on this day that its filter says is no holiday: this alarm,
    /// which skips holidays, rings.
    public var notHoliday: String? { holidayIsNone ? holiday : nil }

    public var ringInstant: Int? {
        if case .ring(let instant, _, _) = verdict { return instant }
        return nil
    }

    /// A short explanation for people: why it is silent, or how the zone bent the time.
    public var note: String {
        switch verdict {
        case .ring(_, let shown, .gap):
            return "\(time) does not exist that day (clocks go forward), rings at \(shown)"
        case .ring(_, _, .repeated):
            return "\(time) happens twice that day (clocks go back), rings at the first"
        case .ring where heldHoliday != nil:
            return "committed: rings despite the holiday (\(heldHoliday!)), which applies after this ring"
        case .ring where notHoliday != nil:
            return "not a holiday: \(notHoliday!) (its calendar's filter leaves it out)"
        case .ring:
            switch layer {
            case .override: return "override #\(sourceID ?? 0)"
            case .rule: return "rule #\(sourceID ?? 0)"
            default: return ""
            }
        case .silent(let silence):
            switch silence {
            case .masterOff: return "alarms are off ('reveille resume' turns them on)"
            case .pausedUntil(let date): return "paused until \(date)"
            case .alarmDisabled: return "alarm disabled"
            case .override(let id): return "override #\(id): off"
            case .rule(let id): return "rule #\(id): off"
            case .holiday(let name): return "holiday: \(name)"
            case .dateSkippedByZone: return "this date does not exist in the time zone"
            }
        }
    }
}

/// Everything the schedule depends on, as plain data.
public struct ScheduleState: Sendable {
    public var alarms: [Alarm]
    public var rules: [WeeklyRule]
    public var overrides: [DateOverride]
    /// Dates on which holiday-skipping alarms stay silent, with the holiday's name.
    public var holidays: [CivilDate: String]
    /// Events of holiday calendars that their filters leave out, by date: shown beside the rings
    /// of holiday-skipping alarms that day, so that `next` says why they ring.
    public var notHolidays: [CivilDate: String] = [:]
    public var master: MasterSwitch
    /// Reminders set by the clock (`reveille reminder add`).
    public var reminders: [Reminder]
    /// The chimes of reminder calendars, from their events.
    public var calendarChimes: [Chime]
    /// The switch for every reminder (`reveille reminders off`), apart from the alarms' pause.
    public var remindersOn: Bool
    /// Committed rings that a calendar changed inside their window would have silenced with a
    /// holiday: they stand, and the holiday applies to that alarm after them (README, "What a
    /// commitment holds"). Kept by the clock machine, not stored.
    public var heldAgainstHolidays: Set<HeldRing>
    /// What a rule or an override for all alarms rings with on a day no alarm rings
    /// (`Alarm.household`); not one of `alarms`.
    public var household: Alarm

    public init(
        alarms: [Alarm] = [], rules: [WeeklyRule] = [], overrides: [DateOverride] = [],
        holidays: [CivilDate: String] = [:], master: MasterSwitch = .on, reminders: [Reminder] = [],
        calendarChimes: [Chime] = [], remindersOn: Bool = true, heldAgainstHolidays: Set<HeldRing> = [],
        household: Alarm = .household()
    ) {
        self.household = household
        self.heldAgainstHolidays = heldAgainstHolidays
        self.remindersOn = remindersOn
        self.alarms = alarms
        self.rules = rules
        self.overrides = overrides
        self.holidays = holidays
        self.master = master
        self.reminders = reminders
        self.calendarChimes = calendarChimes
    }

    /// The alarm with this id, the household's ring included: what rings a decision's ring.
    public func alarm(_ id: Int) -> Alarm? {
        id == Alarm.householdID ? household : alarms.first { $0.id == id }
    }

    /// The holiday that gates `override`, when it names one alarm that skips holidays and its date
    /// is one of theirs: the alarm stays silent that day whatever the override says (`decide`).
    public func holidayGating(_ override: DateOverride) -> String? {
        guard let id = override.alarmID, let alarm = alarms.first(where: { $0.id == id }), alarm.skipHolidays else {
            return nil
        }
        guard !heldAgainstHolidays.contains(HeldRing(alarmID: id, date: override.date)) else { return nil }
        return holidays[override.date]
    }
}

/// The layered schedule of the README's "How the schedule decides", as a pure function of the state, the zone and the dates asked for.
public struct ScheduleEngine {
    public private(set) var zone: ZoneResolver
    private let state: ScheduleState
    /// Alarms in order of their time, so a day's decisions come out sorted unless a layer moves one;
    /// then, last, the household's ring (`household`).
    private let alarms: [Alarm]
    /// The index of the household's ring in `alarms`: the count of the alarms before it.
    private let household: Int
    /// For each alarm (same order): per weekday, its own rule.
    private let ownRules: [[WeeklyRule?]]
    /// Per weekday, the rule for all alarms (and so the household's ring's).
    private let generalRules: [WeeklyRule?]
    private let overridesByDay: [Int: [DateOverride]]

    public init(state: ScheduleState, zone: Zone) {
        self.state = state
        self.zone = ZoneResolver(zone: zone)
        let sorted = state.alarms.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        self.alarms = sorted + [state.household]
        self.household = sorted.count
        var byScope: [Int?: [WeeklyRule?]] = [:]
        for rule in state.rules {
            var slots = byScope[rule.alarmID] ?? Array(repeating: nil, count: 7)
            for day in rule.days.days { slots[day.rawValue] = rule }
            byScope[rule.alarmID] = slots
        }
        let none = [WeeklyRule?](repeating: nil, count: 7)
        self.generalRules = byScope[nil] ?? none
        self.ownRules = sorted.map { byScope[$0.id] ?? none }
        self.overridesByDay = Dictionary(grouping: state.overrides, by: { $0.date.dayNumber })
    }

    /// Calls `body` with every decision from `start` for `days` days, day by day, in ring-time order
    /// within a day. Alarms with nothing to do on a day (not repeating then, no layer for them) are
    /// left out. On a day where no alarm has anything to do but stay disabled, a rule or override for
    /// all alarms that sets a time rings by itself, as the household's ring.
    public mutating func forEachDecision(from start: CivilDate, days: Int, _ body: (Decision) -> Void) {
        var dayDecisions: [Decision] = []
        dayDecisions.reserveCapacity(alarms.count)
        for offset in 0..<max(0, days) {
            let date = start.adding(days: offset)
            let day = Day(
                date: date, weekday: date.weekday.rawValue, overrides: overridesByDay[date.dayNumber] ?? [],
                offset: zone.uniformOffset(on: date))
            dayDecisions.removeAll(keepingCapacity: true)
            var moved = false
            for index in 0..<household {
                if let decision = decide(index, on: day) {
                    moved = moved || decision.time != alarms[index].time
                    dayDecisions.append(decision)
                }
            }
            if !dayDecisions.contains(where: { $0.layer != .disabled }), let household = decideHousehold(on: day) {
                dayDecisions.append(household)
                moved = moved || dayDecisions.count > 1
            }
            if moved {
                dayDecisions.sort { ($0.time, $0.alarmID) < ($1.time, $1.alarmID) }
            }
            dayDecisions.forEach(body)
        }
    }

    /// The days ahead as `next` and the month view show them: every decision from the local date
    /// of `now` for `days` days, less today's whose time has passed. Returns whether any of
    /// today's were left out ("nothing more today" rather than "nothing set").
    @discardableResult
    public mutating func forEachDecisionAhead(from now: Int, days: Int, _ body: (Decision) -> Void) -> Bool {
        let local = zone.local(at: now)
        var skippedToday = false
        forEachDecision(from: local.date, days: days) { decision in
            if decision.date == local.date, decision.ringInstant.map({ $0 <= now }) ?? (decision.time <= local.time) {
                skippedToday = true
            } else {
                body(decision)
            }
        }
        return skippedToday
    }

    /// Whether weekly rule `id` decides any alarm's day in the `days` days from `date`: a rule for
    /// every alarm only changes the alarms that ring that day, so with none behind it, it does
    /// nothing.
    public mutating func ruleDecides(_ id: Int, from date: CivilDate, days: Int) -> Bool {
        var found = false
        forEachDecision(from: date, days: days) { decision in
            if decision.layer == .rule, decision.sourceID == id { found = true }
        }
        return found
    }

    /// Every decision from `start` for `days` days.
    public mutating func decisions(from start: CivilDate, days: Int) -> [Decision] {
        var result: [Decision] = []
        forEachDecision(from: start, days: days) { result.append($0) }
        return result
    }

    /// Rings due after `start` and up to `end` (instants, inclusive of `end`), oldest first.
    public mutating func rings(after start: Int, through end: Int) -> [Decision] {
        guard end > start else { return [] }
        let first = zone.local(at: start).date.adding(days: -1)
        let days = zone.local(at: end).date.dayNumber - first.dayNumber + 2
        var found: [Decision] = []
        forEachDecision(from: first, days: days) { decision in
            if let ring = decision.ringInstant, ring > start, ring <= end { found.append(decision) }
        }
        return found.sorted { ($0.ringInstant!, $0.alarmID) < ($1.ringInstant!, $1.alarmID) }
    }

    /// The first ring strictly after `instant` within `horizonDays` days, if any; of alarm `alarmID`
    /// alone when given (never the household's ring, which is no alarm's: a rule for all alarms on
    /// a day that alarm does not ring rings as the household's, not as that alarm).
    public mutating func nextRing(after instant: Int, of alarmID: Int? = nil, horizonDays: Int = 400) -> Decision? {
        var start = zone.local(at: instant).date.adding(days: -1)
        if case .pausedUntil(let until) = state.master, until > start { start = until }
        if state.master == .off { return nil }
        var found: Decision?
        var day = 0
        while found == nil, day < horizonDays {
            forEachDecision(from: start.adding(days: day), days: 1) { decision in
                if found == nil, let ring = decision.ringInstant, ring > instant,
                    alarmID == nil || decision.alarmID == alarmID
                {
                    found = decision
                }
            }
            day += 1
        }
        return found
    }

    /// What one day brings to every alarm, looked up once.
    private struct Day {
        let date: CivilDate
        let weekday: Int
        let overrides: [DateOverride]
        /// The zone's offset all day, or nil near a transition.
        let offset: Int?
    }

    /// The household's ring on `day`, which has no alarm to move: the override for all alarms that
    /// day, else the rule for all alarms that weekday, when it sets a time. An override that turns
    /// the day off, over a rule that would ring it, decides it silent (a custody Sunday turned off
    /// shows as turned off, not as nothing set).
    private mutating func decideHousehold(on day: Day) -> Decision? {
        let override = day.overrides.first { $0.alarmID == nil }
        let rule = generalRules[day.weekday]
        if let override, !override.change.isTime {
            guard case .at(let time) = rule?.change,
                let silent = decide(household, override: override, rule: rule, on: day)
            else { return nil }
            // At the time of the ring it turns off.
            return Decision(
                alarmID: silent.alarmID, date: silent.date, time: time, layer: silent.layer, sourceID: silent.sourceID,
                verdict: silent.verdict)
        }
        guard override?.change.isTime ?? rule?.change.isTime ?? false else { return nil }
        return decide(household, override: override, rule: override == nil ? rule : nil, on: day)
    }

    private mutating func decide(_ index: Int, on day: Day) -> Decision? {
        let alarm = alarms[index]
        let date = day.date
        var override: DateOverride? =
            day.overrides.isEmpty
            ? nil : day.overrides.first { $0.alarmID == alarm.id } ?? day.overrides.first { $0.alarmID == nil }
        var rule: WeeklyRule?
        let concerned: Bool
        switch alarm.repeats {
        case .once(let onDate):
            rule = nil
            concerned = onDate == date
            if !alarm.enabled { override = nil }  // a disabled one-shot is done
        case .weekly(let days):
            let specific = ownRules[index][day.weekday]
            rule = specific ?? generalRules[day.weekday]
            // A layer for this very alarm that sets a time makes it ring on a day it does not repeat;
            // layers for all alarms only change the alarms that ring that day anyway.
            concerned =
                days.contains(date.weekday) || specific?.change.isTime == true
                || (override?.alarmID == alarm.id && override?.change.isTime == true)
            // A disabled alarm skips its base only (the school-calendar design): its own rules and
            // overrides that set a time still ring. Layers for all alarms leave it alone; on a day
            // no alarm rings, they ring as the household's ring.
            if !alarm.enabled {
                if override?.alarmID != alarm.id { override = nil }
                if rule?.alarmID != alarm.id { rule = nil }
                let own = override.map { $0.change.isTime } ?? rule?.change.isTime ?? false
                if !own { (override, rule) = (nil, nil) }
            }
        }
        guard concerned else { return nil }
        return decide(index, override: override, rule: rule, on: day)
    }

    /// What `alarm` does on `day`, which concerns it, with the override and the rule that apply.
    @inline(__always)
    private mutating func decide(_ index: Int, override: DateOverride?, rule: WeeklyRule?, on day: Day) -> Decision? {
        let alarm = alarms[index]
        let date = day.date

        // A silent day shows the time it would have rung at: what the layers under the one that
        // silences it say (a custody rule's 06:30 on a holiday, not the base 06:45).
        let ruleTime: LocalTime? = if case .at(let other) = rule?.change { other } else { nil }
        let overrideTime: LocalTime? = if case .at(let other) = override?.change { other } else { nil }
        func silent(_ layer: Layer, _ silence: Silence, source: Int? = nil, wouldRing: LocalTime? = nil) -> Decision {
            Decision(
                alarmID: alarm.id, date: date, time: wouldRing ?? alarm.time, layer: layer, sourceID: source,
                verdict: .silent(silence))
        }
        let layered = overrideTime ?? ruleTime
        if !state.master.allows(date) {
            if case .pausedUntil(let until) = state.master {
                return silent(.paused, .pausedUntil(until), wouldRing: layered)
            }
            return silent(.paused, .masterOff, wouldRing: layered)
        }
        // Disabled, it rings only through its own layers that set a time, left here by `decide`.
        guard alarm.enabled || override != nil || rule != nil else {
            return silent(.disabled, .alarmDisabled)
        }
        // A holiday gates every layer of an alarm that skips them: no school, no alarm, whatever
        // the week's rule says (an override on such a day is refused, or removed when the day
        // becomes a holiday later: `holidayOverrides`).
        if alarm.skipHolidays, let name = state.holidays[date],
            !state.heldAgainstHolidays.contains(HeldRing(alarmID: alarm.id, date: date))
        {
            return silent(.holiday, .holiday(name: name), wouldRing: layered)
        }

        var layer = Layer.base
        var time = alarm.time
        var source: Int?
        if let override {
            guard case .at(let other) = override.change else {
                return silent(.override, .override(id: override.id), source: override.id, wouldRing: ruleTime)
            }
            (layer, time, source) = (.override, other, override.id)
        } else if let rule {
            guard case .at(let other) = rule.change else {
                return silent(.rule, .rule(id: rule.id), source: rule.id)
            }
            (layer, time, source) = (.rule, other, rule.id)
        }
        let held = alarm.skipHolidays ? state.holidays[date] : nil
        let notHoliday = alarm.skipHolidays && held == nil && !state.notHolidays.isEmpty ? state.notHolidays[date] : nil
        let (decided, at, by) = (layer, time, source)
        func ring(_ instant: Int, shownAs shown: LocalTime, _ shift: ZoneShift) -> Decision {
            var decision = Decision(
                alarmID: alarm.id, date: date, time: at, layer: decided, sourceID: by,
                verdict: .ring(instant: instant, shownAs: shown, shift: shift))
            decision.holiday = held ?? notHoliday
            decision.holidayIsNone = held == nil && notHoliday != nil
            return decision
        }
        if let offset = day.offset {
            return ring(date.dayNumber * 86_400 + time.secondsOfDay - offset, shownAs: time, .none)
        }
        guard zone.exists(date) else {
            return Decision(
                alarmID: alarm.id, date: date, time: time, layer: .zone, sourceID: nil,
                verdict: .silent(.dateSkippedByZone))
        }
        let (instant, shift) = zone.resolve(date, time)
        return ring(instant, shownAs: shift == .gap ? zone.local(at: instant).time : time, shift)
    }

    /// What `alarm` does on `date`, or nil when it has nothing to do that day.
    public mutating func decide(_ alarm: Alarm, on date: CivilDate) -> Decision? {
        guard let index = alarms[..<household].firstIndex(where: { $0.id == alarm.id }) else { return nil }
        let day = Day(
            date: date, weekday: date.weekday.rawValue, overrides: overridesByDay[date.dayNumber] ?? [],
            offset: zone.uniformOffset(on: date))
        return decide(index, on: day)
    }
}

extension DayChange {
    var isTime: Bool {
        if case .at = self { return true }
        return false
    }
}

/// One alarm's ring on one day that a holiday does not silence: it was committed when a calendar
/// made its day a holiday.
public struct HeldRing: Hashable, Sendable {
    public var alarmID: Int
    public var date: CivilDate

    public init(alarmID: Int, date: CivilDate) {
        self.alarmID = alarmID
        self.date = date
    }
}
