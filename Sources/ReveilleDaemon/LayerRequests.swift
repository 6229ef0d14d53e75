import Logging
import ReveilleCore
import ReveilleProtocol
import ReveilleStore

/// The layers over the alarms (docs/guide/schedule.md, "How the schedule decides"): weekly rules, date overrides,
/// and the master switch (`pause`, `resume`).
final class LayerRequests: RequestHandler {
    private let controller: Controller
    private let store: Store
    private let logger: Logger

    init(controller: Controller, store: Store, logger: Logger) {
        self.controller = controller
        self.store = store
        self.logger = logger
    }

    func handle(_ request: Asked) throws -> Handled {
        // A change is written as the gate judged it: its edit, and the day it was judged on.
        let today = request.judged?.now.date ?? controller.today()
        let edit = request.judged?.edit
        switch request.command {
        case .ruleList:
            var response = Response()
            response.rules = try store.scheduleState().rules.map(RuleInfo.init)
            return .answer(response)
        case .ruleAdd:
            guard case .addRule(let candidate) = edit else { throw misrouted(request.command) }
            if let alarmID = candidate.alarmID { _ = try store.existingAlarm(alarmID) }
            guard !candidate.days.isEmpty else { throw InputError("days: a rule needs at least one day") }
            let rule = try store.insertRule(candidate) { existing in
                try Self.asConflict { () throws(InputError) in try LayerConflicts.check(candidate, against: existing) }
            }
            return .answer(try ruleResponse(rule, "added", today: today))
        case .ruleEdit:
            guard case .rule(let id, let patch) = edit else { throw misrouted(request.command) }
            if let alarmID = patch.alarmID { _ = try store.existingAlarm(alarmID) }
            if let days = patch.days, days.isEmpty { throw InputError("days: a rule needs at least one day") }
            let rule = try store.updateRule(id: id) { rule, existing throws in
                patch.apply(to: &rule)
                let candidate = rule
                try Self.asConflict { () throws(InputError) in
                    try LayerConflicts.check(candidate, against: existing.filter { $0.id != id })
                }
            }
            guard let rule else { throw Self.noRule(id) }
            return .answer(try ruleResponse(rule, "changed", today: today))
        case .ruleRemove:
            guard case .removeRule(let id) = edit else { throw misrouted(request.command) }
            guard try store.deleteRule(id: id) else { throw Self.noRule(id) }
            logger.info("rule #\(id) removed")
            return .answer(Response(message: "removed rule #\(id)"))
        case .overrideList:
            var response = Response()
            // A past day's override may wait for the machine to judge that day to its end before
            // it is purged (`.purge`); it is history already, not listed.
            let state = try controller.currentState()
            response.overrides = state.overrides.filter { $0.date >= today }.map { override in
                var info = OverrideInfo(override)
                info.silent = LayerConflicts.silencedOverride(override, in: state, zone: controller.zone)
                return info
            }
            return .answer(response)
        case .overrideAdd:
            guard case .addOverride(let candidate) = edit else { throw misrouted(request.command) }
            if let alarmID = candidate.alarmID { _ = try store.existingAlarm(alarmID) }
            let date = candidate.date
            guard date >= today else { throw InputError("date \(date) is in the past (today is \(today))") }
            let state = try controller.currentState()
            try Self.refuseOnHoliday(candidate, in: state)
            let override = try store.insertOverride(candidate) { existing in
                try Self.asConflict { () throws(InputError) in try LayerConflicts.check(candidate, against: existing) }
            }
            return .answer(
                try overrideResponse(override, "added", holidayNotes: Self.holidayNotes(candidate, in: state)))
        case .overrideEdit:
            guard case .override(let id, let patch) = edit else { throw misrouted(request.command) }
            if let alarmID = patch.alarmID { _ = try store.existingAlarm(alarmID) }
            if let date = patch.date, date < today {
                throw InputError("date \(date) is in the past (today is \(today))")
            }
            let state = try controller.currentState()
            let override = try store.updateOverride(id: id) { override, existing throws in
                patch.apply(to: &override)
                let candidate = override
                try Self.refuseOnHoliday(candidate, in: state)
                try Self.asConflict { () throws(InputError) in
                    try LayerConflicts.check(candidate, against: existing.filter { $0.id != id })
                }
            }
            guard let override else { throw Self.noOverride(id) }
            return .answer(
                try overrideResponse(override, "changed", holidayNotes: Self.holidayNotes(override, in: state)))
        case .overrideRemove:
            guard case .removeOverride(let id) = edit else { throw misrouted(request.command) }
            guard try store.deleteOverride(id: id) else { throw Self.noOverride(id) }
            logger.info("override #\(id) removed")
            return .answer(Response(message: "removed override #\(id)"))
        case .pause, .resume:
            guard case .master(let master) = edit else { throw misrouted(request.command) }
            try store.setMaster(master)
            var response: Response
            switch master {
            case .on:
                logger.notice("alarms resumed")
                return .answer(Response(message: "alarms are on"))
            case .off:
                logger.notice("alarms paused until resumed")
                response = Response(message: "alarms are off until 'reveille resume'")
            case .pausedUntil(let until):
                logger.notice("alarms paused until \(until)")
                response = Response(
                    message: "alarms paused; they ring again from \(until.weekday.displayName) \(until)")
            }
            response.warnings = controller.stillRinging()
            return .answer(response)
        default: throw misrouted(request.command)
        }
    }

    private func ruleResponse(_ rule: WeeklyRule, _ verb: String, today: CivilDate) throws -> Response {
        logger.info("rule #\(rule.id) \(verb): \(rule.days) \(rule.change), \(rule.scopeDescription)")
        var response = Response(
            message: "\(verb) rule #\(rule.id): \(rule.days) \(rule.change), \(rule.scopeDescription)")
        response.rules = [RuleInfo(rule)]
        if let idle = LayerConflicts.idleRuleWarning(
            rule, in: try store.scheduleState(), zone: controller.zone, today: today)
        {
            response.warnings = [idle]
        }
        return response
    }

    /// An override for one alarm that skips holidays, on one of its holidays, could do nothing: the
    /// holiday gates the day. Refused, saying what rings that day instead.
    private static func refuseOnHoliday(_ override: DateOverride, in state: ScheduleState) throws(Refusal) {
        guard let holiday = state.holidayGating(override),
            let alarm = state.alarms.first(where: { $0.id == override.alarmID })
        else { return }
        let instead =
            switch override.change {
            case .off: "it is silent that day already"
            case .at(let time):
                "for a ring that day, add a one-time alarm: reveille alarm add \(time) --date \(override.date)"
            }
        throw Refusal(
            .refused,
            "\(override.date) is a holiday (\(holiday)) and alarm \(alarm.name) skips holidays, so an override cannot change that day; \(instead)"
        )
    }

    /// For an override for every alarm on a holiday: the alarms that skip holidays stay silent.
    private static func holidayNotes(_ override: DateOverride, in state: ScheduleState) -> [String] {
        guard override.alarmID == nil, let holiday = state.holidays[override.date] else { return [] }
        return state.alarms.filter(\.skipHolidays).map {
            "alarm \($0.name) skips holidays: \(override.date) is one (\(holiday)), so it stays silent that day"
        }
    }

    private func overrideResponse(_ override: DateOverride, _ verb: String, holidayNotes: [String] = []) throws
        -> Response
    {
        logger.info(
            "override #\(override.id) \(verb): \(override.date) \(override.change), \(override.scopeDescription)")
        var response = Response(
            message:
                "\(verb) override #\(override.id): \(override.date) \(override.change), \(override.scopeDescription)")
        response.overrides = [OverrideInfo(override)]
        let state = try controller.currentState()
        let idle = LayerConflicts.idleOverrideWarning(override, in: state, zone: controller.zone)
        let passed = LayerConflicts.passedOverrideWarning(
            override, in: state, zone: controller.zone, now: controller.nowSeconds())
        let warnings = holidayNotes + [idle, passed].compactMap { $0 }
        response.warnings = warnings.isEmpty ? nil : warnings
        return response
    }

    /// Runs a layer check, reporting a collision as a conflict rather than as bad input.
    private static func asConflict(_ check: () throws(InputError) -> Void) throws(Refusal) {
        do { try check() } catch { throw Refusal(.conflict, error.message) }
    }

    private static func noRule(_ id: Int) -> Refusal {
        Refusal(.notFound, "no rule #\(id); 'reveille rule list' shows the ids")
    }

    private static func noOverride(_ id: Int) -> Refusal {
        Refusal(.notFound, "no override #\(id); 'reveille override list' shows the ids")
    }
}
